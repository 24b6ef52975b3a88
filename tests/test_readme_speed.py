"""The README's Speed section quotes its own table: every figure of its prose is the figure of the
``ludolab bench`` table printed above it, rounded as the prose writes it (no bench is run here)."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _speed_section() -> str:
    text = README.read_text()
    start = text.index("\n## Speed\n")
    return text[start:text.index("\n## ", start + 5)]


def _table(section: str) -> dict:
    """kernel -> {"one": one-thread fastest, "all": all-thread fastest, "ratio", "each_ms", "each_s"}."""
    block = section[section.index("$ ludolab bench\n"):]
    head, *lines = block[:block.index("```")].splitlines()[1:]
    rows = {}
    for ln in lines:
        kernel = ln[head.index("kernel"):head.index("unit")].strip()
        rates = re.findall(r"([\d,.]+) \[[\d,.]+, [\d,.]+\]", ln)
        tail = ln.split("]")[-1].split()
        each = re.search(r"([\d.]+) (ms|s)$", ln)
        ratio = tail[1]  # after the rates: reference, ratio, and the time of one call where there is one
        rows[kernel] = {"one": float(rates[0].replace(",", "")), "all": float(rates[1].replace(",", "")),
                        "ratio": float(ratio.replace(",", ""))}
        if each:
            rows[kernel]["each_" + each.group(2)] = float(each.group(1))
    return rows


def _row(rows: dict, prefix: str) -> dict:
    (match,) = [v for k, v in rows.items() if k.startswith(prefix)]
    return match


#: (what the prose says, with one number captured; the row's kernel name begins so; field; unit scale)
CLAIMS = [
    (r"one thread simulates ([\d.]+) million 9-tile games", "box.simulate (9 tiles, optimal", "one", 1e6),
    (r"under the optimal table \(([\d,]+) times the reference\)", "box.simulate (9 tiles, optimal", "ratio", 1),
    (r"The exact DP for 12 tiles takes ([\d.]+) ms", "box.solve (12 tiles", "each_ms", 1),
    (r"match-play DP for 9 tiles and 3 rounds ([\d.]+) s", "box match play DP", "each_s", 1),
    (r"foresight for 9 tiles ([\d.]+) s", "box foresight (9 tiles", "each_s", 1),
    (r"a numba kernel, ([\d,]+) times its pure-Python twin", "box foresight (9 tiles", "ratio", 1),
    (r"the search of 1,200 rules of thumb ([\d.]+) s", "box rule-of-thumb search", "each_s", 1),
    (r"Shut The Books: ([\d,]+) four-player hands a second", "books hands", "one", 1),
    (r"heuristic forecasts and play, ([\d,]+) times the reference", "books hands", "ratio", 1),
    (r"Shelve the Book: ([\d.]+) million tableaus scored", "shelf tableau scoring", "one", 1e6),
    (r"tableaus scored a second on one thread \(([\d,]+) times", "shelf tableau scoring", "ratio", 1),
    (r"pure-Python scorer; ([\d.]+) million on two threads", "shelf tableau scoring", "all", 1e6),
    (r"directly\. ([\d,]+) four-player greedy games", "shelf greedy", "one", 1),
    (r"greedy games a second on one thread \(([\d,]+) times the reference\)", "shelf greedy", "ratio", 1),
    (r"the table's ([\d,]+) came at another", "shelf greedy", "one", 1),
    (r"Beverbende: ([\d,]+) four-player rounds", "beverbende.simulate", "one", 1),
    (r"threshold heuristic, ([\d,]+) times the reference", "beverbende.simulate", "ratio", 1),
    (r"smallest table\): ([\d,]+) playouts a second for Shut the Box", "box.search", "one", 1),
    (r"Shut the Box, ([\d,]+) for Shut The Books", "books.search", "one", 1),
    (r"hands\), ([\d,]+) for Beverbende", "beverbende.search", "one", 1),
    (r"rounds\) and ([\d,]+) for Shelve the Book", "shelf.search", "one", 1),
    (r"searched decision \(([\d.]+) ms in Shelve the Book", "shelf.search", "each_ms", 1),
]


@pytest.mark.parametrize("claim", CLAIMS, ids=[c[0][:40] for c in CLAIMS])
def test_a_speed_figure_in_the_readme_prose_is_the_tables(claim):
    pattern, prefix, field, scale = claim
    section = _speed_section()
    prose = " ".join(section.split())
    found = re.search(pattern, prose)
    assert found, f"the README's Speed prose no longer says {pattern!r}"
    text = found.group(1)
    said = float(text.replace(",", ""))
    decimals = len(text.split(".")[1]) if "." in text else 0
    value = _row(_table(section), prefix)[field] / scale
    if decimals == 0 and "," in text or said >= 1000:  # a whole number quoted to 3 significant figures
        tolerance = 10 ** max(0, len(str(int(value))) - 3) / 2
    else:
        tolerance = 0.5 * 10 ** -decimals
    assert abs(said - value) <= tolerance + 1e-9, f"prose {text} against the table's {value:g} ({prefix}, {field})"


def test_the_search_ratios_quoted_span_the_tables():
    section = _speed_section()
    prose = " ".join(section.split())
    lo, hi = (int(x) for x in re.search(r"Shelve the Book; (\d+) to (\d+) times the pure-Python twin", prose).groups())
    ratios = [v["ratio"] for k, v in _table(section).items() if ".search (PIMC" in k]
    assert len(ratios) == 4 and (lo, hi) == (round(min(ratios)), round(max(ratios)))
