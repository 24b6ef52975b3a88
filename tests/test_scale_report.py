"""The report as a self-contained HTML page: every registered game, a table of
contents, every chart embedded with its provenance; ``--backend dask`` applies to it."""

from __future__ import annotations

import json
import re
import types

import pytest
from click.testing import CliRunner

from ludolab.analysis.cli import cli
from ludolab.analysis.html import markdown_to_html, toc
from ludolab.stdlib import registry


def test_markdown_subset_to_html(tmp_path):
    md = ("# Title\n\nIntro with `code` and **bold** and *it*.\n\n## A section\n\n| a | b |\n|---|---|\n"
          "| 1 | 2.5 |\n\n- one\n- two\n\n![A chart](charts/x.png)\n\n<sub>Table: `t.csv`</sub>\n")
    (tmp_path / "charts").mkdir()
    (tmp_path / "charts" / "x.png").write_bytes(b"\x89PNG fake")
    body, heads = markdown_to_html(md, tmp_path, {"charts/x.png": {"game": "box", "seed": 1}})
    assert heads == [(1, "title", "Title"), (2, "a-section", "A section")]
    assert "<table>" in body and "<td>2.5</td>" in body and "<li>two</li>" in body
    assert "data:image/png;base64," in body and "<details><summary>provenance</summary>" in body
    assert "<strong>bold</strong>" in body and "<code>code</code>" in body and "<sub>Table:" in body
    assert 'href="#a-section"' in toc(heads)


def _fake_game(monkeypatch):
    """A registry of one tiny game whose report section runs a short Shut the Box simulation."""
    from ludolab.analysis.report import markdown_table

    def report_section(ctx):
        import matplotlib.figure
        import pandas as pd

        from ludolab.sim import box as B
        from ludolab.stdlib.box import BoxRules

        res = B.simulate(B.make_policy(BoxRules(), "random"), 2000, seed=ctx.seed, chunks=4)
        df = pd.DataFrame([{"games": res.games, "mean_score": res.mean().value}])
        fig = matplotlib.figure.Figure()
        fig.add_subplot().bar([0, 1], [1, 2])
        return "# Tiny game\n\n## Numbers\n\n" + ctx.table(df, "tiny", {"game": "tiny"}) + "\n" + \
            ctx.figure(fig, "tiny_chart", "Tiny chart") + "\n" + markdown_table(df)

    game = types.SimpleNamespace(id="tiny", title="Tiny game", rules_file="seeds/tiny.md", rules_version="1",
                                 cli_name="tiny", load=lambda layer: types.SimpleNamespace(report_section=report_section),
                                 entry=lambda name: report_section)
    monkeypatch.setattr(registry, "GAMES", (game,))


@pytest.mark.parametrize("backend", [["--backend", "local"], ["--backend", "dask", "--workers", "1"]])
def test_report_html_with_figure_provenance(tmp_path, monkeypatch, backend):
    if "dask" in backend:
        pytest.importorskip("distributed")
    _fake_game(monkeypatch)
    res = CliRunner().invoke(cli, ["report", "--quick", "--quiet", "--out", str(tmp_path), *backend],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    page = (tmp_path / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and '<nav class="toc">' in page
    assert "data:image/png;base64," in page and 'src="charts/' not in page
    prov = json.loads((tmp_path / "charts" / "tiny_chart.meta.json").read_text())
    assert prov["game"] == "tiny" and prov["report_seed"] == 2026
    assert prov["execution"]["backend"] == backend[1]
    assert prov["runs"][0]["games"] == 2000 and prov["runs"][0]["backend"] == backend[1]
    assert "provenance</summary>" in page
    table_meta = json.loads((tmp_path / "tables" / "tiny.meta.json").read_text())
    assert table_meta["execution"]["backend"] == backend[1]
    assert [r["games"] for r in table_meta["runs"]] == [2000]  # the runs behind this table only


def test_report_backend_options_are_checked():
    res = CliRunner().invoke(cli, ["report", "--scheduler", "tcp://x:1", "--workers", "2"])
    assert res.exit_code == 2 and "not both" in res.output


def test_the_quick_html_report_covers_every_game(quick_report):
    """The real quick report: every registered game has a heading in the table of contents."""
    tmp_path, _ = quick_report
    page = (tmp_path / "report.html").read_text()
    nav = re.search(r'<nav class="toc">.*?</nav>', page, re.S).group(0)
    for g in registry.GAMES:
        assert g.title in nav, g.title
    charts = list((tmp_path / "charts").glob("*.png"))
    assert charts and page.count("data:image/png;base64,") == len(charts)
    assert page.count("provenance</summary>") == len(charts)


def test_scaling_bench_records():
    """bench --scaling: three setups, the same numbers on each (checked inside); no speed asserted."""
    pytest.importorskip("distributed")
    from ludolab.analysis.bench import scaling_bench

    rows = scaling_bench(seconds=0.05, workers=2, repeats=1)
    assert [r["setup"].split(",")[0] for r in rows] == ["local", "local", "dask LocalCluster"]
    assert rows[1]["efficiency"] > 0 and rows[2]["vs_local"] > 0
    assert all(r["games"] == rows[0]["games"] for r in rows)
