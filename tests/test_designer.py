"""The report's designer section: rule variants on the same deals, each row's verdict and the findings chosen
by the report's comparison rule from the paired differences in the table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import toy_games as T
from ludolab.analysis import designer as D
from ludolab.analysis.findings import compare
from ludolab.sim import balance as BAL

KEYS = [k for k, *_ in D.MEASURES]


def _row(variant, **diffs):
    """A table row with every measure 0.5 and paired difference 0 (CI +-0.001) unless given as (d, lo, hi)."""
    r = {"game": "Toy", "players": 2, "variant": variant}
    for k in KEYS:
        d, lo, hi = diffs.get(k, (0.0, -0.001, 0.001))
        r.update({k: 0.5 + d, f"{k}_ci_low": 0.4 + d, f"{k}_ci_high": 0.6 + d,
                  f"{k}_diff": d, f"{k}_diff_ci_low": lo, f"{k}_diff_ci_high": hi})
    return r


def test_a_rows_verdict_names_the_measures_whose_paired_ci_excludes_zero():
    assert D.verdict(_row("longer", duration=(5.0, 4.0, 6.0), ties=(-0.1, -0.2, -0.05))) == "longer, fewer ties"
    assert D.verdict(_row("same")) == "the same as the rulebook"
    assert D.verdict(_row("wide", skill_expression=(0.01, -0.2, 0.2))) == "no difference shown yet"
    assert D.verdict(_row("rulebook"), reference=True) == "the rulebook"


def test_the_finding_is_the_largest_change_in_units_of_its_tolerance_and_quotes_the_table():
    table = pd.DataFrame([_row("rulebook"), _row("a", duration=(3.0, 2.0, 4.0)),    # 3 tolerances of 1 action
                          _row("b", ties=(0.05, 0.03, 0.07), lead_changes=(0.1, -0.5, 0.5))])  # 5 of 0.01
    (f,) = D.findings(table, "designer_toy")
    assert f.kind == "comparison" and "b: more ties than rulebook" in f.text
    assert f.verdict == compare(0.05, 0.03, 0.07, "ties", lower_is_better=False) == "better"
    assert f.quotes["diff"].value == table.loc[2, "ties_diff"] and f.quotes["diff"].table == "designer_toy"
    assert "+0.050" in f.text and f"{table.loc[2, 'ties']:.3f}" in f.text
    (none,) = D.findings(pd.DataFrame([_row("rulebook"), _row("a", ties=(0.0, -0.3, 0.3))]), "t")
    assert none.kind == "estimate" and "no variant is told apart" in none.text


def test_the_chart_writes_every_value_so_a_bar_of_length_0_still_reads():
    """The Beverbende rulebook has no shared wins: its ties bar has length 0 and showed nothing."""
    table = pd.DataFrame([_row("rulebook", ties=(-0.5, -0.5, -0.5)), _row("a", ties=(0.05, 0.03, 0.07))])
    table.loc[0, ["ties", "ties_ci_low", "ties_ci_high"]] = 0.0
    fig = D.fig_variants(table)
    ties = [ax for ax in fig.axes if ax.get_title() == "share of games with a shared win"]
    assert len(ties) == 1
    labels = sorted(t.get_text().strip() for t in ties[0].texts)
    assert labels == sorted(["0.000", f"{table.loc[1, 'ties']:.3f}"])
    # one precision per panel: 9.4 beside 11.2 is written 9.4, not 9.400
    table.loc[0, ["duration", "duration_ci_low", "duration_ci_high"]] = (9.4, 9.0, 9.8)
    table.loc[1, ["duration", "duration_ci_low", "duration_ci_high"]] = (11.2, 10.8, 11.6)
    table.loc[1, ["duration_diff", "duration_diff_ci_low", "duration_diff_ci_high"]] = (50.0, 49.0, 51.0)
    (actions,) = [ax for ax in D.fig_variants(table).axes if ax.get_title() == "actions per game"]
    assert sorted(t.get_text().strip() for t in actions.texts) == ["11.2", "9.4"]


def _runs(kind, games=400, seed=1):
    rules = np.array([kind], dtype=np.int64)
    return BAL.play_duplicate(T, rules, [(T.K_BEST, np.zeros(1))] * 2, games, seed, 8, (T.K_RANDOM, np.zeros(1)))


def test_paired_differences_of_the_same_deals():
    """The same game twice differs by exactly 0 with a zero-width CI; a coin toss against a game the first
    player always wins differs in seat edge by about 1 (the toy games of tests/toy_games.py)."""
    coin = _runs(T.COIN)
    for k in KEYS:
        assert BAL.paired_difference(coin, coin, k, lower=False) == (0.0, 0.0, 0.0), k
    first = _runs(T.FIRST)
    d, lo, hi = BAL.paired_difference(first, coin, "seat_edge", lower=False)
    assert lo <= d <= hi and lo > 0.8 and d == pytest.approx(1.0, abs=0.2)
    with pytest.raises(ValueError, match="paired measure"):
        BAL.paired_difference(coin, coin, "drama", lower=False)
    with pytest.raises(ValueError, match="same deals"):
        BAL.paired_difference(coin, _runs(T.COIN, games=10), "ties", lower=False)


def test_variant_study_of_a_game_on_the_same_deals():
    table = D.variant_study("beverbende", 16, 3)
    assert table["variant"].iloc[0] == "sum scoring" and table["verdict"].iloc[0] == "the rulebook"
    assert all(table[f"{k}_diff"].iloc[0] == 0 for k in KEYS)
    for r in table.to_dict("records")[1:]:
        assert r["verdict"] == D.verdict(r)
        for k in KEYS:
            assert r[f"{k}_diff_ci_low"] <= r[f"{k}_diff"] <= r[f"{k}_diff_ci_high"]


def test_the_reports_designer_section_reads_from_its_tables(quick_report):
    out, _ = quick_report
    md = (out / "report.md").read_text()
    sec = md[md.index("# For designers"):]
    from ludolab.stdlib import registry

    for g in registry.GAMES:
        table = pd.read_csv(out / "tables" / f"designer_{g.id}.csv")
        recs = table.to_dict("records")
        assert [D.verdict(r, i == 0) for i, r in enumerate(recs)] == list(table["verdict"])
        assert f"charts/designer_{g.id}.png" in sec
        (f,) = D.findings(table, f"designer_{g.id}")
        assert f.markdown() in sec
