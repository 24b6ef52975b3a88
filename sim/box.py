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

from ludolab.stdlib.box import BoxRules, RulesError  # noqa: F401

from .box_exact import (ENGINES, OBJECTIVES, Evaluation, Policy, Solution, advice_state, advise_rows,  # noqa: F401
                        evaluate, objective_label, rank_choices, rank_rows, solve, solve_utility, table_engine,
                        terminal_utility)
from .box_match import MAX_ROUNDS, MatchSolution, match_exact, simulate_rounds  # noqa: F401
from .box_montecarlo import SimResult, compare, simulate  # noqa: F401
from .box_policies import POLICY_NAMES, PolicyError, make_policy  # noqa: F401

# ------------------------------------------------------------------ advice
def advise(rules: BoxRules, open_tiles, roll=None, objective: str = "expected-score",
           target: int | None = None, ties_win: bool = False, dice: int | None = None):
    """Advice at the table: every legal move for a roll with its value, or the dice choice before the roll.

    Args:
        rules: the ruleset.
        open_tiles: the open tile numbers (any order, each once).
        roll: the roll (see :meth:`~ludolab.stdlib.box.BoxRules.roll_index`:
            a total ``7``, or the faces ``"3+4"`` for thai moves), or ``None``
            for the dice choice before rolling (STB-6).
        objective, target, ties_win: what the values are of (see
            :func:`~ludolab.sim.box_exact.terminal_utility`, STB-O1..STB-O3).
        dice: 1 or 2, the dice the roll was made with (``None``: inferred
            from the roll and the one-die rule).

    Returns:
        With a roll: DataFrame of every legal move, best first, columns
        ``cover`` (tiles covered, text ``"3,4"``), ``tiles_left`` (text,
        ``"shut"`` for none), ``value`` (value of the state left, under
        ``objective``: expected score or probability), ``best`` (True for
        every move within 1e-12 of the first); empty when no move is legal,
        with ``attrs['stop_value']`` the value of ending the turn there.
        Without a roll: DataFrame of the dice counts the one-die rule allows,
        ``dice`` (1 or 2), ``value``, ``best``, best first.  ``attrs['objective']``
        holds the objective's label.

    Raises:
        RulesError: tiles not in the box or repeated, a shut box, a dice count
        without a roll, or a roll that cannot happen (including dice the
        one-die rule does not allow there, STB-6); LudolabError: a bad
        objective or target.
    """
    import pandas as pd

    rows, columns, info = advise_rows(rules, open_tiles, roll, objective, target, ties_win, dice)
    df = pd.DataFrame(rows, columns=columns)
    if not len(df):
        df["best"] = []
    df.attrs.update(info)
    return df


# -------------------------------------------------------------- conformance
def _trace_record(rules: BoxRules, g: int, steps, final: int) -> dict:
    """One game as a JSON-able record: every roll with the open tiles, dice, roll and cover."""
    oc = rules.outcomes
    rolls = [{"open": list(rules.tiles_of(s)), "dice": int(d), "roll": str(oc.label[o]),
              "cover": None if m is None or m < 0 else list(rules.tiles_of(m))} for s, d, o, m in steps]
    return {"game": g, "rules": rules.to_dict(), "rolls": rolls, "final_open": list(rules.tiles_of(final)),
            "score": int(rules.scores[final])}


def _conformance_play(seed: int, games: int, engine: str) -> list:
    """Games 0..games-1 of one chunk under the random policy (random dice and moves), as records."""
    import numpy as np

    from . import box_kernels as K
    from . import box_reference as R
    from .box_montecarlo import _sim_args
    from .experiment import plan_run
    from .rng import py_game_state

    rules = BoxRules()
    pol = make_policy(rules, "random")
    key = int(plan_run(games, seed, 1).keys[0])
    out = []
    if engine == "kernel":
        trace = np.zeros((games, 64, 4), dtype=np.int64)
        n_steps = np.zeros(games, dtype=np.int64)
        final = np.zeros(games, dtype=np.int64)
        K._trace_games(np.uint64(key), 0, games, _sim_args(rules), pol.move, pol.dice, trace, n_steps, final)
        for g in range(games):
            steps = [(int(s), int(d), int(o), int(m)) for s, d, o, m in trace[g, :n_steps[g]]]
            out.append(_trace_record(rules, g, steps, int(final[g])))
    elif engine == "reference":
        for g in range(games):
            steps: list = []
            s, _ = R.play_turn(rules, pol, py_game_state(key, g), steps)
            out.append(_trace_record(rules, g, [(s0, d, o, m) for s0, d, o, m, _ in steps], s))
    else:
        raise ValueError(f"engine must be 'kernel' or 'reference', not {engine!r}")
    return out


def _conformance_check(rec: dict) -> None:
    """Invariants of one turn (STB-3..STB-8): covered tiles were open and add up to the roll,
    the dice were allowed, the turn ends exactly when no move is legal, the score is the open sum."""
    from ludolab.stdlib.box import parse_tiles

    rules = BoxRules(tiles=parse_tiles(rec["rules"]["tiles"]), one_die=rec["rules"]["one_die"])
    s = rules.full
    for k, r in enumerate(rec["rolls"]):
        assert rules.mask_of(r["open"]) == s, f"roll {k}: open tiles {r['open']} are not what is left"
        assert rules.dice_allowed[s] & r["dice"], f"roll {k}: {r['dice']} dice not allowed with {r['open']} (STB-6)"
        o = rules.roll_index(r["roll"], r["dice"], state=s)
        legal = rules.legal_moves(s, o)
        if r["cover"] is None:
            assert not legal, f"roll {k}: the turn ended though {len(legal)} moves were legal (STB-7)"
            assert k == len(rec["rolls"]) - 1, f"roll {k}: play went on after the turn ended"
            break
        m = rules.mask_of(r["cover"])
        assert m in legal, f"roll {k}: covering {r['cover']} is not legal for roll {r['roll']} (STB-4)"
        assert sum(r["cover"]) == int(r["roll"]), f"roll {k}: cover {r['cover']} does not add up to {r['roll']}"
        s ^= m
    assert rules.mask_of(rec["final_open"]) == s, "the final open tiles are not what is left"
    assert rec["score"] == sum(rec["final_open"]), "the score is not the sum of the open tiles (STB-8)"
    assert 0 <= rec["score"] <= sum(rules.tiles), "score out of bounds"


def _conformance_playthrough(seed: int) -> str:
    """Three turns of the optimal policy (min expected score, default rules), roll by roll."""
    from . import box_reference as R
    from .experiment import plan_run
    from .rng import py_game_state

    rules = BoxRules()
    pol = solve(rules).policy()
    key = int(plan_run(3, seed, 1).keys[0])
    oc = rules.outcomes
    lines = [f"Shut the Box, {rules.label()}; policy: optimal (min E[score]); seed {seed}"]
    for g in range(3):
        steps: list = []
        s, _ = R.play_turn(rules, pol, py_game_state(key, g), steps)
        lines.append(f"turn {g + 1}")
        for s0, d, o, m, _legal in steps:
            act = "no move: the turn ends" if m is None else f"cover {rules.format_state(m)}"
            lines.append(f"  open {rules.format_state(s0)}; {'one die' if d == 1 else 'two dice'} roll "
                         f"{oc.label[o]}: {act}")
        lines.append(f"  final open {rules.format_state(s) or '(shut)'}: score {int(rules.scores[s])}")
    return "\n".join(lines) + "\n"


def conformance():
    """The hooks of the shared conformance harness (:class:`ludolab.sim.conformance.Conformance`).

    Returns:
        ``Conformance(play, check, playthrough)``: seeded games of the random
        policy by the kernel and by the pure-Python twin, as JSON-able records;
        the per-turn invariants of STB-3..STB-8; and the golden playthrough text
        (three turns of the optimal policy, roll by roll).
    """
    from .conformance import Conformance

    return Conformance(_conformance_play, _conformance_check, _conformance_playthrough)


def step_game():
    """Shut the Box for the step-interface harness: see :func:`ludolab.sim.box_step.step_game`."""
    from .box_step import step_game as _step_game

    return _step_game()
