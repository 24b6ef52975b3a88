"""Shut the Box through the step interface (:mod:`ludolab.sim.step`).

A step game is a match as the match kernel plays it (STB-9, STB-11, STB-12):
the seats take whole turns in seat order on one random stream.  This module
packs a ruleset and a match format into the kernels' rules array, a policy
table into the parameters of ``act``, and describes the match kernel's
accumulator for the harness.
"""

from __future__ import annotations

import numpy as np

from ludolab.stdlib.box import BoxRules
from ludolab.stdlib.errors import LudolabError

from . import box_kernels as K
from .box_exact import Policy
from .box_montecarlo import _sim_args


def rules_array(rules: BoxRules, seats: int = 1, rounds: int | None = 1, threshold: int = 45,
                max_rounds: int = 1000) -> np.ndarray:
    """The int64 rules array of the step functions for a match.

    Args:
        rules: the ruleset.
        seats: players, 1..6 (STB-9).
        rounds: rounds whose scores add up (STB-11); None for elimination at
            ``threshold`` (STB-12), ended after ``max_rounds`` rounds.

    Returns:
        int64 array: the header of ``box_kernels.R_*`` and the ruleset's
        dice, draw-map, candidate-move and score tables.

    Raises:
        LudolabError: seats outside 1..6, rounds < 1, or a roll with more
            legal moves than ``box_kernels.MAX_ACTIONS``.
    """
    if not 1 <= int(seats) <= K.MAXSEATS:
        raise LudolabError(f"seats must be 1..{K.MAXSEATS}, not {seats}")
    if rounds is not None and int(rounds) < 1:
        raise LudolabError(f"rounds must be >= 1 (or None for elimination), not {rounds}")
    oc = rules.outcomes
    per_outcome = np.diff(np.asarray(oc.cand_start, dtype=np.int64))
    if per_outcome.max(initial=0) > K.MAX_ACTIONS:
        raise LudolabError(f"a roll has {int(per_outcome.max())} candidate moves: the step interface "
                           f"takes at most {K.MAX_ACTIONS}")
    tables = [rules.dice_allowed, oc.draw_map1, oc.draw_map2, oc.cand_start, oc.cand_masks, rules.scores]
    head = np.zeros(K.R_HDR, dtype=np.int64)
    head[K.R_NSEATS] = int(seats)
    head[K.R_ROUNDS] = 0 if rounds is None else int(rounds)
    head[K.R_THRESHOLD] = int(threshold)
    head[K.R_MAXROUNDS] = int(max_rounds)
    head[K.R_FULL] = rules.full
    head[K.R_NOUT] = oc.n
    head[K.R_N1] = len(oc.draw_map1)
    head[K.R_N2] = len(oc.draw_map2)
    at = K.R_HDR
    for slot, t in zip((K.R_DICE_AT, K.R_MAP1_AT, K.R_MAP2_AT, K.R_CSTART_AT, K.R_CMASK_AT, K.R_SCORE_AT), tables):
        head[slot] = at
        at += len(t)
    return np.concatenate([head] + [np.asarray(t, dtype=np.int64) for t in tables])


def policy_params(policy: Policy) -> tuple[int, np.ndarray]:
    """A policy table as ``(kind, params)`` for ``box_kernels.act``.

    Returns:
        ``(K_TABLE, params)``, params float64: the number of states, of
        outcomes and of tie-group entries, then the move table (row-major), the
        dice table, the tie groups and the ruleset's candidate moves (a random
        move counts the legal ones in candidate order, as the kernels do).
    """
    rules = policy.rules
    oc = rules.outcomes
    ties = np.zeros(0) if policy.ties is None else np.asarray(policy.ties, dtype=np.float64)
    parts = [np.array([rules.n_states, oc.n, len(ties)], dtype=np.float64),
             np.asarray(policy.move, dtype=np.float64).ravel(), np.asarray(policy.dice, dtype=np.float64),
             ties, np.asarray(oc.cand_start, dtype=np.float64), np.asarray(oc.cand_masks, dtype=np.float64)]
    return K.K_TABLE, np.concatenate(parts)


def _match_args(rules: BoxRules, policies: list[Policy]):
    ties = [np.zeros(1, dtype=np.int64) if p.ties is None else np.asarray(p.ties, dtype=np.int64) for p in policies]
    tie_start = np.concatenate([[0], np.cumsum([len(t) for t in ties])]).astype(np.int64)
    return (_sim_args(rules), np.stack([p.move for p in policies]), np.stack([p.dice for p in policies]),
            np.concatenate(ties), tie_start)


def simulate_match(rules: BoxRules, rules_arr: np.ndarray, policies: list[Policy], chunk_keys, games: int):
    """The match kernel on ``chunk_keys`` (uint64), games 0..games-1 of each chunk.

    Returns:
        int64 (seats, 5): the accumulator summed over chunks (see
        ``box_kernels._simulate_match``).
    """
    n = len(policies)
    keys = np.asarray(chunk_keys, dtype=np.uint64)
    starts = np.zeros(len(keys), dtype=np.int64)
    stops = np.full(len(keys), games, dtype=np.int64)
    out = np.zeros((len(keys), n, 5), dtype=np.int64)
    K._simulate_match_t(keys, starts, stops, *_match_args(rules, policies),
                        (rules.scores, int(rules_arr[K.R_ROUNDS]), int(rules_arr[K.R_THRESHOLD]),
                         int(rules_arr[K.R_MAXROUNDS])), out)
    return out.sum(axis=0)


def fast_games(rules: BoxRules, rules_arr: np.ndarray, policies: list[Policy], keys) -> list:
    """Each match's actions as the fast turn kernel plays them, turn after turn on one stream.

    Rolls come from ``box_kernels._play_turn_t`` (its trace); the seat order and the end of
    the match follow STB-9, STB-11 and STB-12.
    """
    n = len(policies)
    n_rounds, thr, cap = (int(rules_arr[i]) for i in (K.R_ROUNDS, K.R_THRESHOLD, K.R_MAXROUNDS))
    games = []
    for key in keys:
        st = np.uint64(key)
        total = [0] * n
        alive = [True] * n
        actions: list = []
        rnd = 0
        while True:
            rnd += 1
            dropped = [False] * n
            for p in range(n):
                if not alive[p]:
                    continue
                pol = policies[p]
                trace = np.zeros((4 * rules.n_tiles + 4, 4), dtype=np.int64)
                ties = np.zeros(1, dtype=np.int64) if pol.ties is None else np.asarray(pol.ties, dtype=np.int64)
                s, st, steps = K._play_turn_t(np.uint64(st), _sim_args(rules), pol.move, pol.dice, ties, trace)
                for s0, d, _o, m in trace[:steps]:
                    if rules.dice_allowed[s0] == 3:
                        actions.append(int(d))
                    if m >= 0:
                        actions.append(int(m))
                total[p] += int(rules.scores[s])
                dropped[p] = n_rounds == 0 and total[p] >= thr
            if n_rounds > 0:
                if rnd >= n_rounds:
                    break
                continue
            n_alive = sum(1 for p in range(n) if alive[p] and not dropped[p])
            if n_alive >= 1:
                alive = [a and not d for a, d in zip(alive, dropped)]
            if n_alive <= 1 or rnd >= cap:
                break
        games.append(actions)
    return games


def _winners(rules_arr, state):
    n = int(rules_arr[K.R_NSEATS])
    alive = [p for p in range(n) if state[K.S_ALIVE + p]]
    best = min(int(state[K.S_TOTAL + p]) for p in alive)
    return [p for p in alive if state[K.S_TOTAL + p] == best]


def _sole_winner(rules_arr, state) -> int:
    w = _winners(rules_arr, state)
    return w[0] if len(w) == 1 else -1


def _check_state(rules_arr, state) -> None:
    full = int(rules_arr[K.R_FULL])
    n = int(rules_arr[K.R_NSEATS])
    seat = int(state[K.S_SEAT])
    assert -1 <= seat < n, f"seat {seat} is not one of the {n} seats"
    if seat >= 0:
        assert state[K.S_ALIVE + seat] == 1, f"seat {seat} acts but is out of the match (STB-12)"
        s = int(state[K.S_OPEN])
        assert 0 < s and (s & full) == s, f"open tiles {s:b} are not a set of the box's tiles (STB-3)"
        if state[K.S_PHASE] == K.PH_MOVE:
            assert 0 <= state[K.S_OUT] < int(rules_arr[K.R_NOUT]), "a roll to cover that is no outcome"
        else:
            assert state[K.S_PHASE] == K.PH_DICE, f"phase {state[K.S_PHASE]} while a seat acts"
            assert K._r(rules_arr, K.R_DICE_AT, s) == 3, "a dice choice where the rules allow one count (STB-6)"
    else:
        assert state[K.S_PHASE] == K.PH_OVER, "the match is over but the phase says otherwise"
    top = int(K._r(rules_arr, K.R_SCORE_AT, full))
    for p in range(n):
        last = int(state[K.S_LAST + p])
        assert last == -1 or (last & full) == last, f"seat {p}'s last turn left tiles outside the box"
        assert 0 <= state[K.S_TOTAL + p] <= top * int(state[K.S_ROUND]), f"seat {p}'s total out of range (STB-11)"


def _return_bounds(rules_arr):
    top = int(K._r(rules_arr, K.R_SCORE_AT, int(rules_arr[K.R_FULL])))
    rounds = int(rules_arr[K.R_ROUNDS]) or int(rules_arr[K.R_MAXROUNDS])
    return 0, top * rounds


def _max_steps(rules_arr):
    tiles = bin(int(rules_arr[K.R_FULL])).count("1")
    rounds = int(rules_arr[K.R_ROUNDS]) or int(rules_arr[K.R_MAXROUNDS])
    return int(rules_arr[K.R_NSEATS]) * rounds * (2 * tiles + 2)


def _columns(case):
    """The match kernel's accumulator (``box_kernels._simulate_match``) as data."""
    cols = [S.Column((0, 4), "final", None, final=lambda r, st: float(st[K.S_CAPPED]), name="capped matches")]
    for p in range(case.n_players):
        cols += [S.Column((p, 0), "wins", p, ties="tiebreak", name=f"seat {p + 1} sole wins"),
                 S.Column((p, 1), "final", p, final=lambda r, st, p=p: float(
                     len(_winners(r, st)) > 1 and p in _winners(r, st)), name=f"seat {p + 1} shared wins"),
                 S.Column((p, 2), "points", p, name=f"seat {p + 1} total"),
                 S.Column((p, 3), "final", p, final=lambda r, st: float(st[K.S_ROUND]),
                          name=f"seat {p + 1} rounds played")]
    return cols


from . import step as S  # noqa: E402


def step_game() -> S.StepGame:
    """Shut the Box for the step-interface harness (:class:`ludolab.sim.step.StepGame`)."""
    from ludolab.sim import box_reference as R
    from ludolab.sim.box_policies import POLICY_NAMES, make_policy
    from ludolab.stdlib.box import parse_tiles

    rulesets = [BoxRules(), BoxRules(tiles=parse_tiles("1-6"), one_die="always-optional")]
    catalogue = [{name: make_policy(r, name) for name in POLICY_NAMES} for r in rulesets]
    catalogue[0]["most-options (random ties)"] = make_policy(rulesets[0], "most-options", tie_break="random")
    named = [{k: policy_params(p) for k, p in pols.items()} for pols in catalogue]
    specs = [("1p", 0, 1, 1, ("optimal",)),
             ("2p-1round", 0, 2, 1, ("optimal", "random")),
             ("3p-3rounds", 0, 3, 3, ("greedy-high", "most-options (random ties)", "random")),
             ("2p-elimination", 0, 2, None, ("random", "fewest-tiles")),
             ("2p-1to6-always", 1, 2, 2, ("random", "most-options"))]
    cases = []
    by_label = {}
    tables = {}  # label -> (ruleset, rounds, name -> Policy): what the exact seat measures read
    for label, i, seats, rounds, pols in specs:
        arr = rules_array(rulesets[i], seats, rounds, threshold=45)
        cases.append(S.RulesCase(label, arr, seats, tuple(named[i][p] for p in pols), named=named[i]))
        by_label[label] = (rulesets[i], [catalogue[i][p] for p in pols])
        tables[label] = (rulesets[i], rounds, catalogue[i])

    def variants(players):
        """The named rule variants of one round of Shut the Box at ``players`` seats, as rulesets of
        the step game: the rulebook's one-die rule (789-optional, STB-6) against never, always
        optional and forced, and count scoring (STB-8), each with every named policy solved for
        its own rules and the optimal policy in every seat."""
        out = []
        for label, r in (("rulebook", BoxRules()), ("one-die never", BoxRules(one_die="never")),
                         ("one-die always", BoxRules(one_die="always-optional")),
                         ("one-die forced", BoxRules(one_die="789-forced")), ("count scoring", BoxRules(score="count"))):
            label = f"{label} {players}p"
            if label not in tables:
                tables[label] = (r, 1, {name: make_policy(r, name) for name in POLICY_NAMES})
            pols = {k: policy_params(p) for k, p in tables[label][2].items()}
            out.append(S.RulesCase(label, rules_array(r, players, 1), players, (pols["optimal"],) * players,
                                   named=pols))
        return out

    def exact_seats(case, names):
        """Each seat's exact distribution of its total, (values, probs), when the seats play policy
        tables over a fixed number of rounds (independent seats: STB-9, STB-11); None for an
        elimination match (STB-12), whose length depends on the totals."""
        from . import box_exact

        rules, rounds, pols = tables[case.label]
        if rounds is None:
            return None
        out = []
        for name in names:
            ev = box_exact.evaluate(pols[name])
            pmf = np.bincount(rules.scores, weights=ev.final)
            total = np.ones(1)
            for _ in range(rounds):
                total = np.convolve(total, pmf)
            keep = total > 0
            out.append((np.arange(len(total))[keep], total[keep] / total.sum()))
        return out

    def exact_match(case):
        """The exact equilibrium of one round played as a match (STB-9, STB-10: later seats play to beat
        the score so far, a shut box wins at once) under the case's rules and seat count, from
        :func:`ludolab.sim.box_match.match_exact`: its per-seat DataFrame and the chance of a tie."""
        from .box_match import match_exact

        rules = tables[case.label][0]
        sol = match_exact(rules, case.n_players, keep_policies=False)
        return sol.seats, float(sol.p_tie_game)

    def _find(rules_arr, policies):
        for c in cases:
            if c.rules is rules_arr or np.array_equal(c.rules, rules_arr):
                return by_label[c.label]
        raise LudolabError("rules array of no registered case")

    def simulate(rules_arr, policies, chunk_keys, games):
        r, pols = _find(rules_arr, policies)
        return simulate_match(r, rules_arr, pols, chunk_keys, games)

    def fast(rules_arr, policies, keys):
        r, pols = _find(rules_arr, policies)
        return fast_games(r, rules_arr, pols, keys)

    return S.StepGame(kernels=K, twin=R, cases=cases, policies=named[0], max_steps=_max_steps,
                      return_bounds=_return_bounds, check_state=_check_state, simulate=simulate,
                      accumulator=_columns, fast_games=fast, lower_wins=True, winner=_sole_winner,
                      extra={"hidden_information": False, "best": "optimal", "random": "random",
                             "exact_seats": exact_seats, "exact_match": exact_match, "variants": variants,
                             "moments": lambda r: (int(r[K.R_ROUNDS]) or int(r[K.R_MAXROUNDS])) + 1})
