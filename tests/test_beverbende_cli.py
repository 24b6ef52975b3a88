"""``ludolab beverbende`` commands, the analyses behind them, the report section and the bench entry.

Tiny N throughout; clause ids refer to seeds/beverbende.md.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from ludolab.analysis import beverbende as A
from ludolab.analysis.cli import cli
from ludolab.stdlib.beverbende import BeverbendeRules
from ludolab.stdlib.errors import LudolabError


def run(*args):
    result = CliRunner().invoke(cli, ["beverbende", *[str(a) for a in args]], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return getattr(result, "stdout", result.output)


def fails(*args):
    result = CliRunner().invoke(cli, ["beverbende", *[str(a) for a in args]])
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.strip().splitlines() if ln.strip()]
    assert lines[-1].startswith("Error:"), result.output
    assert "Traceback" not in result.output
    return lines[-1]


def test_simulate_json_has_rounds_mean_score_ci_and_seats():  # BVB-10
    out = json.loads(run("simulate", "--rounds", 500, "--players", 3, "--format", "json", "--quiet"))
    assert out["rounds"] == 500
    lo, hi = out["mean_score_ci"]
    assert lo <= out["mean_score"] <= hi
    assert out["mean_score_ci_low"] == lo and out["mean_score_ci_high"] == hi
    assert len(out["seats"]) == 3 and all(isinstance(s["mean_score"], float) for s in out["seats"])
    assert np.isclose(np.mean([s["mean_score"] for s in out["seats"]]), out["mean_score"])
    assert isinstance(out["capped_rounds"], int)


def test_simulate_one_round_has_undefined_ci():
    out = json.loads(run("simulate", "--rounds", 1, "--format", "json"))
    assert out["mean_score_ci"] == [None, None]


def test_simulate_same_seed_same_output():
    a = run("simulate", "--rounds", 300, "--seed", 5, "--format", "json")
    b = run("simulate", "--rounds", 300, "--seed", 5, "--format", "json")
    c = run("simulate", "--rounds", 300, "--seed", 6, "--format", "json")
    assert a == b and a != c


def test_simulate_per_seat_policies_and_options():  # BVB-7, BVB-12, BVB-13, BVB-15
    out = json.loads(run("simulate", "--rounds", 300, "--players", 2, "--policy", "random", "--policy",
                         "expected-value:margin=2", "--memory-loss", 0.2, "--scoring", "knocker-penalty",
                         "--exchange-specials", "--special", "swap=0", "--special", "peek=2", "--format", "json"))
    assert [s["policy"] for s in out["seats"]] == ["random", "expected-value(margin=2)"]
    assert out["rules"]["composition"][10] == 0 and out["rules"]["composition"][11] == 14
    assert out["rules"]["memory_loss"] == 0.2 and out["rules"]["exchange_specials"] is True


def test_simulate_whole_games():  # BVB-14
    out = run("simulate", "--rounds", 100, "--players", 2, "--whole-games", "--format", "csv")
    df = pd.read_csv(pd.io.common.StringIO(out))
    assert list(df.seat) == [0, 1] and (df.games == 100).all()


def test_simulate_writes_tables_and_charts(tmp_path):
    run("simulate", "--rounds", 50, "--players", 3, "--out", tmp_path / "o", "--quiet")
    names = {p.name for p in (tmp_path / "o").iterdir()}
    assert "seats.csv" in names and "seats.meta.json" in names and "score_distribution.png" in names


def test_compare_is_paired_and_csv():
    out = run("compare", "--rounds", 400, "--policy", "threshold", "--policy", "threshold:knock=6", "--format",
              "csv")
    df = pd.read_csv(pd.io.common.StringIO(out))
    assert df.diff_vs_first[0] == 0
    assert df.diff_vs_first_ci_low[1] <= df.diff_vs_first[1] <= df.diff_vs_first_ci_high[1]


def test_sweep_and_heatmap(tmp_path):
    out = json.loads(run("sweep", "--rounds", 100, "--knock", "4:12:4", "--field-knock", "8,12", "--players-list",
                         "2,3", "--format", "json", "--out", tmp_path))
    assert len(out) == 3 * 2 * 2
    assert (tmp_path / "knock_heatmap.png").exists() and (tmp_path / "best_knock.csv").exists()


def test_tune_and_variants():  # BVB-15
    out = json.loads(run("tune", "--rounds", 100, "--passes", 1, "--players", 2, "--format", "json"))
    assert out["policy"].startswith("threshold:knock=") and "rows" in out
    var = json.loads(run("variants", "--rounds", 100, "--knock", "6,10", "--players-list", "2", "--format", "json"))
    assert {r["scoring"] for r in var} == {"sum", "knocker-penalty", "win-count"}


@pytest.mark.parametrize("args, words", [
    (("simulate", "--policy", "bogus"), "allowed are random, threshold, expected-value"),
    (("simulate", "--policy", "threshold:kn=3"), "allowed are knock"),
    (("simulate", "--policy", "threshold:knock"), "name=value"),
    (("simulate", "--policy", "threshold:knock=nan"), "from -1000 to 1000"),
    (("simulate", "--players", 3, "--policy", "random", "--policy", "random"), "3 times"),
    (("simulate", "--special", "joker=2"), "NAME=FACTOR"),
    (("simulate", "--deck", "1,2"), "13 counts"),
    (("simulate", "--deck", "1,1,1,1,1,1,1,1,1,1,1,1,1", "--players", 6), "number cards"),
    (("compare", "--seat", 3, "--players", 2), "seats are 0..1"),
    (("sweep", "--knock", "x"), "start:stop:step"),
    (("sweep", "--players-list", "7"), "2..6"),
    (("sweep", "--players-list", "1,9"), "--players-list"),
    (("simulate", "--players", 9), "9"),
    (("simulate", "--knock-penalty", 3), "applies only with --scoring knocker-penalty"),
    (("sweep", "--players", 3, "--players-list", "2,4"), "conflicts with --players-list"),
    (("variants", "--scoring", "win-count"), "every scoring"),
    (("simulate", "--table-format", "parquet"), "--out"),
])
def test_bad_input_is_one_line_exit_2(args, words):
    assert words in fails(*args)


# ------------------------------------------------------------------ analyses
def test_analyses_return_tidy_tables():
    rules = BeverbendeRules()
    assert len(A.policy_table((2, 3), rounds=200, seed=1)) == 6
    mc = A.memory_curve((0.0, 0.5), rounds=200, seed=1)
    assert set(mc.who) == {"one", "all"}
    # perfect memory is the same whoever "forgets" with q = 0
    assert mc[mc.memory_loss == 0].mean_score.nunique() == 1
    sv = A.special_values(3, rounds=200, seed=1)
    assert (sv[sv.factor == 1].change == 0).all()
    assert len(A.special_use(3, rounds=200, seed=1)) == 4
    fp = A.first_player((2,), rounds=200, seed=1)
    assert list(fp.seat) == [0, 1]
    gw = A.game_wins((2,), games=50, seed=1)
    assert len(gw) == 3
    best, hist = A.tune(rules.with_changes(players=2), rounds=100, passes=1, grid={"knock": [6, 10]})
    assert best["knock"] in (6.0, 10.0) and hist.chosen.sum() == 1


def test_knock_rules_start_from_the_fixed_rule_and_check_the_best_on_fresh_deals():  # BVB-9
    grid = {"knock": (0.0, 2.0), "late": (-1.0, 0.0), "unknown": (4.5, 6.0)}
    tried, chk = A.knock_rules({2: 10.0, 3: 8.0}, rounds=300, seed=1, check_seed=2, grid=grid)
    assert len(tried) == 2 * 8 and list(chk.rule[:3]) == ["fixed", "chosen", "chosen without the lap"]
    for P, d in tried.groupby("players"):
        first = d.iloc[0]
        assert (first.knock, first.late, first.unknown) == ({2: 10.0, 3: 8.0}[P], 0.0, 4.5)
        assert d.margin_diff_vs_first.iloc[0] == 0 and d.share_differs_from_first.iloc[0] == 0
        best = d.loc[d.margin.idxmin()]
        c = chk[chk.players == P].set_index("rule")
        assert (c.loc["chosen", "knock"], c.loc["chosen", "late"], c.loc["chosen", "unknown"]) == \
            (best.knock, best.late, best.unknown)
        assert c.loc["chosen without the lap", "late"] == 0 and np.isnan(c.loc["chosen without the lap", "lap_gain"])
        lo, hi = c.loc["chosen", "lap_gain_ci_low"], c.loc["chosen", "lap_gain_ci_high"]
        if c.loc["chosen", "late"]:
            assert lo <= c.loc["chosen", "lap_gain"] <= hi
        else:   # nothing to measure: the chosen rule has no lap part
            assert np.isnan(c.loc["chosen", "lap_gain"])
    # the chosen rule is played on fresh deals: its margin there is not the contest's
    assert not chk[chk.rule == "chosen"].margin.reset_index(drop=True).equals(
        tried.loc[tried.groupby("players").margin.idxmin()].margin.reset_index(drop=True))
    with pytest.raises(LudolabError, match="knock, late and unknown"):
        A.knock_rules({2: 10.0}, rounds=10, grid={"knock": (0.0,)})


def test_figures_have_titles_and_labels():
    sw = A.knock_sweep((2, 3), (4, 8), (6, 10), rounds=100, seed=1)
    knock = A.fig_knock_margin(sw, 6.0)
    assert len(knock.axes) == 1 and len(knock.axes[0].get_lines()) == 2 + 1  # a line per player count, and 0
    assert [t.get_text() for t in knock.axes[0].get_legend().get_texts()] == ["2 players", "3 players"]
    with pytest.raises(Exception, match="no field knocking at 7"):
        A.fig_knock_margin(sw, 7.0)
    for fig in (knock, A.fig_heatmap(sw), A.fig_memory(A.memory_curve((0.0, 1.0), rounds=100)),
                A.fig_specials(A.special_values(rounds=100)), A.fig_scores(BeverbendeRules(players=2), rounds=20)):
        ax = fig.axes[0]
        assert fig._suptitle is not None or ax.get_title()
        assert ax.get_xlabel() and ax.get_ylabel()


def test_report_section_quick(tmp_path):
    from ludolab.analysis.report import ReportContext

    ctx = ReportContext(tmp_path, True, 1)
    md = A.report_section(ctx)
    assert md.startswith("# Beverbende")
    for name in ("beverbende_knock.png", "beverbende_memory.png", "beverbende_specials.png"):
        assert (tmp_path / "charts" / name).exists()
    assert "95% CI" in md


def test_bench_records():
    rows = A.bench(2000, 0.05, lambda m: None)
    assert rows and rows[0]["unit"] == "rounds" and rows[0]["ratio"] > 1


def test_precision_runs_until_the_half_width_is_reached():
    out = json.loads(run("simulate", "--rounds", 200, "--precision", 0.2, "--format", "json", "--quiet"))
    lo, hi = out["mean_score_ci"]
    assert (hi - lo) / 2 <= 0.2 and out["rounds"] > 200 and out["precision_reached"] is True
    rows = json.loads(run("compare", "--rounds", 200, "--precision", 0.3, "--format", "json", "--quiet"))
    assert rows[0]["rounds"] > 200
    assert (rows[0]["mean_score_ci_high"] - rows[0]["mean_score_ci_low"]) / 2 <= 0.3


def test_report_section_findings_first_and_every_column_defined(tmp_path):
    """The section opens with plain findings, has one ``##`` sub-heading per question, and every table is
    preceded directly by a "Columns:" line defining exactly the columns it shows."""
    import re

    from ludolab.analysis.report import ReportContext

    md = A.report_section(ReportContext(tmp_path, True, 2026))
    lines = md.splitlines()
    assert lines[0] == "# Beverbende"
    heads = [ln for ln in lines if ln.startswith("#")]
    assert heads[1].startswith("## What a") and "should know" in heads[1]
    first_sub = lines.index(heads[1])
    assert all(not ln.strip() or ln.startswith("#") for ln in lines[1:first_sub])  # nothing before the findings
    findings = []
    for ln in lines[first_sub + 1:]:
        if ln.startswith("## "):
            break
        if ln.startswith("- "):
            findings.append(ln)
    assert len(findings) >= 5
    assert all(re.search(r"\d", f) for f in findings)
    assert sum("95% CI" in f for f in findings) >= 5
    assert len(heads) >= 10 and all(h.startswith("## ") for h in heads[1:])

    tables = 0
    for i, ln in enumerate(lines):
        if not (ln.startswith("| ") and i + 1 < len(lines) and lines[i + 1].startswith("|---")):
            continue
        tables += 1
        shown = [c.strip() for c in ln.strip("|").split("|")]
        prev = [p for p in lines[:i] if p.strip()]
        cols_line = prev[-1]
        assert cols_line.startswith("Columns: "), (shown, cols_line)
        defined = []
        for clause in cols_line[len("Columns: "):].rstrip(".").split("; "):
            name_part, sep, definition = clause.partition(" = ")
            assert sep and definition.strip(), clause
            defined += re.findall(r"`([^`]+)`", name_part)
        assert sorted(defined) == sorted(shown), (shown, defined)
    assert tables == 14  # with the stored deep runs of strong play at two players and at four (two tables)
    # the knock question answered twice: a different best value must be called noise, never left unexplained
    assert "within the noise" in md
    assert "With 2 players the best is" not in md


def test_compare_gives_the_paired_margin_difference():
    """The margin difference is paired (same deals): its mean is the difference of the margins and its CI is
    narrower than either margin's."""
    from ludolab.sim import beverbende as bev

    df = bev.compare(BeverbendeRules(players=3), ["threshold", "expected-value", "threshold"], "threshold", 600, 3)
    assert df.margin_diff_vs_first[0] == 0 and df.margin_diff_vs_first[2] == 0
    assert np.isclose(df.margin_diff_vs_first[1], df.margin[1] - df.margin[0])
    half = (df.margin_diff_vs_first_ci_high[1] - df.margin_diff_vs_first_ci_low[1]) / 2
    assert half < (df.margin_ci_high[1] - df.margin_ci_low[1]) / 2


def _pairs(diffs):
    from ludolab.analysis.findings import compare

    return pd.DataFrame([{"players": P, "policy": "expected-value", "against": "threshold", "margin_diff": d,
                          "margin_diff_ci_low": lo, "margin_diff_ci_high": hi,
                          "verdict": compare(d, lo, hi, "bev_margin"), "rounds": 1000}
                         for P, (d, lo, hi) in zip((2, 3, 4), diffs)])


def test_policy_finding_follows_the_paired_rule_not_overlapping_cis():
    """Issue 16: "equally good within the noise" rested on two separate CIs; the word now follows the paired CI."""
    better = A.policy_finding(_pairs([(-0.5, -0.7, -0.3)] * 3))
    assert better.verdict == "better" and better.title == "Play `expected-value`."
    assert "better at 3 of 3" not in better.text
    assert "better margin on the fresh deals at 3 of 3 player counts" in better.text
    # the leader is read from the fresh paired deals, not from which policy led the screening table
    worse = A.policy_finding(_pairs([(0.5, 0.3, 0.7)] * 3))
    assert worse.verdict == "worse" and worse.title == "Play `threshold`."
    assert "`threshold` has the better" in worse.text
    mixed = A.policy_finding(_pairs([(0.27, -0.05, 0.59), (-0.26, -0.51, -0.01), (0.26, 0.08, 0.44)]))
    assert "`threshold` has the better margin on the fresh deals at 2 of 3" in mixed.text
    assert better.quotes["margin_diff_4"].value == -0.5 and "-0.50 points a round" in better.text
    same = A.policy_finding(_pairs([(0.01, -0.1, 0.12)] * 3))
    assert same.verdict == "equally good" and "as good as" in same.text
    wide = A.policy_finding(_pairs([(0.01, -0.1, 0.12), (0.1, -0.5, 0.7), (-0.5, -0.7, -0.3)]))
    assert wide.verdict == "cannot tell yet" and "cannot tell yet" in wide.text


def test_tuned_finding_is_judged_by_paired_margin():
    chk = pd.DataFrame([{"policy": "threshold", "margin_diff_vs_first": 0.0, "margin_diff_vs_first_ci_low": 0.0,
                         "margin_diff_vs_first_ci_high": 0.0, "diff_vs_first": 0.0},
                        {"policy": "tuned", "margin_diff_vs_first": 0.05, "margin_diff_vs_first_ci_low": -0.4,
                         "margin_diff_vs_first_ci_high": 0.5, "diff_vs_first": -1.16}])
    assert "counting each card it has not seen as 6 instead of 4.5" in A.tuned_finding(chk, 6, 10, 6.0).text
    f = A.tuned_finding(chk, 6, 10)
    # its own score drops by 1.16, but the margin (what decides) cannot tell
    assert f.verdict == "cannot tell yet" and "does better" not in f.title and "+0.05" in f.text


def test_knock_finding_says_once_when_to_knock_and_what_the_penalty_does():
    r = pd.Series({"field_knock": 8.0, "best_knock": 8.0, "margin": -0.5, "margin_ci_low": -1.0,
                   "margin_ci_high": 0.0})
    rows = [(2, r, 8.0, 20.0), (4, r, 4.0, 12.0), (6, r, 4.0, 20.0)]
    var = pd.DataFrame([{"scoring": sc, "players": P, "knock": k, "knock_rate": 0.05 if k == 4 else 0.3,
                         "margin": 0.1 * k}
                        for sc in ("sum", "knocker-penalty") for P in (2, 4) for k in (4.0, 8.0, 12.0)])
    bv = pd.DataFrame([{"scoring": "sum", "players": 2, "best_knock": 8.0, "margin": -0.8},
                       {"scoring": "knocker-penalty", "players": 2, "best_knock": 4.0, "margin": 0.4},
                       {"scoring": "knocker-penalty", "players": 4, "best_knock": 8.0, "margin": -0.8}])
    f = A.knock_finding(rows, 10.0, bv, var)
    assert f.kind == "rule" and "about 8 to 12 or less" in f.text and f.text.count("knock when") == 1
    assert "lowest one tried, 4, with 2 players (seat 0 then knocks in 5% of rounds; margin +0.40 points a round " \
        "against +0.80 knocking at 8)" in f.text
    assert "hardly pays" in f.text
