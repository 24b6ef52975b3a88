"""Checks every game's situation reader makes in the same way.

A situation (``sim/<game>_situation.py``) is a JSON-able dict describing one
seat's view of a decision.  The readers of the card games share a few ideas:
an object may hold only the keys the game knows, a list of cards may be one
string separated by spaces or commas, a card may be seen in one place only,
some values come one per seat (a list in seat order, or an object keyed by
seat) and counts are whole numbers in a range.  They live here once; every
message stays in the game's own words (the callers pass them in), so each
game names its own clause ids.
"""

from __future__ import annotations

import math
from typing import Callable, NoReturn

import numpy as np

from ludolab.stdlib.errors import SituationError, ascii_whole


def fail(message: str) -> NoReturn:
    """Raise :class:`~ludolab.stdlib.errors.SituationError` with ``message`` (one line)."""
    raise SituationError(message)


def check_keys(value, allowed, what: str, *, word: str = "key", not_object: str | None = None) -> None:
    """Refuse ``value`` unless it is a dict whose keys are all in ``allowed``.

    Args:
        value: the object read from JSON.
        allowed: the key names, in the order the message lists them.
        what: what ``value`` is, for the message (``"the situation"``).
        word: what a key is called in the message (``"key"`` or ``"field"``).
        not_object: the message when ``value`` is not a dict (default: ``what`` must be a JSON object,
            naming the keys and the type given).

    Raises:
        SituationError: ``unknown <word> 'x' in <what>: allowed are a, b, ...`` for the first unknown key.
    """
    if not isinstance(value, dict):
        fail(not_object if not_object is not None else
             f"{what} must be a JSON object (keys {', '.join(allowed)}), not {type(value).__name__}")
    bad = [k for k in value if k not in allowed]
    if bad:
        fail(f"unknown {word} {bad[0]!r} in {what}: allowed are {', '.join(allowed)}")


def split_cards(text) -> list[str]:
    """The tokens of a card list written as one string, separated by spaces or commas (``"2 ? ? 9"``)."""
    return str(text).replace(",", " ").split()


def shown(value) -> str:
    """A value read from JSON as a message shows it: JSON's own spelling for ``true``, ``false`` and
    ``null``, Python's repr otherwise."""
    import json

    return json.dumps(value) if value is None or isinstance(value, bool) else repr(value)


def whole(value, what: str, low: int, high: int | None = None, *, digit_strings: bool = True,
          integral_floats: bool = True) -> int:
    """``value`` as an int in ``low..high`` (``high`` None: no upper bound), refusing bools.

    The one rule of every game's situation files: a whole number may be written ``3``, ``3.0`` or
    ``"3"`` (digits 0-9 only); ``3.5``, ``"three"``, ``true`` and fullwidth digits are refused.

    Args:
        value: the number read from JSON.
        what: what it counts, for the message.
        low, high: the allowed range, both ends included.
        digit_strings: also accept a string of the digits 0-9 (``"3"``, ``"-1"``).
        integral_floats: also accept a finite float with no fraction (``3.0``).

    Raises:
        SituationError: ``<what> must be a whole number low..high, not <value>``.
    """
    v = value
    ok = isinstance(v, (int, np.integer)) and not isinstance(v, bool)
    if not ok and integral_floats and isinstance(v, float) and math.isfinite(v) and v == int(v):
        v, ok = int(v), True
    if not ok and digit_strings and ascii_whole(v):  # 0-9 only, never fullwidth or other scripts' digits
        v, ok = int(v), True
    if ok and int(v) >= low and (high is None or int(v) <= high):
        return int(v)
    rng = f"{low}..{high}" if high is not None else f">= {low}"
    fail(f"{what} must be a whole number {rng}, not {shown(value)}")


def per_seat(value, n: int, message: Callable[[object], str], types=(list,)) -> list:
    """``value`` when it is a list (of ``types``) with one entry per seat, ``n`` of them.

    Raises:
        SituationError: ``message(value)``, the game's words for a wrong list.
    """
    if not isinstance(value, types) or len(value) != n:
        fail(message(value))
    return list(value)


def seat_keyed(value, read_seat: Callable[[object], int], what: str, twice: str | None = None) -> dict:
    """An object ``{"seat": value}`` (seats as the game writes them) as ``{seat index: value}``.

    Args:
        value: the object read from JSON.
        read_seat: the game's seat reader (it refuses a seat off the table).
        what: the key's name, for the message when ``value`` is not an object.
        twice: the message (with ``{seat}``) when two keys name the same seat; None: the later wins.

    Raises:
        SituationError: ``<what> is an object {"seat": card}, not ...``, or ``twice``.
    """
    if not isinstance(value, dict):
        fail(f'{what} is an object {{"seat": card}}, not {value!r}')
    out = {}
    for k, v in value.items():
        s = read_seat(k)
        if twice is not None and s in out:
            fail(twice.format(seat=s))
        out[s] = v
    return out


class CardPlaces:
    """Where each card of a situation was seen; a card seen in a second place is refused.

    Args:
        twice: the game's message for a card seen twice, from (card as written, first place, second place).
    """

    def __init__(self, twice: Callable[[str, str, str], str]):
        self.where: dict[int, str] = {}
        self._twice = twice

    def see(self, card: int, where: str, name: str) -> int:
        """Record ``card`` (a card index, written ``name``) as seen at ``where``; return it.

        Raises:
            SituationError: the card was already seen elsewhere (every card is in one place).
        """
        if card in self.where:
            fail(self._twice(name, self.where[card], where))
        self.where[card] = where
        return card

    def __contains__(self, card) -> bool:
        return card in self.where
