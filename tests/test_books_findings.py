"""The Shut The Books findings are a pure function of the section's tables: given small tables built by hand
(no simulation), every finding is a Finding and every number it quotes is in the table it names."""

from __future__ import annotations

import pandas as pd

from findings_tables import check_change_caught, check_findings, with_ci
from ludolab.analysis import books as A

def _seat(rows) -> pd.DataFrame:
    """A :func:`~ludolab.analysis.books.one_seat` table by hand: ``(policy, difference per hand, CI half-width,
    share changed)``, the field first; each verdict by the report's paired rule."""
    from ludolab.analysis.findings import compare

    out = []
    for pol, d, h, ch in rows:
        out.append({"policy": pol, "what": f"plays {pol}", "mean_per_hand": 0.5 + d, "diff_per_hand": d,
                    "diff_per_hand_ci_low": d - h, "diff_per_hand_ci_high": d + h, "share_changed": ch,
                    "win_share": 0.5, "verdict": "baseline" if h == 0 else
                    compare(d, d - h, d + h, "books_points", lower_is_better=False), "games": 300, "hands": 4})
    return pd.DataFrame(out)


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
    seat = _seat([("heuristic/heuristic", 0.0, 0.0, 0.0), ("zero/heuristic", 1.125, 0.25, 0.97),
                  ("heuristic/random", -1.25, 0.125, 0.99), ("rollout/heuristic", 1.5, 0.3, 0.95)])
    args = dict(seat_study=seat, overall=overall, by_predictions=by_pred, first_cost=first, rollout=rollout, rollout_paired=paired,
                calibration=cal, variants=variants, rollout_deals=60)
    named = {"books_accuracy_overall": overall, "books_accuracy_by_predictions": by_pred, "books_first_cost": first,
             "books_rollout_accuracy": rollout, "books_rollout_paired": paired, "books_calibration": cal,
             "books_variants": variants, "books_one_seat": seat}
    return args, named


def test_findings_quote_only_numbers_of_their_tables():
    args, named = _tables()
    check_findings(A.section_findings(**args), named, 8,
                   ("**Lay fewer cards than your hand's strength suggests.** The rollout forecaster",
                    "1.75 prediction cards", "+0.50 points per hand", "50.0%", "-0.75", "-0.38", "0.90", "0.62"))


def test_the_rollout_finding_advises_fewer_cards_only_where_the_paired_ci_says_it_pays():
    """The title of "how many cards to lay" follows the paired verdict of the rollout forecaster against the
    count on the same deals, not only which of them lays fewer cards."""
    args, _ = _tables()
    rollout, variants = args["rollout"], args["variants"]

    def title(diff, half):
        paired = with_ci(pd.DataFrame({"diff_vs_first_config": [0.0, diff]}), half, "diff_vs_first_config")
        return A._rollout_finding(rollout, paired, variants, 60).title

    assert title(-0.5, 0.25) == "Lay fewer cards than your hand's strength suggests."
    assert title(0.5, 0.25) == "Laying fewer cards than your hand's strength suggests does not pay."
    unsure = title(-0.1, 0.5)
    assert unsure.startswith("The rollout forecaster lays fewer cards") and "not clear yet" in unsure
    assert "within the tolerance" in title(-0.01, 0.02)


def test_a_changed_number_is_caught():
    args, named = _tables()
    check_change_caught(A.section_findings(**args), named, "books_calibration", "observed_exact", [0.1, 0.2])


def test_the_one_seat_finding_says_what_laying_nothing_is_worth_and_why_it_fails_for_all():
    """Laying no card is judged in one seat against the count by the paired rule; its title follows the verdict,
    and the self-play rows say what happens when every player lays nothing."""
    from ludolab.analysis.findings import quote_problems

    args, named = _tables()
    f = A._one_seat_finding(args["seat_study"], args["overall"])
    assert quote_problems([f], named) == []
    assert f.title == "Against players who lay by the count, lay fewer cards."
    assert "*plays zero/heuristic*: +1.12 points per hand (paired 95% CI +0.88 to +1.38), better" in f.text
    assert "*plays heuristic/random*: -1.25 points per hand" in f.text and "97% of games" in f.text
    assert "when every player lays nothing, each scores 0.50 points per hand against 1.25" in f.text
    worse = _seat([("heuristic/heuristic", 0.0, 0.0, 0.0), ("zero/heuristic", -2.0, 0.25, 0.97)])
    assert A._one_seat_finding(worse, args["overall"]).title == "Do lay cards."
    unsure = _seat([("heuristic/heuristic", 0.0, 0.0, 0.0), ("zero/heuristic", 0.1, 0.5, 0.97)])
    assert A._one_seat_finding(unsure, args["overall"]).title == "Laying no card: no clear answer."


def test_the_strong_play_finding_quotes_the_stored_deep_run():
    """With the stored deep run shown, the section opens with how accurate strong play forecasts against the
    heuristics on the same deals, every number from ``books_deep_accuracy`` and ``books_deep_paired``; its
    title claims the gap only where the paired CI excludes 0."""
    from ludolab.analysis.deep import STUDIES

    args, named = _tables()
    plan = STUDIES["books_strong_accuracy"].plan()
    overall = with_ci(pd.DataFrame({"forecast": ["rollout(pool 8, 16 worlds)", "rollout(pool 8, 32 worlds)", "heuristic"],
                                    "play": ["rollout(64 worlds)", "rollout(128 worlds)", "heuristic"],
                                    "exact": [0.4375, 0.453125, 0.28125], "mean_score": [2.0, 2.125, 0.5]}), 0.02, "exact")
    paired = with_ci(pd.DataFrame({"diff_vs_first_config": [0.0, 0.125, -1.5]}), 0.0625, "diff_vs_first_config")
    found = A.section_findings(**args, deep={"overall": overall, "paired": paired, "plan": plan})
    text = check_findings(found, {**named, "books_deep_accuracy": overall, "books_deep_paired": paired}, 9,
                          ("**Strong play forecasts exactly in 43.8% of player-hands, against 28.1%",
                           "+1.50 points per player-hand", "still gains"))
    assert found[0].title.startswith("Strong play forecasts exactly") and text.startswith("**Strong play")
    unsure = with_ci(pd.DataFrame({"diff_vs_first_config": [0.0, 0.125, -0.25]}), 0.5, "diff_vs_first_config")
    title = A._strong_play_finding(overall, unsure, plan).title
    assert "not told apart" in title and "against" not in title
