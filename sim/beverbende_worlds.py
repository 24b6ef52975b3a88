"""Every world consistent with a Beverbende observation: the unseen cards in the hidden places.

``determinize`` shuffles the cards the seat does not know (by kind: values and specials, BVB-1) into
its hidden places: the unknown slots of every row, another seat's drawn card, the draw pile top to
bottom and, after the round, the cards put aside.  Cards of one kind are alike, so the worlds are the
distinct orders of that multiset, all equally likely.  The draw pile holds most of the deck during a
round (BVB-2, BVB-7), so the worlds are few only when almost every card is known or on the discard
pile; the count is returned either way.  See :mod:`ludolab.sim.worlds`.
"""

from __future__ import annotations

import numpy as np

from ludolab.stdlib.beverbende import SLOTS

from . import beverbende_kernels as K
from . import beverbende_reference as REF
from .worlds import Worlds, shuffled_places


def hidden_places(obs, seat: int, template) -> list[int]:
    """The state offsets ``determinize`` fills with unseen cards, in its order, given one of its
    worlds ``template`` (which holds how many cards were put aside)."""
    P = int(obs[K.O_NP])
    over = obs[K.O_OVER] == 1
    places = [K.S_ROWS + j for j in range(SLOTS * P) if obs[K.O_KNOW + j] < 0]
    if obs[K.O_PHASE] == K.PH_DRAWN and not over and obs[K.O_TURN] != seat:
        places.append(K.S_CARD)
    places += [K.S_PILE + i for i in range(int(obs[K.O_PILE_N]))]
    return places + [K.S_ASIDE + i for i in range(int(template[K.S_ASIDE_N]))]


def enumerate_worlds(rules, obs, seat: int, limit: int) -> Worlds:
    """Every distinct placement of the unseen cards into the hidden places, once each.

    Args:
        rules: int64, the step game's rules array.
        obs: int64 (OBS_SIZE,), ``seat``'s observation (``beverbende_kernels.observe``).
        seat: the observing seat.
        limit: the most worlds to build; above it only their number is returned.

    Returns:
        :class:`ludolab.sim.worlds.Worlds` (states int64 (count, STATE_SIZE), stream slot 0); in
        each, every other seat knows its own row, as in ``determinize``.

    Raises:
        ValueError: an observation no deal fits (from ``determinize``).
    """
    obs = np.asarray(obs, dtype=np.int64)
    seat = int(seat)
    template = np.zeros(K.STATE_SIZE, dtype=np.int64)
    REF.determinize(rules, obs, seat, 0, template)
    places = hidden_places(obs, seat, template)
    P, over = int(obs[K.O_NP]), obs[K.O_OVER] == 1

    def fix(state):  # what the other seats know of their own rows follows from the placed cards
        if not over:
            for o in range(P):
                if o != seat:
                    at = K.S_KNOW + 24 * o + SLOTS * o
                    state[at:at + SLOTS] = state[K.S_ROWS + SLOTS * o:K.S_ROWS + SLOTS * o + SLOTS]

    return shuffled_places(template, places, sorted(int(c) for c in template[places]), limit, K.S_RNG, fix)
