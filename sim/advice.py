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

In an endgame small enough the advice is exact over the hidden information: where the game lists
every world consistent with the observation (``extra["enumerate_worlds"]`` of its step game,
:mod:`ludolab.sim.worlds`) and there are at most :data:`DEFAULT_EXACT_WORLDS` of them, each action
is played once in every world, with equal weights, instead of in sampled worlds; when nothing after
the action draws a random number the values and the gap are exact (CIs of zero width).

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
#: Enumerate every consistent world, instead of sampling, when there are at most this many
#: (an endgame: a Shut The Books hand's last tricks answer well within 2 s).
DEFAULT_EXACT_WORLDS = 4_096
#: The fewest passes over an endgame's consistent worlds when the play after the action draws random
#: numbers (the CIs are over the passes' means).
MIN_PASSES = 8


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
        seconds: the wall time of the search (the worlds' listing included).
        seat, n_players: whose decision, at a table of how many.
        half_width: the half-width asked for (None: a fixed budget).
        consistent_worlds: N when every world consistent with the observation was played, each
            once per pass (None: the worlds were sampled).
        exact: True when the values are exact over those worlds (no continuation drew a random
            number): zero-width CIs, and the verdict from the exact difference.
        passes: how many times the consistent worlds were played (1 when exact; the CIs are then
            over the passes, the continuation's randomness).
        exact_needs: N when the N consistent worlds were few enough for exact advice but
            ``max_worlds`` was below N, so they were sampled instead (None otherwise).
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
    consistent_worlds: int | None = None
    exact: bool = False
    passes: int = 1
    exact_needs: int | None = None

    def worlds_line(self) -> str:
        """The worlds behind the values, in words: ``all 36 consistent worlds (exact)``, or the sampled count."""
        if self.consistent_worlds is None:
            return f"{self.worlds:,} sampled worlds"
        every = f"all {self.consistent_worlds:,} consistent worlds"
        if self.exact:
            return f"{every} (exact)"
        return f"{every}, played {self.passes} times (the continuation draws random numbers: CIs over them)"

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
        if self.exact:
            gap = f"{self.diff:+.3g} (exact)"
        else:
            gap = f"{self.diff:+.3g} (95% CI {self.diff_low:+.3g} to {self.diff_high:+.3g})"
        word = {"better": "is better than", "equally good": "is equally good as",
                "cannot tell yet": "cannot yet be told from"}[self.verdict]
        more = " (more worlds would decide: --budget or --half-width)" if self.verdict == "cannot tell yet" else ""
        if self.consistent_worlds is None:
            at = f"{self.worlds:,} worlds"
        else:  # the gap says whether it is exact
            at = f"all {self.consistent_worlds:,} consistent worlds" + ("" if self.exact else f" x {self.passes} passes")
        return f"{first} {word} {second} at {at}: gap {gap}{more}"


def _continuation(game, continuation, rules):
    if continuation is None:
        continuation = game.extra.get("best")
    if isinstance(continuation, str):
        if continuation not in game.policies:
            raise LudolabError(f"continuation policy {continuation!r}: use one of {', '.join(sorted(game.policies))}")
        # a game may give its named policies' parameters for a ruleset (the same play, faster)
        hook = game.extra.get("policies_for")
        return continuation, (hook(rules) if hook is not None else game.policies)[continuation]
    if hasattr(continuation, "kind"):  # a ladder contender (ludolab.sim.ladder.Contender)
        if continuation.kind == "named":
            return continuation.label, continuation.policy
        return continuation.label, continuation
    name, policy = continuation
    return str(name), policy


def _check_budget(budget, half_width, max_worlds, exact_worlds) -> None:
    if budget is not None and not 2 <= int(budget) <= MAX_WORLDS:
        raise LudolabError(f"budget {budget}: the worlds to sample must be 2 (the fewest that give a CI) "
                           f"to {MAX_WORLDS:,}")
    if half_width is not None and not (math.isfinite(half_width) and half_width > 0):
        raise LudolabError(f"half-width {half_width}: a positive number of the game's points is needed")
    if not 2 <= int(max_worlds) <= MAX_WORLDS:
        raise LudolabError(f"max worlds {max_worlds}: must be 2 to {MAX_WORLDS:,}")
    if not 0 <= int(exact_worlds) <= MAX_WORLDS:
        raise LudolabError(f"exact worlds {exact_worlds}: must be 0 (always sample) to {MAX_WORLDS:,}")


class _Evaluator:
    """One decision's search set up once: each call values every legal action in one world."""

    def __init__(self, game, rules, n_players, seat, obs, policy, key, lower):
        from . import search  # numba: imported when advice is asked for, not with the command line

        k = self.k = game.kernels
        self.search, self.rules, self.obs, self.seat = search, rules, obs, int(seat)
        self.base = np.uint64(key)
        self.cfg, self.params = search.config(k, seat, 1, n_players, bool(lower), 0,
                                              [policy] * n_players, int(game.max_steps(rules)))
        self.work = search.work_arrays(k, n_players)
        self.truth = np.zeros(k.STATE_SIZE, dtype=np.int64)
        self.legal = None

    def check_seat(self, state) -> None:
        """Raises SituationError when ``seat`` is not the one to act in ``state``."""
        who = int(self.k.current_player(state))
        if who != self.seat:
            raise SituationError(f"no decision for the seat advised (index {self.seat}, counted from 0) here: "
                                 + ("the game is over" if who < 0 else f"the seat of index {who} is to act"))

    def probe(self) -> None:
        """The seat must be the one to act in every world: checked on one sampled world."""
        from .rng import py_game_state  # the kernel's stream, without loading one more kernel

        probe = np.zeros(self.k.STATE_SIZE, dtype=np.int64)
        self.k.determinize(self.rules, self.obs, self.seat, self.search._i64(py_game_state(int(self.base), 0)), probe)
        self.check_seat(probe)

    def values(self, w: int, world: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
        """Every legal action's return for the seat (higher is better) in world ``w``: sampled from the
        observation, or ``world`` itself (its stream started from ``w``); and whether the last action's
        continuation drew no random number."""
        from .rng import py_game_state

        s = self.search
        self.cfg[s.C_KEY] = s._i64(py_game_state(int(self.base), int(w)))
        self.cfg[s.C_MODE] = s.SAMPLED if world is None else s.ALL_SEEING
        if world is not None:
            self.truth[:] = world
        n = int(self.k.search(self.rules, (self.cfg, self.params, self.obs, self.truth), self.work))
        actions, sums, start, end = self.work[0], self.work[1], self.work[2], self.work[3]
        if self.legal is None:
            self.legal = actions[:n].copy()
        elif n != len(self.legal) or not np.array_equal(actions[:n], self.legal):
            raise SituationError("the observation does not fix the legal actions: the situation is inconsistent")
        return sums[:n, 0].copy(), bool(end[self.k.S_RNG] == start[self.k.S_RNG])


class _SlowEvaluator(_Evaluator):
    """:class:`_Evaluator` with any ladder contender as the continuation (a search, the all-seeing bound,
    a Python function of the observation): each world's actions are played out one decision at a time
    through :meth:`ludolab.sim.ladder.Table.decide`, every seat reading only its own observation (the
    all-seeing bound apart).  The worlds, their streams and the values are those of the compiled path:
    with a named policy as the contender both give the same numbers bit for bit."""

    def __init__(self, game, rules, n_players, seat, obs, contender, key, lower):
        from types import SimpleNamespace

        from .ladder import Table

        placeholder = game.policies[game.extra.get("best") or next(iter(game.policies))]
        super().__init__(game, rules, n_players, seat, obs, placeholder, key, lower)
        self.contender = contender
        self.table = Table(game, SimpleNamespace(rules=rules, n_players=int(n_players)))
        self.table.lower = bool(lower)  # a search in the continuation plays to the advice's direction
        self.world = np.zeros(self.k.STATE_SIZE, dtype=np.int64)
        self.acts = np.zeros(self.k.MAX_ACTIONS, dtype=np.int64)
        self.ret = np.zeros(int(n_players))

    def values(self, w: int, world: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
        """As :meth:`_Evaluator.values`, played in Python; "quiet" also needs a continuation that draws
        no random number of its own (a named policy or a Python function)."""
        from .ladder import _SALT
        from .rng import game_state, py_game_state

        k, s = self.k, self.search
        key = py_game_state(py_game_state(int(self.base), int(w)), 0)  # the compiled path's world stream
        if world is None:
            k.determinize(self.rules, self.obs, self.seat, s._i64(key), self.world)
        else:
            self.world[:] = world
            self.world[int(self.cfg[s.C_SRNG])] = s._i64(key)
        n = int(k.legal_actions(self.rules, self.world, self.acts))
        if self.legal is None:
            self.legal = self.acts[:n].copy()
        elif n != len(self.legal) or not np.array_equal(self.acts[:n], self.legal):
            raise SituationError("the observation does not fix the legal actions: the situation is inconsistent")
        out, sim = np.zeros(n), self.world.copy()
        for i in range(n):
            sim[:] = self.world
            k.apply_action(self.rules, sim, int(self.legal[i]))
            step = 0
            while step < int(self.cfg[s.C_MAXSTEPS]):
                p = int(k.current_player(sim))
                if p < 0:
                    break
                a = self.table.decide(self.contender, sim, p, int(game_state(np.uint64(key ^ _SALT), step)))
                k.apply_action(self.rules, sim, a)
                step += 1
            k.returns(self.rules, sim, self.ret)
            out[i] = s.py_value(self.ret, self.seat, self.cfg)
        quiet = int(sim[k.S_RNG]) == int(self.world[k.S_RNG])  # the last action's playout, as compiled
        return out, quiet and self.contender.kind in ("named", "python")


def _sampled(ev: _Evaluator, worlds: int, half_width, max_worlds: int) -> np.ndarray:
    """(worlds, n) values of sampled worlds, doubled until the best action's CI is ``half_width``."""
    from .stats import Z95

    rows: list[np.ndarray] = []
    while True:
        rows.extend(ev.values(w)[0] for w in range(len(rows), worlds))
        vals = np.array(rows)
        mean = vals.mean(axis=0)
        se = vals.std(axis=0, ddof=1) / math.sqrt(len(rows)) if len(rows) > 1 else np.full(len(mean), np.inf)
        best = np.lexsort((ev.legal, -mean))[0]
        if half_width is None or Z95 * se[best] <= half_width or worlds >= max_worlds:
            return vals
        worlds = min(2 * worlds, int(max_worlds))


def _enumerated(ev: _Evaluator, states: np.ndarray, budget, half_width, max_worlds: int):
    """Values over every consistent world: ``(vals, passes, exact)``.

    ``exact`` when no continuation drew a random number (every world's values are the same under
    a second stream, and the last action's playout left the stream untouched): ``vals`` (N, n) is
    then every world once.  Otherwise the world set is played again under fresh streams, at least
    :data:`MIN_PASSES` times (a CI over two passes that happen to agree would have width 0), doubling
    with ``half_width``: ``vals`` (passes, n) holds each pass's mean over the worlds.
    """
    from .stats import Z95

    N = len(states)
    first = [ev.values(w, states[w]) for w in range(N)]
    vals = np.array([v for v, _ in first])
    still = all(quiet for _, quiet in first)
    if still:
        again = [ev.values(N + w, states[w]) for w in range(N)]
        still = all(q for _, q in again) and np.array_equal(vals, np.array([v for v, _ in again]))
        if still:
            return vals, 1, True
        means = [vals.mean(axis=0), np.mean([v for v, _ in again], axis=0)]
    else:
        means = [vals.mean(axis=0)]
    passes = max(MIN_PASSES, int(budget or 0) // N)
    while True:
        for p in range(len(means), passes):
            means.append(np.mean([ev.values(p * N + w, states[w])[0] for w in range(N)], axis=0))
        m = np.array(means)
        se = m.std(axis=0, ddof=1) / math.sqrt(len(m))
        best = np.lexsort((ev.legal, -m.mean(axis=0)))[0]
        if half_width is None or Z95 * se[best] <= half_width or 2 * passes * N > max_worlds:
            return m, passes, False
        passes *= 2


def _verdict(vals: np.ndarray, order, measure: str, exact: bool) -> tuple:
    """Best minus second with its paired 95% CI, and the report's word for it (None: one action)."""
    from ludolab.analysis.findings import compare  # the report's one comparison rule

    from .stats import Z95

    if len(order) < 2:
        return float("nan"), float("nan"), float("nan"), None
    d = vals[:, order[0]] - vals[:, order[1]]
    diff = float(d.mean())
    if exact:
        dh = 0.0
    else:
        dh = Z95 * float(d.std(ddof=1)) / math.sqrt(len(d)) if len(d) > 1 else float("inf")
    if not math.isfinite(dh):
        return diff, diff - dh, diff + dh, "cannot tell yet"
    verdict = compare(diff, diff - dh, diff + dh, measure, lower_is_better=False)
    # the best by mean cannot be worse than the second
    return diff, diff - dh, diff + dh, "cannot tell yet" if verdict == "worse" else verdict


def _consistent_worlds(game, rules, obs, seat, limit: int):
    """The game's list of the worlds consistent with ``obs`` (None: the game gives none, or limit 0).

    Raises:
        SituationError: an observation no world fits, in the game's words.
    """
    enum = game.extra.get("enumerate_worlds")
    if enum is None or limit <= 0:
        return None
    try:
        return enum(rules, obs, int(seat), limit)
    except ValueError as e:
        raise SituationError(f"the situation is inconsistent: {e}") from None


def advise(game, rules: np.ndarray, n_players: int, seat: int, obs: np.ndarray, *, measure: str,
           budget: int | None = None, half_width: float | None = None, max_worlds: int = 20_000,
           continuation=None, key: int = 0, exact_worlds: int = DEFAULT_EXACT_WORLDS,
           lower_is_better: bool | None = None) -> Advice:
    """Rank the legal actions of ``seat`` at the decision its observation ``obs`` describes.

    Where the game enumerates its consistent worlds (``game.extra["enumerate_worlds"]``, see
    :mod:`ludolab.sim.worlds`) and there are at most ``min(exact_worlds, max_worlds)`` of them, every
    action is played in every world once (uniform weights: the distribution ``determinize`` samples
    from) instead of in sampled worlds.  When no continuation draws a random number the values are
    then exact (CIs of zero width, ``Advice.exact``); otherwise the world set is played again under
    fresh streams and the CIs are over the continuation's randomness alone.

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
        max_worlds: the most worlds ``half_width`` may ask for, and the most consistent worlds enumerated.
        continuation: a policy name of ``game.policies``, ``(name, (kind, params))``, or any
            :class:`ludolab.sim.ladder.Contender` (a search, the all-seeing bound, a Python function of
            the observation: played one decision at a time in Python, the slow path); default the
            game's best heuristic (``game.extra["best"]``).
        key: the search's stream start (the same key gives the same advice).
        exact_worlds: enumerate the consistent worlds when there are at most this many
            (default :data:`DEFAULT_EXACT_WORLDS`; 0 always samples).
        lower_is_better: the direction of the returns under these rules; None: the game's
            ``lower_wins`` (a scoring that turns it, Beverbende's win-count, passes False).

    Returns:
        :class:`Advice`.

    Raises:
        LudolabError: a budget or half-width out of range, or an unknown continuation.
        SituationError: an observation at which ``seat`` has no decision (the game is over, or
            another seat acts), or whose worlds disagree on the legal actions, or that no world fits.
    """
    _check_budget(budget, half_width, max_worlds, exact_worlds)
    k = game.kernels
    obs = np.ascontiguousarray(obs, dtype=np.int64)
    if obs.shape != (k.OBS_SIZE,):
        raise SituationError(f"an observation of {k.OBS_SIZE} ints is needed, not shape {obs.shape}")
    name, policy = _continuation(game, continuation, rules)
    lower = bool(game.lower_wins) if lower_is_better is None else bool(lower_is_better)
    slow = _SlowEvaluator if hasattr(policy, "kind") else _Evaluator
    ev = slow(game, rules, n_players, seat, obs, policy, key, lower)
    t0 = time.perf_counter()
    found = _consistent_worlds(game, rules, obs, seat, min(int(exact_worlds), int(max_worlds)))
    listed = found is not None and found.states is not None and found.count > 0
    try:
        ev.check_seat(found.states[0]) if listed else ev.probe()
    except ValueError as e:  # the game's determinize finds no world
        raise SituationError(f"the situation is inconsistent: {e}") from None
    if found is not None and found.count == 0:
        raise SituationError("no arrangement of the unseen cards is consistent with the observation")
    passes, exact, count = 1, False, None
    if listed:
        vals, passes, exact = _enumerated(ev, found.states, budget, half_width, max_worlds)
        count = int(found.count)
    else:
        worlds = int(budget) if budget is not None else DEFAULT_WORLDS
        vals = _sampled(ev, min(worlds, int(max_worlds)), half_width, max_worlds)  # never more than asked
    seconds = time.perf_counter() - t0
    adv = _ranked(ev, vals, exact, name, measure, seconds, n_players, half_width,
                  worlds=len(vals) if count is None else count * passes, consistent=count, passes=passes)
    if not listed and found is not None and found.count <= int(exact_worlds):
        from dataclasses import replace

        adv = replace(adv, exact_needs=int(found.count))  # max_worlds alone kept the advice from being exact
    return adv


def _ranked(ev, vals, exact, name, measure, seconds, n_players, half_width, worlds, consistent, passes) -> Advice:
    from .stats import Z95

    lower = bool(ev.cfg[ev.search.C_LOWER])
    mean = vals.mean(axis=0)
    if exact:
        se = np.zeros(len(mean))
    else:
        se = vals.std(axis=0, ddof=1) / math.sqrt(len(vals)) if len(vals) > 1 else np.full(len(mean), np.inf)
    order = np.lexsort((ev.legal, -mean))
    sign = -1.0 if lower else 1.0
    m = sign * mean[order]
    h = Z95 * se[order]
    diff, d_lo, d_hi, verdict = _verdict(vals, order, measure, exact)
    return Advice(actions=ev.legal[order].copy(), mean=m, ci_low=m - h, ci_high=m + h, worlds=int(worlds),
                  continuation=name, lower_is_better=lower, measure=measure, diff=diff, diff_low=d_lo,
                  diff_high=d_hi, verdict=verdict, seconds=seconds, seat=ev.seat, n_players=int(n_players),
                  half_width=None if half_width is None else float(half_width), consistent_worlds=consistent,
                  exact=bool(exact), passes=int(passes))
