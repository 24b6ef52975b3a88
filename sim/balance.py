"""A designer's measures of a game, from playouts through the step interface.

Every measure is a pure function of the arrays that
:func:`ludolab.sim.play.run_traced` returns for a batch of games (each seat's
return, its actions, and the running score at each of the game's scoring
moments: hands, rounds, rounds of placements), so every game is measured by
the same code.  The definitions (written out in the README, section "Balance"):

``seat_win_share`` / ``seat_points``
    Per seat, the share of games it wins (a shared win split evenly) and its
    mean points.
``seat_edge``
    The largest seat's win share w above the even share, as a share of the
    most it can be above it: ``(w - 1/P) / (1 - 1/P)`` (0: no seat edge; 1:
    that seat always wins).
``skill_share``
    The share of the variance of a seat's points that the policy explains, on
    duplicate deals: each of D deals is played with seat s by the field's
    policy and again by random play (the others unchanged); with y[a, d] the
    seat's points under policy a (A = 2 policies), the two-way analysis of
    variance of duplicate play gives ``SS_policy = D sum_a (mean_a - mean)^2``,
    ``SS_deal = A sum_d (mean_d - mean)^2``, ``SS_total = sum_{a,d} (y[a, d] -
    mean)^2`` and ``MS_error = (SS_total - SS_policy - SS_deal) / ((A - 1)(D -
    1))``; the share is omega squared, ``(SS_policy - (A - 1) MS_error) /
    (SS_total + MS_error)`` (Hays 1963: unlike SS_policy / SS_total it is
    about 0 when the policy does not matter), averaged over the seats; its CI
    by resampling deals.
``skill_expression``
    The seat's win share with the field's policy minus with random play,
    averaged over seats (Ludii's skill measure), with a paired CI.
``decisiveness``
    With moments 0..n-1 (the last is the end), the first moment from which
    the eventual (sole) winner leads alone at every later moment, divided by
    n - 1: 0 when the winner leads from the first moment, 1 when only at the
    end; games with a shared win are left out.  ``decided_early``: the share
    of those games whose winner leads for good before the end.
``lead_changes``
    Per game, the times the sole leader changes from one moment to the next
    (moments with a shared lead are skipped).
``winner_deficit``
    Per game, how far behind the eventual winner was at worst, in points.
``duration``
    Actions per game (all seats), with its 5th, 50th and 95th percentiles.
``ties``
    The share of games whose best return is shared (decided by the tie-break
    where the rules have one).

Each row is ``{"metric", "variant", "value", "ci_low", "ci_high", "meaning"}``.
"""

from __future__ import annotations

import math

import numpy as np

from .play import run_traced
from .rng import chunk_keys, game_state
from .stats import Z95

MEANINGS = {
    "seat_win_share": "share of games seat {s} wins (shared wins split)",
    "seat_points": "mean points of seat {s}",
    "seat_edge": "largest seat's win share above the even share, as a share of the most it can be",
    "skill_share": "share of a seat's points variance the policy explains (duplicate deals)",
    "skill_expression": "win share with the field's policy minus with random play",
    "decisiveness": "share of the game before the winner leads for good (0: from the start)",
    "decided_early": "share of games whose winner leads for good before the end",
    "lead_changes": "times the sole leader changes per game",
    "winner_deficit": "how far behind the eventual winner was at worst (points)",
    "duration": "actions per game",
    "duration_p5": "5th percentile of actions per game",
    "duration_p50": "median actions per game",
    "duration_p95": "95th percentile of actions per game",
    "ties": "share of games whose best return is shared",
    "skill_chain": "steps between neighbouring rungs of a ladder of the game's named policies told apart by a "
                   "paired 95% CI, of {steps} ({deals} duplicate deals against {baseline}): {chain}",
    "exact_seat_win_share": "seat {s}'s win share, exact (from each seat's exact score distribution)",
    "exact_seat_points": "seat {s}'s mean points, exact",
    "exact_seat_edge": "seat edge, exact",
    "exact_ties": "share of games whose best return is shared, exact",
    "exact_match_win": "seat {s}'s chance to win one round alone under the match equilibrium (later seats play "
                       "to beat the score so far, a shut box wins at once), exact",
    "exact_match_tie": "seat {s}'s chance to share the lowest score under the match equilibrium, exact",
    "exact_match_seat_edge": "seat edge under the match equilibrium (two seats: ties split), exact",
    "exact_match_ties": "chance the round ends tied under the match equilibrium, exact",
}


#: Measures that are shares of games (or of the most a share can be): their CIs are kept inside 0..1.
SHARES = ("seat_win_share", "seat_edge", "decisiveness", "decided_early", "ties")


def _row(metric, variant, value, lo, hi, **fmt) -> dict:
    if metric.split("[")[0] in SHARES:  # a normal CI of a share may reach past 0 or 1; the share cannot
        lo, hi = max(float(lo), 0.0), min(float(hi), 1.0)
    return {"metric": metric.format(**fmt) if fmt else metric, "variant": variant, "value": float(value),
            "ci_low": float(lo), "ci_high": float(hi), "meaning": MEANINGS[metric.split("[")[0]].format(**fmt)}


def _mean_ci(x) -> tuple[float, float, float]:
    x = np.asarray(x, dtype=float)
    m = float(x.mean()) if len(x) else float("nan")
    if len(x) < 2:
        return m, float("nan"), float("nan")
    h = Z95 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, m - h, m + h


def win_shares(ret: np.ndarray, lower: bool) -> np.ndarray:
    """float64 (G, P): each seat's share of each game's win (1/k for a k-way shared win)."""
    best = ret.min(axis=1, keepdims=True) if lower else ret.max(axis=1, keepdims=True)
    top = (ret == best).astype(float)
    return top / top.sum(axis=1, keepdims=True)


def _leaders(scores: np.ndarray, lower: bool) -> np.ndarray:
    """int (n,): the sole leader at each moment, -1 where the lead is shared."""
    best = scores.min(axis=1) if lower else scores.max(axis=1)
    top = scores == best[:, None]
    lead = np.argmax(top, axis=1)
    lead[top.sum(axis=1) > 1] = -1
    return lead


def game_course(marks: np.ndarray, scores: np.ndarray, ret: np.ndarray, lower: bool) -> dict:
    """Per game: decisiveness (NaN with a shared win), decided early, lead changes, winner's deficit.

    Returns:
        dict of float64 (G,) arrays ``decisiveness``, ``decided_early``, ``lead_changes``, ``deficit``.
    """
    G = len(marks)
    out = {k: np.full(G, np.nan) for k in ("decisiveness", "decided_early", "lead_changes", "deficit")}
    for g in range(G):
        sc = scores[g, :marks[g]]
        lead = _leaders(sc, lower)
        sole = [x for x in lead if x >= 0]
        out["lead_changes"][g] = sum(1 for a, b in zip(sole, sole[1:]) if a != b)
        win = lead[-1]
        if win < 0:
            continue
        best = sc.min(axis=1) if lower else sc.max(axis=1)
        out["deficit"][g] = float(np.max(np.abs(sc[:, win] - best)))
        n = len(lead)
        j = n - 1
        while j > 0 and lead[j - 1] == win:
            j -= 1
        out["decisiveness"][g] = j / (n - 1) if n > 1 else 1.0
        out["decided_early"][g] = float(j < n - 1)
    return out


def _quantile_ci(x: np.ndarray, q: float) -> tuple[float, float, float]:
    """A quantile with its distribution-free 95% CI from order statistics."""
    s = np.sort(np.asarray(x, dtype=float))
    n = len(s)
    h = Z95 * math.sqrt(n * q * (1 - q))
    lo = s[max(0, int(math.floor(n * q - h)))]
    hi = s[min(n - 1, int(math.ceil(n * q + h)))]
    return float(np.quantile(s, q, method="inverted_cdf")), float(lo), float(hi)


def measures(run: dict, lower: bool, variant: str = "") -> list[dict]:
    """Every measure that one batch of games gives (all but the skill measures).

    Args:
        run: as :func:`ludolab.sim.play.run_traced` returns it.
        lower: True where the lowest return wins.

    Returns:
        Rows ``{"metric", "variant", "value", "ci_low", "ci_high", "meaning"}``.
    """
    ret = run["ret"]
    G, P = ret.shape
    w = win_shares(ret, lower)
    rows = []
    for s in range(P):
        rows.append(_row("seat_win_share[{s}]", variant, *_mean_ci(w[:, s]), s=s + 1))
        rows.append(_row("seat_points[{s}]", variant, *_mean_ci(ret[:, s]), s=s + 1))
    top = int(np.argmax(w.mean(axis=0)))
    m, lo, hi = _mean_ci(w[:, top])
    e = 1 / P
    # one seat has no edge to measure
    edge = tuple((x - e) / (1 - e) for x in (m, lo, hi)) if P >= 2 else (np.nan,) * 3
    rows.append(_row("seat_edge", variant, *edge))
    course = game_course(run["marks"], run["scores"], ret, lower)
    for name, key in (("decisiveness", "decisiveness"), ("decided_early", "decided_early"),
                      ("lead_changes", "lead_changes"), ("winner_deficit", "deficit")):
        x = course[key][~np.isnan(course[key])]
        rows.append(_row(name, variant, *_mean_ci(x)) if len(x) else _row(name, variant, np.nan, np.nan, np.nan))
    length = run["steps"].sum(axis=1)
    rows.append(_row("duration", variant, *_mean_ci(length)))
    for q, name in ((0.05, "duration_p5"), (0.5, "duration_p50"), (0.95, "duration_p95")):
        rows.append(_row(name, variant, *_quantile_ci(length, q)))
    best = ret.min(axis=1) if lower else ret.max(axis=1)
    shared = ((ret == best[:, None]).sum(axis=1) > 1).astype(float)
    rows.append(_row("ties", variant, *_mean_ci(shared)))
    return rows


def exact_seats(dists: list, lower: bool, variant: str = "") -> list[dict]:
    """The seat measures, exact, for seats whose points are independent with known distributions.

    Where every seat's points in a game are independent of the others' (Shut the Box played by
    fixed policy tables, each seat's turns its own dice: STB-9, STB-11), the win shares follow from
    the distributions alone.  With ``a_t = P(X_t = v)`` and ``b_t = P(X_t`` worse than ``v)`` for
    the other seats t, seat s's win share (a k-way shared win counted 1/k, as :func:`win_shares`)
    is ``sum_v P(X_s = v) sum_k c_k(v) / (k + 1)``, where ``c_k(v)`` is the coefficient of
    ``x^k`` in ``prod_t (b_t + a_t x)`` (k others tie with s at v); the chance of a shared best
    is one minus the sum over seats of the sole wins ``sum_v P(X_s = v) c_0(v)``.

    Args:
        dists: per seat, ``(values, probs)``: int (m,) points and float64 (m,) probabilities
            summing to 1.
        lower: True where the lowest points win.

    Returns:
        Rows ``exact_seat_win_share[s]``, ``exact_seat_points[s]``, ``exact_seat_edge`` and
        ``exact_ties`` (each with ``ci_low == ci_high == value``).

    Raises:
        ValueError: fewer than one seat, or a distribution that does not sum to 1.
    """
    if not dists:
        raise ValueError("exact seat measures need at least one seat")
    support = np.unique(np.concatenate([np.asarray(v, dtype=np.int64) for v, _ in dists]))
    pmf = np.zeros((len(dists), len(support)))
    for i, (v, p) in enumerate(dists):
        p = np.asarray(p, dtype=float)
        if abs(p.sum() - 1.0) > 1e-9:
            raise ValueError(f"seat {i + 1}'s distribution sums to {p.sum()}, not 1")
        np.add.at(pmf[i], np.searchsorted(support, np.asarray(v, dtype=np.int64)), p)
    at_or_worse = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1] if lower else np.cumsum(pmf, axis=1)
    worse = at_or_worse - pmf  # P(strictly worse than v), per seat and value
    P = len(dists)
    share = np.zeros(P)
    sole = np.zeros(P)
    for s in range(P):
        poly = np.ones((len(support), 1))
        for t in range(P):
            if t != s:
                nxt = np.zeros((len(support), poly.shape[1] + 1))
                nxt[:, :-1] += poly * worse[t][:, None]
                nxt[:, 1:] += poly * pmf[t][:, None]
                poly = nxt
        share[s] = float((pmf[s] * (poly / np.arange(1, poly.shape[1] + 1)).sum(axis=1)).sum())
        sole[s] = float((pmf[s] * poly[:, 0]).sum())
    rows = []
    for s in range(P):
        rows.append(_row("exact_seat_win_share[{s}]", variant, *(share[s],) * 3, s=s + 1))
        mean = float(pmf[s] @ support)
        rows.append(_row("exact_seat_points[{s}]", variant, *(mean,) * 3, s=s + 1))
    e = 1 / P
    edge = round((share.max() - e) / (1 - e), 12) + 0.0 if P >= 2 else np.nan
    rows.append(_row("exact_seat_edge", variant, *(edge,) * 3))
    rows.append(_row("exact_ties", variant, *(1.0 - sole.sum(),) * 3))
    return rows


def skill(field: dict, random_in_seat: list, lower: bool, variant: str = "", resamples: int = 200,
          seed: int = 0) -> list[dict]:
    """The skill measures from duplicate deals.

    Args:
        field: the run with every seat played by the field's policies.
        random_in_seat: per seat s, the run of the same deals with seat s played at random.

    Returns:
        Rows for ``skill_share`` and ``skill_expression``.
    """
    ret = field["ret"]
    G, P = ret.shape
    rng = np.random.default_rng(seed)

    def share(idx):
        vals = []
        for s in range(P):
            y = np.stack([ret[idx, s], random_in_seat[s]["ret"][idx, s]])
            mean = y.mean()
            D = y.shape[1]
            ss_tot = float(((y - mean) ** 2).sum())
            ss_pol = D * float(((y.mean(axis=1) - mean) ** 2).sum())
            ss_deal = 2 * float(((y.mean(axis=0) - mean) ** 2).sum())
            ms_err = max(ss_tot - ss_pol - ss_deal, 0.0) / max(D - 1, 1)
            vals.append((ss_pol - ms_err) / (ss_tot + ms_err) if ss_tot > 0 else 0.0)
        return float(np.mean(vals))

    all_idx = np.arange(G)
    value = share(all_idx)
    boots = np.sort([share(rng.integers(0, G, G)) for _ in range(int(resamples))])
    lo, hi = boots[int(0.025 * len(boots))], boots[int(0.975 * len(boots)) - 1]
    wf = win_shares(ret, lower)
    d = np.mean([wf[:, s] - win_shares(random_in_seat[s]["ret"], lower)[:, s] for s in range(P)], axis=0)
    return [_row("skill_share", variant, value, lo, hi), _row("skill_expression", variant, *_mean_ci(d))]


def study(kernels, rules: np.ndarray, policies: list, lower: bool, games: int, seed: int, moments: int,
          random_policy=None, variant: str = "") -> list[dict]:
    """Play ``games`` duplicate deals and measure them.

    Args:
        kernels: the game's kernels module (with ``play_traced_many``).
        rules: its rules array; policies: one ``(kind, params)`` per seat (the field).
        moments: the most scoring moments a game can have, the end included.
        random_policy: ``(kind, params)`` of random play for the skill measures (None: left out).

    Returns:
        The rows of :func:`measures` and, with ``random_policy``, of :func:`skill`.

    Raises:
        ValueError: fewer than 2 games.
    """
    field, rnd = play_duplicate(kernels, rules, policies, games, seed, moments, random_policy)
    rows = measures(field, lower, variant)
    if rnd:
        rows += skill(field, rnd, lower, variant, seed=seed)
    return rows


def run_traced_seats(table, seats: list, keys, moments: int) -> dict:
    """Games with their running scores, as :func:`ludolab.sim.play.run_traced` gives them, with any ladder
    contender in a seat (:class:`ludolab.sim.ladder.Contender`: a named policy, a search, the all-seeing
    bound, a Python function of the observation), played one decision at a time through
    :meth:`ludolab.sim.ladder.Table.decide` (each contender reading only its seat's observation, the
    all-seeing bound apart): the slow path, one Python call per decision.

    Args:
        table: the game's :class:`ludolab.sim.ladder.Table` (its kernels and rules); seats: one contender per
            seat; keys: uint64 deal keys; moments: room for one game's scoring moments, the end included.

    Returns:
        dict of ``ret`` float64 (G, P), ``steps`` int64 (G, P), ``marks`` int64 (G,), ``scores`` float64
        (G, moments, P), laid out as :func:`ludolab.sim.play.play_traced` lays them out.

    Raises:
        ludolab.sim.ladder.PolicyError: a Python policy raised or returned an illegal action.
    """
    from .ladder import _SALT

    k, rules, n = table.k, table.rules, len(seats)
    keys = np.asarray(keys, dtype=np.uint64)
    G, cap = len(keys), int(moments)
    ret, steps = np.zeros((G, n)), np.zeros((G, n), dtype=np.int64)
    marks, scores = np.zeros(G, dtype=np.int64), np.zeros((G, cap, n))
    state, score = np.zeros(k.STATE_SIZE, dtype=np.int64), np.zeros(n)
    for g, key in enumerate(keys):
        k.new_game(rules, np.uint64(key), state)
        done = m = step = 0
        while True:
            p = int(k.current_player(state))
            if p < 0:
                break
            k.apply_action(rules, state, table.decide(seats[p], state, p, int(game_state(np.uint64(key ^ _SALT), step))))
            step += 1
            steps[g, p] += 1
            c = int(k.running_score(rules, state, score))
            if c > done and k.current_player(state) >= 0:  # a scoring moment before the end (play_traced's rule)
                done = c
                scores[g, min(m, cap - 2)] = score
                m = min(m + 1, cap - 1)
        k.returns(rules, state, ret[g])
        scores[g, m] = ret[g]
        marks[g] = m + 1
    return {"ret": ret, "steps": steps, "marks": marks, "scores": scores}


def deal_keys(games: int, seed: int) -> np.ndarray:
    """uint64 (games,): the deals of a balance study of ``seed`` (the same under any rules and policies)."""
    k = chunk_keys(seed, 1)[0]
    return np.array([game_state(k, g) for g in range(int(games))], dtype=np.uint64)


def study_seats(table, seats: list, lower: bool, games: int, seed: int, moments: int, random_seat=None,
                variant: str = "") -> list[dict]:
    """:func:`study` with any ladder contender in a seat (:func:`run_traced_seats`, the slow path): the same
    deals, measures and skill measures (``random_seat``: the contender of random play, or None).

    Raises:
        ValueError: fewer than 2 games.
        ludolab.sim.ladder.PolicyError: a Python policy raised or returned an illegal action.
    """
    field, rnd = play_duplicate(None, None, seats, games, seed, moments, random_seat,
                                play=lambda keys, on: run_traced_seats(table, on, keys, moments))
    rows = measures(field, lower, variant)
    if rnd:
        rows += skill(field, rnd, lower, variant, seed=seed)
    return rows


def play_duplicate(kernels, rules: np.ndarray, policies: list, games: int, seed: int, moments: int,
                   random_policy=None, play=None) -> tuple[dict, list]:
    """The runs a balance study measures: ``games`` deals (keys from ``seed``) with every seat played
    by ``policies``, and, with ``random_policy``, the same deals again once per seat with that seat
    played at random.  The same seed gives the same deals under any rules, so two variants' runs are
    paired deal by deal.

    ``play(keys, seats) -> traced dict`` plays one run (default: the compiled
    :func:`ludolab.sim.play.run_traced` of ``kernels`` and ``rules``; :func:`study_seats` gives
    :func:`run_traced_seats`, the policies then being ladder contenders).

    Returns:
        ``(field, random_in_seat)``: :func:`ludolab.sim.play.run_traced` dicts (``random_in_seat``
        empty without ``random_policy``).

    Raises:
        ValueError: fewer than 2 games.
    """
    if int(games) < 2:
        raise ValueError(f"a balance study needs at least 2 games, not {games}")
    if play is None:
        def play(keys, seats):
            return run_traced(kernels, rules, keys, seats, moments)
    keys = deal_keys(games, seed)
    field = play(keys, policies)
    rnd = []
    if random_policy is not None:
        for s in range(len(policies)):
            pols = list(policies)
            pols[s] = random_policy
            rnd.append(play(keys, pols))
    return field, rnd


#: The measures :func:`paired_difference` compares between two variants on the same deals.
PAIRED = ("seat_edge", "skill_expression", "lead_changes", "duration", "ties")


def _per_game(field: dict, rnd: list, lower: bool) -> dict:
    """The per-deal quantities the paired measures average (computed once per variant)."""
    ret = field["ret"]
    w = win_shares(ret, lower)
    best = ret.min(axis=1) if lower else ret.max(axis=1)
    out = {"w": w, "lead_changes": game_course(field["marks"], field["scores"], ret, lower)["lead_changes"],
           "duration": field["steps"].sum(axis=1).astype(float),
           "ties": ((ret == best[:, None]).sum(axis=1) > 1).astype(float)}
    if rnd:
        out["skill_expression"] = np.mean([w[:, s] - win_shares(r["ret"], lower)[:, s] for s, r in enumerate(rnd)],
                                          axis=0)
    return out


def _paired_value(measure: str, per: dict, idx: np.ndarray) -> np.ndarray:
    """One measure of each row of deals ``idx`` (int (R, G) indices into the runs, repeats allowed): (R,)."""
    if measure == "seat_edge":
        P = per["w"].shape[1]
        return (per["w"][idx].mean(axis=1).max(axis=1) - 1 / P) / (1 - 1 / P)
    return per[measure][idx].mean(axis=1)


def paired_difference(a: tuple, b: tuple, measure: str, lower: bool, resamples: int = 400,
                      seed: int = 0) -> tuple[float, float, float]:
    """A measure of variant A minus the same of variant B, played on the same deals, with a 95% CI
    from resampling the deals jointly (percentile bootstrap, widened to hold the estimate).

    Args:
        a, b: ``(field, random_in_seat)`` of :func:`play_duplicate` with the same games and seed.
        measure: one of :data:`PAIRED` (``skill_expression`` needs the random runs).

    Returns:
        ``(diff, ci_low, ci_high)``.

    Raises:
        ValueError: an unknown measure, or runs of different numbers of deals.
    """
    if measure not in PAIRED:
        raise ValueError(f"paired measure {measure!r}: use one of {', '.join(PAIRED)}")
    G = len(a[0]["ret"])
    if len(b[0]["ret"]) != G:
        raise ValueError("paired variants need the same deals: the runs hold different numbers of games")
    pa, pb = _per_game(*a, lower), _per_game(*b, lower)
    if measure == "skill_expression" and not (a[1] and b[1]):
        raise ValueError(f"paired measure {measure!r} needs the runs with each seat at random")
    rng = np.random.default_rng(seed)
    every = np.arange(G)[None, :]
    diff = float((_paired_value(measure, pa, every) - _paired_value(measure, pb, every))[0])
    idx = rng.integers(0, G, (int(resamples), G))
    boots = np.sort(_paired_value(measure, pa, idx) - _paired_value(measure, pb, idx))
    lo, hi = float(boots[int(0.025 * len(boots))]), float(boots[int(0.975 * len(boots)) - 1])
    return float(diff), min(lo, float(diff)), max(hi, float(diff))


#: The most duplicate deals the skill chain's ladder plays (fewer when the study has fewer games): every
#: fast named policy in every seat against the best heuristic, so its cost is policies x seats x deals games.
CHAIN_DEALS = 2_000


def skill_chain(game, case, deals: int, seed: int, variant: str = "") -> dict:
    """The skill chain as a balance row: how many neighbouring rungs of a strength ladder are told apart.

    The ladder (:func:`ludolab.sim.ladder.ladder`) plays every named policy of the game except those its
    step game lists as slow (``extra["slow_policies"]``: the rollout players) in every seat against the
    game's best heuristic (``extra["best"]``) on the same duplicate deals; its rungs are ordered by their
    paired difference from that heuristic, and a step between neighbours counts when the paired 95% CI of
    their per-deal difference excludes 0 (:func:`ludolab.sim.ladder.skill_chain`; Ludii's "skill trace"
    counts the same steps).

    Args:
        game: a step game; case: one of its rulesets (2 or more seats); deals: duplicate deals (2 or more);
        seed: the deals' root seed (the ladder's keys).

    Returns:
        The row ``skill_chain``: ``value`` the steps told apart (``ci_low == ci_high == value``: the count
        comes from CIs, it has none of its own), ``steps`` the steps in all, ``chain`` the rungs in one line
        (``a > b ~ c``), and the ``meaning`` naming both.

    Raises:
        ValueError: fewer than 2 deals, or fewer than 2 fast named policies.
    """
    from . import ladder as L
    from .step import named_policies

    named = named_policies(game, case)
    slow = set(game.extra.get("slow_policies", ()))
    fast = [n for n in named if n not in slow]
    if len(fast) < 2:
        raise ValueError(f"a skill chain needs 2 or more named policies, not {len(fast)}")
    best = game.extra.get("best", fast[0])
    base = L.Contender(best, "named", named[best])
    rows = L.ladder(L.Table(game, case), [L.Contender(n, "named", named[n]) for n in fast], base,
                    deals=deals, seed=seed)
    links, text = int(rows[0]["skill_chain"]), L.chain_text(rows)
    row = _row("skill_chain", variant, links, links, links, steps=len(rows) - 1, deals=int(deals), baseline=best,
               chain=text)
    return {**row, "steps": len(rows) - 1, "chain": text}


#: Duplicate deals of the ladder that picks strong play (:func:`strongest`).
STRONG_DEALS = 200


def strongest(game, case, deals: int = STRONG_DEALS, seed: int = 0) -> dict:
    """Strong play for the balance measures: the top of a strength ladder over every named policy of the game
    (the slow rollout players included) against the game's best heuristic (``extra["best"]``) on the same
    duplicate deals (:func:`ludolab.sim.ladder.ladder`).

    The strongest is the policy with the best paired difference from that heuristic whose 95% CI excludes 0
    on the good side; where none does, the heuristic itself (nothing measured beats it).

    Args:
        game: a step game; case: one of its rulesets (2 or more seats); deals: duplicate deals (2 or more);
        seed: the deals' root seed.

    Returns:
        ``{"policy", "baseline", "diff", "ci_low", "ci_high", "deals"}``: the name chosen and its paired
        difference from the heuristic in the same seat (the game's units; 0 when the heuristic is chosen).

    Raises:
        ValueError: fewer than 2 deals.
    """
    from . import ladder as L
    from .step import named_policies

    named = named_policies(game, case)
    best = game.extra.get("best", next(iter(named)))
    base = L.Contender(best, "named", named[best])
    rows = L.ladder(L.Table(game, case), [L.Contender(n, "named", named[n]) for n in named], base,
                    deals=deals, seed=seed)
    sign = -1.0 if game.lower_wins else 1.0
    told = [r for r in rows if r["policy"] != best and (r["ci_low"] > 0 if sign > 0 else r["ci_high"] < 0)]
    top = max(told, key=lambda r: sign * r["diff"]) if told else next(r for r in rows if r["policy"] == best)
    return {"policy": top["policy"], "baseline": best, "diff": float(top["diff"]), "ci_low": float(top["ci_low"]),
            "ci_high": float(top["ci_high"]), "deals": int(deals)}


def exact_match(seats, p_tie_game: float, variant: str = "") -> list[dict]:
    """The seat measures of one round under the exact match equilibrium of Shut the Box
    (:func:`ludolab.sim.box_match.match_exact`: each seat plays for the best chance to win given the score so
    far, a shut box wins at once, STB-9, STB-10).

    Args:
        seats: its per-seat DataFrame (``p_win`` sole winner, ``p_tie`` shares the lowest score), in seat order.
        p_tie_game: the chance the round ends tied.

    Returns:
        Rows ``exact_match_win[s]``, ``exact_match_tie[s]``, ``exact_match_ties`` and, for two seats (where a
        tie is shared by both, so the win share with ties split is exact), ``exact_match_seat_edge`` as
        ``seat_edge`` defines it; ``ci_low == ci_high == value``.
    """
    P = len(seats)
    rows = []
    for s, r in enumerate(seats.itertuples()):
        rows.append(_row("exact_match_win[{s}]", variant, *(float(r.p_win),) * 3, s=s + 1))
        rows.append(_row("exact_match_tie[{s}]", variant, *(float(r.p_tie),) * 3, s=s + 1))
    if P == 2:
        share = seats.p_win.to_numpy(float) + p_tie_game / 2
        edge = round((share.max() - 0.5) / 0.5, 12) + 0.0
        rows.append(_row("exact_match_seat_edge", variant, *(edge,) * 3))
    rows.append(_row("exact_match_ties", variant, *(float(p_tie_game),) * 3))
    return rows
