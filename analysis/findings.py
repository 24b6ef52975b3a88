"""Findings as data: what a report section concludes, with the numbers it quotes.

A report section is a study (tables), its findings (a pure function from those
tables to a list of :class:`Finding`) and one shared renderer
(:func:`render_markdown`).  Every finding carries the numbers its text quotes
and the table each comes from, so a test can hold the text to the table.

A comparison word comes from one rule over a paired test (:func:`compare`):

- ``better`` / ``worse``: the paired 95% confidence interval of the difference
  excludes 0;
- ``equally good``: it includes 0 and its half-width is below the tolerance
  stated for that measure in :data:`TOLERANCES`;
- ``cannot tell yet``: it includes 0 but is wider than the tolerance (more
  games would decide).

Each tolerance is stated once, in :data:`TOLERANCES` (the README shows the same
table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

#: The tolerance below which a paired difference whose 95% CI includes 0 counts
#: as "equally good", per measure: (tolerance, unit, what it is).  Stated once
#: here and in the README's table "Comparison tolerances".
TOLERANCES: dict[str, tuple[float, str, str]] = {
    "box_score": (0.05, "points", "Shut the Box: expected score of one turn"),
    "bev_margin": (0.25, "points", "Beverbende: round margin (own score minus the others' mean)"),
    "bev_score": (0.25, "points", "Beverbende: own round score"),
    "books_tricks": (0.05, "tricks", "Shut The Books: mean absolute forecast error per hand"),
    "books_points": (0.25, "points", "Shut The Books: points per player-hand"),
    "shelf_points": (1.0, "points", "Shelve the Book: final score"),
    "win_share": (0.02, "share of games", "any game: chance to win"),
    "seat_edge": (0.02, "of the most it can be", "any game, two rule variants: seat edge (balance)"),
    "skill_expression": (0.02, "share of games", "any game, two rule variants: win share skill adds over random play"),
    "lead_changes": (0.05, "lead changes per game", "any game, two rule variants: lead changes"),
    "duration": (1.0, "actions per game", "any game, two rule variants: length of a game"),
    "ties": (0.01, "share of games", "any game, two rule variants: games whose best return is shared"),
}

#: The comparison words :func:`compare` chooses from, in the order of the rule.
VERDICTS = ("better", "worse", "equally good", "cannot tell yet")

#: Kinds of finding: ``comparison`` (a paired test decides its word), ``exact``
#: (quoted from exact tables), ``estimate`` (a Monte Carlo value with its CI),
#: ``rule`` (advice a person can follow at the table, with what it is worth),
#: ``definition`` (what a quoted measure means).
KINDS = ("comparison", "exact", "estimate", "rule", "definition")


@dataclass(frozen=True)
class Quote:
    """One number a finding quotes: its value, the table and column (and row) it comes from."""

    value: float
    table: str
    column: str
    row: str | None = None


@dataclass(frozen=True)
class Finding:
    """One conclusion of a report section.

    Attributes:
        kind: one of :data:`KINDS`.
        title: the headline in bold (a sentence), may be empty.
        text: the rest, Markdown.
        quotes: the numbers the text quotes, by name (:class:`Quote`).
        verdict: for a ``comparison``, the word :func:`compare` chose.

    Raises:
        ValueError: an unknown kind or verdict.
    """

    kind: str
    title: str
    text: str
    quotes: dict = field(default_factory=dict)
    verdict: str | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"finding kind {self.kind!r}: use one of {', '.join(KINDS)}")
        if self.verdict is not None and self.verdict not in VERDICTS:
            raise ValueError(f"finding verdict {self.verdict!r}: use one of {', '.join(VERDICTS)}")
        if self.kind == "comparison" and self.verdict is None:
            raise ValueError("a comparison finding needs the verdict chosen by compare()")

    def markdown(self) -> str:
        """The finding as one Markdown paragraph: ``**title** text``."""
        return f"**{self.title}** {self.text}".strip() if self.title else self.text


def compare(diff: float, ci_low: float, ci_high: float, measure: str, lower_is_better: bool = True) -> str:
    """The comparison word for a paired difference A - B, by the report's one rule.

    Args:
        diff: the paired mean difference A - B (in the measure's unit).
        ci_low, ci_high: its 95% confidence interval.
        measure: a key of :data:`TOLERANCES` (the tolerance for "equally good").
        lower_is_better: whether a negative difference means A is better (scores,
            errors) or worse (chances to win).

    Returns:
        ``"better"`` or ``"worse"`` (A against B) when the CI excludes 0; ``"equally good"``
        when it includes 0 and its half-width is below the tolerance; ``"cannot tell yet"`` otherwise.

    Raises:
        ValueError: an unknown measure, a CI that does not hold ``diff``, or a value that is not finite.
    """
    if measure not in TOLERANCES:
        raise ValueError(f"comparison measure {measure!r}: use one of {', '.join(TOLERANCES)}")
    if not all(math.isfinite(float(v)) for v in (diff, ci_low, ci_high)):
        raise ValueError(f"comparison needs finite numbers, got {diff}, ({ci_low}, {ci_high})")
    if not ci_low <= diff <= ci_high:
        raise ValueError(f"the confidence interval ({ci_low}, {ci_high}) does not hold the difference {diff}")
    if ci_low > 0 or ci_high < 0:
        a_lower = ci_high < 0
        return "better" if a_lower == lower_is_better else "worse"
    if (ci_high - ci_low) / 2 < TOLERANCES[measure][0]:
        return "equally good"
    return "cannot tell yet"


def side_of(q: float, lo: float, hi: float, mark: float) -> str:
    """Where an estimate ``q`` with 95% CI (lo, hi) lies against ``mark`` (a goal, an even share):
    ``"above"`` (the CI above it), ``"below"`` (the CI below it) or ``"inside"`` (the CI holds it)."""
    return "above" if lo > mark else ("below" if hi < mark else "inside")


def doubling_verdict(ci_low: float, ci_high: float, tolerance: float) -> str:
    """What one doubling of a strong player's budget says, by the report's rule (README, "How the report words
    its findings"): ``ci_low``, ``ci_high`` the paired 95% CI of the gain (signed so that positive is better,
    in the measure's unit), ``tolerance`` (> 0, the same unit) the gain below which play counts as stopped.

    Returns:
        ``"stopped"`` when the CI lies within ± tolerance (the doubling gains less than the tolerance, and the
        CI says so), else ``"improving"`` when it lies above 0, ``"worse"`` when below 0, ``"not settled"``
        otherwise (it includes 0 and reaches beyond the tolerance: more deals would decide).
    """
    if -tolerance < ci_low and ci_high < tolerance:
        return "stopped"
    if ci_low > 0:
        return "improving"
    if ci_high < 0:
        return "worse"
    return "not settled"


def independent_difference(a: float, a_low: float, a_high: float, b: float, b_low: float,
                           b_high: float) -> tuple[float, float, float]:
    """A - B with its 95% CI, for two estimates made on different deals (independent samples).

    Each CI is taken as symmetric normal (value +- 1.96 se); the half-widths add in quadrature.
    Two separate CIs that overlap do not say the values agree: this difference's CI does.

    Returns:
        ``(diff, ci_low, ci_high)``.

    Raises:
        ValueError: a bound that is not finite.
    """
    vals = [float(v) for v in (a, a_low, a_high, b, b_low, b_high)]
    if not all(math.isfinite(v) for v in vals):
        raise ValueError(f"independent_difference needs finite numbers, got {vals}")
    a, a_low, a_high, b, b_low, b_high = vals
    h = math.hypot((a_high - a_low) / 2, (b_high - b_low) / 2)
    d = a - b
    return d, d - h, d + h


def differs(a: float, a_low: float, a_high: float, b: float, b_low: float, b_high: float) -> bool:
    """Whether two estimates from different deals differ beyond noise: the 95% CI of their
    difference (:func:`independent_difference`) excludes 0."""
    _, lo, hi = independent_difference(a, a_low, a_high, b, b_low, b_high)
    return lo > 0 or hi < 0


def all_agree(items) -> bool:
    """Whether no two of several estimates ``(label, value, low, high)`` from different deals
    differ beyond noise (:func:`differs` for every pair)."""
    items = list(items)
    return not any(differs(*x[1:4], *y[1:4]) for i, x in enumerate(items) for y in items[i + 1:])


def one_seat(game, case, contenders: list, deals: int, seed: int, measure: str, scale: float = 1.0) -> list[dict]:
    """Each contender in one seat, the first contender (the baseline) in every other seat, on duplicate deals with
    the seats rotated (:func:`ludolab.sim.ladder.ladder` over the step game), judged by the report's one rule.

    Args:
        game: a step game; case: one of its rulesets; contenders: :class:`ludolab.sim.ladder.Contender` list,
            the baseline first; deals >= 2; measure: a key of :data:`TOLERANCES`; scale: the returns are divided
            by it (e.g. the hands of a game, for points per hand).

    Returns:
        one dict per contender: ``mean``, ``diff`` with ``ci_low``/``ci_high`` (its return minus the baseline's
        in the same seat, paired 95% CI), ``share_changed``, ``win_share`` (as the ladder gives them) and
        ``verdict`` (:func:`compare`, in the game's direction; ``baseline`` on the first row).

    Raises:
        ValueError: fewer than 2 deals, or an unknown measure.
    """
    from ludolab.sim import ladder as L

    rows = L.ladder(L.Table(game, case), contenders, contenders[0], deals, seed)
    out = []
    for r in rows:
        d, lo, hi = (r[k] / scale for k in ("diff", "ci_low", "ci_high"))
        out.append({"mean": r["mean"] / scale, "diff": d, "ci_low": lo, "ci_high": hi,
                    "share_changed": r["share_changed"], "win_share": r["win_share"],
                    "verdict": "baseline" if not out else compare(d, lo, hi, measure, bool(game.lower_wins))})
    return out


def one_seat_clause(name: str, diff: float, low: float, high: float, verdict: str, changed: float,
                    unit: str, result: str = "score") -> str:
    """One contender of :func:`one_seat` in a finding: ``*name*: +0.10 points a game (paired 95% CI -0.10 to
    +0.30), equally good, changing the seat's score in 90% of games`` (``result`` names what changes)."""
    return (f"*{name}*: {diff:+.2f} {unit} (paired 95% CI {low:+.2f} to {high:+.2f}), {verdict}, changing the "
            f"seat's {result} in {changed:.0%} of games")


def tolerance_text(measure: str) -> str:
    """The tolerance of ``measure`` in words, e.g. ``"0.25 points"``.

    Raises:
        KeyError: an unknown measure.
    """
    tol, unit, _ = TOLERANCES[measure]
    first, sep, rest = unit.partition(" ")
    if tol == 1 and first.endswith("s"):   # "1 point", "1 action per game"
        unit = first[:-1] + sep + rest
    return f"{tol:g} {unit}"


def tolerances_markdown() -> str:
    """:data:`TOLERANCES` as a Markdown table (the README shows it)."""
    rows = ["| measure | tolerance | what is compared |", "|---|---|---|"]
    rows += [f"| `{k}` | {tolerance_text(k)} | {what} |" for k, (_, _, what) in TOLERANCES.items()]
    return "\n".join(rows)


def render_markdown(findings: list) -> str:
    """The findings as Markdown bullets, in order (plain strings pass through as they are).

    Args:
        findings: :class:`Finding` objects or ready Markdown strings.

    Returns:
        One ``- ...`` line per finding, joined by newlines.
    """
    return "\n".join(f"- {f.markdown() if isinstance(f, Finding) else f}" for f in findings)


def fmt_ci(value: float, low: float, high: float, spec: str = ".2f") -> str:
    """A value and its 95% CI in one cell: ``"21.42 (21.38 to 21.46)"``."""
    return f"{value:{spec}} ({low:{spec}} to {high:{spec}})"


def render_section(title: str, findings: list, body: list, *, before: tuple = (),
                   heading: str = "What a player should know", intro: str | None = None,
                   after: tuple = ()) -> str:
    """The one renderer of a report section: its title, the findings first, then the study's tables and charts.

    Args:
        title: the game's name (the section's ``#`` heading).
        findings: :class:`Finding` objects, most useful first (:func:`render_markdown`).
        body: the study's Markdown blocks in order (sub-headings, prose, tables and charts, each as the
            report context wrote it), each ending with a newline.
        before: blocks between the title and the findings heading (a warning the reader must see first).
        heading: the findings' ``##`` heading.
        intro: a line said before the findings, or ``None``.
        after: blocks between the findings and the body (how the numbers were made).

    Returns:
        The section's Markdown: the blocks joined by newlines.
    """
    blocks = [f"# {title}\n", *before, f"## {heading}\n", *([intro] if intro else []),
              render_markdown(findings) + "\n", *after, *body]
    return "\n".join(blocks)


def _in_column(df, column: str, value: float, rtol: float) -> bool:
    """Whether ``value`` is one of the numbers of ``df[column]`` (cells that are not numbers never match)."""
    import numpy as np
    import pandas as pd

    vals = pd.to_numeric(df[column], errors="coerce").astype(float).to_numpy()
    return bool(np.isclose(vals, float(value), rtol=rtol, atol=1e-12).any())


def quote_problems(findings: list, tables: dict, rtol: float = 1e-9) -> list[str]:
    """What does not hold between findings and the tables they quote: a finding that is not a
    :class:`Finding`, a quote of a table or column not given, a quoted number not in its column.

    Args:
        findings: what a section's findings function returned.
        tables: table name (as in :attr:`Quote.table`) -> DataFrame; a quote of a table not given here (a
            parameter table of the code) is skipped.
        rtol: relative tolerance of the match.

    Returns:
        One line per problem; empty when every quoted number is found in its table.
    """
    out = []
    for i, f in enumerate(findings):
        if not isinstance(f, Finding):
            out.append(f"finding {i} is a {type(f).__name__}, not a Finding: {str(f)[:60]!r}")
            continue
        for name, q in f.quotes.items():
            df = tables.get(q.table)
            if df is None:
                continue
            if q.column not in df.columns:
                out.append(f"finding {i} quote {name}: table {q.table} has no column {q.column}")
            elif not _in_column(df, q.column, q.value, rtol):
                out.append(f"finding {i} quote {name}: {q.value} is not in {q.table}.{q.column}")
    return out
