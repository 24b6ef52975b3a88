"""Determinized search (``ludolab.sim.search``) over the step interface.

Held to its pure-Python twin on seeded cases, to the exact solution of Shut
the Box (a move's value is the exact expected score of what it leaves, under
optimal play), and to what the searching seat may see.
"""

from __future__ import annotations

import numpy as np
import pytest

from ludolab.sim import box as B
from ludolab.sim import box_kernels as K
from ludolab.sim import box_reference as R
from ludolab.sim import search as S
from ludolab.sim.box_step import policy_params, rules_array
from ludolab.stdlib.box import BoxRules


def _obs_at(open_mask: int, outcome: int, dice: int) -> np.ndarray:
    """A one-seat match's observation at the move decision (open tiles, roll to cover)."""
    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    obs[K.O_PHASE], obs[K.O_OPEN], obs[K.O_OUT], obs[K.O_DICE] = K.PH_MOVE, open_mask, outcome, dice
    obs[K.O_ROUND] = 1
    obs[K.O_ACTING] = 0
    obs[K.O_ALIVE] = 1
    obs[K.O_LAST:K.O_LAST + K.MAXSEATS] = -1
    return obs


@pytest.fixture(scope="module")
def box():
    rules = BoxRules()
    sol = B.solve(rules)
    return rules, sol, rules_array(rules, 1, 1), policy_params(sol.policy())


def _search(m, rules_arr, obs, worlds, rollout, key, engine="kernel"):
    cfg, params = S.config(K, 0, worlds, 1, True, key, [rollout], 64)
    work = S.work_arrays(K, 1)
    truth = np.zeros(K.STATE_SIZE, dtype=np.int64)
    inp = (cfg, params, obs, truth)
    n = K.search(rules_arr, inp, work) if engine == "kernel" else S.py_pimc(R, rules_arr, inp, work)
    return work[0][:n].copy(), work[1][:n].copy()


def test_search_kernel_equals_its_twin(box):
    rules, sol, arr, opt = box
    rnd = policy_params(B.make_policy(rules, "random"))
    for s, roll in [(rules.full, "7"), (rules.mask_of([1, 2, 3, 4, 5, 6]), "6"), (rules.mask_of([2, 3, 5, 8]), "8")]:
        o = rules.roll_index(roll, 2, state=s)
        obs = _obs_at(s, o, 2)
        for rollout in (opt, rnd):
            a, v = _search(K, arr, obs, 7, rollout, 12345)
            b, w = _search(R, arr, obs, 7, rollout, 12345, engine="twin")
            assert np.array_equal(a, b)
            assert np.array_equal(v, w), "the kernel and the twin value the moves differently"


def test_search_values_agree_with_the_exact_solution(box):
    """With optimal play in the playouts, a move's mean return is minus the exact expected
    score of the tiles it leaves (STB-O1), within 4 standard errors; the search's best move
    is the exact best wherever the exact gap exceeds the noise."""
    rules, sol, arr, opt = box
    worlds = 3000
    checked = 0
    for tiles, roll in [(range(1, 10), "9"), (range(1, 10), "7"), ([1, 2, 3, 4, 6, 7], "7"), ([1, 3, 4, 5, 9], "9")]:
        s = rules.mask_of(list(tiles))
        o = rules.roll_index(roll, 2, state=s)
        actions, sums = _search(K, arr, _obs_at(s, o, 2), worlds, opt, 99)
        mean, se = S.action_values(sums, len(actions), worlds)
        exact = np.array([-sol.value[s ^ int(m)] for m in actions])
        assert np.all(np.abs(mean - exact) <= 4 * se + 1e-9), (tiles, roll, mean, exact, se)
        order = np.argsort(-exact)
        if exact[order[0]] - exact[order[1]] > 8 * se.max():
            assert actions[S.best_index(sums, len(actions))] == actions[order[0]]
            checked += 1
    assert checked >= 1


def test_search_reads_only_the_observation(box):
    """Two states with the same observation give the same values (the search receives
    no state but its seat's observation); a different observation gives others."""
    rules, sol, arr, opt = box
    s = rules.mask_of([1, 2, 3, 4, 5, 6, 7, 8, 9])
    o = rules.roll_index("8", 2, state=s)
    a1, v1 = _search(K, arr, _obs_at(s, o, 2), 50, opt, 7)
    a2, v2 = _search(K, arr, _obs_at(s, o, 2), 50, opt, 7)
    assert np.array_equal(v1, v2)
    a3, v3 = _search(K, arr, _obs_at(s, o, 2), 50, opt, 8)
    assert not np.array_equal(v1, v3), "another search key should sample other dice"


def test_config_refuses_bad_arguments():
    with pytest.raises(ValueError, match="worlds"):
        S.config(K, 0, 0, 1, True, 1, [(0, np.zeros(1))], 10)
    with pytest.raises(ValueError, match="seat"):
        S.config(K, 2, 5, 2, True, 1, [(0, np.zeros(1))] * 2, 10)


def _tree(m, rules_arr, obs, iterations, rollout, key, engine="kernel"):
    cfg, params = S.config(K, 0, iterations, 1, True, key, [rollout], 64)
    work = S.ismcts_work(K, 1, iterations, 64)
    inp = (cfg, params, obs, np.zeros(K.STATE_SIZE, dtype=np.int64), S.ismcts_settings(0.0, 45.0))
    n = K.search_tree(rules_arr, inp, work) if engine == "kernel" else S.py_ismcts(R, rules_arr, inp, work)
    return work[0][:n].copy(), work[1][:n].copy()


def test_ismcts_kernel_equals_its_twin(box):
    rules, sol, arr, opt = box
    rnd = policy_params(B.make_policy(rules, "random"))
    s = rules.full
    o = rules.roll_index("8", 2, state=s)
    for rollout in (opt, rnd):
        a, v = _tree(K, arr, _obs_at(s, o, 2), 40, rollout, 5)
        b, w = _tree(R, arr, _obs_at(s, o, 2), 40, rollout, 5, engine="twin")
        assert np.array_equal(a, b)
        assert np.allclose(v, w, rtol=0, atol=1e-12), (v, w)
        assert v[:, 0].sum() == 40, "every iteration visits one root action"


def test_ismcts_finds_the_exact_best_move(box):
    """With optimal playouts and a large budget the most visited move is the exact best one
    (STB-O1) where the exact values are far apart."""
    rules, sol, arr, opt = box
    for tiles, roll in [([1, 2, 3, 4, 6, 7], "7"), ([1, 3, 4, 5, 9], "9")]:
        s = rules.mask_of(tiles)
        o = rules.roll_index(roll, 2, state=s)
        actions, stats = _tree(K, arr, _obs_at(s, o, 2), 4000, opt, 3)
        exact = np.array([-sol.value[s ^ int(m)] for m in actions])
        assert actions[int(np.argmax(stats[:, 0]))] == actions[int(np.argmax(exact))], (tiles, roll, stats, exact)
