"""The report's section for designers: every game's rule variants side by side on the balance measures.

The study (:func:`variant_study`) plays each named rule variant of a game (its step game's
``extra["variants"]``) on the same duplicate deals with the game's best heuristic in every seat
(and once more per seat with that seat at random, for the skill measure), measures each with
:mod:`ludolab.sim.balance` and compares it with the rulebook on the same deals
(:func:`ludolab.sim.balance.paired_difference`).  The verdict of a row (:func:`verdict`) and the
findings (:func:`findings`) are pure functions of that table; the words follow the report's one
comparison rule (:func:`ludolab.analysis.findings.compare`, tolerances in
:data:`ludolab.analysis.findings.TOLERANCES`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from .findings import TOLERANCES, Finding, Quote, compare, tolerance_text

#: The measures of the designer's table: key (a :data:`ludolab.sim.balance.PAIRED` measure and a
#: tolerance of :data:`ludolab.analysis.findings.TOLERANCES`), plain name, word when higher, word when lower.
MEASURES = (("seat_edge", "seat edge", "more seat edge", "less seat edge"),
            ("skill_expression", "win share skill adds over random play", "more skill", "less skill"),
            ("lead_changes", "lead changes per game", "more lead changes", "fewer lead changes"),
            ("duration", "actions per game", "longer", "shorter"),
            ("ties", "share of games with a shared win", "more ties", "fewer ties"))

#: Deals per variant: the full report and ``--quick``.
GAMES = {False: 400, True: 60}


def variant_study(game, games: int, seed: int) -> pd.DataFrame:
    """Every named rule variant of one game on the same deals, with its paired difference from the first.

    Args:
        game: a registered game (its id or :class:`ludolab.stdlib.registry.GameInfo`) whose step game
            has ``extra["variants"]``.
        games: duplicate deals per variant (2 or more); seed: the deals' root seed.

    Returns:
        One row per variant (the rulebook first): ``game``, ``players``, ``variant``, and per measure of
        :data:`MEASURES` its value with ``_ci_low`` / ``_ci_high`` and its paired difference from the
        rulebook ``_diff`` with ``_diff_ci_low`` / ``_diff_ci_high`` (95%); ``verdict`` (:func:`verdict`).

    Raises:
        LudolabError: an unknown game; ValueError: a game without variants, or fewer than 2 games.
    """
    from ludolab.sim import balance as BAL
    from ludolab.sim.step import named_policies
    from ludolab.stdlib import registry

    info = registry.get(game) if isinstance(game, str) else game
    g = info.entry("step_game")()
    if "variants" not in g.extra:
        raise ValueError(f"{info.title} has no rule variants")
    players = next(c.n_players for c in g.cases if c.n_players >= 2)
    lower = bool(g.lower_wins)
    cases = list(g.extra["variants"](players))
    runs, rows = [], []
    for case in cases:
        named = named_policies(g, case)
        moments = int(g.extra["moments"](case.rules)) if "moments" in g.extra else int(g.max_steps(case.rules)) + 1
        run = BAL.play_duplicate(g.kernels, case.rules, [named[g.extra["best"]]] * players, games, seed, moments,
                                 named[g.extra["random"]])
        runs.append(run)
        found = {r["metric"]: r for r in BAL.measures(run[0], lower) + BAL.skill(*run, lower, seed=seed)}
        row = {"game": info.title, "players": players, "variant": case.label}
        for key, *_ in MEASURES:
            r = found[key]
            row.update({key: r["value"], f"{key}_ci_low": r["ci_low"], f"{key}_ci_high": r["ci_high"]})
            d = BAL.paired_difference(run, runs[0], key, lower, seed=seed) if len(runs) > 1 else (0.0, 0.0, 0.0)
            row.update({f"{key}_diff": d[0], f"{key}_diff_ci_low": d[1], f"{key}_diff_ci_high": d[2]})
        rows.append(row)
    table = pd.DataFrame(rows)
    table["verdict"] = [verdict(r, i == 0) for i, r in enumerate(table.to_dict("records"))]
    return table


def _words(row: dict) -> list[tuple[str, str, str]]:
    """Per measure of a row: (key, comparison word of :func:`compare`, plain word), higher read as 'better'."""
    out = []
    for key, _, more, less in MEASURES:
        w = compare(row[f"{key}_diff"], row[f"{key}_diff_ci_low"], row[f"{key}_diff_ci_high"], key,
                    lower_is_better=False)
        out.append((key, w, more if w == "better" else less if w == "worse" else w))
    return out


def verdict(row: dict, reference: bool = False) -> str:
    """A variant's row in one line, against the rulebook on the same deals, by the report's rule.

    Returns:
        ``"the rulebook"`` for the reference row; else the measures whose paired 95% CI excludes 0, in words
        (``"longer, more ties"``); ``"the same as the rulebook"`` when every measure is equally good within
        its tolerance; ``"no difference shown yet"`` otherwise.
    """
    if reference:
        return "the rulebook"
    words = _words(row)
    moved = [plain for _, w, plain in words if w in ("better", "worse")]
    if moved:
        return ", ".join(moved)
    return "the same as the rulebook" if all(w == "equally good" for _, w, _ in words) else "no difference shown yet"


def findings(table: pd.DataFrame, name: str) -> list[Finding]:
    """What a designer should know from one game's variants table: the largest change a variant makes.

    Args:
        table: :func:`variant_study`'s rows; name: the table's file name (quoted by the findings).

    Returns:
        One :class:`Finding`: a ``comparison`` for the variant and measure whose paired difference from the
        rulebook is largest in units of its tolerance among those whose CI excludes 0, else an ``estimate``
        saying no variant is told apart at this number of deals.
    """
    rows = table.to_dict("records")
    ref, title = rows[0]["variant"], f"{rows[0]['game']} ({rows[0]['players']} players):"
    best = None
    for r in rows[1:]:
        for key, w, plain in _words(r):
            if w in ("better", "worse"):
                size = abs(r[f"{key}_diff"]) / TOLERANCES[key][0]
                if best is None or size > best[0]:
                    best = (size, r, key, w, plain)
    if best is None:
        return [Finding("estimate", title, f"no variant is told apart from {ref} on any measure at these deals "
                                           "(each row's verdict says which measures cannot tell yet).")]
    _, r, key, w, plain = best
    label = dict((k, n) for k, n, *_ in MEASURES)[key]
    d, lo, hi = (r[f"{key}_diff{x}"] for x in ("", "_ci_low", "_ci_high"))
    text = (f"the largest change is {r['variant']}: {plain} than {ref} ({label} {_n(r[key])} against "
            f"{_n(rows[0][key])}, paired difference {d:+.3f}, 95% CI {lo:+.3f} to {hi:+.3f}; tolerance "
            f"{tolerance_text(key)}).")
    quotes = {"diff": Quote(d, name, f"{key}_diff", r["variant"]), "value": Quote(r[key], name, key, r["variant"])}
    return [Finding("comparison", title, text, quotes, verdict=w)]


def _n(x: float) -> str:
    x = float(x)
    return f"{x:.1f}" if abs(x) >= 10 else f"{x:.3f}"


def fig_variants(table: pd.DataFrame) -> Figure:
    """The variants side by side on the two measures that differ most from the rulebook (largest paired
    difference in units of its tolerance), each bar a variant's value with its 95% CI.

    Returns:
        A Figure with two horizontal bar panels, each bar labelled with its value.
    """
    keys = sorted(MEASURES, key=lambda m: -np.nanmax(np.abs(table[f"{m[0]}_diff"])) / TOLERANCES[m[0]][0])[:2]
    fig = Figure(figsize=(9.0, 0.5 + 0.42 * len(table) + 1.0), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(table))[::-1]
    for ax, (key, label, *_) in zip(axes, keys):
        v = table[key].to_numpy(float)
        err = np.vstack([v - table[f"{key}_ci_low"].to_numpy(float), table[f"{key}_ci_high"].to_numpy(float) - v])
        ax.barh(y, v, xerr=err, color=["#8c8c8c"] + ["#3182bd"] * (len(table) - 1), capsize=3)
        # each value written beyond its whisker, so a bar of length 0 (no ties at all) still reads; one
        # precision per panel, on a white ground where the rulebook's dashed line passes
        fmt = "{:.1f}" if np.nanmax(np.abs(v)) >= 10 else "{:.3f}"
        for yi, vi, hi in zip(y, v, np.nan_to_num(v + err[1], nan=0.0)):
            ax.text(max(hi, vi, 0.0), yi, " " + fmt.format(vi), va="center", fontsize=8, color="#333333",
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5}, zorder=3)
        ax.margins(x=0.18)
        ax.set_title(label, fontsize=10)
        ax.axvline(v[0], color="#444444", lw=0.8, ls="--")
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y, table["variant"])
    fig.suptitle(f"{table['game'].iloc[0]}, {table['players'].iloc[0]} players: the rule variants on the two "
                 "measures that differ most\n(grey bar and dashed line: the rulebook; whiskers: 95% CIs)", fontsize=10)
    return fig


def report_section(ctx) -> str:
    """The report's section for designers: one table (one row per variant, the same columns for every game)
    and one chart per game, with the findings first.

    Args:
        ctx: the :class:`ludolab.analysis.report.ReportContext`.

    Returns:
        The section's Markdown ("" when no registered game has rule variants).
    """
    from ludolab.analysis.results import provenance
    from ludolab.stdlib import registry

    games = GAMES[bool(ctx.quick)]
    parts, found = [], []
    for g in registry.GAMES:
        if "step_game" not in getattr(g, "entry_points", {}) or "variants" not in g.entry("step_game")().extra:
            continue  # only games with a step interface and named rule variants
        ctx.game = g.id
        ctx.say(f"designer: {g.title} rule variants, {games:,} deals each ...")
        table = variant_study(g, games, ctx.seed)
        name = f"designer_{g.id}"
        found += findings(table, name)
        shown = table[["variant"] + [c for k, *_ in MEASURES for c in (k, f"{k}_ci_low", f"{k}_ci_high")]
                      + ["verdict"]]
        md = ctx.table(table, name, provenance(g.id, games=games, seed=ctx.seed, players=int(table["players"][0]),
                                               policy="the game's best heuristic in every seat"), shown=shown)
        fig = ctx.figure(fig_variants(table), name, f"{g.title}: rule variants on the two measures that differ "
                                                    "most from the rulebook")
        legend = " · ".join(f"`{c}`" for c in ["variant", *(k for k, *_ in MEASURES), "verdict"])
        parts.append(f"## {g.title}, {int(table['players'][0])} players\n\nColumns (defined at the top of this "
                     f"section): {legend}.\n\n{md}\n{fig}")
    ctx.game = None
    if not parts:
        return ""
    from .findings import render_markdown

    head = ("# For designers: what each rule variant does\n\n"
            f"Each game's named rule variants, played on the same {games:,} deals by the game's best heuristic "
            "in every seat (the same deals once more per seat with that seat at random, for the skill measure), "
            "against the rulebook on the same deals. The measures are `ludolab balance`'s (definitions in the "
            "README, section \"Balance\"); `ludolab balance GAME --variants` gives every measure of every "
            "variant.\n\n" + render_markdown(found) + "\n\n"
            "Columns: `variant` the rule variant (the rulebook first); `seat_edge` the largest seat's win share "
            "above the even share, as a share of the most it can be; `skill_expression` the win share a seat "
            "gains by playing the heuristic instead of at random; `lead_changes` times the sole leader changes "
            "per game; `duration` actions per game (all seats); `ties` the share of games whose best return is "
            "shared; each with its 95% CI. `verdict` the measures on which the variant differs from the rulebook "
            "on the same deals (paired 95% CI of the difference, from resampling the deals, excluding 0), by the "
            "report's comparison rule; a difference within its tolerance is \"the same\" (tolerances: "
            + "; ".join(f"{k} {tolerance_text(k)}" for k, *_ in MEASURES) + ").\n")
    return head + "\n" + "\n\n".join(parts)
