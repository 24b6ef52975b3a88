"""Shelve the Book report section on a quick run: findings first, one sub-heading per question,
every column of every table defined right before it (and nothing more)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ludolab.analysis import shelf as A
from ludolab.analysis.report import ReportContext


@pytest.fixture(scope="module")
def section(tmp_path_factory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("shelf_report")
    return out, A.report_section(ReportContext(out, quick=True, seed=2026))


def _tables(lines):
    """(index of the header line, column names) of every Markdown table."""
    for i, line in enumerate(lines[:-1]):
        if line.startswith("| ") and lines[i + 1].startswith("|---"):
            yield i, [c.strip() for c in line.strip().strip("|").split("|")]


def test_findings_come_first(section):
    _, md = section
    lines = md.splitlines()
    assert lines[0] == "# Shelve the Book"
    heads = [i for i, l in enumerate(lines) if l.startswith("## ")]
    assert lines[heads[0]].startswith("## What a player should know")
    # before the findings only the assumed-deck warning
    before = [l for l in lines[1:heads[0]] if l.strip()]
    assert len(before) == 1 and "assumed" in before[0]
    findings = [l for l in lines[heads[0] + 1:heads[1]] if l.startswith("- ")]
    assert len(findings) >= 6
    assert all(re.search(r"\d", f) for f in findings)
    assert sum("95% CI" in f for f in findings) >= 5
    first_other = min(i for i, l in enumerate(lines) if l.startswith(("Rules:", "Policies:", "Columns:", "| ")))
    assert first_other > heads[1]


def test_one_sub_heading_per_question(section):
    _, md = section
    heads = [l for l in md.splitlines() if l.startswith("## ")]
    assert len(heads) >= 8 and len(set(heads)) == len(heads)
    assert not [l for l in md.splitlines()[1:] if l.startswith("# ")]


def test_every_column_defined_before_its_table(section):
    out, md = section
    lines = md.splitlines()
    tables = list(_tables(lines))
    assert len(tables) == 12  # with the stored deep runs of strong play (two tables), its variants and decks
    for i, cols in tables:
        prev = next(l for l in reversed(lines[:i]) if l.strip())
        assert prev.startswith("Columns:"), (cols, prev)
        defined = re.findall(r"`([A-Za-z0-9_]+)`", prev)
        assert set(defined) == set(cols), (set(cols) - set(defined), set(defined) - set(cols))
    referenced = set(re.findall(r"`(tables/[^`]+\.csv)`", md))
    assert referenced == {f"tables/{p.name}" for p in (out / "tables").glob("shelf_*.csv")}


def test_columns_line_refuses_an_undefined_column():
    import pandas as pd

    with pytest.raises(KeyError):
        A.columns_line(pd.DataFrame({"no_such_column": [1]}))
    line = A.columns_line(pd.DataFrame({"edge": [1.0], "edge_ci_low": [0.5], "edge_ci_high": [1.5]}))
    # the CI limits are shown in brackets in the value's cell (the CSV keeps them as columns)
    assert re.findall(r"`([a-z_]+)`", line) == ["edge"] and "confidence interval in brackets" in line


def _variants():
    import pandas as pd

    rows = [("standard", 4.5, 0.30), ("linear", 3.98, 0.41), ("columns", 5.51, 0.28), ("pairs", 5.40, 0.26)]
    return pd.DataFrame([{"variant": v, "spread_sd": s, "spread_sd_ci_low": s - 0.08, "spread_sd_ci_high": s + 0.08,
                          "skilled_win_share": w, "skilled_win_share_ci_low": w - 0.05,
                          "skilled_win_share_ci_high": w + 0.05} for v, s, w in rows])


def test_designer_finding_names_both_measures_of_skill():
    """Issue 16: "skill counts least under linear" while under linear one potential player beats three greedy
    ones most often: each measure now names its own most and least."""
    f = A.designer_finding(_variants())
    assert "least under **linear** (3.98)" in f.text and "most under **linear** (win share 0.410" in f.text
    assert "smallest lead over random play but the best chance against greedy players" in f.text
    assert "tied within the CIs with **pairs**" in f.text
    assert f.quotes["win_top"].row == "linear" and f.quotes["spread_low"].value == 3.98


def test_sequence_share_is_a_player_finding():
    import pandas as pd

    df = pd.DataFrame([{"policy": "potential", "mean_score": 20.0, "pts_colour": 2.0, "pts_field": 4.0,
                        "pts_number": 9.0, "pts_author": 5.0}])
    f = A.sequence_finding(df)
    assert f.kind == "rule" and f.text.startswith("70% of a skilled")
    assert {k: q.value for k, q in f.quotes.items()} == {"pts_colour": 2.0, "pts_field": 4.0, "pts_number": 9.0,
                                                         "pts_author": 5.0}  # the share is read off real columns


def test_findings_put_sequences_up_front_and_deck_caption_says_win_share(section):
    out, md = section
    head = md.split("## Rules, policies and method")[0]
    assert "come from sequences" in head
    assert "Win share of one potential player against three greedy ones, by deck" in md
    assert "Deck sensitivity of the best policy's edge" not in md
