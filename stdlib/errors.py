"""The project's error for bad input.

Every problem a user can cause (rules, policy names, policy tables, hand
records, deck files, counts out of range) is raised as a subclass of
:class:`LudolabError`, with a message in the game's own terms that names what
is wrong and what is allowed.  The command line turns exactly these into one
``Error:`` line and exit code 2; any other exception is a bug and is shown as
one.  ``LudolabError`` derives from ``ValueError`` so callers that catch
``ValueError`` keep working.
"""

from __future__ import annotations


class LudolabError(ValueError):
    """Bad input: the message says what is wrong and what is allowed."""


class UnknownNameError(LudolabError):
    """An unknown game, policy, variant or other name; the message lists the valid ones."""


def unknown(kind: str, name: str, allowed) -> UnknownNameError:
    """An :class:`UnknownNameError` for ``name`` of ``kind``, listing ``allowed``.

    Example: ``raise unknown("policy", "gready", ["greedy", "random"])`` gives
    ``unknown policy 'gready': allowed are greedy, random``.
    """
    return UnknownNameError(f"unknown {kind} {name!r}: allowed are {', '.join(map(str, allowed))}")


def whole_number(value, what: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int, refusing bools, fractions and values outside [low, high].

    Raises:
        LudolabError: naming ``what`` and the allowed range.
    """
    rng = (f"{low:,}..{high:,}" if low is not None and high is not None else
           f">= {low:,}" if low is not None else f"<= {high:,}" if high is not None else "")
    ok = not isinstance(value, bool)
    try:
        ok = ok and int(value) == value
    except (TypeError, ValueError):
        ok = False
    if ok:
        v = int(value)
        ok = (low is None or v >= low) and (high is None or v <= high)
    if not ok:
        raise LudolabError(f"{what} must be a whole number {rng}, not {value!r}".replace("  ", " "))
    return int(value)


class SituationError(LudolabError):
    """A situation to advise on that the rules cannot produce, or at which the seat has no decision."""


def ascii_whole(text) -> bool:
    """Whether ``text`` is a string of one or more ASCII digits 0-9 (an optional leading ``-`` allowed).

    ``str.isdigit``, ``int`` and ``float`` also take fullwidth digits (``"１５"``) and other scripts'
    digits; what a user types must be written with 0-9, so every parser of numbers checks with this
    (or :func:`ascii_digits`) before it converts.
    """
    if not isinstance(text, str):
        return False
    s = text.strip()
    s = s[1:] if s.startswith("-") else s
    return s.isascii() and s.isdigit()


def non_ascii_digit(text) -> str | None:
    """The first character of ``text`` that is a digit other than ASCII 0-9 (e.g. ``"３"``), or None."""
    return next((ch for ch in str(text) if ch.isdigit() and not ch.isascii()), None)


def ascii_digits(text, what: str, error: type = LudolabError):
    """``text`` unchanged when every digit in it is ASCII 0-9.

    Args:
        text: what the user wrote; what: how the message names it (e.g. ``"roll"``);
        error: the exception class to raise (the parser's own, e.g. ``RulesError``).

    Raises:
        error: naming ``what``, the text and the digit that is not 0-9.
    """
    ch = non_ascii_digit(text)
    if ch is not None:
        import unicodedata

        raise error(f"{what} {str(text)!r}: {ch!r} ({unicodedata.name(ch, 'a digit').lower()}) is not "
                           "one of the digits 0-9: write numbers with 0-9")
    return text
