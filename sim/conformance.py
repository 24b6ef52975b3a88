"""What the shared conformance harness needs of a game.

Every registered game's face (``ludolab.sim.<module>``) defines
``conformance() -> Conformance``.  The harness (``tests/test_conformance.py``)
then checks, for every game alike: the kernel and its pure-Python twin play
identical games for the same seed; the same seed gives the same games on one
thread and on several; the invariants hold over random playouts; and a short
seeded playthrough matches the one checked in under ``tests/golden/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Conformance:
    """A game's hooks for the conformance harness.

    Attributes:
        play: ``play(seed, games, engine) -> list[dict]``; ``engine`` is
            ``"kernel"`` or ``"reference"``; one JSON-able record per game with
            its whole course (deal or rolls, every action, final scores).
        check: ``check(record) -> None``; raises AssertionError naming the
            broken invariant (cards or tiles conserved, legal moves until the
            end, scores in bounds, ...).
        playthrough: ``playthrough(seed) -> str``; one short seeded game,
            move by move, as text.
    """

    play: Callable[[int, int, str], list]
    check: Callable[[dict], None]
    playthrough: Callable[[int], str]
