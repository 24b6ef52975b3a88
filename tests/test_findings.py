"""The findings rule: a comparison word follows from the paired CI and the stated tolerance."""

from __future__ import annotations

import pytest

from ludolab.analysis import findings as F


@pytest.mark.parametrize("diff, lo, hi, lower_is_better, word", [
    (-0.30, -0.50, -0.10, True, "better"),      # CI below 0, lower is better
    (0.30, 0.10, 0.50, True, "worse"),          # CI above 0
    (0.30, 0.10, 0.50, False, "better"),        # a chance to win: higher is better
    (-0.30, -0.50, -0.10, False, "worse"),
    (0.01, -0.02, 0.04, True, "equally good"),  # includes 0, half-width 0.03 < 0.05
    (0.01, -0.20, 0.22, True, "cannot tell yet"),  # includes 0, half-width 0.21 >= 0.05
])
def test_compare_follows_the_paired_ci_and_the_tolerance(diff, lo, hi, lower_is_better, word):
    assert F.compare(diff, lo, hi, "box_score", lower_is_better) == word


def test_compare_equally_good_needs_a_ci_narrower_than_the_tolerance():
    tol = F.TOLERANCES["bev_margin"][0]
    assert F.compare(0.0, -tol * 0.99, tol * 0.99, "bev_margin") == "equally good"
    assert F.compare(0.0, -tol, tol, "bev_margin") == "cannot tell yet"
    # a CI touching 0 includes it
    assert F.compare(0.1, 0.0, 0.2, "bev_margin") == "equally good"


def test_compare_refuses_bad_input():
    with pytest.raises(ValueError, match="measure 'nope'"):
        F.compare(0, -1, 1, "nope")
    with pytest.raises(ValueError, match="does not hold"):
        F.compare(2, -1, 1, "box_score")
    with pytest.raises(ValueError, match="finite"):
        F.compare(float("nan"), -1, 1, "box_score")


def test_finding_kinds_and_rendering():
    f = F.Finding("exact", "Headline.", "Text 1.5.", {"x": F.Quote(1.5, "t", "c")})
    assert f.markdown() == "**Headline.** Text 1.5."
    assert F.render_markdown([f, "plain"]) == "- **Headline.** Text 1.5.\n- plain"
    with pytest.raises(ValueError, match="kind"):
        F.Finding("opinion", "", "")
    with pytest.raises(ValueError, match="verdict"):
        F.Finding("comparison", "", "")
    with pytest.raises(ValueError, match="verdict"):
        F.Finding("comparison", "", "", verdict="a bit better")


def test_tolerances_are_stated_once_in_the_readme():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert F.tolerances_markdown() in readme


def test_value_and_ci_in_one_cell():
    assert F.fmt_ci(21.4213, 21.381, 21.459) == "21.42 (21.38 to 21.46)"


def test_report_tables_fold_cis_state_constants_and_cap_columns():
    import pandas as pd

    from ludolab.analysis.report import ci_cell, compact_table, table_layout

    df = pd.DataFrame({"deck": ["a", "a"], "m": [21.4213, 3.0], "m_ci_low": [21.381, 2.9], "m_ci_high": [21.459, 3.1],
                       "p": [6.8e-05, 16000.0], **{f"x{i}": [i, i + 1] for i in range(9)}})
    lay = table_layout(df)
    assert lay.constant == {"deck": "a"} and lay.with_ci == {"m"} and len(lay.shown) == 8
    assert lay.hidden == ("x6", "x7", "x8") and "In the CSV only: x6, x7, x8." in lay.note()
    shown = compact_table(df, ".4g", lay)
    assert shown.loc[0, "m"] == "21.42 (21.38 to 21.46)" and shown.loc[1, "m"] == "3.00 (2.90 to 3.10)"
    assert shown.loc[0, "p"] == "0.000068" and shown.loc[1, "p"] == "16,000"
    assert ci_cell(0.9717, 0.9486, 0.9948) == "0.972 (0.949 to 0.995)"


def test_a_ci_bound_that_is_not_zero_never_reads_as_zero():
    """A bound just below or above 0 keeps its side of 0 in print ("-0.5 to -0.0" read as touching 0 while
    the words said "better"): decimals are added until a digit shows; a bound of exactly 0 stays as it is."""
    from ludolab.analysis.books import _ci
    from ludolab.analysis.report import ci_bound, ci_cell

    assert ci_cell(-0.3, -0.5, -0.004) == "-0.30 (-0.50 to -0.004)"
    assert ci_cell(0.36, -0.0004, 0.73) == "0.4 (-0.0004 to 0.7)"
    assert _ci(-0.004, 0.73, "{:+.2f}") == "95% CI -0.004 to +0.73"
    assert ci_bound(0.0004, "+0.00") == "+0.0004" and ci_bound(0.00004, "0.0%") == "0.004%"
    assert ci_bound(0.0, "0.00") == "0.00" and ci_bound(-0.25, "-0.25") == "-0.25"


def test_two_estimates_from_different_deals_are_compared_by_the_ci_of_their_difference():
    """Overlapping CIs do not mean agreement: 1.0 (0.9 to 1.1) and 1.25 (1.15 to 1.35) overlap nowhere, while
    1.0 (0.8 to 1.2) and 1.3 (1.1 to 1.5) overlap and still differ beyond noise (difference 0.3, half-width 0.28)."""
    from ludolab.analysis.findings import all_agree, differs, independent_difference

    d, lo, hi = independent_difference(1.0, 0.8, 1.2, 1.3, 1.1, 1.5)
    assert d == pytest.approx(-0.3) and hi - d == pytest.approx((0.2**2 + 0.2**2) ** 0.5)
    assert hi < 0 and differs(1.0, 0.8, 1.2, 1.3, 1.1, 1.5)
    assert not differs(1.0, 0.8, 1.2, 1.1, 0.9, 1.3)
    assert all_agree([("a", 1.0, 0.8, 1.2), ("b", 1.1, 0.9, 1.3), ("c", 0.95, 0.75, 1.15)])
    assert not all_agree([("a", 1.0, 0.8, 1.2), ("b", 1.1, 0.9, 1.3), ("c", 1.4, 1.2, 1.6)])
    with pytest.raises(ValueError, match="finite"):
        independent_difference(1.0, float("nan"), 1.2, 1.0, 0.9, 1.1)


def test_one_renderer_puts_a_section_together_findings_first():
    f = F.Finding("exact", "Headline.", "Text 1.5.", {"x": F.Quote(1.5, "t", "c")})
    md = F.render_section("Game", [f], ["## Study\n", "table\n"], before=("warning\n",), intro="From the tables:\n",
                          after=("## Method\n",))
    assert md == ("# Game\n\nwarning\n\n## What a player should know\n\nFrom the tables:\n\n- **Headline.** Text 1.5."
                  "\n\n## Method\n\n## Study\n\ntable\n")


def test_quote_problems_hold_each_quoted_number_to_its_table():
    import pandas as pd

    t = {"t": pd.DataFrame({"c": [1.5, 2.0], "label": ["a", "b"]})}
    ok = F.Finding("exact", "", "1.5", {"x": F.Quote(1.5, "t", "c"), "p": F.Quote(0.3, "parameters", "p")})
    assert F.quote_problems([ok], t) == []  # a table not given (the code's parameters) is not checked
    bad = F.Finding("exact", "", "1.7", {"x": F.Quote(1.7, "t", "c"), "y": F.Quote(1.0, "t", "nope")})
    assert F.quote_problems([bad, "a string"], t) == [
        "finding 0 quote x: 1.7 is not in t.c", "finding 0 quote y: table t has no column nope",
        "finding 1 is a str, not a Finding: 'a string'"]


def test_a_doubling_counts_as_stopped_only_when_its_ci_lies_within_the_tolerance():
    """One doubling of a strong player's budget: stopped when the paired CI of the gain lies within ±
    tolerance (even when it excludes 0), improving when it lies above 0 otherwise, worse below 0, else not
    settled (README, "How the report words its findings")."""
    from ludolab.analysis.findings import doubling_verdict

    assert doubling_verdict(-0.05, 0.08, 0.1) == "stopped"
    assert doubling_verdict(0.01, 0.05, 0.1) == "stopped"
    assert doubling_verdict(0.05, 0.3, 0.1) == "improving"
    assert doubling_verdict(-0.3, -0.05, 0.1) == "worse"
    assert doubling_verdict(-0.05, 0.3, 0.1) == "not settled"
    assert doubling_verdict(-0.1, 0.05, 0.1) == "not settled", "a CI reaching the tolerance is not within it"
