"""``ludolab books advise --play``: advice for the card to play (STK-5) or the prediction card to close
(STK-6) at a situation given as JSON or on the command line (clauses of seeds/shut_the_books.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from ludolab.analysis.cli import cli, main
from ludolab.sim import advice
from ludolab.sim import books as S
from ludolab.sim import books_reference as REF
from ludolab.sim import books_situation as BS

SIT = {"players": 4, "start": 0, "hand": "R15 R9 R4 B1 B2 B5 Y1 Y9 Y14 P15 P14 P13 P1",
       "predictions": ["B3", "", "Y7 P2", "R1"],
       "tricks": [{"leader": 0, "cards": "B10 B11 B12 B13", "winner": 3, "close": None}], "trick": "Y2"}
OPTS = ["--hand", SIT["hand"], "--predictions", "B3 / / Y7 P2 / R1", "--tricks", "B10 B11 B12 B13",
        "--trick", "Y2", "--start", "0"]
#: The last trick of a hand: seat 2 plays last to P8 B2 Y10; its R9 wins the trick and closes R5 (off 1,
#: -2 points), its B5 loses it (off 2... open R5 left and an extra trick: -3): exact values, every world.
LAST = {"players": 4, "start": 0, "hand": "R9 B5", "predictions": ["R15 B8 Y2 P3", "R13 R14 Y6 Y13 P2",
                                                                 "R5 B15 Y5 P1", "B10 B12 Y1 Y11"],
        "tricks": ["B11 Y14 B7 B6", "R1 P12 R7 R8", {"cards": "R12 R10 P13 R6", "close": "B12"}, "B3 B13 P9 B4",
                   "Y8 Y7 Y4 Y3", "R2 Y15 R4 R3", "P4 P14 P6 P10", "P15 P5 Y12 P7", "P11 B14 Y9 B9"],
        "trick": "P8 B2 Y10"}


def run(args, **kw):
    return CliRunner().invoke(cli, ["books", "advise", "--play", *args], **kw)


def one_line(capsys, args) -> str:
    """``ludolab books advise --play ARGS`` through the console entry point: exit code 2, one ``Error:``
    line on stderr, nothing on stdout, no traceback."""
    with pytest.raises(SystemExit) as exc:
        main(["books", "advise", "--play", *args])
    out, err = capsys.readouterr()
    assert exc.value.code == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:") and out == "", err
    return lines[0]


def test_a_json_situation_gives_a_ranked_table_with_ci_and_verdict(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(SIT))
    res = run(["--situation", str(f), "--budget", "24"])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "card-play advice" in out and "ci_low" in out and "ci_high" in out
    assert "worlds" in out and "24" in out and "heuristic/heuristic" in out
    assert "expected points of this hand" in out
    assert any(w in out for w in ("is better than", "is equally good as", "cannot yet be told from"))
    rows = [ln.split()[1] for ln in out.splitlines() if ln.strip()[:1].isdigit() and ln.split()[1][:1] in "Y"]
    assert sorted(rows) == ["Y1", "Y14", "Y9"]  # must follow yellow (STK-5)


def test_the_command_line_form_is_the_same_situation():
    a = run([*OPTS, "--budget", "16", "--format", "json"])
    assert a.exit_code == 0, a.output
    b = run(["--situation", "-", "--budget", "16", "--format", "json"], input=json.dumps(SIT))
    assert b.exit_code == 0, b.output
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    ja.pop("seconds"), jb.pop("seconds")
    assert ja == jb
    assert ja["worlds"] == 16 and [r["action"] for r in ja["rows"]] and ja["verdict"] in (
        "better", "equally good", "cannot tell yet")
    assert {"rank", "action", "value", "ci_low", "ci_high"} <= set(ja["rows"][0])


def test_close_decision_from_the_command_line():
    res = run(["--hand", "R15 R9 R4 B1 B2 B5 Y1 Y9 Y14 P15 P14 P13", "--predictions", "B13 Y15 / / Y7 P2 / R1",
               "--trick", "Y13 Y3 Y4 Y5", "--start", "0", "--budget", "8", "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert "close B13" in res.output and "close Y15" in res.output


def test_a_clearly_best_card_ranks_first_with_its_exact_value():
    """Exact by the rules (STK-5, STK-6, STK-8): R9 wins the last trick and closes R5 (-2 points),
    B5 loses it (-3), whatever the unseen cards; the values and the verdict say so."""
    pos = BS.to_position(LAST)
    adv = advice.advise(S.step_game(), pos.rules, pos.n_players, pos.seat, pos.obs, measure="books_points",
                        budget=10, key=3)
    assert [BS.action_label(pos.rules, pos.obs, a) for a in adv.actions] == ["R9", "B5"]
    assert np.allclose(adv.mean, [-2.0, -3.0]) and np.allclose(adv.ci_low, adv.ci_high)
    assert adv.verdict == "better"
    # the same by the pure-Python twin on one determinized world of the situation
    world = np.zeros_like(pos.obs)
    REF.determinize(pos.rules, pos.obs, pos.seat, 5, world)
    for a, want in ((BS.B.parse_card("R9"), -2.0), (BS.B.parse_card("B5"), -3.0)):
        st = world.copy()
        REF.apply_action(pos.rules, st, a)
        out = np.zeros(64, dtype=np.int64)
        while not REF.is_terminal(st):
            REF.apply_action(pos.rules, st, out[REF.legal_actions(pos.rules, st, out) - 1])
        ret = np.zeros(4)
        REF.returns(pos.rules, st, ret)
        assert ret[pos.seat] == want


@pytest.mark.parametrize("args,words", [
    (["--situation", "x.json", "--hand", "R1"], ["not both", "--hand"]),
    ([], ["--situation FILE", "--hand"]),
    (["--situation", "missing.json"], ["missing.json"]),
    (["--hand", "R15 R9", "--predictions", "B3 / / Y7 P2 / R1", "--start", "0"], ["holds 14 cards", "STK-3"]),
    ([*OPTS[:-2], "--start", "0", "--seat", "1"], ["seat 1 is not the one to act"]),
    (["--hand", "R15 X9", "--predictions", "/ / /", "--start", "0"], ["X9", "STK-2"]),
    ([*OPTS[:-4], "--trick", "Y2 Y2", "--start", "0"], ["Y2", "STK-2"]),
    ([*OPTS, "--trick", "Y3"], ["--trick is given 2 times"]),
    (["--hand", SIT["hand"], "--predictions", "B3 / "], ["forecast", "without --play", "STK-4"]),
    ([*OPTS[:4], "--tricks", "B10 B11 B12", "--trick", "Y2", "--start", "0"], ["3 cards", "STK-5"]),
    ([*OPTS[:4], "--tricks", "B10 B11 B12 B13 close", "--trick", "Y2", "--start", "0"], ["close CARD"]),
    ([*OPTS, "--totals", "1 x"], ["--totals"]),
    ([*OPTS, "--budget", "0"], ["--budget"]),
    ([*OPTS, "--half-width", "nan"], ["--half-width"]),
])
def test_bad_input_is_one_line_exit_2(args, words, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.json").write_text(json.dumps(SIT))
    line = one_line(capsys, args)
    for w in words:
        assert w in line, line


def test_bad_json_situations_are_one_line(tmp_path, capsys):
    f = tmp_path / "s.json"
    f.write_text("{not json")
    assert "not valid JSON" in one_line(capsys, ["--situation", str(f)])
    f.write_text(json.dumps(dict(SIT, trick="Y2 Y1")))
    assert "both in hand and in trick" in one_line(capsys, ["--situation", str(f)])
    f.write_text(json.dumps(dict(SIT, extra=1)))
    assert "unknown field 'extra'" in one_line(capsys, ["--situation", str(f)])
    res = run(["--situation", "-"], input="[1, 2]")
    assert res.exit_code == 2 and "a situation is a JSON object" in res.output


def test_forecast_advice_is_unchanged_without_play():
    res = CliRunner().invoke(cli, ["books", "advise", "--hand", "R15 R9", "--position", "1"])
    assert res.exit_code == 2 and "15 cards" in res.output
    res = CliRunner().invoke(cli, ["books", "advise", "--help"])
    assert res.exit_code == 0 and "--position" in res.output and "--play" in res.output
    res = CliRunner().invoke(cli, ["books", "advise", "--play", "--help"])
    assert res.exit_code == 0 and "--situation" in res.output and "--budget" in res.output


def test_a_hand_in_a_game_is_valued_by_the_game_total():
    """With --hands the value is the game total at its end (STK-9), the later hands played out by the
    continuation; the default budget is divided by the hands left."""
    res = run([*OPTS, "--hand-number", "0", "--hands", "2", "--totals", "0 0 0 0", "--format", "json"])
    assert res.exit_code == 0, res.output
    rec = json.loads(res.stdout)
    assert rec["worlds"] == 200 and "game total" in rec["value"] and "hand 1" in rec["scope"]
    bad = run([*OPTS, "--hand-number", "1", "--hands", "4"])
    assert bad.exit_code == 2 and "started by seat 1" in bad.output and "STK-9" in bad.output


@pytest.mark.slow
def test_the_default_budget_answers_within_two_seconds():
    """At the first lead of a hand (15 legal cards, the most the card play has with four players) the
    default budget's search takes under 2 s once compiled (the README's promise)."""
    from ludolab.analysis.books_cli import PLAY_ADVICE_BUDGET

    lead = {"players": 4, "start": 0, "hand": "R1 R5 R9 R13 B2 B6 B10 B14 Y3 Y7 Y11 Y15 P4 P8 P12",
            "predictions": ["", "", "", ""], "trick": ""}
    pos = BS.to_position(lead)
    g = S.step_game()
    advice.advise(g, pos.rules, pos.n_players, pos.seat, pos.obs, measure="books_points", budget=4)
    adv = advice.advise(g, pos.rules, pos.n_players, pos.seat, pos.obs, measure="books_points",
                        budget=PLAY_ADVICE_BUDGET)
    assert len(adv.actions) == 15 and adv.worlds == PLAY_ADVICE_BUDGET
    assert adv.seconds < 2.0
