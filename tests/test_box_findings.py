"""The Shut the Box findings are a pure function of the section's tables: given small tables built by hand (no
exact solve, no simulation), every finding is a Finding and every number it quotes is in the table it names."""

from __future__ import annotations

import numpy as np
import pandas as pd

from findings_tables import check_change_caught, check_findings
from ludolab.analysis import box_report as rep
from ludolab.stdlib.box import BoxRules

RULES = BoxRules()  # 1-9, 789-optional


def _tables() -> tuple[dict, dict]:
    summary = pd.DataFrame({"policy": ["optimal (min E[score])", "fewest-tiles", "highest-tile", "random"],
                            "mean_score": [21.25, 22.5, 27.75, 32.5], "sd_score": [9.5, 9.75, 10.0, 11.0],
                            "p_shut": [0.0925, 0.08, 0.05, 0.01]})
    optimal = pd.DataFrame({"tiles": [9, 9, 9], "one_die": ["never", "789-optional", "789-forced"],
                            "min_expected_score": [21.75, 21.25, 22.0], "max_p_shut": [0.0714, 0.0976, 0.09]})
    curve = pd.DataFrame({"one_die": ["789-optional"] * 3, "target": [5, 10, 15], "p_beat": [0.2, 0.4, 0.55],
                          "p_beat_min_mean": [0.19, 0.37, 0.545]})
    seats = pd.DataFrame({"players": [2, 2, 3, 3, 3], "seat": [1, 2, 1, 2, 3], "p_win": [0.52, 0.45, 0.36, 0.33, 0.3],
                          "p_tie": [0.03, 0.03, 0.01, 0.01, 0.01], "p_play": [1.0, 0.9, 1.0, 0.9, 0.8]})
    matrix = pd.DataFrame({"optimised_for": ["sum", "sum", "count", "count"],
                           "scored_by": ["sum", "count", "sum", "count"],
                           "cost_pct": [0.0, 4.5, 2.25, 0.0]})
    pivot = matrix.pivot(index="optimised_for", columns="scored_by", values="cost_pct").reset_index()
    gain = pd.DataFrame({"match": ["1 round", "1 round", "3 rounds"], "seat": [1, 2, 2], "gain": [0.001, 0.002, 0.0075],
                         "p_win_alone": [0.5, 0.47, 0.4975], "p_win_lowest": [0.499, 0.468, 0.49],
                         "p_win_all": [0.49, 0.47, 0.5], "p_tie_all": [0.04, 0.04, 0.0]})
    moves = pd.DataFrame({"lead": [-6], "seat": [2], "open": ["1 2 3"], "roll": [5], "cover_match": ["2 3"],
                          "cover_lowest": ["1 4"]})
    thumbs = pd.DataFrame({"rule": ["high > few"], "keys": [2], "mean_score": [21.5], "p_shut": [0.09], "cost": [0.25]})
    mistakes = pd.DataFrame({"open": ["1 2 7"], "roll": [np.nan], "rule_plays": ["two dice"], "instead": ["one die"],
                             "loss": [0.75]})
    skill = pd.DataFrame({"player": ["random", "optimal for the mean score", "foresight"], "p_shut": [0.01, 0.0925, 0.2],
                          "mean_score": [32.5, 21.25, 15.0], "share_of_mean": [0.0, 0.64, 1.0],
                          "share_of_p_shut": [0.0, 0.43, 1.0]})
    one_die = pd.DataFrame({"open": ["1 2", "3", "1 5"], "dice": [1, 1, 2], "total": [3, 3, 6], "gain": [0.5, 0.25, -0.1],
                            "p_meet": [0.01, 0.02, 0.005]})
    one_die_rules = pd.DataFrame({"max_total": [0, 3, 6], "cost": [0.4, 0.002, 0.05]})
    args = dict(rules=RULES, summary=summary, optimal=optimal, curve=curve, seats=seats, variants=matrix,
                match_gain=gain, match_moves=moves, thumbs=thumbs, thumb_words=["prefer high tiles"],
                thumb_mistakes=mistakes, skill=skill, one_die=one_die, one_die_rules=one_die_rules)
    named = {"box_policy_summary": summary, "box_optimal_values": optimal, "box_beat_curve": curve,
             "box_match_seats": seats, "box_variants_cost_pct": pivot, "box_match_play": gain,
             "box_match_decisions": moves, "box_rules_of_thumb": thumbs, "box_rule_of_thumb_mistakes": mistakes,
             "box_skill": skill, "box_one_die_decisions": one_die, "box_one_die_rules": one_die_rules}
    return args, named


def test_findings_quote_only_numbers_of_their_tables():
    args, named = _tables()
    found = rep.box_findings(**args)
    check_findings(found, named, 9, ("0.25 points", "9.2%", "21.75", "3 rounds", "52.0%", "6 points behind", "4.5%",
                                     "64%", "0.75"))
    assert rep.findings(**args) == [f"- {f.markdown()}" for f in found]  # the Markdown is the same findings


def test_a_changed_number_is_caught():
    args, named = _tables()
    check_change_caught(rep.box_findings(**args), named, "box_skill", "p_shut", [0.5, 0.6, 0.7])
