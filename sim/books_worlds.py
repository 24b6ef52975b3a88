"""Every deal of the unseen cards consistent with a Shut The Books observation (clause STK-5).

The worlds are the ones ``determinize`` deals from (uniformly): the cards the seat cannot see
go to the other hands, each hand getting exactly its number of cards, and no card of a colour
to a seat that showed out of that colour by not following it (STK-5).  Everything else of the
state is what the observation shows.  See :mod:`ludolab.sim.worlds`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ludolab.stdlib.books import (HMASK, L_HAND, L_HIDDEN, LOC, MAX_NUMBER, N_CARD_IDS, NHAND, S_PLAYERS,
                                  S_RNG, S_VIEWER)
from ludolab.stdlib.books import STATE_SIZE as HAND_STATE_SIZE

from . import books_reference as REF
from .worlds import Worlds


def _constraints(obs, seat: int):
    """(hidden cards, other seats, their hand sizes, per hidden card the seats that may hold it)."""
    P = int(obs[S_PLAYERS])
    void = REF.voids([int(x) for x in obs[:HAND_STATE_SIZE]])
    others = [s for s in range(P) if s != seat]
    cap = tuple(int(obs[NHAND + s]) for s in others)
    hidden = [c for c in range(N_CARD_IDS) if obs[LOC + c] == L_HIDDEN]
    holders = [tuple(i for i, s in enumerate(others) if not void[4 * s + c // MAX_NUMBER]) for c in hidden]
    return hidden, others, cap, holders


def enumerate_worlds(rules, obs, seat: int, limit: int) -> Worlds:
    """Every deal of the cards ``seat`` cannot see that agrees with its observation (STK-5).

    Args:
        rules: int64, the step game's rules array (unused: the observation carries the deal's shape).
        obs: int64 (OBS_SIZE,), ``seat``'s observation (``books_kernels.observe``).
        seat: the observing seat.
        limit: the most worlds to build; above it only their number is returned.

    Returns:
        :class:`ludolab.sim.worlds.Worlds`: ``states`` int64 (count, STATE_SIZE), each deal once,
        stream slot 0; ``count`` is 0 when no deal fits (an inconsistent observation).

    Raises:
        ValueError: ``obs`` is not ``seat``'s observation.
    """
    obs = np.asarray(obs, dtype=np.int64)
    if int(obs[S_VIEWER]) != int(seat):
        raise ValueError("the observation is not the seat's")
    hidden, others, cap, holders = _constraints(obs, int(seat))
    n = len(hidden)

    @lru_cache(maxsize=None)
    def ways(i: int, room: tuple) -> int:  # deals of hidden[i:] into the room left per seat
        if i == n:
            return int(not any(room))
        return sum(ways(i + 1, room[:o] + (room[o] - 1,) + room[o + 1:]) for o in holders[i] if room[o] > 0)

    count = ways(0, cap)
    if count > limit:
        return Worlds(count, None)
    base = obs.copy()
    base[S_VIEWER] = -1
    base[S_RNG] = 0
    states = np.repeat(base[None, :], count, axis=0)
    deal = [0] * n
    w = 0

    def rec(i: int, room: tuple):
        nonlocal w
        if i == n:
            for c, o in zip(hidden, deal):
                s = others[o]
                states[w, LOC + c] = L_HAND + s
                states[w, HMASK + 4 * s + c // MAX_NUMBER] |= np.int64(1) << (c % MAX_NUMBER)
            w += 1
            return
        for o in holders[i]:
            if room[o] > 0:
                rest = room[:o] + (room[o] - 1,) + room[o + 1:]
                if ways(i + 1, rest):
                    deal[i] = o
                    rec(i + 1, rest)

    if count:
        rec(0, cap)
    return Worlds(count, states)
