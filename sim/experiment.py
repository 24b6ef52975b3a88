"""How every run is cut: chunked and seeded.

A run of ``n`` games is cut into ``n_chunks`` chunks (default
:data:`DEFAULT_CHUNKS`, independent of the thread count).  Chunk ``i`` gets
its key from ``SeedSequence(seed).spawn(n_chunks)[i]`` and plays
``n // n_chunks`` games (the first ``n % n_chunks`` chunks one more).  Game
kernels run chunks in parallel (numba ``prange`` over chunks, never over draws
from one shared stream); :mod:`ludolab.sim.runner` drives them.  Results are
therefore bit-identical for the same seed and chunk count whatever the number
of threads.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

import numpy as np

from ludolab.stdlib.errors import whole_number

from .rng import chunk_keys

DEFAULT_CHUNKS = 64
MAX_GAMES = 10**12
MAX_CHUNKS = 4096


@dataclass(frozen=True)
class RunPlan:
    """How a run is cut: ``keys`` uint64 (n_chunks,), ``games`` int64 (n_chunks,)."""

    seed: int
    n_games: int
    n_chunks: int
    keys: np.ndarray = field(repr=False)
    games: np.ndarray = field(repr=False)

    def provenance(self) -> dict:
        return {"seed": self.seed, "games": self.n_games, "chunks": self.n_chunks}


def plan_run(n_games: int, seed: int, n_chunks: int = DEFAULT_CHUNKS) -> RunPlan:
    """Cut ``n_games`` into chunks with their keys.

    Raises:
        LudolabError: if ``n_games`` is outside 1..MAX_GAMES, ``seed`` < 0 or
            ``n_chunks`` outside 1..MAX_CHUNKS.
    """
    n_games = whole_number(n_games, "the number of games", 1, MAX_GAMES)
    seed = whole_number(seed, "the seed", 0)
    n_chunks = whole_number(n_chunks, "the number of chunks", 1, MAX_CHUNKS)
    n_games, n_chunks = int(n_games), int(n_chunks)
    n_chunks = min(n_chunks, n_games)
    base, extra = divmod(n_games, n_chunks)
    games = np.full(n_chunks, base, dtype=np.int64)
    games[:extra] += 1
    return RunPlan(int(seed), n_games, n_chunks, chunk_keys(seed, n_chunks), games)


def show_progress(requested: bool | None) -> bool:
    """Progress bars: on when asked, or (``None``) when stderr is a terminal."""
    if requested is None:
        return sys.stderr.isatty() and not os.environ.get("CI")
    return bool(requested)
