"""Shut the Box experiments as tidy tables (the questions the CLI, the report and
the notebook answer).  Clause ids refer to ``seeds/shut_the_box.md``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ludolab.sim import box
from ludolab.stdlib.box import ONE_DIE_RULES, SCORINGS, BoxRules

#: Every named policy but the optimal one, in catalogue order.
HEURISTICS = tuple(name for name in box.POLICY_NAMES if name != "optimal")


def optimal_values(tile_counts=(9, 10, 12), one_die_rules=ONE_DIE_RULES, base: BoxRules | None = None) -> pd.DataFrame:
    """Optimal start values for every one-die rule and tile count (STB-6, STB-O1, STB-O2).

    Returns:
        DataFrame: ``tiles``, ``one_die``, ``min_expected_score``,
        ``max_p_shut``, ``min_p_shut`` (adversarial) and
        ``max_expected_score`` (adversarial).
    """
    base = base or BoxRules()
    rows = []
    for n in tile_counts:
        for rule in one_die_rules:
            r = base.replace(tiles=tuple(range(1, n + 1)), one_die=rule)
            rows.append({
                "tiles": n, "one_die": rule,
                "min_expected_score": box.solve(r, "expected-score").start_value,
                "max_p_shut": box.solve(r, "shut").start_value,
                "min_p_shut": box.solve(r, "shut", adversarial=True).start_value,
                "max_expected_score": box.solve(r, "expected-score", adversarial=True).start_value,
            })
    return pd.DataFrame(rows)


def catalogue(rules: BoxRules, names=("optimal",) + HEURISTICS, objective: str = "expected-score",
              target: int | None = None, ties_win: bool = False) -> list[box.Policy]:
    """Policies from the catalogue (see :func:`ludolab.sim.box.make_policy`), each
    labelled in ``info['policy']``: ``optimal`` and ``worst`` with their objective."""
    out = []
    for name in names:
        pol = box.make_policy(rules, name, objective, target, ties_win)
        if name in ("optimal", "worst"):
            label = box.objective_label(objective, target, ties_win, adversarial=(name == "worst"))
            pol.info["policy"] = f"{name} ({label})"
        out.append(pol)
    return out


def policy_summary(policies: list[box.Policy], targets=(5, 10)) -> pd.DataFrame:
    """Exact summary per policy: mean and sd of the score, P(shut), P(score < T)."""
    rows = []
    for pol in policies:
        ev = box.evaluate(pol)
        row = {"policy": pol.label, "mean_score": ev.mean(), "sd_score": ev.sd(),
               "p_shut": ev.p_shut}
        for t in targets:
            row[f"p_below_{t}"] = ev.p_below(t)
        rows.append(row)
    return pd.DataFrame(rows)


def score_distributions(policies: list[box.Policy]) -> pd.DataFrame:
    """Tidy exact score distributions: ``policy``, ``score``, ``probability``."""
    parts = []
    for pol in policies:
        d = box.evaluate(pol).distribution().reset_index()
        d.insert(0, "policy", pol.label)
        parts.append(d)
    return pd.concat(parts, ignore_index=True)


def variants_matrix(rules: BoxRules, scorings=SCORINGS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What playing for the wrong scoring costs (STB-8).

    For each scoring A, the policy that minimises the expected A-score is
    evaluated exactly under every scoring B.

    Returns:
        ``(matrix, disagreements)``.  ``matrix`` is tidy: ``optimised_for``,
        ``scored_by``, ``expected_score`` (under B), ``best`` (B's optimum),
        ``cost`` (expected - best, >= 0) and ``cost_pct``.
        ``disagreements``: the (state, roll) pairs where the two policies
        choose differently, weighted by how often policy A meets them:
        ``optimised_for``, ``scored_by``, ``open``, ``roll``, ``cover_a``,
        ``cover_b``, ``p_meet`` (P(state reached under A) x P(roll)),
        ``loss`` (value lost under B by A's move), ``weighted_loss`` and
        ``weighted_loss_pct`` (in % of B's best expected score, so scorings
        of different scales compare); sorted by the latter, largest first.
    """
    sols = {a: box.solve(rules.replace(score=a), "expected-score") for a in scorings}
    evs = {a: box.evaluate(sols[a].policy()) for a in scorings}
    best = {b: evs[b].mean(b) for b in scorings}
    rows = []
    for a in scorings:
        for b in scorings:
            e = evs[a].mean(b)
            rows.append({"optimised_for": a, "scored_by": b, "expected_score": e, "best": best[b],
                         "cost": max(e - best[b], 0.0),
                         "cost_pct": 100.0 * max(e - best[b], 0.0) / best[b] if best[b] else 0.0})
    matrix = pd.DataFrame(rows)
    oc = rules.outcomes
    dis = []
    for a in scorings:
        visit = evs[a].visit
        pa = sols[a]
        for b in scorings:
            if a == b:
                continue
            pb = sols[b]
            diff = np.argwhere(pa.move != pb.move)
            for s, o in diff:
                if s == 0 or not (rules.dice_allowed[s] & oc.dice[o]) or pa.dice[s] != oc.dice[o]:
                    continue
                p_meet = visit[s] * oc.weight[o] / (36.0 if oc.dice[o] == 2 else 6.0)
                if p_meet <= 0:
                    continue
                ma, mb = int(pa.move[s, o]), int(pb.move[s, o])
                loss = pb.value[s ^ ma] - pb.value[s ^ mb]
                if loss <= 1e-12:
                    continue
                dis.append({"optimised_for": a, "scored_by": b, "open": rules.format_state(int(s)),
                            "roll": oc.label[o], "cover_a": rules.format_state(ma), "cover_b": rules.format_state(mb),
                            "p_meet": p_meet, "loss": loss, "weighted_loss": p_meet * loss,
                            "weighted_loss_pct": 100.0 * p_meet * loss / best[b] if best[b] else 0.0})
    cols = ["optimised_for", "scored_by", "open", "roll", "cover_a", "cover_b", "p_meet", "loss", "weighted_loss",
            "weighted_loss_pct"]
    dis = pd.DataFrame(dis, columns=cols)
    if len(dis):
        dis = dis.sort_values("weighted_loss_pct", ascending=False, kind="stable").reset_index(drop=True)
    return matrix, dis


def beat_curve(rules: BoxRules, targets=None, one_die_rules=ONE_DIE_RULES, ties_win: bool = False) -> pd.DataFrame:
    """P(score < T) against T for each one-die rule (STB-O3, STB-6).

    For each T the beat-T policy is solved; the min-expected-score policy's
    P(score < T) is given beside it.

    Returns:
        DataFrame: ``one_die``, ``target``, ``p_beat`` (optimal for T),
        ``p_beat_min_mean`` (under the min E[score] policy).
    """
    if targets is None:
        targets = range(1, int(rules.scores.max()) + 2)
    rows = []
    for rule in one_die_rules:
        r = rules.replace(one_die=rule)
        ev = box.evaluate(box.solve(r, "expected-score").policy())
        for t in targets:
            p = box.solve(r, "beat", target=int(t), ties_win=ties_win).start_value
            rows.append({"one_die": rule, "target": int(t), "p_beat": p,
                         "p_beat_min_mean": ev.p_below(int(t), ties_win)})
    return pd.DataFrame(rows)


def match_table(rules: BoxRules, players=(2, 3, 4), ties_win: bool = False) -> pd.DataFrame:
    """Exact one-round match equilibria (STB-9, STB-10) for several player counts.

    Returns:
        DataFrame: ``players``, ``seat``, ``p_win``, ``p_tie``, ``p_play``,
        ``expected_score``.
    """
    parts = []
    for p in players:
        df = box.match_exact(rules, p, ties_win).seats.copy()
        df.insert(0, "players", p)
        parts.append(df)
    return pd.concat(parts, ignore_index=True)


def decision_states(solution: box.Solution, limit: int | None = 40) -> pd.DataFrame:
    """The optimal policy map where it matters: (state, roll) with more than one
    legal move, for the dice the policy rolls, most often met first.

    Returns:
        DataFrame: ``open``, ``roll``, ``cover``, ``choices`` (legal moves),
        ``p_meet`` (P(the state is reached, then this roll) under the policy).
    """
    rules = solution.rules
    oc = rules.outcomes
    visit = box.evaluate(solution.policy()).visit
    rows = []
    for s in range(1, rules.n_states):
        for o in range(oc.n):
            if oc.dice[o] != solution.dice[s]:
                continue
            legal = rules.legal_moves(s, o)
            if len(legal) < 2:
                continue
            p_roll = oc.weight[o] / (36.0 if oc.dice[o] == 2 else 6.0)
            rows.append({"open": rules.format_state(s), "roll": oc.label[o],
                         "cover": rules.format_state(int(solution.move[s, o])), "choices": len(legal),
                         "p_meet": float(visit[s]) * p_roll, "_s": s})
    df = pd.DataFrame(rows, columns=["open", "roll", "cover", "choices", "p_meet", "_s"])
    df = df.sort_values(["p_meet", "_s"], ascending=[False, False], kind="stable").drop(columns="_s")
    if limit is not None:
        df = df.head(limit)
    return df.reset_index(drop=True)
