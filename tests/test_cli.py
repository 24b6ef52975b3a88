"""The ``ludolab`` command line (ludolab.analysis.cli): ``box`` subcommands.

Normal runs go through click's CliRunner on the ``cli`` group; error cases go
through ``main(argv)``, the console entry point, which must turn every bad
input into exactly one ``Error: ...`` line on stderr naming the bad value,
exit code 2 and no traceback (module docstring of cli.py).  Simulation sizes
are kept tiny.  Clause ids refer to seeds/shut_the_box.md.
"""

from __future__ import annotations

import io
import json
import math
from fractions import Fraction
from pathlib import Path

import numba
import pandas as pd
import pytest
from click.testing import CliRunner

from ludolab.analysis.cli import cli, main

P_SHUT_NEVER = "466473281/6530347008"  # STB-O2, 1-9, two dice always (published value)
P_SHUT_LE6_FORCED = "956177159/9795520512"  # STB-O2, 1-9, one die when open tiles total <= 6
VERSION_KEYS = {"python", "ludolab", "numpy", "numba", "pandas"}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------ helpers
def run(*args: str):
    """Run ``ludolab ARGS`` through CliRunner; it must succeed."""
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, f"exit {result.exit_code}: {result.output}"
    return result


def run_json(*args: str):
    return json.loads(run(*args, "--format", "json").stdout)


def run_error(capsys, *args: str) -> str:
    """Run ``main(ARGS)``: exit code 2, one ``Error:`` line on stderr, nothing on stdout.  Returns the line."""
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert exc.value.code == 2, f"exit code {exc.value.code!r}; stderr: {err!r}"
    assert "Traceback" not in err and "Traceback" not in out
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, f"want exactly one stderr line, got {err!r}"
    assert lines[0].startswith("Error:"), lines[0]
    assert out == "", f"a failed command printed {out!r} on stdout"
    return lines[0]


def snapshot(folder: Path) -> dict:
    """name -> bytes of every file in a folder."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def assert_no_temp_files(folder: Path) -> None:
    """Files are staged under a temporary name and moved in (outputs.py): none may be left over
    (the folder's manifest of what ludolab wrote is the one hidden file)."""
    from ludolab.analysis.outputs import MANIFEST

    leftovers = [p.name for p in folder.rglob(".*") if p.name != MANIFEST]
    assert not leftovers, f"temporary files left behind: {leftovers}"


def read_meta(path: Path) -> dict:
    meta = json.loads(path.read_text())
    assert meta["game"] == "box"
    assert VERSION_KEYS <= set(meta["versions"]), meta["versions"]
    return meta


# ------------------------------------------------------------------ solve
@pytest.mark.parametrize("one_die, fraction", [("never", P_SHUT_NEVER), ("le6-forced", P_SHUT_LE6_FORCED)])
def test_stb_o2_solve_exact_p_shut(one_die, fraction):
    """STB-O2, STB-6: `box solve --objective shut --exact` reproduces the published fractions."""
    d = run_json("box", "solve", "--objective", "shut", "--one-die", one_die, "--exact")
    exact = d["value_exact"]
    assert Fraction(exact["numerator"], exact["denominator"]) == Fraction(fraction)
    assert f"{exact['numerator']}/{exact['denominator']}" == fraction  # already in lowest terms
    assert d["value"] == pytest.approx(float(Fraction(fraction)), abs=1e-12)
    assert d["states"] == 512
    assert d["objective"] == "max P(shut)"
    assert d["rules"]["one_die"] == one_die and d["rules"]["tiles"] == list(range(1, 10))
    assert d["start_dice"] == 2


def test_stb_o2_solve_never_decimal_value():
    d = run_json("box", "solve", "--objective", "shut", "--one-die", "never", "--exact")
    assert d["value"] == pytest.approx(0.0714316223, abs=1e-10)


def test_solve_table_format_prints_value():
    out = run("box", "solve", "--objective", "shut", "--one-die", "never", "--exact").stdout
    assert "Shut the Box, exact solution" in out
    assert P_SHUT_NEVER in out


# ------------------------------------------------------------------ advise
def test_stb4_advise_roll_rows_best_first():
    """STB-4, STB-O2: open 1-5, roll 7: covering 3,4 is best, and it ranks before 2,5."""
    d = run_json("box", "advise", "--open", "1,2,3,4,5", "--roll", "7", "--objective", "shut")
    rows = d["rows"]
    covers = [r["cover"] for r in rows]
    assert covers[0] == [3, 4]
    assert d["advice"] == "cover 3,4"
    assert d["open"] == [1, 2, 3, 4, 5] and d["roll"] == 7 and d["dice"] == 2
    assert covers.index([3, 4]) < covers.index([2, 5])
    # every subset of {1..5} totalling 7, each listed once
    assert sorted(covers) == sorted([[3, 4], [2, 5], [1, 2, 4]])
    values = [r["value"] for r in rows]
    assert values == sorted(values, reverse=True), "max P(shut): rows must be best (highest) first"
    assert [r["best"] for r in rows] == [True] + [False] * (len(rows) - 1)
    for r in rows:
        assert 0.0 <= r["value"] <= 1.0
        assert sorted(r["tiles_left"] + r["cover"]) == [1, 2, 3, 4, 5]
        assert sum(r["cover"]) == 7


def test_advise_open_tiles_take_ranges_as_tiles_does():
    """--open takes ranges as --tiles does (1-5, 1-3,7), with the same advice as the tiles listed one by one;
    a backward or half range is one line naming what is allowed."""
    assert run_json("box", "advise", "--open", "1-5", "--roll", "7") == run_json("box", "advise", "--open",
                                                                                "1,2,3,4,5", "--roll", "7")
    assert run_json("box", "advise", "--open", "1-3,7", "--roll", "4")["open"] == [1, 2, 3, 7]
    for bad in ("5-3", "1-", "1--3", "a-3"):
        r = CliRunner().invoke(cli, ["box", "advise", "--open", bad, "--roll", "4"])
        assert r.exit_code == 2 and "ranges allowed" in r.output and r.output.count("\n") == 1, r.output


def test_stb6_advise_without_roll_gives_dice_choice():
    """STB-6: before the roll (789-optional, 7-9 covered) both dice counts are offered, best first."""
    d = run_json("box", "advise", "--open", "1,2,3,4,5")
    rows = d["rows"]
    assert sorted(r["dice"] for r in rows) == [1, 2]
    values = [r["value"] for r in rows]
    assert values == sorted(values), "min E[score]: rows must be best (lowest) first"
    assert rows[0]["best"] is True and rows[1]["best"] is False
    want = "roll one die" if rows[0]["dice"] == 1 else "roll two dice"
    assert d["advice"] == want


def test_stb6_advise_without_roll_single_choice_under_never():
    d = run_json("box", "advise", "--open", "1,2,3,4,5", "--one-die", "never")
    assert [r["dice"] for r in d["rows"]] == [2]
    assert d["advice"].startswith("roll two dice")
    assert "only choice" in d["advice"]


def test_stb5_advise_thai_roll_dice():
    """STB-5: thai moves with dice 3+4 cover one tile equal to a die (3 or 4) or the total (7, not open)."""
    d = run_json("box", "advise", "--moves", "thai", "--open", "1,2,3,4,5", "--roll", "3+4")
    rows = d["rows"]
    assert sorted(r["cover"] for r in rows) == [[3], [4]]
    assert d["roll"] == [3, 4] and d["dice"] == 2  # thai rolls are the faces
    values = [r["value"] for r in rows]
    assert values == sorted(values)
    assert d["advice"] == f"cover {rows[0]['cover'][0]}"


def test_stb7_advise_no_legal_move():
    """STB-7: a roll nothing can cover ends the turn; the advice says so."""
    d = run_json("box", "advise", "--open", "1,2", "--roll", "12")
    assert d["rows"] == []
    assert "no legal move" in d["advice"]
    assert d["value"] == 3  # STB-8 sum of 1 and 2


# ------------------------------------------------------------------ simulate
SIM_KEYS = ("games", "mean_score", "mean_score_ci_low", "mean_score_ci_high",
            "p_shut", "p_shut_ci_low", "p_shut_ci_high", "exact_mean_score", "exact_p_shut")


def test_stb_o1_simulate_json_ci_contains_exact():
    """STB-O1: the 95% CIs of a 20 000-game run (seed 3) contain the exact values."""
    d = run_json("box", "simulate", "--games", "20000", "--seed", "3", "--quiet")
    for k in SIM_KEYS:
        assert k in d, k
    assert d["games"] == 20000 and d["seed"] == 3
    assert d["mean_score_ci_low"] < d["mean_score"] < d["mean_score_ci_high"]
    assert d["mean_score_ci_low"] <= d["exact_mean_score"] <= d["mean_score_ci_high"]
    assert 0.0 <= d["p_shut_ci_low"] < d["p_shut"] < d["p_shut_ci_high"] <= 1.0
    assert d["p_shut_ci_low"] <= d["exact_p_shut"] <= d["p_shut_ci_high"]
    # the exact value beside it is the optimal (min E[score]) one, as `box evaluate` gives it
    ev = run_json("box", "evaluate")
    assert d["exact_mean_score"] == pytest.approx(ev["mean_score"], rel=1e-12)


def test_simulate_same_seed_same_output():
    args = ("box", "simulate", "--games", "5000", "--seed", "3", "--format", "json", "--quiet")
    first, second = run(*args).stdout, run(*args).stdout
    assert first == second
    other = run("box", "simulate", "--games", "5000", "--seed", "4", "--format", "json", "--quiet").stdout
    assert json.loads(other)["mean_score"] != json.loads(first)["mean_score"]


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_simulate_same_seed_any_thread_count():
    """--seed help: the same seed gives the same numbers on any thread count."""
    args = ("box", "simulate", "--games", "5000", "--seed", "3", "--format", "json", "--quiet")
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = run(*args).stdout
        numba.set_num_threads(2)
        two = run(*args).stdout
    finally:
        numba.set_num_threads(old)
    assert one == two


def test_simulate_csv_parses():
    out = run("box", "simulate", "--games", "2000", "--seed", "3", "--format", "csv", "--quiet").stdout
    df = pd.read_csv(io.StringIO(out))
    assert len(df) == 1
    for k in SIM_KEYS:
        assert k in df.columns, k
    assert int(df["games"].iloc[0]) == 2000
    assert df["mean_score_ci_low"].iloc[0] <= df["mean_score"].iloc[0] <= df["mean_score_ci_high"].iloc[0]


# ------------------------------------------------------------ evaluate / compare
def test_stb_o1_evaluate_greedy_high():
    d = run_json("box", "evaluate", "--policy", "greedy-high")
    opt = run_json("box", "evaluate")
    assert d["policy"] == "greedy-high"
    assert d["mean_score"] > opt["mean_score"]  # the optimal policy minimises E[score]
    assert 0.0 < d["p_shut"] < 1.0 and d["sd_score"] > 0
    probs = [r["probability"] for r in d["rows"]]
    assert math.fsum(probs) == pytest.approx(1.0, abs=1e-12)
    assert math.fsum(r["score"] * r["probability"] for r in d["rows"]) == pytest.approx(d["mean_score"], rel=1e-12)
    zero = [r["probability"] for r in d["rows"] if r["score"] == 0]
    assert zero == [pytest.approx(d["p_shut"], abs=1e-15)]


def test_compare_optimal_random():
    d = run_json("box", "compare", "--policy", "optimal", "--policy", "random", "--games", "5000", "--quiet")
    rows = d["rows"]
    assert len(rows) == 2
    assert rows[0]["policy"].startswith("optimal")
    assert rows[1]["policy"] == "random"
    assert d["paired_against"] == rows[0]["policy"]
    assert rows[0]["diff_vs_first"] == 0.0
    assert rows[1]["mean_score"] > rows[0]["mean_score"]
    assert rows[1]["diff_vs_first_ci_low"] > 0  # random is clearly worse, even on 5000 games
    for r in rows:
        assert r["mc_mean_score_ci_low"] <= r["mc_mean_score"] <= r["mc_mean_score_ci_high"]


def test_stb8_variants_json():
    """STB-8: the policy optimised for a scoring is the best under that scoring (cost 0 on the diagonal)."""
    d = run_json("box", "variants")
    matrix = d["matrix"]
    scorings = {"sum", "count", "digital", "all-or-nothing"}
    assert {r["optimised_for"] for r in matrix} == scorings
    assert {r["scored_by"] for r in matrix} == scorings
    assert len(matrix) == 16
    for r in matrix:
        assert r["cost"] >= -1e-9 and r["cost_pct"] >= -1e-9
        if r["optimised_for"] == r["scored_by"]:
            assert r["cost"] == pytest.approx(0.0, abs=1e-9)
    assert isinstance(d["disagreements"], list) and len(d["disagreements"]) <= 10


# ------------------------------------------------------------------ match
def _check_probabilities(rows):
    for r in rows:
        for k, v in r.items():
            if k.startswith("p_"):
                assert 0.0 <= v <= 1.0, (k, v)


def test_stb9_match_two_players_exact():
    """STB-9: one round, two players: every game is won by one seat or tied."""
    d = run_json("box", "match", "--players", "2")
    rows = d["rows"]
    assert [r["seat"] for r in rows] == [1, 2]
    for r in rows:
        assert "p_win" in r and "p_tie" in r
    _check_probabilities(rows)
    assert 0.0 <= d["p_game_tied"] <= 1.0
    assert rows[0]["p_play"] == 1.0
    assert rows[0]["p_win"] + rows[1]["p_win"] + d["p_game_tied"] == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("mode_args, mode", [(("--rounds", "2"), "2 rounds"), (("--elimination",), "elimination")])
def test_stb11_stb12_match_three_players_simulated(mode_args, mode):
    """STB-11 (two rounds with totals) and STB-12 (elimination) by simulation, three seats."""
    d = run_json("box", "match", "--players", "3", *mode_args, "--games", "3000", "--quiet")
    assert mode in d["mode"]
    assert d["games"] == 3000
    rows = d["rows"]
    assert [r["seat"] for r in rows] == [1, 2, 3]
    _check_probabilities(rows)
    for r in rows:
        assert r["p_win_ci_low"] <= r["p_win"] <= r["p_win_ci_high"]
        assert r["p_tie_ci_low"] <= r["p_tie"] <= r["p_tie_ci_high"]
    assert sum(r["p_win"] for r in rows) <= 1.0 + 1e-12
    if mode == "2 rounds":
        assert all(r["mean_rounds"] == 2.0 for r in rows)
    else:
        assert all(r["mean_rounds"] >= 1.0 for r in rows)


# ------------------------------------------------------------------ --out
def test_solve_out_writes_tables_charts_and_provenance(tmp_path):
    out = tmp_path / "solve"
    run("box", "solve", "--objective", "shut", "--one-die", "never", "--exact", "--out", out)
    for name in ("values.csv", "values.meta.json", "policy.csv", "policy.meta.json", "policy_map.png"):
        assert (out / name).is_file(), name
    assert (out / "policy_map.png").read_bytes()[:8] == PNG_MAGIC
    for stem in ("values", "policy"):
        meta = read_meta(out / f"{stem}.meta.json")
        assert meta["rules"]["tiles"] == list(range(1, 10))
        assert meta["rules"]["one_die"] == "never"
        assert meta["command"] == "box solve"
        assert meta["objective"] == "max P(shut)"
    values = pd.read_csv(out / "values.csv", dtype={"open": str})
    assert len(values) == 512
    start = values[values["open"] == "1,2,3,4,5,6,7,8,9"]
    assert list(start["value_exact"]) == [P_SHUT_NEVER]
    policy = pd.read_csv(out / "policy.csv")
    assert {"open", "dice", "roll", "cover"} <= set(policy.columns)
    assert_no_temp_files(out)


@pytest.mark.parametrize("args, files, fields", [
    (("box", "simulate", "--games", "2000", "--seed", "5", "--quiet"),
     ("simulate_summary.csv", "simulate_distribution.csv", "simulate_distribution.png"), {"games": 2000, "seed": 5, "command": "box simulate"}),
    (("box", "compare", "--policy", "optimal", "--policy", "random", "--games", "2000", "--quiet"),
     ("compare.csv", "distributions.png"), {"games": 2000, "command": "box compare"}),
    (("box", "match", "--players", "2"), ("match.csv", "match_seat_wins.png"), {"players": 2, "command": "box match"}),
    (("box", "match", "--players", "3", "--rounds", "2", "--games", "2000", "--quiet"),
     ("match_rounds.csv", "match_rounds_seat_wins.png"), {"players": 3, "games": 2000, "command": "box match"}),
], ids=["simulate", "compare", "match-exact", "match-rounds"])
def test_out_writes_tables_with_sidecars(tmp_path, args, files, fields):
    out = tmp_path / "out"
    run(*args, "--out", out)
    for name in files:
        assert (out / name).is_file(), name
        if name.endswith(".png"):
            assert (out / name).read_bytes()[:8] == PNG_MAGIC
        else:
            meta = read_meta(out / name.replace(".csv", ".meta.json"))
            assert meta["rules"]["tiles"] == list(range(1, 10))
            for k, v in fields.items():
                assert meta[k] == v, (k, meta.get(k))
            assert len(pd.read_csv(out / name)) > 0
    assert_no_temp_files(out)


def test_out_parquet_keeps_provenance_in_attrs(tmp_path):
    out = tmp_path / "pq"
    run("box", "simulate", "--games", "2000", "--seed", "7", "--quiet", "--out", out, "--table-format", "parquet")
    assert (out / "simulate_summary.parquet").is_file() and (out / "simulate_distribution.parquet").is_file()
    assert not list(out.glob("*.csv")) and not list(out.glob("*.meta.json"))
    df = pd.read_parquet(out / "simulate_summary.parquet")
    assert int(df["games"].iloc[0]) == 2000
    attrs = df.attrs
    assert attrs["game"] == "box"
    assert attrs["games"] == 2000 and attrs["seed"] == 7
    assert attrs["command"] == "box simulate"
    assert attrs["rules"]["one_die"] == "789-optional"
    assert VERSION_KEYS <= set(attrs["versions"])
    assert pd.read_parquet(out / "simulate_distribution.parquet").attrs["seed"] == 7


@pytest.mark.parametrize("rule_args, objective_args, key", [
    ((), (), "mean_score"),
    (("--one-die", "never"), ("--objective", "shut"), "p_shut"),
], ids=["default-expected-score", "never-shut"])
def test_policy_csv_round_trip(tmp_path, rule_args, objective_args, key):
    """A policy.csv written by `box solve --out` plays exactly like the optimal policy it came from."""
    out = tmp_path / "rt"
    run("box", "solve", *rule_args, *objective_args, "--out", out)
    table = run_json("box", "evaluate", *rule_args, "--policy", f"table:{out / 'policy.csv'}")
    optimal = run_json("box", "evaluate", *rule_args, *objective_args, "--policy", "optimal")
    assert table["policy"] == "table:policy.csv"
    assert table[key] == pytest.approx(optimal[key], rel=1e-12, abs=1e-15)
    assert table["mean_score"] == pytest.approx(optimal["mean_score"], rel=1e-12)
    if key == "p_shut":
        assert table["p_shut"] == pytest.approx(float(Fraction(P_SHUT_NEVER)), abs=1e-12)
    # a bare path ending in .csv works too
    bare = run_json("box", "evaluate", *rule_args, "--policy", str(out / "policy.csv"))
    assert bare["mean_score"] == table["mean_score"]


# ------------------------------------------------------------------ errors
ERROR_CASES = [
    (("box", "solve", "--tiles", "21"), ["21"]),
    (("box", "solve", "--tiles", "9-4"), ["9-4"]),
    (("box", "solve", "--tiles", "x"), ["'x'"]),
    (("box", "solve", "--one-die", "foo"), ["--one-die", "foo"]),
    (("box", "simulate", "--games", "-5"), ["--games", "-5"]),
    (("box", "simulate", "--games", "0"), ["--games", "0"]),
    (("box", "simulate", "--seed", "-1"), ["--seed", "-1"]),
    (("box", "solve", "--moves", "thai", "--max-tiles-per-move", "2"), ["--max-tiles-per-move", "thai"]),
    (("box", "advise", "--open", "1,2,10"), ["10"]),
    (("box", "advise", "--open", "a,b"), ["a,b"]),
    (("box", "advise", "--open", "1,2,3", "--roll", "13"), ["13"]),
    (("box", "advise", "--moves", "thai", "--open", "1,2,3", "--roll", "7"), ["7"]),
    (("box", "solve", "--objective", "beat"), ["--target"]),
    (("box", "solve", "--target", "5"), ["--target", "beat"]),
    (("box", "simulate", "--objective", "beat", "--games", "100"), ["--target"]),
    (("box", "evaluate", "--policy", "nope"), ["nope"]),
    (("box", "evaluate", "--policy", "table:missing.csv"), ["missing.csv"]),
    (("box", "match", "--rounds", "2", "--elimination"), ["--rounds", "--elimination"]),
    (("box", "match", "--players", "7"), ["--players", "7"]),
    (("box", "frobnicate"), ["frobnicate"]),
    (("frobnicate",), ["frobnicate"]),
    # STB-6: a roll the one-die rule makes impossible in that state
    (("box", "advise", "--open", "1,2,3,4,5,6,7,8,9", "--roll", "1"), ["789-optional", "two dice"]),
    (("box", "advise", "--open", "1,2", "--roll", "5", "--one-die", "never", "--dice", "1"), ["never"]),
    (("box", "advise", "--open", "1,2,3", "--roll", "8", "--one-die", "789-forced"), ["789-forced", "8"]),
    (("box", "advise", "--open", "1,2,3", "--roll", "0"), ["0", "2..12"]),
    (("box", "advise", "--open", "1,2,4", "--dice", "1"), ["--dice", "--roll"]),
    # options that do not apply are refused, not ignored
    (("box", "match", "--policy", "random"), ["--policy"]),
    (("box", "match", "--threshold", "30"), ["--threshold", "--elimination"]),
    (("box", "match", "--games", "5"), ["--games"]),
    (("box", "match", "--rounds", "2", "--ties-win"), ["--ties-win"]),
    (("box", "solve", "--ties-win"), ["--ties-win", "beat"]),
    (("box", "evaluate", "--policy", "greedy-high", "--objective", "shut"), ["--objective", "optimal"]),
    (("box", "solve", "--table-format", "parquet"), ["--table-format", "--out"]),
    (("box", "variants", "--score", "digital"), ["--score"]),
    (("box", "match", "--score", "digital", "--elimination"), ["digital"]),
    (("box", "solve", "--objective", "beat", "--target", "0"), ["target 0"]),
    # sizes beyond what the tool allows
    (("box", "simulate", "--games", str(2**70)), ["--games"]),
    (("box", "simulate", "--chunks", "100000"), ["--chunks"]),
    (("box", "match", "--rounds", "5000"), ["--rounds"]),
    (("box", "solve", "--max-tiles-per-move", "21"), ["--max-tiles-per-move"]),
    (("box", "solve", "--tiles", "1,1"), ["repeat"]),
    (("box", "solve", "--tiles", "20", "--dice", "4d20"), ["limit", "33,554,432"]),
    (("box", "solve", "--dice", "2x6"), ["--dice", "NdS"]),
    (("box", "solve", "--dice", "1d20", "--one-die", "789-optional"), ["--one-die", "single die"]),
    (("box", "solve", "--one-die", "sum-lt-6-sometimes"), ["--one-die", "sum-lt-K"]),
    (("box", "solve", "--moves", "thai", "--dice", "3d6"), ["thai", "two dice"]),
    (("box", "solve", "--tie-break", "random"), ["--tie-break random", "fewest-tiles"]),
    (("box", "compare", "--policy", "optimal", "--policy", "greedy-high", "--tie-break", "low"),
     ["--tie-break low"]),
    (("box", "solve", "--out", ""), ["--out"]),
    (("box", "evaluate", "--policy", "table:"), ["file name"]),
]


@pytest.mark.parametrize("args, names", ERROR_CASES, ids=[" ".join(a) for a, _ in ERROR_CASES])
def test_bad_input_is_one_error_line(capsys, args, names):
    line = run_error(capsys, *args)
    for name in names:
        assert name in line, f"{name!r} not named in {line!r}"


@pytest.mark.parametrize("content, names", [
    ("a,b,c\n1,2,3\n", ["missing column", "open", "roll", "cover"]),
    ("open,dice,roll,cover\n1 2 3,2,7,3 4\n", ["line 2", "3,4", "1,2,3", "7"]),
    ("open,roll,cover\n1 2 3,7,3 4\n", ["missing column", "dice"]),
    ("open,dice,roll,cover\n1 2 3,2,6,\n", ["line 2", "may not be empty"]),
    ("open,dice,roll,cover\n1 2 13,2,7,3 4\n", ["line 2", "13"]),
], ids=["wrong-columns", "illegal-cover", "illegal-cover-no-dice", "empty-cover-with-legal-move", "bad-tile"])
def test_malformed_policy_csv_is_one_error_line(tmp_path, capsys, content, names):
    bad = tmp_path / "bad_policy.csv"
    bad.write_text(content)
    line = run_error(capsys, "box", "evaluate", "--tiles", "1-9", "--policy", f"table:{bad}")
    assert "bad_policy.csv" in line
    for name in names:
        assert name in line, f"{name!r} not named in {line!r}"


def test_error_keeps_files_already_in_out(tmp_path, capsys):
    """An error never deletes or truncates what an earlier run wrote to --out (results.py)."""
    out = tmp_path / "keep"
    run("box", "solve", "--out", out)
    (out / "notes.txt").write_text("mine\n")
    before = snapshot(out)
    assert "policy.csv" in before and "values.meta.json" in before
    for args in [("box", "solve", "--tiles", "21"),
                 ("box", "solve", "--objective", "beat"),
                 ("box", "evaluate", "--policy", "nope"),
                 ("box", "evaluate", "--policy", f"table:{tmp_path / 'missing.csv'}"),
                 ("box", "simulate", "--games", "0"),
                 ("box", "match", "--rounds", "2", "--elimination")]:
        run_error(capsys, *args, "--out", out)
        assert snapshot(out) == before, f"{' '.join(args)} changed files in --out"
    assert_no_temp_files(out)


def test_out_that_is_a_file_is_one_error_line(tmp_path, capsys):
    target = tmp_path / "a_file"
    target.write_text("do not touch\n")
    line = run_error(capsys, "box", "solve", "--out", target)
    assert "a_file" in line
    assert target.read_text() == "do not touch\n"


def test_main_success_exit_code_zero(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["box", "solve", "--tiles", "4", "--format", "json"])
    out, err = capsys.readouterr()
    assert exc.value.code == 0
    assert json.loads(out)["states"] == 16


def test_bare_commands_show_help(capsys):
    """`ludolab` and `ludolab box` alone print the help, not an error."""
    for args in ([], ["box"]):
        with pytest.raises(SystemExit) as exc:
            main(args)
        assert exc.value.code == 0
        out = capsys.readouterr().out
        assert "Usage:" in out and "Commands:" in out and "\n" in out.strip()


def test_advise_flags_every_tied_best_move():
    """STB-O3: moves of equal value are all marked best, and the advice names them."""
    res = CliRunner().invoke(cli, ["box", "advise", "--objective", "beat", "--target", "3", "--open", "1,2,3,4",
                                   "--roll", "5", "--format", "json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert [r["best"] for r in d["rows"]] == [True, True]
    assert "as good" in d["advice"]


def test_tiles_with_spaces():
    """STB-1: tiles may be separated by spaces."""
    res = CliRunner().invoke(cli, ["box", "solve", "--tiles", "1 2 3", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["rules"]["tiles"] == [1, 2, 3]


def test_open_tiles_with_spaces_and_bad_separators(capsys):
    """--open reads tiles separated by commas or spaces; an empty item is refused."""
    res = CliRunner().invoke(cli, ["box", "advise", "--open", "1 2 3 4 5", "--roll", "7", "--objective", "shut",
                                   "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["rows"][0]["cover"] == [3, 4]
    line = run_error(capsys, "box", "advise", "--open", "1,2,,3", "--roll", "3")
    assert "1,2,,3" in line


def test_policy_csv_row_with_extra_fields_is_refused(tmp_path, capsys):
    """A row with more fields than the header (tiles written with commas) is refused,
    not shifted into other columns."""
    bad = tmp_path / "wide.csv"
    bad.write_text("open,dice,roll,cover\n4,5,9,2,9,9\n")
    line = run_error(capsys, "box", "evaluate", "--policy", f"table:{bad}")
    assert "line 2" in line and "6 fields" in line and "spaces" in line


def test_policy_sidecar_without_rules_record_is_refused(tmp_path, capsys):
    """A .meta.json beside a table must hold a rules record (or be absent)."""
    out = tmp_path / "t"
    assert CliRunner().invoke(cli, ["box", "solve", "--out", str(out)]).exit_code == 0
    for text in ("[1, 2]", '{"rules": "x"}', "not json"):
        (out / "policy.meta.json").write_text(text)
        line = run_error(capsys, "box", "evaluate", "--policy", f"table:{out / 'policy.csv'}")
        assert "policy.meta.json" in line and "delete it" in line


def test_out_under_a_file_is_refused_before_any_work(tmp_path, capsys):
    """--out that cannot be created is refused up front: nothing is printed on stdout."""
    blocker = tmp_path / "afile"
    blocker.write_text("keep me")
    line = run_error(capsys, "box", "simulate", "--games", "100", "--out", str(blocker / "sub"))
    assert "--out" in line and "under a file" in line
    assert blocker.read_text() == "keep me"


# ------------------------------------------------------- output that machines read
NUMBER_TEXT = __import__("re").compile(r"\s*[-+]?\d+([.,/+]\d+)*\s*")

JSON_COMMANDS = [
    ("box", "solve", "--tiles", "4", "--exact"),
    ("box", "advise", "--open", "1,2,3,9", "--roll", "9"),
    ("box", "advise", "--open", "1,2,3"),
    ("box", "advise", "--open", "4", "--roll", "3"),
    ("box", "advise", "--moves", "thai", "--open", "1,2,3,4,5", "--roll", "3+4"),
    ("box", "evaluate", "--tiles", "4"),
    ("box", "simulate", "--tiles", "4", "--games", "1", "--quiet"),
    ("box", "compare", "--tiles", "4", "--games", "50", "--quiet"),
    ("box", "variants", "--tiles", "5", "--top", "3"),
    ("box", "variants", "--tiles", "5", "--moves", "thai", "--top", "3"),
    ("box", "match", "--tiles", "3"),
    ("box", "match", "--tiles", "3", "--rounds", "2", "--games", "10", "--quiet"),
]


def _strings(value, where="$"):
    """Every (path, string) inside a JSON value."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, f"{where}[{i}]")


@pytest.mark.parametrize("args", JSON_COMMANDS, ids=[" ".join(a[1:3]) for a in JSON_COMMANDS])
def test_json_uses_json_types(args):
    """Tiles are lists, rolls and counts numbers, the rules an object: no number is written as text."""
    d = run_json(*args)
    for path, text in _strings(d):
        assert not NUMBER_TEXT.fullmatch(text), f"{' '.join(args)}: {path} is the text {text!r}"
    if isinstance(d, dict) and "rules" in d:
        assert isinstance(d["rules"], dict) and d["rules"]["game"] == "box"
        assert all(isinstance(t, int) for t in d["rules"]["tiles"])


def test_json_undefined_ci_is_null():
    """One simulated game: the CI of the mean is undefined and printed as null, not NaN."""
    d = run_json("box", "simulate", "--tiles", "4", "--games", "1", "--quiet")
    assert d["mean_score_ci_low"] is None and d["mean_score_ci_high"] is None


def test_json_variants_disagreements_tiles_and_rolls():
    """STB-8: the disagreements name the tiles as lists and the roll as a total; the rules carry no scoring."""
    d = run_json("box", "variants", "--tiles", "6", "--top", "5")
    assert "score" not in d["rules"]
    for r in d["disagreements"]:
        assert isinstance(r["roll"], int)
        assert sum(r["cover_a"]) == sum(r["cover_b"]) == r["roll"]
        assert set(r["cover_a"]) <= set(r["open"]) and set(r["cover_b"]) <= set(r["open"])


def test_json_advise_no_move_and_dice_choice():
    """STB-7: no legal move prints the open tiles as a list and an empty list of rows;
    STB-6: before the roll the best dice count is a number."""
    d = run_json("box", "advise", "--open", "1,2", "--roll", "12")
    assert d["open"] == [1, 2] and d["roll"] == 12 and d["rows"] == []
    d = run_json("box", "advise", "--open", "1,2,3")
    assert d["dice"] == d["rows"][0]["dice"] and d["dice"] in (1, 2)


def test_table_output_keeps_tiles_as_text():
    """The table for people still writes tiles as 3,4."""
    out = run("box", "advise", "--open", "1,2,3,4,5", "--roll", "7", "--objective", "shut").stdout
    assert "open       1,2,3,4,5" in out and "cover 3,4" in out and "[" not in out


@pytest.mark.parametrize("args, holds", [
    (("box", "variants", "--tiles", "4"), "cost matrix"),
    (("box", "evaluate", "--tiles", "4"), "score distribution"),
    (("box", "advise", "--open", "1,2,3", "--roll", "3"), "legal moves"),
    (("box", "match", "--tiles", "3"), "seats"),
    (("box", "compare", "--tiles", "4", "--games", "50", "--quiet"), "comparison"),
    (("books", "accuracy", "--hands", "200", "--quiet"), "overall"),
])
def test_csv_says_which_table_it_holds(args, holds):
    """A command with more than its CSV table says on stderr which table the CSV holds."""
    result = CliRunner().invoke(cli, [*args, "--format", "csv"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert holds in result.stderr and "note:" in result.stderr
    assert "note:" not in result.stdout
    assert len(pd.read_csv(io.StringIO(result.stdout))) > 0


@pytest.mark.parametrize("group, allowed", [("books", "accuracy, advise, compare"), ("box", "advise, card, compare"),
                                            ("shelf", "compare, deck, ladder, score"), ("beverbende", "compare, ladder, simulate, sweep")])
def test_unknown_command_of_a_game_lists_its_commands(capsys, group, allowed):
    line = run_error(capsys, group, "acuracy")
    assert "unknown command 'acuracy'" in line and allowed in line


def test_unknown_option_lists_the_options_of_the_command(capsys):
    line = run_error(capsys, "books", "simulate", "--game", "5")
    assert "no such option --game (did you mean --games?)" in line and "--seed" in line and "--games" in line


def test_precision_only_where_a_run_has_a_main_metric(capsys):
    """The accuracy study has no single main metric: it is not offered --precision at all."""
    line = run_error(capsys, "books", "accuracy", "--precision", "0.1")
    assert "no such option --precision" in line and "--hands" in line


def test_csv_of_one_record_has_no_note():
    result = CliRunner().invoke(cli, ["box", "simulate", "--games", "100", "--quiet", "--format", "csv"])
    assert result.exit_code == 0 and result.stderr == ""


# ------------------------------------------------------- messages in the game's terms
@pytest.mark.parametrize("args, want, unwanted", [
    # two dice cannot make 1: the message speaks of two dice, not of one die
    (("--open", "1,2,3", "--roll", "1", "--dice", "2"), ["two dice", "2..12", "1"], ["one die"]),
    # one die cannot make 9
    (("--open", "1,2,3", "--roll", "9", "--dice", "1"), ["one die", "1..6", "9"], ["two dice"]),
    # the one-die rule never: one die is never allowed
    (("--open", "1,2,3", "--roll", "3", "--one-die", "never", "--dice", "1"),
     ['"never"', "one die is never allowed"], ["allows only", "never allows"]),
    # 789-optional with 7 open: two dice until every tile of 7 or more is covered
    (("--open", "1,2,7", "--roll", "1"), ['"789-optional"', "two dice", "7 or more", "2..12"], ["allows only"]),
    # le6-forced with 1,2 open: one die is compulsory, so two dice cannot be used
    (("--open", "1,2", "--roll", "3", "--one-die", "le6-forced", "--dice", "2"),
     ['"le6-forced"', "one die", "total 6 or less"], ["allows only"]),
    # 789-forced with no tile of 7 or more: one die, which cannot make 8
    (("--open", "1,2,3", "--roll", "8", "--one-die", "789-forced"), ['"789-forced"', "one die cannot make 8", "1..6"],
     []),
    # thai: faces and dice count disagree; the library does not speak of flags
    (("--moves", "thai", "--open", "1,2,3,4", "--roll", "3+4", "--dice", "1"), ["two dice", "not one die"], ["--dice"]),
], ids=["two-dice-1", "one-die-9", "never-one-die", "789-two-dice", "le6-forced-one-die", "789-forced-8", "thai"])
def test_roll_messages_in_the_games_terms(capsys, args, want, unwanted):
    """STB-2, STB-5, STB-6: an impossible roll is explained with the right number of dice and the rule's words."""
    line = run_error(capsys, "box", "advise", *args)
    for w in want:
        assert w in line, f"{w!r} not in {line!r}"
    for u in unwanted:
        assert u not in line, f"{u!r} in {line!r}"


def _policy_table(tmp_path):
    out = tmp_path / "solved"
    run("box", "solve", "--tiles", "5", "--out", out)
    return out / "policy.csv"


def test_policy_table_with_byte_order_mark_is_read(tmp_path):
    """A table saved by a spreadsheet program starts with a UTF-8 byte-order mark: it reads as without."""
    plain = _policy_table(tmp_path)
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    want = run_json("box", "evaluate", "--tiles", "5", "--policy", f"table:{plain}")
    got = run_json("box", "evaluate", "--tiles", "5", "--policy", f"table:{bom}")
    assert got["mean_score"] == want["mean_score"] and got["p_shut"] == want["p_shut"]


@pytest.mark.parametrize("sep", [";", "\t"], ids=["semicolons", "tabs"])
def test_policy_table_with_semicolons_or_tabs_is_read(tmp_path, sep):
    """Spreadsheet programs in many languages separate columns with semicolons (or tabs): such a table
    plays exactly like the comma-separated one."""
    plain = _policy_table(tmp_path)
    df = pd.read_csv(plain, dtype=str, keep_default_na=False)
    other = tmp_path / "other.csv"
    df.to_csv(other, sep=sep, index=False, encoding="utf-8-sig")
    want = run_json("box", "evaluate", "--tiles", "5", "--policy", f"table:{plain}")
    got = run_json("box", "evaluate", "--tiles", "5", "--policy", f"table:{other}")
    assert got["mean_score"] == want["mean_score"] and got["sd_score"] == want["sd_score"]


def test_policy_table_with_another_separator_is_refused(tmp_path, capsys):
    """A table whose columns are split by something else is refused naming the separator expected."""
    bad = tmp_path / "pipes.csv"
    bad.write_text("open|dice|roll|cover\n1 2 3|2|5|2 3\n")
    line = run_error(capsys, "box", "evaluate", "--policy", f"table:{bad}")
    assert "pipes.csv" in line and "commas" in line and "open,dice,roll,cover" in line
    assert "missing column" not in line


@pytest.mark.parametrize("command", [("report", "--quick", "--quiet"), ("report", "--quick"),
                                     ("box", "simulate", "--games", "100")])
def test_out_that_cannot_be_created_is_refused_before_any_work(tmp_path, capsys, command):
    """--out whose folder cannot be made (here a name longer than any file system allows) is refused
    up front: one error line, nothing printed before it, nothing left behind."""
    target = tmp_path / ("x" * 300) / "sub"
    line = run_error(capsys, *command, "--out", str(target))
    assert "--out" in line
    assert list(tmp_path.iterdir()) == []


def test_csv_record_uses_numbers_for_counts():
    """`box solve --format csv`: the dice count at the start is a number, the exact value p/q."""
    out = run("box", "solve", "--tiles", "5", "--exact", "--format", "csv").stdout
    df = pd.read_csv(io.StringIO(out))
    assert int(df["start_dice"].iloc[0]) == 2 and int(df["states"].iloc[0]) == 32
    assert Fraction(df["value_exact"].iloc[0]) == pytest.approx(df["value"].iloc[0], rel=1e-12)


def test_out_sidecars_describe_their_own_table(tmp_path):
    """Each --out sidecar says how its table was made: exact tables carry no seed, a comparison names its
    policies, a multi-round match its rounds and policy, variants the scorings its rows and columns span."""
    runs = {
        "solve": (("box", "solve", "--tiles", "4"), "values"),
        "evaluate": (("box", "evaluate", "--tiles", "4", "--policy", "greedy-high"), "evaluate_distribution"),
        "compare": (("box", "compare", "--tiles", "4", "--policy", "optimal", "--policy", "random",
                     "--games", "500", "--quiet"), "compare"),
        "rounds": (("box", "match", "--tiles", "4", "--rounds", "3", "--games", "500", "--quiet"), "match_rounds"),
        "variants": (("box", "variants", "--tiles", "4"), "variants_matrix"),
        "match": (("box", "match", "--tiles", "4"), "match"),
    }
    meta = {}
    for key, (args, stem) in runs.items():
        run(*args, "--out", tmp_path / key)
        meta[key] = read_meta(tmp_path / key / f"{stem}.meta.json")
    for key in ("solve", "evaluate", "variants", "match"):
        assert meta[key]["method"] == "exact" and "seed" not in meta[key], key
    assert meta["solve"]["policy"] == "optimal" and meta["solve"]["objective"] == "min E[score]"
    assert meta["evaluate"]["policy"] == "greedy-high"
    assert meta["compare"]["policies"] == ["optimal (min E[score])", "random"]
    assert meta["compare"]["paired_against"] == "optimal (min E[score])" and meta["compare"]["seed"] == 0
    assert meta["rounds"]["rounds"] == 3 and meta["rounds"]["policy"] == "optimal (min E[score])"
    assert "threshold" not in meta["rounds"]
    assert "score" not in meta["variants"]["rules"]
    assert meta["variants"]["rules_vary"]["score"]["values"] == ["sum", "count", "digital", "all-or-nothing"]


@pytest.mark.parametrize("argv_head,name", [(["books", "score"], "hand record"), (["shelf", "score"], "tableau")])
@pytest.mark.parametrize("content,words", [(b"\x82\xff\x00binary", "not UTF-8 text"),
                                           (b"[" * 100_000, "nests too deeply"),
                                           (b"{not json", "not valid JSON")])
def test_malformed_json_files_are_one_error_line(tmp_path, capsys, argv_head, name, content, words):
    """A binary, deeply nested or broken JSON file is refused in one line naming the file (exit 2)."""
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    line = run_error(capsys, *argv_head, str(bad))
    assert words in line and name in line


def test_show_refuses_a_damaged_sidecar(tmp_path, capsys):
    """ludolab show: a sidecar that is not JSON, or not an object, is one error line; a table without
    a recorded command line cannot be rerun (exit 2)."""
    out = tmp_path / "p"
    run("box", "solve", "--out", str(out))
    (out / "policy.meta.json").write_text("{not json")
    assert "not valid JSON" in run_error(capsys, "show", str(out / "policy.csv"))
    (out / "values.meta.json").write_text("[1, 2]")
    assert "no provenance record" in run_error(capsys, "show", str(out / "values.csv"))
    bare = tmp_path / "bare.csv"
    bare.write_text((out / "values.csv").read_text())
    res = CliRunner().invoke(cli, ["show", str(bare), "--rerun"])
    assert res.exit_code == 2 and "no command line" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize("argv", [["box", "advise", "--open", "1,2,3,4,5,6,7,8,9", "--roll", "8"],
                                  ["box", "advise", "--open", "1,2,3"], ["box", "solve"]])
def test_answers_at_the_table_import_no_pandas_or_matplotlib(argv):
    """`box advise` and `box solve` print a few lines: a fresh interpreter running them loads
    neither pandas, pyarrow nor matplotlib (their import costs more than the answer)."""
    import subprocess
    import sys

    code = ("import sys, json; from ludolab.analysis.cli import main\n"
            "try:\n    main(json.loads(sys.argv[1]))\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "print(sorted(m for m in ('pandas', 'pyarrow', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, json.dumps(argv)], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip().splitlines()[-1] == "[]", out
