"""Counter-based random numbers shared by every kernel and its pure-Python twin.

A run is cut into chunks; chunk ``i`` gets the key
``SeedSequence(root).spawn(n_chunks)[i].generate_state(1, uint64)[0]``.
Game ``g`` of a chunk starts its own SplitMix64 stream at
``mix64(key + mix64(g))``, so game ``g`` sees the same dice whichever policy
plays it (common random numbers) and whichever thread runs its chunk.

SplitMix64 is Steele, Lea and Flood, "Fast splittable pseudorandom number
generators" (OOPSLA 2014); bounded integers use Lemire's multiply-shift with
rejection ("Fast random integer generation in an interval", 2019), so dice are
exactly uniform.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import kernel_cache as _kernel_cache  # noqa: F401  (processes sharing the cache take turns)

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = 1 << 32


def chunk_keys(seed: int, n_chunks: int) -> np.ndarray:
    """uint64 array, shape (n_chunks,): one key per chunk, from numpy SeedSequence.spawn.

    Raises:
        ValueError: if ``seed`` is negative or ``n_chunks`` < 1.
    """
    if int(seed) < 0:
        raise ValueError(f"seed must be a whole number >= 0, not {seed}")
    if int(n_chunks) < 1:
        raise ValueError(f"n_chunks must be >= 1, not {n_chunks}")
    children = np.random.SeedSequence(int(seed)).spawn(int(n_chunks))
    return np.array([c.generate_state(1, np.uint64)[0] for c in children], dtype=np.uint64)


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64 output function on a uint64."""
    x = np.uint64(z)
    x = (x ^ (x >> _S30)) * _M1
    x = (x ^ (x >> _S27)) * _M2
    return x ^ (x >> _S31)


@njit(cache=True, inline="always")
def game_state(key, g):
    """Starting stream state of game ``g`` (int) of the chunk with ``key``."""
    return mix64(np.uint64(key) + mix64(np.uint64(g)))


@njit(cache=True, inline="always")
def next_below(state, bound):
    """Draw an int uniform on [0, bound) for bound <= 2**32; returns (value, new_state)."""
    b = np.uint64(bound)
    st = np.uint64(state)
    while True:
        st = st + GOLDEN
        r = mix64(st) >> _S32
        m = r * b
        low = m & _LOW32
        if low >= b:
            return np.int64(m >> _S32), st
        threshold = (np.uint64(_TWO32) - b) % b
        if low >= threshold:
            return np.int64(m >> _S32), st


# ----------------------------------------------------------------- pure Python
_MASK64 = (1 << 64) - 1
_PY_GOLDEN = 0x9E3779B97F4A7C15


def py_mix64(z: int) -> int:
    """Pure-Python twin of :func:`mix64`."""
    z &= _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def py_game_state(key: int, g: int) -> int:
    """Pure-Python twin of :func:`game_state`."""
    return py_mix64((int(key) + py_mix64(g)) & _MASK64)


def py_next_below(state: int, bound: int) -> tuple[int, int]:
    """Pure-Python twin of :func:`next_below`."""
    while True:
        state = (state + _PY_GOLDEN) & _MASK64
        r = py_mix64(state) >> 32
        m = r * bound
        low = m & 0xFFFFFFFF
        if low >= bound or low >= ((1 << 32) - bound) % bound:
            return m >> 32, state


@njit(cache=True)
def shuffle_inplace(cards, state):
    """Fisher-Yates shuffle of a 1-D array on a stream; returns the new stream state.

    The deal seam of the card games: a kernel and its pure-Python twin
    (:func:`py_shuffle`) give the same order for the same stream state.
    """
    st = np.uint64(state)
    for i in range(cards.shape[0] - 1, 0, -1):
        j, st = next_below(st, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t
    return st


def py_shuffle(cards: list, state: int) -> int:
    """Pure-Python twin of :func:`shuffle_inplace` (shuffles the list in place)."""
    for i in range(len(cards) - 1, 0, -1):
        j, state = py_next_below(state, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return state
