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
    assert len(tables) == 7
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
    assert re.findall(r"`([a-z_]+)`", line) == ["edge", "edge_ci_low", "edge_ci_high"]
