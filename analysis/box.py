"""Shut the Box analyses: experiments as tidy tables (the questions the CLI, the report and
the notebook answer), the report section and the benchmark entries.  Clause ids
refer to ``seeds/shut_the_box.md``."""

from __future__ import annotations

import numpy as np

from ludolab.sim import box
from ludolab.stdlib.box import ONE_DIE_RULES, SCORINGS, BoxRules

#: Every named policy but the optimal one, in catalogue order.
HEURISTICS = tuple(name for name in box.POLICY_NAMES if name != "optimal")


def optimal_values(tile_counts=(9, 10, 12), one_die_rules=ONE_DIE_RULES, base: BoxRules | None = None) -> pd.DataFrame:
    """Optimal start values for every one-die rule and tile count (STB-6, STB-O1, STB-O2, STB-O4).

    Args:
        tile_counts: tile counts N (boxes with tiles 1..N), each 2..12.
        one_die_rules: one-die rules (STB-6).
        base: the other rules (moves, tiles per move, scoring); default rules when ``None``.

    Returns:
        DataFrame, one row per (N, rule): ``tiles`` (N), ``one_die``,
        ``min_expected_score`` and ``max_expected_score`` (adversarial) in
        points, ``max_p_shut`` and ``min_p_shut`` (adversarial), probabilities.
        Exact (dynamic programming).

    Raises:
        RulesError: a tile count or rule that is not allowed.
    """
    import pandas as pd

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
    """Policies from the catalogue or from policy table files, each labelled for tables.

    Args:
        rules: the ruleset.
        names: catalogue names (see :func:`ludolab.sim.box.make_policy`) or
            policy table files (``table:FILE.csv``, or a name ending in
            ``.csv``/``.parquet``, :func:`ludolab.analysis.box_tables.load_policy_table`).
        objective, target, ties_win: what ``optimal`` and ``worst`` play for.

    Returns:
        One :class:`~ludolab.sim.box_exact.Policy` per name, in order, labelled
        in ``info['policy']``: ``optimal`` and ``worst`` with their objective
        (``optimal (min E[score])``), tables as ``table:FILE``.

    Raises:
        PolicyError: an unknown name or an unusable table; LudolabError: a bad
        objective or target.
    """
    out = []
    for name in names:
        if name.startswith("table:") or name.endswith((".csv", ".parquet")):
            from .box_tables import load_policy_table

            out.append(load_policy_table(rules, name.removeprefix("table:")))
            continue
        pol = box.make_policy(rules, name, objective, target, ties_win)
        if name in ("optimal", "worst"):
            label = box.objective_label(objective, target, ties_win, adversarial=(name == "worst"))
            pol.info["policy"] = f"{name} ({label})"
        out.append(pol)
    return out


def policy_summary(policies: list[box.Policy], targets=(5, 10)) -> pd.DataFrame:
    """Exact summary per policy (STB-O1..STB-O3).

    Args:
        policies: policies for one ruleset.
        targets: scores T for the ``p_below_T`` columns.

    Returns:
        DataFrame, one row per policy: ``policy`` (label), ``mean_score`` and
        ``sd_score`` (points), ``p_shut``, and ``p_below_T`` = P(score < T) for
        each target.
    """
    import pandas as pd

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
    """Tidy exact score distributions of several policies.

    Returns:
        DataFrame: ``policy`` (label), ``score`` (points), ``probability``
        (positive; adding up to 1 per policy).
    """
    import pandas as pd

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

    Args:
        rules: the ruleset (its own scoring is not used).
        scorings: the scorings compared (STB-8).

    Returns:
        ``(matrix, disagreements)``.  ``matrix`` is tidy: ``optimised_for``,
        ``scored_by``, ``expected_score`` (under B, in B's points), ``best``
        (B's optimum), ``cost`` (expected - best, >= 0) and ``cost_pct``.
        ``disagreements``: the (state, roll) pairs where the two policies
        choose differently, weighted by how often policy A meets them:
        ``optimised_for``, ``scored_by``, ``open``, ``roll`` (outcome label),
        ``cover_a``, ``cover_b`` (tiles as text ``"3,4"``), ``p_meet``
        (P(state reached under A) x P(roll)), ``loss`` (value lost under B by
        A's move), ``weighted_loss`` and ``weighted_loss_pct`` (in % of B's best
        expected score, so scorings of different scales compare); sorted by the
        latter, largest first.
    """
    import pandas as pd

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
                p_meet = visit[s] * oc.prob[o]
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

    Args:
        rules: the ruleset (its one-die rule is replaced by each of ``one_die_rules``).
        targets: scores T (default 1 .. highest score + 1).
        one_die_rules: the rules compared; ties_win: count a score equal to T as a win.

    Returns:
        DataFrame: ``one_die``, ``target``, ``p_beat`` (optimal for T),
        ``p_beat_min_mean`` (under the min E[score] policy).

    Raises:
        LudolabError: a target of 0 without ``ties_win`` (nothing is below 0).
    """
    import pandas as pd

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

    Args:
        rules: the ruleset; players: player counts, each 2..6; ties_win: see
            :func:`ludolab.sim.box_match.match_exact`.

    Returns:
        DataFrame: ``players``, ``seat``, ``p_win``, ``p_tie``, ``p_play``
        (probabilities), ``expected_score`` (points, given the seat plays).

    Raises:
        LudolabError: a player count outside 2..6.
    """
    import pandas as pd

    parts = []
    for p in players:
        df = box.match_exact(rules, p, ties_win).seats.copy()
        df.insert(0, "players", p)
        parts.append(df)
    return pd.concat(parts, ignore_index=True)


def one_die_decisions(rules: BoxRules, objective: str = "expected-score") -> pd.DataFrame:
    """Every position where the one-die rule leaves the choice, with the optimal choice and its worth (STB-6, STB-O1).

    Args:
        rules: the ruleset (for the default rules, ``789-optional``: the 63 positions with only tiles 1-6 open).
        objective: ``expected-score`` (values in points) or ``shut`` (values are chances).

    Returns:
        DataFrame, one row per position where one die or two may be rolled, by open total then tiles:
        ``open`` (tiles as text ``"1,2,4"``), ``total`` (their sum), ``dice`` (the optimal count, 1 or 2),
        ``gain`` (what the optimal count is worth against the other, once met: points of expected score,
        or chance to shut), ``p_meet`` (the chance optimal play reaches the position in a turn). Exact.

    Raises:
        LudolabError: an unknown objective (see :func:`ludolab.sim.box_exact.terminal_utility`).
    """
    import pandas as pd

    from ludolab.sim.box_exact import terminal_utility
    from ludolab.stdlib.box import DICE_BOTH

    sol = box.solve(rules, objective)
    terminal, _ = terminal_utility(rules, objective)
    visit = box.evaluate(sol.policy()).visit
    oc = rules.outcomes
    sense = -1.0 if objective == "expected-score" else 1.0

    def q(s, d):
        return sum(oc.prob[o] * (terminal[s] if sol.move[s, o] < 0 else sol.value[s ^ int(sol.move[s, o])])
                   for o in range(oc.n) if oc.dice[o] == d)

    rows = []
    for s in range(1, rules.n_states):
        if int(rules.dice_allowed[s]) != DICE_BOTH:
            continue
        d = int(sol.dice[s])
        rows.append({"open": rules.format_state(s), "total": int(sum(rules.tiles_of(s))), "dice": d,
                     "gain": sense * (q(s, d) - q(s, 3 - d)), "p_meet": float(visit[s]), "_s": s})
    df = pd.DataFrame(rows, columns=["open", "total", "dice", "gain", "p_meet", "_s"])
    return df.sort_values(["total", "_s"], kind="stable").drop(columns="_s").reset_index(drop=True)


def one_die_total_rules(rules: BoxRules) -> pd.DataFrame:
    """The one-die rule a person can follow, "roll one die when allowed and the open tiles total K or less",
    for every K, each evaluated exactly against optimal play (STB-6, STB-O1).

    Every row plays the optimal moves and changes only the dice choice, so ``cost`` is what the dice rule
    alone costs.  ``K = 0`` is "always two dice", the largest K "one die whenever allowed".

    Args:
        rules: the ruleset (its one-die rule must leave a choice somewhere).

    Returns:
        DataFrame, one row per K: ``max_total`` (K), ``mean_score`` (expected score, points),
        ``p_shut``, ``cost`` (points per turn above optimal play), ``wrong`` (positions where the rule's
        dice count differs from the optimal one), ``how_often`` (chance per turn of meeting one of them).
        Exact.

    Raises:
        LudolabError: a one-die rule that never leaves a choice.
    """
    import pandas as pd

    from ludolab.stdlib.box import DICE_BOTH
    from ludolab.stdlib.errors import LudolabError

    sol = box.solve(rules)
    ev_opt = box.evaluate(sol.policy())
    both = [s for s in range(1, rules.n_states) if int(rules.dice_allowed[s]) == DICE_BOTH]
    if not both:
        raise LudolabError(f"the one-die rule {rules.one_die!r} never leaves a choice of dice")
    totals = {s: int(sum(rules.tiles_of(s))) for s in both}
    rows = []
    for k in range(0, max(totals.values()) + 1):
        pol = sol.policy()
        for s in both:
            pol.dice[s] = 1 if totals[s] <= k else 2
        ev = box.evaluate(pol)
        wrong = [s for s in both if int(pol.dice[s]) != int(sol.dice[s])]
        rows.append({"max_total": k, "mean_score": ev.mean(), "p_shut": ev.p_shut,
                     "cost": ev.mean() - ev_opt.mean(), "wrong": len(wrong),
                     "how_often": float(sum(ev_opt.visit[s] for s in wrong))})
    return pd.DataFrame(rows)


def decision_states(solution: box.Solution, limit: int | None = 40) -> pd.DataFrame:
    """The optimal policy map where it matters (STB-4, STB-6).

    The (state, roll) pairs with more than one legal move, for the dice the
    policy rolls there, most often met first.

    Args:
        solution: a :class:`~ludolab.sim.box_exact.Solution`.
        limit: at most this many rows (``None``: all).

    Returns:
        DataFrame: ``open``, ``roll``, ``cover`` (tiles as text ``"3,4"``),
        ``choices`` (legal moves), ``p_meet`` (P(the state is reached, then this
        roll) under the policy); ties in ``p_meet`` by the larger state first.
    """
    import pandas as pd

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
            p_roll = oc.prob[o]
            rows.append({"open": rules.format_state(s), "roll": oc.label[o],
                         "cover": rules.format_state(int(solution.move[s, o])), "choices": len(legal),
                         "p_meet": float(visit[s]) * p_roll, "_s": s})
    df = pd.DataFrame(rows, columns=["open", "roll", "cover", "choices", "p_meet", "_s"])
    df = df.sort_values(["p_meet", "_s"], ascending=[False, False], kind="stable").drop(columns="_s")
    if limit is not None:
        df = df.head(limit)
    return df.reset_index(drop=True)


def rules_meta(rules: BoxRules, **vary) -> dict:
    """The rules part of a provenance record, for a table of one ruleset or of several.

    Args:
        rules: the ruleset the table is for (its shared fields).
        vary: for a table that spans several rulesets, ``field=(column, values)``: a rules
            field (``tiles``, ``one_die``, ``score``, ...) that changes from row to row (or
            column to column), where the table gives it, and the values it takes.

    Returns:
        ``{"rules": {...}}`` for one ruleset (:meth:`BoxRules.to_dict`); with ``vary``, the
        varying fields are left out of ``rules`` and listed under ``rules_vary`` as
        ``{field: {"column": column, "values": [...]}}``.
    """
    fixed = rules.to_dict()
    if not vary:
        return {"rules": fixed}
    for field in vary:
        if field not in fixed or field == "game":
            raise KeyError(f"{field!r} is not a rules field: the fields are {', '.join(list(fixed)[1:])}")
        fixed.pop(field)
    return {"rules": fixed,
            "rules_vary": {field: {"column": col, "values": list(values)} for field, (col, values) in vary.items()}}


# ------------------------------------------------------------------- bench
def bench(games: int, reference_seconds: float, say) -> list[dict]:
    """Benchmark entries of Shut the Box: Monte Carlo, exact DP (12 tiles), exact evaluation, multi-round matches.

    Args:
        games: games for the Monte Carlo timing (matches: ``max(10_000, games // 6)``).
        reference_seconds: rough time given to each pure-Python reference run.
        say: progress callback taking one line of text.

    Returns:
        One record per kernel (see :func:`ludolab.analysis.bench.record`):
        rates per second with every thread and with one, and of the reference.
    """
    import numba

    threads = numba.get_num_threads()
    r9 = BoxRules()
    r12 = BoxRules(tiles=tuple(range(1, 13)))
    pol = box.solve(r9).policy()

    # warm every kernel once (compilation or cache load is not timed)
    say("warming the kernels ...")
    box.simulate(pol, 1000, 1)
    box.evaluate(pol)
    box.simulate_rounds([pol, pol], 100, 1, rounds=3)
    box.solve(r12)

    # 1. Monte Carlo, one turn per game; 1b. a policy that draws its own choices: fewest tiles, ties broken
    # at random (STB-T1)
    rnd = box.make_policy(r9, "fewest-tiles", tie_break="random")
    box.simulate(rnd, 1000, 1)
    rows = [_bench_simulate(pol, "optimal table", "", games, reference_seconds, say, threads),
            _bench_simulate(rnd, "fewest tiles, random tie-breaks", ", random tie-breaks", games, reference_seconds,
                            say, threads),
            _bench_solve(r12, reference_seconds, say),
            _bench_evaluate(pol, reference_seconds, say),
            _bench_rounds(r9, pol, games, reference_seconds, say, threads),
            _bench_match_play(r9, pol, say)]
    # 6, 7: with a reference time under a second (the tests) a 6-tile box stands in
    rf = r9 if reference_seconds >= 1.0 else BoxRules(tiles=6)
    rows.append(_bench_foresight(rf, say))
    rows.append(_bench_rules_of_thumb(rf, say))
    return rows


def _bench_simulate(pol, policy_name: str, note: str, games: int, reference_seconds: float, say,
                    threads: int) -> dict:
    """The bench record of ``box.simulate`` of ``pol`` (9 tiles) against the reference simulator."""
    from ludolab.analysis.bench import calibrate, record, time_call, time_pair
    from ludolab.sim import box_reference as ref
    from ludolab.sim.experiment import plan_run

    say(f"box.simulate{note}: {games:,} games ...")
    t_all = time_call(lambda: box.simulate(pol, games, 1))
    n_ref = calibrate(lambda n: ref.simulate(pol, *_plan_arrays(plan_run(n, 1, 8))), reference_seconds, 500)
    plan = plan_run(n_ref, 1, 8)
    say(f"one thread and the reference simulate ({n_ref:,} games), in turn ...")
    t_one, t_ref = time_pair(lambda: box.simulate(pol, games, 1), lambda: ref.simulate(pol, plan.keys, plan.games),
                             threads=1)
    return record(f"box.simulate (9 tiles, {policy_name})", "games", games / t_all, threads, games / t_one,
                  n_ref / t_ref)


def _bench_solve(r12: BoxRules, reference_seconds: float, say) -> dict:
    """The bench record of the exact DP on 12 tiles against the reference solver (a serial kernel:
    one thread)."""
    from ludolab.analysis.bench import record, time_pair
    from ludolab.sim import box_reference as ref

    term = r12.scores.astype(float).tolist()
    say("box.solve (12 tiles) and the reference solve, in turn ...")
    t_one, t_ref = time_pair(lambda: box.solve(r12, "expected-score"), lambda: ref.solve_values(r12, term, -1, 0.0),
                             reference_seconds, threads=1)
    rec = record("box.solve (12 tiles, expected score)", "solves", 1 / t_one, 1, 1 / t_one, 1 / t_ref)
    rec["ms_each"] = 1000 * t_one
    return rec


def _bench_evaluate(pol, reference_seconds: float, say) -> dict:
    """The bench record of the exact evaluation (forward pass, 9 tiles) against the reference (a serial
    kernel: one thread)."""
    from ludolab.analysis.bench import record, time_pair
    from ludolab.sim import box_reference as ref

    say("box.evaluate and the reference, in turn ...")
    t_one, t_ref = time_pair(lambda: box.evaluate(pol), lambda: ref.evaluate_exact(pol, one=1.0), reference_seconds,
                             threads=1)
    rec = record("box.evaluate (9 tiles, score distribution)", "evaluations", 1 / t_one, 1, 1 / t_one, 1 / t_ref)
    rec["ms_each"] = 1000 * t_one
    return rec


def _bench_rounds(r9: BoxRules, pol, games: int, reference_seconds: float, say, threads: int) -> dict:
    """The bench record of multi-round matches (2 players x 3 rounds) against reference turns."""
    from ludolab.analysis.bench import calibrate, record, time_call, time_pair
    from ludolab.sim import box_reference as ref
    from ludolab.sim.rng import py_game_state

    n_match = max(10_000, games // 6)
    say(f"box.simulate_rounds: {n_match:,} matches ...")
    t_all = time_call(lambda: box.simulate_rounds([pol, pol], n_match, 1, rounds=3))

    def ref_match(n_ref):
        for g in range(n_ref):
            st = py_game_state(12345, g)
            tot = [0, 0]
            for _ in range(3):
                for p in range(2):
                    s, st = ref.play_turn(r9, pol, st)
                    tot[p] += int(r9.scores[s])

    n_ref = calibrate(ref_match, reference_seconds, 100)
    t_one, t_ref = time_pair(lambda: box.simulate_rounds([pol, pol], n_match, 1, rounds=3), lambda: ref_match(n_ref),
                             threads=1)
    return record("box.simulate_rounds (2 players, 3 rounds)", "matches", n_match / t_all, threads,
                  n_match / t_one, n_ref / t_ref)


def _bench_match_play(r9: BoxRules, pol, say) -> dict:
    """The bench record of match play solved (STB-O5): the DP over totals, 9 tiles, 2 players, 3 rounds
    (target: under 5 s; serial kernels: one thread); the reference is the pure-Python per-turn solve
    and evaluation, times the match's per-turn solves."""
    from ludolab.analysis.bench import record, time_pair
    from ludolab.sim import box_matchplay
    from ludolab.sim import box_reference as ref

    turns = box_matchplay.match_play(r9, 2, 3)
    turns.seats()
    term9 = r9.scores.astype(float).tolist()
    say("box_matchplay.match_play (2 players, 3 rounds) and the reference per-turn solve, in turn ...")
    t_one, t_turn = time_pair(lambda: box_matchplay.match_play(r9, 2, 3).seats(),
                              lambda: (ref.solve_values(r9, term9, -1, 0.0), ref.evaluate_exact(pol, one=1.0)),
                              threads=1)
    rec = record("box match play DP (9 tiles, 2 players, 3 rounds)", "matches solved", 1 / t_one, 1, 1 / t_one,
                 1 / (t_turn * turns.n_turn_solves))
    rec["seconds_each"] = t_one
    return rec


def _bench_foresight(rf: BoxRules, say) -> dict:
    """The bench record of foresight (STB-O6; target under a minute on 9 tiles): the kernel against
    its pure-Python twin, the same search in floats."""
    from ludolab.analysis.bench import record, time_pair
    from ludolab.sim import box_foresight

    say(f"box_foresight.foresight and its reference, {rf.n_tiles} tiles, in turn ...")
    t_one, t_ref = time_pair(lambda: box_foresight.foresight(rf), lambda: box_foresight.foresight(rf, engine="reference"))
    rec = record(f"box foresight ({rf.n_tiles} tiles, every path of every dice sequence)", "solves", 1 / t_one, 1,
                 1 / t_one, 1 / t_ref)
    rec["seconds_each"] = t_one
    return rec


def _bench_rules_of_thumb(rf: BoxRules, say) -> dict:
    """The bench record of the rule-of-thumb search (STB-T2; target under 10 s); the reference builds
    each rule's table in Python and evaluates it with the pure-Python forward pass (timed on a few
    rules, scaled)."""
    from ludolab.analysis.bench import record, time_pair
    from ludolab.sim import box_policies, box_thumb
    from ludolab.sim import box_reference as ref

    say(f"box_thumb.search_rules_of_thumb: {rf.n_tiles} tiles ...")
    box_thumb.search_rules_of_thumb(rf, max_keys=1)  # warm
    n_rules = box_thumb.search_rules_of_thumb(rf).attrs["tried"]
    tab = box_thumb._Tables(rf)
    sample = [("fewest-tiles", "lowest-top", "best-cover"), ("best-cover", "most-ways"), ("highest-tile",)]

    def ref_rules():
        for keys in sample:
            d = tab.dice("cover")
            vals = [tab.key(k, d) for k in keys]
            key = (lambda s, m: tuple(v[m] if k in box_thumb._ON_MOVE else v[s ^ m] for k, v in zip(keys, vals)))
            table = box_policies._heuristic_table(rf, key)
            ref.evaluate_exact(box.Policy("rule", rf, table, d), one=1.0)

    t_one, t_ref = time_pair(lambda: box_thumb.search_rules_of_thumb(rf), ref_rules, threads=1)
    t_ref = t_ref / len(sample) * n_rules
    rec = record(f"box rule-of-thumb search ({rf.n_tiles} tiles, {n_rules:,} rules, each evaluated exactly)",
                 "searches", 1 / t_one, 1, 1 / t_one, 1 / t_ref)
    rec["seconds_each"] = t_one
    return rec


def _plan_arrays(plan):
    """(keys, games) of a run plan, as the reference simulator takes them."""
    return plan.keys, plan.games
