"""The Shut the Box policy catalogue: every named policy compiled to a move table.

A heuristic is a key on (state, move) that the chosen legal move maximises,
with ties going to the move with the highest tiles (``tie_break="high"``, the
default), to the move with the lowest tiles (``"low"``), or to a uniformly
random one of the tied moves (``tie_break="random"``,
the way most public simulators play: the policy is then stochastic, STB-T1);
its dice choice is the count with the higher chance that the next roll can be
covered (STB-6).  Policy tables read from files are
:mod:`ludolab.analysis.box_tables`.
"""

from __future__ import annotations

import numpy as np

from ludolab.stdlib.box import DICE_BOTH, DICE_ONE, BoxRules
from ludolab.stdlib.errors import LudolabError

from . import box_kernels as K
from .box_exact import Policy, solve

POLICY_NAMES = ("optimal", "greedy-high", "fewest-tiles", "most-tiles", "most-options", "random")
#: How a heuristic breaks ties between equally good moves (STB-T1).
TIE_BREAKS = ("high", "low", "random")


class PolicyError(LudolabError):
    """An unknown policy name or a malformed / illegal policy table."""


def _coverable(rules: BoxRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P(next roll can be covered) with two dice, with one die, and the number
    of (outcome, legal move) pairs weighted by probability, per state."""
    oc = rules.outcomes
    n = rules.n_states
    cov = {1: np.zeros(n), 2: np.zeros(n)}
    ways = {1: np.zeros(n), 2: np.zeros(n)}
    states = np.arange(n)
    for o in range(oc.n):
        d = int(oc.dice[o])
        p = float(oc.prob[o])
        cands = oc.cand_masks[oc.cand_start[o]:oc.cand_start[o + 1]]
        legal = np.zeros(n, dtype=np.int64)
        for m in cands:
            legal += (states & m) == m
        cov[d] += p * (legal > 0)
        ways[d] += p * legal
    return cov[1], cov[2], ways


def _heuristic_dice(rules: BoxRules) -> np.ndarray:
    """Dice choice of the heuristic policies: the count with the higher chance
    that the next roll can be covered; two dice on a tie (STB-6)."""
    cov1, cov2, _ = _coverable(rules)
    allowed = rules.dice_allowed
    dice = np.where(allowed == DICE_ONE, 1, 2).astype(np.int8)
    both = allowed == DICE_BOTH
    dice[both & (cov1 > cov2 + 1e-12)] = 1
    return dice


def _heuristic_table(rules: BoxRules, key=None, mask_key=None) -> np.ndarray:
    """Move table choosing, among legal moves, the one maximising ``key(state, move)``;
    ties go to the move with the highest tiles (the largest bitmask).

    Args:
        key: ``key(s, m)`` on one state and move bitmask (any comparable value).
        mask_key: instead of ``key``, a key on the move alone, ``mask_key(m) -> int``;
            the table is then built column by column with numpy (same result, faster).

    Returns:
        int16 array (n_states, n_outcomes): the chosen move, ``NO_MOVE`` where none is legal.
    """
    oc = rules.outcomes
    n = rules.n_states
    move = np.full((n, oc.n), K.NO_MOVE, dtype=rules.move_dtype)
    if key is None:
        states = np.arange(n)
        for o in range(oc.n):
            cands = sorted((int(m) for m in oc.cand_masks[oc.cand_start[o]:oc.cand_start[o + 1]]),
                           key=lambda m: (mask_key(m), m))
            for m in cands:  # best last: it overwrites every state where it is legal
                move[(states & m) == m, o] = m
        move[0] = K.NO_MOVE
        return move
    for s in range(1, n):
        for o in range(oc.n):
            best, best_key = K.NO_MOVE, None
            for m in oc.cand_masks[oc.cand_start[o]:oc.cand_start[o + 1]]:
                m = int(m)
                if m & s != m:
                    continue
                k = (key(s, m), m)
                if best_key is None or k > best_key:
                    best, best_key = m, k
            move[s, o] = best
    return move


def _lex_table(rules: BoxRules, keys, tie_break: str = "high") -> tuple[np.ndarray, np.ndarray | None]:
    """Move table of a heuristic given as lexicographic keys, built with numpy over all states at once.

    Args:
        keys: ``keys(m, after)`` -> tuple of float64 arrays (or scalars) over
            the states ``after`` (the open tiles left by move ``m``, an int64
            array of the states where ``m`` is legal); the move maximising the
            tuple is chosen (values are rounded to 12 decimals).
        tie_break: ``high`` (ties go to the move with the highest tiles, the
            largest bitmask), ``low`` (the lowest tiles, the smallest bitmask)
            or ``random`` (ties make a tie group, each tied move equally likely).

    Returns:
        ``(move, ties)``: the table (``rules.move_dtype``, (n_states, n_outcomes)),
        and for ``random`` the flat int64 tie groups (``None`` otherwise).
    """
    oc = rules.outcomes
    n = rules.n_states
    states = np.arange(n, dtype=np.int64)
    move = np.full((n, oc.n), K.NO_MOVE, dtype=rules.move_dtype)
    pool: list[int] = []
    groups: dict[tuple[int, ...], int] = {}

    def key_values(m, idx):
        return [np.round(np.full(len(idx), float(x)) if np.ndim(x) == 0 else np.asarray(x, dtype=np.float64), 12)
                for x in keys(m, states[idx] ^ m)]

    for o in range(oc.n):
        cands = [int(m) for m in oc.cand_masks[oc.cand_start[o]:oc.cand_start[o + 1]]]
        if not cands:
            continue
        best = None
        legal_idx = [np.flatnonzero((states & m) == m) for m in cands]
        for m, idx in zip(cands, legal_idx):  # increasing masks: a later move wins a tie under "high"
            if not len(idx):
                continue
            kv = key_values(m, idx)
            if best is None:
                best = [np.full(n, -np.inf) for _ in kv]
            better = np.zeros(len(idx), dtype=bool)
            equal = np.ones(len(idx), dtype=bool)
            for x, b in zip(kv, best):
                bx = b[idx]
                better |= equal & (x > bx)
                equal &= x == bx
            take = better if tie_break == "low" else (better | equal)
            move[idx[take], o] = m
            for x, b in zip(kv, best):
                b[idx[take]] = x[take]
        if tie_break != "random" or best is None:
            continue
        words = (len(cands) + 63) // 64
        tied = np.zeros((n, words), dtype=np.uint64)
        count = np.zeros(n, dtype=np.int64)
        for i, (m, idx) in enumerate(zip(cands, legal_idx)):
            if not len(idx):
                continue
            hit = np.ones(len(idx), dtype=bool)
            for x, b in zip(key_values(m, idx), best):
                hit &= x == b[idx]
            tied[idx[hit], i // 64] |= np.uint64(1) << np.uint64(i % 64)
            count[idx[hit]] += 1
        multi = np.nonzero(count > 1)[0]
        if not len(multi):
            continue
        if words == 1:
            rows, inverse = np.unique(tied[multi, 0], return_inverse=True)
            rows = rows[:, None]
        else:
            rows, inverse = np.unique(tied[multi], axis=0, return_inverse=True)
        codes = np.empty(len(rows), dtype=np.int64)
        for r, row in enumerate(rows):
            members = tuple(cands[i] for i in range(len(cands)) if int(row[i // 64]) >> (i % 64) & 1)
            if members not in groups:
                groups[members] = len(pool)
                pool.extend((len(members), *members))
            codes[r] = K.TIE_BASE - groups[members]
        if codes.min() < np.iinfo(move.dtype).min:
            move = move.astype(np.int32)
        move[multi, o] = codes[np.ravel(inverse)]
    move[0] = K.NO_MOVE
    if tie_break != "random":
        return move, None
    return move, np.array(pool if pool else [0], dtype=np.int64)


def make_policy(rules: BoxRules, name: str, objective: str = "expected-score", target: int | None = None,
                ties_win: bool = False, tie_break: str = "high") -> Policy:
    """A policy from the catalogue, compiled to a table.

    Args:
        rules: the ruleset the table is for.
        name: ``optimal`` (for ``objective``/``target``), ``worst`` (the
            adversarial policy, STB-O4), ``random`` (a uniformly random legal
            move and dice count), ``greedy-high`` (cover the highest tiles
            possible), ``fewest-tiles``, ``most-tiles``, ``most-options`` (leave
            the state where the next roll is most likely coverable, then with
            the most ways to cover it).  Policy tables from files
            (``table:FILE``) are loaded by
            :func:`ludolab.analysis.box_tables.load_policy_table`.  The
            heuristics choose the dice count with the higher chance to cover
            the next roll (STB-6), and break ties towards the highest tiles.
        objective, target, ties_win: what ``optimal`` and ``worst`` play for
            (STB-O1..STB-O3); the heuristics ignore them.
        tie_break: ``high`` (default: ties go to the move with the highest
            tiles), ``low`` (the move with the lowest tiles, compared from the
            highest tile down) or ``random`` (a uniformly random one of the tied moves, STB-T1;
            the policy is then stochastic and carries its tie groups in
            ``ties``).  ``greedy-high`` never ties (it compares the moves tile
            by tile from the highest), and ``optimal``, ``worst`` and
            ``random`` ignore it.

    Returns:
        :class:`~ludolab.sim.box_exact.Policy`: ``move`` int16 (n_states,
        n_outcomes), a bitmask of tiles to cover, -1 for no legal move, -2 for a
        random legal move; ``dice`` int8 (n_states,), 1 or 2, 0 for random;
        ``info['policy']`` the name.

    Raises:
        PolicyError: unknown name or tie-break, or a file name (load tables from
        files with ``load_policy_table``); LudolabError: bad objective or target.
    """
    if tie_break not in TIE_BREAKS:
        raise PolicyError(f"unknown tie-break {tie_break!r}: allowed are {', '.join(TIE_BREAKS)}")
    if name in ("optimal", "worst"):
        pol = solve(rules, objective, target, ties_win, adversarial=(name == "worst")).policy()
        pol.info["policy"] = name
        return pol
    if name.startswith("table:") or name.endswith((".csv", ".parquet")):
        raise PolicyError(f"{name!r} is a policy table file: load it with "
                          "ludolab.analysis.box_tables.load_policy_table")
    if name not in POLICY_NAMES:
        raise PolicyError(f"unknown policy {name!r}: allowed are {', '.join(POLICY_NAMES + ('worst',))} "
                          "or table:FILE.csv")
    if name == "random":
        oc = rules.outcomes
        move = np.full((rules.n_states, oc.n), K.RANDOM_MOVE, dtype=rules.move_dtype)
        dice = np.zeros(rules.n_states, dtype=np.int8)
        return Policy("random", rules, move, dice, {"policy": "random"})
    dice = _heuristic_dice(rules)
    if name == "greedy-high":
        keys = lambda m, after: (float(m),)  # noqa: E731  the highest tiles first: never a tie
    elif name == "fewest-tiles":
        keys = lambda m, after: (-float(m.bit_count()),)  # noqa: E731
    elif name == "most-tiles":
        keys = lambda m, after: (float(m.bit_count()),)  # noqa: E731
    else:  # most-options
        cov1, cov2, ways = _coverable(rules)
        cov = np.where(dice == 1, cov1, cov2)
        w = np.where(dice == 1, ways[1], ways[2])
        cov[0], w[0] = 2.0, 1e9  # shutting the box beats everything
        keys = lambda m, after: (cov[after], w[after])  # noqa: E731
    move, ties = _lex_table(rules, keys, tie_break)
    info = {"policy": name if tie_break == "high" else f"{name} ({tie_break} ties)", "tie_break": tie_break}
    return Policy(name, rules, move, dice, info, ties)
