"""Reading the JSON files a user gives (hand records, tableaus, provenance sidecars).

One reader for all of them, so every malformed file is refused the same way:
one line naming the file and what is wrong, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

from .errors import LudolabError


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
        error: the file cannot be read, is not UTF-8 text, is not JSON, or nests
            too deeply to read.
    """
    name = str(source) if isinstance(source, Path) else f"the {what}"
    if isinstance(source, Path):
        try:
            text = source.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            raise error(f"{name} is not UTF-8 text: a JSON {what} is expected") from None
        except OSError as exc:
            raise error(f"cannot read the {what} {name}: {exc.strerror or exc}") from None
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
