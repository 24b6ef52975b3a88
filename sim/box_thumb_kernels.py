"""Numba kernels of the rules of thumb for Shut the Box (private; the face is :mod:`ludolab.sim.box_thumb`).

States and moves are bitmasks of tiles, rolls are outcome indices of
:class:`ludolab.stdlib.box.Outcomes` (dice code 1 = one die, 2 = the full
roll).  Kernels never print, never read mutable globals and never call back
into Python.
"""

from __future__ import annotations

from numba import njit

from . import kernel_cache as _kernel_cache  # noqa: F401  (processes sharing the cache take turns)

NO_MOVE = -1


@njit(cache=True)
def _coverage(n_states, out_dice, out_prob, cand_start, cand_masks, cover, ways):
    """Per state and dice code d (row d-1): the chance the next roll can be covered
    (``cover``) and the probability-weighted number of legal (roll, move) pairs
    (``ways``).  cover, ways: float64 (2, n_states), filled."""
    n_out = out_dice.shape[0]
    for s in range(n_states):
        for d in range(2):
            cover[d, s] = 0.0
            ways[d, s] = 0.0
        for o in range(n_out):
            k = 0
            for c in range(cand_start[o], cand_start[o + 1]):
                m = cand_masks[c]
                if (m & s) == m:
                    k += 1
            d = out_dice[o] - 1
            if k > 0:
                cover[d, s] += out_prob[o]
                ways[d, s] += out_prob[o] * k


@njit(cache=True)
def _lex_best(s, o, cand_start, cand_masks, vals, on_move, n_keys, low):
    """The legal move of a lexicographic rule for open tiles s and outcome o (see :func:`_lex_table`);
    with ``low`` the last tie goes to the move with the lowest tiles (the smallest bitmask)."""
    best = NO_MOVE
    for c in range(cand_start[o], cand_start[o + 1]):
        m = cand_masks[c]
        if (m & s) != m:
            continue
        if best == NO_MOVE:
            best = m
            continue
        better = 0
        for k in range(n_keys):
            x = m if on_move[k] else s ^ m
            y = best if on_move[k] else s ^ best
            a = vals[k, x]
            b = vals[k, y]
            if a > b:
                better = 1
                break
            if a < b:
                better = -1
                break
        if better == 1 or (better == 0 and (m < best if low else m > best)):
            best = m
    return best


@njit(cache=True)
def _lex_table(n_states, n_out, cand_start, cand_masks, vals, on_move, n_keys, low, move):
    """Move table of a lexicographic rule of thumb.

    vals: float64 (n_keys_max, n_states): the value of key k for a bitmask x,
    where x is the move itself (``on_move[k]``) or the open tiles it leaves;
    the chosen legal move maximises (key 0, key 1, ..., the move's bitmask),
    so the last tie goes to the move with the highest tiles (``low``: the lowest).
    move: int16/int32 (n_states, n_out), filled; NO_MOVE where no move is legal.
    """
    for o in range(n_out):
        move[0, o] = NO_MOVE
    for s in range(1, n_states):
        for o in range(n_out):
            move[s, o] = _lex_best(s, o, cand_start, cand_masks, vals, on_move, n_keys, low)


@njit(cache=True)
def _lex_evaluate(full, outcomes, rule, dice, move, final, visit):
    """Forward pass of a lexicographic rule, choosing its moves only where the turn can go.

    Fills visit[s] (chance the turn reaches open tiles s), final[s] (chance it
    ends there; final[0] the box shut) and move[s, o] for every reached state
    s and outcome o of the dice rolled there (other entries are left as given).

    Args:
        full: the bitmask of every tile (the turn starts with all open).
        outcomes: ``(out_dice, out_prob, cand_start, cand_masks)``: per roll outcome its dice code
            and probability, and the candidate moves of outcome o at
            cand_masks[cand_start[o]:cand_start[o + 1]] (:class:`ludolab.stdlib.box.Outcomes`).
        rule: ``(vals, on_move, n_keys, low)``, the lexicographic rule as :func:`_lex_table` takes it.
        dice: int8 (n_states,), the dice code rolled in each state.
    """
    out_dice, out_prob, cand_start, cand_masks = outcomes
    vals, on_move, n_keys, low = rule
    n_out = out_dice.shape[0]
    visit[:] = 0.0
    final[:] = 0.0
    visit[full] = 1.0
    for s in range(full, 0, -1):
        p = visit[s]
        if p == 0.0:
            continue
        d = dice[s]
        for o in range(n_out):
            if out_dice[o] != d:
                continue
            m = _lex_best(s, o, cand_start, cand_masks, vals, on_move, n_keys, low)
            move[s, o] = m
            if m == NO_MOVE:
                final[s] += p * out_prob[o]
            else:
                visit[s ^ m] += p * out_prob[o]
    final[0] += visit[0]
