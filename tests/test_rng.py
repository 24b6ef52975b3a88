"""The random seam shared by kernels and reference engines (sim/rng.py)."""

import numpy as np
import pytest

from ludolab.sim import rng


def test_next_below_twin_and_types():
    """The kernel and its pure-Python twin draw the same numbers, whatever the
    integer type of the stream state they are handed."""
    st = rng.game_state(np.uint64(123), 4)
    pst = rng.py_game_state(123, 4)
    assert int(st) == pst
    assert int(rng.game_state(123, 4)) == pst
    for bound in (2, 6, 36, 60, 2**31 + 11):
        a, st_a = rng.next_below(np.uint64(st), bound)
        b, st_b = rng.py_next_below(pst, bound)
        assert (a, int(st_a)) == (b, st_b)
        assert 0 <= a < bound
        st, pst = st_a, st_b


def test_dice_uniform():
    """Dice drawn by Lemire's method are uniform (chi-square, 36 cells)."""
    st = rng.game_state(np.uint64(7), 0)
    counts = np.zeros(36)
    for _ in range(36_000):
        u, st = rng.next_below(np.uint64(st), 36)
        counts[u] += 1
    chi2 = ((counts - 1000) ** 2 / 1000).sum()
    assert chi2 < 70  # 35 degrees of freedom: p < 0.001 above ~66.6


@pytest.mark.parametrize("n", [2, 48, 60, 66])
def test_shuffle_twin_is_permutation(n):
    """The deal seam: the numba shuffle and its twin give the same permutation."""
    cards = np.arange(n)
    st = rng.shuffle_inplace(cards, rng.game_state(np.uint64(99), n))
    ref = list(range(n))
    pst = rng.py_shuffle(ref, rng.py_game_state(99, n))
    assert cards.tolist() == ref
    assert int(st) == pst
    assert sorted(ref) == list(range(n))


def test_chunk_keys():
    keys = rng.chunk_keys(5, 16)
    assert keys.dtype == np.uint64 and len(set(keys.tolist())) == 16
    assert (rng.chunk_keys(5, 16) == keys).all()
    assert not (rng.chunk_keys(6, 16) == keys).all()
    with pytest.raises(ValueError):
        rng.chunk_keys(-1, 4)
