"""Pure-Python reference engine for Shut the Box: slow, readable, exact.

It follows the same rules (STB-3..STB-8) and the same random streams as the
numba kernels, so a seeded simulation gives the very same counts, and its
solver works in exact fractions, which reproduce the published values.  It is
the baseline of ``ludolab bench`` and the twin of every kernel in the tests.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ludolab.stdlib.box import BoxRules

from .rng import py_game_state, py_next_below

NO_MOVE = -1
RANDOM_MOVE = -2
TIE_BASE = -3


def _tie_group(ties, m: int) -> list[int]:
    """The moves of the tie group a move entry ``m <= -3`` names (``ties[j]`` = k, then k moves)."""
    j = TIE_BASE - m
    return [int(x) for x in ties[j + 1 : j + 1 + int(ties[j])]]


def _utility_exact(rules: BoxRules, objective: str, target, ties_win: bool):
    scores = [rules.score_of(s) for s in range(rules.n_states)]
    if objective == "expected-score":
        return [Fraction(x) for x in scores], -1
    if objective == "shut":
        return [Fraction(int(s == 0)) for s in range(rules.n_states)], 1
    if objective == "beat":
        if target is None:
            raise ValueError("the objective 'beat' needs a target score")
        return [Fraction(int(x <= target if ties_win else x < target)) for x in scores], 1
    raise ValueError(f"unknown objective {objective!r}")


def solve_values(rules: BoxRules, terminal, sense: int, zero=Fraction(0)):
    """Backward induction over all states, in the arithmetic of ``terminal``.

    Args:
        terminal: sequence (n_states,) of the utility of ending in each state
            (Fractions for exact values, floats for the float twin).
        sense: +1 maximise, -1 minimise.

    Returns:
        list (n_states,) of state values.
    """
    oc = rules.outcomes
    dice_allowed = rules.dice_allowed
    cands = [[int(m) for m in oc.cand_masks[oc.cand_start[o]:oc.cand_start[o + 1]]] for o in range(oc.n)]
    by_dice = {d: [o for o in range(oc.n) if oc.dice[o] == d] for d in (1, 2)}
    dens = {d: int(oc.den[by_dice[d][0]]) if by_dice[d] else 1 for d in (1, 2)}
    value = [zero] * rules.n_states
    value[0] = terminal[0]
    for s in range(1, rules.n_states):
        options = []
        for d in (2, 1):
            if not dice_allowed[s] & d:
                continue
            den = dens[d]
            acc = zero
            for o in by_dice[d]:
                after = [value[s ^ m] for m in cands[o] if m & s == m]
                if after:
                    best = max(after) if sense > 0 else min(after)
                else:
                    best = terminal[s]
                acc += best * int(oc.weight[o])
            options.append(acc / den)
        value[s] = max(options) if sense > 0 else min(options)
    return value


def solve_exact(rules: BoxRules, objective: str = "expected-score", target=None, ties_win: bool = False,
                adversarial: bool = False) -> list[Fraction]:
    """Exact value of every state (list of Fraction, shape (n_states,)) for an objective (STB-O1..O4)."""
    terminal, sense = _utility_exact(rules, objective, target, ties_win)
    return solve_values(rules, terminal, -sense if adversarial else sense)


def evaluate_exact(policy, one=Fraction(1)) -> list:
    """Probability of ending in each state under a policy table (list, shape (n_states,)).

    With ``one=Fraction(1)`` (default) the values are exact Fractions; with
    ``one=1.0`` the same pass runs in floats (the bench baseline).  A tie group
    (``move = -3 - j``) gives each of its moves an equal share.
    """
    rules = policy.rules
    ties = getattr(policy, "ties", None)
    oc = rules.outcomes
    allowed = rules.dice_allowed
    mass = [one * 0] * rules.n_states
    final = [one * 0] * rules.n_states
    mass[rules.full] = one
    for s in range(rules.full, 0, -1):
        p = mass[s]
        if not p:
            continue
        pd_ = {}
        d = int(policy.dice[s])
        if d == 0:
            opts = [x for x in (1, 2) if allowed[s] & x]
            for x in opts:
                pd_[x] = one / len(opts)
        else:
            pd_[d] = one
        for d, pdv in pd_.items():
            for o in range(oc.n):
                if oc.dice[o] != d:
                    continue
                po = p * pdv * int(oc.weight[o]) / int(oc.den[o])
                m = int(policy.move[s, o])
                if m <= TIE_BASE:
                    group = _tie_group(ties, m)
                    for mm in group:
                        mass[s ^ mm] += po / len(group)
                elif m == RANDOM_MOVE:
                    legal = rules.legal_moves(s, o)
                    if not legal:
                        final[s] += po
                    for mm in legal:
                        mass[s ^ mm] += po / len(legal)
                elif m < 0:
                    final[s] += po
                else:
                    mass[s ^ m] += po
    final[0] += mass[0]
    return final


def play_turn(rules: BoxRules, policy, st: int, steps: list | None = None):
    """One turn from the full box on the stream state ``st``; returns (final state, st).

    With a ``steps`` list, every roll is appended to it as
    ``(state, dice, outcome, move or None when the turn ends, legal moves)``.
    """
    oc = rules.outcomes
    allowed = rules.dice_allowed
    s = rules.full
    while s:
        d = int(policy.dice[s])
        if d == 0:
            if allowed[s] == 3:
                u, st = py_next_below(st, 2)
                d = 1 + u
            else:
                d = int(allowed[s])
        if d == 2:
            u, st = py_next_below(st, len(oc.draw_map2))
            o = int(oc.draw_map2[u])
        else:
            u, st = py_next_below(st, len(oc.draw_map1))
            o = int(oc.draw_map1[u])
        m = int(policy.move[s, o])
        legal = rules.legal_moves(s, o) if (m == RANDOM_MOVE or steps is not None) else None
        if m <= TIE_BASE:
            group = _tie_group(getattr(policy, "ties", None), m)
            j, st = py_next_below(st, len(group))
            m = group[j]
        elif m == RANDOM_MOVE and legal:
            j, st = py_next_below(st, len(legal))
            m = legal[j]
        if m < 0:
            if steps is not None:
                steps.append((s, d, o, None, legal))
            break
        if steps is not None:
            steps.append((s, d, o, m, legal))
        s ^= m
    return s, st


def simulate(policy, keys, games) -> np.ndarray:
    """Pure-Python twin of the Monte Carlo kernel: counts int64 (n_chunks, n_states)."""
    rules = policy.rules
    counts = np.zeros((len(keys), rules.n_states), dtype=np.int64)
    for c, (key, n) in enumerate(zip(keys, games)):
        for g in range(int(n)):
            s, _ = play_turn(rules, policy, py_game_state(int(key), g))
            counts[c, s] += 1
    return counts


# ------------------------------------------------------------ the step interface
# The pure-Python twin of the step functions of :mod:`ludolab.sim.box_kernels`:
# the same arrays, the same random numbers (see there for the layouts).
from . import box_kernels as _K  # noqa: E402  (the layouts' named offsets)

_MASK64 = (1 << 64) - 1


def _u(x) -> int:
    return int(x) & _MASK64


def _i(x: int) -> int:
    x &= _MASK64
    return x - (1 << 64) if x >> 63 else x


def _r(rules, at, i):
    return int(rules[int(rules[at]) + i])


def _cands(rules, o):
    base = int(rules[_K.R_CMASK_AT])
    return [int(rules[base + c]) for c in range(_r(rules, _K.R_CSTART_AT, o), _r(rules, _K.R_CSTART_AT, o + 1))]


def _roll(rules, state, d) -> bool:
    st = _u(state[_K.S_RNG])
    if d == 2:
        u, st = py_next_below(st, int(rules[_K.R_N2]))
        o = _r(rules, _K.R_MAP2_AT, u)
    else:
        u, st = py_next_below(st, int(rules[_K.R_N1]))
        o = _r(rules, _K.R_MAP1_AT, u)
    state[_K.S_RNG] = _i(st)
    state[_K.S_DICE] = d
    state[_K.S_OUT] = o
    state[_K.S_PHASE] = _K.PH_MOVE
    s = int(state[_K.S_OPEN])
    return any((m & s) == m for m in _cands(rules, o))


def _start_turn(rules, state, q):
    state[_K.S_SEAT] = q
    state[_K.S_OPEN] = int(rules[_K.R_FULL])
    state[_K.S_PHASE] = _K.PH_DICE


def _end_turn(rules, state):
    p = int(state[_K.S_SEAT])
    n = int(rules[_K.R_NSEATS])
    s = int(state[_K.S_OPEN])
    state[_K.S_LAST + p] = s
    state[_K.S_TOTAL + p] += _r(rules, _K.R_SCORE_AT, s)
    if int(rules[_K.R_ROUNDS]) == 0 and state[_K.S_TOTAL + p] >= int(rules[_K.R_THRESHOLD]):
        state[_K.S_DROPPED + p] = 1
    state[_K.S_OUT] = -1
    state[_K.S_DICE] = 0
    later = [q for q in range(p + 1, n) if state[_K.S_ALIVE + q]]
    if later:
        _start_turn(rules, state, later[0])
        return
    if int(rules[_K.R_ROUNDS]) > 0:
        over = state[_K.S_ROUND] >= int(rules[_K.R_ROUNDS])
    else:
        n_alive = sum(1 for i in range(n) if state[_K.S_ALIVE + i] and not state[_K.S_DROPPED + i])
        if n_alive >= 2 and state[_K.S_ROUND] >= int(rules[_K.R_MAXROUNDS]):
            state[_K.S_CAPPED] = 1
        if n_alive >= 1:
            for i in range(n):
                if state[_K.S_DROPPED + i]:
                    state[_K.S_ALIVE + i] = 0
        over = n_alive <= 1 or state[_K.S_CAPPED] == 1
    if over:
        state[_K.S_SEAT] = -1
        state[_K.S_PHASE] = _K.PH_OVER
        return
    state[_K.S_ROUND] += 1
    for i in range(n):
        state[_K.S_DROPPED + i] = 0
    _start_turn(rules, state, next(q for q in range(n) if state[_K.S_ALIVE + q]))


def _next_roll(rules, state):
    while state[_K.S_SEAT] >= 0:
        s = int(state[_K.S_OPEN])
        if s == 0:
            _end_turn(rules, state)
            continue
        a = _r(rules, _K.R_DICE_AT, s)
        if a == 3:
            state[_K.S_PHASE] = _K.PH_DICE
            state[_K.S_OUT] = -1
            state[_K.S_DICE] = 0
            return
        if _roll(rules, state, a):
            return
        _end_turn(rules, state)


def new_game(rules, key, state):
    """Twin of :func:`ludolab.sim.box_kernels.new_game`."""
    state[:] = 0
    state[_K.S_RNG] = _i(int(key))
    state[_K.S_ROUND] = 1
    state[_K.S_LAST:_K.S_LAST + _K.MAXSEATS] = -1
    for i in range(int(rules[_K.R_NSEATS])):
        state[_K.S_ALIVE + i] = 1
    _start_turn(rules, state, 0)
    _next_roll(rules, state)


def current_player(state):
    """Twin of :func:`ludolab.sim.box_kernels.current_player`."""
    return int(state[_K.S_SEAT])


def is_terminal(state):
    """Twin of :func:`ludolab.sim.box_kernels.is_terminal`."""
    return int(state[_K.S_SEAT]) < 0


def legal_actions(rules, state, out):
    """Twin of :func:`ludolab.sim.box_kernels.legal_actions`."""
    if state[_K.S_SEAT] < 0:
        return 0
    if state[_K.S_PHASE] == _K.PH_DICE:
        out[0], out[1] = 1, 2
        return 2
    s = int(state[_K.S_OPEN])
    legal = sorted(m for m in _cands(rules, int(state[_K.S_OUT])) if (m & s) == m)
    out[:len(legal)] = legal
    return len(legal)


def apply_action(rules, state, action):
    """Twin of :func:`ludolab.sim.box_kernels.apply_action`."""
    if state[_K.S_PHASE] == _K.PH_DICE:
        if _roll(rules, state, int(action)):
            return
        _end_turn(rules, state)
    else:
        state[_K.S_OPEN] ^= int(action)
    _next_roll(rules, state)


def observe(rules, state, seat, obs):
    """Twin of :func:`ludolab.sim.box_kernels.observe`."""
    obs[:] = 0
    obs[_K.O_SEAT] = seat
    for o, s, n in _K.PUBLIC:
        obs[o:o + n] = state[s:s + n]


def determinize(rules, obs, seat, key, state):
    """Twin of :func:`ludolab.sim.box_kernels.determinize`."""
    state[:] = 0
    state[_K.S_RNG] = _i(int(key))
    for o, s, n in _K.PUBLIC:
        state[s:s + n] = obs[o:o + n]


def returns(rules, state, out):
    """Twin of :func:`ludolab.sim.box_kernels.returns`."""
    n = int(rules[_K.R_NSEATS])
    out[:n] = state[_K.S_TOTAL:_K.S_TOTAL + n]


def act(kind, params, obs, state):
    """Twin of :func:`ludolab.sim.box_kernels.act`."""
    ns, nout, nties = int(params[_K.P_NSTATES]), int(params[_K.P_NOUT]), int(params[_K.P_NTIES])
    s = int(obs[_K.O_OPEN])
    st = _u(state[_K.S_RNG])
    if obs[_K.O_PHASE] == _K.PH_DICE:
        d = int(params[_K.P_HDR + ns * nout + s])
        if d == 0:
            u, st = py_next_below(st, 2)
            d = 1 + u
            state[_K.S_RNG] = _i(st)
        return d
    o = int(obs[_K.O_OUT])
    m = int(params[_K.P_HDR + s * nout + o])
    tie0 = _K.P_HDR + ns * nout + ns
    if m <= TIE_BASE:
        j0 = TIE_BASE - m
        j, st = py_next_below(st, int(params[tie0 + j0]))
        m = int(params[tie0 + j0 + 1 + j])
    elif m == RANDOM_MOVE:
        cs = tie0 + nties
        cm = cs + nout + 1
        legal = [int(params[cm + c]) for c in range(int(params[cs + o]), int(params[cs + o + 1]))]
        legal = [mm for mm in legal if (mm & s) == mm]
        j, st = py_next_below(st, len(legal))
        m = legal[j]
    state[_K.S_RNG] = _i(st)
    return m
