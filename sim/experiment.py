"""The experiment layer every game uses: chunked, seeded, parallel runs.

A run of ``n`` games is cut into ``n_chunks`` chunks (default
:data:`DEFAULT_CHUNKS`, independent of the thread count).  Chunk ``i`` gets
its key from ``SeedSequence(seed).spawn(n_chunks)[i]`` and plays
``n // n_chunks`` games (the first ``n % n_chunks`` chunks one more).  A game
kernel runs chunks in parallel (numba ``prange`` over chunks, never over draws
from one shared stream) and returns one accumulator per chunk; the runner
calls it on batches of chunks, shows a progress bar per batch, and stacks the
accumulators.  Results are therefore bit-identical for the same seed and chunk
count whatever the number of threads.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

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
        ValueError: if ``n_games`` is outside 1..MAX_GAMES, ``seed`` < 0 or
            ``n_chunks`` outside 1..MAX_CHUNKS.
    """
    if isinstance(n_games, bool) or int(n_games) != n_games or not 1 <= n_games <= MAX_GAMES:
        raise ValueError(f"the number of games must be a whole number 1..{MAX_GAMES:,}, not {n_games}")
    if isinstance(seed, bool) or int(seed) != seed or seed < 0:
        raise ValueError(f"the seed must be a whole number >= 0, not {seed}")
    if int(n_chunks) != n_chunks or not 1 <= n_chunks <= MAX_CHUNKS:
        raise ValueError(f"the number of chunks must be a whole number 1..{MAX_CHUNKS}, not {n_chunks}")
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


def run_chunks(plan: RunPlan, kernel: Callable[[np.ndarray, np.ndarray], np.ndarray],
               progress: bool | None = False, desc: str = "games") -> np.ndarray:
    """Run ``kernel(keys, games) -> array (k, ...)`` over every chunk of ``plan``.

    The kernel gets a contiguous batch of chunks; batches are sized so a
    progress bar moves (about 20 updates) without costing parallelism.
    Returns the per-chunk accumulators stacked, shape (n_chunks, ...).
    """
    n = plan.n_chunks
    if not show_progress(progress) or n < 4:
        return kernel(plan.keys, plan.games)
    from tqdm import tqdm

    batch = max(1, n // 16)
    parts = []
    with tqdm(total=plan.n_games, desc=desc, unit="game", unit_scale=True, file=sys.stderr) as bar:
        for i in range(0, n, batch):
            parts.append(kernel(plan.keys[i:i + batch], plan.games[i:i + batch]))
            bar.update(int(plan.games[i:i + batch].sum()))
    return np.concatenate(parts, axis=0)
