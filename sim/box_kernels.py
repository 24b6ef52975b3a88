"""Numba kernels for Shut the Box (private; the faces are in :mod:`ludolab.sim.box`).

States are bitmasks of open tiles; a move is the bitmask of the tiles it
covers; rolls are outcome indices of :class:`ludolab.stdlib.box.Outcomes`.
A policy is two arrays:

* ``move`` int16 (int32 beyond 15 tiles) (n_states, n_outcomes): the tiles to
  cover; ``-1`` when no move is legal (the turn ends, STB-7); ``-2`` for
  "uniformly at random among the legal moves"; ``-3 - j`` for "uniformly at
  random among the moves of tie group j" (a policy that breaks ties at
  random), where ``ties[j]`` is the number k of tied moves and
  ``ties[j+1 : j+1+k]`` their bitmasks (kernels with a ``ties`` argument).
* ``dice`` int8 (n_states,): 1 (one die) or 2 (the full roll); 0 for
  "uniformly at random among the allowed dice counts".

Roll outcomes carry a probability within their dice count (``prob``); a roll
draws one number below the length of the outcome's draw map (36 for 2d6).
The ``_fast`` kernels play a policy without random choices from a transition
table ``trans[s, u]`` (the state after draw u, or -1 when the turn ends) and
the draw size ``bound[s]`` of the dice rolled in s: one lookup per roll, the
same random numbers as the general kernel, so the same counts.

Kernels never print, never read mutable globals and never call back into
Python.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import kernel_cache as _kernel_cache  # noqa: F401  (processes sharing the cache take turns)

from . import play as _loops
from . import search as _search
from .box_dp import NO_MOVE, solve_dp
from .rng import game_state, next_below

RANDOM_MOVE = -2
#: move entries at or below this value name a tie group: ``TIE_BASE - j``
TIE_BASE = -3
_NO_TIES = np.zeros(1, dtype=np.int64)


@njit(cache=True)
def _solve(n_states, outcomes, dice_allowed, terminal, sense, value, best_move, dice_choice):
    """Backward induction for 2d6 outcome weights (out of 36 and 6): see :func:`_solve_p`;
    outcomes = (out_dice, out_weight, cand_start, cand_masks)."""
    out_dice, out_weight, cand_start, cand_masks = outcomes
    prob = np.empty(out_weight.shape[0])
    for o in range(out_weight.shape[0]):
        prob[o] = out_weight[o] / (36.0 if out_dice[o] == 2 else 6.0)
    _solve_p(n_states, (out_dice, prob, cand_start, cand_masks), dice_allowed, terminal, sense, value, best_move,
             dice_choice)


#: Backward induction over all states (STB-3..STB-7): :func:`ludolab.sim.box_dp.solve_dp` compiled (the
#: commands at the table run the same function as plain Python on a small box, see there).
_solve_p = njit(cache=True)(solve_dp)


@njit(cache=True)
def _count_legal(s, o, cand_start, cand_masks):
    k = 0
    for c in range(cand_start[o], cand_start[o + 1]):
        m = cand_masks[c]
        if (m & s) == m:
            k += 1
    return k


@njit(cache=True)
def _nth_legal(s, o, j, cand_start, cand_masks):
    k = 0
    for c in range(cand_start[o], cand_start[o + 1]):
        m = cand_masks[c]
        if (m & s) == m:
            if k == j:
                return m
            k += 1
    return NO_MOVE


@njit(cache=True)
def _evaluate(full, out_dice, out_weight, cand_start, cand_masks, dice_allowed,
              pol_move, pol_dice, final, mass):
    """Forward pass for 2d6 outcome weights (out of 36 and 6): see :func:`_evaluate_p`."""
    prob = np.empty(out_weight.shape[0])
    for o in range(out_weight.shape[0]):
        prob[o] = out_weight[o] / (36.0 if out_dice[o] == 2 else 6.0)
    _evaluate_p(full, (out_dice, prob, cand_start, cand_masks), dice_allowed, pol_move, pol_dice, _NO_TIES,
                final, mass)


@njit(cache=True)
def _evaluate_p(full, outcomes, dice_allowed, pol_move, pol_dice, ties, final, mass):
    """Forward pass over the Markov chain of a policy: fills final[s], the
    probability that the turn ends with open tiles s (final[0]: box shut),
    and mass[s], the probability that the turn reaches state s.

    A stochastic policy is weighed move by move: a random move (-2) gives each
    legal move an equal share, a tie group (``TIE_BASE - j``) each of its moves.
    outcomes = (out_dice, out_prob, cand_start, cand_masks) as in :func:`_solve_p`.
    """
    out_dice, out_prob, cand_start, cand_masks = outcomes
    n_out = out_dice.shape[0]
    mass[:] = 0.0
    mass[full] = 1.0
    for s in range(full, 0, -1):
        p = mass[s]
        if p == 0.0:
            continue
        for d in (2, 1):
            if (dice_allowed[s] & d) == 0:
                continue
            pd = 0.0
            if pol_dice[s] == d:
                pd = 1.0
            elif pol_dice[s] == 0:
                pd = 0.5 if dice_allowed[s] == 3 else 1.0
            if pd == 0.0:
                continue
            for o in range(n_out):
                if out_dice[o] != d:
                    continue
                po = p * pd * out_prob[o]
                m = pol_move[s, o]
                if m <= TIE_BASE:
                    j = TIE_BASE - m
                    k = ties[j]
                    for i in range(k):
                        mass[s ^ ties[j + 1 + i]] += po / k
                elif m == RANDOM_MOVE:
                    k = _count_legal(s, o, cand_start, cand_masks)
                    if k == 0:
                        final[s] += po
                    else:
                        for c in range(cand_start[o], cand_start[o + 1]):
                            mm = cand_masks[c]
                            if (mm & s) == mm:
                                mass[s ^ mm] += po / k
                elif m < 0:
                    final[s] += po
                else:
                    mass[s ^ m] += po
    final[0] += mass[0]


@njit(cache=True)
def _play_turn(st, turn, pol_move, pol_dice, trace):
    """One turn of a policy without tie groups: see :func:`_play_turn_t`."""
    return _play_turn_t(st, turn, pol_move, pol_dice, _NO_TIES, trace)


@njit(cache=True)
def _play_turn_t(st, turn, pol_move, pol_dice, ties, trace):
    """One turn from the full box with the stream state st; returns (final state, st, steps).

    turn = (full, dice_allowed, draw_map1, draw_map2, cand_start, cand_masks): the rules of a
    turn (``box_montecarlo._sim_args``): the full box's bitmask, the dice counts allowed per
    state (STB-6), the draw maps of one die and of the full roll, and the candidate moves of
    each outcome.  A roll draws one number below ``len(draw_map2)`` (the full roll) or
    ``len(draw_map1)`` (one die); a random move, then a second number below
    the count of legal (or tied) moves.
    trace: int64 (max_steps, 4); when it has rows, roll k is written to
    ``trace[k] = (open tiles, dice, outcome, tiles covered or -1 when the turn
    ends)``; pass an empty array (0, 4) to play without a record.
    """
    full, dice_allowed, draw_map1, draw_map2, cand_start, cand_masks = turn
    n2 = draw_map2.shape[0]
    n1 = draw_map1.shape[0]
    s = full
    n = 0
    while s != 0:
        d = pol_dice[s]
        if d == 0:
            if dice_allowed[s] == 3:
                u, st = next_below(st, 2)
                d = 1 + u
            else:
                d = dice_allowed[s]
        if d == 2:
            u, st = next_below(st, n2)
            o = draw_map2[u]
        else:
            u, st = next_below(st, n1)
            o = draw_map1[u]
        m = pol_move[s, o]
        if m <= TIE_BASE:
            j0 = TIE_BASE - m
            j, st = next_below(st, ties[j0])
            m = ties[j0 + 1 + j]
        elif m == RANDOM_MOVE:
            k = _count_legal(s, o, cand_start, cand_masks)
            if k == 0:
                m = NO_MOVE
            else:
                j, st = next_below(st, k)
                m = _nth_legal(s, o, j, cand_start, cand_masks)
        if n < trace.shape[0]:
            trace[n, 0] = s
            trace[n, 1] = d
            trace[n, 2] = o
            trace[n, 3] = m if m >= 0 else NO_MOVE
        n += 1
        if m < 0:
            break
        s ^= m
    return s, st, n


@njit(cache=True)
def _trace_games(key, start, stop, turn, pol_move, pol_dice, trace, n_steps, final):
    """Games start..stop-1 of a chunk with their record (the conformance harness).

    turn: the rules of a turn, as :func:`_play_turn_t` takes them;
    trace: int64 (n_games, max_steps, 4) as in :func:`_play_turn`;
    n_steps, final: int64 (n_games,): rolls made and the final open tiles.
    """
    for g in range(start, stop):
        i = g - start
        s, st, n = _play_turn(game_state(key, g), turn, pol_move, pol_dice, trace[i])
        n_steps[i] = n
        final[i] = s


@njit(cache=True)
def _simulate_chunk(key, start, stop, turn, pol_move, pol_dice, counts):
    """Games start..stop-1 of one chunk of :func:`_simulate`: counts[s] += games ending in s."""
    no_trace = np.empty((0, 4), dtype=np.int64)
    for g in range(start, stop):
        st = game_state(key, g)
        s, st, _ = _play_turn(st, turn, pol_move, pol_dice, no_trace)
        counts[s] += 1


@njit(cache=True, parallel=True)
def _simulate(keys, starts, stops, turn, pol_move, pol_dice, counts):
    """Monte Carlo of one turn per game; counts[c, s] += games g in starts[c]..stops[c]-1
    of chunk c ending in s (the runner's kernel contract, :mod:`ludolab.sim.runner`);
    turn: the rules of a turn, as :func:`_play_turn_t` takes them.

    One chunk per prange iteration; each game owns its stream, so the result
    does not depend on the number of threads or on how the games are sliced.
    """
    for c in prange(keys.shape[0]):
        _simulate_chunk(keys[c], starts[c], stops[c], turn, pol_move, pol_dice, counts[c])


@njit(cache=True, parallel=True)
def _simulate_match(keys, starts, stops, turn, pol_moves, pol_dices, match, out):
    """Several players (STB-9, STB-11, STB-12), each seat with its own policy.

    turn: the rules of a turn, as :func:`_play_turn_t` takes them;
    pol_moves (P, n_states, n_out), pol_dices (P, n_states): one policy per seat;
    match = (score_rank, n_rounds, threshold, max_rounds): score_rank (n_states,) the score of
    each final state (int64); n_rounds > 0: that many rounds, totals add up (STB-11);
    n_rounds == 0: elimination at ``threshold`` (STB-12).
    out[c, p, 0] wins, [1] ties (shared lowest), [2] sum of totals,
    [3] sum of the number of rounds each game lasted; out[c, 0, 4] counts the
    elimination games stopped at ``max_rounds`` (decided by the lowest total).
    """
    tie_start = np.zeros(pol_moves.shape[0] + 1, dtype=np.int64)
    no_ties = np.zeros(1, dtype=np.int64)
    for c in prange(keys.shape[0]):
        _match_chunk(keys[c], starts[c], stops[c], turn, (pol_moves, pol_dices, no_ties, tie_start), match, out[c])


@njit(cache=True, parallel=True)
def _simulate_match_t(keys, starts, stops, turn, pol_moves, pol_dices, ties, tie_start, match, out):
    """:func:`_simulate_match` for seats whose policies may hold tie groups (STB-T1): seat p reads
    its groups from ``ties[tie_start[p]:tie_start[p+1]]``."""
    for c in prange(keys.shape[0]):
        _match_chunk(keys[c], starts[c], stops[c], turn, (pol_moves, pol_dices, ties, tie_start), match, out[c])


@njit(cache=True)
def _match_chunk(key, start, stop, turn, pols, match, out):
    """Games start..stop-1 of one chunk of :func:`_simulate_match`; out (P, 5) as there.

    pols = (pol_moves, pol_dices, ties, tie_start): seat p's policy, its tie groups at
    ``ties[tie_start[p]:tie_start[p+1]]``; turn and match as in :func:`_simulate_match`."""
    pol_moves, pol_dices, ties, tie_start = pols
    score_rank, n_rounds, threshold, max_rounds = match
    n_seats = pol_moves.shape[0]
    total = np.zeros(n_seats, dtype=np.int64)
    alive = np.zeros(n_seats, dtype=np.bool_)
    dropped = np.zeros(n_seats, dtype=np.bool_)
    no_trace = np.empty((0, 4), dtype=np.int64)
    for g in range(start, stop):
        st = game_state(key, g)
        total[:] = 0
        alive[:] = True
        rounds = 0
        while True:
            rounds += 1
            dropped[:] = False
            for p in range(n_seats):
                if not alive[p]:
                    continue
                s, st, _ = _play_turn_t(st, turn, pol_moves[p], pol_dices[p], ties[tie_start[p]:tie_start[p + 1]],
                                        no_trace)
                total[p] += score_rank[s]
                if n_rounds == 0 and total[p] >= threshold:
                    dropped[p] = True
            if n_rounds > 0:
                if rounds >= n_rounds:
                    break
                continue
            n_alive = 0
            for p in range(n_seats):
                if alive[p] and not dropped[p]:
                    n_alive += 1
            if n_alive >= 2 and rounds >= max_rounds:
                out[0, 4] += 1
                for p in range(n_seats):
                    if dropped[p]:
                        alive[p] = False
                break
            if n_alive >= 2:
                for p in range(n_seats):
                    if dropped[p]:
                        alive[p] = False
                continue
            if n_alive == 1:
                for p in range(n_seats):
                    if dropped[p]:
                        alive[p] = False
            break
        # winners among the players still alive (or all who dropped last)
        best = np.int64(-1)
        for p in range(n_seats):
            if alive[p] and (best < 0 or total[p] < best):
                best = total[p]
        k = 0
        for p in range(n_seats):
            if alive[p] and total[p] == best:
                k += 1
        for p in range(n_seats):
            if alive[p] and total[p] == best:
                if k == 1:
                    out[p, 0] += 1
                else:
                    out[p, 1] += 1
            out[p, 2] += total[p]
            out[p, 3] += rounds


# ------------------------------------------------------------ stochastic policies
@njit(cache=True)
def _trace_games_t(key, start, stop, turn, pol_move, pol_dice, ties, trace, n_steps, final):
    """:func:`_trace_games` for a policy that may hold tie groups (``ties``)."""
    for g in range(start, stop):
        i = g - start
        s, st, n = _play_turn_t(game_state(key, g), turn, pol_move, pol_dice, ties, trace[i])
        n_steps[i] = n
        final[i] = s


@njit(cache=True, parallel=True)
def _simulate_t(keys, starts, stops, turn, pol_move, pol_dice, ties, counts):
    """:func:`_simulate` for any policy: random moves, random dice counts and tie groups."""
    for c in prange(keys.shape[0]):
        no_trace = np.empty((0, 4), dtype=np.int64)
        for g in range(starts[c], stops[c]):
            s, st, _ = _play_turn_t(game_state(keys[c], g), turn, pol_move, pol_dice, ties, no_trace)
            counts[c, s] += 1


@njit(cache=True, parallel=True)
def _simulate_paired_t(keys, starts, stops, turn, pol_moves, pol_dices, ties, tie_start, scores, sums):
    """Common random numbers: game g of a chunk is played by every policy with the same
    stream; sums[c, a, b] accumulates score_a * score_b and sums[c, a, K] accumulates
    score_a (K = number of policies).  Any policies: policy a reads its tie groups from
    ``ties[tie_start[a]:tie_start[a+1]]``."""
    n_pol = pol_moves.shape[0]
    for c in prange(keys.shape[0]):
        x = np.empty(n_pol)
        no_trace = np.empty((0, 4), dtype=np.int64)
        for g in range(starts[c], stops[c]):
            for a in range(n_pol):
                st = game_state(keys[c], g)
                s, st, _ = _play_turn_t(st, turn, pol_moves[a], pol_dices[a], ties[tie_start[a]:tie_start[a + 1]],
                                        no_trace)
                x[a] = scores[s]
            for a in range(n_pol):
                sums[c, a, n_pol] += x[a]
                for b in range(n_pol):
                    sums[c, a, b] += x[a] * x[b]


# --------------------------------------------------------------- fast kernels
@njit(cache=True)
def _transitions(full, draw_map1, draw_map2, pol_move, pol_dice, bound, trans):
    """Compile a policy without random choices to ``bound`` (n_states,), the draw size of the
    dice rolled in each state, and ``trans`` (n_states, len(draw_map2)): for draw u in state s,
    ``2 * next + f`` where ``next`` is the open tiles after the move and f is 1 when ``next``
    rolls one die (0: the full roll); -1 when no move is legal (the turn ends in s)."""
    n2 = draw_map2.shape[0]
    n1 = draw_map1.shape[0]
    for s in range(full + 1):
        bound[s] = n1 if pol_dice[s] == 1 else n2
    for s in range(full + 1):
        dm = draw_map1 if pol_dice[s] == 1 else draw_map2
        for u in range(dm.shape[0]):
            m = pol_move[s, dm[u]]
            if m < 0:
                trans[s, u] = -1
            else:
                trans[s, u] = 2 * (s ^ m) + (1 if bound[s ^ m] == n1 else 0)


@njit(cache=True, inline="always")
def _fast_step(s, st, b, nxt, stop, key, table, counts):
    """One roll of a game lane (open tiles s, stream state st, draw size b).  A finished game
    is counted and the lane starts game ``nxt`` (``s = -1``: no game left).  Returns the lane
    and the next game number.  table = (full, bfull, n1, n2, trans): the full box, its draw
    size, the one-die and full-roll draw sizes and the transition table (:func:`_fast_chunk`)."""
    full, bfull, n1, n2, trans = table
    u, st = next_below(st, b)
    e = trans[s, u]
    if e <= 1:  # -1: no move, the turn ends in s; 0 or 1: the box is shut
        counts[s if e < 0 else 0] += 1
        if nxt < stop:
            return full, game_state(key, nxt), bfull, nxt + 1
        return -1, st, b, nxt
    return e >> 1, st, (n1 if (e & 1) else n2), nxt


@njit(cache=True)
def _fast_chunk(key, start, stop, full, bfull, n1, n2, trans, counts):
    """Games start..stop-1 of one chunk, two at a time (two independent lanes keep the
    processor busy while the other waits on its table lookup); each game still draws only
    from its own stream, so the counts are those of one game after another."""
    nxt = start
    s0 = -1
    s1 = -1
    st0 = np.uint64(0)
    st1 = np.uint64(0)
    b0 = bfull
    b1 = bfull
    if nxt < stop:
        s0 = full
        st0 = game_state(key, nxt)
        nxt += 1
    if nxt < stop:
        s1 = full
        st1 = game_state(key, nxt)
        nxt += 1
    table = (full, bfull, n1, n2, trans)
    while s0 >= 0 and s1 >= 0:
        s0, st0, b0, nxt = _fast_step(s0, st0, b0, nxt, stop, key, table, counts)
        s1, st1, b1, nxt = _fast_step(s1, st1, b1, nxt, stop, key, table, counts)
    while s0 >= 0:
        s0, st0, b0, nxt = _fast_step(s0, st0, b0, nxt, stop, key, table, counts)
    while s1 >= 0:
        s1, st1, b1, nxt = _fast_step(s1, st1, b1, nxt, stop, key, table, counts)


@njit(cache=True, parallel=True)
def _simulate_fast(keys, starts, stops, full, bound, trans, counts):
    """Monte Carlo of a policy without random choices on its transition table (the runner's
    kernel contract): counts[c, s] += games of chunk c ending in s.  Each game draws the
    numbers it draws under :func:`_simulate`, so the counts are the same."""
    n2 = trans.shape[1]
    n1 = n2
    for s in range(full + 1):
        if bound[s] < n1:
            n1 = bound[s]
    bfull = bound[full]
    for c in prange(keys.shape[0]):
        _fast_chunk(keys[c], starts[c], stops[c], full, bfull, n1, n2, trans, counts[c])


@njit(cache=True, inline="always")
def _fast_turn(st, full, bfull, n1, n2, trans):
    """One turn on a transition table; returns (final open tiles, stream state)."""
    s = full
    b = bfull
    while True:
        u, st = next_below(st, b)
        e = trans[s, u]
        if e < 0:
            return s, st
        s = e >> 1
        if s == 0:
            return s, st
        b = n1 if (e & 1) else n2


@njit(cache=True, parallel=True)
def _simulate_paired_fast(keys, starts, stops, full, bounds, transs, scores, sums):
    """:func:`_simulate_paired_t` for policies without random choices, on their
    transition tables bounds (P, n_states) and transs (P, n_states, n_draws)."""
    n_pol = bounds.shape[0]
    n2 = transs.shape[2]
    n1s = np.full(n_pol, n2, dtype=np.int64)
    for a in range(n_pol):
        for s in range(full + 1):
            if bounds[a, s] < n1s[a]:
                n1s[a] = bounds[a, s]
    for c in prange(keys.shape[0]):
        x = np.empty(n_pol)
        for g in range(starts[c], stops[c]):
            for a in range(n_pol):
                s, _ = _fast_turn(game_state(keys[c], g), full, bounds[a, full], n1s[a], n2, transs[a])
                x[a] = scores[s]
            for a in range(n_pol):
                sums[c, a, n_pol] += x[a]
                for b in range(n_pol):
                    sums[c, a, b] += x[a] * x[b]


# ------------------------------------------------------------ the step interface
# A step game is a match (STB-9, STB-11, STB-12) as :func:`_match_chunk` plays
# it: the seats take whole turns in seat order, one stream for the whole match.
# Actions: in the dice phase (only where both counts are allowed, STB-6) 1 for
# one die and 2 for the full roll; in the move phase the bitmask of the tiles
# to cover (STB-4).  Rolls and the end of a turn that cannot be covered
# (STB-7) are chance, inside ``new_game`` and ``apply_action``.

# rules array: header, then the tables at the offsets the header names
R_NSEATS = 0      #: seats 1..6
R_ROUNDS = 1      #: rounds (STB-11); 0: elimination (STB-12)
R_THRESHOLD = 2   #: elimination threshold
R_MAXROUNDS = 3   #: an elimination game still running after this many rounds ends
R_FULL = 4        #: bitmask of every tile
R_NOUT = 5        #: roll outcomes
R_N1 = 6          #: length of the one-die draw map
R_N2 = 7          #: length of the full-roll draw map
R_DICE_AT = 8     #: dice_allowed (n_states,)
R_MAP1_AT = 9
R_MAP2_AT = 10
R_CSTART_AT = 11  #: cand_start (n_out + 1,)
R_CMASK_AT = 12
R_SCORE_AT = 13   #: the score of each final state (n_states,)
R_HDR = 16

# state array
S_RNG = 0
S_SEAT = 1        #: seat to act, -1 once the match is over
S_PHASE = 2
S_OPEN = 3        #: the acting seat's open tiles
S_OUT = 4         #: outcome index of the roll to cover (move phase), else -1
S_DICE = 5        #: dice of that roll
S_ROUND = 6       #: 1-based
S_CAPPED = 7      #: 1 when an elimination match ended at R_MAXROUNDS
S_TOTAL = 8       #: + seat: running totals (STB-11)
S_ALIVE = 14      #: + seat: 1 while the seat is in the match
S_DROPPED = 20    #: + seat: 1 when the seat reached the threshold this round
S_LAST = 26       #: + seat: open tiles at the end of the seat's latest turn (-1 before it)
STATE_SIZE = 32
MAXSEATS = 6

PH_DICE = 0
PH_MOVE = 1
PH_OVER = 2

# observation: everything is public in Shut the Box but the dice to come
O_SEAT = 0
O_PHASE = 1
O_OPEN = 2
O_OUT = 3
O_DICE = 4
O_ROUND = 5
O_ACTING = 6
O_TOTAL = 8
O_ALIVE = 14
O_LAST = 20
O_CAPPED = 26
O_DROPPED = 27
OBS_SIZE = 33
#: at most this many legal moves for one roll (the face refuses rules with more)
MAX_ACTIONS = 1024

# policies: kind 0 plays a table (params as :func:`policy_params` packs them)
K_TABLE = 0
P_NSTATES = 0
P_NOUT = 1
P_NTIES = 2
P_HDR = 3


@njit(cache=True, inline="always")
def _r(rules, at, i):
    return rules[rules[at] + i]


@njit(cache=True)
def _box_count_legal(rules, s, o):
    k = 0
    base = rules[R_CMASK_AT]
    for c in range(_r(rules, R_CSTART_AT, o), _r(rules, R_CSTART_AT, o + 1)):
        m = rules[base + c]
        if (m & s) == m:
            k += 1
    return k


@njit(cache=True)
def _box_roll(rules, state, d):
    """Roll d dice for the acting seat (the seam of chance); True when the roll can be
    covered, False when the turn ends (STB-7)."""
    st = np.uint64(state[S_RNG])
    if d == 2:
        u, st = next_below(st, rules[R_N2])
        o = _r(rules, R_MAP2_AT, u)
    else:
        u, st = next_below(st, rules[R_N1])
        o = _r(rules, R_MAP1_AT, u)
    state[S_RNG] = np.int64(st)
    state[S_DICE] = d
    state[S_OUT] = o
    state[S_PHASE] = PH_MOVE
    return _box_count_legal(rules, state[S_OPEN], o) > 0


@njit(cache=True)
def _box_next_roll(rules, state):
    """Bring the match to its next decision: the acting seat's dice choice or a roll to
    cover; turns that end (shut, or a roll that cannot be covered) pass to the next seat."""
    while state[S_SEAT] >= 0:
        s = state[S_OPEN]
        if s == 0:
            _box_end_turn(rules, state)
            continue
        a = _r(rules, R_DICE_AT, s)
        if a == 3:
            state[S_PHASE] = PH_DICE
            state[S_OUT] = -1
            state[S_DICE] = 0
            return
        if _box_roll(rules, state, a):
            return
        _box_end_turn(rules, state)


@njit(cache=True)
def _box_end_turn(rules, state):
    """Score the acting seat's turn and pass to the next seat, round or the end (as
    :func:`_match_chunk`)."""
    p = state[S_SEAT]
    n = rules[R_NSEATS]
    s = state[S_OPEN]
    state[S_LAST + p] = s
    state[S_TOTAL + p] += _r(rules, R_SCORE_AT, s)
    if rules[R_ROUNDS] == 0 and state[S_TOTAL + p] >= rules[R_THRESHOLD]:
        state[S_DROPPED + p] = 1
    state[S_OUT] = -1
    state[S_DICE] = 0
    q = p + 1
    while q < n and state[S_ALIVE + q] == 0:
        q += 1
    if q < n:
        _box_start_turn(rules, state, q)
        return
    # the round is over
    over = False
    if rules[R_ROUNDS] > 0:
        over = state[S_ROUND] >= rules[R_ROUNDS]
    else:
        n_alive = 0
        for i in range(n):
            if state[S_ALIVE + i] == 1 and state[S_DROPPED + i] == 0:
                n_alive += 1
        if n_alive >= 2 and state[S_ROUND] >= rules[R_MAXROUNDS]:
            state[S_CAPPED] = 1
        if n_alive >= 1:
            for i in range(n):
                if state[S_DROPPED + i] == 1:
                    state[S_ALIVE + i] = 0
        over = n_alive <= 1 or state[S_CAPPED] == 1
    if over:
        state[S_SEAT] = -1
        state[S_PHASE] = PH_OVER
        return
    state[S_ROUND] += 1
    for i in range(n):
        state[S_DROPPED + i] = 0
    q = 0
    while state[S_ALIVE + q] == 0:
        q += 1
    _box_start_turn(rules, state, q)


@njit(cache=True, inline="always")
def _box_start_turn(rules, state, q):
    state[S_SEAT] = q
    state[S_OPEN] = rules[R_FULL]
    state[S_PHASE] = PH_DICE


@njit(cache=True)
def new_game(rules, key, state):
    """Set up match ``key`` (the stream start ``game_state(chunk_key, g)``) in ``state``
    (int64 (STATE_SIZE,)) and roll for seat 0 up to its first decision (STB-3, STB-9)."""
    state[:] = 0
    state[S_RNG] = np.int64(np.uint64(key))
    state[S_ROUND] = 1
    for i in range(MAXSEATS):
        state[S_LAST + i] = -1
    for i in range(rules[R_NSEATS]):
        state[S_ALIVE + i] = 1
    _box_start_turn(rules, state, 0)
    _box_next_roll(rules, state)


@njit(cache=True)
def current_player(state):
    """The seat to act, or -1 once the match is over."""
    return state[S_SEAT]


@njit(cache=True)
def is_terminal(state):
    """True once the match is over."""
    return state[S_SEAT] < 0


@njit(cache=True)
def legal_actions(rules, state, out):
    """The legal actions, ascending, into out[:n]: (1, 2) in the dice phase (STB-6), the
    coverable tile sets of the roll in the move phase (STB-4); returns n (0 when over)."""
    if state[S_SEAT] < 0:
        return 0
    if state[S_PHASE] == PH_DICE:
        out[0] = 1
        out[1] = 2
        return 2
    s = state[S_OPEN]
    o = state[S_OUT]
    base = rules[R_CMASK_AT]
    n = 0
    for c in range(_r(rules, R_CSTART_AT, o), _r(rules, R_CSTART_AT, o + 1)):
        m = rules[base + c]
        if (m & s) == m and n < out.shape[0]:
            j = n
            while j > 0 and out[j - 1] > m:  # insertion: ascending
                out[j] = out[j - 1]
                j -= 1
            out[j] = m
            n += 1
    return n


@njit(cache=True)
def apply_action(rules, state, action):
    """Play ``action`` of the acting seat: roll the dice chosen, or cover the tiles; then
    chance up to the next decision."""
    if state[S_PHASE] == PH_DICE:
        if _box_roll(rules, state, action):
            return
        _box_end_turn(rules, state)
    else:
        state[S_OPEN] ^= action
    _box_next_roll(rules, state)


#: (observation offset, state offset, length) of everything a seat sees: the whole table
PUBLIC = np.array([[O_PHASE, S_PHASE, 1], [O_OPEN, S_OPEN, 1], [O_OUT, S_OUT, 1], [O_DICE, S_DICE, 1],
                   [O_ROUND, S_ROUND, 1], [O_ACTING, S_SEAT, 1], [O_CAPPED, S_CAPPED, 1],
                   [O_TOTAL, S_TOTAL, MAXSEATS], [O_ALIVE, S_ALIVE, MAXSEATS], [O_LAST, S_LAST, MAXSEATS],
                   [O_DROPPED, S_DROPPED, MAXSEATS]], dtype=np.int64)


@njit(cache=True)
def observe(rules, state, seat, obs):
    """Everything ``seat`` knows, int64 (OBS_SIZE,): the whole table (nothing is hidden but the
    dice to come)."""
    obs[:] = 0
    obs[O_SEAT] = seat
    for r in range(PUBLIC.shape[0]):
        for i in range(PUBLIC[r, 2]):
            obs[PUBLIC[r, 0] + i] = state[PUBLIC[r, 1] + i]


@njit(cache=True)
def determinize(rules, obs, seat, key, state):
    """The state of an observation (nothing is hidden), with its stream started from ``key``."""
    state[:] = 0
    state[S_RNG] = np.int64(np.uint64(key))
    for r in range(PUBLIC.shape[0]):
        for i in range(PUBLIC[r, 2]):
            state[PUBLIC[r, 1] + i] = obs[PUBLIC[r, 0] + i]


@njit(cache=True)
def returns(rules, state, out):
    """Each seat's total (STB-8, STB-11) into out[:n_seats]; lower is better."""
    for i in range(rules[R_NSEATS]):
        out[i] = state[S_TOTAL + i]


@njit(cache=True)
def act(kind, params, obs, state):
    """A policy table (kind K_TABLE, params packed by ``policy_params``) at the decision of
    ``obs``; random dice, random moves and tie groups draw from ``state[S_RNG]`` as
    :func:`_play_turn_t` draws them."""
    ns = np.int64(params[P_NSTATES])
    nout = np.int64(params[P_NOUT])
    s = obs[O_OPEN]
    st = np.uint64(state[S_RNG])
    if obs[O_PHASE] == PH_DICE:
        d = np.int64(params[P_HDR + ns * nout + s])
        if d == 0:
            u, st = next_below(st, 2)
            d = 1 + u
            state[S_RNG] = np.int64(st)
        return d
    o = obs[O_OUT]
    m = np.int64(params[P_HDR + s * nout + o])
    tie0 = P_HDR + ns * nout + ns
    if m <= TIE_BASE:
        j0 = TIE_BASE - m
        k = np.int64(params[tie0 + j0])
        j, st = next_below(st, k)
        m = np.int64(params[tie0 + j0 + 1 + j])
    elif m == RANDOM_MOVE:
        # the j-th legal move in the order of the outcome's candidates, as _nth_legal counts
        cs = tie0 + np.int64(params[P_NTIES])
        cm = cs + nout + 1
        k = 0
        for c in range(np.int64(params[cs + o]), np.int64(params[cs + o + 1])):
            mm = np.int64(params[cm + c])
            if (mm & s) == mm:
                k += 1
        j, st = next_below(st, k)
        for c in range(np.int64(params[cs + o]), np.int64(params[cs + o + 1])):
            mm = np.int64(params[cm + c])
            if (mm & s) == mm:
                if j == 0:
                    m = mm
                    break
                j -= 1
    state[S_RNG] = np.int64(st)
    return m


@njit(cache=True)
def search(rules, inp, work):
    """Determinized search at one decision (:func:`ludolab.sim.search.pimc`) on these rules."""
    return _search.pimc(current_player, legal_actions, apply_action, observe, determinize, returns, act,
                        rules, inp, work)


@njit(cache=True)
def search_tree(rules, inp, work):
    """Information-set MCTS at one decision (:func:`ludolab.sim.search.ismcts`) on these rules."""
    return _search.ismcts(current_player, legal_actions, apply_action, observe, determinize, returns, act,
                          rules, inp, work)


@njit(cache=True, nogil=True)
def play_many(rules, inp, out):
    """Whole matches of named policies (:func:`ludolab.sim.play.play_games`) on these rules."""
    _loops.play_games(new_game, current_player, legal_actions, apply_action, observe, returns, act, rules, inp, out)


@njit(cache=True)
def running_score(rules, state, out):
    """The running totals (STB-11) into out[:n_seats]; returns the rounds complete."""
    for i in range(rules[R_NSEATS]):
        out[i] = state[S_TOTAL + i]
    return state[S_ROUND] if state[S_SEAT] < 0 else state[S_ROUND] - 1


@njit(cache=True, nogil=True)
def play_traced_many(rules, inp, out):
    """Whole matches with their running totals (:func:`ludolab.sim.play.play_traced`)."""
    _loops.play_traced(new_game, current_player, apply_action, observe, returns, act, running_score,
                      rules, inp, out)
