"""``ludolab shelf advise``: every legal action at one decision with its expected final score and 95% CI,
best first, the budget used and the verdict; the situation as JSON or as options; bad input is one line
with exit code 2.  Clause ids (SHB-n) refer to seeds/shelve_the_book.md."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

from ludolab.analysis.cli import cli
from ludolab.sim import shelf as S
from ludolab.sim import shelf_kernels as K
from ludolab.sim import shelf_reference as R
from ludolab.sim import shelf_situation as SS
from ludolab.sim.rng import game_state
from ludolab.stdlib.shelf import ShelfRules


def _state_at(players, key, stop):
    """A random game (random legal actions) through the kernels, stopped where ``stop(state)`` holds."""
    rules = S.step_rules(ShelfRules(players=players))
    rng = np.random.default_rng(key)
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.new_game(rules, np.uint64(game_state(np.uint64(key), np.uint64(0))), st)
    out = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    while not stop(st):
        n = K.legal_actions(rules, st, out)
        K.apply_action(rules, st, out[int(rng.integers(n))])
    return rules, st


def _view(rules, st):
    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    K.observe(rules, st, K.current_player(st), obs)
    return SS.from_obs(rules, obs)


@pytest.fixture(scope="module")
def mid_game(tmp_path_factory):
    """A 3-player situation at turn 14, a place decision after drawing two (SHB-6), as a JSON file."""
    rules, st = _state_at(3, 5, lambda s: s[K.S_TURN] >= 14 and s[K.S_NHELD] == 3)
    sit = _view(rules, st)
    path = tmp_path_factory.mktemp("sit") / "situation.json"
    path.write_text(json.dumps(sit))
    other = np.zeros(K.OBS_SIZE, dtype=np.int64)
    K.observe(rules, st, (K.current_player(st) + 1) % 3, other)
    return sit, path, SS.from_obs(rules, other)


def invoke(*args, input=None):
    return CliRunner().invoke(cli, ["shelf", "advise", *args], input=input, catch_exceptions=False)


def test_a_situation_gives_the_ranked_table_with_cis_and_the_verdict(mid_game):
    sit, path, _ = mid_game
    res = invoke("--situation", str(path), "--budget", "4")
    assert res.exit_code == 0, res.output
    out = res.output
    assert "rank" in out and "ci_low" in out and "ci_high" in out
    assert re.search(r"^\s*worlds\s+4$", out, re.M) and "potential for every seat" in out
    assert "final points of the game" in out and "whole game" in out
    assert any(w in out for w in (" is better than ", " is equally good as ", " cannot yet be told from "))
    assert "place " in out and ", back " in out


def test_json_output_parses_and_lists_every_legal_action_best_first(mid_game):
    sit, path, _ = mid_game
    res = invoke("--situation", str(path), "--budget", "3", "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    rows = doc["rows"]
    pos = SS.to_position(sit)
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.determinize(pos.rules, pos.obs, pos.seat, np.uint64(1), st)
    legal = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    n = K.legal_actions(pos.rules, st, legal)
    assert sorted(r["action"] for r in rows) == sorted(SS.action_label(pos.rules, pos.obs, int(x)) for x in legal[:n])
    values = [r["value"] for r in rows]
    assert values == sorted(values, reverse=True)
    assert all(r["ci_low"] <= r["value"] <= r["ci_high"] for r in rows)
    assert doc["worlds"] == 3 and doc["verdict"] in ("better", "equally good", "cannot tell yet")


def test_the_options_give_the_same_advice_as_the_json_file(mid_game):
    """The command-line notation (SHB-15) describes the same situation as the JSON file."""
    sit, path, _ = mid_game
    args = ["--players", str(sit["players"]), "--seat", str(sit["seat"])]
    for t in sit["tableaus"]:
        args += ["--tableau", "/".join(t) or "-"]
    for s, c in sit.get("first_placed", {}).items():
        args += ["--first-placed", f"{s}={c}"]
    args += ["--hand", sit["hand"], "--offer", " ".join(sit["offer"]), "--pile", str(sit["pile"]),
             "--source", "draw", "--drawn", " ".join(sit["drawn"])]
    for s, c in sit["known_hands"].items():
        args += ["--known", f"{s}={c}"]
    if sit["put_back_by"] is not None:
        args += ["--put-back-by", str(sit["put_back_by"])]
    a = json.loads(invoke(*args, "--budget", "2", "--format", "json").output)
    b = json.loads(invoke("--situation", str(path), "--budget", "2", "--format", "json").output)
    for d in (a, b):
        d.pop("seconds")
        d.pop("best_vs_second")
    assert a == b
    assert invoke("--situation", "-", "--budget", "2", "--format", "json", input=path.read_text()).exit_code == 0


def test_the_last_placement_is_valued_exactly_and_the_best_ranks_first(tmp_path):
    """At the game's last decision every placement ends the game (SHB-9): each value is the final score of
    the completed tableau (the pure-Python scorer, SHB-10, SHB-11) with a zero-width CI, and the best
    placement ranks first, separated (or equally good with an exact tie)."""
    rules, st = _state_at(2, 8, lambda s: s[K.S_TURN] == 29 and s[K.S_NHELD] > 0)
    sit = _view(rules, st)
    path = tmp_path / "last.json"
    path.write_text(json.dumps(sit))
    res = invoke("--situation", str(path), "--budget", "3", "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    seat = sit["seat"] - 1
    ret = np.zeros(2)
    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    K.observe(rules, st, seat, obs)
    legal = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    code = {SS.action_label(rules, obs, int(a)): int(a) for a in legal[:K.legal_actions(rules, st, legal)]}
    assert sorted(code) == sorted(r["action"] for r in doc["rows"])
    for row in doc["rows"]:
        after = st.copy()
        R.apply_action(rules, after, code[row["action"]])
        R.returns(rules, after, ret)
        assert row["value"] == ret[seat] == row["ci_low"] == row["ci_high"]
    top = [r["value"] for r in doc["rows"]]
    assert top[0] == max(top)
    assert doc["verdict"] == ("equally good" if top[0] == top[1] else "better")


@pytest.mark.parametrize("args,words", [
    ((), "give the situation"),
    (("--situation", "{path}", "--pile", "3"), "not both"),
    (("--situation", "{missing}"), "cannot read"),
    (("--situation", "{bad_json}"), "not valid JSON"),
    (("--situation", "{unknown_key}"), "unknown key 'cards'"),
    (("--situation", "{not_your_turn}"), "is to act"),
    (("--players", "2", "--seat", "1", "--tableau", "-", "--tableau", "-", "--hand", "NOPE-1",
      "--offer", "PHY-R-10 PHY-Y-7 PHY-R-33", "--pile", "85"), "unknown card 'NOPE-1'"),
    (("--players", "2", "--seat", "1", "--tableau", "-", "--hand", "PHY-R-10", "--offer", "PHY-Y-7",
      "--pile", "80"), "one tableau per seat"),
    (("--situation", "{path}", "--budget", "0"), "--budget"),
    (("--situation", "{path}", "--half-width", "-1"), "--half-width"),
    (("--known", "2:PHY-R-10", "--players", "2"), "SEAT=CARD"),
])
def test_bad_input_is_one_line_and_exit_code_2(mid_game, tmp_path, args, words):
    sit, path, other = mid_game
    files = {"path": path, "missing": tmp_path / "none.json", "bad_json": tmp_path / "bad.json",
             "unknown_key": tmp_path / "key.json", "not_your_turn": tmp_path / "turn.json"}
    files["bad_json"].write_text("{players: 3")
    files["unknown_key"].write_text(json.dumps({**sit, "cards": 3}))
    files["not_your_turn"].write_text(json.dumps(other))
    args = [a.format(**{k: str(v) for k, v in files.items()}) for a in args]
    res = CliRunner().invoke(cli, ["shelf", "advise", *args])
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    if lines[0].startswith("Usage:"):  # a click usage error: the console entry point prints only its Error line
        lines = [ln for ln in lines if ln.startswith("Error:")]
    assert len(lines) == 1 and lines[0].startswith("Error:") and words in lines[0], res.output


def test_the_shipped_example_is_the_seat_to_act_at_a_source_decision():
    """The README's JSON example (stdlib/data/shelf_example_situation.json) is a situation the rules allow."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "stdlib" / "data" / "shelf_example_situation.json"
    pos = SS.to_position(json.loads(path.read_text()))
    assert (pos.n_players, pos.seat, pos.to_move) == (4, 2, 2)
    assert SS.from_obs(pos.rules, pos.obs)["decision"] == "source"
    res = invoke("--situation", str(path), "--budget", "2", "--format", "json")
    assert res.exit_code == 0 and len(json.loads(res.output)["rows"]) == 6


def test_the_default_budget_shares_out_the_work_between_its_bounds(mid_game):
    """Without --budget a decision samples fewer worlds the more actions and turns it has left."""
    from ludolab.analysis.shelf_cli import ADVISE_BUDGET, ADVISE_MIN_WORLDS, default_worlds

    assert default_worlds(4, 1) == ADVISE_BUDGET and default_worlds(60, 55) == ADVISE_MIN_WORLDS
    assert default_worlds(36, 20) < default_worlds(6, 20)
    sit, path, _ = mid_game
    doc = json.loads(invoke("--situation", str(path), "--format", "json").output)
    turns_left = 15 * sit["players"] - sum(c != "." for t in sit["tableaus"] for row in t for c in row.split())
    assert doc["worlds"] == default_worlds(len(doc["rows"]), turns_left)
