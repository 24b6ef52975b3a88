"""Every world consistent with an observation, for exact advice in an endgame small enough.

A game whose hidden information can shrink to a few worlds registers an enumerator on its
:class:`ludolab.sim.step.StepGame` as ``extra["enumerate_worlds"]``::

    enumerate_worlds(rules, obs, seat, limit) -> Worlds

It lists, once each, every full state ``determinize(rules, obs, seat, key, state)`` can write
(the same support: each consistent world equally likely under ``determinize``), with the
state's random stream slot set to 0 (the advice sets each world's stream).  When there are
more than ``limit`` worlds it only counts them (``Worlds.states`` is None).  The advice
(:func:`ludolab.sim.advice.advise`) then evaluates every action over every world instead of
sampling them.

This module holds what the games' enumerators share: counting and listing the distinct
arrangements of a multiset of cards into a list of hidden places (a shuffle's support).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Iterator

import numpy as np


@dataclass(frozen=True, eq=False)
class Worlds:
    """The worlds consistent with one observation.

    Attributes:
        count: how many there are (an exact int, however large).
        states: int64 (count, STATE_SIZE), each world once (its stream slot 0), or None when
            ``count`` is above the limit asked for (they are then not built).
    """

    count: int
    states: np.ndarray | None


def arrangements_count(cards) -> int:
    """The distinct orders of the multiset ``cards`` (a sequence of ints): n! / prod(m_k!).

    Each of them is equally likely under a uniform shuffle of the sequence.
    """
    n = math.factorial(len(cards))
    for m in Counter(int(c) for c in cards).values():
        n //= math.factorial(m)
    return n


def arrangements(cards) -> Iterator[tuple]:
    """Every distinct order of the multiset ``cards`` once, as tuples (lexicographic order)."""
    counts = sorted(Counter(int(c) for c in cards).items())
    kinds = [k for k, _ in counts]
    left = [m for _, m in counts]
    n = len(cards)
    out = [0] * n

    def rec(i):
        if i == n:
            yield tuple(out)
            return
        for j, k in enumerate(kinds):
            if left[j]:
                left[j] -= 1
                out[i] = k
                yield from rec(i + 1)
                left[j] += 1

    yield from rec(0)


def shuffled_places(template: np.ndarray, places, cards, limit: int, s_rng: int, fix=None) -> Worlds:
    """The worlds of a game whose determinization shuffles ``cards`` into ``places`` uniformly.

    Args:
        template: int64 (STATE_SIZE,), one determinization of the observation (every slot
            outside ``places`` is what every world holds).
        places: the state offsets that receive the shuffled cards, in order.
        cards: the unseen cards (a multiset: repeated kinds give fewer distinct worlds).
        limit: build the worlds only when there are at most this many.
        s_rng: the offset of the state's stream (set to 0 in every world).
        fix: optional ``fix(state) -> None`` writing what follows from the placed cards
            (what other seats know of them).

    Returns:
        :class:`Worlds`.

    Raises:
        ValueError: ``places`` and ``cards`` of different lengths.
    """
    if len(places) != len(cards):
        raise ValueError(f"{len(places)} hidden places for {len(cards)} unseen cards")
    count = arrangements_count(cards)
    if count > limit:
        return Worlds(count, None)
    idx = np.asarray(list(places), dtype=np.int64)
    states = np.repeat(np.asarray(template, dtype=np.int64)[None, :], count, axis=0)
    states[:, s_rng] = 0
    for w, order in enumerate(arrangements(cards)):
        states[w, idx] = order
        if fix is not None:
            fix(states[w])
    return Worlds(count, states)
