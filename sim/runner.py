"""One generic Monte Carlo runner for every game.

A run is plain data, a :class:`RunSpec`: the game, the kernel (a
``"module:function"`` name), its arguments (numpy arrays and scalars), the
shape of one chunk's accumulator, and the number of games, the root seed and
the number of chunks.  A spec pickles, so it can be shipped to another
process, and it has a :meth:`~RunSpec.fingerprint` that changes whenever any
of that changes.

Kernel contract (every game's Monte Carlo kernels follow it)::

    @njit(cache=True, parallel=True)
    def _simulate(keys, starts, stops, *args, out):
        for i in prange(keys.shape[0]):
            for g in range(starts[i], stops[i]):
                st = game_state(keys[i], g)   # game g's own stream
                ...                            # play game g
                out[i, ...] += ...             # only add

:func:`run` calls the kernel on bounded slices of games (about
``slice_seconds`` of work per call, every chunk advancing together), sums the
slices into one accumulator per chunk, moves a progress bar after each call and
lets Ctrl-C stop the run between two calls.  Since every game draws from its
own stream, the slicing never changes a result: the same seed and chunk count
give bit-identical accumulators on any thread count and any slicing.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from .experiment import DEFAULT_CHUNKS, RunPlan, plan_run, show_progress


@dataclass(frozen=True)
class RunSpec:
    """A Monte Carlo run described as data.

    Attributes:
        game: registry id of the game (``box``, ``books``, ...).
        kernel: ``"module:function"`` of a kernel following the module's contract.
        args: the kernel's arguments between ``stops`` and ``out`` (arrays, scalars).
        acc_shape: shape of one chunk's accumulator (``out[i]``).
        acc_dtype: numpy dtype name of the accumulator.
        games: number of games (1..10**12); seed: root seed (>= 0);
        chunks: how the run is cut (part of what the seed means).
        label: what the progress bar calls the run.
    """

    game: str
    kernel: str
    args: tuple = field(repr=False)
    acc_shape: tuple
    acc_dtype: str = "int64"
    games: int = 1
    seed: int = 0
    chunks: int = DEFAULT_CHUNKS
    label: str = "games"

    def plan(self) -> RunPlan:
        """The chunk plan (keys and games per chunk); raises LudolabError on bad counts."""
        return plan_run(self.games, self.seed, self.chunks)

    def fingerprint(self) -> str:
        """SHA-256 (hex) of everything that determines the result."""
        h = hashlib.sha256()
        for part in (self.game, self.kernel, repr(tuple(self.acc_shape)), self.acc_dtype,
                     str(self.games), str(self.seed), str(self.chunks)):
            h.update(part.encode())
            h.update(b"\0")
        for a in self.args:
            if isinstance(a, np.ndarray):
                a = np.ascontiguousarray(a)
                h.update(f"array {a.dtype.str} {a.shape}".encode())
                h.update(a.tobytes())
            else:
                h.update(f"{type(a).__name__} {a!r}".encode())
            h.update(b"\0")
        return h.hexdigest()

    def provenance(self) -> dict:
        """Seed, games and chunks as recorded with every result."""
        return {"seed": int(self.seed), "games": int(self.games), "chunks": int(min(self.chunks, self.games))}


def resolve_kernel(name: str):
    """The function named ``"module:function"``.

    Raises:
        ValueError: if the name is malformed or does not resolve (a bug, not bad input).
    """
    mod, sep, fn = name.partition(":")
    if not sep:
        raise ValueError(f"kernel name {name!r} must look like 'module:function'")
    return getattr(importlib.import_module(mod), fn)


def run(spec: RunSpec, progress: bool | None = False, slice_seconds: float = 0.5,
        first_step: int = 64) -> np.ndarray:
    """Run ``spec`` and return the accumulators, shape ``(n_chunks, *acc_shape)``.

    Args:
        progress: a progress bar on stderr (``None``: only when stderr is a terminal).
        slice_seconds: aim for each kernel call; the number of games per chunk in a
            call starts at ``first_step`` and adapts so a call takes about this long.
        first_step: games per chunk in the first call (tests set it to 1).

    Raises:
        LudolabError: bad games, seed or chunks (from :func:`plan_run`).
        KeyboardInterrupt: passes through between two kernel calls.
    """
    plan = spec.plan()
    kernel = resolve_kernel(spec.kernel)
    n = plan.n_chunks
    out = np.zeros((n, *spec.acc_shape), dtype=spec.acc_dtype)
    pos = np.zeros(n, dtype=np.int64)
    end = plan.games
    step = max(1, int(first_step))
    bar = None
    if show_progress(progress):
        from tqdm import tqdm

        bar = tqdm(total=plan.n_games, desc=spec.label, unit="game", unit_scale=True, file=sys.stderr)
    try:
        while True:
            live = np.flatnonzero(pos < end)
            if live.size == 0:
                break
            stops = np.minimum(pos[live] + step, end[live])
            t0 = time.perf_counter()
            if live.size == n:
                kernel(plan.keys, pos, stops, *spec.args, out)
            else:
                part = np.ascontiguousarray(out[live])
                kernel(np.ascontiguousarray(plan.keys[live]), np.ascontiguousarray(pos[live]), stops,
                       *spec.args, part)
                out[live] = part
            dt = time.perf_counter() - t0
            if bar is not None:
                bar.update(int((stops - pos[live]).sum()))
            pos[live] = stops
            if dt < slice_seconds / 4:
                step *= 4 if dt < slice_seconds / 16 else 2
            elif dt > slice_seconds and step > 1:
                step = max(1, step // 2)
    finally:
        if bar is not None:
            bar.close()
    return out
