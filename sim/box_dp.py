"""Shut the Box's backward induction, written once and run two ways (STB-3..STB-7).

:func:`solve_dp` is plain Python over numpy arrays; :mod:`ludolab.sim.box_kernels` compiles it
with numba as ``_solve_p``, the solver of every study.  The commands answered at the table
(``box solve``, ``box advise``) run it uncompiled on a small box (see
:data:`ludolab.sim.box_exact.PYTHON_ENGINE_MAX_STATES`): it is the same function, the same
float operations in the same order, so the same values, moves and dice to the last bit, and on
a box of up to 12 tiles it answers before numba has even been imported.  This module imports
neither numba nor any module that does.
"""

from __future__ import annotations

NO_MOVE = -1


def solve_dp(n_states, outcomes, dice_allowed, terminal, sense, value, best_move, dice_choice):
    """Backward induction over all states (STB-3..STB-7).

    outcomes = (out_dice, out_prob, cand_start, cand_masks): per roll outcome its dice count and
    its chance within that count (float64 (n_outcomes,)), and its candidate moves
    cand_masks[cand_start[o]:cand_start[o + 1]] (:class:`ludolab.stdlib.box.Outcomes`);
    terminal: float64 (n_states,) utility of a turn that ends in each state;
    sense: +1.0 to maximise the expected utility, -1.0 to minimise it.
    Fills value (n_states,), best_move (n_states, n_outcomes), dice_choice.
    Ties between moves go to the move with the highest tiles; between dice
    counts to the full roll.
    """
    out_dice, out_prob, cand_start, cand_masks = outcomes
    n_out = out_dice.shape[0]
    eps = 1e-12
    value[0] = terminal[0]
    dice_choice[0] = 2
    for o in range(n_out):
        best_move[0, o] = NO_MOVE
    for s in range(1, n_states):
        # the best move for every roll outcome, those of a dice count the state does not use too
        # (advice for any roll); every state it can lead to is below s, so already solved
        for o in range(n_out):
            bm = NO_MOVE
            bv = 0.0
            for c in range(cand_start[o + 1] - 1, cand_start[o] - 1, -1):
                m = cand_masks[c]
                if (m & s) == m:
                    v = sense * value[s ^ m]
                    if bm == NO_MOVE or v > bv + eps:
                        bm = m
                        bv = v
            best_move[s, o] = bm
        best_val = 0.0
        have = False
        for d in (2, 1):
            if (dice_allowed[s] & d) == 0:
                continue
            acc = 0.0
            for o in range(n_out):
                if out_dice[o] != d:
                    continue
                bm = int(best_move[s, o])
                if bm == NO_MOVE:
                    acc += out_prob[o] * terminal[s]
                else:
                    acc += out_prob[o] * value[s ^ bm]
            if not have or sense * acc > sense * best_val + eps:
                best_val = acc
                have = True
                dice_choice[s] = d
        value[s] = best_val
