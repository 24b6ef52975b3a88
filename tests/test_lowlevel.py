"""The hand-written numba extensions (ludolab.sim.lowlevel) still do what the kernels rely on: a
borrowed view aliases its owner's memory, shape and dtype; the population counts equal Python's."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from ludolab.sim.lowlevel import borrow, keep, popcount, popcount64


@njit
def _write_through(a, i, v):
    view = borrow(a)
    view[i] = v
    n = view.shape[0]
    keep(a)
    return n


@njit
def _sum_2d(a):
    view = borrow(a)
    s = 0
    for i in range(view.shape[0]):
        for j in range(view.shape[1]):
            s += view[i, j]
    keep(a)
    return s


@pytest.mark.parametrize("dtype", [np.int64, np.int16, np.float64])
def test_a_borrowed_view_aliases_its_owner(dtype):
    a = np.zeros(7, dtype=dtype)
    assert _write_through(a, 3, 5) == 7
    assert a[3] == 5 and a.sum() == 5
    b = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert _sum_2d(b) == b.sum()


@njit
def _counts(x, y):
    return popcount(x), popcount64(y)


@pytest.mark.parametrize("x", [0, 1, 0b1011, 2**40 + 7, 2**62 + 2**61 + 1, -1])
def test_popcounts_equal_pythons(x):
    a, b = _counts(np.int64(x), np.uint64(x & (2**64 - 1)))
    assert int(a) == bin(x & (2**64 - 1)).count("1") and int(b) == int(a)


def test_popcount64_widens_small_integers():
    @njit
    def f(x):
        return popcount64(x)

    assert f(np.uint8(255)) == 8 and f(np.uint16(0x8001)) == 2
