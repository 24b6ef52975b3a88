"""Shut the Box: the validated face of the exact solver, the policy catalogue, exact
evaluation, Monte Carlo, advice and several players.

Every function here is a thin face over the numba kernels of
:mod:`ludolab.sim.box_kernels`: it validates its arguments (a
:class:`~ludolab.stdlib.errors.LudolabError` naming the bad value and the
allowed ones), resolves the seed, calls the kernel and returns numpy arrays or
pandas DataFrames.  The pieces live in one module per idea: exact solving and
evaluation (:mod:`.box_exact`), the policy catalogue (:mod:`.box_policies`),
Monte Carlo (:mod:`.box_montecarlo`) and several players (:mod:`.box_match`).
Clause ids (``STB-n``, ``STB-On``) refer to ``seeds/shut_the_box.md``.
"""

from __future__ import annotations

import pandas as pd

from ludolab.stdlib.box import BoxRules, RulesError

from .box_exact import (OBJECTIVES, Evaluation, Policy, Solution, evaluate, objective_label, solve,  # noqa: F401
                        solve_utility, terminal_utility)
from .box_match import MAX_ROUNDS, MatchSolution, match_exact, simulate_rounds  # noqa: F401
from .box_montecarlo import SimResult, compare, simulate  # noqa: F401
from .box_policies import POLICY_NAMES, PolicyError, make_policy  # noqa: F401

# ------------------------------------------------------------------ advice
def advise(rules: BoxRules, open_tiles, roll=None, objective: str = "expected-score",
           target: int | None = None, ties_win: bool = False, dice: int | None = None):
    """Advice at the table.

    Args:
        open_tiles: the open tile numbers.
        roll: the roll (see :meth:`BoxRules.roll_index`), or ``None`` for the
            dice choice before rolling.

    Returns:
        With a roll: DataFrame of every legal move, best first, columns
        ``cover``, ``tiles_left``, ``value`` (value of the state left, under
        ``objective``), ``best`` (True for every move as good as the first).  Without: DataFrame of the allowed dice
        counts with their values, best first.

    Raises:
        RulesError, ValueError: bad tiles, objective, or a roll that cannot
        happen (including dice the one-die rule does not allow there, STB-6).
    """
    s = rules.mask_of(open_tiles)
    if s == 0:
        raise RulesError("the box is already shut: there is nothing to advise")
    if roll is None and dice is not None:
        raise RulesError("--dice goes with --roll (the dice the roll was made with)")
    sol = solve(rules, objective, target, ties_win)
    terminal, sense = terminal_utility(rules, objective, target, ties_win)
    oc = rules.outcomes
    if roll is None:
        rows = []
        for d in (2, 1):
            if not rules.dice_allowed[s] & d:
                continue
            v = 0.0
            for o in range(oc.n):
                if oc.dice[o] != d:
                    continue
                m = int(sol.move[s, o])
                v += oc.weight[o] / (36.0 if d == 2 else 6.0) * (terminal[s] if m < 0 else sol.value[s ^ m])
            rows.append({"dice": d, "value": v})
        df = pd.DataFrame(rows).sort_values("value", ascending=(sense < 0), kind="stable").reset_index(drop=True)
        df["best"] = (df["value"] - df["value"].iloc[0]).abs() <= 1e-12
        df.attrs["objective"] = sol.label
        return df
    o = rules.roll_index(roll, dice, state=s)
    rows = []
    for m in rules.legal_moves(s, o):
        rows.append({"cover": rules.format_state(m), "tiles_left": rules.format_state(s ^ m),
                     "value": float(sol.value[s ^ m]), "_mask": m})
    df = pd.DataFrame(rows, columns=["cover", "tiles_left", "value", "_mask"])
    if len(df):
        df = df.sort_values(["value", "_mask"], ascending=[sense < 0, False], kind="stable").reset_index(drop=True)
    df["best"] = (df["value"] - df["value"].iloc[0]).abs() <= 1e-12 if len(df) else []
    df = df.drop(columns="_mask")
    df.attrs["objective"] = sol.label
    df.attrs["stop_value"] = float(terminal[s])
    return df
