"""A fresh reader's checks on the quick report: each game section opens with its findings, every column a
table shows is defined before it, every chart is referenced with a caption, and (in headless Chromium) no
table of the HTML page is wider than the page's column."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from ludolab.stdlib import registry

#: The width of the page's text column (analysis/html.py: body max-width).
COLUMN_PX = 1100


def _sections(md: str) -> dict:
    """Each registered game's section of report.md, by title."""
    out = {}
    titles = [g.title for g in registry.GAMES]
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"^# (.+)$", md, flags=re.M) if m.group(1) in titles]
    for (a, t), (b, _) in zip(starts, starts[1:] + [(len(md), None)]):
        out[t] = md[a:b]
    return out


def test_every_game_section_opens_with_findings(quick_report):
    out, _ = quick_report
    secs = _sections((out / "report.md").read_text())
    assert set(secs) == {g.title for g in registry.GAMES}
    for title, sec in secs.items():
        heads = re.findall(r"^## (.+)$", sec, flags=re.M)
        assert heads and heads[0] == "What a player should know", (title, heads[:2])
        before = sec[:sec.index("\n## " + heads[0])]
        assert "|---" not in before and "![" not in before, title
        first = sec[sec.index("\n## " + heads[0]):sec.index("\n## " + heads[1])]
        bullets = [ln for ln in first.splitlines() if ln.startswith("- ")]
        assert len(bullets) >= 4 and all(re.search(r"\d", b) for b in bullets), title


def test_every_shown_column_is_defined_before_its_table(quick_report):
    out, _ = quick_report
    lines = (out / "report.md").read_text().splitlines()
    since = []
    n = 0
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("| ") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            n += 1
            cols = [c.strip() for c in ln.strip().strip("|").split("|")]
            text = "\n".join(since)
            for c in cols:
                assert f"`{c}`" in text, f"column {c!r} of the table with columns {cols} is not defined before it"
            assert len(cols) <= 8, cols
            since = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                i += 1
            continue
        since.append(ln)
        i += 1
    assert n >= 30
    body = "\n".join(ln for ln in lines if ln.startswith("| "))
    assert not re.search(r"\d[eE][+-]\d", body), "scientific notation in a table"


def test_every_chart_is_referenced_with_a_caption(quick_report):
    out, _ = quick_report
    md = (out / "report.md").read_text()
    refs = dict((path, cap) for cap, path in re.findall(r"!\[([^\]]*)\]\((charts/[^)]+\.png)\)", md))
    files = {f"charts/{p.name}" for p in (out / "charts").glob("*.png")}
    assert files == set(refs), files ^ set(refs)
    for path, cap in refs.items():
        assert len(cap.split()) >= 2, f"{path}: caption {cap!r} does not say what the chart shows"


def test_reproducible_apart_from_the_build_line(quick_report):
    out, _ = quick_report
    md = (out / "report.md").read_text()
    assert sum(ln.startswith("Build: ") for ln in md.splitlines()) == 1
    assert "Built in" not in md and (out / "build.log").is_file()


_MEASURE = """<script>
window.addEventListener('load', function () {
  var col = document.body.clientWidth - parseFloat(getComputedStyle(document.body).paddingLeft)
            - parseFloat(getComputedStyle(document.body).paddingRight);
  var rows = [];
  document.querySelectorAll('table').forEach(function (t, i) {
    rows.push([i, t.scrollWidth, Math.round(t.getBoundingClientRect().width)]);
  });
  var pre = document.createElement('pre');
  pre.id = 'ludolab-measure';
  pre.textContent = JSON.stringify({column: col, tables: rows});
  document.body.appendChild(pre);
});
</script>"""


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.slow
def test_html_tables_fit_the_column(quick_report, tmp_path):
    """Every table of report.html fits the 1100 px column, measured in headless Chromium."""
    browser = _chromium()
    if browser is None:
        msg = ("headless Chromium is not installed: on Debian or Ubuntu, `apt-get update && apt-get install -y "
               "chromium` (as root) makes this test run")
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    out, _ = quick_report
    page = (out / "report.html").read_text()
    probe = tmp_path / "measure.html"
    probe.write_text(page.replace("</body>", _MEASURE + "</body>", 1))
    args = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--window-size=1400,1000", "--virtual-time-budget=10000", "--dump-dom", probe.as_uri()]
    dom = subprocess.run(args, capture_output=True, text=True, timeout=120).stdout
    m = re.search(r'<pre id="ludolab-measure">(.*?)</pre>', dom, flags=re.S)
    assert m, "the page did not report its table widths"
    res = json.loads(m.group(1).replace("&quot;", '"'))
    assert abs(res["column"] - COLUMN_PX) <= 1, res["column"]
    assert len(res["tables"]) >= 30
    wide = [(i, w) for i, w, _ in res["tables"] if w > res["column"]]
    assert not wide, f"tables wider than the {res['column']} px column (index, px): {wide}"


def test_print_stylesheet_keeps_tables_whole():
    from ludolab.analysis.html import CSS

    assert "@media print" in CSS
    printed = CSS[CSS.index("@media print"):]
    assert "table{" in printed and "break-inside:avoid" in printed


def test_quoted_numbers_match_their_tables(quick_report):
    """The findings' numbers are the tables' numbers: the one-die rule's cost, the paired Beverbende verdicts
    (chosen by the shared rule from the CSV's own CI), the rollout row of the Books accuracy table."""
    import pandas as pd

    from ludolab.analysis.findings import compare

    out, _ = quick_report
    md = (out / "report.md").read_text()
    rules = pd.read_csv(out / "tables" / "box_one_die_rules.csv")
    best = rules.loc[rules["cost"].idxmin()]
    assert f"one die at a total of {int(best['max_total'])} or less" in md
    assert f"this rule costs {best['cost']:.3f} points per turn" in md
    pairs = pd.read_csv(out / "tables" / "beverbende_policy_pairs.csv")
    for r in pairs.itertuples():
        assert r.verdict == compare(r.margin_diff, r.margin_diff_ci_low, r.margin_diff_ci_high, "bev_margin")
        assert f"{r.players} players: `{r.policy}`" in md and f"margin {r.margin_diff:+.2f} points a round" in md
    acc = pd.read_csv(out / "tables" / "books_accuracy_overall.csv")
    assert acc["forecast"].iloc[0].startswith("rollout") and int(acc["player_hands"].iloc[0]) > 0
