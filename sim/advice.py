"""Advice at one decision of any game: every legal action with its value and a 95% CI, best first.

The value of an action is the mean outcome, for the seat to act, of sampled
worlds consistent with what that seat knows (its observation, through the
game's ``determinize``), with the action played and the game then played to
its end by a continuation policy for every seat (the game's best named
heuristic unless another is given).  This is perfect-information Monte Carlo
(:func:`ludolab.sim.search.pimc`) with one world per call, so each world's
value of every action is kept: all actions of one world meet the same cards
and dice to come (common random numbers), and the comparison of the best
action with the second is a paired one, by the report's rule
(:func:`ludolab.analysis.findings.compare`).

Values are in the game's own units (``returns`` of the step interface):
points, or Beverbende's penalty points, where the lowest is best.  A search's
visit counts are never used as values.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ludolab.stdlib.errors import LudolabError, SituationError


#: Worlds sampled per decision when neither a budget nor a half-width is given.
DEFAULT_WORLDS = 200
#: The most worlds any advice samples (``--max-worlds`` may lower it).
MAX_WORLDS = 1_000_000


@dataclass(frozen=True)
class Advice:
    """The ranked legal actions of one decision.

    Attributes:
        actions: int64 (n,), the legal actions, best first.
        mean: float64 (n,), each action's expected return for the seat (game units).
        ci_low, ci_high: float64 (n,), its 95% confidence interval.
        worlds: the sampled worlds behind every value (the budget used).
        continuation: the name of the policy every seat plays after the action.
        lower_is_better: True where the lowest return is best (Beverbende).
        measure: the key of :data:`ludolab.analysis.findings.TOLERANCES` the verdict uses.
        diff, diff_low, diff_high: best minus second (in the direction where positive
            means the best is better), with its paired 95% CI; NaN with one legal action.
        verdict: ``better``, ``equally good`` or ``cannot tell yet`` (best against the
            second), or None with one legal action.
        seconds: the wall time of the search.
        seat, n_players: whose decision, at a table of how many.
        half_width: the half-width asked for (None: a fixed budget).
    """

    actions: np.ndarray
    mean: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    worlds: int
    continuation: str
    lower_is_better: bool
    measure: str
    diff: float
    diff_low: float
    diff_high: float
    verdict: str | None
    seconds: float
    seat: int
    n_players: int
    half_width: float | None = None

    def rows(self, label=str) -> list[dict]:
        """One dict per action, best first: ``rank``, ``action`` (its label), ``code`` (the int),
        ``value``, ``ci_low``, ``ci_high``.

        Args:
            label: ``label(action: int) -> str``.
        """
        return [{"rank": i + 1, "action": label(int(a)), "code": int(a), "value": float(m),
                 "ci_low": float(lo), "ci_high": float(hi)}
                for i, (a, m, lo, hi) in enumerate(zip(self.actions, self.mean, self.ci_low, self.ci_high))]

    def verdict_line(self, label=str) -> str:
        """The verdict in words: the best action against the second at the budget used."""
        if self.verdict is None:
            return f"only one legal action: {label(int(self.actions[0]))}"
        first, second = label(int(self.actions[0])), label(int(self.actions[1]))
        gap = f"{self.diff:+.3g} (95% CI {self.diff_low:+.3g} to {self.diff_high:+.3g})"
        word = {"better": "is better than", "equally good": "is equally good as",
                "cannot tell yet": "cannot yet be told from"}[self.verdict]
        more = " (more worlds would decide: --budget or --half-width)" if self.verdict == "cannot tell yet" else ""
        return f"{first} {word} {second} at {self.worlds:,} worlds: gap {gap}{more}"


def _continuation(game, continuation, rules):
    if continuation is None:
        continuation = game.extra.get("best")
    if isinstance(continuation, str):
        if continuation not in game.policies:
            raise LudolabError(f"continuation policy {continuation!r}: use one of {', '.join(sorted(game.policies))}")
        # a game may give its named policies' parameters for a ruleset (the same play, faster)
        hook = game.extra.get("policies_for")
        return continuation, (hook(rules) if hook is not None else game.policies)[continuation]
    name, policy = continuation
    return str(name), policy


def advise(game, rules: np.ndarray, n_players: int, seat: int, obs: np.ndarray, *, measure: str,
           budget: int | None = None, half_width: float | None = None, max_worlds: int = 20_000,
           continuation=None, key: int = 0, lower_is_better: bool | None = None) -> Advice:
    """Rank the legal actions of ``seat`` at the decision its observation ``obs`` describes.

    Args:
        game: the game's :class:`ludolab.sim.step.StepGame` (``step_game()`` of its face).
        rules: the int64 rules array of the game being advised.
        n_players: seats at the table.
        seat: the seat to act (0-based); ``obs`` must be its observation at a decision.
        obs: int64 (OBS_SIZE,), exactly as the kernels' ``observe`` writes it.
        measure: a key of :data:`ludolab.analysis.findings.TOLERANCES` (the unit's tolerance
            for "equally good").
        budget: worlds to sample (default :data:`DEFAULT_WORLDS`); the start when ``half_width`` is given.
        half_width: double the worlds until the best action's 95% CI half-width (game units)
            is at most this, or ``max_worlds`` is reached.
        max_worlds: the most worlds ``half_width`` may ask for.
        continuation: a policy name of ``game.policies`` or ``(name, (kind, params))``; default
            the game's best heuristic (``game.extra["best"]``).
        key: the search's stream start (the same key gives the same advice).
        lower_is_better: the direction of the returns under these rules; None: the game's
            ``lower_wins`` (a scoring that turns it, Beverbende's win-count, passes False).

    Returns:
        :class:`Advice`.

    Raises:
        LudolabError: a budget or half-width out of range, or an unknown continuation.
        SituationError: an observation at which ``seat`` has no decision (the game is over, or
            another seat acts), or whose worlds disagree on the legal actions.
    """
    from ludolab.analysis.findings import compare  # the report's one comparison rule

    from . import search  # numba: imported when advice is asked for, not with the command line
    from .rng import game_state
    from .stats import Z95

    k = game.kernels
    if budget is not None and not 2 <= int(budget) <= MAX_WORLDS:
        raise LudolabError(f"budget {budget}: the worlds to sample must be 2 (the fewest that give a CI) "
                           f"to {MAX_WORLDS:,}")
    if half_width is not None and not (math.isfinite(half_width) and half_width > 0):
        raise LudolabError(f"half-width {half_width}: a positive number of the game's points is needed")
    if not 2 <= int(max_worlds) <= MAX_WORLDS:
        raise LudolabError(f"max worlds {max_worlds}: must be 2 to {MAX_WORLDS:,}")
    obs = np.ascontiguousarray(obs, dtype=np.int64)
    if obs.shape != (k.OBS_SIZE,):
        raise SituationError(f"an observation of {k.OBS_SIZE} ints is needed, not shape {obs.shape}")
    name, policy = _continuation(game, continuation, rules)
    lower = bool(game.lower_wins) if lower_is_better is None else bool(lower_is_better)
    max_steps = int(game.max_steps(rules))
    worlds = int(budget) if budget is not None else DEFAULT_WORLDS
    if half_width is not None:
        worlds = min(worlds, int(max_worlds))
    cfg, params = search.config(k, seat, 1, n_players, lower, 0, [policy] * n_players, max_steps)
    work = search.work_arrays(k, n_players)
    actions, sums = work[0], work[1]
    truth = np.zeros(k.STATE_SIZE, dtype=np.int64)
    # the seat must be the one to act in every world: check on the first
    probe = np.zeros(k.STATE_SIZE, dtype=np.int64)
    k.determinize(rules, obs, seat, search._i64(int(game_state(np.uint64(key), np.uint64(0)))), probe)
    if k.current_player(probe) != seat:
        who = int(k.current_player(probe))
        raise SituationError(f"no decision for the seat advised (index {seat}, counted from 0) here: "
                             + ("the game is over" if who < 0 else f"the seat of index {who} is to act"))
    t0 = time.perf_counter()
    rows: list[np.ndarray] = []
    legal = None
    base = np.uint64(key)
    while True:
        for w in range(len(rows), worlds):
            cfg[search.C_KEY] = search._i64(int(game_state(base, w)))
            n = int(k.search(rules, (cfg, params, obs, truth), work))
            if legal is None:
                legal = actions[:n].copy()
            elif n != len(legal) or not np.array_equal(actions[:n], legal):
                raise SituationError("the observation does not fix the legal actions: the situation is inconsistent")
            rows.append(sums[:n, 0].copy())
        vals = np.array(rows)  # (worlds, n), higher is better for the seat
        mean = vals.mean(axis=0)
        se = vals.std(axis=0, ddof=1) / math.sqrt(len(rows)) if len(rows) > 1 else np.full(len(mean), np.inf)
        order = np.lexsort((legal, -mean))
        if half_width is None or Z95 * se[order[0]] <= half_width or worlds >= max_worlds:
            break
        worlds = min(2 * worlds, int(max_worlds))
    seconds = time.perf_counter() - t0
    sign = -1.0 if lower else 1.0
    m = sign * mean[order]
    h = Z95 * se[order]
    lo, hi = m - h, m + h
    diff = d_lo = d_hi = float("nan")
    verdict = None
    if len(order) > 1:
        d = vals[:, order[0]] - vals[:, order[1]]
        diff = float(d.mean())
        dh = Z95 * float(d.std(ddof=1)) / math.sqrt(len(d)) if len(d) > 1 else float("inf")
        d_lo, d_hi = diff - dh, diff + dh
        if math.isfinite(dh):
            verdict = compare(diff, d_lo, d_hi, measure, lower_is_better=False)
        else:
            verdict = "cannot tell yet"
        if verdict == "worse":  # the best by mean cannot be worse than the second
            verdict = "cannot tell yet"
    return Advice(actions=legal[order].copy(), mean=m, ci_low=lo, ci_high=hi, worlds=len(rows), continuation=name,
                  lower_is_better=lower, measure=measure, diff=diff, diff_low=d_lo, diff_high=d_hi, verdict=verdict,
                  seconds=seconds, seat=int(seat), n_players=int(n_players),
                  half_width=None if half_width is None else float(half_width))
