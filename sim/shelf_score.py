"""Scoring a finished Shelve the Book tableau in plain Python (SHB-10, SHB-11).

The pure-Python twin of the kernel scorers of :mod:`ludolab.sim.shelf_kernels` (the tests hold
them equal on random tableaus).  ``shelf score`` answers from here alone: this module imports
neither numba nor any module that does, so one tableau is scored before numba could be imported.
"""

from __future__ import annotations

from dataclasses import dataclass

from ludolab.stdlib.shelf import KINDS


def continues(attrs, a, b, k: int) -> bool:
    """Does card b continue a run of kind k (index into KINDS) after card a?"""
    fa, ca, na, ra = attrs[a][0], attrs[a][1], attrs[a][2], attrs[a][3]
    fb, cb, nb, rb = attrs[b][0], attrs[b][1], attrs[b][2], attrs[b][3]
    return (ca == cb, fa == fb, na < nb, na > nb, ra < rb, ra > rb)[k]


def line_runs(cards: list, attrs, points) -> list[tuple[int, int, int, int]]:
    """Scoring runs of one line: (kind, first place, length, points), kinds in order.

    cards: card ids, None for an empty place (which ends a run)."""
    found = []
    for k in range(len(KINDS)):
        run, start, prev = 0, 0, None
        for j, c in enumerate(list(cards) + [None]):
            if c is not None and prev is not None and continues(attrs, prev, c, k):
                run += 1
            else:
                if run > 0 and points[min(run, 5)] > 0:
                    found.append((k, start, run, int(points[min(run, 5)])))
                run, start = (1, j) if c is not None else (0, j)
            prev = c
    return found


def combinations(tab: list, attrs, points, columns: bool = False) -> list[dict]:
    """Every scoring combination of a finished tableau (SHB-10, SHB-11).

    tab: 15 card ids, top shelf first, left to right.  Returns dicts with
    ``line`` (``shelf 1..3`` or ``column 1..5``), ``kind``, ``positions``
    (1-based, along the line) and ``points``."""
    out = []
    for r in range(3):
        for k, s, n, p in line_runs(tab[5 * r:5 * r + 5], attrs, points):
            out.append({"line": f"shelf {r + 1}", "kind": KINDS[k], "positions": list(range(s + 1, s + n + 1)),
                        "points": p})
    if columns:
        for c in range(5):
            for k, s, n, p in line_runs([tab[c], tab[5 + c], tab[10 + c]], attrs, points):
                out.append({"line": f"column {c + 1}", "kind": KINDS[k],
                            "positions": list(range(s + 1, s + n + 1)), "points": p})
    return out


def score(tab: list, attrs, points, columns: bool = False) -> int:
    """Total points of a finished tableau (the pure-Python twin of the kernel scorer)."""
    return sum(c["points"] for c in combinations(tab, attrs, points, columns))


def score_kinds(tab: list, attrs, points, columns: bool = False) -> list[int]:
    """Points of a finished tableau per kind (in KINDS order)."""
    out = [0] * len(KINDS)
    for c in combinations(tab, attrs, points, columns):
        out[KINDS.index(c["kind"])] += c["points"]
    return out


@dataclass(frozen=True)
class TableauScore:
    """The score of one tableau: ``total`` and every combination (line, kind, positions, points)."""

    total: int
    combinations: list

    def by_kind(self) -> dict:
        """Points per kind (every kind of KINDS, in order; 0 where none scored)."""
        out = {k: 0 for k in KINDS}
        for c in self.combinations:
            out[c["kind"]] += c["points"]
        return out


def score_tableau_reference(tableau, rules) -> TableauScore:
    """Score a tableau read by :func:`ludolab.stdlib.shelf.parse_tableau` (a ``Deck`` of its 15
    cards, top shelf first) under ``rules`` (a :class:`~ludolab.stdlib.shelf.ShelfRules`: the points
    of a run by its length, and whether the columns score), by the pure-Python scorer alone
    (SHB-10, SHB-11); :func:`ludolab.sim.shelf.score_tableau` checks it against the kernel.

    Returns:
        :class:`TableauScore`: the total and every combination, shelves first, then columns."""
    combos = combinations(list(range(15)), tableau.attrs.tolist(), rules.points.tolist(), rules.columns)
    return TableauScore(sum(c["points"] for c in combos), combos)
