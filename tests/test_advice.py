"""Advice at one decision (ludolab.sim.advice): values are the exact ones within their CIs where the game
is solved exactly, the ranking and verdict follow the paired comparison, and bad arguments are one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

from ludolab.sim import advice, box
from ludolab.sim import box_kernels as K
from ludolab.sim.rng import game_state
from ludolab.stdlib.box import BoxRules
from ludolab.stdlib.errors import LudolabError, SituationError


@pytest.fixture(scope="module")
def box_turn():
    """The first decision of a one-player, one-round Shut the Box match (STB-5..STB-8): a roll to cover."""
    game = box.step_game()
    case = next(c for c in game.cases if c.label == "1p")
    state = np.zeros(K.STATE_SIZE, dtype=np.int64)
    acts = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    for key in range(100):  # a roll with several ways to cover it
        K.new_game(case.rules, game_state(np.uint64(11), np.uint64(key)), state)
        while K.legal_actions(case.rules, state, acts) in (1, 2) and acts[0] == 1:  # the dice choice, if any
            K.apply_action(case.rules, state, acts[K.legal_actions(case.rules, state, acts) - 1])
        if K.legal_actions(case.rules, state, acts) >= 3:
            break
    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    K.observe(case.rules, state, 0, obs)
    return game, case, state, obs


def _cover(mask: int) -> str:
    return ",".join(str(t + 1) for t in range(12) if mask >> t & 1)


def test_box_values_match_the_exact_solution_within_their_ci(box_turn):
    """With the optimal policy as continuation, each move's sampled value is its exact expected score (STB-8)."""
    game, case, state, obs = box_turn
    adv = advice.advise(game, case.rules, 1, 0, obs, measure="box_score", budget=4000, key=5)
    roll = sum(t + 1 for t in range(12) if int(adv.actions[0]) >> t & 1)
    open_tiles = [t + 1 for t in range(12) if int(state[K.S_OPEN]) >> t & 1]
    rows, _, _ = box.advise_rows(BoxRules(), open_tiles, roll)
    exact = {r["cover"]: r["value"] for r in rows}
    assert set(exact) == {_cover(int(a)) for a in adv.actions}
    # every action at once: each 95% CI widened to 99.9% (Bonferroni over at most 10 moves)
    widen = 3.29 / 1.96
    for a, m, lo, hi in zip(adv.actions, adv.mean, adv.ci_low, adv.ci_high):
        h = (hi - lo) / 2 * widen
        assert abs(exact[_cover(int(a))] - m) <= h, (_cover(int(a)), m, h, exact[_cover(int(a))])
    assert adv.lower_is_better and adv.continuation == "optimal" and adv.worlds == 4000
    assert list(adv.mean) == sorted(adv.mean)  # best (lowest score) first


def test_same_key_same_advice_and_half_width_doubles(box_turn):
    game, case, _, obs = box_turn
    a = advice.advise(game, case.rules, 1, 0, obs, measure="box_score", budget=50, key=1)
    b = advice.advise(game, case.rules, 1, 0, obs, measure="box_score", budget=50, key=1)
    assert np.array_equal(a.actions, b.actions) and np.array_equal(a.mean, b.mean)
    c = advice.advise(game, case.rules, 1, 0, obs, measure="box_score", budget=25, half_width=0.4, max_worlds=3200)
    h = (c.ci_high[0] - c.ci_low[0]) / 2
    assert c.worlds in (25, 50, 100, 200, 400, 800, 1600, 3200) and (h <= 0.4 or c.worlds == 3200)
    assert c.verdict in ("better", "equally good", "cannot tell yet")
    assert c.diff_low <= c.diff <= c.diff_high and c.diff >= 0
    line = c.verdict_line(_cover)
    assert f"{c.worlds:,} worlds" in line and _cover(int(c.actions[0])) in line


def test_verdict_follows_the_paired_comparison(box_turn):
    """A large gap at a large budget is 'better'; the rule is the report's (findings.compare)."""
    from ludolab.analysis.findings import compare

    game, case, _, obs = box_turn
    adv = advice.advise(game, case.rules, 1, 0, obs, measure="box_score", budget=400, key=2)
    assert adv.verdict == compare(adv.diff, adv.diff_low, adv.diff_high, "box_score", lower_is_better=False)


def test_bad_arguments_are_one_line_errors(box_turn):
    game, case, state, obs = box_turn
    for kw, word in [({"budget": 0}, "budget"), ({"half_width": -1.0}, "half-width"),
                     ({"half_width": float("nan")}, "half-width"), ({"max_worlds": 0}, "max worlds"),
                     ({"continuation": "psychic"}, "continuation")]:
        with pytest.raises(LudolabError, match=word):
            advice.advise(game, case.rules, 1, 0, obs, measure="box_score", **kw)
    with pytest.raises(SituationError, match="observation of"):
        advice.advise(game, case.rules, 1, 0, obs[:3], measure="box_score")
    done = state.copy()
    acts = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    while K.current_player(done) >= 0:
        K.legal_actions(case.rules, done, acts)
        K.apply_action(case.rules, done, acts[0])
    end = np.zeros(K.OBS_SIZE, dtype=np.int64)
    K.observe(case.rules, done, 0, end)
    with pytest.raises(SituationError, match="game is over"):
        advice.advise(game, case.rules, 1, 0, end, measure="box_score")


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_emit_advice_prints_the_ranked_table_budget_continuation_and_verdict(box_turn, fmt, capsys):
    import json

    from ludolab.analysis import advice_cli

    game, case, _, obs = box_turn
    adv = advice.advise(game, case.rules, 1, 0, obs, measure="box_score", budget=64, key=3)
    advice_cli.emit_advice(adv, _cover, "Shut the Box, advice", {"game": "Shut the Box"}, fmt)
    out = capsys.readouterr().out
    if fmt == "json":
        d = json.loads(out)
        assert d["worlds"] == 64 and d["continuation"].startswith("optimal") and d["verdict"] == adv.verdict
        assert [r["action"] for r in d["rows"]] == [_cover(int(a)) for a in adv.actions]
        assert d["rows"][0]["ci_low"] <= d["rows"][0]["value"] <= d["rows"][0]["ci_high"]
    elif fmt == "csv":
        lines = out.strip().splitlines()
        assert lines[0] == "rank,action,code,value,ci_low,ci_high,worlds,exact,continuation" and len(lines) == 1 + len(adv.actions)
    else:
        assert "lower is better" in out and "64" in out and adv.verdict_line(_cover) in out
        assert _cover(int(adv.actions[0])) in out


def test_a_half_width_not_reached_is_said_and_budget_needs_two_worlds(box_turn, capsys):
    """A --half-width target that --max-worlds stops short of is said on stderr (every advise command);
    one world gives no CI, so a budget of 1 is refused."""
    from ludolab.analysis import advice_cli

    game, case, _, obs = box_turn
    adv = advice.advise(game, case.rules, 1, 0, obs, measure="box_score", budget=8, half_width=0.001, max_worlds=32)
    assert adv.worlds == 32
    advice_cli.emit_advice(adv, _cover, "t", {}, "json")
    err = capsys.readouterr().err
    assert "above --half-width 0.001" in err and "32 worlds" in err
    with pytest.raises(LudolabError, match="budget 1"):
        advice.advise(game, case.rules, 1, 0, obs, measure="box_score", budget=1)
