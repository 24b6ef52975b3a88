"""Shut the Box by Monte Carlo: one policy (with confidence intervals) and several
policies on the same dice (common random numbers), through the generic runner."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ludolab.stdlib.box import BoxRules
from ludolab.stdlib.errors import LudolabError

from .box_exact import Policy, evaluate
from .experiment import DEFAULT_CHUNKS
from .runner import RunSpec, run, run_total
from .stats import Estimate, mean_ci, paired_from_moments, wilson_ci

# ---------------------------------------------------------------- Monte Carlo
@dataclass
class SimResult:
    """Monte Carlo result of one policy.

    Attributes:
        policy: the policy played.
        counts: int64 (n_states,): games ending with the open tiles s (``counts[0]``: shut).
        provenance: ``seed``, ``games`` and ``chunks`` of the run.
    """

    policy: Policy
    counts: np.ndarray
    provenance: dict

    @property
    def games(self) -> int:
        """Number of games played."""
        return int(self.counts.sum())

    def mean(self, scoring: str | None = None) -> Estimate:
        """Mean final score with its 95% confidence interval.

        The interval is clipped to the score range, and undefined (NaN) for one game.

        Args:
            scoring: ``None`` for the ruleset's scoring, or another one (STB-8).

        Returns:
            :class:`~ludolab.sim.stats.Estimate` in points of the scoring.
        """
        sc = (self.policy.rules.scores if scoring is None else self.policy.rules.scores_under(scoring)).astype(float)
        return mean_ci(self.games, float(self.counts @ sc), float(self.counts @ (sc * sc)),
                       bounds=(float(sc.min()), float(sc.max())))

    def p_shut(self) -> Estimate:
        """P(shut) with its 95% Wilson interval.

        Returns:
            :class:`~ludolab.sim.stats.Estimate`, a probability.
        """
        return wilson_ci(int(self.counts[0]), self.games)

    def p_below(self, target: int, ties_win: bool = False) -> Estimate:
        """P(score < target), or P(score <= target) with ``ties_win``, with its 95% Wilson interval (STB-O3).

        Returns:
            :class:`~ludolab.sim.stats.Estimate`, a probability.
        """
        sc = self.policy.rules.scores
        hit = (sc <= target) if ties_win else (sc < target)
        return wilson_ci(int(self.counts[hit].sum()), self.games)

    def distribution(self) -> pd.Series:
        """The observed distribution of the final score.

        Returns:
            float64 Series ``frequency`` indexed by ``score`` (scores met at least once).
        """
        import pandas as pd

        sc = self.policy.rules.scores
        s = pd.Series(self.counts).groupby(sc).sum() / self.games
        s.index.name = "score"
        s.name = "frequency"
        return s[s > 0]


def _sim_args(rules: BoxRules):
    oc = rules.outcomes
    return (rules.full, rules.dice_allowed, oc.draw_map1, oc.draw_map2, oc.cand_start, oc.cand_masks)


def _ties(policy: Policy) -> np.ndarray:
    """The policy's tie groups (int64, flat; see :mod:`ludolab.sim.box_kernels`), a dummy when it has none."""
    ties = getattr(policy, "ties", None)
    return np.zeros(1, dtype=np.int64) if ties is None else np.ascontiguousarray(ties, dtype=np.int64)


def paired_args(rules, policies, scores: np.ndarray) -> tuple:
    """The arguments of ``box_kernels._simulate_paired_t`` after the chunk keys and game ranges:
    the rules' outcome tables, every policy's moves, dice choices and tie groups, and the score
    (float64, one per state) that the paired sums accumulate."""
    ties = [_ties(p) for p in policies]
    tie_start = np.concatenate([[0], np.cumsum([len(t) for t in ties])]).astype(np.int64)
    return (_sim_args(rules), np.stack([p.move for p in policies]), np.stack([p.dice for p in policies]),
            np.concatenate(ties), tie_start, scores)


def is_deterministic(policy: Policy) -> bool:
    """True when the policy makes no random choice: every move a fixed move or none, every dice count fixed."""
    return bool(policy.move.min(initial=0) >= -1 and policy.dice.min(initial=1) >= 1)


#: The most bytes a transition table may take (the fast kernels' lookup): beyond it, and beyond
#: the policy's own tables, the general kernel plays the same games with the same numbers.
MAX_TABLE_BYTES = 256 * 2**20


def transition_table_bytes(rules: BoxRules) -> int:
    """Bytes of the transition table :func:`transition_table` would build for ``rules``."""
    item = 2 if rules.n_tiles <= 14 else 4
    return int(rules.n_states) * len(rules.outcomes.draw_map2) * item


def fast_table_fits(policy: Policy) -> bool:
    """Whether the fast kernel's transition table is small: at most :data:`MAX_TABLE_BYTES` or
    the size of the policy's own tables, so a simulation never needs more memory than the
    exact solver of the same rules (its result is the same either way)."""
    own = int(policy.move.nbytes) + int(policy.dice.nbytes)
    return transition_table_bytes(policy.rules) <= max(MAX_TABLE_BYTES, own)


def transition_table(policy: Policy) -> tuple[np.ndarray, np.ndarray]:
    """A policy without random choices as the tables of the fast kernel.

    Returns:
        ``(bound, trans)``: int64 (n_states,), the size of the draw of the dice
        rolled in each state (36 for two dice of 2d6, 6 for one die);
        int16 (int32 beyond 14 tiles) (n_states, len(draw_map2)): after draw u
        in state s, ``2 * next + f`` with ``next`` the open tiles left and f 1
        when ``next`` rolls one die; -1 where no move is legal (the turn ends).

    Raises:
        LudolabError: the policy makes random choices.
    """
    if not is_deterministic(policy):
        raise LudolabError(f"policy {policy.label} makes random choices: it has no transition table")
    from . import box_kernels as K

    rules = policy.rules
    oc = rules.outcomes
    bound = np.zeros(rules.n_states, dtype=np.int64)
    trans = np.zeros((rules.n_states, len(oc.draw_map2)), dtype=np.int16 if rules.n_tiles <= 14 else np.int32)
    K._transitions(rules.full, oc.draw_map1, oc.draw_map2, policy.move, policy.dice, bound, trans)
    return bound, trans


def simulate(policy: Policy, games: int, seed: int = 0, chunks: int = DEFAULT_CHUNKS,
             progress: bool | None = False) -> SimResult:
    """Monte Carlo of ``games`` turns under ``policy`` (numba, parallel over chunks).

    Args:
        policy: a :class:`~ludolab.sim.box_exact.Policy` (move and dice tables).
        games: number of turns, 1..10**12.
        seed: root seed (>= 0); chunks: how the run is cut, 1..4096 (the
            result depends on seed and chunks only, never on the thread count
            or on how the runner slices the work).
        progress: show a progress bar (``None``: only on a terminal).

    Returns:
        :class:`SimResult` (counts of final states, int64 (n_states,)).

    The fast kernel (one transition-table lookup per roll) is used only where its table is
    small (:func:`fast_table_fits`); both kernels give the same counts.

    Raises:
        LudolabError: bad games, seed or chunks.
    """
    rules = policy.rules
    if is_deterministic(policy) and fast_table_fits(policy):  # one table lookup per roll, the same dice
        kernel, args = "ludolab.sim.box_kernels:_simulate_fast", (rules.full, *transition_table(policy))
    else:
        kernel = "ludolab.sim.box_kernels:_simulate_t"
        args = (_sim_args(rules), policy.move, policy.dice, _ties(policy))
    spec = RunSpec("box", kernel, args, (rules.n_states,), "int64", games, seed, chunks, label="box",
                   metric="ludolab.sim.metrics:weighted_mean", metric_args=(rules.scores,))
    counts = run_total(spec, progress)  # summed wave by wave: no (chunks, states) array
    return SimResult(policy, counts, spec.provenance())


def compare(policies: list[Policy], games: int, seed: int = 0, chunks: int = DEFAULT_CHUNKS,
            progress: bool | None = False) -> pd.DataFrame:
    """Compare policies exactly and by paired Monte Carlo (common random numbers).

    Every policy plays the same games (game g of chunk c uses the same dice
    stream for all), so differences to the first policy are paired.

    Returns:
        DataFrame, one row per policy: ``policy``, exact ``mean_score``,
        ``sd_score``, ``p_shut``; Monte Carlo ``mc_mean_score`` with CI; and
        ``diff_vs_first`` (mean paired score difference to the first policy)
        with its 95% CI bounds.

    Raises:
        LudolabError: fewer than one policy, policies for different rules.
    """
    import pandas as pd

    if not policies:
        raise LudolabError("compare needs at least one policy")
    rules = policies[0].rules
    if any(p.rules != rules for p in policies):
        raise LudolabError("all compared policies must be for the same rules")
    scores = rules.scores.astype(np.float64)
    k = len(policies)
    if all(is_deterministic(p) for p in policies) and \
            transition_table_bytes(rules) * k <= max(MAX_TABLE_BYTES, sum(p.move.nbytes for p in policies)):
        tables = [transition_table(p) for p in policies]
        args = (rules.full, np.stack([b for b, _ in tables]), np.stack([t for _, t in tables]), scores)
        kernel = "ludolab.sim.box_kernels:_simulate_paired_fast"
    else:
        args = paired_args(rules, policies, scores)
        kernel = "ludolab.sim.box_kernels:_simulate_paired_t"
    spec = RunSpec("box", kernel, args, (k, k + 1), "float64", games, seed, chunks, label="compare")
    sums = run(spec, progress).sum(axis=0)
    n = spec.plan().n_games
    rows = []
    span = float(scores.max() - scores.min())
    for a, pol in enumerate(policies):
        ev = evaluate(pol)
        mc = mean_ci(n, sums[a, k], sums[a, a], bounds=(float(scores.min()), float(scores.max())))
        diff = paired_from_moments(n, sums, 0, a, bounds=(-span, span))
        rows.append({
            "policy": pol.label,
            "mean_score": ev.mean(), "sd_score": ev.sd(), "p_shut": ev.p_shut,
            **mc.as_dict("mc_mean_score"), **diff.as_dict("diff_vs_first"),
        })
    df = pd.DataFrame(rows)
    df.attrs.update(spec.provenance())
    return df
