"""The Shut the Box report reads as advice first: findings computed from the tables, every column
defined, charts read at a glance (rules in the title, series that can be told apart, legible text,
a legend for every colour).  The whole report is checked in tests/test_report_bench.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ludolab.analysis import box as ba
from ludolab.analysis import box_plots as plots
from ludolab.analysis import box_report as rep
from ludolab.sim import box
from ludolab.stdlib.box import BoxRules

RULES = BoxRules()
SMALL = BoxRules(tiles=tuple(range(1, 7)))


def _texts(fig):
    return [t for t in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "get_text"))
            if t.get_text().strip()]


def _check_legible(fig, rules):
    """No text below 8 points; the rules' tile set named in the figure title."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    fig.canvas.draw()
    small = [(t.get_text(), t.get_fontsize()) for t in _texts(fig) if t.get_fontsize() < 8]
    assert not small, small[:5]
    title = fig._suptitle.get_text() if fig._suptitle is not None else fig.axes[0].get_title()
    assert rules.label().split(", ")[0] in title, title  # "tiles 1-9"


@pytest.fixture(scope="module")
def catalogue_dist():
    return ba.score_distributions(ba.catalogue(RULES))


def test_columns_note_defines_every_column_or_refuses():
    df = pd.DataFrame({"p_play": [1.0], "p_meet": [0.5], "loss": [2.0], "p_win_ci_low": [0.1]})
    note = rep.columns_note(df)
    for c in df.columns:
        assert f"`{c}`" in note
    assert "lower 95% confidence limit of `p_win`" in note
    with pytest.raises(KeyError, match="no_such_column"):
        rep.columns_note(pd.DataFrame({"no_such_column": [1]}))
    assert "mine" in rep.columns_note(pd.DataFrame({"x": [1]}), {"x": "mine"})


def test_merge_identical_names_coinciding_series_together():
    m = plots.merge_identical({"a": [1, 2], "b": [1, 2], "c": [1, 3]})
    assert list(m) == ["a = b", "c"]


def test_score_distributions_split_close_policies_from_far(catalogue_dist):
    ref, close, far = plots.split_close(catalogue_dist)
    assert ref.startswith("optimal")
    assert {"greedy-high", "fewest-tiles", "most-options"} <= set(close)
    assert {"most-tiles", "random"} <= set(far)
    fig = plots.fig_score_distributions(catalogue_dist, rules=RULES)
    assert len(fig.axes) == 2  # (a) the distributions, (b) differences from optimal
    b = fig.axes[1]
    labels = [ln.get_label() for ln in b.get_lines()]
    assert sum(lab.split(" (")[0] in close for lab in labels) == len(close)
    _check_legible(fig, RULES)
    one = plots.fig_score_distributions(catalogue_dist[catalogue_dist["policy"] == ref])
    assert len(one.axes) == 1


def test_beat_curve_chart_draws_differences_and_merges_equal_rules():
    curve = ba.beat_curve(RULES, targets=range(1, 21))
    fig = plots.fig_beat_curve(curve, rules=RULES)
    assert len(fig.axes) == 3
    labels = [ln.get_label() for ln in fig.axes[1].get_lines()]
    # le6-optional and le6-forced give the same curve: drawn once, named together
    assert any(" = " in lab for lab in labels), labels
    assert "never (reference)" in labels
    _check_legible(fig, RULES)


def test_policy_map_is_legible_with_a_legend_for_every_colour():
    grid = plots.policy_map_frame(box.solve(SMALL))
    fig = plots.fig_policy_map(grid, rules=SMALL)
    assert len(fig.axes) == 2  # two dice, one die
    assert fig.legends and len(fig.legends[0].get_texts()) >= 4
    _check_legible(fig, SMALL)
    # each panel shows only its own dice count: no "-" (not rolled) cells drawn
    cells = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert "-" not in cells and "x" in cells
    # a ruleset without a one-die rule: one panel
    g2 = plots.policy_map_frame(box.solve(SMALL.replace(one_die="never")))
    assert len(plots.fig_policy_map(g2).axes) == 1


def test_other_charts_name_their_rules():
    m, _ = ba.variants_matrix(RULES)
    fig = plots.fig_variants_matrix(m, rules=RULES)
    assert len(fig.axes) == 2  # the map and its colour bar
    _check_legible(fig, RULES)
    mt = ba.match_table(RULES, (2, 3))
    _check_legible(plots.fig_seat_wins(mt, rules=RULES), RULES)
    pol = box.solve(RULES).policy()
    ev = box.evaluate(pol)
    _check_legible(plots.fig_mc_distribution(ev.distribution(), ev.distribution(), 1000, rules=RULES), RULES)


def test_findings_are_computed_from_the_tables():
    summ = ba.policy_summary(ba.catalogue(RULES))
    ov = ba.optimal_values((9,), ("never", "789-optional", "789-forced"))
    curve = ba.beat_curve(RULES, targets=range(1, 16), one_die_rules=(RULES.one_die,))
    mt = ba.match_table(RULES, (2, 3))
    matrix, _ = ba.variants_matrix(RULES)
    lines = rep.findings(rules=RULES, summary=summ, optimal=ov, curve=curve, seats=mt, variants=matrix,
                         extra=["- extra"])
    text = "\n".join(lines)
    assert lines[0].startswith("- **") and lines[1] == "- - extra"
    opt = summ.iloc[0]
    fewest = summ.set_index("policy").loc["fewest-tiles"]
    assert f"{fewest['mean_score'] - opt['mean_score']:.2f} points per turn" in text
    never = ov.set_index("one_die").loc["never"]
    assert f"{100 * never['max_p_shut']:.1f}%" in text
    assert np.isclose(mt.loc[0, "p_win"], float(text.split("first player wins ")[1].split("%")[0]) / 100, atol=5e-4)


def test_rule_text_reads_as_prose():
    words = ["Cover as few tiles as possible", "then leave the lowest total open; any tie left: cover the highest",
             "When one die is allowed, roll it."]
    assert rep.rule_text(words) == ("Cover as few tiles as possible, then leave the lowest total open; any tie left: "
                                    "cover the highest. When one die is allowed, roll it.")
    assert rep.rule_text([]) == ""


def test_findings_take_rules_of_thumb_foresight_and_match_play():
    """Findings from the later analyses: numbers are read from the tables handed in (stand-in tables here)."""
    summ = ba.policy_summary(ba.catalogue(RULES))
    ov = ba.optimal_values((9,), ("never", "789-optional"))
    curve = ba.beat_curve(RULES, targets=range(1, 6), one_die_rules=(RULES.one_die,))
    mt = ba.match_table(RULES, (2,))
    matrix, _ = ba.variants_matrix(RULES)
    thumbs = pd.DataFrame([{"rule": "a > b; dice cover", "keys": 2, "mean_score": 11.25, "p_shut": 0.0751,
                            "cost": 0.2408}])
    mistakes = pd.DataFrame([{"open": "1,4,6", "dice": 1, "roll": None, "rule_plays": "one die",
                              "instead": "two dice", "loss": 1.1547, "how_often": 0.01, "expected_loss": 0.0115}])
    skill = pd.DataFrame([{"player": "random", "p_shut": 0.02, "mean_score": 20.4, "share_of_p_shut": 0.0,
                           "share_of_mean": 0.0},
                          {"player": "optimal for the mean score", "p_shut": 0.0967, "mean_score": 11.0,
                           "share_of_p_shut": 0.54, "share_of_mean": 0.77},
                          {"player": "foresight", "p_shut": 0.1619, "mean_score": 8.26, "share_of_p_shut": 1.0,
                           "share_of_mean": 1.0}])
    gain = pd.DataFrame([{"match": "1 round", "seat": 2, "p_win_lowest": 0.478, "p_win_alone": 0.482,
                          "gain": 0.004}, {"match": "3 rounds", "seat": 2, "p_win_lowest": 0.489,
                                           "p_win_alone": 0.4915, "gain": 0.0025}])
    moves = pd.DataFrame([{"seat": 2, "lead": -6, "open": "1,2,3,4,5,6,7,9", "roll": "8", "cover_lowest": "1,7",
                           "cover_match": "3,5", "p_meet": 0.0193, "gain": 0.0035, "weighted_gain": 6.8e-05}])
    lines = rep.findings(rules=RULES, summary=summ, optimal=ov, curve=curve, seats=mt, variants=matrix,
                         match_gain=gain, match_moves=moves, thumbs=thumbs, thumb_words=["Do a", "then b"], thumb_mistakes=mistakes,
                         skill=skill)
    text = "\n".join(lines)
    assert lines[0].startswith("- **A rule of thumb") and "Do a, then b." in lines[0]
    assert "costs 0.24 points" in lines[0] and "1,4,6 open, before rolling" in lines[0]
    assert "16.2%" in text and "77% of the way" in text
    assert "0.40 percentage points" in text and "over 3 rounds it is worth 0.25 points" in text
    assert "6 points behind as seat 2 with two rounds to play, 1,2,3,4,5,6,7,9 open and a roll of 8: cover 3,5 " \
           "instead of 1,7" in text


def test_one_die_rule_for_1_to_9_is_exact_and_its_own_finding():
    """Issue 16: "take the one die" read as "always"; the rule says when, measured exactly against optimal play."""
    dec = ba.one_die_decisions(RULES)
    rules_k = ba.one_die_total_rules(RULES)
    assert len(dec) == 63 and int((dec["dice"] == 2).sum()) == 49  # 7, 8, 9 covered: 1-6 open, 63 positions
    assert (dec["gain"] >= 0).all()
    best = rules_k.loc[rules_k["cost"].idxmin()]
    assert int(best["max_total"]) == 6 and int(best["wrong"]) == 1  # only 1,2,4 (total 7) wants one die too
    opt = box.evaluate(box.solve(RULES).policy()).mean()
    assert np.isclose(best["mean_score"] - opt, best["cost"]) and 0 < best["cost"] < 0.02
    # one die whenever allowed is worse than never taking it
    assert rules_k["cost"].iloc[-1] > rules_k["cost"].iloc[0] > 0
    f = rep.one_die_finding(dec, rules_k)
    assert f.kind == "rule" and "total 6 or less" in f.text.replace("total 6 or less", "total 6 or less")
    assert f.quotes["max_total"].value == 6 and f"{best['cost']:.3f} points per turn" in f.text
    assert "1,2,4 open" in f.text and f"{rules_k['cost'].iloc[-1]:.2f} points" in f.text
    assert "in 14 of the 63 positions" in f.text


def test_one_die_option_finding_does_not_say_take_it_always():
    summ = ba.policy_summary(ba.catalogue(RULES))
    ov = ba.optimal_values((9,), ("never", "789-optional"))
    curve = ba.beat_curve(RULES, targets=range(1, 6), one_die_rules=(RULES.one_die,))
    mt = ba.match_table(RULES, (2,))
    matrix, _ = ba.variants_matrix(RULES)
    dec, rk = ba.one_die_decisions(RULES), ba.one_die_total_rules(RULES)
    gain = pd.DataFrame([{"match": "1 round", "seat": s, "p_win_lowest": w, "p_win_alone": w, "gain": 0.0,
                          "p_win_all": w, "p_tie_all": 0.0405} for s, w in ((1, 0.4772), (2, 0.4823))])
    text = "\n".join(rep.findings(rules=RULES, summary=summ, optimal=ov, curve=curve, seats=mt, variants=matrix,
                                  match_gain=gain, one_die=dec, one_die_rules=rk))
    assert "Take the one die" not in text and "worth having" in text and "one die at a total of 6" in text
    # the two "optimal" chances to shut are named apart
    opt = summ.iloc[0]
    od = ov.set_index("one_die").loc[RULES.one_die]
    assert f"lowest expected score shuts the box only {100 * opt['p_shut']:.1f}%" in text
    assert f"aimed at shutting it, {100 * od['max_p_shut']:.1f}%" in text
    # the one-round seat figures and the match-play one-round rows are explained together
    assert "47.7%" in text and "48.2%" in text and "a shut box scores 0" in text


def test_mean_rounds_is_the_game_length():
    assert "length" in rep.COLUMNS["mean_rounds"] and "took part" not in rep.COLUMNS["mean_rounds"]


def test_one_die_chart_is_legible():
    fig = plots.fig_one_die_decisions(ba.one_die_decisions(RULES), 6, rules=RULES)
    _check_legible(fig, RULES)


def test_report_beat_curve_drops_the_overlapping_panel():
    curve = ba.beat_curve(RULES, targets=range(1, 21))
    fig = plots.fig_beat_curve(curve, rules=RULES, differences=False)
    assert len(fig.axes) == 2 and fig.axes[1].get_title().startswith("(b) playing for T")
    _check_legible(fig, RULES)
