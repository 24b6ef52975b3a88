"""``ludolab beverbende advise``: a situation (JSON file, stdin or command-line options) gives every
legal action ranked by this round's points with a 95% CI and the verdict line; bad input is one line
with exit code 2; the values follow the rules where one action is clearly best and equal the
pure-Python twin's on the same worlds (clauses BVB-n of seeds/beverbende.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from ludolab.analysis.cli import cli

#: Seat 1 of three has drawn a 4, remembers a 2 in slot 0 and a 9 in slot 3 (BVB-7).
SITUATION = {"players": 3, "seat": 1, "turns": 7, "phase": "drawn", "drawn": "4",
             "rows": [["?", "?", "?", "?"], ["2", "?", "?", "9"], ["?", "5", "?", "?"]],
             "discard": ["3", "9", "SW", "7"]}
OPTIONS = ["--players", "3", "--seat", "1", "--turns", "7", "--phase", "drawn", "--drawn", "4",
           "--row", "1:2 ? ? 9", "--row", "2:? 5 ? ?", "--discard", "3 9 SW 7"]
#: The last turn of seat 2 of four after seat 3 knocked (BVB-9), a 0 drawn, a 9 remembered in slot 3.
LAST_TURN = ["--players", "4", "--seat", "2", "--turns", "9", "--knocker", "3", "--phase", "drawn", "--drawn", "0",
             "--row", "2:3 ? ? 9", "--discard", "4 8 PK 6 2"]


def invoke(*args, **kw):
    return CliRunner().invoke(cli, ["beverbende", "advise", *args], **kw)


def one_line(res) -> str:
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:"), res.output
    return lines[0]


@pytest.fixture()
def sit_file(tmp_path):
    p = tmp_path / "situation.json"
    p.write_text(json.dumps(SITUATION))
    return str(p)


def test_a_situation_file_gives_the_ranked_table_the_budget_and_the_verdict(sit_file):
    res = invoke("--situation", sit_file, "--budget", "60")
    assert res.exit_code == 0, res.output
    out = res.output
    for word in ("rank", "action", "value", "ci_low", "ci_high", "worlds          60", "expected-value for every seat",
                 "lower is better", "one round", "best_vs_second", "exchange 4 into slot 3 (9)", "discard 4"):
        assert word in out, out
    assert any(v in out for v in ("is better than", "is equally good as", "cannot yet be told from"))
    # five legal actions: exchange into each slot, or discard (BVB-7)
    assert len([ln for ln in out.splitlines() if ln.strip()[:1].isdigit() and ("exchange" in ln or "discard" in ln)]) == 5


def test_the_command_line_form_and_stdin_give_the_same_answer(sit_file):
    a = invoke("--situation", sit_file, "--budget", "30", "--format", "json")
    b = invoke(*OPTIONS, "--budget", "30", "--format", "json")
    c = invoke("--situation", "-", "--budget", "30", "--format", "json", input=json.dumps(SITUATION))
    ra, rb, rc = (json.loads(r.output) for r in (a, b, c))
    assert ra["rows"] == rb["rows"] == rc["rows"]
    assert ra["worlds"] == 30 and ra["verdict"] in ("better", "equally good", "cannot tell yet")
    assert ra["situation"]["rows"][1] == ["2", "?", "?", "9"] and ra["situation"]["drawn"] == "4"
    for r in ra["rows"]:
        assert r["ci_low"] <= r["value"] <= r["ci_high"]
    assert [r["rank"] for r in ra["rows"]] == [1, 2, 3, 4, 5]


def test_csv_format():
    res = invoke(*OPTIONS, "--budget", "10", "--format", "csv")
    assert res.exit_code == 0 and res.output.splitlines()[0].startswith("rank,action,code,value,ci_low,ci_high")


@pytest.mark.parametrize("args,words", [
    (("--seat", "1"), "conflicts with --situation"),
    (("--players", "3"), "conflicts with --situation"),
])
def test_both_forms_at_once_are_refused(sit_file, args, words):
    assert words in one_line(invoke("--situation", sit_file, *args))


@pytest.mark.parametrize("change,words", [
    ({"hand": "4"}, "unknown key 'hand'"),
    ({"drawn": "11"}, "BVB-1: card '11'"),
    ({"discard": ["9"] * 9}, "BVB-1: card 9 is seen 10 times"),
    ({"rows": [["?"] * 4, ["2", "?", "?"], ["?"] * 4]}, "BVB-3"),
    ({"seat": 2, "start": 0}, "BVB-5"),
    ({"phase": "swap", "drawn": None}, "BVB-7, BVB-8"),
    ({"knocker": 1}, "BVB-9"),
])
def test_bad_situations_are_one_line(tmp_path, change, words):
    sit = {k: v for k, v in {**SITUATION, **change}.items() if v is not None}
    p = tmp_path / "s.json"
    p.write_text(json.dumps(sit))
    assert words in one_line(invoke("--situation", str(p)))


@pytest.mark.parametrize("args,words", [
    ((), "give the situation"),
    (("--seat", "0", "--row", "0=1 2 3 4"), "cannot read --row"),
    (("--seat", "0", "--row", "0:1 ? ? 2", "--row", "0:1 ? ? 3"), "seat 0 twice"),
    (("--players", "2", "--seat", "0", "--discard", "5", "--row", "0:1 ? ? 8", "--deck", "1,2"), "13 counts"),
])
def test_bad_options_are_one_line(args, words):
    assert words in one_line(invoke(*args))


@pytest.mark.parametrize("args,words", [
    (("--seat", "0", "--discard", "5", "--players", "7"), "--players"),
    (("--seat", "0", "--discard", "5", "--row", "0:1 ? ? 8", "--budget", "0"), "--budget"),
    (("--seat", "0", "--phase", "draw"), "--phase"),
])
def test_bad_option_values_are_one_line_from_the_console(args, words, capsys):
    """Values click itself refuses: one line through the console entry point."""
    from ludolab.analysis.cli import main

    with pytest.raises(SystemExit) as e:
        main(["beverbende", "advise", *args])
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert e.value.code == 2 and len(err) == 1 and err[0].startswith("Error:") and words in err[0], err


def test_bad_files_are_one_line(tmp_path):
    p = tmp_path / "s.json"
    p.write_text("{players: 3")
    assert "not valid JSON" in one_line(invoke("--situation", str(p)))
    p.write_text("[1, 2]")
    assert "JSON object" in one_line(invoke("--situation", str(p)))
    assert "cannot read" in one_line(invoke("--situation", str(tmp_path / "missing.json")))


def test_rules_options_apply_to_the_command_line_form():
    opts = [o for o in OPTIONS if o not in ("--drawn", "4")]
    res = invoke(*opts, "--exchange-specials", "--drawn", "SW", "--budget", "10", "--format", "json")
    # with exchange_specials a drawn swap may go into a slot, be discarded or carried out (BVB-7, BVB-8)
    rows = json.loads(res.output)["rows"]
    assert {r["action"] for r in rows} == {"exchange SW into slot 0 (2)", "exchange SW into slot 1 (?)",
                                           "exchange SW into slot 2 (?)", "exchange SW into slot 3 (9)",
                                           "discard SW", "carry out SW (swap)"}


def test_a_clearly_best_action_ranks_first_and_is_separated():
    """The last turn after a knock (BVB-9): a drawn 0 put in place of the remembered 9 makes the row 9
    lower than discarding it and 6 lower than in place of the 3, in every world, since the round ends
    with this turn (BVB-10); an unknown slot holds less than 9 on average."""
    res = invoke(*LAST_TURN, "--budget", "100", "--format", "json")
    out = json.loads(res.output)
    assert out["knocked"] == "seat 3: this is the round's last turn"
    value = {r["action"]: r["value"] for r in out["rows"]}
    assert out["rows"][0]["action"] == "exchange 0 into slot 3 (9)"
    assert out["verdict"] == "better" and out["gap"]["ci_low"] > 0
    assert out["rows"][0]["ci_high"] < out["rows"][1]["ci_low"]
    best = value["exchange 0 into slot 3 (9)"]
    assert value["discard 0"] - best == pytest.approx(9.0, abs=1e-9)
    assert value["exchange 0 into slot 0 (3)"] - best == pytest.approx(6.0, abs=1e-9)


@pytest.mark.parametrize("scoring", ["sum", "win-count"])
def test_the_values_are_the_twin_engines_on_the_same_worlds(scoring):
    """advise's value of every action equals the pure-Python twin's playouts of the same worlds: penalty
    points turned (lowest best), or under win-count the rounds won as they are (highest best, BVB-15)."""
    from ludolab.sim import advice, search
    from ludolab.sim import beverbende as bev
    from ludolab.sim import beverbende_reference as REF
    from ludolab.sim import beverbende_situation as BS
    from ludolab.sim.rng import game_state

    game = bev.step_game()
    lower = scoring != "win-count"
    rules, P, seat, obs = BS.to_position({**SITUATION, "rules": {"scoring": scoring}})
    adv = advice.advise(game, rules, P, seat, obs, measure="bev_score" if lower else "win_share", budget=3, key=9,
                        lower_is_better=lower)
    assert adv.lower_is_better == lower
    assert list(adv.mean) == sorted(adv.mean, reverse=not lower)
    k = game.kernels
    cfg, params = search.config(k, seat, 1, P, lower, 0, [game.policies["expected-value"]] * P, game.max_steps(rules))
    work = search.work_arrays(k, P)
    tot = {}
    for w in range(3):
        cfg[search.C_KEY] = search._i64(int(game_state(np.uint64(9), w)))
        n = search.py_pimc(REF, rules, (cfg, params, obs, np.zeros(k.STATE_SIZE, dtype=np.int64)), work)
        for a, v in zip(work[0][:n], work[1][:n, 0]):
            tot[int(a)] = tot.get(int(a), 0.0) + v
    for a, m in zip(adv.actions, adv.mean):
        assert m == pytest.approx((-1 if lower else 1) * tot[int(a)] / 3, abs=1e-9)



def test_under_win_count_the_value_is_the_chance_to_win_the_round_highest_best():
    """Win-count scoring (BVB-15) counts rounds won: the value is the chance to win this round, the best
    action has the highest value, and the verdict reads a positive gap as the best being better.  Putting
    the 0 in place of the 9 gives a row 9 lower than discarding it in every world, so it wins at least as
    often (the values are the twin engine's: see the test above)."""
    res = invoke(*LAST_TURN, "--scoring", "win-count", "--budget", "100", "--format", "json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert "higher is better" in out["value"] and "rounds won" in out["value"]
    assert out["scope"].startswith("one round: whether this round is won")
    values = [r["value"] for r in out["rows"]]
    assert values == sorted(values, reverse=True) and all(0 <= v <= 1 for v in values)
    value = {r["action"]: r["value"] for r in out["rows"]}
    assert out["rows"][0]["value"] == value["exchange 0 into slot 3 (9)"]
    assert value["exchange 0 into slot 3 (9)"] > value["discard 0"]
    assert out["gap"]["diff"] >= 0
    if out["verdict"] == "better":
        assert out["gap"]["ci_low"] > 0


def test_the_continuation_can_be_chosen_and_an_unknown_one_is_refused(sit_file):
    """--continuation: the named policy every seat plays after the action (the answer names it)."""
    res = invoke("--situation", sit_file, "--budget", "20", "--continuation", "threshold")
    assert res.exit_code == 0 and "threshold for every seat" in res.output, res.output
    line = one_line(invoke("--situation", sit_file, "--budget", "20", "--continuation", "oracle"))
    assert "'oracle'" in line and "expected-value" in line and "threshold" in line, line
