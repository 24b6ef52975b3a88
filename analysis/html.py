"""The report as one self-contained HTML page: charts embedded (base64 PNG), a table
of contents, and under every chart the provenance it was drawn from.

The converter reads the Markdown the report sections write (headings, paragraphs,
pipe tables, images, bullet and numbered lists, block quotes, fenced code, inline
code, emphasis, links and the ``<sub>`` notes), which is all the report uses; no
other Markdown dependency is needed.
"""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
line-height:1.5;color:#222}
h1,h2,h3,h4{line-height:1.25}
h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:1em 0;font-size:.9em;display:block;overflow-x:auto}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f3f3f3;overflow-wrap:anywhere}
td:first-child,th:first-child{text-align:left}
img{max-width:100%;height:auto}
figure{margin:1.2em 0}
figcaption{font-size:.9em;color:#555}
details{font-size:.8em;color:#444;margin:.3em 0 1em}
details pre{background:#f7f7f7;padding:.5em;overflow-x:auto}
code{background:#f3f3f3;padding:0 .2em}
nav.toc{background:#fafafa;border:1px solid #e5e5e5;padding:.5em 1.5em;margin:1em 0}
nav.toc ul{margin:.2em 0}
@media print{
body{max-width:none;margin:0;padding:0;font-size:10pt}
table{display:table;overflow:visible;font-size:8pt;break-inside:avoid;page-break-inside:avoid}
tr,figure,img{break-inside:avoid;page-break-inside:avoid}
h2,h3{break-after:avoid;page-break-after:avoid}
nav.toc,details{display:none}
}
"""


def slug(text: str, seen: dict) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
    n = seen.get(s, 0)
    seen[s] = n + 1
    return s if n == 0 else f"{s}-{n}"


def inline(text: str) -> str:
    """Inline Markdown: code, images are handled by the caller, links, bold, italic; <sub> kept."""
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for p in parts:
        if p.startswith("`") and p.endswith("`") and len(p) > 1:
            out.append(f"<code>{html.escape(p[1:-1])}</code>")
            continue
        keep = {}

        def stash(m):
            keep[f"\0{len(keep)}\0"] = m.group(0)
            return f"\0{len(keep) - 1}\0"

        p = re.sub(r"</?(sub|sup|br|b|i|em|strong)\s*/?>", stash, p)
        p = html.escape(p, quote=False)
        p = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", lambda m: f'<a href="{html.escape(m.group(2))}">{m.group(1)}</a>', p)
        p = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", p)
        p = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", p)
        p = re.sub(r"(?<![\w_])_(?!\s)(.+?)(?<!\s)_(?![\w_])", r"<em>\1</em>", p)
        for k, v in keep.items():
            p = p.replace(k, v)
        out.append(p)
    return "".join(out)


def _cells(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [c.strip() for c in line.split("|")]


def _image(alt: str, src: str, base: Path, provenance: dict) -> str:
    path = base / src
    if path.exists():
        data = base64.b64encode(path.read_bytes()).decode()
        tag = f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'
    else:
        tag = f'<img alt="{html.escape(alt)}" src="{html.escape(src)}">'
    prov = provenance.get(src)
    details = ""
    if prov:
        details = ("<details><summary>provenance</summary><pre>"
                   + html.escape(json.dumps(prov, indent=1, default=str)) + "</pre></details>")
    return f"<figure>{tag}<figcaption>{inline(alt)}</figcaption>{details}</figure>"


def markdown_to_html(md: str, base: Path, provenance: dict | None = None) -> tuple[str, list]:
    """Body HTML and the headings ``[(level, id, text)]`` of the report's Markdown."""
    provenance = provenance or {}
    lines = md.splitlines()
    out, heads, seen = [], [], {}
    para: list[str] = []

    def flush():
        if para:
            out.append("<p>" + inline(" ".join(para)) + "</p>")
            para.clear()

    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if not s:
            flush()
            i += 1
            continue
        block = _block(lines, i, s, base, provenance, heads, seen)
        if block is None:
            para.append(s)
            i += 1
            continue
        flush()
        text, i, rest = block
        out.append(text)
        if rest:
            para.append(rest)
    flush()
    return "\n".join(out), heads


def _block(lines: list[str], i: int, s: str, base: Path, provenance: dict, heads: list, seen: dict):
    """The block of Markdown starting at line ``i`` (stripped ``s``), or None for a line of a paragraph.

    Returns:
        (its HTML, the index of the line after it, text left over for the paragraph or "");
        a heading is also appended to ``heads``.
    """
    if s.startswith("```"):
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith("```"):
            j += 1
        return "<pre><code>" + html.escape("\n".join(lines[i + 1:j])) + "</code></pre>", j + 1, ""
    m = re.match(r"^(#{1,6})\s+(.*)$", s)
    if m:
        level, text = len(m.group(1)), m.group(2).strip()
        hid = slug(re.sub(r"[`*_]", "", text), seen)
        heads.append((level, hid, text))
        return f'<h{level} id="{hid}">{inline(text)}</h{level}>', i + 1, ""
    if s in ("---", "***"):
        return "<hr>", i + 1, ""
    m = re.match(r"^!\[([^\]]*)\]\(([^)\s]+)\)\s*$", s)
    if m:
        return _image(m.group(1), m.group(2), base, provenance), i + 1, ""
    if s.startswith("|") and i + 1 < len(lines) and re.match(r"^\|?\s*:?-{3,}", lines[i + 1].strip()):
        return _table(lines, i)
    m = re.match(r"^([-*+]|\d+[.)])\s+(.*)$", s)
    if m:
        return _list(lines, i, "ol" if m.group(1)[0].isdigit() else "ul")
    if s.startswith(">"):
        quote = []
        j = i
        while j < len(lines) and lines[j].strip().startswith(">"):
            quote.append(lines[j].strip()[1:].strip())
            j += 1
        return "<blockquote>" + inline(" ".join(quote)) + "</blockquote>", j, ""
    if s.startswith("<") and not s.startswith("<sub"):
        return s, i + 1, ""
    m = re.search(r"!\[([^\]]*)\]\(([^)\s]+)\)", s)
    if m:  # an image inside a line of text
        return _image(m.group(1), m.group(2), base, provenance), i + 1, (s[:m.start()] + s[m.end():]).strip()
    return None


def _table(lines: list[str], i: int) -> tuple[str, int, str]:
    """A pipe table whose header is line ``i`` (its rule line follows): (HTML, next line, "")."""
    head = _cells(lines[i].strip())
    rows = []
    j = i + 2
    while j < len(lines) and lines[j].strip().startswith("|"):
        rows.append(_cells(lines[j]))
        j += 1
    t = ["<table><thead><tr>" + "".join(f"<th>{inline(c)}</th>" for c in head) + "</tr></thead><tbody>"]
    for r in rows:
        t.append("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>")
    return "".join(t) + "</tbody></table>", j, ""


def _list(lines: list[str], i: int, tag: str) -> tuple[str, int, str]:
    """A list (``ul`` or ``ol``) starting at line ``i``, items continued on indented lines: (HTML, next line, "")."""
    items = []
    j = i
    while j < len(lines):
        mm = re.match(r"^\s*([-*+]|\d+[.)])\s+(.*)$", lines[j])
        if mm:
            items.append(mm.group(2))
        elif lines[j].startswith("  ") and lines[j].strip() and items:
            items[-1] += " " + lines[j].strip()
        else:
            break
        j += 1
    return f"<{tag}>" + "".join(f"<li>{inline(x)}</li>" for x in items) + f"</{tag}>", j, ""


def toc(heads) -> str:
    """A nested table of contents: every heading after the page title, down to level 3."""
    items = [h for h in heads[1:] if h[0] <= 3] if heads and heads[0][0] == 1 else [h for h in heads if h[0] <= 3]
    if not items:
        return ""
    top = min(lv for lv, _, _ in items)
    out = ['<nav class="toc"><strong>Contents</strong><ul>']
    cur = top
    for lv, hid, text in items:
        while lv > cur:
            out.append("<ul>")
            cur += 1
        while lv < cur:
            out.append("</ul>")
            cur -= 1
        out.append(f'<li><a href="#{hid}">{inline(text)}</a></li>')
    while cur > top:
        out.append("</ul>")
        cur -= 1
    out.append("</ul></nav>")
    return "".join(out)


def write_html(md_path: Path, html_path: Path, provenance: dict | None = None, title: str = "ludolab report") -> Path:
    """Write the self-contained HTML page of the Markdown report ``md_path``."""
    from .results import _atomic_write

    md = Path(md_path).read_text()
    body, heads = markdown_to_html(md, Path(md_path).parent, provenance)
    nav = toc(heads)
    # the table of contents goes after the first heading and its introduction
    first = body.find("<h", body.find("</h1>") + 1) if body.startswith("<h1") else -1
    page_body = body[:first] + nav + body[first:] if first >= 0 else nav + body
    page = (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head>\n<body>\n{page_body}\n</body></html>\n")
    _atomic_write(Path(html_path), lambda tmp: Path(tmp).write_text(page))
    return Path(html_path)
