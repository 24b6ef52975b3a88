"""Shut The Books records (``books score``) and the command line, on tiny N.

Clause ids refer to seeds/shut_the_books.md.
"""

from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner

from ludolab.analysis.cli import cli
from ludolab.sim import books as S
from ludolab.stdlib.books import BooksRules


def recorded_hand(seed=11, players=4):
    """A legal hand record made by the engine (heuristic forecasts and play)."""
    rec = S.conformance().play(seed, 2 if players == 3 else 1, "kernel")[-1]
    assert rec["players"] == players
    h = rec["hands"][0]
    return {"players": players, "start": h["start"], "hands": h["deal"], "predictions": h["predictions"],
            "tricks": [{"leader": t["leader"], "cards": t["cards"], "close": t["close"]} for t in h["tricks"]]}, h


@pytest.mark.parametrize("players", [3, 4])
def test_score_record_reproduces_engine_scores(players):
    """STK-5..STK-8: replaying an engine hand gives the engine's scores."""
    rec, h = recorded_hand(players=players)
    res = S.score_record(rec, void_trump="counts" if players == 4 else "counts")
    assert [s["score"] for s in res["seats"]] == h["scores"]


def test_score_record_close_may_be_omitted_when_unambiguous():
    """STK-6: close may be left out when at most one open prediction card matches."""
    rec, h = recorded_hand()
    for t in rec["tricks"]:
        t.pop("close")
    try:
        res = S.score_record(rec)
    except S.RecordError as e:
        assert "must say which" in str(e) and "STK-6" in str(e)
    else:
        assert [s["score"] for s in res["seats"]] == h["scores"]


def _first_trick_follower_violation(rec):
    """Make seat 2nd-to-play in trick 1 play off-colour while holding the colour led."""
    r = copy.deepcopy(rec)
    t = r["tricks"][0]
    led = t["cards"][0][0]
    s = (t["leader"] + 1) % r["players"]
    hand = [c for c in r["hands"][s] if c not in r["predictions"][s]]
    off = [c for c in hand if c[0] != led]
    if t["cards"][1][0] != led or not off:
        return None
    t["cards"][1] = off[0]
    return r


@pytest.mark.parametrize("mutate, clause, words", [
    (lambda r: r["tricks"][0]["cards"].__setitem__(0, "Q5"), "STK-2", "colour"),
    (lambda r: r["tricks"].pop(), "STK-7", "tricks"),
    (lambda r: r["tricks"].append(copy.deepcopy(r["tricks"][-1])), "STK-7", "tricks"),
    (lambda r: r["tricks"][1].__setitem__("leader", (r["tricks"][1]["leader"] + 1) % r["players"]), "STK-5",
     "leader"),
    (lambda r: r.__setitem__("start", 7), "STK-3", "start"),
    (lambda r: r["predictions"].__setitem__(0, r["hands"][0][:6]), "STK-4", "at most 5"),
    (lambda r: r["predictions"].__setitem__(0, [r["hands"][1][0]]), "STK-4", "not dealt"),
    (lambda r: r.__setitem__("players", 4.0), "STK-1", "whole number 3 or 4"),
    (lambda r: r["tricks"][0].__setitem__("leader", float(r["tricks"][0]["leader"])), "STK-5", "seat number 0..3"),
    (lambda r: r["tricks"][0].__setitem__("leader", "zero"), "STK-5", "seat number 0..3"),
    (lambda r: r["tricks"][2].__setitem__("clsoe", "R1"), "STK-5", "trick 3: unknown field 'clsoe'"),
])
def test_score_record_refuses_illegal_records(mutate, clause, words):
    """Illegal records are refused with one line naming the trick or field and the clause."""
    rec, _ = recorded_hand()
    mutate(rec)
    with pytest.raises(S.RecordError) as ei:
        S.score_record(rec)
    msg = str(ei.value)
    assert clause in msg and words in msg and "\n" not in msg


def test_score_record_refuses_unknown_fields():
    """A misspelt or unknown field is refused with the allowed ones, not ignored."""
    rec, _ = recorded_hand()
    rec["foo"] = 1
    with pytest.raises(S.RecordError, match="unknown field 'foo'.*allowed are hands, players, predictions, start, "
                                             "tricks"):
        S.score_record(rec)


def test_score_record_refuses_card_not_in_hand_and_no_follow():
    """STK-5: a card the seat does not hold, and not following suit when able, are refused."""
    rec, _ = recorded_hand()
    r = copy.deepcopy(rec)
    other = (r["tricks"][0]["leader"] + 2) % 4
    r["tricks"][0]["cards"][0] = [c for c in r["hands"][other]
                                  if c not in r["predictions"][other] and c not in r["tricks"][0]["cards"]][0]
    with pytest.raises(S.RecordError, match="trick 1.*not in their hand.*STK-5"):
        S.score_record(r)
    for seed in range(11, 40, 2):
        rec, _ = recorded_hand(seed)
        r = _first_trick_follower_violation(rec)
        if r is not None:
            with pytest.raises(S.RecordError, match="trick 1.*must follow suit.*STK-5"):
                S.score_record(r)
            break
    else:
        pytest.skip("no suitable trick found")


def test_score_record_refuses_bad_close():
    """STK-6: closing a card that does not match or is not open is refused."""
    for seed in range(11, 60, 2):
        rec, h = recorded_hand(seed)
        for t, tr in enumerate(rec["tricks"]):
            if tr["close"] is None:
                w = h["tricks"][t]["winner"]
                if rec["predictions"][w]:
                    r = copy.deepcopy(rec)
                    r["tricks"][t]["close"] = rec["predictions"][w][0]
                    with pytest.raises(S.RecordError, match=f"trick {t + 1}: .*cannot close.*STK-6"):
                        S.score_record(r)
                    return
    pytest.skip("no extra trick with predictions found")


def test_score_record_bad_json():
    with pytest.raises(S.RecordError, match="JSON"):
        S.score_record("{not json")


# ------------------------------------------------------------------ CLI
def run(args, **kw):
    return CliRunner().invoke(cli, ["books", *args], **kw)


def test_cli_score_json(tmp_path):
    """`books score FILE --format json` gives the seats in seat order with JSON numbers."""
    rec, h = recorded_hand()
    f = tmp_path / "hand.json"
    f.write_text(json.dumps(rec))
    res = run(["score", str(f), "--format", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert [s["seat"] for s in out["seats"]] == [0, 1, 2, 3]
    assert [s["score"] for s in out["seats"]] == h["scores"]
    assert set(out["seats"][0]) == {"seat", "tricks_won", "closed", "off", "score"}


def test_cli_score_illegal_is_one_line_exit_2(tmp_path):
    rec, _ = recorded_hand()
    rec["tricks"].pop()
    f = tmp_path / "hand.json"
    f.write_text(json.dumps(rec))
    res = run(["score", str(f)])
    assert res.exit_code == 2
    assert res.output.strip().startswith("Error:") and len(res.output.strip().splitlines()) == 1
    assert "STK-7" in res.output


def test_cli_accuracy_json_and_out(tmp_path):
    res = run(["accuracy", "--hands", "200", "--quiet", "--format", "json", "--chunks", "4"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert len(out["by_seat"]) == 4 and isinstance(out["overall"][0]["exact"], float)
    res = run(["accuracy", "--hands", "100", "--quiet", "--out", str(tmp_path), "--chunks", "2"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "books_accuracy_by_seat.png").exists()


def test_cli_compare_and_simulate_and_variants():
    res = run(["compare", "--hands", "100", "--quiet", "--chunks", "2", "--play-policy", "heuristic"])
    assert res.exit_code == 0, res.output
    assert "zero" in res.output and "random" in res.output
    res = run(["simulate", "--games", "50", "--players", "3", "--quiet", "--chunks", "2"])
    assert res.exit_code == 0, res.output
    res = run(["variants", "--hands", "60", "--quiet", "--chunks", "2", "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("scoring,") and "tuned_keep_low" in res.output.splitlines()[0]


def test_play_tuning_picks_the_better_parameter_on_the_same_deals():
    """Item 8: the player's parameter is re-tuned per scoring on common random numbers."""
    from ludolab.analysis import books as A

    rules = BooksRules(4, scoring="exact-only")
    f = S.forecast_policy("heuristic")
    best, grid = A.tune_play(rules, f, 200, 3)
    assert list(grid["keep_low"]) == [True, False]
    top = bool(grid.loc[grid["mean_score"].astype(float).idxmax(), "keep_low"])
    assert (best.params[0] > 0.5) == top
    fpol, play = A.tune_policies(rules, 200, 3, rounds=1)
    assert fpol.kind == f.kind and play.kind == best.kind


def test_cli_bad_choice_exit_2():
    res = run(["accuracy", "--players", "5"])
    assert res.exit_code == 2


@pytest.mark.parametrize("args, words", [
    (["simulate", "--games", "10", "--rollout-pool", "3"], "--rollout-pool applies only with --forecast-policy rollout"),
    (["accuracy", "--hands", "10", "--rollout-worlds", "3"], "--rollout-worlds applies only"),
    (["accuracy", "--hands", "10", "--play-worlds", "3"], "--play-worlds applies only with --play-policy rollout"),
    (["compare", "--hands", "10", "--tie-break", "shared"], "--tie-break"),
    (["accuracy", "--hands", "10", "--tie-break", "shared"], "--tie-break"),
])
def test_options_that_do_not_apply_are_refused(args, words):
    """An option the chosen policies or the command do not use is refused, not ignored."""
    res = run(args)
    assert res.exit_code == 2 and words in res.output and "Traceback" not in res.output


def test_advise_says_when_the_ci_target_is_not_reached():
    """The advice reports the CI half-width reached; a target it cannot reach within --max-worlds is said."""
    res = run(["advise", "--hand", HAND, "--position", "1", "--pool", "2", "--worlds", "2", "--half-width", "0.001",
               "--max-worlds", "300", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert "above --half-width 0.001" in res.stderr and "--max-worlds 300" in res.stderr
    rec = json.loads(res.stdout)
    assert rec["ci_half_width"] > 0.001


# ------------------------------------------------------------------ advice (STK-4)
HAND = "R15 R9 B10 B3 B7 Y1 Y5 Y12 P2 P4 P8 P11 P13 R2 B14"


def test_advise_small_search():
    """STK-4: the advice lists prediction sets drawn from the hand, best first, with CIs."""
    df = S.advise(BooksRules(4), HAND, 3, ["P12 Y3", ""], pool=3, worlds=2, half_width=2.0, max_worlds=64, top=0)
    assert len(df) == 8  # every subset of a 3-card pool
    hand = set(HAND.split())
    assert all(set(x) <= hand for x in df["lay"])
    final = df[df["final"]]
    assert list(final["expected_score"]) == sorted(final["expected_score"], reverse=True)
    assert (df["p_exact_ci_low"] <= df["p_exact"]).all() and (df["p_exact"] <= df["p_exact_ci_high"]).all()


@pytest.mark.parametrize("hand, position, earlier, match", [
    ("R15 R9", 1, [], "15 cards"),
    (HAND, 5, [], "1..4"),
    (HAND, 3, ["P12"], "2 players before"),
    (HAND, 2, ["R9"], "also in your hand"),
    (HAND, 2, ["P1 P3 P5 P6 P7 P9"], "at most 5"),
    (HAND.replace("R15", "G15"), 1, [], "colour"),
])
def test_advise_refuses_bad_input(hand, position, earlier, match):
    with pytest.raises(S.LudolabError, match=match):
        S.advise(BooksRules(4), hand, position, earlier, pool=2, worlds=1)


def test_cli_advise_json():
    res = run(["advise", "--hand", HAND, "--position", "2", "--earlier", "", "--pool", "3", "--worlds", "2",
               "--half-width", "3", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["advice"].startswith("lay")
    assert isinstance(out["rows"][0]["lay"], list) and isinstance(out["rows"][0]["expected_score"], float)


def test_cli_advise_bad_hand_exit_2():
    res = run(["advise", "--hand", "R15 R9", "--position", "1"])
    assert res.exit_code == 2 and res.output.startswith("Error:")


def test_rollout_policies_play_and_calibration_is_reported():
    """Rollout forecaster and player run inside the accuracy study; the forecaster's P(exact) is calibrated."""
    acc = S.accuracy(BooksRules(3), [(S.forecast_policy("rollout", pool=3, worlds=1), S.play_policy("rollout", worlds=2))],
                     6, seed=1, chunks=2)
    bins, summ = acc.calibration()
    assert int(summ["forecasts"].iloc[0]) == 18 and bins["forecasts"].sum() == 18
    assert 0.0 <= summ["brier"].iloc[0] <= 1.0


def test_example_hand_record_scores():
    """The shipped example record (close left out where nothing or one card matches) replays and scores (STK-8)."""
    from importlib.resources import files

    text = files("ludolab.stdlib").joinpath("data/books_example_hand.json").read_text()
    res = S.score_record(text)
    assert [s["score"] for s in res["seats"]] == [2, -4, -2, 2]
    assert [s["off"] for s in res["seats"]] == [1, 4, 2, 1]


@pytest.mark.parametrize("text, match", [("[1, 2]", "JSON object"), ("not json", "not valid JSON"),
                                         ('{"players": 5}', "3 or 4")])
def test_cli_score_unreadable_records(tmp_path, text, match):
    """A file that is not a hand record is one error line naming what a record holds, exit 2."""
    f = tmp_path / "x.json"
    f.write_text(text)
    res = run(["score", str(f)])
    assert res.exit_code == 2 and match in res.output and len(res.output.strip().splitlines()) == 1


def test_score_reads_a_record_from_stdin_and_names_missing_fields():
    """`books score -` reads the record on stdin; a missing field is named as missing (STK-3)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "stdlib" / "data" / "books_example_hand.json").read_text()
    res = run(["score", "-", "--format", "json"], input=text)
    assert res.exit_code == 0, res.output
    assert [s["seat"] for s in json.loads(res.stdout)["seats"]] == [0, 1, 2, 3]
    rec = json.loads(text)
    del rec["start"]
    res = run(["score", "-"], input=json.dumps(rec))
    assert res.exit_code == 2 and "start must be a seat number 0..3, it is missing (STK-3)" in res.output


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_advise_refuses_a_half_width_that_is_not_finite(value):
    res = run(["advise", "--hand", HAND, "--position", "1", "--half-width", value])
    assert res.exit_code == 2 and f"{value} is not a finite number: allowed are numbers 0.001 or more" in res.output
