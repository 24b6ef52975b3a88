"""Reading the JSON files a user gives (hand records, tableaus, provenance sidecars).

One reader for all of them, so every malformed file is refused the same way:
one line naming the file and what is wrong, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

from .errors import LudolabError


#: The most bytes ludolab reads from one input file or stream (hand records, tableaus,
#: decks, policy tables, provenance sidecars): far above any real one, so an endless
#: stream (``/dev/zero``) or a huge file is refused instead of filling the memory.
MAX_INPUT_BYTES = 64 * 2**20


#: The most bytes of a table ludolab reads back (a policy table, a saved result).
MAX_TABLE_BYTES = 4 * 2**30


def _limit_words(limit: int) -> str:
    if limit >= 2**30:
        return f"{limit // 2**30} GiB"
    return f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit} bytes"


def read_input(source, what: str, error: type[LudolabError] = LudolabError, limit: int | None = None,
               binary: bool = False, cannot: str | None = None):
    """Read an input file or stream, at most ``limit`` bytes (default :data:`MAX_INPUT_BYTES`).

    Args:
        source: a path (``str`` or :class:`~pathlib.Path`) or an open file object (stdin);
        what: what it should hold, for messages; error: the error class to raise;
        binary: return bytes instead of UTF-8 text (a byte-order mark removed);
        cannot: the start of the message when the input cannot be read (default
            ``cannot read the WHAT NAME``), followed by ``: CAUSE``.

    Raises:
        error: the input is larger than the limit (or endless), cannot be read, or is not UTF-8.
    """
    limit = MAX_INPUT_BYTES if limit is None else int(limit)
    is_path = isinstance(source, (str, Path))
    name = str(source) if is_path else "standard input"
    try:
        if is_path:
            with open(source, "rb") as fh:
                data = fh.read(limit + 1)
        else:
            if source is None:  # the process was started with standard input closed
                raise error(f"{cannot or f'cannot read the {what} {name}'}: it is closed (pipe the {what} in)")
            raw = getattr(source, "buffer", source)
            data = raw.read(limit + 1)
    except OSError as exc:
        raise error(f"{cannot or f'cannot read the {what} {name}'}: {exc.strerror or exc}") from None
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > limit:
        raise error(f"the {what} {name} is larger than {_limit_words(limit)} (or endless): "
                    f"a {what} of at most {_limit_words(limit)} is read")
    if binary:
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise error(f"{name} is not UTF-8 text: a {what} is expected") from None


def check_input_size(path, what: str, error: type[LudolabError] = LudolabError, limit: int | None = None) -> None:
    """Refuse an input file that a library reads whole (Parquet, CSV) before it is read: not a
    regular file (a device, a pipe: maybe endless) or larger than ``limit`` bytes.

    Raises:
        error: naming the file, what it should hold and the limit.
    """
    import os
    import stat

    limit = MAX_INPUT_BYTES if limit is None else int(limit)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise error(f"cannot read the {what} {str(path)}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise error(f"the {what} {str(path)} is not a regular file: give a file of at most {_limit_words(limit)}")
    if st.st_size > limit:
        raise error(f"the {what} {str(path)} is larger than {_limit_words(limit)}: "
                    f"a {what} of at most {_limit_words(limit)} is read")


def load_json(source, what: str, error: type[LudolabError] = LudolabError):
    """Parse a JSON file or text.

    Args:
        source: a :class:`~pathlib.Path` to read (UTF-8, a byte-order mark allowed)
            or the JSON text itself.
        what: what the file should hold, for messages (e.g. ``"hand record"``).
        error: the :class:`LudolabError` subclass to raise.

    Returns:
        The parsed value (dict, list, ...).

    Raises:
        error: the file cannot be read, is larger than :data:`MAX_INPUT_BYTES`, is not
            UTF-8 text, is not JSON, nests too deeply to read, or holds a number too long to convert.
    """
    name = str(source) if isinstance(source, Path) else f"the {what}"
    if isinstance(source, Path) or hasattr(source, "read"):
        data = read_input(source, what, error, binary=True)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise error(f"{name} is not UTF-8 text: a JSON {what} is expected") from None
    else:
        text = str(source)
        if text.startswith("\ufeff"):
            text = text[1:]
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{name} is not valid JSON: {exc.msg} at line {exc.lineno} (a JSON {what} is expected)") from None
    except RecursionError:
        raise error(f"{name} nests too deeply to read: a JSON {what} is expected") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise error(f"{name} cannot be read as JSON ({exc}): a JSON {what} is expected") from None
