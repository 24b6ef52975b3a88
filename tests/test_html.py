"""The report's Markdown to HTML (analysis/html.py): every kind of block it reads, pinned."""

from __future__ import annotations

from pathlib import Path

from ludolab.analysis.html import markdown_to_html

MD = """# Report

Some *text* and
more text ![chart](missing.png) after.

## Section A

| a | b |
|---|---|
| 1 | `x` |

1. first
  continued
2. second

- dot

> quoted
> again

```
<raw> & code
```

---
<div class="x">kept</div>
<sub>a note</sub>
"""


def test_every_block_kind_becomes_its_html():
    body, heads = markdown_to_html(MD, Path("."))
    assert body.split("\n") == [
        '<h1 id="report">Report</h1>',
        "<p>Some <em>text</em> and</p>",
        '<figure><img alt="chart" src="missing.png"><figcaption>chart</figcaption></figure>',
        "<p>more text  after.</p>",
        '<h2 id="section-a">Section A</h2>',
        "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td><code>x</code></td></tr>"
        "</tbody></table>",
        "<ol><li>first continued</li><li>second</li></ol>",
        "<ul><li>dot</li></ul>",
        "<blockquote>quoted again</blockquote>",
        "<pre><code>&lt;raw&gt; &amp; code</code></pre>",
        "<hr>",
        '<div class="x">kept</div>',
        "<p><sub>a note</sub></p>",
    ]
    assert heads == [(1, "report", "Report"), (2, "section-a", "Section A")]


def test_repeated_headings_get_distinct_ids_and_an_open_fence_runs_to_the_end():
    body, heads = markdown_to_html("## A\n\n## A\n\n```\nx", Path("."))
    assert [h[1] for h in heads][0] != [h[1] for h in heads][1]
    assert body.endswith("<pre><code>x</code></pre>")
