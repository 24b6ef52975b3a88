"""Exact solver and exact evaluation (ludolab.sim.box, ludolab.sim.box_reference): STB-O1..O4.

The published values below were derived with the solver; the code under test
computes them, the test compares with the literal.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from ludolab.sim import box as B
from ludolab.sim import box_reference as R
from ludolab.stdlib.box import BoxRules, RulesError


# ------------------------------------------------------------ published values
def test_stb_o2_max_p_shut_nine_tiles_never_exact():
    """STB-O2, STB-6 never: max P(shut) of the 1..9 box is exactly 466473281/6530347008."""
    sol = B.solve(BoxRules(one_die="never"), "shut", exact=True)
    assert sol.start_value_exact == Fraction(466473281, 6530347008)
    assert abs(sol.start_value - 0.0714316223) < 1e-10


@pytest.mark.parametrize("one_die", ["le6-forced", "789-optional"])
def test_stb_o2_max_p_shut_one_die_rules_exact(one_die):
    """STB-O2, STB-6: max P(shut) with le6-forced and with 789-optional is 956177159/9795520512."""
    sol = B.solve(BoxRules(one_die=one_die), "shut", exact=True)
    assert sol.start_value_exact == Fraction(956177159, 9795520512)
    assert abs(sol.start_value - 0.0976137162) < 1e-10


def test_stb_o2_max_p_shut_two_tiles_per_move():
    """STB-O2, STB-4 (K = 2), STB-6 le6-forced: max P(shut) = 0.0741943474."""
    sol = B.solve(BoxRules(one_die="le6-forced", max_tiles_per_move=2), "shut")
    assert abs(sol.start_value - 0.0741943474) < 1e-9


def test_stb_o4_adversarial_min_p_shut_exact():
    """STB-O4, STB-6 le6-forced: min P(shut) (adversarial) is exactly 623306755/58773123072."""
    sol = B.solve(BoxRules(one_die="le6-forced"), "shut", adversarial=True, exact=True)
    assert sol.start_value_exact == Fraction(623306755, 58773123072)
    assert sol.label == "min P(shut)"
    assert math.isclose(sol.start_value, 623306755 / 58773123072, rel_tol=1e-12)


@pytest.mark.parametrize(
    "open_tiles, expected",
    [((1, 2, 4), 0.18209876543209874), ((3, 4), 0.1759259259259259), ((1, 2, 3, 4), 0.14744084362139914)],
)
def test_stb_o2_per_state_values_never(open_tiles, expected):
    """STB-O2, STB-6 never: P(shut) from sample states of the 1..9 box."""
    r = BoxRules(one_die="never")
    sol = B.solve(r, "shut")
    assert abs(sol.value[r.mask_of(open_tiles)] - expected) < 1e-12


def test_stb_o2_small_states_by_hand():
    """STB-O2, STB-7: P(shut) from {3} is P(roll 3) = 2/36 with two dice; from {1} it is 0
    (never) or 1/6 (a one-die roll of 1 is legal, STB-6)."""
    never = BoxRules(one_die="never")
    sol = B.solve(never, "shut", exact=True)
    assert sol.value_exact[never.mask_of([3])] == Fraction(2, 36)
    assert sol.value_exact[never.mask_of([1])] == 0
    assert sol.value_exact[0] == 1
    forced = BoxRules(one_die="le6-forced")
    sol1 = B.solve(forced, "shut", exact=True)
    assert sol1.value_exact[forced.mask_of([1])] == Fraction(1, 6)
    assert sol1.value_exact[forced.mask_of([3])] == Fraction(1, 6)
    # optional: the better of one die (1/6) and two dice (2/36)
    opt = BoxRules(one_die="le6-optional")
    sol2 = B.solve(opt, "shut")
    s3 = opt.mask_of([3])
    assert sol2.value[s3] == pytest.approx(1 / 6, abs=1e-15)
    assert sol2.dice[s3] == 1


def test_stb_o1_expected_score_small_state_by_hand():
    """STB-O1, STB-8 sum: from open {1,2} with two dice (never): shut on a 3 (2/36), on a 2 cover 2
    and end on {1} (score 1), else end with score 3: E = 0 + 1/36 + 3 * 33/36."""
    r = BoxRules(one_die="never")
    sol = B.solve(r, "expected-score", exact=True)
    assert sol.value_exact[r.mask_of([1, 2])] == Fraction(1, 36) + 3 * Fraction(33, 36)


# ----------------------------------------------------- float DP == exact DP
RULESETS = {
    "default": (BoxRules(), "expected-score", {}),
    "thai": (BoxRules(moves="thai", one_die="789-optional"), "expected-score", {}),
    "thai-shut-always": (BoxRules(moves="thai", one_die="always-optional"), "shut", {}),
    "k2": (BoxRules(max_tiles_per_move=2, one_die="le6-optional"), "expected-score", {}),
    "digital": (BoxRules(score="digital", one_die="789-forced"), "expected-score", {}),
    "count": (BoxRules(score="count", one_die="always-optional"), "expected-score", {}),
    "all-or-nothing": (BoxRules(score="all-or-nothing"), "expected-score", {}),
    "beat": (BoxRules(), "beat", {"target": 10}),
    "beat-ties-win": (BoxRules(one_die="le6-forced"), "beat", {"target": 10, "ties_win": True}),
    "beat-adversarial": (BoxRules(), "beat", {"target": 7, "adversarial": True}),
    "adversarial-score": (BoxRules(tiles="2-8", score="count"), "expected-score", {"adversarial": True}),
    "odd-tiles": (BoxRules(tiles="1,3,5,7,9,11", one_die="always-optional"), "shut", {}),
}


@pytest.mark.parametrize("name", list(RULESETS))
def test_stb_o1_o4_float_dp_equals_exact_dp(name):
    """STB-O1..O4: the numba DP equals the exact Fraction DP on every state."""
    rules, objective, kw = RULESETS[name]
    sol = B.solve(rules, objective, exact=True, **kw)
    assert len(sol.value_exact) == rules.n_states
    assert all(isinstance(v, Fraction) for v in sol.value_exact)
    exact = np.array([float(v) for v in sol.value_exact])
    scale = max(1.0, float(np.abs(exact).max()))
    assert np.abs(sol.value - exact).max() <= 1e-12 * scale


@pytest.mark.parametrize("name", ["default", "thai", "k2", "beat-ties-win", "adversarial-score"])
def test_stb_o1_o4_reference_float_twin_matches_kernel(name):
    """STB-O1..O4: box_reference.solve_values in float arithmetic gives the kernel's values."""
    rules, objective, kw = RULESETS[name]
    sol = B.solve(rules, objective, **kw)
    terminal, sense = B.terminal_utility(rules, objective, kw.get("target"), kw.get("ties_win", False))
    if kw.get("adversarial"):
        sense = -sense
    vals = R.solve_values(rules, list(terminal), int(sense), zero=0.0)
    assert np.allclose(vals, sol.value, rtol=1e-12, atol=1e-12)


def test_stb8_all_or_nothing_expected_score_is_one_minus_p_shut():
    """STB-8: minimising E[all-or-nothing score] is maximising P(shut)."""
    for od in ("never", "789-optional", "le6-forced"):
        r = BoxRules(one_die=od)
        e = B.solve(r.replace(score="all-or-nothing"), "expected-score", exact=True).value_exact
        p = B.solve(r, "shut", exact=True).value_exact
        assert all(e[s] == 1 - p[s] for s in range(r.n_states))


def test_stb_o3_beat_values_bracket():
    """STB-O3/STB-10: P(score < T) <= P(score <= T) = P(score < T + 1); beating 0 is impossible
    (and refused), at most 0 is shutting, and beating above the full sum is certain."""
    r = BoxRules()
    lt = B.solve(r, "beat", target=10).value
    le = B.solve(r, "beat", target=10, ties_win=True).value
    lt11 = B.solve(r, "beat", target=11).value
    assert (lt <= le + 1e-15).all()
    assert np.allclose(le, lt11, atol=1e-15)
    assert np.allclose(B.solve(r, "beat", target=46).value, 1.0)
    with pytest.raises(ValueError, match="target 0 cannot be beaten"):
        B.solve(r, "beat", target=0)
    shut = B.solve(r, "shut").value
    assert np.allclose(B.solve(r, "beat", target=0, ties_win=True).value, shut, atol=1e-15)
    assert np.allclose(B.solve(r, "beat", target=1).value, shut, atol=1e-15)


def test_stb_o4_adversarial_bounds():
    """STB-O4: for each objective the adversarial value bounds the optimal one from the other side."""
    r = BoxRules(one_die="le6-optional")
    for obj, kw in (("shut", {}), ("expected-score", {}), ("beat", {"target": 12})):
        best = B.solve(r, obj, **kw)
        worst = B.solve(r, obj, adversarial=True, **kw)
        if obj == "expected-score":
            assert (best.value <= worst.value + 1e-12).all()
        else:
            assert (best.value >= worst.value - 1e-12).all()
        assert best.start_value != worst.start_value


def test_solve_argument_errors():
    """STB-O3: beat needs a whole target >= 0; target only applies to beat; unknown objective."""
    r = BoxRules(tiles="1-4")
    with pytest.raises(ValueError, match="target"):
        B.solve(r, "beat")
    with pytest.raises(ValueError):
        B.solve(r, "beat", target=-1)
    with pytest.raises(ValueError):
        B.solve(r, "beat", target=2.5)
    with pytest.raises(ValueError, match="beat"):
        B.solve(r, "shut", target=3)
    with pytest.raises(ValueError, match="beat"):
        B.solve(r, "expected-score", target=3)
    with pytest.raises(ValueError, match="expected-score"):
        B.solve(r, "win")


def test_solution_tables_are_legal():
    """STB-4/6/7: solver tables: legal move or -1 only when nothing is legal; allowed dice."""
    r = BoxRules(one_die="789-optional")
    sol = B.solve(r, "expected-score")
    oc = r.outcomes
    assert sol.move.shape == (r.n_states, oc.n)
    for s in range(1, r.n_states):
        assert r.dice_allowed[s] & sol.dice[s]
        for o in range(oc.n):
            legal = r.legal_moves(s, o)
            m = int(sol.move[s, o])
            assert (m in legal) if legal else m == -1


def test_solution_moves_are_greedy_on_values():
    """STB-O1: the chosen move leaves the best-valued state among the legal moves, and the value of a
    state is the dice-weighted average of those (Bellman equation)."""
    r = BoxRules(one_die="le6-optional")
    sol = B.solve(r, "expected-score")
    oc = r.outcomes
    term = r.scores.astype(float)
    for s in range(1, r.n_states, 7):
        vals = {}
        for d in (1, 2):
            if not r.dice_allowed[s] & d:
                continue
            acc = 0.0
            for o in range(oc.n):
                if oc.dice[o] != d:
                    continue
                legal = r.legal_moves(s, o)
                if legal:
                    best = min(sol.value[s ^ m] for m in legal)
                    assert sol.value[s ^ int(sol.move[s, o])] == pytest.approx(best, abs=1e-12)
                    acc += oc.weight[o] * best
                else:
                    acc += oc.weight[o] * term[s]
            vals[d] = acc / (36 if d == 2 else 6)
        assert sol.value[s] == pytest.approx(min(vals.values()), abs=1e-12)
        assert vals[int(sol.dice[s])] == pytest.approx(sol.value[s], abs=1e-12)


# ------------------------------------------------------------- exact evaluation
EVAL_CASES = [
    ("789-optional", "subset", None, "optimal"),
    ("never", "subset", None, "random"),
    ("always-optional", "subset", None, "random"),
    ("always-optional", "thai", None, "random"),
    ("le6-forced", "subset", 2, "greedy-high"),
    ("789-forced", "thai", None, "most-options"),
    ("le6-optional", "subset", None, "fewest-tiles"),
    ("789-optional", "subset", None, "worst"),
]


@pytest.mark.parametrize("one_die, moves, k, name", EVAL_CASES)
def test_evaluate_equals_exact_evaluation(one_die, moves, k, name):
    """STB-3..STB-7: evaluate() (numba forward pass) equals box_reference.evaluate_exact (Fractions)."""
    r = BoxRules(tiles="1-8", one_die=one_die, moves=moves, max_tiles_per_move=k)
    pol = B.make_policy(r, name)
    ev = B.evaluate(pol)
    exact = R.evaluate_exact(pol)
    assert sum(exact) == 1
    assert np.abs(ev.final - np.array([float(x) for x in exact])).max() < 1e-13
    assert ev.final.sum() == pytest.approx(1.0, abs=1e-12)
    assert (ev.final >= 0).all()


@pytest.mark.parametrize("one_die", ["never", "789-optional", "le6-forced", "always-optional"])
@pytest.mark.parametrize("score", ["sum", "count", "digital"])
def test_stb_o1_evaluate_optimal_mean_equals_start_value(one_die, score):
    """STB-O1: the exact mean of the optimal policy equals the solver's start value."""
    r = BoxRules(one_die=one_die, score=score)
    sol = B.solve(r, "expected-score")
    ev = B.evaluate(sol.policy())
    assert math.isclose(ev.mean(), sol.start_value, rel_tol=1e-12)


@pytest.mark.parametrize("one_die", ["never", "789-optional", "le6-forced", "always-optional"])
def test_stb_o2_evaluate_p_shut_equals_start_value(one_die):
    """STB-O2/O4: evaluate(optimal / worst shut policy).p_shut equals the solver's start value."""
    r = BoxRules(one_die=one_die)
    for adv in (False, True):
        sol = B.solve(r, "shut", adversarial=adv)
        assert abs(B.evaluate(sol.policy()).p_shut - sol.start_value) < 1e-14


def test_stb_o3_evaluate_p_below_equals_start_value():
    """STB-O3/STB-10: evaluate(beat policy).p_below(T) equals the solver's start value (and <= with ties_win)."""
    r = BoxRules()
    for tw in (False, True):
        sol = B.solve(r, "beat", target=9, ties_win=tw)
        ev = B.evaluate(sol.policy())
        assert abs(ev.p_below(9, ties_win=tw) - sol.start_value) < 1e-14


def test_evaluation_distribution_and_sd():
    """STB-8: distribution sums to 1, its mean is mean(); sd is the spread; other scorings work."""
    r = BoxRules()
    ev = B.evaluate(B.make_policy(r, "optimal"))
    dist = ev.distribution()
    assert dist.sum() == pytest.approx(1.0, abs=1e-12)
    assert float((dist.index.to_numpy() * dist.to_numpy()).sum()) == pytest.approx(ev.mean(), abs=1e-12)
    var = float(((dist.index.to_numpy() - ev.mean()) ** 2 * dist.to_numpy()).sum())
    assert ev.sd() == pytest.approx(math.sqrt(var), abs=1e-9)
    assert dist.loc[0] == pytest.approx(ev.p_shut, abs=1e-15)
    assert ev.mean("all-or-nothing") == pytest.approx(1 - ev.p_shut, abs=1e-12)
    assert 0 < ev.mean("count") < 9
    assert ev.p_below(46) == pytest.approx(1.0, abs=1e-12)
    assert ev.p_below(1) == pytest.approx(ev.p_shut, abs=1e-15)


def test_twelve_tile_box_solves_and_evaluates():
    """STB-1 (12 tiles), STB-6 le6-forced: the 12-tile box solves; the optimal policy's exact mean equals
    the start value and P(shut) of the shut policy is a probability."""
    r = BoxRules(tiles="12", one_die="le6-forced")
    sol = B.solve(r, "expected-score")
    assert math.isclose(B.evaluate(sol.policy()).mean(), sol.start_value, rel_tol=1e-12)
    assert 0 < sol.start_value < 78
    shut = B.solve(r, "shut")
    assert 0 < shut.start_value < 0.1
    assert math.isclose(B.evaluate(shut.policy()).p_shut, shut.start_value, rel_tol=1e-12)


# ------------------------------------------------------------------- advice
def test_stb_o2_advise_lists_every_legal_move_best_first():
    """STB-O2: advice for open {1..5}, roll 7: every legal move, best first; 3+4 beats 2+5."""
    r = BoxRules()
    df = B.advise(r, [1, 2, 3, 4, 5], 7, objective="shut")
    assert list(df.columns) == ["cover", "tiles_left", "value", "best"]
    assert set(df["cover"]) == {"3,4", "2,5", "1,2,4"}
    assert len(df) == len(r.legal_moves(r.mask_of([1, 2, 3, 4, 5]), r.roll_index(7)))
    assert list(df["value"]) == sorted(df["value"], reverse=True)  # maximise P(shut)
    assert list(df["best"]) == [True, False, False]
    v = dict(zip(df["cover"], df["value"]))
    assert v["3,4"] > v["2,5"]
    assert df.loc[0, "cover"] == "3,4"
    sol = B.solve(r, "shut")
    for cover, left, value in zip(df["cover"], df["tiles_left"], df["value"]):
        covered = {int(t) for t in cover.split(",")}
        kept = {int(t) for t in left.split(",")}
        assert covered | kept == {1, 2, 3, 4, 5} and not covered & kept and sum(covered) == 7
        assert value == sol.value[r.mask_of(kept)]
    assert df.attrs["objective"] == "max P(shut)"


def test_stb_o1_advise_expected_score_sorted_ascending_and_no_move():
    """STB-O1/STB-7: expected-score advice is sorted low to high; an uncoverable roll gives no rows."""
    r = BoxRules()
    df = B.advise(r, range(1, 10), 9)
    assert len(df) == 8
    assert list(df["value"]) == sorted(df["value"])
    assert df["best"].sum() == 1 and df.loc[0, "best"]
    empty = B.advise(r, [1, 2], 12)
    assert len(empty) == 0
    assert empty.attrs["stop_value"] == 3.0


def test_stb6_advise_dice_choice_only_when_allowed():
    """STB-6/STB-O2: with roll None the advice lists the dice counts the one-die rule allows."""
    r = BoxRules()  # 789-optional
    both = B.advise(r, [1, 2, 3, 4, 5], None, objective="shut")
    assert sorted(both["dice"]) == [1, 2]
    assert list(both["value"]) == sorted(both["value"], reverse=True)
    sol = B.solve(r, "shut")
    s = r.mask_of([1, 2, 3, 4, 5])
    assert both.loc[0, "value"] == pytest.approx(sol.value[s], abs=1e-14)
    assert both.loc[0, "dice"] == sol.dice[s]
    assert list(B.advise(r, range(1, 10), None)["dice"]) == [2]
    assert list(B.advise(BoxRules(one_die="never"), [1, 2], None)["dice"]) == [2]
    assert list(B.advise(BoxRules(one_die="le6-forced"), [1, 2], None)["dice"]) == [1]
    assert sorted(B.advise(BoxRules(one_die="always-optional"), range(1, 10), None)["dice"]) == [1, 2]


def test_stb8_digital_advice_makes_sense():
    """STB-8 digital vs sum: open {1,2,3}, roll 3 (two dice only): digital scoring prefers covering
    1+2 (leaving {3}, at worst 3) over the 3 (leaving {1,2}, at worst 12); sum scoring prefers the 3."""
    digital = B.advise(BoxRules(one_die="never", score="digital"), [1, 2, 3], 3)
    assert digital.loc[0, "cover"] == "1,2"
    assert digital.loc[0, "value"] == pytest.approx(3 * 34 / 36, abs=1e-12)
    golf = B.advise(BoxRules(one_die="never", score="sum"), [1, 2, 3], 3)
    assert golf.loc[0, "cover"] == "3"
    assert golf.loc[0, "value"] == pytest.approx(3 * 33 / 36 + 1 / 36, abs=1e-12)


def test_stb5_advise_thai_roll():
    """STB-5/STB-O1: thai advice for 3+4 on {3,4,7} lists the three single tiles."""
    df = B.advise(BoxRules(moves="thai"), [3, 4, 7], "3+4")
    assert set(df["cover"]) == {"3", "4", "7"}
    assert df.loc[0, "cover"] == "7"  # leaving 3 and 4 open scores less than leaving 7


def test_advise_errors():
    """STB-O2: advice for a shut box, unknown tiles or an impossible roll is refused."""
    r = BoxRules()
    with pytest.raises(RulesError):
        B.advise(r, [], 7)
    with pytest.raises(RulesError):
        B.advise(r, [10], 7)
    with pytest.raises(RulesError):
        B.advise(r, [1, 2], 13)
    with pytest.raises(ValueError):
        B.advise(r, [1, 2], 3, objective="win")


# ------------------------------------------------------- STB-2 / STB-1 other dice and boxes
OTHER_DICE = {
    "1d6-never": BoxRules(tiles="1-5", dice="1d6", one_die="never"),
    "3d6-789": BoxRules(tiles="1-7", dice="3d6"),
    "2d4-always": BoxRules(tiles="1-4", dice="2d4", one_die="always-optional"),
    "2d8-thai-sumlt": BoxRules(tiles="1-6", dice="2d8", moves="thai", one_die="sum-lt-7-optional"),
    "3d4-only1": BoxRules(tiles="1-6", dice="3d4", one_die="only-1-forced"),
}


@pytest.mark.parametrize("name", OTHER_DICE)
def test_stb2_solver_matches_exact_fractions_for_other_dice(name):
    """STB-2, STB-O1/O2: the kernel solver equals the Fraction reference with any dice; so does evaluation."""
    rules = OTHER_DICE[name]
    for objective in ("expected-score", "shut"):
        sol = B.solve(rules, objective, exact=True)
        exact = [float(v) for v in sol.value_exact]
        assert np.allclose(sol.value, exact, atol=1e-12)
        ev = B.evaluate(sol.policy())
        want = R.evaluate_exact(sol.policy())
        assert np.allclose(ev.final, [float(x) for x in want], atol=1e-12)


def test_stb2_one_die_of_a_single_d6_box_by_hand():
    """STB-2: tiles 1 and 2 with a single d6 shut by a 3 at once (1/6), or by a 1 or 2 (2/6) then the
    other tile's number (1/6): P(shut) = 1/6 + 2/6 * 1/6."""
    r = BoxRules(tiles="1-2", dice="1d6", one_die="never")
    sol = B.solve(r, "shut", exact=True)
    # roll 1 or 2 first (2/6), then the other (1/6); a roll of 3 covers both at once (1/6)
    assert sol.start_value_exact == Fraction(2, 6) * Fraction(1, 6) + Fraction(1, 6)


@pytest.mark.parametrize("tile, one_die, want", [(1, "789-optional", Fraction(5, 6)), (1, "never", Fraction(1)),
                                                 (7, "never", Fraction(35, 6)), (12, "never", Fraction(35, 3))])
def test_stb1_single_tile_box(tile, one_die, want):
    """STB-1: a one-tile box shuts when the first roll shows its number (one die may make 1 under 789)."""
    sol = B.solve(BoxRules(tiles=[tile], one_die=one_die), exact=True)
    assert sol.start_value_exact == want


def test_stb1_sixteen_tiles_wide_tables():
    """STB-1: beyond 15 tiles the tables are int32; solve, evaluate and simulate agree."""
    r = BoxRules(tiles=16, one_die="never")
    sol = B.solve(r)
    assert sol.move.dtype == np.int32
    ev = B.evaluate(sol.policy())
    assert abs(ev.mean() - sol.start_value) < 1e-9
    res = B.simulate(sol.policy(), 20_000, seed=3)
    m = res.mean()
    assert m.low <= ev.mean() <= m.high


# -------------------------------------------------------------- STB-T1 tie-breaks
def test_stbt1_random_tie_breaks_published_means():
    """STB-T1: 12 tiles, two dice always: random tie-breaks give mean scores of about 53.9 (most tiles)
    and 35.5 (fewest tiles); high-tile tie-breaks 53.9 and 35.3 (the figures quoted in issue 10)."""
    r = BoxRules(tiles=12, one_die="never")
    got = {(name, tb): B.evaluate(B.make_policy(r, name, tie_break=tb)).mean()
           for name in ("most-tiles", "fewest-tiles") for tb in ("random", "high")}
    assert round(got["most-tiles", "random"], 1) == 53.9
    assert round(got["fewest-tiles", "random"], 1) == 35.5
    assert round(got["most-tiles", "high"], 1) == 53.9
    assert round(got["fewest-tiles", "high"], 1) == 35.3


def test_stb6_stbt1_bontrager_twelve_tiles_sum_below_six():
    """STB-6 sum-lt-6, STB-T1: M. Bontrager, "Shut the Box simulations" (2016): 12 tiles, one die when the
    open tiles sum to less than 6, one million simulated turns of a rule of thumb: P(shut) about 0.41%,
    mean 35.7, most common score 33.  Fewest tiles with ties to the lowest tiles reproduces all three:
    exactly 0.4196% (inside the 95% interval of a million games around 0.41%), 35.66 and 33."""
    for rule in ("sum-lt-6-forced", "sum-lt-6-optional"):
        ev = B.evaluate(B.make_policy(BoxRules(tiles=12, one_die=rule), "fewest-tiles", tie_break="low"))
        se = math.sqrt(0.0041 * (1 - 0.0041) / 1e6)
        assert abs(ev.p_shut - 0.0041) < 2 * se + 0.00005  # "about 0.41%" (0.405..0.415) within the CI
        assert round(ev.mean(), 1) == 35.7
        dist = ev.distribution()
        assert int(dist.idxmax()) == 33
    # the other tie-breaks do not reproduce it
    r = BoxRules(tiles=12, one_die="sum-lt-6-forced")
    for tb in ("high", "random"):
        assert round(B.evaluate(B.make_policy(r, "fewest-tiles", tie_break=tb)).mean(), 1) != 35.7


@pytest.mark.parametrize("rules", [BoxRules(tiles="1-7"), BoxRules(tiles="1-6", dice="3d6"),
                                   BoxRules(tiles="1-7", one_die="never", max_tiles_per_move=2)],
                         ids=lambda r: r.label())
@pytest.mark.parametrize("name", ["fewest-tiles", "most-tiles", "most-options"])
def test_stbt1_stochastic_policy_evaluated_exactly(rules, name):
    """STB-T1: a random tie-break policy is evaluated exactly: kernel forward pass = Fraction reference,
    and it equals the average over every way of breaking each tie (checked on the mean by a second
    route: the value of the policy computed backwards)."""
    pol = B.make_policy(rules, name, tie_break="random")
    assert pol.ties is not None and pol.stochastic
    ev = B.evaluate(pol)
    want = R.evaluate_exact(pol)
    assert np.allclose(ev.final, [float(x) for x in want], atol=1e-12)
    assert sum(want) == 1
    # backward value of the same stochastic policy
    oc = rules.outcomes
    value = np.zeros(rules.n_states)
    for s in range(1, rules.n_states):
        d = int(pol.dice[s])
        acc = 0.0
        for o in range(oc.n):
            if oc.dice[o] != d:
                continue
            m = int(pol.move[s, o])
            if m <= -3:
                j = -3 - m
                group = pol.ties[j + 1: j + 1 + pol.ties[j]]
                acc += oc.prob[o] * np.mean([value[s ^ int(g)] for g in group])
            elif m < 0:
                acc += oc.prob[o] * rules.scores[s]
            else:
                acc += oc.prob[o] * value[s ^ m]
        value[s] = acc
    assert abs(value[rules.full] - ev.mean()) < 1e-9
