"""Building the report: progress with elapsed time and an estimate, a build log, and reproducible output
(two builds with the same seed differ in report.md only in its one ``Build:`` line)."""

from __future__ import annotations

import types

import numpy as np
import pandas as pd

from ludolab.analysis import report as R
from ludolab.stdlib import registry


def _stub_section(ctx) -> str:
    """A tiny section drawing seeded numbers: what a real section does, in a millisecond."""
    ctx.say("box: drawing 1,000 numbers ...")
    x = np.random.default_rng(ctx.seed).normal(size=1000)
    df = pd.DataFrame({"mean": [x.mean()], "sd": [x.std()]})
    ctx.note("stub: drawing took a moment")  # a timing: build.log only
    return "# Stub\n\n" + ctx.table(df, "stub_table", {"game": "box", "seed": ctx.seed})


def _stub_registry(monkeypatch):
    game = types.SimpleNamespace(id="box", title="Stub", load=lambda layer: types.SimpleNamespace(
        report_section=_stub_section), entry=lambda name: _stub_section)
    monkeypatch.setattr(registry, "GAMES", [game])


def test_two_builds_with_one_seed_differ_only_in_the_build_line(tmp_path, monkeypatch):
    _stub_registry(monkeypatch)
    a, b = tmp_path / "a", tmp_path / "b"
    R.build_report(a, quick=True, seed=7)
    R.build_report(b, quick=True, seed=7)
    ma, mb = (a / "report.md").read_text().splitlines(), (b / "report.md").read_text().splitlines()
    diff = [(x, y) for x, y in zip(ma, mb) if x != y]
    assert len(ma) == len(mb) and all(x.startswith("Build: ") for x, _ in diff)
    assert sum(ln.startswith("Build: ") for ln in ma) == 1
    assert not any("Built in" in ln for ln in ma), "timings live in build.log, not in report.md"
    assert (a / "tables" / "stub_table.csv").read_bytes() == (b / "tables" / "stub_table.csv").read_bytes()
    log = (a / "build.log").read_text()
    assert "box: drawing N numbers" in log and "Built in" in log
    assert "# stub: drawing took a moment" in log and "took a moment" not in "\n".join(ma)


def test_progress_shows_elapsed_time_an_estimate_and_a_summary(tmp_path, monkeypatch):
    _stub_registry(monkeypatch)
    said = []
    R.build_report(tmp_path, quick=True, seed=7, log=said.append)
    assert said[0].startswith("[0 s") and said[0].endswith("box: drawing 1,000 numbers ...")
    assert said[-1].startswith("Built in ") and "longest stages" in said[-1]
    said.clear()
    R.build_report(tmp_path, quick=True, seed=7, log=said.append)  # the previous build.log gives an estimate
    assert "left]" in said[0]


def test_build_progress_estimates_from_the_previous_build():
    p = R.BuildProgress(None, {"box: a N games": 10.0, "box: b": 30.0}, n_games=1)
    p.stage("box: a 2,000 games ...")
    assert p.remaining() == 40.0  # the stage now running is still to do: both stages of the last build left
    assert R._stage_key("books: accuracy study, 4,000 deals x 4 policy pairs ...") == \
        "books: accuracy study, N deals x N policy pairs"
    assert R._clock(42.4) == "42 s" and R._clock(185) == "3 min 05 s"
