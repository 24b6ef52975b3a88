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

from .findings import doubling_verdict, side_of

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
    counted as half).  The rounds ended by the round cap (BVB-12) at the best threshold come along
    (``capped_rounds``, of ``rounds``) where the sweep has them.
    """
    s = sweep.copy()
    keys = [c for c in ("scoring", "players", "field_knock") if c in s]
    idx = (s.groupby(keys)[objective].idxmax() if objective == "p_win"
           else s.groupby(keys)[objective].idxmin())
    cols = keys + ["knock", "margin", "margin_ci_low", "margin_ci_high", "mean_score", "p_win"]
    cols += [c for c in ("capped_rounds", "rounds") if c in s]  # a best threshold that never knocks shows it
    return s.loc[idx, cols].rename(columns={"knock": "best_knock"}).reset_index(drop=True)


def policy_pairs(pt: pd.DataFrame, rounds: int = 20_000, seed: int = 1, field="threshold",
                 base: BeverbendeRules | None = None, progress=False) -> pd.DataFrame:
    """The two policies with the best margin at each player count of :func:`policy_table`, compared again on
    fresh deals (``seed``), paired (the same deals for both): what decides "better" or "equally good".

    Args:
        pt: :func:`policy_table` (``players``, ``policy``, ``margin``).
        rounds, seed: the fresh paired run (another seed than ``pt``'s, so the choice of the two does not bias
            the test).

    Returns:
        one row per player count: ``players``, ``policy`` (the better by margin in ``pt``), ``against`` (the
        runner-up), ``margin_diff`` and its 95% CI (``policy``'s paired margin minus ``against``'s, points a
        round; negative: ``policy`` does better), ``verdict``
        (:func:`ludolab.analysis.findings.compare` with the ``bev_margin`` tolerance), ``rounds``.
    """
    from .findings import compare

    base = base or BeverbendeRules()
    rows = []
    for P, d in pt.groupby("players"):
        a, b = d.sort_values("margin").policy.iloc[:2]
        c = bev.compare(base.with_changes(players=int(P)), [b, a], field, rounds, seed, progress=progress)
        r = c.iloc[1]
        rows.append({"players": int(P), "policy": a, "against": b, "margin_diff": r.margin_diff_vs_first,
                     "margin_diff_ci_low": r.margin_diff_vs_first_ci_low,
                     "margin_diff_ci_high": r.margin_diff_vs_first_ci_high,
                     "verdict": compare(r.margin_diff_vs_first, r.margin_diff_vs_first_ci_low,
                                        r.margin_diff_vs_first_ci_high, "bev_margin"),
                     "rounds": int(r.rounds)})
    return pd.DataFrame(rows)


def policy_finding(pairs: pd.DataFrame):
    """Which policy to play, from :func:`policy_pairs`: the paired verdict at each player count (one rule,
    :func:`ludolab.analysis.findings.compare`), never from two separate CIs overlapping.

    Returns:
        a ``comparison`` :class:`~ludolab.analysis.findings.Finding` whose verdict is the one shared by every
        player count, or ``cannot tell yet`` when they differ.
    """
    from .findings import Finding, Quote, tolerance_text

    verdicts = list(pairs.verdict)
    one = verdicts[0] if len(set(verdicts)) == 1 else "cannot tell yet"
    words = {"better": "better than", "worse": "worse than", "equally good": "as good as",
             "cannot tell yet": "against"}
    per = "; ".join(f"{r.players} players: `{r.policy}` {words[r.verdict]} `{r.against}`, margin "
                    f"{r.margin_diff:+.2f} points a round ({_ci(r.margin_diff_ci_low, r.margin_diff_ci_high)})"
                    + (", cannot tell yet" if r.verdict == "cannot tell yet" else "")
                    for r in pairs.itertuples())
    # who leads on the fresh paired deals (margin_diff < 0: `policy` does better), not on the screening table
    leaders = pd.Series([r.policy if r.margin_diff < 0 else r.against for r in pairs.itertuples()])
    best = leaders.mode().iloc[0]
    n_best = int((leaders == best).sum())
    head = {"better": f"Play `{best}`.", "equally good": "The two best policies are equally good.",
            "worse": f"Play `{best}`.", "cannot tell yet": "The two best policies are close."}[one]
    text = (f"`{best}` has the better margin on the fresh deals at {n_best} of {len(pairs)} player counts; paired "
            f"on the same deals "
            f"(better only when the 95% CI of the difference excludes 0, equally good only when it includes 0 and "
            f"is within {tolerance_text('bev_margin')}): {per}.")
    return Finding("comparison", head, text,
                   {f"margin_diff_{r.players}": Quote(r.margin_diff, "beverbende_policy_pairs", "margin_diff",
                                                      str(r.players)) for r in pairs.itertuples()}, verdict=one)


def knock_finding(knock_rows, default_k: float, bv: pd.DataFrame, var: pd.DataFrame):
    """When to knock, once for every player count, and what the knocker penalty does to it.

    Args:
        knock_rows: per player count ``(players, best row of best_knock, lowest, highest)`` own threshold whose
            margin lies inside the best one's CI.
        default_k: the default heuristic's threshold.
        bv, var: :func:`best_by_variant` and :func:`variants`.

    Returns:
        a ``rule`` :class:`~ludolab.analysis.findings.Finding`.
    """
    from .findings import Finding, Quote

    lo = max(lo for _, _, lo, _ in knock_rows)
    hi = min(hi for _, _, _, hi in knock_rows)
    counts = ", ".join(str(P) for P, _, _, _ in knock_rows)
    if lo <= hi:
        rule = (f"Count your row, each card you have not seen as 4.5, and knock when that total is about {lo:g} "
                f"to {hi:g} or less: with {counts} players every threshold in that range is within the noise of "
                "the best one tried")
    else:
        rule = ("Count your row, each card you have not seen as 4.5, and knock when that total is low; the best "
                "threshold differs with the player count ("
                + "; ".join(f"{P} players: {a:g} to {b:g}" for P, _, a, b in knock_rows) + ")")
    text = rule + f" (the field knocking at {knock_rows[0][1].field_knock:g}; the tables below give each count)."
    sweep = "beverbende_knock_sweep"  # the sweep the chart beverbende_knock draws (own threshold against field)
    quotes = {"low": Quote(lo, sweep, "knock"), "high": Quote(hi, sweep, "knock")}
    kp = bv[bv.scoring == "knocker-penalty"]
    lowest = float(var.knock.min())
    at_floor = kp[kp.best_knock == lowest]
    if len(at_floor):
        parts = []
        for r in at_floor.itertuples():
            rows = var[(var.scoring == "knocker-penalty") & (var.players == r.players)]
            kr = float(rows.loc[rows.knock == lowest, "knock_rate"].iloc[0])
            near = rows.iloc[(rows.knock - default_k).abs().argmin()]
            parts.append(f"{int(r.players)} players (seat 0 then knocks in {kr:.0%} of rounds; margin "
                         f"{r.margin:+.2f} points a round against {near.margin:+.2f} knocking at {near.knock:g})")
        text += (f" Under the knocker-penalty variant the best threshold is the lowest one tried, {lowest:g}, with "
                 + " and ".join(parts) + ": knocking then hardly pays, so leave the knock to others unless your "
                 "row is nearly empty.")
        quotes["penalty_best"] = Quote(lowest, "beverbende_variants", "best_knock", "knocker-penalty")
    return Finding("rule", "When to knock.", text, quotes)


#: The knock rules tried by :func:`knock_rules`: the bar as an offset from the best fixed threshold, how far
#: it moves for each lap of the table completed, and what a card of the own row not yet seen counts.
KNOCK_RULE_GRID = {"knock": (-4.0, -2.0, 0.0, 2.0, 4.0), "late": (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0),
                   "unknown": (4.5, 6.0, 8.0)}
KNOCK_RULE_GRID_QUICK = {"knock": (-2.0, 0.0, 2.0), "late": (-1.0, 0.0, 1.0), "unknown": (4.5, 6.0, 8.0)}


def knock_rules(fixed_knock: dict, rounds: int = 16_000, seed: int = 0, check_seed: int = 1, grid=None,
                field="threshold", base: BeverbendeRules | None = None, progress=False):
    """Knock rules that use the lap of the round and what the player knows of their own row (BVB-9), for seat 0
    of the threshold heuristic against a field (every other seat), judged by margin.

    A rule is ``(knock, late, unknown)``: count each own card not yet seen as ``unknown`` points and knock when
    the row's total is at most ``knock`` plus ``late`` points for every lap of the table completed before this
    turn (the threshold policy's parameters of the same names). For each player count every rule of the grid
    is played on the same deals, the first being the fixed rule (``fixed_knock[P]``, late 0, unknown 4.5). The
    rule with the lowest margin is then played again with the fixed rule on fresh deals (``check_seed``), so its
    paired difference is not the winner of a noisy contest.

    Args:
        fixed_knock: ``{players: knock threshold}`` of the fixed rule (e.g. the best of :func:`best_knock`).
        grid: ``{"knock": offsets from the fixed threshold, "late": ..., "unknown": ...}`` (points); default
            :data:`KNOCK_RULE_GRID`.

    Returns:
        ``(tried, check)``: ``tried`` has one row per player count and rule with ``knock``, ``late``,
        ``unknown`` and the columns of :func:`ludolab.sim.beverbende.compare`; ``check`` has per player count the
        fixed rule, the chosen one and the chosen one with ``late`` 0, on fresh deals, with
        ``margin_diff_vs_first`` against the fixed rule and its CI, ``share_differs_from_first`` (rounds in which
        the rule changes seat 0's score), and on the chosen row ``lap_gain`` and its CI: the paired margin of the
        chosen rule minus the same rule without the lap (what moving the bar with the lap is worth; NaN where
        the chosen rule has late 0 and on the other rows).

    Raises:
        LudolabError: a grid without the three keys.
    """
    grid = grid or KNOCK_RULE_GRID
    if set(grid) != {"knock", "late", "unknown"}:
        raise LudolabError(f"a knock-rule grid needs knock, late and unknown, not {', '.join(map(str, grid))}")
    base = base or BeverbendeRules()
    unk0 = float(bev.POLICY_PARAMS["threshold"]["unknown"])
    tried, check = [], []
    for P, k0 in fixed_knock.items():
        rules = base.with_changes(players=int(P))
        combos = [(float(k0), 0.0, unk0)] + [(float(k0) + dk, float(lt), float(u)) for dk in grid["knock"]
                                             for lt in grid["late"] for u in grid["unknown"]
                                             if (float(k0) + dk, float(lt), float(u)) != (float(k0), 0.0, unk0)]
        pols = [bev.make_policy("threshold", knock=k, late=lt, unknown=u) for k, lt, u in combos]
        df = bev.compare(rules, pols, field, rounds, seed, progress=progress)
        df.insert(0, "knock", [c[0] for c in combos])
        df.insert(1, "late", [c[1] for c in combos])
        df.insert(2, "unknown", [c[2] for c in combos])
        tried.append(df)
        best = int(df.margin.values.argmin())
        k, _, u = combos[best]
        rows = [combos[0], combos[best], (k, 0.0, u)]
        chosen = [pols[0], pols[best], bev.make_policy("threshold", knock=k, late=0.0, unknown=u)]
        chk = bev.compare(rules, chosen, field, rounds, check_seed, progress=progress)
        lap = bev.compare(rules, chosen[2:0:-1], field, rounds, check_seed).iloc[1]   # the same fresh deals
        chk.insert(0, "rule", ["fixed", "chosen", "chosen without the lap"])
        for i, col in enumerate(("knock", "late", "unknown")):
            chk.insert(1 + i, col, [r[i] for r in rows])
        for col in ("", "_ci_low", "_ci_high"):   # measured on the chosen row only, where it has a lap part
            chk[f"lap_gain{col}"] = [np.nan, float(lap[f"margin_diff_vs_first{col}"]) if combos[best][1] else np.nan,
                                     np.nan]
        check.append(chk)
    return pd.concat(tried, ignore_index=True), pd.concat(check, ignore_index=True)


def knock_rule_words(knock: float, late: float, unknown: float) -> str:
    """A knock rule of :func:`knock_rules` in words a player can follow at the table."""
    move = ("" if late == 0 else f", {abs(late):g} point{'' if abs(late) == 1 else 's'} "
            f"{'higher' if late > 0 else 'lower'} for each lap of the table already played")
    return f"count each card of your row you have not seen as {unknown:g} and knock at {knock:g} or less{move}"


def knock_rule_finding(check: pd.DataFrame):
    """What the lap and your own row are worth when to knock, per player count: the simplest rule of
    :func:`knock_rules` that keeps its gain (the chosen rule, or the same without the lap when moving the bar
    with the lap is not better by the paired-comparison rule), against the fixed threshold on fresh deals.
    A rule is worded as advice only where it is better; elsewhere the finding says it is not told apart.

    Returns:
        a ``rule`` :class:`~ludolab.analysis.findings.Finding` quoting each count's paired margin difference,
        the lap's paired gain and the share of rounds the rule changes (table ``beverbende_knock_rules``).
    """
    from .findings import Finding, Quote, compare

    parts, quotes, verdicts, laps = [], {}, [], []
    for P, d in check.groupby("players", sort=True):
        d = d.set_index("rule")
        fx, ch = d.loc["fixed"], d.loc["chosen"]
        lap_v = ("none" if ch.late == 0 else
                 compare(ch.lap_gain, ch.lap_gain_ci_low, ch.lap_gain_ci_high, "bev_margin"))
        laps.append(lap_v)
        use = "chosen" if lap_v in ("better", "none") else "chosen without the lap"
        r = d.loc[use]
        fixed = f"knocking at {fx.knock:g} with each unseen card as {fx.unknown:g}"
        if (r.knock, r.late, r.unknown) == (fx.knock, fx.late, fx.unknown):
            verdicts.append("equally good")
            parts.append(f"{int(P)} players: no rule tried beats {fixed}")
            continue
        v = compare(r.margin_diff_vs_first, r.margin_diff_vs_first_ci_low, r.margin_diff_vs_first_ci_high,
                    "bev_margin")
        verdicts.append(v)
        row = f"{int(P)} players, {use}"
        diff = (f"margin {r.margin_diff_vs_first:+.2f} points a round "
                f"({_ci(r.margin_diff_vs_first_ci_low, r.margin_diff_vs_first_ci_high)})")
        if v == "better":
            lap_text = ("" if ch.late == 0 else
                        f"; the lap's own part ({ch.late:+g} point{'' if abs(ch.late) == 1 else 's'} a lap, against "
                        f"none, same deals): {ch.lap_gain:+.2f} points a round "
                        f"({_ci(ch.lap_gain_ci_low, ch.lap_gain_ci_high)})")
            capped = ("" if not r.get("capped_rounds", 0) else
                      f"; {int(r.capped_rounds):,} of its {int(r.rounds):,} rounds ran to the round cap with nobody "
                      "knocking")
            parts.append(f"{int(P)} players: {knock_rule_words(r.knock, r.late, r.unknown)}: {diff} against {fixed}, "
                         f"changing your round in {r.share_differs_from_first:.0%} of rounds{lap_text}{capped}")
            if ch.late != 0:
                quotes[f"lap_{int(P)}"] = Quote(ch.lap_gain, "beverbende_knock_rules", "lap_gain",
                                                f"{int(P)} players")
        else:
            word = {"worse": "worse than", "equally good": "as good as", "cannot tell yet": "not told apart from"}[v]
            parts.append(f"{int(P)} players: the best rule tried ({knock_rule_words(r.knock, r.late, r.unknown)}) is "
                         f"{word} {fixed}: {diff}")
        quotes[f"diff_{int(P)}"] = Quote(r.margin_diff_vs_first, "beverbende_knock_rules", "margin_diff_vs_first",
                                         row)
        quotes[f"changes_{int(P)}"] = Quote(r.share_differs_from_first, "beverbende_knock_rules",
                                            "share_differs_from_first", row)
    n_better = verdicts.count("better")
    head = ("Knock by what you know of your row." if n_better else
            "Knowing the lap and your row changes little." if all(v == "equally good" for v in verdicts) else
            "Knock rules by the lap and your row: no clear gain.")
    lead = (f"A knock rule with another count for unseen cards or a bar that moves with the lap beats the fixed "
            f"threshold at {n_better} of {len(verdicts)} player counts, and the lap's part pays at "
            f"{laps.count('better')} (paired on fresh deals against the fixed threshold; lower margin is better; "
            "at each count the simplest rule that keeps its gain): ")
    return Finding("rule", head, lead + "; ".join(parts) + ".", quotes)


def tuned_finding(chk: pd.DataFrame, tuned_knock: float, default_k: float, tuned_unknown: float | None = None,
                  default_unknown: float = 4.5):
    """The tuned threshold heuristic judged like every policy, by paired margin (what decides a game), with
    its knock threshold in words and the other tuned parameters left to the table.

    Args:
        chk: :func:`ludolab.sim.beverbende.compare` of the default then the tuned heuristic on fresh deals.

    Returns:
        a ``comparison`` :class:`~ludolab.analysis.findings.Finding`.
    """
    from .findings import Finding, Quote, compare

    r = chk.iloc[1]
    v = compare(r.margin_diff_vs_first, r.margin_diff_vs_first_ci_low, r.margin_diff_vs_first_ci_high,
                "bev_margin")
    head = {"better": "A tuned threshold heuristic does better.", "worse": "The tuned heuristic does worse.",
            "equally good": "Tuning the threshold heuristic gains nothing.",
            "cannot tell yet": "Tuning the threshold heuristic: cannot tell yet."}[v]
    counted = ("" if tuned_unknown is None or tuned_unknown == default_unknown else
               f", counting each card it has not seen as {tuned_unknown:g} instead of {default_unknown:g}")
    text = (f"With 4 players, the tuned heuristic (it knocks when its row counts {tuned_knock:g} or less instead of "
            f"{default_k:g}{counted}; its other tuned settings are in the table) changes seat 0's margin by {r.margin_diff_vs_first:+.2f} points a round "
            f"({_ci(r.margin_diff_vs_first_ci_low, r.margin_diff_vs_first_ci_high)}, paired on fresh deals; its "
            f"own score changes by {r.diff_vs_first:+.2f}).")
    return Finding("comparison", head, text,
                   {"margin_diff": Quote(r.margin_diff_vs_first, "beverbende_tuned", "margin_diff_vs_first",
                                         str(r.policy))}, verdict=v)


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


def fig_knock_margin(sweep: pd.DataFrame, field_knock: float, title_rules: str = "rulebook deck, sum scoring"):
    """Seat 0's margin against its own knock threshold, one line per player count with its 95% CI band, the
    field knocking at ``field_knock`` (BVB-10): lower is better, so the lowest stretch of a line is when to knock.

    Args:
        sweep: :func:`knock_sweep` (``players``, ``field_knock``, ``knock``, ``margin`` and its CI).
        field_knock: the field's threshold drawn (one of ``sweep.field_knock``).

    Raises:
        LudolabError: ``field_knock`` is not in the sweep.
    """
    from matplotlib.figure import Figure

    part = sweep[sweep.field_knock == field_knock]
    if part.empty:
        raise LudolabError(f"the sweep has no field knocking at {field_knock:g}: it has "
                           f"{', '.join(f'{v:g}' for v in sorted(sweep.field_knock.unique()))}")
    fig = Figure(figsize=(7.5, 4.4), layout="constrained")
    ax = fig.subplots()
    for P, d in part.groupby("players"):
        d = d.sort_values("knock")
        line, = ax.plot(d.knock, d.margin, marker="o", label=f"{int(P)} players")
        ax.fill_between(d.knock, d.margin_ci_low, d.margin_ci_high, color=line.get_color(), alpha=0.15)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("your knock threshold: knock when you believe your row totals this or less (points)")
    ax.set_ylabel("your round score minus the others' mean\n(points, lower is better)")
    ax.legend(title="bands: 95% CI", fontsize=8)
    ax.grid(alpha=0.3)
    fig.suptitle(f"Beverbende: when to knock, the others knocking at {field_knock:g} ({title_rules})")
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
    ax.set_title(f"Beverbende: what memory is worth\n({P} players, threshold heuristic)")
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
    ax.set_title(f"Beverbende: what each special card does\n({P} players, threshold heuristic)")
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
def _columns(df: pd.DataFrame, defs: dict) -> str:
    """The "Columns:" line for a report table: every column the report shows of ``df``, and only those, in
    table order, then what is the same on every row and what is in the CSV only
    (:func:`ludolab.analysis.report.table_layout`; a pair ``x_ci_low``, ``x_ci_high`` is shown in brackets with ``x``).

    Raises:
        LudolabError: a column without a definition.
    """
    from .report import table_layout

    cols = list(df.columns)
    missing = [c for c in cols if c not in defs and not (c.endswith(("_ci_low", "_ci_high")))]
    if missing:
        raise LudolabError(f"report table columns without a definition: {missing}")
    lay = table_layout(df)
    parts = []
    for c in lay.shown:
        if c.endswith("_ci_low") or c.endswith("_ci_high"):
            parts.append(f"`{c}` = a 95% confidence limit of `{c.rsplit('_ci_', 1)[0]}`")
        else:
            parts.append(f"`{c}` = {defs[c]}" + (", with its 95% CI in brackets" if c in lay.with_ci else ""))
    note = lay.note()
    return "Columns: " + "; ".join(parts) + "." + (" " + note if note else "") + "\n"


def _ci(lo: float, hi: float, fmt: str = "+.2f") -> str:
    from .report import ci_bound

    return f"95% CI {ci_bound(lo, format(lo, fmt))} to {ci_bound(hi, format(hi, fmt))}"


def _difference(a, b, col: str) -> tuple[float, float, float]:
    """``col`` of row ``a`` minus that of row ``b`` with the 95% CI of the difference (the rows come from
    different rounds: :func:`ludolab.analysis.findings.independent_difference`)."""
    from .findings import independent_difference

    return independent_difference(*(getattr(r, f"{col}{x}") for r in (a, b) for x in ("", "_ci_low", "_ci_high")))


def _near_best(part: pd.DataFrame, best_margin_ci_high: float) -> tuple[float, float]:
    """The lowest and highest own knock threshold whose margin lies inside the best one's 95% CI."""
    ok = part[part.margin <= best_margin_ci_high].knock
    return float(ok.min()), float(ok.max())


def _first_player_finding(first, last):
    """Whether starting pays (4 players): seat 0's and the last seat's mean round score, rows of
    :func:`first_player` (table ``beverbende_first_player``)."""
    from .findings import Finding, Quote

    adv4 = last.mean_score_ci_low > first.mean_score_ci_high
    text = (("Starting is an advantage" if adv4 else "Starting makes no clear difference")
            + f": with 4 players seat 0 (which starts) scores {first.mean_score:.2f} points a round "
            f"({_ci(first.mean_score_ci_low, first.mean_score_ci_high, '.2f')}) and the last seat "
            f"{last.mean_score:.2f} ({_ci(last.mean_score_ci_low, last.mean_score_ci_high, '.2f')}).")
    t = "beverbende_first_player"
    return Finding("estimate", "", text, {"first": Quote(first.mean_score, t, "mean_score", "seat 0"),
                                          "last": Quote(last.mean_score, t, "mean_score", "last seat")})


def _memory_finding(m0, m1):
    """What forgetting costs seat 0 (4 players): the rows of perfect memory and of the most forgetting of
    :func:`memory_curve` (who = one, indexed by memory_loss; table ``beverbende_memory``)."""
    from .findings import Finding, Quote

    mem_clear = m1.mean_score_ci_low > m0.mean_score_ci_high
    text = (("Memory pays" if mem_clear else "Memory makes no clear difference")
            + ": with 4 players, a seat 0 that forgets "
            + ("every remembered card each turn " if m1.name == 1 else
               f"each remembered card with chance {m1.name:g} per turn ")
            + f"scores {m1.mean_score:.2f} points a round "
            f"({_ci(m1.mean_score_ci_low, m1.mean_score_ci_high, '.2f')}) against {m0.mean_score:.2f} "
            f"({_ci(m0.mean_score_ci_low, m0.mean_score_ci_high, '.2f')}) with perfect memory.")
    t = "beverbende_memory"
    return Finding("estimate", "", text, {"forgetful": Quote(m1.mean_score, t, "mean_score", f"one, {m1.name:g}"),
                                          "perfect": Quote(m0.mean_score, t, "mean_score", f"one, {m0.name:g}"),
                                          "memory_loss": Quote(m1.name, t, "memory_loss")})


def _special_use_finding(use):
    """What never playing each special type costs seat 0: the rows of :func:`special_use` but the first,
    costliest first (table ``beverbende_special_use``)."""
    from .findings import Finding, Quote

    all_pay = bool((use.diff_vs_first_ci_low > 0).all())
    text = (("Play every special card: " if all_pay else "Specials: ") + "never playing "
            + ", ".join(f"{r.ignores} costs {r.diff_vs_first:+.2f} points a round "
                        f"({_ci(r.diff_vs_first_ci_low, r.diff_vs_first_ci_high)})" for r in use.itertuples())
            + ".")
    return Finding("estimate", "", text, {f"cost_{r.ignores}": Quote(r.diff_vs_first, "beverbende_special_use",
                                                                     "diff_vs_first", r.ignores)
                                          for r in use.itertuples()})


def _game_wins_finding(gbest):
    """Whole games: per player count, the policy of :func:`game_wins` winning most often alone, against an
    even share (table ``beverbende_game_wins``)."""
    from .findings import Finding, Quote

    def _fair(r):
        inside = r.p_win_alone_ci_low <= r.fair_share <= r.p_win_alone_ci_high
        return "not distinguishable from" if inside else ("above" if r.p_win_alone > r.fair_share else "below")

    text = "Whole games: " + "; ".join(
        f"with {int(r.players)} players the policy winning most often against the threshold field, {r.policy}, "
        f"wins {r.p_win_alone:.0%} of games alone ({_ci(r.p_win_alone_ci_low, r.p_win_alone_ci_high, '.0%')}), "
        f"{_fair(r)} an even share of {r.fair_share:.0%}" for r in gbest.itertuples()) + "."
    t = "beverbende_game_wins"
    quotes = {}
    for r in gbest.itertuples():
        quotes[f"p_win_{int(r.players)}"] = Quote(r.p_win_alone, t, "p_win_alone", f"{int(r.players)}, {r.policy}")
        quotes[f"fair_{int(r.players)}"] = Quote(r.fair_share, t, "fair_share", f"{int(r.players)}, {r.policy}")
    return Finding("estimate", "", text, quotes)


def _specials_finding(sv_big):
    """For a designer: the largest change of the table's mean round score when a special type is removed, a
    row of :func:`special_values` at factor 0 (table ``beverbende_specials``)."""
    from .findings import Finding, Quote

    text = (f"For a designer: removing a special type changes the table's mean round score by "
            f"{sv_big.change:+.2f} points at most ({sv_big.special}, "
            f"{_ci(sv_big.change_ci_low, sv_big.change_ci_high)}); a special drawn is a number card not drawn, "
            "so fewer specials need not mean higher scores.")
    return Finding("estimate", "", text, {"change": Quote(sv_big.change, "beverbende_specials", "change",
                                                          f"{sv_big.special}, factor 0")})


#: the goal for strong play at two players: this share of whole games won against the tuned threshold heuristic
WIN_GOAL = 0.55


def _win_saturation() -> float:
    """A doubling of the search's budget that changes the share of games won by less than this (its CI inside
    ± this) means play has stopped improving: the ``win_share`` tolerance of
    :data:`ludolab.analysis.findings.TOLERANCES`."""
    from .findings import TOLERANCES

    return float(TOLERANCES["win_share"][0])


def _search_words(label: str, players: int = 2) -> str:
    """A ladder search label (``search:budget=2048,rollout=threshold,objective=wins``) in words, at a table of
    ``players``."""
    from .ladder_cli import search_options

    opts = search_options(label)
    won = ("1 when the seat ends the game ahead of the other, 1/2 on a tie" if players == 2 else
           "the share of the other seats the seat ends the game ahead of, each tie 1/2")
    goal = f"each playout worth {won}" if opts.get("objective") == "wins" else "each playout worth its penalty points"
    return (f"{int(opts.get('budget', 64)):,} playouts per decision on sampled deals, `{opts.get('rollout')}` "
            f"playing every seat in the playouts, {goal}")


def _doubling_words(lo: float, hi: float, more: str, fewer: str) -> str:
    """The verdict of one doubling's paired CI of the change in the share won (``lo``, ``hi``; shares) by
    :func:`~ludolab.analysis.findings.doubling_verdict` with the ``win_share`` tolerance; ``more``, ``fewer``:
    what the doubling does when the CI lies above or below 0 ("wins more games")."""
    sat = _win_saturation()
    tol = 100 * sat
    return {"improving": f"the doubling {more} (the CI excludes 0): play has not stopped improving",
            "worse": f"the doubling {fewer} (the CI excludes 0)",
            "stopped": f"its CI lies within ±{tol:g} points of percentage: play has stopped improving, by that "
                       "tolerance",
            "not settled": f"not told apart from 0, but the CI reaches beyond ±{tol:g} points of percentage, so "
                           "whether play has stopped improving is not settled by these deals"
            }[doubling_verdict(lo, hi, sat)]


def deep_text(ladder: pd.DataFrame, paired: pd.DataFrame, plan: dict) -> list[str]:
    """The Beverbende deep run in words, every number read from its tables: the strongest search (the plan's
    last policy) against the baseline (win share against an even share and against :data:`WIN_GOAL`, and the
    paired penalty-point difference), and the doubling (the last row of ``paired``: the last policy against
    the one before it on the same deals).

    Args:
        ladder: the run's ``ladder`` table (``policy``, ``win_share``, ``win_ci_low``, ``win_ci_high``,
            ``diff``, ``ci_low``, ``ci_high``; penalty points per game, lower is better).
        paired: the run's ``paired`` table (``win_share_diff`` and ``diff`` with their CIs).
        plan: the run's plan (``baseline``, ``players``, ``deals``, ``policies``).
    """
    rows = ladder.set_index("policy")
    top = rows.loc[plan["policies"][-1]]
    q, lo, hi = top.win_share, top.win_ci_low, top.win_ci_high
    half = {"above": "more than an even share, the CI above 50%", "below": "less than an even share, the CI "
            "below 50%", "inside": "not told apart from an even share, the CI includes 50%"}[side_of(q, lo, hi, 0.5)]
    mark = f"the goal set for strong play, {WIN_GOAL:.0%} of the games won against the tuned heuristic,"
    goal = {"above": f"{mark} is reached (the CI lies above it)",
            "inside": f"{mark} is neither shown nor ruled out (it lies inside the CI)",
            "below": f"{mark} is not reached: the CI ends {100 * (WIN_GOAL - hi):.1f} points of percentage below "
                     "it"}[side_of(q, lo, hi, WIN_GOAL)]
    d, dlo, dhi = top["diff"], top.ci_low, top.ci_high
    pts = ("so on points it is worse, the CI above 0" if dlo > 0 else "so on points it is better, the CI below 0"
           if dhi < 0 else "not told apart on points, the CI includes 0")
    first = (f"Search ({_search_words(top.name)}) wins {q:.1%} of {plan['players']}-player games against "
             f"`{plan['baseline']}`, the threshold heuristic tuned at {plan['players']} players "
             f"({_ci(lo, hi, '.1%')}; {plan['deals']:,} duplicate deals, seats rotated): {half}; {goal}. "
             f"It ends a game with {abs(d):.2f} {'more' if d > 0 else 'fewer'} penalty points than that heuristic "
             f"in the same seat (paired, {_ci(dlo, dhi)}), {pts}")
    base = rows.loc[plan["baseline"]] if plan["baseline"] in rows.index else None
    if "others_mean" in rows.columns and base is not None:
        first += (f"; but the other seat's points change too, from {base.others_mean:.1f} a game when both seats "
                  f"play the heuristic to {top.others_mean:.1f} against the search, and a game is won by ending "
                  "below the other seat, not by a low total")
    first += "."
    last = paired.iloc[-1]
    w, wlo, whi = last.win_share_diff, last.win_share_diff_ci_low, last.win_share_diff_ci_high
    moved = _doubling_words(wlo, whi, "still wins more games", "wins fewer games")
    prev = rows.loc[last.versus]
    second = (f"Against the search at half that budget ({_search_words(last.versus)}; it wins {prev.win_share:.1%}), "
              f"doubling the playouts changes the share of games won by {100 * w:+.1f} points of percentage "
              f"({_ci(100 * wlo, 100 * whi, '+.1f')} points, paired on the same deals): {moved}.")
    return [first, second]


def _strong_play_finding(ladder: pd.DataFrame, paired: pd.DataFrame, plan: dict):
    """Strong play at two players, from the stored deep run (tables ``beverbende_deep_ladder``,
    ``beverbende_deep_paired``), worded by :func:`deep_text`."""
    from .findings import Finding, Quote

    top = ladder.set_index("policy").loc[plan["policies"][-1]]
    side = side_of(top.win_share, top.win_ci_low, top.win_ci_high, 0.5)
    title = {"above": f"Search playing to win takes {top.win_share:.1%} of two-player games from the tuned "
                      "threshold heuristic.",
             "inside": "In games won at two players, search playing to win is not yet told apart from the tuned "
                       "threshold heuristic.",
             "below": f"Search playing to win takes only {top.win_share:.1%} of two-player games from the tuned "
                      "threshold heuristic."}[side]
    t = "beverbende_deep_ladder"
    return Finding("estimate", title, " ".join(deep_text(ladder, paired, plan)) + " (stored deep run; see "
                   "\"Strong play at two players\".)",
                   {"win_share": Quote(top.win_share, t, "win_share", top.name),
                    "points": Quote(top["diff"], t, "diff", top.name),
                    "doubling": Quote(paired.iloc[-1].win_share_diff, "beverbende_deep_paired", "win_share_diff",
                                      str(paired.iloc[-1].policy))})


def _four_player_searches(plan: dict) -> tuple[str, list[str]]:
    """The four-player plan's searches: (the last one playing for points, those playing to win in the plan's
    order, budgets doubling)."""
    searches = [p for p in plan["policies"] if p.partition(":")[0] in ("search", "tree")]
    wins = [p for p in searches if "objective=wins" in p]
    return [p for p in searches if p not in wins][-1], wins


def _margin_goal(g: float, lo: float, hi: float) -> str:
    """The four-player goal (a better margin than the tuned heuristic's in the same seat) against the paired
    margin difference ``g`` and its CI (points a game, lower is better), in words."""
    mark = "the goal set for strong play at four players, a better margin than the tuned heuristic's in the same seat,"
    return {"below": f"{mark} is reached (the CI lies below 0)",
            "inside": f"{mark} is neither shown nor ruled out (the CI includes 0)",
            "above": f"{mark} is not reached: the margin is worse by {g:.2f} points a game, and the CI ends "
                     f"{lo:.2f} points above 0"}[side_of(g, lo, hi, 0.0)]


def _half(q: float, lo: float, hi: float) -> str:
    return {"above": "more than half, the CI above 50%", "below": "less than half, the CI below 50%",
            "inside": "not told apart from half, the CI includes 50%"}[side_of(q, lo, hi, 0.5)]


def _signed(x: float) -> str:
    """``x`` with its sign to 2 decimals, a value that rounds to 0 written +0.00."""
    return f"{round(float(x), 2) + 0.0:+.2f}"


def deep_text_4p(ladder: pd.DataFrame, paired: pd.DataFrame, plan: dict,
                 self_play: pd.DataFrame | None = None) -> list[str]:
    """The four-player Beverbende deep run in words, every number read from its tables: the search playing
    for points at the plan's largest budget in one seat against the tuned heuristic in the others, judged by
    margin (the goal: a better margin than that heuristic's in the same seat, the paired CI below 0), its own
    points and its share of the pairings at the table won; the doubling that led to it (its row of
    ``paired``), judged by the share won like the two-player run, with the margin's change beside it; the
    search playing to win at the plan's largest budget, when it has one, judged the same way, the first one
    paired against playing for points and its doubling (when the plan doubles it) judged like the other; and
    the first seat's edge in self-play.

    Args:
        ladder: the run's ``ladder`` table (``policy``, ``margin``, ``margin_diff``, ``margin_diff_ci_low``,
            ``margin_diff_ci_high``, ``diff``, ``ci_low``, ``ci_high``, ``win_share``, ``win_ci_low``,
            ``win_ci_high``; penalty points per game, lower is better).
        paired: the run's ``paired`` table (each policy against the plan's one before it: ``win_share_diff``
            and ``margin_diff`` with their CIs).
        plan: the run's plan (``baseline``, ``players``, ``deals``, ``policies``, ``self_play``).
        self_play: the run's ``self_play`` table (``first_edge``, ``edge_vs_first``, ``first_win_share`` with
            their CIs), or None: a last paragraph, the first seat's edge with the plan's last ``self_play``
            policy in every seat beside its first (the tuned heuristic in every seat).
    """
    rows, pairs = ladder.set_index("policy"), paired.set_index("policy")
    points, wins = _four_player_searches(plan)
    top, base = rows.loc[points], rows.loc[plan["baseline"]]
    g, lo, hi = top.margin_diff, top.margin_diff_ci_low, top.margin_diff_ci_high
    d, dlo, dhi = top["diff"], top.ci_low, top.ci_high
    q, qlo, qhi = top.win_share, top.win_ci_low, top.win_ci_high
    P = plan["players"]
    first = (f"Search ({_search_words(top.name, P)}) sits in one seat of {P}-player games, the other seats playing "
             f"`{plan['baseline']}`, the threshold heuristic tuned at {P} players "
             f"({plan['deals']:,} duplicate deals, seats rotated). Its margin (its penalty points minus the other "
             f"seats' mean, per game; lower is better) is {_signed(top.margin)}, against {_signed(base.margin)} "
             f"for the tuned heuristic in the same seat: a paired difference of {g:+.2f} points a game "
             f"({_ci(lo, hi)}), so {_margin_goal(g, lo, hi)}. Its own penalty points differ by {d:+.2f} a game "
             f"({_ci(dlo, dhi)}), while the other seats' mean goes from {base.others_mean:.2f} to "
             f"{top.others_mean:.2f}; it ends ahead in {q:.1%} of its pairings with the other seats "
             f"({_ci(qlo, qhi, '.1%')}): {_half(q, qlo, qhi)}.")
    last = pairs.loc[points]
    w, wlo, whi = last.win_share_diff, last.win_share_diff_ci_low, last.win_share_diff_ci_high
    moved = _doubling_words(wlo, whi, "wins more pairings", "wins fewer pairings")
    out = [first, (f"Against the search at half that budget ({_search_words(last.versus, P)}), doubling the playouts "
                   f"changes the share of pairings won by {100 * w:+.1f} points of percentage "
                   f"({_ci(100 * wlo, 100 * whi, '+.1f')} points, paired on the same deals): {moved}. The margin "
                   f"changes by {last.margin_diff:+.2f} points a game "
                   f"({_ci(last.margin_diff_ci_low, last.margin_diff_ci_high)}).")]
    if wins:
        r, pw = rows.loc[wins[-1]], pairs.loc[wins[0]]
        g, lo, hi = r.margin_diff, r.margin_diff_ci_low, r.margin_diff_ci_high
        q, qlo, qhi = r.win_share, r.win_ci_low, r.win_ci_high
        vs = ("playing for points at the same budget" if pw.versus == points else f"`{pw.versus}`")
        text = (f"Playing to win instead ({_search_words(wins[-1], P)}), its margin differs from the tuned "
                f"heuristic's by {g:+.2f} points a game ({_ci(lo, hi)}), so {_margin_goal(g, lo, hi)}; its own "
                f"penalty points by {r['diff']:+.2f} ({_ci(r.ci_low, r.ci_high)}); it ends ahead in {q:.1%} of "
                f"its pairings ({_ci(qlo, qhi, '.1%')}): {_half(q, qlo, qhi)}. Playing to win "
                f"({_search_words(wins[0], P).partition(' on ')[0]}) against {vs}, paired on the same deals, "
                f"changes the margin by {pw.margin_diff:+.2f} points a game "
                f"({_ci(pw.margin_diff_ci_low, pw.margin_diff_ci_high)}) and the share of pairings won by "
                f"{100 * pw.win_share_diff:+.1f} points of percentage "
                f"({_ci(100 * pw.win_share_diff_ci_low, 100 * pw.win_share_diff_ci_high, '+.1f')} points: "
                + {"above": "it wins more pairings, the CI above 0", "below": "it wins fewer pairings, the CI below 0",
                   "inside": "not told apart, the CI includes 0"}[
                    side_of(pw.win_share_diff, pw.win_share_diff_ci_low, pw.win_share_diff_ci_high, 0.0)] + ").")
        if len(wins) > 1:
            dw = pairs.loc[wins[-1]]
            w, wlo, whi = dw.win_share_diff, dw.win_share_diff_ci_low, dw.win_share_diff_ci_high
            text += (f" Doubling its playouts from {_search_words(dw.versus, P).partition(' on ')[0]} changes the "
                     f"share of pairings won by {100 * w:+.1f} points of percentage "
                     f"({_ci(100 * wlo, 100 * whi, '+.1f')} points): "
                     f"{_doubling_words(wlo, whi, 'wins more pairings', 'wins fewer pairings')}; the margin by "
                     f"{dw.margin_diff:+.2f} points a game ({_ci(dw.margin_diff_ci_low, dw.margin_diff_ci_high)}).")
        out.append(text)
    if self_play is not None:
        out.append(_first_seat_text(self_play, plan))
    return out


def _first_seat_text(self_play: pd.DataFrame, plan: dict) -> str:
    """The first seat's edge under self-play in words (:func:`deep_text_4p`): the plan's last ``self_play``
    policy in every seat, beside its first, with the paired change between them."""
    sp = self_play.set_index("policy")
    strong, weak = sp.loc[plan["self_play"][-1]], sp.loc[plan["self_play"][0]]

    def edge(r) -> str:
        e, lo, hi = r.first_edge, r.first_edge_ci_low, r.first_edge_ci_high
        word = {"below": "ahead of the others (the CI below 0)", "above": "behind the others (the CI above 0)",
                "inside": "not told apart from the others (the CI includes 0)"}[side_of(e, lo, hi, 0.0)]
        return f"{e:+.2f} penalty points a game against the other seats' mean ({_ci(lo, hi)}): {word}"

    fair = 1 / plan["players"]
    d, dlo, dhi = strong.edge_vs_first, strong.edge_vs_first_ci_low, strong.edge_vs_first_ci_high
    change = ("strong play changes the first seat's edge, the CI excluding 0" if dlo > 0 or dhi < 0 else
              "whether strong play changes the first seat's edge is not settled by these deals, the CI including 0")
    return (f"The first player's edge under strong play: with `{strong.name}` in every seat, the first seat ends "
            f"with {edge(strong)}, and wins {strong.first_win_share:.1%} of the games "
            f"({_ci(strong.first_win_ci_low, strong.first_win_ci_high, '.1%')}; an even share is {fair:.0%}). "
            f"With `{weak.name}` in every seat it ends with {edge(weak)}. Paired on the same deals the edge differs "
            f"by {d:+.2f} points ({_ci(dlo, dhi)}): {change}.")


def _strong_play_4p_finding(ladder: pd.DataFrame, paired: pd.DataFrame, plan: dict,
                            self_play: pd.DataFrame | None = None):
    """Strong play at four players, from the stored deep run (tables ``beverbende_deep4_ladder``,
    ``beverbende_deep4_paired``), worded by :func:`deep_text_4p`; its title names the search with the better
    margin (playing for points or to win)."""
    from .findings import Finding, Quote

    rows = ladder.set_index("policy")
    points, wins = _four_player_searches(plan)
    top = min((rows.loc[p] for p in [points, *wins]), key=lambda r: r.margin_diff)
    g = top.margin_diff
    how = "playing to win" if "objective=wins" in top.name else "playing for points"

    def said(r) -> str:
        return {"below": f"better by {-r.margin_diff:.2f} points a game", "inside": "not told apart from it",
                "above": f"worse by {r.margin_diff:.2f} points a game"}[
            side_of(r.margin_diff, r.margin_diff_ci_low, r.margin_diff_ci_high, 0.0)]

    if side_of(g, top.margin_diff_ci_low, top.margin_diff_ci_high, 0.0) == "below":
        title = f"At four players, search ({how}) beats the tuned threshold heuristic on margin, by {-g:.2f} points a game."
    else:
        title = ("At four players, search does not beat the tuned threshold heuristic on margin: playing for points "
                 f"it is {said(rows.loc[points])}" + (f", playing to win {said(rows.loc[wins[-1]])}" if wins else "")
                 + ".")
    t = "beverbende_deep4_ladder"
    last = paired.set_index("policy").loc[points]
    return Finding("estimate", title, " ".join(deep_text_4p(ladder, paired, plan, self_play)) + " (stored deep "
                   "run; see \"Strong play at four players\".)",
                   {"margin_diff": Quote(g, t, "margin_diff", top.name),
                    "points": Quote(top["diff"], t, "diff", top.name),
                    "win_share": Quote(top.win_share, t, "win_share", top.name),
                    "doubling": Quote(last.win_share_diff, "beverbende_deep4_paired", "win_share_diff", last.name)})


def section_findings(*, pt: pd.DataFrame, pairs: pd.DataFrame, knock_rows, default_k: float, bv: pd.DataFrame,
                     var: pd.DataFrame, fp: pd.DataFrame, mc: pd.DataFrame, su: pd.DataFrame, sv: pd.DataFrame,
                     chk: pd.DataFrame, tuned_params: dict, gw: pd.DataFrame, kr_check: pd.DataFrame,
                     deep: dict | None = None, deep4: dict | None = None) -> list:
    """The findings of the Beverbende section, most useful to a player first: a pure function of the section's
    tables (:func:`policy_table`, :func:`policy_pairs`, the knock rows of :func:`best_knock`,
    :func:`best_by_variant` and :func:`variants`, the check of :func:`knock_rules`, :func:`first_player`, :func:`memory_curve`,
    :func:`special_use`, :func:`special_values`, the tuned check of :func:`ludolab.sim.beverbende.compare`,
    :func:`game_wins`); ``deep``: the stored deep run of strong play when it is shown (``ladder``, ``paired``,
    ``plan``: :func:`deep_text`), else None; ``deep4``: the same of the four-player run (:func:`deep_text_4p`).

    Returns:
        :class:`~ludolab.analysis.findings.Finding` objects and Markdown strings, for
        :func:`~ludolab.analysis.findings.render_markdown`.
    """
    from .findings import Finding, Quote

    pol_find = policy_finding(pairs)
    one = mc[mc.who == "one"].set_index("memory_loss")
    m0, m1 = one.iloc[0], one.iloc[-1]
    fp4 = fp[fp.players == 4].sort_values("seat")
    first, last = fp4.iloc[0], fp4.iloc[-1]
    use = su.iloc[1:].sort_values("diff_vs_first", ascending=False)
    sv_big = sv[sv.factor == 0].assign(a=lambda x: x.change.abs()).sort_values("a", ascending=False).iloc[0]
    gbest = gw.loc[gw.groupby("players").p_win_alone.idxmax()]

    find = [_strong_play_finding(**deep)] if deep else []
    if deep4:
        find.append(_strong_play_4p_finding(**deep4))
    rnd4 = pt[(pt.players == 4) & (pt.policy == "random")].iloc[0]
    find.append(Finding("comparison", pol_find.title, pol_find.text
                        + f" `random` is far worse (with 4 players its margin is {rnd4.margin:+.2f} points a round, "
                          f"{_ci(rnd4.margin_ci_low, rnd4.margin_ci_high)}).",
                        {**pol_find.quotes, "random_margin": Quote(rnd4.margin, "beverbende_policies", "margin",
                                                                    "4 players, random")},
                        verdict=pol_find.verdict))
    find.append(knock_finding(knock_rows, default_k, bv, var))
    find.append(knock_rule_finding(kr_check))
    find.append(_first_player_finding(first, last))
    find.append(_memory_finding(m0, m1))
    find.append(_special_use_finding(use))
    find.append(tuned_finding(chk, tuned_params["knock"], default_k, tuned_params.get("unknown"),
                              float(bev.POLICY_PARAMS["threshold"]["unknown"])))
    find.append(_game_wins_finding(gbest))
    find.append(_specials_finding(sv_big))
    return find


def _study_policies(ctx, s) -> list[str]:
    """Which policy to play: each policy in seat 0 by player count, then the two best paired on fresh deals.

    Reads the study so far from ``s`` (:func:`study`), adds ``pt, pairs`` to it; returns the Markdown blocks."""
    n, meta, base_defs = s.n, s.meta, s.base_defs
    ctx.say("beverbende: policies by player count ...")
    pt = policy_table((2, 3, 4, 5, 6), rounds=n, seed=ctx.seed)
    pairs = policy_pairs(pt, rounds=n, seed=ctx.seed + 2000)
    pol_find = policy_finding(pairs)
    n_pol = pt.players.nunique()
    own_best = pt.loc[pt.groupby("players").mean_score.idxmin()].policy.unique()

    pcols = pt[["players", "policy", "mean_score", "mean_score_ci_low", "mean_score_ci_high", "margin",
                "margin_ci_low", "margin_ci_high", "p_lowest_alone", "knock_rate", "diff_vs_first",
                "diff_vs_first_ci_low", "diff_vs_first_ci_high", "capped_rounds"]]
    body = ["## Which policy to play\n",
           "Seat 0 plays each policy, every other seat the default threshold heuristic; judged by `margin`. "
           + "The two best by margin at each player count are then compared again on fresh deals, paired (the "
           "second table): " + pol_find.text
           + (" By own mean score alone " + " and ".join(own_best) + " would look best, but that is not what "
              "wins a game." if len(own_best) == 1 else "") + "\n",
           _columns(pcols, {**base_defs, "diff_vs_first": "seat 0's paired round-score difference against "
                            "`random` on the same deals (points, negative is better)"}),
           ctx.table(pcols, "beverbende_policies", {**meta, "rounds": n}),
           "\n" + _columns(pairs, {"players": base_defs["players"], "policy": "the policy with the better margin "
                                   "in the table above", "against": "the runner-up",
                                   "margin_diff": "`policy`'s margin minus `against`'s on the same fresh deals "
                                                  "(points a round, negative: `policy` does better)",
                                   "verdict": "the comparison word: better / worse when the CI excludes 0, "
                                              "equally good when it includes 0 and is narrower than the stated "
                                              "tolerance, cannot tell yet otherwise",
                                   "rounds": "paired rounds played"}),
           ctx.table(pairs, "beverbende_policy_pairs", {**meta, "rounds": n, "seed": ctx.seed + 2000})]

    s.pt, s.pairs = pt, pairs
    return body


DEEP_NAME = "beverbende_strong_2p"

#: the columns both Beverbende deep-run ladders share, in words
_DEEP_DEFS = {"mean": "its mean penalty points per game (lower is better)",
              "others_mean": "the other seats' mean penalty points per game at its table",
              "diff": "its penalty points minus the baseline's in the same seat on the same deal (paired)"}


def _deep_setting(plan: dict) -> str:
    """A Beverbende ladder deep run's setting in words, for :func:`ludolab.analysis.deep.stored_intro`."""
    return (f"the ladder of `ludolab beverbende ladder --players {plan['players']}`: {plan['players']} players, "
            f"rulebook rules, {plan['deals']:,} duplicate deals with seats rotated, seed {plan['seed']}, "
            f"{plan['chunks']} chunks; baseline `{plan['baseline']}`, the threshold heuristic as "
            f"`ludolab beverbende tune --players {plan['players']}` tunes it")


def _deep_ladder(ctx, st, prefix: str, cols: list, defs: dict):
    """The parts of a shown Beverbende ladder deep run ``st`` (:func:`ludolab.analysis.deep.stored`):
    ``(plan, tables, meta, ladder, its Markdown table, the intro's opening)``; the ladder is written as
    ``tables/<prefix>_ladder.csv`` with the run's provenance, its ``cols`` shown with ``defs``."""
    from . import deep

    plan, t, meta = st.summary["plan"], st.tables(), deep.table_meta(st)
    lad = t["ladder"]
    shown = deep.shown_ladder(lad, cols)
    table = _columns(shown, defs) + "\n" + ctx.table(lad, f"{prefix}_ladder", meta, shown=shown)
    intro = deep.stored_intro(st, _deep_setting(plan), f"{plan['canary_deals']} deal of its own with a small search")
    return plan, t, meta, lad, table, intro


def _study_deep(ctx, s) -> list[str]:
    """Strong play at two players: the stored deep run ``beverbende_strong_2p`` (:mod:`ludolab.analysis.deep`),
    or why it is not shown.  Adds ``deep`` to ``s`` (None unless shown); returns the Markdown blocks."""
    from . import deep

    st, head = deep.section_start(ctx, DEEP_NAME, "beverbende", "Strong play at two players (stored deep run)")
    s.deep = None
    if st.status != "ok":
        return head
    cols = ["policy", "mean", "others_mean", "diff", "ci_low", "ci_high", "win_share", "win_ci_low", "win_ci_high",
            "rating", "rating_ci_low", "rating_ci_high"]
    defs = {"policy": "the policy in one seat, every other seat playing the baseline (a search is written "
                      "`search:budget=B,rollout=NAME,objective=wins`: B playouts per decision, NAME in the playouts, "
                      "each playout worth its share of seats beaten)",
            **_DEEP_DEFS,
            "win_share": "share of games it ends ahead of the other seat (ties 1/2)",
            "rating": "Bradley-Terry strength on the Elo scale, the baseline 0"}
    plan, t, meta, lad, table, intro = _deep_ladder(ctx, st, "beverbende_deep", cols, defs)
    deep.write_tables(ctx, t, "beverbende_deep", ("paired", "by_seat"), meta)
    intro = (intro + " Its provenance is in "
             "`tables/beverbende_deep_ladder.meta.json`; each policy against the one before it, paired, is in "
             "`tables/beverbende_deep_paired.csv`, and the figures by seat in `tables/beverbende_deep_by_seat.csv`.\n")
    s.deep = {"ladder": lad, "paired": t["paired"], "plan": plan}
    return head + [intro, " ".join(deep_text(lad, t["paired"], plan)) + "\n", table]


DEEP_4P_NAME = "beverbende_strong_4p"


def _study_deep_4p(ctx, s) -> list[str]:
    """Strong play at four players: the stored deep run ``beverbende_strong_4p`` (:mod:`ludolab.analysis.deep`),
    or why it is not shown.  Adds ``deep4`` to ``s`` (None unless shown); returns the Markdown blocks."""
    from . import deep

    st, head = deep.section_start(ctx, DEEP_4P_NAME, "beverbende", "Strong play at four players (stored deep run)")
    s.deep4 = None
    if st.status != "ok":
        return head
    cols = ["policy", "mean", "others_mean", "margin", "margin_diff", "margin_diff_ci_low", "margin_diff_ci_high",
            "diff", "ci_low", "ci_high", "win_share", "win_ci_low", "win_ci_high"]
    defs = {"policy": "the policy in one seat, every other seat playing the baseline (a search is written "
                      "`search:budget=B,rollout=NAME`: B playouts per decision, NAME in the playouts, each playout "
                      "worth its penalty points, or with `objective=wins` the share of the other seats it ends "
                      "ahead of)",
            **_DEEP_DEFS,
            "margin": "its penalty points minus the other seats' mean, per game (lower is better)",
            "margin_diff": "its margin minus the baseline's in the same seat on the same deal (paired)",
            "win_share": "share of its pairings with the other seats that it ends ahead (ties 1/2)"}
    plan, t, meta, lad, table, intro = _deep_ladder(ctx, st, "beverbende_deep4", cols, defs)
    deep.write_tables(ctx, t, "beverbende_deep4", ("paired", "by_seat"), meta)
    intro = (intro + " Its provenance is in `tables/beverbende_deep4_ladder.meta.json`; each policy against the one "
             "before it, paired, is in `tables/beverbende_deep4_paired.csv` (one seat) and "
             "`tables/beverbende_deep4_self_play_paired.csv` (every seat), and the figures by seat in "
             "`tables/beverbende_deep4_by_seat.csv` and `tables/beverbende_deep4_self_play_by_seat.csv`.\n")
    sp = t.get("self_play")
    s.deep4 = {"ladder": lad, "paired": t["paired"], "plan": plan, "self_play": sp}
    body = head + [intro, "\n\n".join(deep_text_4p(lad, t["paired"], plan, sp)) + "\n", table]
    if sp is not None:
        spc = sp[["policy", "mean", "ci_low", "ci_high", "first_edge", "first_edge_ci_low", "first_edge_ci_high",
                  "edge_vs_first", "edge_vs_first_ci_low", "edge_vs_first_ci_high", "first_win_share",
                  "first_win_ci_low", "first_win_ci_high"]].rename(columns={
                      "ci_low": "mean_ci_low", "ci_high": "mean_ci_high", "first_win_ci_low": "first_win_share_ci_low",
                      "first_win_ci_high": "first_win_share_ci_high"})
        sdefs = {"policy": "the policy in every seat",
                 "mean": "mean penalty points per player and game",
                 "first_edge": "the first seat's penalty points minus the other seats' mean on the same deal "
                               "(negative: the first seat does better)",
                 "edge_vs_first": "that edge minus the first row's on the same deals (paired)",
                 "first_win_share": "the first seat's share of the games won (the lowest total, ties shared)"}
        body += ["\nEvery seat playing the same policy (self-play), on the same deals:\n", _columns(spc, sdefs),
                 ctx.table(t["self_play"], "beverbende_deep4_self_play", meta, shown=spc)]
        deep.write_tables(ctx, t, "beverbende_deep4", ("self_play_paired", "self_play_by_seat"), meta)
    return body


def _study_first_player(ctx, s) -> list[str]:
    """Does the first player have an advantage: every seat on the threshold heuristic, score by seat.

    Reads the study so far from ``s`` (:func:`study`), adds ``fp`` to it; returns the Markdown blocks."""
    n, meta, base_defs = s.n, s.meta, s.base_defs
    ctx.say("beverbende: score distributions and first-player advantage ...")
    fp = first_player((2, 3, 4, 5, 6), rounds=n, seed=ctx.seed)
    fig_sc = fig_scores(BeverbendeRules(), rounds=n, seed=ctx.seed)
    adv = [f"{int(P)} players: seat 0 {d.mean_score.iloc[0]:.2f}, last seat {d.mean_score.iloc[-1]:.2f}"
           for P, d in fp.groupby("players")]
    fcols = fp[["players", "seat", "mean_score", "mean_score_ci_low", "mean_score_ci_high", "p_lowest_alone",
                "p_lowest_alone_ci_low", "p_lowest_alone_ci_high", "knock_rate"]]
    body = ["\n## Does the first player have an advantage?\n",
           "Every seat plays the default threshold heuristic; seat 0 starts. Mean round score per seat "
           "(" + "; ".join(adv) + "). The chart shows the round score distributions of each policy.\n",
           ctx.figure(fig_sc, "beverbende_scores", "Round score distribution of each policy"),
           _columns(fcols, {**base_defs, "seat": "seat number (seat 0 starts every round)",
                            "mean_score": "this seat's mean round score (points)",
                            "p_lowest_alone": "chance this seat's row is strictly the lowest",
                            "knock_rate": "share of rounds in which this seat knocked"}),
           ctx.table(fcols, "beverbende_first_player", {**meta, "rounds": n})]

    s.fp = fp
    return body


def _study_knock(ctx, s) -> list[str]:
    """When to knock: seat 0's threshold against the field's; the best own threshold per player count.

    Reads the study so far from ``s`` (:func:`study`), adds ``knock_rows`` to it; returns the Markdown blocks."""
    quick, n, meta, base_defs, default_k = s.quick, s.n, s.meta, s.base_defs, s.default_k
    ctx.say("beverbende: knock thresholds ...")
    ks = range(4, 21, 4) if quick else range(2, 21, 2)
    sw_rounds = max(500, n // 8)
    sw = knock_sweep((2, 4, 6) if quick else (2, 3, 4, 5, 6), ks, ks, rounds=sw_rounds, seed=ctx.seed)
    bk = best_knock(sw)
    knock_rows = []  # per player count: the best own threshold against the field nearest the default
    for P, d in bk.groupby("players"):
        r = d.iloc[(d.field_knock - default_k).abs().argmin()]
        lo, hi = _near_best(sw[(sw.players == P) & (sw.field_knock == r.field_knock)], r.margin_ci_high)
        knock_rows.append((int(P), r, lo, hi))

    lines = [f"Against a field knocking at {knock_rows[0][1].field_knock:g}, the best own threshold and the "
             "range of thresholds whose margin lies inside its CI: "
             + "; ".join(f"{P} players {r.best_knock:g} ({lo:g} to {hi:g}; margin {r.margin:+.2f}, "
                         f"{_ci(r.margin_ci_low, r.margin_ci_high)})" for P, r, lo, hi in knock_rows)
             + ". The table shows that field only; the CSV has every field."]
    body = ["\n## When to knock\n",
           "Seat 0's knock threshold (own: knock when the believed row total is at most this) against the "
           f"threshold of every other seat (field), {sw_rounds:,} rounds per pair. " + " ".join(lines)
           + " The chart draws seat 0's margin against its own threshold for that field, one line per player "
           "count with its 95% CI band: the flatter and wider the low stretch, the less the exact threshold "
           "matters.\n",
           ctx.figure(fig_knock_margin(sw, knock_rows[0][1].field_knock), "beverbende_knock",
                      f"Margin against your own knock threshold, the others knocking at "
                      f"{knock_rows[0][1].field_knock:g}"),
           _columns(bk[bk.field_knock == knock_rows[0][1].field_knock],
                    {**base_defs, "best_knock": "seat 0's knock threshold with the lowest `margin` against "
                         "that field", "margin": "seat 0's `margin` at `best_knock` (points, lower is better)",
                         "mean_score": "seat 0's mean round score at `best_knock` (points)",
                         "p_win": "chance seat 0 has the lowest row at `best_knock`, a shared lowest counted as "
                                  "half", "rounds": "rounds played at each threshold"}),
           ctx.table(bk, "beverbende_best_knock", {**meta, "rounds": sw_rounds},
                     shown=bk[bk.field_knock == knock_rows[0][1].field_knock])]

    s.knock_rows = knock_rows
    return body


def _study_knock_rules(ctx, s) -> list[str]:
    """When to knock by the lap and what the player knows: :func:`knock_rules` from the best fixed thresholds.

    Reads ``knock_rows`` from ``s`` (:func:`_study_knock`), adds ``kr_check`` to it; returns the Markdown blocks."""
    quick, n, meta, base_defs = s.quick, s.n, s.meta, s.base_defs
    ctx.say("beverbende: knock rules by the lap and what you know ...")
    fixed = {P: float(r.best_knock) for P, r, _, _ in s.knock_rows if P in (2, 4, 6)}
    fk = float(s.knock_rows[0][1].field_knock)   # the field the fixed thresholds were best against
    grid = KNOCK_RULE_GRID_QUICK if quick else KNOCK_RULE_GRID
    tried, chk = knock_rules(fixed, n, ctx.seed, ctx.seed + 2000, grid, field=_threshold(fk))
    per = len(tried) // len(fixed)
    keep = (chk.rule == "chosen") | ((chk.rule == "chosen without the lap") & (chk.late.shift(1) != 0))
    shown = chk[keep][["players", "rule", "knock", "late", "unknown", "margin_diff_vs_first",
                       "margin_diff_vs_first_ci_low", "margin_diff_vs_first_ci_high",
                       "lap_gain", "lap_gain_ci_low", "lap_gain_ci_high", "share_differs_from_first"]]
    edges = []
    for P, d in tried.groupby("players"):
        c = chk[(chk.players == P) & (chk.rule == "chosen")].iloc[0]
        at = [k for k in ("knock", "late", "unknown") if c[k] in (d[k].min(), d[k].max()) and d[k].nunique() > 1]
        if at:
            edges.append(f"{int(P)} players ({', '.join(at)})")
    capped = chk[chk.rule != "fixed"].capped_rounds
    notes = (f" The fixed thresholds: {'; '.join(f'{P} players {k:g}' for P, k in fixed.items())}."
             + (f" The chosen rule lies on the edge of the grid at {', '.join(edges)}: a wider grid might do a little "
                "better." if edges else "")
             + (f" {int(capped.sum()):,} rounds of the rules in the table ran to the round cap with nobody knocking "
                "(`capped_rounds` in the CSV)." if capped.sum() else "")
             + " The tuned heuristic further down changes every parameter at once against the default field; this "
               "section changes only the knock rule.")
    body = ["\n## When to knock, by the lap and what you know\n",
            f"A knock rule a player can follow: count each card of your own row you have not seen as *unknown* "
            f"points, and knock when the total is at most *knock*, moved by *late* points for each lap of the table "
            f"already played. Seat 0 tries {per} such rules per player count ({', '.join(map(str, fixed))} "
            f"players; *knock* within {max(abs(x) for x in grid['knock']):g} of the best fixed threshold above, *late* from {min(grid['late']):g} to "
            f"{max(grid['late']):g}, *unknown* {', '.join(f'{u:g}' for u in grid['unknown'])}) against the threshold "
            f"heuristic knocking at {fk:g} in the other seats, as above, {n:,} rounds each on the same deals. The rule with the lowest margin, and the "
            f"same without the lap, are played again beside the fixed threshold (each unseen card as 4.5, no "
            f"change with the lap) on {n:,} fresh rounds, paired: the table (a row without the lap only where the chosen rule has "
            f"one). Every rule tried is in `tables/beverbende_knock_rules_tried.csv`." + notes + "\n",
            _columns(shown, {**base_defs, "knock": "the chosen rule's bar (points)",
                             "late": "how far the bar moves for each lap of the table already played (points, "
                                     "negative: lower)",
                             "unknown": "what a card of your own row you have not seen counts (points)",
                             "margin_diff_vs_first": "seat 0's margin with the rule minus its margin with "
                                                     "the fixed threshold, on the same fresh deals (points, "
                                                     "negative is better)",
                             "share_differs_from_first": "share of rounds in which the rule changes seat 0's "
                                                         "round score (against the fixed threshold)",
                             "rule": "`chosen` for the rule tried with the lowest margin, `chosen without the lap` "
                                     "for the same with *late* 0",
                             "lap_gain": "on the chosen row, its margin minus that of the same rule without the "
                                         "lap, on the same deals (points, negative: the lap pays), empty where not "
                                         "measured"}),
            ctx.table(chk, "beverbende_knock_rules", {**meta, "rounds": n, "check_seed": ctx.seed + 2000},
                      shown=shown),
            ]
    ctx.table(tried, "beverbende_knock_rules_tried", {**meta, "rounds": n})
    s.kr_check = chk
    return body


def _study_memory(ctx, s) -> list[str]:
    """What a good memory is worth: seat 0 alone or every seat forgetting with chance q per turn.

    Reads the study so far from ``s`` (:func:`study`), adds ``mc`` to it; returns the Markdown blocks."""
    n, meta, base_defs = s.n, s.meta, s.base_defs
    ctx.say("beverbende: memory ...")
    mc = memory_curve((0.0, 0.1, 0.3, 0.6, 1.0), 4, rounds=n, seed=ctx.seed)
    one = mc[mc.who == "one"].set_index("memory_loss")
    allf = mc[mc.who == "all"].set_index("memory_loss")
    m0, m1 = one.iloc[0], one.iloc[-1]
    mcols = mc[["memory_loss", "who", "mean_score", "mean_score_ci_low", "mean_score_ci_high",
                "table_mean_score", "mean_turns", "capped_rounds"]]
    body = ["\n## What a good memory is worth\n",
           f"Four players. Forgetting each remembered card with chance q per turn, seat 0 alone scores "
           f"{m1.mean_score - m0.mean_score:+.2f} points a round at q = 1 compared with perfect "
           "memory. When everybody forgets alike the rounds get longer (`mean_turns` "
           f"{allf.mean_turns.iloc[0]:.1f} at q = 0, {allf.mean_turns.iloc[-1]:.1f} at q = 1): the threshold "
           "heuristic counts a forgotten card as 4.5 and stops believing its row is low enough to knock"
           + (", and at q = 1 nobody ever knocks and every round ends at the round cap"
              if allf.capped_rounds.iloc[-1] == n else "") + ".\n",
           ctx.figure(fig_memory(mc), "beverbende_memory", "Round score against the chance of forgetting a card each turn"),
           _columns(mcols, {**base_defs, "memory_loss": "chance q per turn that a forgetting seat forgets each "
                            "card it remembers (BVB-13)",
                            "who": "who forgets: `one` only seat 0 (the others remember perfectly), `all` every "
                                   "seat alike",
                            "table_mean_score": "mean round score over all seats of the table (points)"}),
           ctx.table(mcols, "beverbende_memory", {**meta, "rounds": n})]

    s.mc = mc
    return body


def _study_specials(ctx, s) -> list[str]:
    """What each special card does to the game, and what playing each is worth to seat 0.

    Reads the study so far from ``s`` (:func:`study`), adds ``sv, su`` to it; returns the Markdown blocks."""
    n, meta, base_defs = s.n, s.meta, s.base_defs
    ctx.say("beverbende: special cards ...")
    sv = special_values(4, rounds=n, seed=ctx.seed)
    su = special_use(4, rounds=n, seed=ctx.seed)
    svcols = sv[["special", "factor", "copies", "mean_score", "change", "change_ci_low", "change_ci_high",
                 "mean_turns"]]
    body = ["\n## What each special card does to the game\n",
           "Four players, every seat on the threshold heuristic, with the deck without a special type "
           "(factor 0), as printed (1) or with it doubled (2). A special drawn is a number card not drawn, and a "
           "special dealt into a row is replaced by a random number at the end, so fewer specials can mean lower "
           "scores even though each special helps the player who draws it. The table gives, per special type "
           "and factor, the table's mean round score and its change against the printed deck.\n",
           ctx.figure(fig_specials(sv), "beverbende_specials", "Change in the table's round score without or with doubled special cards"),
           _columns(svcols, {**base_defs, "special": "the special card type changed",
                             "factor": "its number of copies relative to the printed deck (0 none, 1 printed, "
                                       "2 doubled)",
                             "copies": "its number of copies in the deck",
                             "mean_score": "the table's mean round score over all seats (points)",
                             "change": "`mean_score` minus the printed deck's (points, unpaired CI)"}),
           ctx.table(svcols, "beverbende_specials", {**meta, "rounds": n})]

    sucols = su[["ignores", "mean_score", "diff_vs_first", "diff_vs_first_ci_low", "diff_vs_first_ci_high"]]
    body += ["\n## What playing each special card is worth\n",
           "Four players. Seat 0 plays the threshold heuristic but never plays one special type, while the field "
           "uses all; the table gives what ignoring each type costs seat 0, paired on the same deals. "
           + " ".join(f"Never playing {r.ignores} costs {r.diff_vs_first:+.2f} points a round "
                      f"({_ci(r.diff_vs_first_ci_low, r.diff_vs_first_ci_high)})." for r in su.iloc[1:].itertuples())
           + "\n",
           _columns(sucols, {**base_defs, "ignores": "the special type seat 0 never plays (`nothing`: it plays "
                             "them all)",
                             "diff_vs_first": "seat 0's paired round-score difference against ignoring nothing "
                                              "(points, positive means ignoring the type costs points)"}),
           ctx.table(sucols, "beverbende_special_use", {**meta, "rounds": n})]

    s.sv, s.su = sv, su
    return body


def _study_variants(ctx, s) -> list[str]:
    """Scoring variants and the best knock, held against "When to knock".

    Reads the study so far from ``s`` (:func:`study`), adds ``var, bv`` to it; returns the Markdown blocks."""
    quick, n, meta, base_defs, default_k, knock_rows = s.quick, s.n, s.meta, s.base_defs, s.default_k, s.knock_rows
    ctx.say("beverbende: scoring variants ...")
    var_rounds = max(500, n // 4)
    var = variants((2, 4), range(4, 21, 4) if quick else range(2, 21, 2), rounds=var_rounds, seed=ctx.seed)
    bv = best_by_variant(var)
    agree = []
    for r in bv[bv.scoring == "sum"].itertuples():
        hit = [(P, k) for P, k, lo, hi in knock_rows if P == r.players]
        if not hit:
            continue
        k = hit[0][1]
        same = "the same value" if k.best_knock == r.best_knock else f"{k.best_knock:g}"
        txt = (f"With {int(r.players)} players the `sum` row's best threshold is {r.best_knock:g} (margin "
               f"{r.margin:+.2f}, {_ci(r.margin_ci_low, r.margin_ci_high)}); \"When to knock\" found {same} against "
               f"a field at {k.field_knock:g} (margin {k.margin:+.2f}, {_ci(k.margin_ci_low, k.margin_ci_high)}) "
               "on other rounds")
        if k.best_knock != r.best_knock:
            d, lo, hi = _difference(r, k, "margin")
            txt += (f": the margins differ by {d:+.2f} ({_ci(lo, hi)}), " +
                    ("so the difference is within the noise." if lo <= 0 <= hi else "beyond noise."))
        else:
            txt += "."
        agree.append(txt)
    body = ["\n## Scoring variants and the best knock\n",
           "`sum` is the rulebook; `knocker-penalty` adds 5 to a knocker who is not strictly lowest; `win-count` "
           f"gives a point per round won. Seat 0's best own knock threshold against the default field (knocking "
           f"at {default_k:g}), {var_rounds:,} rounds per threshold. " + " ".join(agree) + "\n",
           ctx.figure(fig_variants(var), "beverbende_variants", "Seat 0's result against its knock threshold under each scoring variant"),
           _columns(bv, {**base_defs, "scoring": "the scoring variant (BVB-15)",
                         "rounds": "rounds played at each threshold",
                         "field_knock": "knock threshold of every other seat (the default heuristic's)",
                         "best_knock": "seat 0's best knock threshold: lowest `margin` for `sum` and "
                                       "`knocker-penalty`, highest `p_win` for `win-count`",
                         "margin": "seat 0's `margin` at `best_knock` (points, lower is better)",
                         "mean_score": "seat 0's mean round score at `best_knock` (points)",
                         "p_win": "chance seat 0 has the lowest row at `best_knock`, a shared lowest counted as "
                                  "half"}),
           ctx.table(bv, "beverbende_variants", {**meta, "rounds": var_rounds})]

    s.var, s.bv = var, bv
    return body


def _study_tuned(ctx, s) -> list[str]:
    """Can the threshold heuristic be improved: a coordinate search, checked on fresh rounds.

    Reads the study so far from ``s`` (:func:`study`), adds ``tuned_params, chk`` to it; returns the Markdown blocks."""
    quick, n, meta, base_defs = s.quick, s.n, s.meta, s.base_defs
    ctx.say("beverbende: tuning the threshold heuristic ...")
    r4 = BeverbendeRules(players=4)
    tn = max(500, n // 6)
    tuned_params, _ = tune(r4, "threshold", tn, ctx.seed, passes=1 if quick else 2)
    tuned = bev.make_policy("threshold", **tuned_params)
    chk = bev.compare(r4, ["threshold", tuned], "threshold", n, ctx.seed + 1000)
    text = ", ".join(f"{k} = {v:g}" for k, v in tuned_params.items() if k in TUNE_GRID)  # what the search moved
    tcols = chk[["policy", "mean_score", "mean_score_ci_low", "mean_score_ci_high", "margin", "margin_ci_low",
                 "margin_ci_high", "margin_diff_vs_first", "margin_diff_vs_first_ci_low",
                 "margin_diff_vs_first_ci_high", "diff_vs_first", "diff_vs_first_ci_low", "diff_vs_first_ci_high"]]
    body = ["\n## Can the threshold heuristic be improved?\n",
           f"Coordinate search (four players, seat 0 against the default heuristic, {tn:,} rounds per step on "
           f"common random numbers, lowest margin) found {text}. Checked on {n:,} fresh rounds (seed "
           f"{ctx.seed + 1000}): margin {chk.margin[1]:+.2f} against {chk.margin[0]:+.2f} for the default, "
           f"paired margin difference {chk.margin_diff_vs_first[1]:+.2f} points a round "
           f"({_ci(chk.margin_diff_vs_first_ci_low[1], chk.margin_diff_vs_first_ci_high[1])}); "
           f"paired score difference {chk.diff_vs_first[1]:+.2f} points a round "
           f"({_ci(chk.diff_vs_first_ci_low[1], chk.diff_vs_first_ci_high[1])}). Command: "
           "`ludolab beverbende tune`.\n",
           _columns(tcols, {**base_defs, "policy": "seat 0's policy: the default heuristic, then the tuned one",
                            "diff_vs_first": "seat 0's paired round-score difference against the default "
                                             "heuristic (points, negative is better)",
                            "margin_diff_vs_first": "seat 0's paired margin difference against the default "
                                                    "heuristic (points, negative is better: this decides)"}),
           ctx.table(tcols, "beverbende_tuned", {**meta, "rounds": n, "tune_rounds": tn})]

    s.tuned_params, s.chk = tuned_params, chk
    return body


def _study_games(ctx, s) -> list[str]:
    """Whole games: seat 0's chance to win a game against the threshold field.

    Reads the study so far from ``s`` (:func:`study`), adds ``gw`` to it; returns the Markdown blocks."""
    n, meta, base_defs, rules = s.n, s.meta, s.base_defs, s.rules
    ctx.say("beverbende: whole games ...")
    games = max(500, n // 4)
    gw = game_wins((2, 4), games=games, seed=ctx.seed)

    body = ["\n## Whole games\n",
           "Chance of winning a whole game (as many rounds as players, four with two) for seat 0's policy "
           "against the threshold field.\n",
           _columns(gw, {**base_defs, "field": "the policy of every other seat",
                         "p_win_alone": "chance seat 0 alone has the lowest game total",
                         "p_win_shared": "chance seat 0 ties with another seat for the lowest game total",
                         "fair_share": "1 / players, an even share of the wins",
                         "mean_total": "seat 0's mean game total, the sum of its round scores (points)",
                         "games": "number of games simulated",
                         "capped_rounds": "rounds in those games ended by the round cap of "
                                          f"{rules.round_cap} turns (BVB-12)"}),
           ctx.table(gw, "beverbende_game_wins", {**meta, "games": games})]

    s.gw = gw
    return body


def study(ctx) -> tuple[dict, list[str]]:
    """The Beverbende study: every run and table of the report section, in the order they are made (each
    table's provenance lists the runs since the previous one).

    Args:
        ctx: the :class:`~ludolab.analysis.report.ReportContext` (``ctx.quick``: 2,000 rounds per table instead
            of 16,000; seeds from ``ctx.seed``).

    Returns:
        ``(tables, body)``: the tables :func:`section_findings` reads, by its argument names, and the
        sub-sections as Markdown blocks (sub-heading, prose, columns line, table, chart).
    """
    from types import SimpleNamespace

    from ludolab.analysis.results import provenance

    quick = ctx.quick
    n = 2_000 if quick else 16_000
    rules = BeverbendeRules()
    meta = provenance(GAME, rules=rules.as_dict(), seed=ctx.seed)
    default_k = float(bev.POLICY_PARAMS["threshold"]["knock"])
    cap = f"rounds ended by the round cap of {rules.round_cap} turns without a knock (BVB-12)"
    base_defs = {
        "players": "number of players at the table",
        "policy": "seat 0's policy",
        "mean_score": "seat 0's mean round score (points, lower is better)",
        "margin": "seat 0's round score minus the mean of the other seats' (points, lower is better: this is "
                  "what decides a game scored by sums)",
        "p_lowest_alone": "chance seat 0's row is strictly the lowest of the round",
        "knock_rate": "share of rounds in which seat 0 knocked",
        "capped_rounds": cap,
        "mean_turns": "mean number of turns per round",
        "field_knock": "knock threshold of every other seat (the field)",
        "p_win": "chance seat 0 has the lowest row, a shared lowest counted as half",
    }
    s = SimpleNamespace(quick=quick, n=n, rules=rules, meta=meta, default_k=default_k, base_defs=base_defs)
    body = []
    for part in (_study_policies, _study_deep, _study_deep_4p, _study_first_player, _study_knock, _study_knock_rules, _study_memory,
                 _study_specials,
                 _study_variants, _study_tuned, _study_games):
        body += part(ctx, s)
    tables = {k: getattr(s, k) for k in ("pt", "pairs", "knock_rows", "default_k", "bv", "var", "kr_check", "fp",
                                          "mc", "su", "sv", "chk", "tuned_params", "gw", "deep", "deep4")}
    return tables, body


def report_section(ctx) -> str:
    """Beverbende: findings first, then one sub-section per question: which policy, when to knock, the first
    player, what memory and each special card are worth, the scoring variants, a tuned heuristic, whole games.

    The study (:func:`study`) makes the tables, :func:`section_findings` reads them, and
    :func:`~ludolab.analysis.findings.render_section` puts the section together."""
    from .findings import render_section

    tables, body = study(ctx)
    find = section_findings(**tables)
    default_k = tables["default_k"]
    how = ("Rulebook deck (66 cards), sum scoring, perfect memory unless said otherwise (clauses in "
           "`seeds/beverbende.md`). Seat 0 starts every round. Policies: `random` (uniform legal moves), "
           "`threshold` (knock when the believed row total is at most *knock*, default "
           f"{default_k:g}; unknown cards count 4.5) and "
           "`expected-value` (unknown cards valued at the mean of the unseen number cards). Every comparison "
           f"uses common random numbers (the same deals) with root seed {ctx.seed}; intervals are 95% CIs. "
           "Which measure decides: a game is scored by sums and the lowest total wins, so a policy is judged by its "
           "`margin` (own round score minus the mean of the other seats'), not by its own mean score: a policy "
           "that knocks early ends rounds while every row is still high, which raises its own score without "
           "hurting its standing.\n")
    return render_section("Beverbende", find, body, after=("## How these numbers were made\n", how))


# ------------------------------------------------------------------ bench
def bench(games: int, reference_seconds: float, say) -> list[dict]:
    """Beverbende: four-player rounds with the threshold heuristic, kernel against the reference."""
    import numba

    from ludolab.analysis.bench import calibrate, record, time_call, time_pair
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
    kinds, params = bev.seat_arrays(rules, pol)
    key = int(chunk_keys(1, 1)[0])
    args = (rules, kinds.tolist(), params.tolist(), [0] * 4, key)
    n_ref = calibrate(lambda m: ref.simulate_rounds(*args, m), reference_seconds, 200)
    say(f"one thread and the reference ({n_ref:,} rounds), in turn ...")
    t_one, t_ref = time_pair(lambda: bev.simulate(rules, pol, n, 1), lambda: ref.simulate_rounds(*args, n_ref),
                             threads=1)
    return [record("beverbende.simulate (4 players, threshold heuristic)", "rounds", n / t_all, threads,
                   n / t_one, n_ref / t_ref)]
