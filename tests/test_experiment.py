"""The experiment layer shared by every game: run plans, chunk runner, random streams, intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ludolab.sim import experiment as E
from ludolab.sim import rng
from ludolab.sim.stats import Z95, Estimate, mean_ci, wilson_ci


# ------------------------------------------------------------------ plan_run
@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 10**7), chunks=st.integers(1, 200), seed=st.integers(0, 2**63))
def test_plan_run_splits_games_exactly(n, chunks, seed):
    """plan_run: chunk sizes sum to n, differ by at most 1, larger chunks first; never more chunks than games."""
    plan = E.plan_run(n, seed, chunks)
    assert plan.n_chunks == min(chunks, n)
    assert plan.games.dtype == np.int64 and plan.keys.dtype == np.uint64
    assert len(plan.games) == len(plan.keys) == plan.n_chunks
    assert int(plan.games.sum()) == n
    assert plan.games.max() - plan.games.min() <= 1
    assert (np.diff(plan.games) <= 0).all()
    assert plan.games.min() >= 1
    assert plan.provenance() == {"seed": seed, "games": n, "chunks": plan.n_chunks}


def test_plan_run_default_chunks_and_examples():
    """plan_run: 64 chunks by default; 10 games in 4 chunks -> 3, 3, 2, 2."""
    assert E.plan_run(1000, 0).n_chunks == E.DEFAULT_CHUNKS == 64
    assert E.plan_run(10, 0, 4).games.tolist() == [3, 3, 2, 2]
    assert E.plan_run(3, 0, 64).games.tolist() == [1, 1, 1]


@pytest.mark.parametrize("args", [(0, 0), (-1, 0), (2.5, 0), (True, 0), (10, -1), (10, 1.5), (10, True),
                                  (10, 0, 0), (10, 0, -2), (10, 0, 1.5)])
def test_plan_run_rejects_bad_arguments(args):
    """plan_run: games >= 1, seed >= 0 and chunks >= 1, whole numbers."""
    with pytest.raises(ValueError):
        E.plan_run(*args)


def test_plan_run_error_messages():
    """The messages name the bad value."""
    with pytest.raises(ValueError, match="seed"):
        E.plan_run(10, -1)
    with pytest.raises(ValueError, match="games"):
        E.plan_run(0, 1)


def test_chunk_keys_differ_and_are_reproducible():
    """Chunk keys: distinct within a run, fixed by the seed, different for another seed, and a prefix of a
    longer spawn (SeedSequence.spawn)."""
    a = rng.chunk_keys(7, 64)
    assert len(set(a.tolist())) == 64
    assert np.array_equal(a, rng.chunk_keys(7, 64))
    b = rng.chunk_keys(8, 64)
    assert not set(a.tolist()) & set(b.tolist())
    assert np.array_equal(rng.chunk_keys(7, 100)[:64], a)
    want = np.random.SeedSequence(7).spawn(3)[2].generate_state(1, np.uint64)[0]
    assert rng.chunk_keys(7, 3)[2] == want
    assert np.array_equal(E.plan_run(1000, 7, 64).keys, a)
    with pytest.raises(ValueError):
        rng.chunk_keys(-1, 4)
    with pytest.raises(ValueError):
        rng.chunk_keys(1, 0)


def test_show_progress(monkeypatch):
    """show_progress: explicit on/off wins; None means 'stderr is a terminal and not CI'."""
    assert E.show_progress(True) is True
    assert E.show_progress(False) is False
    monkeypatch.setenv("CI", "1")
    assert E.show_progress(None) is False


# ---------------------------------------------------------------- random streams
@settings(max_examples=200, deadline=None)
@given(key=st.integers(0, 2**64 - 1), g=st.integers(0, 10**9), bound=st.integers(1, 2**32))
def test_numba_and_python_streams_agree(key, g, bound):
    """The numba stream and its pure-Python twin give the same game state and the same draws."""
    st_n = rng.game_state(np.uint64(key), g)
    st_p = rng.py_game_state(key, g)
    assert int(st_n) == st_p
    for _ in range(5):
        u_n, st_n = rng.next_below(np.uint64(st_n), bound)
        u_p, st_p = rng.py_next_below(st_p, bound)
        assert int(u_n) == u_p and int(st_n) == st_p
        assert 0 <= u_p < bound


def test_mix64_known_value():
    """SplitMix64's finaliser: mix64(GOLDEN) is the first output of SplitMix64 seeded with 0."""
    assert rng.py_mix64(0x9E3779B97F4A7C15) == 0xE220A8397B1DCDAF
    assert int(rng.mix64(rng.GOLDEN)) == 0xE220A8397B1DCDAF


def test_next_below_is_uniform_on_dice():
    """Dice drawn with next_below are uniform (chi-square on 36 cells, 72 000 draws)."""
    counts = np.zeros(36, dtype=np.int64)
    st_ = rng.py_game_state(12345, 0)
    for _ in range(72_000):
        u, st_ = rng.py_next_below(st_, 36)
        counts[u] += 1
    chi2 = float(((counts - 2000) ** 2 / 2000).sum())
    assert chi2 < 75  # 35 degrees of freedom: P(chi2 > 75) < 1e-4


# ---------------------------------------------------------------- intervals
def test_wilson_ci_known_values():
    """Wilson 95% intervals: 5/10 -> [0.2366, 0.7634]; 0/10 -> [0, 0.2775]; 10/10 -> [0.7225, 1]."""
    e = wilson_ci(5, 10)
    assert e.value == 0.5
    assert e.low == pytest.approx(0.23659309, abs=1e-6)
    assert e.high == pytest.approx(0.76340691, abs=1e-6)
    z = wilson_ci(0, 10)
    assert z.value == 0.0 and z.low == 0.0
    assert z.high == pytest.approx(Z95 ** 2 / (10 + Z95 ** 2), abs=1e-12)
    assert z.high == pytest.approx(0.27753279, abs=1e-6)
    f = wilson_ci(10, 10)
    assert f.high == pytest.approx(1.0, abs=1e-12) and f.high <= 1.0 and f.low == pytest.approx(1 - z.high, abs=1e-12)
    big = wilson_ci(500, 1000)
    assert big.se == pytest.approx(math.sqrt(0.25 / 1000))
    assert big.contains(0.5) and not big.contains(0.56)
    narrow = wilson_ci(5, 10, z=1.0)
    assert narrow.low > e.low and narrow.high < e.high


@pytest.mark.parametrize("args", [(1, 0), (-1, 10), (11, 10)])
def test_wilson_ci_errors(args):
    """wilson_ci: n >= 1 and 0 <= successes <= n."""
    with pytest.raises(ValueError):
        wilson_ci(*args)


def test_mean_ci_known_values():
    """mean_ci: sample 1, 2, 3, 4 -> mean 2.5, sample variance 5/3, se sqrt(5/12)."""
    e = mean_ci(4, 10.0, 30.0)
    assert e.value == 2.5
    assert e.se == pytest.approx(math.sqrt(5 / 12), abs=1e-12)
    assert e.low == pytest.approx(2.5 - Z95 * math.sqrt(5 / 12), abs=1e-12)
    assert e.high == pytest.approx(2.5 + Z95 * math.sqrt(5 / 12), abs=1e-12)
    one = mean_ci(1, 7.0, 49.0)  # one observation: no interval
    assert one.value == 7.0 and math.isnan(one.low) and math.isnan(one.high) and math.isnan(one.se)
    clipped = mean_ci(2, 0.0 + 17.0, 17.0**2, bounds=(0.0, 45.0))  # scores 0 and 17
    assert clipped.low == 0.0 and clipped.high <= 45.0
    const = mean_ci(100, 300.0, 900.0)
    assert const.se == 0.0 and const.low == const.high == 3.0
    with pytest.raises(ValueError):
        mean_ci(0, 0.0, 0.0)


def test_estimate_helpers():
    """Estimate.contains is inclusive; as_dict names the CI columns."""
    e = Estimate(1.0, 0.5, 1.5, 0.25)
    assert e.contains(0.5) and e.contains(1.5) and not e.contains(1.51)
    assert e.as_dict("x") == {"x": 1.0, "x_ci_low": 0.5, "x_ci_high": 1.5}
