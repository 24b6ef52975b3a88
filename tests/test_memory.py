"""A simulation needs no more memory than its rules' exact solver: no transition table larger
than the policy's own tables, no (chunks, states) array of counts; the numbers stay the same."""

from __future__ import annotations

import numpy as np

from ludolab.sim import box as B
from ludolab.sim import box_montecarlo as M
from ludolab.sim.runner import RunSpec, execution, run, run_total
from ludolab.stdlib.box import BoxRules


def test_without_room_for_a_transition_table_the_counts_are_the_same(monkeypatch):
    pol = B.make_policy(BoxRules(), "optimal")
    fast = M.simulate(pol, 20_000, seed=4, chunks=8)
    monkeypatch.setattr(M, "MAX_TABLE_BYTES", 0)
    monkeypatch.setattr(M, "transition_table", lambda p: (_ for _ in ()).throw(AssertionError("table built")))
    assert not M.fast_table_fits(pol)
    general = M.simulate(pol, 20_000, seed=4, chunks=8)
    assert np.array_equal(fast.counts, general.counts)


def test_a_big_rules_table_is_not_built():
    """20 tiles and four dice: the fast kernel's table would take 5.4 GB; it is not used."""
    rules = BoxRules(tiles=20, dice="4d6")
    assert M.transition_table_bytes(rules) > 5 * 10**9
    assert M.transition_table_bytes(BoxRules()) <= M.MAX_TABLE_BYTES


def test_a_simulation_takes_no_more_memory_than_the_exact_solver():
    """Peak memory (numpy's allocations, traced) of simulating the optimal policy is at most that of
    solving the same rules (16 tiles, four dice: the fast table would be larger than the policy's)."""
    import tracemalloc

    rules = BoxRules(tiles=16, dice="4d6")
    tracemalloc.start()
    try:
        pol = B.make_policy(rules, "optimal")
        solve_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        res = M.simulate(pol, 2000, seed=0, chunks=2)
        sim_peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert not M.fast_table_fits(pol) and res.games == 2000
    assert sim_peak <= solve_peak, (sim_peak, solve_peak)


def test_run_total_sums_in_waves_to_the_same_numbers():
    rules = BoxRules()
    pol = B.make_policy(rules, "random")
    spec = RunSpec("box", "ludolab.sim.box_kernels:_simulate", (M._sim_args(rules), pol.move, pol.dice),
                   (rules.n_states,), "int64", 5000, 3, 9)
    whole = run(spec).sum(axis=0)
    with execution(wave=2):
        assert np.array_equal(run_total(spec), whole)
    assert np.array_equal(run_total(spec), whole)


def test_run_total_over_many_small_waves():
    """One thread, waves of two chunks, 64 chunks: the slicer's step stays bounded."""
    import numba

    rules = BoxRules()
    pol = B.make_policy(rules, "random")
    spec = RunSpec("box", "ludolab.sim.box_kernels:_simulate", (M._sim_args(rules), pol.move, pol.dice),
                   (rules.n_states,), "int64", 5000, 3, 64)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = run_total(spec)
    finally:
        numba.set_num_threads(old)
    assert np.array_equal(one, run(spec).sum(axis=0))
