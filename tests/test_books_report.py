"""Shut The Books report section and bench entry, on a quick run."""

from __future__ import annotations

import json
import re

from ludolab.analysis import books as A


def test_report_section_quick(quick_report):
    """The section answers with numbers and CIs, references every table it writes, and draws its charts
    (read from the session's quick report)."""
    tmp_path, _ = quick_report
    md = _section(quick_report)
    assert md.startswith("# Shut The Books")
    for phrase in ("forecasts exactly", "Seat order costs", "Brier score", "skill pays most under"):
        assert phrase in md, phrase
    assert "95% CI" in md
    referenced = set(re.findall(r"`(tables/[^`]+\.csv)`", md))
    written = {f"tables/{p.name}" for p in (tmp_path / "tables").glob("books_*.csv")}
    assert referenced == written
    for ref in written:
        meta = json.loads((tmp_path / ref.replace(".csv", ".meta.json")).read_text())
        assert meta["game"] == "books"
    for chart in re.findall(r"\((charts/[^)]+\.png)\)", md):
        assert (tmp_path / chart).read_bytes()[:4] == b"\x89PNG"


def test_seat_cost_comparison_says_which_way(quick_report):
    """The comparison of the two seat costs says in which direction they differ, from the numbers."""
    md = _section(quick_report)
    para = next(ln for ln in md.splitlines() if ln.startswith("Seat order costs"))
    assert "(or more)" not in para
    if "the 95% CI of their difference excludes 0" in para:
        costs = [float(m) for m in re.findall(r"(?:scores|gives) (-?\d+\.\d+)", para)]
        assert len(costs) == 2
        assert ("pays less" in para) == (costs[1] > costs[0])


def _section(quick_report) -> str:
    tmp_path, _ = quick_report
    full = (tmp_path / "report.md").read_text()
    start = full.index("\n# Shut The Books") + 1
    end = full.find("\n# ", start)
    return full[start:] if end < 0 else full[start:end]


def _defined_columns(line: str) -> set:
    """Names defined at the top level of a "Columns: `a`: ...; `b`: ..." line (not inside parentheses)."""
    parts, depth, cur = [], 0, ""
    for ch in line[len("Columns: "):]:
        depth += (ch == "(") - (ch == ")")
        if ch == ";" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return {m.group(1) for p in parts if (m := re.match(r"\s*`([a-z_][a-z0-9_]*)`: ", p))}


def test_report_section_findings_first_and_columns_defined(quick_report):
    """The section opens with the plain-language findings, is split into sub-headings, and every table
    is preceded by a "Columns:" line that defines each column it shows and no other."""
    md = _section(quick_report)
    lines = md.splitlines()
    subs = [i for i, ln in enumerate(lines) if ln.startswith("## ")]
    assert len(subs) >= 4
    assert lines[subs[0]].startswith("## What a player should know")
    findings = [ln for ln in lines[subs[0] + 1:subs[1]] if ln.startswith("- ")]
    assert len(findings) >= 4
    assert all(re.search(r"\d", f) for f in findings)
    assert sum("95% CI" in f for f in findings) >= 3
    first_table = next(i for i, ln in enumerate(lines) if ln.startswith("| "))
    assert subs[0] < first_table and not any(ln.startswith("Columns:") for ln in lines[:subs[0]])
    assert "**off**" in md.split("## ")[0]  # off is explained in plain words before the findings
    tables = [i for i, ln in enumerate(lines) if ln.startswith("| ") and (i == 0 or not lines[i - 1].startswith("|"))]
    assert len(tables) == 5  # with the stored deep run of strong play
    for i in tables:
        header = [c.strip() for c in lines[i].strip("|").split("|")]
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        assert lines[j].startswith("Columns:"), lines[i]
        defined = _defined_columns(lines[j])
        base = {re.sub(r"_ci_(low|high)$", "", c) for c in header}
        assert base <= defined, base - defined
        assert defined <= set(header), defined - set(header)
        assert ("`_ci_low`/`_ci_high`" in lines[j]) == any(c.endswith(("_ci_low", "_ci_high")) for c in header)
    assert "`off_by_2_plus`" not in md and "`mean_off`" not in md


def test_columns_line_defines_exactly_the_columns_shown():
    line = A.columns_line(["scoring", "exact", "exact_ci_low", "exact_ci_high"])
    assert line.startswith("Columns: `scoring`: ") and "`exact`: " in line and "`_ci_low`/`_ci_high`" in line
    assert "`tuned_bias`" not in line
    assert "_ci_" not in A.columns_line(["forecast", "brier"])


def test_bench_record():
    rows = A.bench(10_000, 0.1, lambda msg: None)
    assert len(rows) == 1
    r = rows[0]
    assert r["unit"] == "hands" and r["per_second"] > 0 and r["reference_per_second"] > 0
    # the one-thread repeats and the reference's are paired: the ratio is their median, within their range
    assert r["ratio_min"] <= r["ratio"] <= r["ratio_max"] and r["ratio_min"] > 1


def test_hand_strength_count_is_defined_with_the_forecasters_own_values():
    """Issue 16: "a bias of -0.5 tricks" could not be applied; the count is now defined in words and every
    card value it quotes is the forecaster's (the reference engine's card strength)."""
    from ludolab.sim import books_reference as ref
    from ludolab.stdlib.books import HEURISTIC_FORECAST_PARAMS as P, parse_card

    f = A.hand_strength_finding(tuned_bias=-0.5)
    assert f.kind == "definition"
    for card, shown in (("R15", f.quotes["red_top"].value), ("B15", f.quotes["high_top"].value)):
        assert abs(ref._strength(parse_card(card), 15, P) - shown) < 1e-12
        assert f"{shown:.2f}" in f.text
    cut = f.quotes["cut"].value
    assert ref._strength(parse_card(f"Y{cut - 1}"), 15, P) == 0 < ref._strength(parse_card(f"Y{cut}"), 15, P)
    assert f"counts only from {cut} up" in f.text and "take off 0.5 of a trick" in f.text
    assert "same colour or number closes a prediction card" in f.text


def test_findings_name_no_tuned_parameter_as_a_discovery(quick_report):
    """The heuristic's default (lose with the lowest losing card) is not presented as what tuning found, and the
    main accuracy table holds the strongest players: rollout forecasts with rollout play, then the rollout
    forecaster with heuristic play."""
    import pandas as pd

    tmp_path, _ = quick_report
    md = _section(quick_report)
    head = md.split("## How often")[0]
    assert "lowest losing card" not in head and "tuned_keep_low" not in head
    assert "hand-strength count" in head
    acc = pd.read_csv(tmp_path / "tables" / "books_accuracy_overall.csv")
    assert acc["forecast"].iloc[0].startswith("rollout") and acc["play"].iloc[0].startswith("rollout(")
    assert acc["forecast"].iloc[1].startswith("rollout") and acc["play"].iloc[1] == "heuristic"
    assert "strongest players this build runs itself" in md


def test_variants_chart_puts_every_scoring_on_one_scale():
    """Both panels are in standard deviations of the hand score, so exact-only's bigger points do not dwarf
    the others: the cost of forecasting first is divided by the same SD as skill's pay."""
    import numpy as np
    import pandas as pd

    var = pd.DataFrame({"scoring": ["rulebook", "exact-only"], "skill_spread": [3.0, 6.0],
                        "skill_spread_sd": [1.0, 0.5], "skill_spread_sd_ci_low": [0.9, 0.4],
                        "skill_spread_sd_ci_high": [1.1, 0.6], "first_minus_others": [-0.6, -2.4],
                        "first_minus_others_ci_low": [-0.9, -3.6], "first_minus_others_ci_high": [-0.3, -1.2]})
    fig = A.fig_variants(var, 4)
    heights = [p.get_height() for p in fig.axes[1].patches]
    assert np.allclose(heights, [-0.6 / 3.0, -2.4 / 12.0])
    assert "SD" in fig.axes[1].get_ylabel()


def test_rollout_against_heuristic_is_worded_by_the_shared_rule():
    assert A._paired_words(0.36, -0.003, 0.73).startswith("cannot tell yet")
    assert A._paired_words(0.05, -0.1, 0.2).startswith("equally good")
    assert A._paired_words(0.5, 0.2, 0.8).startswith("better")
    assert A._paired_words(-0.5, -0.8, -0.2).startswith("worse")


def test_one_seat_is_the_ladder_per_hand():  # STK-8, STK-9
    """The one-seat study is the strength ladder over the step game on the same deals, divided by the hands of a
    game (one per player); the field's own row is 0 and changes nothing."""
    from ludolab.analysis import books as A
    from ludolab.sim import books as S
    from ludolab.sim import ladder as L
    from ludolab.sim.step import RulesCase
    from ludolab.stdlib.books import BooksRules

    rules = BooksRules(3)
    pick = (A.ONE_SEAT[0], A.ONE_SEAT[1])
    seat = A.one_seat(rules, 8, 2, pick)
    assert seat.diff_per_hand.iloc[0] == 0 and seat.share_changed.iloc[0] == 0
    assert seat.verdict.iloc[0] == "baseline" and (seat.hands == 3).all()
    named = S.step_policies(rules)
    case = RulesCase("x", rules.game_array(), 3, (named["heuristic/heuristic"],) * 3, named=named)
    base = L.Contender("b", "named", named["heuristic/heuristic"])
    row = L.ladder(L.Table(S.step_game(), case), [L.Contender("z", "named", named["zero/heuristic"])], base, 8, 2)[0]
    assert abs(seat.diff_per_hand.iloc[1] - row["diff"] / 3) < 1e-12
    assert seat.share_changed.iloc[1] == row["share_changed"]
