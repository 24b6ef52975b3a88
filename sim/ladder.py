"""A strength ladder on duplicate deals, over the step interface of any game.

Every contender plays the same deals (the same keys, so the same cards or dice
and, for the same decisions, the same random numbers) in every seat in turn,
with the other seats played by the baseline; the baseline itself plays the
same deals in every seat.  So each contender's result in a seat is paired with
the baseline's in that seat on that deal, and the comparison's 95% confidence
interval comes from the per-deal differences averaged over the seats (the
deals are independent, the seats of one deal are not).

Contenders are named policies (compiled ``act``), determinized search
(:mod:`ludolab.sim.search`: ``search`` for perfect-information Monte Carlo,
``tree`` for information-set MCTS) at a budget of playouts per decision, the
all-seeing bound (``all-seeing``: the same flat search given every hidden card,
an estimate of the ceiling and not a strategy; ``all-seeing-tree``: a tree
search of the seat's own decisions given every hidden card, the other seats
playing the rollout policy: its best reply to that field knowing every card
once the budget covers the seat's choices, and weaker than the flat search
where the budget is small beside the legal actions), or a Python function of the
observation and the legal actions (``python``: the documented slow path for a
user's own policy).

The rating is a Bradley-Terry strength fitted on the pairwise results at the
table: each game of a contender against the field counts, for each baseline
seat, 1 when the contender's return is better, 0 when worse and 1/2 on a tie.
Against a single anchor the maximum-likelihood strength is the logit of that
share (Bradley and Terry 1952; Hunter 2004 for the general fit), shown on the
Elo scale (400 log10 odds, the baseline at 0) with a delta-method CI from the
per-deal shares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ludolab.stdlib.errors import LudolabError

from . import play, search
from .rng import chunk_keys, game_state
from .stats import Z95


class PolicyError(LudolabError):
    """A contender's own (Python) policy misbehaved: it raised, or returned no legal action."""

CONTENDER_KINDS = ("named", "search", "tree", "all-seeing", "all-seeing-tree", "python")
_SALT = 0xA5A5_5A5A_0F0F_F0F0


@dataclass(frozen=True)
class Contender:
    """One rung of the ladder.

    Attributes:
        label: how tables name it.
        kind: one of :data:`CONTENDER_KINDS`.
        policy: ``(kind, params)`` of a named policy (``named``).
        budget: playouts per decision (``search``, ``tree``, ``all-seeing``, ``all-seeing-tree``).
        rollout: the named policy every seat plays in the playouts.
        objective: what a search's playout is worth to a seat (:data:`ludolab.sim.search.OBJECTIVES`):
            ``"points"`` its return, ``"wins"`` its share of the other seats it finishes ahead of.
        fn: ``fn(obs, legal) -> action`` for ``python``: obs the seat's observation and
            legal its legal actions (int64 numpy arrays, copies; the layouts are the game's
            kernels module's ``O_*`` offsets and action encoding); it returns one of ``legal``
            as an int (a :class:`PolicyError` otherwise, or when it raises).
    """

    label: str
    kind: str
    policy: tuple | None = None
    budget: int = 0
    rollout: tuple | None = None
    fn: Callable | None = None
    objective: str = "points"


class Table:
    """One game's rules for the ladder: the step game, a ruleset, the seat count."""

    def __init__(self, game, case):
        self.game = game
        self.k = game.kernels
        self.rules = case.rules
        self.n = case.n_players
        self.lower = bool(game.lower_wins)
        self.max_steps = int(game.max_steps(case.rules))
        self.low, self.high = (float(x) for x in game.return_bounds(case.rules))
        self._acts = np.zeros(self.k.MAX_ACTIONS, dtype=np.int64)

    def decide(self, c: Contender, state: np.ndarray, seat: int, key: int) -> int:
        """The action of contender ``c`` for ``seat`` in ``state`` (it reads only the seat's observation,
        except the all-seeing bound).

        Raises:
            ValueError: a Python policy returned an illegal action (naming it and the legal ones).
        """
        k = self.k
        obs = np.zeros(k.OBS_SIZE, dtype=np.int64)
        k.observe(self.rules, state, seat, obs)
        if c.kind == "named":
            return int(k.act(c.policy[0], c.policy[1], obs, state))
        if c.kind == "python":
            n = int(k.legal_actions(self.rules, state, self._acts))
            legal = [int(x) for x in self._acts[:n]]
            try:
                a = c.fn(obs.copy(), self._acts[:n].copy())
            except Exception as exc:  # noqa: BLE001 - the user's own code: said in one line
                raise PolicyError(f"policy {c.label} raised {type(exc).__name__}: {exc}") from None
            if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)) or int(a) not in legal:
                shown = ", ".join(map(str, legal[:12])) + (f", ... ({n} in all)" if n > 12 else "")
                raise PolicyError(f"policy {c.label} returned {a!r}: an action is one of the legal ints {shown}")
            return int(a)
        n = int(k.legal_actions(self.rules, state, self._acts))
        if n == 1:
            return int(self._acts[0])
        rollout = [c.rollout] * self.n
        mode = search.ALL_SEEING if c.kind.startswith("all-seeing") else search.SAMPLED
        if c.kind in ("tree", "all-seeing-tree"):
            cfg, params = search.config(k, seat, c.budget, self.n, self.lower, key, rollout, self.max_steps, mode,
                                        c.objective)
            work = search.ismcts_work(k, self.n, c.budget, self.max_steps)
            fcfg = search.ismcts_settings(self.low, self.high, own_only=c.kind == "all-seeing-tree")
            inp = (cfg, params, obs, state.copy(), fcfg)
            m = int(k.search_tree(self.rules, inp, work))
            return int(work[0][int(np.argmax(work[1][:m, 0]))])
        worlds = max(1, c.budget // n)
        cfg, params = search.config(k, seat, worlds, self.n, self.lower, key, rollout, self.max_steps, mode,
                                    c.objective)
        work = search.work_arrays(k, self.n)
        m = int(k.search(self.rules, (cfg, params, obs, state.copy()), work))
        return int(work[0][search.best_index(work[1], m)])

    def play(self, seats: list, key: int) -> np.ndarray:
        """One game of ``key`` with one contender per seat; returns float64 (P,)."""
        if all(c.kind == "named" for c in seats):
            ret, _ = play.run(self.k, self.rules, np.array([key], dtype=np.uint64), [c.policy for c in seats])
            return ret[0]
        k = self.k
        state = np.zeros(k.STATE_SIZE, dtype=np.int64)
        k.new_game(self.rules, np.uint64(key), state)
        step = 0
        while True:
            p = int(k.current_player(state))
            if p < 0:
                break
            a = self.decide(seats[p], state, p, int(game_state(np.uint64(key ^ _SALT), step)))
            k.apply_action(self.rules, state, a)
            step += 1
        ret = np.zeros(self.n)
        k.returns(self.rules, state, ret)
        return ret

    def seat_games(self, c: Contender, baseline: Contender, keys: list) -> np.ndarray:
        """float64 (deals, P, P): ``[d, s]`` the returns of every seat on deal d with contender ``c``
        in seat s and the baseline in the others."""
        out = np.zeros((len(keys), self.n, self.n))
        if c == baseline and c.kind == "named":  # every seat the same named policy: one game per deal
            out[:] = play.run(self.k, self.rules, np.array(keys, dtype=np.uint64), [c.policy] * self.n)[0][:, None, :]
            return out
        for s in range(self.n):
            seats = [baseline] * self.n
            seats[s] = c
            if all(x.kind == "named" for x in seats):
                out[:, s, :] = play.run(self.k, self.rules, np.array(keys, dtype=np.uint64),
                                        [x.policy for x in seats])[0]
            else:
                for d, key in enumerate(keys):
                    out[d, s, :] = self.play(seats, key)
        return out

    def seat_results(self, c: Contender, baseline: Contender, keys: list) -> np.ndarray:
        """float64 (deals, P): contender ``c``'s return in each seat, the baseline in the others."""
        return own_returns(self.seat_games(c, baseline, keys))

    def seat_shares(self, games: np.ndarray) -> np.ndarray:
        """float64 (deals, P): ``[d, s]`` the share of the baseline seats the contender beats (ties 1/2) on
        deal d when it sits in seat s; ``games`` as :meth:`seat_games` returns it."""
        out = np.zeros((games.shape[0], self.n))
        for s in range(self.n):
            mine = games[:, s, s][:, None]
            others = np.delete(games[:, s, :], s, axis=1)
            better = (others > mine) if self.lower else (others < mine)
            out[:, s] = (better.sum(axis=1) + 0.5 * (others == mine).sum(axis=1)) / others.shape[1]
        return out

    def pairwise(self, games: np.ndarray) -> np.ndarray:
        """float64 (deals,): per deal, the share of (seat, baseline seat) pairs the contender wins
        (ties 1/2), over the seats it sat in (:meth:`seat_shares` averaged over the seats)."""
        return self.seat_shares(games).sum(axis=1) / self.n


def own_returns(games: np.ndarray) -> np.ndarray:
    """float64 (deals, P): from :meth:`Table.seat_games`' (deals, P, P), the return of the seat the contender sat in."""
    return np.stack([games[:, s, s] for s in range(games.shape[1])], axis=1)


def deal_keys(seed: int, deals: int) -> list[int]:
    """The stream starts of deals 0..deals-1 of a ladder run (one chunk of :func:`chunk_keys`)."""
    k = chunk_keys(seed, 1)[0]
    return [int(game_state(k, g)) for g in range(int(deals))]


def _ci(x: np.ndarray) -> tuple[float, float, float]:
    m = float(x.mean())
    if len(x) < 2:
        return m, float("nan"), float("nan")
    h = Z95 * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, m - h, m + h


def _elo(q: float) -> float:
    """The Elo-scale strength of a pairwise share; NaN where it is undefined (a share of 0 or 1)."""
    if not 0 < q < 1:
        return float("nan")
    return 400.0 * math.log10(q / (1 - q))


def ladder(table: Table, contenders: list, baseline: Contender, deals: int = 200, seed: int = 0) -> list[dict]:
    """Every contender against the baseline on the same deals, seats rotated.

    Args:
        table: the game and ruleset (:class:`Table`).
        contenders: :class:`Contender` list (the baseline may be among them).
        deals: duplicate deals, each played once per seat per contender.

    Returns:
        One dict per contender: ``policy``, ``mean`` (its mean return over seats
        and deals), ``diff`` with ``ci_low``/``ci_high`` (the paired 95% CI of its
        return minus the baseline's in the same seat, in the game's units; for a
        game where lower is better, negative is better), ``share_changed`` (the share of games, deal by
        seat, whose return for that seat differs from the baseline's: how often the contender matters),
        ``win_share`` (pairs at
        the table won, ties half) with ``win_ci_low/high`` (its 95% CI over the deals), ``rating`` with ``rating_ci_low/high`` (NaN where the share or
        a CI end is 0 or 1: the strength is then unbounded).

    Raises:
        ValueError: deals < 2 or an unknown contender kind; PolicyError: a Python policy misbehaved.
    """
    if int(deals) < 2:
        raise ValueError(f"a ladder needs at least 2 deals for its CIs, not {deals}")
    for c in contenders:
        if c.kind not in CONTENDER_KINDS:
            raise ValueError(f"unknown contender kind {c.kind!r}: allowed {', '.join(CONTENDER_KINDS)}")
    keys = deal_keys(seed, deals)
    base_games = table.seat_games(baseline, baseline, keys)
    games = [base_games if c == baseline else table.seat_games(c, baseline, keys) for c in contenders]
    return ladder_rows(table, contenders, baseline, base_games, games)


def ladder_rows(table: Table, contenders: list, baseline: Contender, base_games: np.ndarray,
                games: list) -> list[dict]:
    """The rows of :func:`ladder` from games already played: ``base_games`` the baseline's and ``games[i]``
    contender i's, each float64 (deals, P, P) as :meth:`Table.seat_games` returns them on the same deals
    (so a ladder played in chunks, e.g. a resumable deep run, gives the rows of one uninterrupted run)."""
    base = own_returns(base_games)
    rows = []
    for c, g in zip(contenders, games):
        n = g.shape[0]
        mine = own_returns(g)
        d = (mine - base).mean(axis=1)
        diff, lo, hi = _ci(d)
        share = table.pairwise(g) if c != baseline else np.full(n, 0.5)
        q, qlo, qhi = _ci(share)
        rows.append({"policy": c.label, "mean": float(mine.mean()), "diff": diff, "ci_low": lo, "ci_high": hi,
                     "share_changed": float((mine != base).mean()), "win_share": q, "win_ci_low": qlo,
                     "win_ci_high": qhi, "rating": _elo(q),
                     "rating_ci_low": _elo(qlo), "rating_ci_high": _elo(qhi),
                     "deals": n, "_per_deal": d})
    chain = skill_chain(rows, bool(table.game.lower_wins))
    for r in rows:
        r.pop("_per_deal")
        r.update(chain[r["policy"]])
    return rows


def skill_chain(rows: list[dict], lower: bool) -> dict:
    """The skill chain of a ladder: its rungs from strongest to weakest, and whether each is told apart from
    the next one down by the paired 95% CI of their difference on the same deals (excluding 0).

    Each rung's per-deal value is its return minus the baseline's in the same seat, averaged over seats
    (``_per_deal`` of the rows :func:`ladder` builds), so two rungs' values are paired deal by deal and
    their difference's CI is that of the per-deal differences.  The chain's length is the number of
    neighbouring rungs so told apart (Ludii's "skill trace" counts the same steps of a strength ladder).

    Args:
        rows: dicts with ``policy``, ``diff`` and ``_per_deal`` (float (deals,)); lower: True where a lower
            return is better.

    Returns:
        ``{policy: {"rung", "separated_below", "below_diff", "below_ci_low", "below_ci_high", "skill_chain"}}``:
        rung 1 is the strongest; ``separated_below`` whether the CI of this rung minus the next one excludes 0
        (None for the last rung); ``skill_chain`` the chain's length (the same on every row).
    """
    sign = -1.0 if lower else 1.0
    order = sorted(rows, key=lambda r: (-sign * r["diff"], r["policy"]))
    out, links = {}, 0
    for i, r in enumerate(order):
        rec = {"rung": i + 1, "separated_below": None, "below_diff": float("nan"), "below_ci_low": float("nan"),
               "below_ci_high": float("nan")}
        if i + 1 < len(order):
            m, lo, hi = _ci(sign * (r["_per_deal"] - order[i + 1]["_per_deal"]))
            sep = bool(lo > 0 or hi < 0)
            links += sep
            rec.update({"separated_below": sep, "below_diff": m, "below_ci_low": lo, "below_ci_high": hi})
        out[r["policy"]] = rec
    for rec in out.values():
        rec["skill_chain"] = links
    return out


def chain_text(rows: list[dict]) -> str:
    """The skill chain in one line, strongest first: ``a > b ~ c`` (``>`` told apart from the next rung
    down, ``~`` not), from rows carrying :func:`skill_chain`'s ``rung`` and ``separated_below``."""
    chain = sorted(rows, key=lambda r: r["rung"])
    return chain[0]["policy"] + "".join((" > " if a["separated_below"] else " ~ ") + b["policy"]
                                        for a, b in zip(chain, chain[1:]))


MAX_DOUBLINGS = 6


def saturate(table: Table, make: Callable[[int], Contender], baseline: Contender, start: int, tolerance: float,
             deals: int = 200, seed: int = 0, max_doublings: int = MAX_DOUBLINGS) -> dict:
    """Double a search's budget until one more doubling gains less than ``tolerance``.

    Each budget plays the same deals against the baseline field; the gain of a
    doubling is the paired per-deal difference of the two budgets' returns (in
    the seat they sat in, averaged over seats), signed so that positive is
    better.  The budget is saturated when that gain's 95% CI lies below
    ``tolerance`` (and is not of width 0, which a handful of alike deals can give).

    Returns:
        ``{"saturated_budget": b or None, "steps": [{"budget", "gain", "ci_low", "ci_high"}, ...]}``;
        ``saturated_budget`` None when ``max_doublings`` doublings all still gained.
    """
    keys = deal_keys(seed, deals)
    sign = -1.0 if table.lower else 1.0
    b = int(start)
    prev = table.seat_results(make(b), baseline, keys)
    steps = []
    for _ in range(int(max_doublings)):
        nxt = table.seat_results(make(2 * b), baseline, keys)
        x = sign * (nxt - prev).mean(axis=1)
        gain, lo, hi = _ci(x)
        steps.append({"budget": 2 * b, "gain": gain, "ci_low": lo, "ci_high": hi})
        if hi < tolerance and np.ptp(x) > 0:  # a CI of width 0 (every deal alike) proves nothing
            return {"saturated_budget": b, "steps": steps}
        b, prev = 2 * b, nxt
    return {"saturated_budget": None, "steps": steps}
