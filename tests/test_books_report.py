"""Shut The Books report section and bench entry, on a quick run."""

from __future__ import annotations

import json
import re

from ludolab.analysis import books as A


def test_report_section_quick(quick_report):
    """The section answers with numbers and CIs, references every table it writes, and draws its charts
    (read from the session's quick report)."""
    tmp_path, _ = quick_report
    full = (tmp_path / "report.md").read_text()
    start = full.index("\n# Shut The Books") + 1
    end = full.find("\n# ", start)
    md = full[start:] if end < 0 else full[start:end]
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


def test_bench_record():
    rows = A.bench(10_000, 0.1, lambda msg: None)
    assert len(rows) == 1
    r = rows[0]
    assert r["unit"] == "hands" and r["per_second"] > 0 and r["reference_per_second"] > 0
    assert r["ratio"] == r["per_second_1_thread"] / r["reference_per_second"]
