"""``ludolab report``: a Markdown report of every game implemented, on built-in defaults.

Each game contributes a section through :data:`SECTIONS`: a function
``section(ctx) -> str`` that writes its tables and charts through the context
and returns Markdown.  A new game adds one function to the list.
"""

from __future__ import annotations

import datetime as _dt
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from .results import _atomic_write, provenance, save_figure, save_table, versions


@dataclass
class ReportContext:
    """What a report section gets: the output folder, the run size, the seed,
    and helpers that write a table or a chart and return its Markdown."""

    out_dir: Path
    quick: bool
    seed: int
    log: Callable[[str], None] | None = None
    files: list = field(default_factory=list)

    def say(self, msg: str) -> None:
        if self.log:
            self.log(msg)

    def table(self, df: pd.DataFrame, name: str, meta: dict, floatfmt: str = ".4g", rows: int | None = None) -> str:
        """Save ``df`` (CSV + provenance sidecar) and return it as a Markdown table."""
        self.files += save_table(df, self.out_dir / "tables", name, "csv", meta)
        shown = df if rows is None else df.head(rows)
        return markdown_table(shown, floatfmt) + f"\n\n<sub>Table: `tables/{name}.csv`</sub>\n"

    def figure(self, fig, name: str, caption: str) -> str:
        path = save_figure(fig, self.out_dir / "charts", name)
        self.files.append(path)
        return f"![{caption}](charts/{name}.png)\n"


def markdown_table(df: pd.DataFrame, floatfmt: str = ".4g") -> str:
    """A DataFrame as a GitHub Markdown table."""
    def fmt(v):
        if isinstance(v, float):
            return format(v, floatfmt)
        return str(v)

    head = "| " + " | ".join(str(c) for c in df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body])


def box_section(ctx: ReportContext) -> str:
    """Shut the Box: optimal values, policies, scoring variants, targets, matches."""
    from ludolab.analysis import box_analysis as ba
    from ludolab.analysis import plots
    from ludolab.sim import box
    from ludolab.stdlib.box import BoxRules

    rules = BoxRules()
    games = 100_000 if ctx.quick else 2_000_000
    meta = provenance("box", rules=rules.to_dict(), seed=ctx.seed)
    md = ["# Shut the Box\n",
          f"Default rules: {rules.label()} (clauses in `seeds/shut_the_box.md`). "
          "Values marked exact come from dynamic programming over every set of open tiles; "
          f"simulated values use {games:,} games with root seed {ctx.seed} and carry 95% confidence intervals.\n"]

    ctx.say("box: optimal values for every one-die rule ...")
    ov = ba.optimal_values((9, 10, 12))
    md += ["## Optimal play for every one-die rule\n",
           "Best expected score and best chance to shut, with the worst play (adversarial) as a bound. "
           "Exact, for 9, 10 and 12 tiles.\n",
           ctx.table(ov, "box_optimal_values", {**meta, "what": "optimal start values"})]
    exact_rows = []
    for rule in ("never", "789-optional", "le6-forced"):
        sol = box.solve(rules.replace(one_die=rule), "shut", exact=True)
        v = sol.start_value_exact
        exact_rows.append({"one_die": rule, "max_p_shut": f"{v.numerator}/{v.denominator}",
                           "decimal": float(v)})
    md += ["\nExact fractions for the chance to shut 1-9 (these reproduce the published values: "
           "466473281/6530347008 with two dice always, 956177159/9795520512 with a one-die rule).\n",
           ctx.table(pd.DataFrame(exact_rows), "box_exact_p_shut", meta, ".10f")]

    ctx.say("box: policy comparison ...")
    pols = ba.catalogue(rules)
    cmp_df = box.compare(pols, games, ctx.seed)
    summ = ba.policy_summary(pols)
    md += ["\n## How much the policy matters\n",
           "Exact summary of each policy (9 tiles): mean and standard deviation of the score, chance to shut, "
           "chance of a score below 5 and below 10.\n",
           ctx.table(summ, "box_policy_summary", meta),
           f"\nPaired Monte Carlo over the same {games:,} dice sequences (common random numbers): "
           "`diff_vs_first` is the mean extra score against the optimal policy, with its 95% CI.\n",
           ctx.table(cmp_df[["policy", "mean_score", "mc_mean_score", "mc_mean_score_ci_low", "mc_mean_score_ci_high",
                             "diff_vs_first", "diff_vs_first_ci_low", "diff_vs_first_ci_high"]],
                     "box_policy_compare", {**meta, "games": games}),
           ctx.figure(plots.fig_score_distributions(ba.score_distributions(pols)), "box_score_distributions",
                      "Final score distribution by policy")]

    ctx.say("box: Monte Carlo check ...")
    opt = pols[0]
    sim = box.simulate(opt, games, ctx.seed + 1)
    ev = box.evaluate(opt)
    m, p = sim.mean(), sim.p_shut()
    chk = pd.DataFrame([
        {"quantity": "mean score", "exact": ev.mean(), "simulated": m.value, "ci_low": m.low, "ci_high": m.high,
         "inside": m.contains(ev.mean())},
        {"quantity": "P(shut)", "exact": ev.p_shut, "simulated": p.value, "ci_low": p.low, "ci_high": p.high,
         "inside": p.contains(ev.p_shut)}])
    md += ["\n### Simulation against the exact values\n",
           ctx.table(chk, "box_mc_check", {**meta, "games": games, "seed": ctx.seed + 1}, ".6g"),
           ctx.figure(plots.fig_mc_distribution(ev.distribution(), sim.distribution(), sim.games), "box_mc_distribution",
                      "Simulated against exact score distribution")]

    ctx.say("box: scoring variants ...")
    matrix, dis = ba.variants_matrix(rules)
    piv = matrix.pivot(index="optimised_for", columns="scored_by", values="cost_pct")
    order = list(dict.fromkeys(matrix["optimised_for"]))
    piv = piv.loc[order, order].reset_index()
    md += ["\n## Playing for the wrong scoring\n",
           "Each row is the policy that minimises the expected score under one scoring; each column scores it under "
           "another. Cells: how far above the best possible expected score for the column (in %).\n",
           ctx.table(piv, "box_variants_cost_pct", meta, ".3g"),
           ctx.figure(plots.fig_variants_matrix(matrix), "box_variants_matrix", "Cost of playing for the wrong scoring"),
           "\nWhere the policies disagree most (weighted by how often the row's policy meets the situation):\n",
           ctx.table(dis, "box_variants_disagreements", meta, ".4g", rows=10)]

    ctx.say("box: chance to beat a target ...")
    curve = ba.beat_curve(rules)
    pick = curve[curve["target"].isin([5, 10, 15, 20])].pivot(index="target", columns="one_die", values="p_beat")
    md += ["\n## Chance to beat a target\n",
           "The best chance of a score strictly below T, playing for that T, for each one-die rule.\n",
           ctx.table(pick.reset_index(), "box_beat_targets", meta),
           ctx.figure(plots.fig_beat_curve(curve), "box_beat_curve", "P(score < T) against T")]

    ctx.say("box: matches ...")
    mt = ba.match_table(rules, (2, 3, 4, 5, 6))
    two = mt[mt["players"] == 2].drop(columns="players")
    md += ["\n## The two-player game\n",
           "Exact equilibrium of one round: the second player knows the score to beat and plays for it; the first "
           "player plays to maximise the chance to win against that reply. A shut box wins at once.\n",
           ctx.table(two, "box_match_2p", meta),
           "\nWin probability by seat for 2 to 6 players (exact):\n",
           ctx.table(mt, "box_match_seats", meta, rows=None),
           ctx.figure(plots.fig_seat_wins(mt), "box_seat_wins", "Win probability by seat")]
    n_multi = 20_000 if ctx.quick else 200_000
    rounds = box.simulate_rounds([opt] * 4, n_multi, ctx.seed + 2, rounds=4)
    elim = box.simulate_rounds([opt] * 4, n_multi, ctx.seed + 3, rounds=None, threshold=45)
    md += [f"\nFour players, each playing the min-expected-score policy, {n_multi:,} simulated games each. "
           "Four rounds, lowest total wins:\n",
           ctx.table(rounds, "box_multi_round", {**meta, "games": n_multi}),
           "\nElimination at 45: a player whose total reaches 45 drops out; the last one left wins:\n",
           ctx.table(elim, "box_elimination", {**meta, "games": n_multi})]

    ctx.say("box: policy map ...")
    small = BoxRules(tiles=tuple(range(1, 7)))
    sol6 = box.solve(small)
    sol9 = box.solve(rules)
    md += ["\n## The optimal policy\n",
           "For tiles 1-6, the tiles to cover for every set of open tiles and roll (x: the roll cannot be covered).\n",
           ctx.figure(plots.fig_policy_map(plots.policy_map_frame(sol6)), "box_policy_map_6",
                      "Optimal policy map, tiles 1-6"),
           "\nFor 1-9, the situations with a real choice that the optimal player meets most often:\n",
           ctx.table(ba.decision_states(sol9, 15), "box_decisions_9", meta)]
    return "\n".join(md)


#: Report sections, one per game, in order.
SECTIONS: list[Callable[[ReportContext], str]] = [box_section]


def build_report(out_dir: str | Path = "ludolab-report", quick: bool = False, seed: int = 2026,
                 log: Callable[[str], None] | None = None) -> Path:
    """Write ``report.md`` with its ``tables/`` and ``charts/`` into ``out_dir``.

    Returns:
        Path of report.md.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"--out {str(out_dir)!r} is a file: give a folder")
    t0 = time.perf_counter()
    ctx = ReportContext(out_dir, quick, seed, log)
    parts = [section(ctx) for section in SECTIONS]
    v = versions()
    head = ("# ludolab report\n\n"
            f"Made {_dt.datetime.now(_dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} with ludolab {v['ludolab']} "
            f"(numpy {v['numpy']}, numba {v['numba']}, pandas {v['pandas']}); root seed {seed}"
            f"{', quick run' if quick else ''}. Every table is also saved as CSV with a `.meta.json` provenance "
            "sidecar.\n")
    tail = f"\n---\nBuilt in {time.perf_counter() - t0:.1f} s.\n"
    path = out_dir / "report.md"
    _atomic_write(path, lambda tmp: Path(tmp).write_text(head + "\n" + "\n\n".join(parts) + tail))
    return path
