"""The Beverbende findings are a pure function of the section's tables: given small tables built by hand (no
simulation), every finding is a Finding and every number it quotes is in the table it names."""

from __future__ import annotations

import pandas as pd

from findings_tables import check_change_caught, check_findings, with_ci
from ludolab.analysis import beverbende as A
from ludolab.analysis.findings import quote_problems


def _knock_rules_check(counts) -> pd.DataFrame:
    """A :func:`~ludolab.analysis.beverbende.knock_rules` check by hand: per ``(players, chosen's margin
    difference, its CI half-width, the lap's gain)`` the fixed rule, the chosen one (late -1, unknown 6) and the
    same without the lap (margin difference 0.03 weaker); the lap's CI half-width is 0.02."""
    rows = []
    for P, d, half, lap in counts:
        for rule, late, diff, h, g in (("fixed", 0.0, 0.0, 0.0, 0.0), ("chosen", -1.0, d, half, lap),
                                       ("chosen without the lap", 0.0, d + 0.03, half, 0.0)):
            rows.append({"players": P, "rule": rule, "knock": 10.0 if rule == "fixed" else 8.0, "late": late,
                         "unknown": 4.5 if rule == "fixed" else 6.0, "margin_diff_vs_first": diff,
                         "margin_diff_vs_first_ci_low": diff - h, "margin_diff_vs_first_ci_high": diff + h,
                         "lap_gain": g, "lap_gain_ci_low": g - (0.02 if rule == "chosen" else 0.0),
                         "lap_gain_ci_high": g + (0.02 if rule == "chosen" else 0.0),
                         "share_differs_from_first": 0.0 if rule == "fixed" else 0.6 + 0.01 * P})
    return pd.DataFrame(rows)


def _tables() -> dict:
    pt = with_ci(pd.DataFrame({"players": [4, 4], "policy": ["random", "threshold"], "margin": [6.5, -1.25]}),
                 0.3, "margin")
    pairs = with_ci(pd.DataFrame({"players": [2, 4], "policy": ["threshold", "threshold"],
                                  "against": ["expected-value"] * 2, "verdict": ["better", "better"],
                                  "margin_diff": [-0.75, -0.5]}), 0.2, "margin_diff")
    sw = pd.DataFrame({"players": [4] * 4, "field_knock": [12.0] * 4, "knock": [4.0, 8.0, 12.0, 16.0],
                       "margin": [-0.4, -1.1, -1.0, -0.2]})
    best = pd.Series({"players": 4, "field_knock": 12.0, "best_knock": 8.0, "margin": -1.1, "margin_ci_low": -1.3,
                      "margin_ci_high": -0.9})
    var = pd.DataFrame({"scoring": ["knocker-penalty"] * 3, "players": [4] * 3, "knock": [4.0, 8.0, 12.0],
                        "knock_rate": [0.05, 0.3, 0.6], "margin": [-0.6, -0.2, 0.4]})
    bv = with_ci(pd.DataFrame({"scoring": ["sum", "knocker-penalty"], "players": [4, 4], "best_knock": [8.0, 4.0],
                               "margin": [-1.0, -0.6]}), 0.2, "margin")
    fp = with_ci(pd.DataFrame({"players": [4] * 4, "seat": [0, 1, 2, 3], "mean_score": [14.5, 15.0, 15.25, 15.75]}),
                 0.3, "mean_score")
    mc = with_ci(pd.DataFrame({"memory_loss": [0.0, 0.5, 1.0], "who": ["one"] * 3, "mean_score": [14.5, 17.0, 19.5]}),
                 0.4, "mean_score")
    su = with_ci(pd.DataFrame({"ignores": ["nothing", "swap", "peek"], "mean_score": [14.5, 15.5, 15.0],
                               "diff_vs_first": [0.0, 1.0, 0.5]}), 0.2, "diff_vs_first")
    sv = with_ci(pd.DataFrame({"special": ["swap", "peek", "swap"], "factor": [0, 0, 2], "change": [-0.75, 0.25, 0.5]}),
                 0.3, "change")
    chk = with_ci(pd.DataFrame({"policy": ["threshold", "tuned"], "margin_diff_vs_first": [0.0, -0.2],
                                    "diff_vs_first": [0.0, 0.1]}), 0.1, "margin_diff_vs_first", "diff_vs_first")
    gw = with_ci(pd.DataFrame({"players": [2, 2, 4], "policy": ["threshold", "random", "threshold"],
                               "p_win_alone": [0.55, 0.1, 0.3], "fair_share": [0.5, 0.5, 0.25]}), 0.03, "p_win_alone")
    kr = _knock_rules_check([(2, -0.05, 0.1, -0.01), (4, -0.4, 0.05, -0.04)])
    args = dict(kr_check=kr, pt=pt, pairs=pairs, knock_rows=[(4, best, 8.0, 12.0)], default_k=12.0, bv=bv, var=var, fp=fp,
                mc=mc, su=su, sv=sv, chk=chk, tuned_params={"knock": 10.0, "unknown": 5.0}, gw=gw)
    named = {"beverbende_policies": pt, "beverbende_policy_pairs": pairs, "beverbende_knock_sweep": sw,
             "beverbende_variants": bv, "beverbende_first_player": fp, "beverbende_memory": mc,
             "beverbende_special_use": su, "beverbende_specials": sv, "beverbende_tuned": chk,
             "beverbende_game_wins": gw, "beverbende_knock_rules": kr}
    return args, named


def test_findings_quote_only_numbers_of_their_tables():
    args, named = _tables()
    check_findings(A.section_findings(**args), named, 9,
                   ("+6.50", "14.50", "19.50", "+1.00", "55%", "-0.75", "8 to 12"))


def test_a_changed_number_is_caught():
    args, named = _tables()
    check_change_caught(A.section_findings(**args), named, "beverbende_memory", "mean_score", [1.0, 2.0, 3.0])


def test_the_knock_rule_is_the_simplest_one_that_keeps_its_gain():
    """The lap part is kept only where the paired rule calls it better (its CI excludes 0); elsewhere the advice
    is the same rule without the lap. The verdict against the fixed threshold follows the shared rule."""
    kr = _knock_rules_check([(2, -0.05, 0.1, -0.01), (4, -0.4, 0.05, -0.04)])
    f = A.knock_rule_finding(kr)
    assert quote_problems([f], {"beverbende_knock_rules": kr}) == []
    two, four = f.text.split("; 4 players: ")
    # 2 players: the lap (-0.01 +- 0.02) is not kept, and the rule is not told apart: not worded as advice
    assert "the best rule tried (count each card of your row you have not seen as 6 and knock at 8 or less) is " \
           "as good as knocking at 10 with each unseen card as 4.5: margin -0.02" in two
    assert "changing your round" not in two
    assert ("knock at 8 or less, 1 point lower for each lap of the table already played: margin -0.40 points a "
            "round (95% CI -0.45 to -0.35) against knocking at 10") in four
    assert "changing your round in 64% of rounds" in four and "the lap's own part (-1 point a lap" in four
    assert abs(f.quotes["diff_2"].value + 0.02) < 1e-12 and f.quotes["diff_4"].value == -0.4
    assert f.title == "Knock by what you know of your row."
    same = _knock_rules_check([(4, 0.0, 0.0, 0.0)])
    same.loc[same.rule != "fixed", ["knock", "late", "unknown"]] = [10.0, 0.0, 4.5]
    assert "no rule tried beats knocking at 10" in A.knock_rule_finding(same).text
