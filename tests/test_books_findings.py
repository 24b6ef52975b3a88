"""The Shut The Books findings are a pure function of the section's tables: given small tables built by hand
(no simulation), every finding is a Finding and every number it quotes is in the table it names."""

from __future__ import annotations

import pandas as pd

from findings_tables import check_change_caught, check_findings, with_ci
from ludolab.analysis import books as A

def _tables() -> tuple[dict, dict]:
    overall = with_ci(pd.DataFrame({"forecast": ["heuristic", "heuristic", "zero"],
                                    "play": ["heuristic", "random", "heuristic"], "mean_score": [1.25, -0.75, 0.5]}), 0.05, "mean_score")
    by_pred = with_ci(pd.DataFrame({"forecast": ["heuristic"] * 3, "play": ["heuristic"] * 3,
                                    "predictions": [1, 2, 3], "share_of_hands": [0.2, 0.5, 0.3], "exact": [0.5, 0.3, 0.2],
                                    "mean_score": [2.5, 1.25, 0.75]}), 0.02, "exact")
    first = with_ci(pd.DataFrame({"forecast": ["heuristic"], "first_minus_others": [-0.375]}), 0.1,
                    "first_minus_others")
    rollout = pd.DataFrame({"forecast": ["rollout", "heuristic"], "mean_predictions": [1.75, 2.25]})
    paired = with_ci(pd.DataFrame({"diff_vs_first_config": [0.0, -0.5]}), 0.25, "diff_vs_first_config")
    cal = with_ci(pd.DataFrame({"mean_stated_p_exact": [0.62, 0.48], "observed_exact": [0.41, 0.45]}), 0.05,
                  "observed_exact")
    variants = with_ci(pd.DataFrame({"scoring": ["rulebook", "linear"], "tuned_bias": [-0.5, -0.5],
                                     "rollout_hands": [30, 30], "mean_predictions": [2.0, 2.5], "rollout_mean_predictions": [1.5, 1.75],
                                     "skill_spread_sd": [0.9, 0.6]}), 0.1, "skill_spread_sd")
    args = dict(overall=overall, by_predictions=by_pred, first_cost=first, rollout=rollout, rollout_paired=paired,
                calibration=cal, variants=variants, rollout_deals=60)
    named = {"books_accuracy_overall": overall, "books_accuracy_by_predictions": by_pred, "books_first_cost": first,
             "books_rollout_accuracy": rollout, "books_rollout_paired": paired, "books_calibration": cal,
             "books_variants": variants}
    return args, named


def test_findings_quote_only_numbers_of_their_tables():
    args, named = _tables()
    check_findings(A.section_findings(**args), named, 8,
                   ("**Lay fewer cards than your hand's strength suggests.** The rollout forecaster",
                    "1.75 prediction cards", "+0.50 points per hand", "50.0%", "-0.75", "-0.38", "0.90", "0.62"))


def test_a_changed_number_is_caught():
    args, named = _tables()
    check_change_caught(A.section_findings(**args), named, "books_calibration", "observed_exact", [0.1, 0.2])
