"""Beverbende analyses: tables, charts, the tuner, the report section and the bench entries.

Every study here runs on common random numbers (the same deals and streams
for every policy or threshold compared) and reports 95% confidence
intervals.  Clause ids (``BVB-n``) refer to ``seeds/beverbende.md``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ludolab.sim import beverbende as bev
from ludolab.stdlib.beverbende import SCORINGS, SPECIAL_NAMES, BeverbendeRules
from ludolab.stdlib.errors import LudolabError

GAME = "beverbende"
#: The catalogue's policies with their default parameters.
CATALOGUE = ("random", "threshold", "expected-value")


def _threshold(knock: float, base="threshold"):
    p = bev.as_policy(base)
    if p.name != "threshold":
        raise LudolabError(f"a knock sweep needs a threshold policy, not {p.name}")
    names = list(bev.POLICY_PARAMS["threshold"])
    vals = dict(zip(names, p.params))
    vals["knock"] = float(knock)
    return bev.make_policy("threshold", **vals)


# ------------------------------------------------------------------ studies
def policy_table(players=(2, 3, 4, 5, 6), policies=CATALOGUE, field="threshold", rounds: int = 20_000,
                 seed: int = 0, base: BeverbendeRules | None = None, progress=False) -> pd.DataFrame:
    """Expected round score and round-win probability of each policy in seat 0 against a field, by player count.

    Returns:
        one row per (players, policy): the columns of :func:`ludolab.sim.beverbende.compare`.
    """
    base = base or BeverbendeRules()
    frames = []
    for P in players:
        rules = base.with_changes(players=P)
        frames.append(bev.compare(rules, list(policies), field, rounds, seed, progress=progress))
    return pd.concat(frames, ignore_index=True)


def knock_sweep(players=(2, 3, 4, 5, 6), knocks=range(0, 21, 2), field_knocks=range(0, 21, 2),
                rounds: int = 5_000, seed: int = 0, base: BeverbendeRules | None = None,
                policy="threshold", progress=False) -> pd.DataFrame:
    """The knock threshold of seat 0 against the field's threshold (every other seat), by player count.

    Returns:
        tidy DataFrame: ``players``, ``field_knock``, ``knock``, ``mean_score`` and CI, ``margin`` and CI,
        ``p_lowest_alone`` and CI, ``p_lowest_shared``, ``p_win`` (lowest row, shared counted half),
        ``knock_rate``, ``diff_vs_first`` and CI (paired), ``capped_rounds``.
    """
    base = base or BeverbendeRules()
    knocks = [float(k) for k in knocks]
    rows = []
    for P in players:
        rules = base.with_changes(players=P)
        for fk in field_knocks:
            df = bev.compare(rules, [_threshold(k, policy) for k in knocks], _threshold(fk, policy), rounds, seed,
                             progress=progress)
            df.insert(0, "field_knock", float(fk))
            df.insert(1, "knock", knocks)
            df["p_win"] = df.p_lowest_alone + df.p_lowest_shared / 2
            rows.append(df)
    return pd.concat(rows, ignore_index=True)


def best_knock(sweep: pd.DataFrame, objective: str = "margin") -> pd.DataFrame:
    """The best own knock threshold for each (players, field_knock) of a sweep.

    objective: ``margin`` (lowest score relative to the other seats' mean: what decides a game scored by
    sums), ``mean_score`` (lowest own score) or ``p_win`` (highest chance of the lowest row, shared wins
    counted as half).
    """
    s = sweep.copy()
    keys = [c for c in ("scoring", "players", "field_knock") if c in s]
    idx = (s.groupby(keys)[objective].idxmax() if objective == "p_win"
           else s.groupby(keys)[objective].idxmin())
    return s.loc[idx, keys + ["knock", "margin", "margin_ci_low", "margin_ci_high", "mean_score", "p_win"]] \
        .rename(columns={"knock": "best_knock"}).reset_index(drop=True)


def first_player(players=(2, 3, 4, 5, 6), policy="threshold", rounds: int = 20_000, seed: int = 0,
                 base: BeverbendeRules | None = None, progress=False) -> pd.DataFrame:
    """Per seat (seat 0 starts) mean round score and chance of the strictly lowest row, every seat the same policy."""
    base = base or BeverbendeRules()
    rows = []
    for P in players:
        out = bev.simulate(base.with_changes(players=P), policy, rounds, seed, progress=progress)
        for s in out["seats"]:
            rows.append({"players": P, "seat": s["seat"], "policy": s["policy"], "mean_score": s["mean_score"],
                         "mean_score_ci_low": s["mean_score_ci"][0], "mean_score_ci_high": s["mean_score_ci"][1],
                         "p_lowest_alone": s["p_lowest_alone"], "p_lowest_alone_ci_low": s["p_lowest_alone_ci"][0],
                         "p_lowest_alone_ci_high": s["p_lowest_alone_ci"][1], "knock_rate": s["knock_rate"],
                         "rounds": rounds})
    return pd.DataFrame(rows)


def memory_curve(qs=(0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0), players: int = 4, policy="threshold",
                 rounds: int = 20_000, seed: int = 0, base: BeverbendeRules | None = None,
                 progress=False) -> pd.DataFrame:
    """Mean round score of seat 0 forgetting with probability q per turn (BVB-13), the other seats with perfect
    memory (``who = one``), and of every seat forgetting alike (``who = all``).  The same deals for every q."""
    base = (base or BeverbendeRules()).with_changes(players=players)
    rows = []
    for q in qs:
        for who, mem in (("one", [q] + [0.0] * (players - 1)), ("all", [q] * players)):
            out = bev.simulate(base, policy, rounds, seed, memory_loss=mem, progress=progress)
            s = out["seats"][0]
            rows.append({"memory_loss": q, "who": who, "players": players, "policy": s["policy"],
                         "mean_score": s["mean_score"], "mean_score_ci_low": s["mean_score_ci"][0],
                         "mean_score_ci_high": s["mean_score_ci"][1], "p_lowest_alone": s["p_lowest_alone"],
                         "table_mean_score": out["mean_score"], "mean_turns": out["mean_turns"],
                         "capped_rounds": out["capped_rounds"], "rounds": rounds})
    return pd.DataFrame(rows)


def special_values(players: int = 4, factors=(0.0, 1.0, 2.0), policy="threshold", rounds: int = 20_000,
                   seed: int = 0, base: BeverbendeRules | None = None, progress=False) -> pd.DataFrame:
    """What each special card type is worth: the deck without it (factor 0), as printed (1), doubled (2).

    Returns:
        per (special, factor): the table's mean round score and CI, mean turns per round, capped rounds,
        and ``change`` = mean score minus the printed deck's (same deals are not possible across decks, so
        the CI of the change is the unpaired one).
    """
    base = (base or BeverbendeRules()).with_changes(players=players)
    ref = bev.simulate(base, policy, rounds, seed, progress=progress)
    rows = []
    for name in SPECIAL_NAMES:
        for f in factors:
            out = ref if f == 1.0 else bev.simulate(base.with_special(name, f), policy, rounds, seed,
                                                    progress=progress)
            lo, hi = out["mean_score_ci"]
            rlo, rhi = ref["mean_score_ci"]
            half = np.hypot((hi - lo) / 2, (rhi - rlo) / 2)
            ch = out["mean_score"] - ref["mean_score"]
            rows.append({"special": name, "factor": f, "copies": base.with_special(name, f).composition[
                SPECIAL_NAMES[name]], "players": players, "policy": out["seats"][0]["policy"],
                "mean_score": out["mean_score"], "mean_score_ci_low": lo, "mean_score_ci_high": hi,
                "change": ch, "change_ci_low": ch - half, "change_ci_high": ch + half,
                "mean_turns": out["mean_turns"], "capped_rounds": out["capped_rounds"], "rounds": rounds})
    return pd.DataFrame(rows)


def special_use(players: int = 4, rounds: int = 20_000, seed: int = 0, base: BeverbendeRules | None = None,
                progress=False) -> pd.DataFrame:
    """What using each special card is worth to one player: seat 0 with the threshold heuristic that uses
    every special, against the same heuristic ignoring one type, the field using all (paired)."""
    base = (base or BeverbendeRules()).with_changes(players=players)
    cands = [bev.make_policy("threshold"), bev.make_policy("threshold", swap=99),
             bev.make_policy("threshold", peek=0), bev.make_policy("threshold", draw2=0)]
    df = bev.compare(base, cands, "threshold", rounds, seed, progress=progress)
    df.insert(0, "ignores", ["nothing", "swap", "peek", "draw-twice"])
    return df


def variants(players=(2, 4, 6), knocks=range(0, 21, 2), rounds: int = 5_000, seed: int = 0,
             base: BeverbendeRules | None = None, progress=False) -> pd.DataFrame:
    """Seat 0's knock threshold under each scoring variant (BVB-15), the field on the default heuristic.

    Returns:
        tidy DataFrame with ``scoring`` and the columns of :func:`knock_sweep`.
    """
    base = base or BeverbendeRules()
    frames = []
    default_k = bev.POLICY_PARAMS["threshold"]["knock"]
    for sc in SCORINGS:
        df = knock_sweep(players, knocks, [default_k], rounds, seed, base.with_changes(scoring=sc),
                         progress=progress)
        df.insert(0, "scoring", sc)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def best_by_variant(var: pd.DataFrame) -> pd.DataFrame:
    """The best knock threshold of each scoring variant and player count: the lowest margin over the other
    seats for ``sum`` and ``knocker-penalty``, the highest chance of a lowest row (shared counted half) for
    ``win-count``."""
    out = []
    for sc, part in var.groupby("scoring", sort=False):
        out.append(best_knock(part, "p_win" if sc == "win-count" else "margin"))
    return pd.concat(out, ignore_index=True)


def game_wins(players=(2, 3, 4), policies=CATALOGUE, field="threshold", games: int = 4_000, seed: int = 0,
              base: BeverbendeRules | None = None, progress=False) -> pd.DataFrame:
    """Probability of winning a whole game (BVB-14) for each policy in seat 0 against the field."""
    base = base or BeverbendeRules()
    rows = []
    for P in players:
        for pol in policies:
            df = bev.simulate_games(base.with_changes(players=P), [pol] + [field] * (P - 1), games, seed,
                                    progress=progress)
            r = df.iloc[0].to_dict()
            r.update({"players": P, "field": bev.as_policy(field).label,
                      "fair_share": 1.0 / P, "capped_rounds": df.attrs["capped_rounds"]})
            rows.append(r)
    cols = ["players", "policy", "field", "p_win_alone", "p_win_alone_ci_low", "p_win_alone_ci_high",
            "p_win_shared", "fair_share", "mean_total", "mean_total_ci_low", "mean_total_ci_high", "games",
            "capped_rounds"]
    return pd.DataFrame(rows)[cols]


# ------------------------------------------------------------------ tuner
TUNE_GRID = {"knock": [4, 6, 8, 10, 12, 14, 16], "take": [0, 1, 2, 3, 4], "unknown": [3, 4, 4.5, 5, 6],
             "exchange": [0, 1, 2, 3], "swap": [4, 6, 8, 99]}


def tune(rules: BeverbendeRules, field="threshold", rounds: int = 5_000, seed: int = 0, passes: int = 2,
         objective: str = "margin", start=None, grid=None, progress=False) -> tuple[dict, pd.DataFrame]:
    """Coordinate search over the threshold heuristic's parameters for seat 0 against a field.

    Every candidate of a coordinate step is played on the same deals (common random numbers); the
    incumbent is kept unless a candidate is better (``margin`` or ``mean_score`` lower, or ``p_win`` higher).

    Returns:
        (the best parameters as a dict, the history DataFrame of every step).

    Raises:
        LudolabError: an unknown objective or parameter.
    """
    if objective not in ("margin", "mean_score", "p_win"):
        raise LudolabError(f"unknown tuning objective {objective!r}: allowed are margin, mean_score, p_win")
    grid = grid or TUNE_GRID
    best = dict(bev.POLICY_PARAMS["threshold"])
    if start:
        best.update(bev.as_policy(start).as_dict()["params"])
    history = []
    for ps in range(passes):
        for name, values in grid.items():
            if name not in best:
                raise LudolabError(f"the threshold policy has no parameter {name!r}")
            vals = sorted(set([best[name]] + [float(v) for v in values]))
            cands = [bev.make_policy("threshold", **{**best, name: v}) for v in vals]
            df = bev.compare(rules, cands, field, rounds, seed + ps, progress=progress)
            df["p_win"] = df.p_lowest_alone + df.p_lowest_shared / 2
            i = int(df[objective].idxmax() if objective == "p_win" else df[objective].idxmin())
            best[name] = vals[i]
            for j, v in enumerate(vals):
                history.append({"pass": ps, "parameter": name, "value": v, "margin": df.margin[j],
                                "margin_ci_low": df.margin_ci_low[j], "margin_ci_high": df.margin_ci_high[j],
                                "mean_score": df.mean_score[j],
                                "mean_score_ci_low": df.mean_score_ci_low[j],
                                "mean_score_ci_high": df.mean_score_ci_high[j], "p_win": df.p_win[j],
                                "chosen": j == i})
    return best, pd.DataFrame(history)


# ------------------------------------------------------------------ charts
def fig_heatmap(sweep: pd.DataFrame, value: str = "margin", title_rules: str = "rulebook deck, sum scoring"):
    """Heatmap of seat 0's knock threshold (x) against the field's (y), one panel per player count."""
    from matplotlib.figure import Figure

    ps = sorted(sweep.players.unique())
    fig = Figure(figsize=(3.3 * len(ps) + 1, 3.6), layout="constrained")
    axes = fig.subplots(1, len(ps), squeeze=False)[0]
    im = None
    lo, hi = sweep[value].min(), sweep[value].max()
    for ax, P in zip(axes, ps):
        part = sweep[sweep.players == P].pivot(index="field_knock", columns="knock", values=value)
        im = ax.imshow(part.values, origin="lower", aspect="auto", vmin=lo, vmax=hi,
                       cmap="viridis" if value == "p_win" else "viridis_r",
                       extent=(part.columns.min() - 1, part.columns.max() + 1, part.index.min() - 1,
                               part.index.max() + 1))
        best = part.idxmax(axis=1) if value == "p_win" else part.idxmin(axis=1)
        ax.plot(best.values, best.index, "w.", ms=6, label="best own threshold")
        ax.set_title(f"{P} players")
        ax.set_xlabel("own knock threshold (points)")
        if P == ps[0]:
            ax.set_ylabel("field's knock threshold (points)")
            ax.legend(loc="upper left", fontsize=7)
    label = {"margin": "seat 0 score minus the others' mean (points)", "mean_score": "seat 0 mean round score (points)",
             "p_win": "P(seat 0 has the lowest row)"}[value]
    fig.colorbar(im, ax=list(axes), label=label)
    fig.suptitle(f"Beverbende: when to knock ({title_rules}; threshold heuristic)")
    return fig


def fig_memory(curve: pd.DataFrame):
    """Mean round score of seat 0 against the memory loss q, with 95% CIs."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 4), layout="constrained")
    ax = fig.subplots()
    for who, lab in (("one", "only seat 0 forgets"), ("all", "every seat forgets")):
        d = curve[curve.who == who]
        ax.errorbar(d.memory_loss, d.mean_score, yerr=[d.mean_score - d.mean_score_ci_low,
                                                       d.mean_score_ci_high - d.mean_score],
                    marker="o", capsize=3, label=lab)
    ax.set_xlabel("memory loss q (chance per turn of forgetting each remembered card)")
    ax.set_ylabel("seat 0 mean round score (points, 95% CI)")
    P = int(curve.players.iloc[0])
    ax.set_title(f"Beverbende: what memory is worth ({P} players, threshold heuristic)")
    ax.legend()
    return fig


def fig_specials(sv: pd.DataFrame):
    """Change of the table's mean round score when each special type is removed or doubled, with 95% CIs."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.5, 4), layout="constrained")
    ax = fig.subplots()
    d = sv[sv.factor != 1.0]
    names = list(dict.fromkeys(d.special))
    width = 0.38
    for j, f in enumerate(sorted(d.factor.unique())):
        part = d[d.factor == f].set_index("special").loc[names]
        x = np.arange(len(names)) + (j - 0.5) * width
        ax.bar(x, part.change, width, yerr=[part.change - part.change_ci_low, part.change_ci_high - part.change],
               capsize=3, label="removed" if f == 0 else f"x{f:g}")
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xticks(np.arange(len(names)), names)
    ax.set_xlabel("special card type (removed from the deck, or its copies doubled)")
    ax.set_ylabel("change of the mean round score (points, 95% CI)")
    P = int(sv.players.iloc[0])
    ax.set_title(f"Beverbende: what each special card does ({P} players, threshold heuristic)")
    ax.legend()
    return fig


def fig_scores(rules: BeverbendeRules, policies=CATALOGUE, rounds: int = 20_000, seed: int = 0):
    """Distribution of the round score (row value, BVB-10) of each policy playing every seat, on the same deals."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.5, 4), layout="constrained")
    ax = fig.subplots()
    x = np.arange(37)
    for pol in policies:
        out = bev.simulate(rules, pol, rounds, seed)
        counts = np.sum([s["row_value_counts"] for s in out["seats"]], axis=0)
        ax.step(x, counts / counts.sum(), where="mid", lw=1.6,
                label=f"{bev.as_policy(pol).label} (mean {out['mean_score']:.2f})")
    ax.set_xlabel("round score (sum of the row, points)")
    ax.set_ylabel("share of rows")
    ax.set_title(f"Beverbende: round scores ({rules.players} players, all seats one policy)")
    ax.legend(fontsize=8, title=f"{rounds:,} rounds", title_fontsize=8)
    return fig


def fig_variants(var: pd.DataFrame):
    """Seat 0's objective against its own knock threshold under each scoring variant (BVB-15), one line per
    player count: the margin over the other seats for sum and knocker-penalty, the chance of a lowest row
    (shared counted half) for win-count."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 3.8), layout="constrained")
    axes = fig.subplots(1, len(SCORINGS))
    for ax, sc in zip(axes, SCORINGS):
        d = var[var.scoring == sc]
        for P, part in d.groupby("players"):
            if sc == "win-count":
                ax.plot(part.knock, part.p_win, marker="o", label=f"{P} players")
            else:
                ax.errorbar(part.knock, part.margin, yerr=[part.margin - part.margin_ci_low,
                                                           part.margin_ci_high - part.margin],
                            marker="o", capsize=2, label=f"{P} players")
        ax.set_title(sc)
        ax.set_xlabel("own knock threshold (points)")
        ax.set_ylabel("P(lowest row), shared counted half" if sc == "win-count"
                      else "score minus the others' mean (points, 95% CI)")
        ax.legend(fontsize=8)
    fk = var.field_knock.iloc[0]
    fig.suptitle(f"Beverbende: scoring variants and the knock threshold (field knocks at {fk:g}; lower margin "
                 "is better, higher P is better)")
    return fig


def fig_seat_scores(out: dict):
    """Distribution of each seat's round score from a :func:`ludolab.sim.beverbende.simulate` result."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.5, 4), layout="constrained")
    ax = fig.subplots()
    x = np.arange(37)
    for s in out["seats"]:
        c = np.asarray(s["row_value_counts"], dtype=float)
        ax.step(x, c / c.sum(), where="mid", lw=1.4, label=f"seat {s['seat']}: {s['policy']} "
                                                          f"(mean {s['mean_score']:.2f})")
    ax.set_xlabel("round score (sum of the row, points)")
    ax.set_ylabel("share of rounds")
    P = out["rules"]["players"]
    ax.set_title(f"Beverbende: round scores by seat ({P} players, {out['rounds']:,} rounds, seat 0 starts)")
    ax.legend(fontsize=8)
    return fig


# ------------------------------------------------------------------ report
def report_section(ctx) -> str:
    """Beverbende: when to knock, what memory is worth, how much each special card matters."""
    from ludolab.analysis.results import provenance

    quick = ctx.quick
    n = 2_000 if quick else 16_000
    rules = BeverbendeRules()
    meta = provenance(GAME, rules=rules.as_dict(), seed=ctx.seed)
    md = ["# Beverbende\n",
          "Rulebook deck (66 cards), sum scoring, perfect memory unless said otherwise (clauses in "
          "`seeds/beverbende.md`). Seat 0 starts every round. Policies: `random` (uniform legal moves), "
          "`threshold` (knock when the believed row total is at most *knock*; unknown cards count 4.5) and "
          "`expected-value` (unknown cards valued at the mean of the unseen number cards). Every comparison "
          f"uses common random numbers (the same deals) with root seed {ctx.seed}; intervals are 95% CIs.\n"]

    ctx.say("beverbende: policies by player count ...")
    pt = policy_table((2, 3, 4, 5, 6), rounds=n, seed=ctx.seed)
    best = pt.loc[pt.groupby("players").mean_score.idxmin()]
    md += ["## Policies against the threshold field\n",
           "Seat 0 plays each policy, every other seat the default threshold heuristic. "
           + " ".join(f"With {int(r.players)} players the best is {r.policy} ({r.mean_score:.2f} points a round)."
                      for r in best.itertuples()) + "\n",
           "Columns: `mean_score` is seat 0's mean round score (points); `margin` its score minus the mean of "
           "the other seats' (points, lower is better); `p_lowest_alone` the chance its row is strictly the lowest; "
           "`knock_rate` the share of rounds it knocked in; `diff_vs_first` its paired score difference against "
           "`random`; `capped_rounds` the rounds ended by the round cap of "
           f"{rules.round_cap} turns (BVB-12).\n",
           ctx.table(pt[["players", "policy", "mean_score", "mean_score_ci_low", "mean_score_ci_high", "margin",
                         "p_lowest_alone", "knock_rate", "diff_vs_first", "diff_vs_first_ci_low",
                         "diff_vs_first_ci_high", "capped_rounds"]], "beverbende_policies", {**meta, "rounds": n})]
    ctx.say("beverbende: score distributions and first-player advantage ...")
    fp = first_player((2, 3, 4, 5, 6), rounds=n, seed=ctx.seed)
    adv = []
    for P, d in fp.groupby("players"):
        adv.append(f"{int(P)} players: seat 0 {d.mean_score.iloc[0]:.2f}, last seat {d.mean_score.iloc[-1]:.2f}")
    md += ["\n## Round scores and the first player\n",
           "Every seat plays the default threshold heuristic; seat 0 starts. Mean round score per seat "
           "(" + "; ".join(adv) + "). `p_lowest_alone` is the chance of the strictly lowest row.\n",
           ctx.figure(fig_scores(BeverbendeRules(), rounds=n, seed=ctx.seed), "beverbende_scores",
                      "round score distributions"),
           ctx.table(fp[["players", "seat", "mean_score", "mean_score_ci_low", "mean_score_ci_high",
                         "p_lowest_alone", "p_lowest_alone_ci_low", "p_lowest_alone_ci_high", "knock_rate"]],
                     "beverbende_first_player", {**meta, "rounds": n})]

    ctx.say("beverbende: knock thresholds ...")
    ks = range(4, 21, 4) if quick else range(2, 21, 2)
    sw = knock_sweep((2, 4, 6) if quick else (2, 3, 4, 5, 6), ks, ks, rounds=max(500, n // 8), seed=ctx.seed)
    bk = best_knock(sw)
    lines = []
    for P, d in bk.groupby("players"):
        r = d.iloc[(d.field_knock - 10).abs().argmin()]
        lines.append(f"With {int(P)} players against a field knocking at {r.field_knock:g}, the best own threshold "
                     f"is {r.best_knock:g} (margin {r.margin:+.2f} points a round, 95% CI {r.margin_ci_low:+.2f} to "
                     f"{r.margin_ci_high:+.2f}).")
    md += ["\n## When to knock\n",
           "Seat 0's knock threshold (own: knock when the believed row total is at most this) against the "
           "threshold of every other seat (field). The colour is seat 0's `margin`: its round score minus the mean "
           "of the other seats' (points; lower is better, and it is what decides a game scored by sums); the dots "
           "mark the best own threshold for each field. " + " ".join(lines) + "\n",
           ctx.figure(fig_heatmap(sw), "beverbende_knock_heatmap", "knock threshold heatmap"),
           ctx.table(bk, "beverbende_best_knock", {**meta, "rounds": max(500, n // 8)})]

    ctx.say("beverbende: memory ...")
    mc = memory_curve((0.0, 0.1, 0.3, 0.6, 1.0), 4, rounds=n, seed=ctx.seed)
    one = mc[mc.who == "one"].set_index("memory_loss")
    md += ["\n## What a good memory is worth\n",
           f"Four players. Forgetting each remembered card with chance q per turn, seat 0 alone scores "
           f"{one.mean_score.iloc[-1] - one.mean_score.iloc[0]:+.2f} points a round at q = 1 compared with perfect "
           "memory. When everybody forgets alike the rounds get longer (`mean_turns`): the threshold heuristic "
           "counts a forgotten card as 4.5 and stops believing its row is low enough to knock; at q = 1 nobody "
           "ever knocks and every round ends at the round cap (`capped_rounds`).\n",
           ctx.figure(fig_memory(mc), "beverbende_memory", "memory curve"),
           ctx.table(mc[["memory_loss", "who", "mean_score", "mean_score_ci_low", "mean_score_ci_high",
                         "table_mean_score", "mean_turns", "capped_rounds"]], "beverbende_memory",
                     {**meta, "rounds": n})]

    ctx.say("beverbende: special cards ...")
    sv = special_values(4, rounds=n, seed=ctx.seed)
    su = special_use(4, rounds=n, seed=ctx.seed)
    md += ["\n## How much each special card matters\n",
           "Two questions. First, what a special type does to the game: the deck without it (factor 0) or with it "
           "doubled (factor 2), every seat on the threshold heuristic; `change` is the table's mean round score "
           "minus the printed deck's (points), `mean_turns` the round length. A special drawn is a number card not "
           "drawn, and a special dealt into a row is replaced by a random number at the end, so fewer specials "
           "can mean lower scores even though each special helps the player who draws it. Second, what a special "
           "is worth to the player who uses it: seat 0 ignores one type while the field uses all, and "
           "`diff_vs_first` is what ignoring it costs (paired, points a round). "
           + " ".join(f"Never playing {r.ignores} costs {r.diff_vs_first:+.2f} points a round "
                      f"(95% CI {r.diff_vs_first_ci_low:+.2f} to {r.diff_vs_first_ci_high:+.2f})."
                      for r in su.iloc[1:].itertuples()) + "\n",
           ctx.figure(fig_specials(sv), "beverbende_specials", "special card values"),
           ctx.table(sv[["special", "factor", "copies", "mean_score", "change", "change_ci_low", "change_ci_high",
                         "mean_turns"]], "beverbende_specials", {**meta, "rounds": n}),
           "\n",
           ctx.table(su[["ignores", "mean_score", "diff_vs_first", "diff_vs_first_ci_low", "diff_vs_first_ci_high"]],
                     "beverbende_special_use", {**meta, "rounds": n})]

    ctx.say("beverbende: scoring variants ...")
    var = variants((2, 4), range(4, 21, 4) if quick else range(2, 21, 2), rounds=max(500, n // 4), seed=ctx.seed)
    bv = best_by_variant(var)
    md += ["\n## Scoring variants and the best knock\n",
           "`sum` is the rulebook; `knocker-penalty` adds 5 to a knocker who is not strictly lowest; `win-count` "
           "gives a point per round won. Best own knock threshold against the default field (lowest margin over "
           "the other seats, or highest chance of the lowest row for win-count, shared counted half):\n",
           ctx.figure(fig_variants(var), "beverbende_variants", "scoring variants"),
           ctx.table(bv, "beverbende_variants", {**meta, "rounds": max(500, n // 4)})]

    ctx.say("beverbende: tuning the threshold heuristic ...")
    r4 = BeverbendeRules(players=4)
    tn = max(500, n // 6)
    best, _ = tune(r4, "threshold", tn, ctx.seed, passes=1 if quick else 2)
    tuned = bev.make_policy("threshold", **best)
    chk = bev.compare(r4, ["threshold", tuned], "threshold", n, ctx.seed + 1000)
    text = ", ".join(f"{k} = {v:g}" for k, v in best.items())
    md += ["\n## A tuned threshold heuristic\n",
           f"Coordinate search (four players, seat 0 against the default heuristic, {tn:,} rounds per step on "
           f"common random numbers, lowest margin) found {text}. Checked on {n:,} fresh rounds (seed "
           f"{ctx.seed + 1000}): margin {chk.margin[1]:+.2f} against {chk.margin[0]:+.2f} for the default; "
           f"paired score difference {chk.diff_vs_first[1]:+.2f} points a round (95% CI "
           f"{chk.diff_vs_first_ci_low[1]:+.2f} to {chk.diff_vs_first_ci_high[1]:+.2f}). Command: "
           "`ludolab beverbende tune`.\n",
           ctx.table(chk[["policy", "mean_score", "mean_score_ci_low", "mean_score_ci_high", "margin",
                          "margin_ci_low", "margin_ci_high", "p_lowest_alone", "knock_rate", "diff_vs_first",
                          "diff_vs_first_ci_low", "diff_vs_first_ci_high"]], "beverbende_tuned",
                     {**meta, "rounds": n, "tune_rounds": tn})]

    ctx.say("beverbende: whole games ...")
    gw = game_wins((2, 4), games=max(500, n // 4), seed=ctx.seed)
    md += ["\n## Whole games\n",
           "Chance of winning a whole game (as many rounds as players, four with two) for seat 0's policy "
           "against the threshold field; `fair_share` is 1 / players.\n",
           ctx.table(gw, "beverbende_game_wins", {**meta, "games": max(500, n // 4)})]
    return "\n".join(md)


# ------------------------------------------------------------------ bench
def bench(games: int, reference_seconds: float, say) -> list[dict]:
    """Beverbende: four-player rounds with the threshold heuristic, kernel against the reference."""
    import numba

    from ludolab.analysis.bench import calibrate, record, time_call, with_threads
    from ludolab.sim import beverbende_reference as ref
    from ludolab.sim.rng import chunk_keys

    threads = numba.get_num_threads()
    rules = BeverbendeRules(players=4)
    pol = bev.make_policy("threshold")
    say("warming the Beverbende kernels ...")
    bev.simulate(rules, pol, 1000, 1)
    n = max(10_000, games // 10)
    say(f"beverbende.simulate: {n:,} four-player rounds ...")
    t_all = time_call(lambda: bev.simulate(rules, pol, n, 1))
    t_one = with_threads(1, lambda: time_call(lambda: bev.simulate(rules, pol, n, 1)))
    kinds, params = bev.seat_arrays(rules, pol)
    key = int(chunk_keys(1, 1)[0])
    args = (rules, kinds.tolist(), params.tolist(), [0] * 4, key)
    n_ref = calibrate(lambda m: ref.simulate_rounds(*args, m), reference_seconds, 200)
    say(f"reference: {n_ref:,} rounds ...")
    t_ref = time_call(lambda: ref.simulate_rounds(*args, n_ref))
    return [record("beverbende.simulate (4 players, threshold heuristic)", "rounds", n / t_all, threads,
                   n / t_one, n_ref / t_ref)]
