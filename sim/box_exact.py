"""Shut the Box solved and evaluated exactly: objectives, the dynamic programme over
every set of open tiles, and the forward pass that gives any policy's whole score
distribution.  Clause ids (``STB-n``, ``STB-On``) refer to ``seeds/shut_the_box.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ludolab.stdlib.box import BoxRules
from ludolab.stdlib.errors import LudolabError

OBJECTIVES = ("expected-score", "shut", "beat")
#: The solver engines: ``kernel`` (the compiled backward induction, every study's) and ``python``
#: (the same function uncompiled, :func:`ludolab.sim.box_dp.solve_dp`: the same values to the last bit).
ENGINES = ("kernel", "python")
#: The largest box (in states, 2^tiles) that the commands answered at the table solve with the
#: ``python`` engine: up to 12 tiles it finishes (about 0.03 s for 9 tiles, 0.25 s for 12) before
#: numba could be imported and its kernel loaded from the cache (about 0.5 s); above, the kernel.
PYTHON_ENGINE_MAX_STATES = 1 << 12


# ---------------------------------------------------------------- objectives
def terminal_utility(rules: BoxRules, objective: str = "expected-score", target: int | None = None,
                     ties_win: bool = False) -> tuple[np.ndarray, float]:
    """Utility of ending a turn in each state, and the sense of the objective.

    Args:
        rules: the ruleset (its ``score`` rule is used, STB-8).
        objective: ``expected-score`` (STB-O1, minimise), ``shut`` (STB-O2,
            maximise the probability to shut) or ``beat`` (STB-O3, maximise
            P(score < target); with ``ties_win`` P(score <= target)).
        target: the score to beat, required for ``beat``.

    Returns:
        ``(terminal, sense)``: float64 array (n_states,), and +1.0 (maximise)
        or -1.0 (minimise).

    Raises:
        LudolabError: unknown objective, missing or negative target.
    """
    if objective not in OBJECTIVES:
        raise LudolabError(f"unknown objective {objective!r}: allowed are {', '.join(OBJECTIVES)}")
    scores = rules.scores
    if objective == "expected-score":
        if target is not None:
            raise LudolabError("a target score applies only to the objective 'beat'")
        return scores.astype(np.float64), -1.0
    if objective == "shut":
        if target is not None:
            raise LudolabError("a target score applies only to the objective 'beat'")
        u = np.zeros(rules.n_states)
        u[0] = 1.0
        return u, 1.0
    if target is None:
        raise LudolabError("the objective 'beat' needs a target score T")
    if isinstance(target, bool) or int(target) != target or target < 0:
        raise LudolabError(f"the target must be a whole number >= 0, not {target}")
    if target == 0 and not ties_win:
        raise LudolabError("no score is below 0, so target 0 cannot be beaten: use a target >= 1 "
                         "(or count a tie with the target as a win, to play to shut)")
    hit = scores <= target if ties_win else scores < target
    return hit.astype(np.float64), 1.0


def objective_label(objective: str, target: int | None = None, ties_win: bool = False,
                    adversarial: bool = False) -> str:
    """Human label of an objective: ``min E[score]``, ``max P(shut)``, ``max P(score < 10)``, ...

    Args:
        objective: ``expected-score``, ``shut`` or ``beat`` (STB-O1..STB-O3).
        target: the score T to beat (used only for ``beat``).
        ties_win: ``beat`` counts a score equal to T as a win (``<=`` in the label).
        adversarial: the worst play instead (STB-O4): min and max swap.

    Returns:
        The label, as shown in tables and provenance.
    """
    if objective == "expected-score":
        text = "max E[score]" if adversarial else "min E[score]"
    elif objective == "shut":
        text = "min P(shut)" if adversarial else "max P(shut)"
    else:
        op = "<=" if ties_win else "<"
        text = f"{'min' if adversarial else 'max'} P(score {op} {target})"
    return text


# ------------------------------------------------------------------- policies
@dataclass
class Policy:
    """A policy compiled to a lookup table (what the kernels play).

    Attributes:
        name: catalogue name (``optimal``, ``greedy-high``, ...).
        rules: the ruleset the table is for.
        move: int16, int32 beyond 15 tiles (:attr:`BoxRules.move_dtype`),
            (n_states, n_outcomes): tiles to cover (bitmask), -1 when no move
            is legal, -2 for a uniformly random legal move, ``-3 - j`` for a
            uniformly random move of tie group j (see ``ties``).
        dice: int8 (n_states,): dice to roll (1 one die, 2 the full roll), 0 for random.
        info: provenance (objective, target, source file, ...).
        ties: ``None``, or int64 (flat): the tie groups of a policy that breaks
            ties at random; group j is ``ties[j]`` = k followed by the k tied
            moves (bitmasks).
    """

    name: str
    rules: BoxRules
    move: np.ndarray
    dice: np.ndarray
    info: dict = field(default_factory=dict)
    ties: np.ndarray | None = None

    @property
    def stochastic(self) -> bool:
        """True when the policy makes random choices (random moves, tie groups or random dice)."""
        return bool(self.move.min(initial=0) < -1 or self.dice.min(initial=1) < 1)

    @property
    def label(self) -> str:
        """Name shown in tables: ``info['policy']`` when set, else ``name``."""
        return self.info.get("policy", self.name)


@dataclass
class Solution:
    """Result of :func:`solve`.

    Attributes:
        value: float64 (n_states,): the value of every state (expected score,
            P(shut) or P(beat) from that state on, under optimal play).
        move: int16 (n_states, n_outcomes): the optimal move for every
            (state, roll outcome); -1 where no move is legal.
        dice: int8 (n_states,): the optimal number of dice in every state.
        value_exact: list of Fraction (n_states,) when solved with ``exact``.
    """

    rules: BoxRules
    objective: str
    target: int | None
    ties_win: bool
    adversarial: bool
    value: np.ndarray
    move: np.ndarray
    dice: np.ndarray
    value_exact: list | None = None

    @property
    def start_value(self) -> float:
        """Value of the start state (every tile open)."""
        return float(self.value[self.rules.full])

    @property
    def start_value_exact(self) -> Fraction | None:
        """Value of the start state as an exact :class:`~fractions.Fraction` (``None`` unless solved ``exact``)."""
        return None if self.value_exact is None else self.value_exact[self.rules.full]

    @property
    def label(self) -> str:
        """The objective's label (:func:`objective_label`), e.g. ``max P(shut)``."""
        return objective_label(self.objective, self.target, self.ties_win, self.adversarial)

    def policy(self) -> Policy:
        """The optimal (or, adversarial, the worst) policy as a table.

        Returns:
            :class:`Policy` named ``optimal`` or ``worst``, with copies of :attr:`move`
            (int16, (n_states, n_outcomes)) and :attr:`dice` (int8, (n_states,)); its
            ``info`` records the objective, target, ties_win and adversarial flags.
        """
        name = "worst" if self.adversarial else "optimal"
        return Policy(name, self.rules, self.move.copy(), self.dice.copy(),
                      {"objective": self.objective, "target": self.target, "ties_win": self.ties_win,
                       "adversarial": self.adversarial})


def _kernel_args(rules: BoxRules):
    oc = rules.outcomes
    return oc, rules.dice_allowed


def table_engine(rules: BoxRules) -> str:
    """The engine a command answered at the table solves ``rules`` with: ``python`` for a box of at
    most :data:`PYTHON_ENGINE_MAX_STATES` states, else ``kernel`` (the same answer either way)."""
    return "python" if rules.n_states <= PYTHON_ENGINE_MAX_STATES else "kernel"


def solve_utility(rules: BoxRules, terminal: np.ndarray, sense: float, engine: str = "kernel"):
    """Dynamic programming over all 2^N states for a general terminal utility (STB-3..STB-7).

    Args:
        rules: the ruleset (tiles, one-die rule, moves).
        terminal: float64 (n_states,): utility of a turn ending in each state.
        sense: +1.0 maximise the expected utility, -1.0 minimise it.
        engine: ``kernel`` (compiled) or ``python`` (the same function uncompiled: no numba is
            loaded; slower, see :data:`PYTHON_ENGINE_MAX_STATES`); the results are identical.

    Returns:
        ``(value, move, dice)`` as in :class:`Solution`: float64 (n_states,),
        int16 (n_states, n_outcomes) with -1 where no move is legal, int8
        (n_states,) with the number of dice to roll.  Moves within 1e-12 of the best
        tie and go to the move with the highest tiles; tied dice counts to two
        dice.

    Raises:
        LudolabError: an unknown engine.
    """
    if engine == "python":
        from .box_dp import solve_dp
    elif engine == "kernel":
        from .box_kernels import _solve_p as solve_dp
    else:
        raise LudolabError(f"unknown engine {engine!r}: allowed are {', '.join(ENGINES)}")
    oc, allowed = _kernel_args(rules)
    n = rules.n_states
    value = np.zeros(n)
    move = np.zeros((n, oc.n), dtype=rules.move_dtype)
    dice = np.zeros(n, dtype=np.int8)
    solve_dp(n, (oc.dice, oc.prob, oc.cand_start, oc.cand_masks), allowed,
             np.ascontiguousarray(terminal, dtype=np.float64), float(sense), value, move, dice)
    return value, move, dice


def solve(rules: BoxRules, objective: str = "expected-score", target: int | None = None,
          ties_win: bool = False, adversarial: bool = False, exact: bool = False,
          engine: str = "kernel") -> Solution:
    """Solve Shut the Box exactly for one objective (STB-O1..STB-O4).

    Args:
        rules: the ruleset.
        objective: ``expected-score``, ``shut`` or ``beat`` (see
            :func:`terminal_utility`); ``target`` and ``ties_win`` for beat.
        adversarial: play the worst moves and dice instead (STB-O4).
        exact: also compute the value of every state as a Fraction with the
            pure-Python reference solver (slow for 12 tiles: seconds).
        engine: ``kernel`` or ``python`` (see :func:`solve_utility`; the same solution).

    Returns:
        :class:`Solution` with the value of every state, the optimal move for
        every (state, roll) and the dice choice for every state.

    Raises:
        LudolabError: see :func:`terminal_utility`.
    """
    terminal, sense = terminal_utility(rules, objective, target, ties_win)
    if adversarial:
        sense = -sense
    value, move, dice = solve_utility(rules, terminal, sense, engine)
    sol = Solution(rules, objective, target, ties_win, adversarial, value, move, dice)
    if exact:
        from .box_reference import solve_exact

        sol.value_exact = solve_exact(rules, objective, target, ties_win, adversarial)
    return sol


# ----------------------------------------------------------- exact evaluation
@dataclass
class Evaluation:
    """Exact distribution of the end of a turn under a policy (forward pass).

    Attributes:
        final: float64 (n_states,): probability that the turn ends with open
            tiles s; ``final[0]`` is the probability to shut the box.
        visit: float64 (n_states,): probability that the turn reaches state s.
    """

    policy: Policy
    final: np.ndarray
    visit: np.ndarray

    @property
    def rules(self) -> BoxRules:
        """The ruleset of the evaluated policy."""
        return self.policy.rules

    def _scores(self, scoring: str | None) -> np.ndarray:
        return self.rules.scores if scoring is None else self.rules.scores_under(scoring)

    def mean(self, scoring: str | None = None) -> float:
        """Expected final score, in points of the scoring (STB-8).

        Args:
            scoring: ``None`` for the ruleset's own scoring, or another of
                ``sum``, ``count``, ``digital``, ``all-or-nothing``.
        """
        return float(self.final @ self._scores(scoring))

    def sd(self, scoring: str | None = None) -> float:
        """Standard deviation of the final score, in points of the scoring (STB-8).

        Args:
            scoring: as in :meth:`mean`.
        """
        sc = self._scores(scoring).astype(np.float64)
        m = self.final @ sc
        return float(math.sqrt(max(self.final @ (sc * sc) - m * m, 0.0)))

    @property
    def p_shut(self) -> float:
        """Probability that the turn shuts the box (every tile covered, STB-7)."""
        return float(self.final[0])

    def p_below(self, target: int, ties_win: bool = False, scoring: str | None = None) -> float:
        """P(score < target), or P(score <= target) with ``ties_win`` (STB-O3, STB-10).

        Args:
            target: the score T, in points of the scoring.
            scoring: as in :meth:`mean`.
        """
        sc = self._scores(scoring)
        return float(self.final[(sc <= target) if ties_win else (sc < target)].sum())

    def distribution(self, scoring: str | None = None) -> pd.Series:
        """The exact distribution of the final score.

        Args:
            scoring: as in :meth:`mean`.

        Returns:
            float64 Series ``probability`` indexed by ``score`` (every score with a
            positive probability, increasing); the probabilities add up to 1.
        """
        import pandas as pd

        sc = self._scores(scoring)
        s = pd.Series(self.final).groupby(sc).sum()
        s.index.name = "score"
        s.name = "probability"
        return s[s > 0]


def evaluate(policy: Policy) -> Evaluation:
    """Exact evaluation of any policy: the whole distribution of the final state (forward pass).

    Args:
        policy: a :class:`Policy` (move table, dice table; random entries are
            averaged over, each legal move or dice count equally likely, and a
            tie group's moves each weighed by their share: a stochastic policy
            is evaluated exactly).

    Returns:
        :class:`Evaluation` with ``final`` and ``visit``, float64 (n_states,)
        probabilities; mean, sd, P(shut), P(score < T), distribution.
    """
    rules = policy.rules
    oc, allowed = _kernel_args(rules)
    final = np.zeros(rules.n_states)
    visit = np.zeros(rules.n_states)
    ties = getattr(policy, "ties", None)
    ties = np.zeros(1, dtype=np.int64) if ties is None else np.ascontiguousarray(ties, dtype=np.int64)
    from . import box_kernels as K

    K._evaluate_p(rules.full, (oc.dice, oc.prob, oc.cand_start, oc.cand_masks), allowed,
                  policy.move, policy.dice, ties, final, visit)
    return Evaluation(policy, final, visit)


def advice_state(rules: BoxRules, open_tiles, roll, dice) -> int:
    """The open-tiles bitmask an advice starts from, after the checks every advice makes.

    Raises:
        RulesError: tiles not in the box or repeated, a shut box, or a dice count
            without a roll (the dice count goes with the roll it was made with).
    """
    from ludolab.stdlib.box import RulesError

    s = rules.mask_of(open_tiles)
    if s == 0:
        raise RulesError("the box is already shut: there is nothing to advise")
    if roll is None and dice is not None:
        raise RulesError("a dice count goes with a roll (the dice the roll was made with); before the roll "
                         "the advice is the dice choice itself")
    return s


def rank_choices(rules: BoxRules, s: int, roll, dice, value: np.ndarray, move: np.ndarray, stop: float,
                 sense: float, column: str = "value"):
    """Every choice in open-tiles state ``s`` with its value, best first (the advice tables).

    Args:
        s: the open tiles (bitmask, not 0); roll, dice: the roll and its dice
            (see :meth:`BoxRules.roll_index`), or ``roll=None`` for the dice choice
            before rolling; value: float64 (n_states,) value of every state and
            move: int (n_states, n_outcomes) the move played there, from a solve;
            stop: the value of ending the turn in ``s``; sense: +1.0 when higher is
            better, -1.0 when lower is; column: name of the value column.

    Returns:
        With a roll: DataFrame of every legal move, columns ``cover``, ``tiles_left``,
        ``column`` and ``best`` (True for every move as good as the first); ties go to
        the move with the highest tiles.  Without: DataFrame of the dice counts the
        one-die rule allows (STB-6), columns ``dice``, ``column``, ``best``.

    Raises:
        RulesError: a roll that cannot happen with these dice in this state.
    """
    import pandas as pd

    rows, columns = rank_rows(rules, s, roll, dice, value, move, stop, sense, column)
    df = pd.DataFrame(rows, columns=columns)
    if not len(df):
        df["best"] = []
    return df


def rank_rows(rules: BoxRules, s: int, roll, dice, value: np.ndarray, move: np.ndarray, stop: float,
              sense: float, column: str = "value") -> tuple[list[dict], list[str]]:
    """The rows of :func:`rank_choices` as plain dicts, best first, and their column names
    (``best`` included): the same values, order and ties, without pandas (the advice commands
    print a few lines and need nothing more).

    Raises:
        RulesError: a roll that cannot happen with these dice in this state.
    """
    sign = 1.0 if sense < 0 else -1.0  # sort keys ascending: best first
    if roll is None:
        oc = rules.outcomes
        rows = []
        for d in (2, 1):
            if not rules.dice_allowed[s] & d:
                continue
            v = 0.0
            for o in range(oc.n):
                if oc.dice[o] != d:
                    continue
                m = int(move[s, o])
                v += oc.prob[o] * (stop if m < 0 else value[s ^ m])
            rows.append({"dice": d, column: float(v)})
        rows.sort(key=lambda r: sign * r[column])
        columns = ["dice", column, "best"]
    else:
        o = rules.roll_index(roll, dice, state=s)
        rows = [{"cover": rules.format_state(m), "tiles_left": rules.format_state(s ^ m),
                 column: float(value[s ^ m]), "_mask": m} for m in rules.legal_moves(s, o)]
        rows.sort(key=lambda r: (sign * r[column], -r["_mask"]))
        for r in rows:
            del r["_mask"]
        columns = ["cover", "tiles_left", column, "best"]
    for r in rows:
        r["best"] = bool(abs(r[column] - rows[0][column]) <= 1e-12)
    return rows, columns


def advise_rows(rules: BoxRules, open_tiles, roll=None, objective: str = "expected-score",
                target: int | None = None, ties_win: bool = False, dice: int | None = None,
                engine: str = "kernel"):
    """:func:`ludolab.sim.box.advise` as (rows, columns, info) without pandas, for the command at
    the table; ``engine`` solves the box (see :func:`solve_utility`: the same rows either way).

    Returns:
        rows: dicts, best first, with the columns of :func:`ludolab.sim.box.advise`; columns: their
        names; info: ``objective`` (the label) and, with a roll, ``stop_value``, what
        :func:`ludolab.sim.box.advise` puts in ``attrs``.

    Raises:
        As :func:`ludolab.sim.box.advise`; LudolabError: an unknown engine.
    """
    s = advice_state(rules, open_tiles, roll, dice)
    sol = solve(rules, objective, target, ties_win, engine=engine)
    terminal, sense = terminal_utility(rules, objective, target, ties_win)
    rows, columns = rank_rows(rules, s, roll, dice, sol.value, sol.move, float(terminal[s]), sense)
    info = {"objective": sol.label}
    if roll is not None:
        info["stop_value"] = float(terminal[s])
    return rows, columns, info
