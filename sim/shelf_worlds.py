"""Every world consistent with a Shelve the Book observation: the unseen cards in the hidden places.

``determinize`` shuffles the cards the seat has not seen (neither on a tableau, in the offer, in its
hand nor known to be in another hand) into the hidden places: the pile's unseen positions, bottom to
top, the other hands and the cards another seat drew blind (SHB-6).  Each order is a different world
(the pile's order decides the draws to come), all equally likely, so there are u! worlds for u unseen
cards: few only in the last turns of a game whose deck is nearly used up (5 players on the 90-card
deck, or a smaller deck).  See :mod:`ludolab.sim.worlds`.
"""

from __future__ import annotations

import numpy as np

from . import shelf_kernels as K
from . import shelf_reference as R
from .worlds import Worlds, shuffled_places


def enumerate_worlds(rules, obs, seat: int, limit: int) -> Worlds:
    """Every placement of the unseen cards into the hidden places, once each (SHB-14).

    Args:
        rules: int64, the step game's rules array.
        obs: int64 (OBS_SIZE,), ``seat``'s observation (``shelf_kernels.observe``).
        seat: the observing seat.
        limit: the most worlds to build; above it only their number (u!) is returned.

    Returns:
        :class:`ludolab.sim.worlds.Worlds` (states int64 (count, STATE_SIZE), stream slot 0).

    Raises:
        ValueError: the observation's hidden places do not match its unseen cards.
    """
    obs = np.asarray(obs, dtype=np.int64)
    template = np.zeros(K.STATE_SIZE, dtype=np.int64)
    R.determinize(rules, obs, int(seat), 0, template)  # one world: every place holds an unseen card
    places = R.hidden_places(obs, int(seat))
    return shuffled_places(template, places, sorted(int(c) for c in template[places]), limit, K.S_RNG)
