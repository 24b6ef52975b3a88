"""Shut the Box match play solved exactly: every turn played for the best chance to
win the match, given every player's running total and the rounds left (STB-11) or
the elimination threshold (STB-12), with the seat order of STB-9 (STB-O5).

The match is a dynamic programme over the players' totals.  Each node is a
situation before a turn (who is to play, every total, the rounds left); its
value is every seat's chance to win (and to tie) the match from there.  At a
node the player to move turns the values of the situations after the turn into
a utility of the final score of the turn, and the per-turn solver
(:func:`~ludolab.sim.box_exact.solve_utility`, the same one every objective
uses) finds the play that maximises it; the exact forward pass
(:func:`~ludolab.sim.box_exact.evaluate`) gives the distribution of that turn's
score.  A seat may also play each turn for the lowest expected score (STB-O1,
the ``lowest`` play, the catalogue's ``optimal``): then its score distribution
is the same on every turn.

Public functions:

- :func:`match_play` solves one match (2 players; 3 where it fits, see
  :data:`MAX_NODES`) and gives each seat's exact chance to win and to tie.
- :func:`adaptive_gain_table` (for the report): what playing for the match
  gains over playing each turn for the lowest score, exactly, seat by seat.
- :func:`advise_match` ranks the legal moves (or the dice choice) of one turn
  by the chance to win the match; :func:`match_decisions` (for the report)
  lists where the move for the match differs from the move for the lowest
  score, and what it is worth.
- :func:`simulate_match_play` plays matches roll by roll with the solved
  policies (Monte Carlo with 95% confidence intervals), as a check of the
  exact figures; with :func:`adaptive_play`, three players where the exact
  match is too large play the solved 2-player match against their strongest
  opponent (:class:`HeadsUpPlay`).

Clause ids (``STB-n``, ``STB-On``) refer to ``seeds/shut_the_box.md``.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import numpy as np

from ludolab.stdlib.box import BoxRules
from ludolab.stdlib.errors import LudolabError

from .box_exact import Policy, advice_state, evaluate, rank_choices, solve, solve_utility

PLAYS = ("adaptive", "lowest")
#: the largest number of situations (nodes) one exact match may hold; beyond it the
#: tool refuses and points to simulation.  About a minute of work for 9 tiles (3 players,
#: 3 rounds hold about 38,000; 2 players, elimination at 45, about 6,000).
MAX_NODES = 100_000
LOST = -1  # rounds: a seat that can no longer win or tie (its total no longer matters)
OUT = -1  # elimination: a seat that is out of the game (STB-12)
_TOL = 1e-14


class MatchPlayError(LudolabError):
    """A match that cannot be solved as asked; the message names what is allowed."""


@contextmanager
def _deep_recursion(limit: int = 100_000):
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _whole(value, what: str, lo: int, hi: int | None = None) -> int:
    whole = not isinstance(value, bool) and isinstance(value, (int, np.integer))
    if not whole or value < lo or (hi is not None and value > hi):
        span = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise MatchPlayError(f"{what} must be a whole number {span}, not {value!r}")
    return int(value)


class MatchPlay:
    """The solved match: every seat's chance to win from any situation (STB-11, STB-12, STB-O5).

    Built by :func:`match_play`; nodes are solved when first asked for and kept.

    Attributes:
        rules: the ruleset; players: 2..3; rounds: rounds of the match (STB-11)
            or ``None`` for elimination at ``threshold`` (STB-12);
        ties_win: a shared lowest total counts as a win to the player choosing
            its play (the figures still report sole wins and ties apart);
        play: per seat, ``adaptive`` (plays each turn for the match) or
            ``lowest`` (plays each turn for the lowest expected score, STB-O1);
        domain: int64 (n_scores,) the distinct scores of a turn, increasing;
        base_px: float64 (n_scores,) the score distribution of the ``lowest`` play.
    """

    def __init__(self, rules: BoxRules, players: int, rounds: int | None, threshold: int | None,
                 ties_win: bool, play: tuple, max_nodes: int = MAX_NODES):
        self.rules = rules
        self.players = players
        self.rounds = rounds
        self.threshold = threshold
        self.ties_win = bool(ties_win)
        self.play = play
        self.max_nodes = max_nodes
        scores = rules.scores
        self.domain = np.unique(scores)
        self.idx = np.searchsorted(self.domain, scores)
        self.top = int(self.domain[-1])
        self._dom = [int(x) for x in self.domain]
        self._base = solve(rules).policy()
        self.base_px = self._px(evaluate(self._base).final)
        self._memo: dict = {}
        self._terminals: dict = {}
        self._node_turn: dict = {}  # node -> index into _turns (adaptive movers)
        self._turn_of: dict = {}  # utility bytes -> index into _turns
        self._turns: list = []  # (utility over the domain, score distribution)
        self._tv = 1.0 if ties_win else 0.0

    # ------------------------------------------------------------- helpers
    def _px(self, final: np.ndarray) -> np.ndarray:
        return np.bincount(self.idx, weights=final, minlength=len(self.domain))

    @property
    def n_nodes(self) -> int:
        """Situations solved so far."""
        return len(self._memo)

    @property
    def n_turn_solves(self) -> int:
        """Distinct per-turn utilities met so far: each is solved once (one call of the per-turn
        solver), except where the match does not care about the turn's score."""
        return len(self._turns)

    def _turn(self, u: np.ndarray) -> int:
        key = u.tobytes()
        t = self._turn_of.get(key)
        if t is None:
            if float(u.max() - u.min()) <= 1e-15:
                px = self.base_px  # the match does not care: play for the lowest score
            else:
                _, move, dice = solve_utility(self.rules, u[self.idx], 1.0)
                px = self._px(evaluate(Policy("match", self.rules, move, dice)).final)
            t = len(self._turns)
            self._turns.append((u.copy(), px))
            self._turn_of[key] = t
        return t

    def turn_policy(self, node) -> Policy:
        """The policy of the player to move at ``node`` (a table, see :class:`~ludolab.sim.box_exact.Policy`).

        For a seat that plays ``lowest``, or where the match no longer depends
        on the turn, the policy for the lowest expected score.
        """
        self.value(node)
        t = self._node_turn.get(node)
        if t is None:
            return self._base
        u, _ = self._turns[t]
        if float(u.max() - u.min()) <= 1e-15:
            return self._base
        _, move, dice = solve_utility(self.rules, u[self.idx], 1.0)
        return Policy("match", self.rules, move, dice, {"policy": "adaptive (plays for the match)"})

    def policy_for(self, rounds_left: int | None, seat: int, totals, out) -> Policy:
        """The policy seat ``seat`` (0-based) plays in a situation given as play sees it: ``totals``
        (every seat's running total), ``out`` (bools, elimination: out of the game) and, for
        rounds, the rounds left counting the current one.  Policies are kept for reuse."""
        if self.rounds is not None:
            node = self._norm_rounds(rounds_left, seat, list(totals))
        else:
            node = (seat, tuple(OUT if out[i] else totals[i] for i in range(self.players)))
        if isinstance(node, np.ndarray):
            return self._base
        with _deep_recursion():
            self.value(node)
        t = self._node_turn.get(node)
        if t is None:
            return self._base
        cache = self.__dict__.setdefault("_policies", {})
        p = cache.get(t)
        if p is None:
            if len(cache) > 2000:
                cache.clear()
            p = cache[t] = self.turn_policy(node)
        return p

    def turn_utility(self, node) -> np.ndarray:
        """float64 (n_scores,): the mover's chance to win the match (a tie counted as a win with
        ``ties_win``) for each score of the turn at ``node``."""
        kids = self._children(node)
        j = node[-2]
        return np.array([self._utility_of(self._child_value(c), j) for c in kids])

    def _utility_of(self, v: np.ndarray, j: int) -> float:
        return float(v[j] + self._tv * v[self.players + j])

    def _terminal(self, totals) -> np.ndarray:
        """Win/tie vector of a finished match: lowest total among ``totals`` (None entries excluded)."""
        key = tuple(totals)
        v = self._terminals.get(key)
        if v is not None:
            return v
        n = self.players
        v = self._terminals[key] = np.zeros(2 * n)
        alive = [i for i in range(n) if totals[i] is not None]
        best = min(totals[i] for i in alive)
        win = [i for i in alive if totals[i] == best]
        for i in win:
            v[i if len(win) == 1 else n + i] = 1.0
        return v

    def _child_value(self, c) -> np.ndarray:
        return c if isinstance(c, np.ndarray) else self.value(c)

    # --------------------------------------------------------- node algebra
    # rounds (STB-11): node = (k, j, totals), k rounds left counting the current one,
    # j the seat to move, totals shifted so the lowest live total is 0, LOST for seats
    # that can no longer win or tie.  Elimination (STB-12): node = (j, totals), totals
    # absolute, OUT for seats that are out.
    def _norm_rounds(self, k: int, j: int, totals: list):
        n = self.players
        live = [i for i in range(n) if totals[i] != LOST]
        reach = min(totals[i] + self.top * (k - (1 if i < j else 0)) for i in live)
        for i in live:
            if totals[i] > reach:
                totals[i] = LOST
        live = [i for i in live if totals[i] != LOST]
        if len(live) == 1:
            v = np.zeros(2 * n)
            v[live[0]] = 1.0
            return v
        low = min(totals[i] for i in live)
        return (k, j, tuple(t - low if t != LOST else LOST for t in totals))

    def _children(self, node) -> list:
        """The situation after the mover's turn, for each score of the domain (a node or a
        finished match's win/tie vector)."""
        out = []
        n = self.players
        if self.rounds is not None:
            return self._children_rounds(*node)
        j, totals = node
        thr = self.threshold
        head, mine, tail = totals[:j], totals[j], totals[j + 1:]
        nxt = next((i for i in range(j + 1, n) if totals[i] != OUT), None)
        if nxt is not None:
            return [(nxt, head + (mine + x,) + tail) for x in self._dom]
        # the mover is the last this round: the round ends (STB-12); the others' fate is the same for
        # every score of the mover, so only the mover's total varies
        others = [i for i in range(n) if i != j and totals[i] != OUT and totals[i] < thr]
        kept = [v if (v != OUT and v < thr) else OUT for v in totals]
        first_in = min(others + [j])
        if len(others) >= 2:
            if_out = (others[0], tuple(kept[:j]) + (OUT,) + tuple(kept[j + 1:]))
        elif len(others) == 1:
            if_out = self._terminal([totals[i] if i == others[0] else None for i in range(n)])
        else:
            if_out = None
        pre, post = tuple(kept[:j]), tuple(kept[j + 1:])
        for x in self._dom:
            t = mine + x
            if t < thr:
                if others:
                    out.append((first_in, pre + (t,) + post))
                else:
                    out.append(self._terminal([t if i == j else None for i in range(n)]))
            elif if_out is not None:
                out.append(if_out)
            else:
                out.append(self._terminal([None if v == OUT else v for v in head + (t,) + tail]))
        return out

    def _children_rounds(self, k: int, j: int, totals: tuple) -> list:
        """:meth:`_children` of a match of several rounds, every score at once (as :meth:`_norm_rounds`)."""
        n = self.players
        if j + 1 < n:
            k2, j2 = k, j + 1
        elif k > 1:
            k2, j2 = k - 1, 0
        else:
            k2, j2 = 0, n  # the match is over: nobody has a turn left
        t = np.array(totals, dtype=np.int64)
        lost = t == LOST
        tt = np.repeat(t[None, :], len(self._dom), axis=0)
        if not lost[j]:
            tt[:, j] += self.domain
        rem = np.array([max(k2 - (1 if i < j2 else 0), 0) for i in range(n)], dtype=np.int64)
        huge = np.int64(1) << 60
        masked = np.where(lost[None, :], huge, tt)
        reach = (masked + self.top * rem[None, :]).min(axis=1)
        gone = lost[None, :] | (tt > reach[:, None])
        live = n - gone.sum(axis=1)
        low = np.where(gone, huge, tt).min(axis=1)
        rel = np.where(gone, LOST, tt - low[:, None]).tolist()
        sure = self.__dict__.setdefault("_sure", {})
        out = []
        for row, nl in zip(rel, live.tolist()):
            if nl == 1:
                w = next(i for i in range(n) if row[i] != LOST)
                v = sure.get(w)
                if v is None:
                    v = sure[w] = np.zeros(2 * n)
                    v[w] = 1.0
                out.append(v)
            elif k2 == 0:
                out.append(self._terminal([None if v == LOST else v for v in row]))
            else:
                out.append((k2, j2, tuple(row)))
        return out

    def _mover_lost(self, node) -> bool:
        return self.rounds is not None and node[2][node[1]] == LOST

    def _evaluate_node(self, node, kid_values: list) -> tuple[np.ndarray, np.ndarray]:
        """(value, score distribution of the mover's turn) at ``node`` from its children's values."""
        j = node[-2]
        kv = np.array(kid_values)
        if self.play[j] == "adaptive" and not self._mover_lost(node):
            t = self._turn(kv[:, j] + self._tv * kv[:, self.players + j])
            self._node_turn[node] = t
            px = self._turns[t][1]
        else:
            px = self.base_px
        return px @ kv, px

    def value(self, node) -> np.ndarray:
        """float64 (2 * players,): every seat's chance to win the match (first ``players`` entries)
        and to share the lowest total (the rest) from ``node``, under the seats' plays.

        Raises:
            MatchPlayError: the match holds more than ``max_nodes`` situations.
        """
        v = self._memo.get(node)
        if v is not None:
            return v
        if len(self._memo) >= self.max_nodes:
            raise MatchPlayError(f"this match holds more than {self.max_nodes:,} situations to solve exactly: "
                                 "use fewer players, rounds or tiles, a lower threshold, or simulation")
        if self.rounds is None and all(t == OUT or t < self.threshold for t in node[1]):
            self._solve_cycle(node[1])
            return self._memo[node]
        if self._mover_lost(node):  # its score changes nothing: any child will do
            v = self._child_value(self._children(node)[0])
        else:
            memo, ndarray = self._memo, np.ndarray
            kids = []
            for c in self._children(node):  # _child_value, with the memo read here (most children are held)
                if not isinstance(c, ndarray):
                    held = memo.get(c)
                    c = held if held is not None else self.value(c)
                kids.append(c)
            v = self._evaluate_node(node, kids)[0]
        self._memo[node] = v
        return v

    def _solve_cycle(self, totals) -> None:
        """Elimination: the situations of one round with these totals lead back to each other
        when every turn shuts the box (a score of 0); solved by iterating to the fixed point."""
        n = self.players
        seats = [i for i in range(n) if totals[i] != OUT]
        nodes = [(i, totals) for i in seats]
        kids = {nd: self._children(nd) for nd in nodes}
        # values of every child outside the cycle first
        fixed = {nd: [None if (not isinstance(c, np.ndarray) and c in kids) else self._child_value(c)
                      for c in kids[nd]] for nd in nodes}
        # policy iteration: the plays for a guess of the value at the round's start, then the exact
        # value of those plays (the cycle closes through a score of 0, index 0 of the domain)
        # (the first pass plays every turn for the lowest score: no solve, and a close first guess)
        g = np.zeros(2 * n)
        for it in range(100):
            vals, aff = {}, {}
            nxt_c, nxt_p = np.zeros(2 * n), 1.0  # the round's start: g itself
            for nd in reversed(nodes):
                kv = [f if f is not None else (vals[kids[nd][0]] if kids[nd][0] in vals else g)
                      for f, c in zip(fixed[nd], kids[nd])]
                v, px = self._evaluate_node(nd, kv) if it else (self.base_px @ np.array(kv), self.base_px)
                vals[nd] = v
                # v = px[0] * v(next) + rest, with v(next) = nxt_c + nxt_p * g
                rest = v - px[0] * kv[0]
                nxt_c, nxt_p = rest + px[0] * nxt_c, px[0] * nxt_p
                aff[nd] = (nxt_c, nxt_p)
            if nxt_p > 1.0 - 1e-12:
                raise MatchPlayError("with these rules every turn shuts the box, so an elimination game never ends")
            g_new = nxt_c / (1.0 - nxt_p)
            delta = float(np.abs(g_new - g).max())
            g = g_new
            if it and delta <= _TOL:
                break
        for nd in nodes:
            c, p = aff[nd]
            self._memo[nd] = c + p * g

    # --------------------------------------------------------------- start
    def start(self, seat_to_move: int = 0, totals=None, rounds_left: int | None = None):
        """The node of a situation: ``totals`` (every seat's total, seat order; default zeros),
        the seat to move (0-based; seats before it have played this round) and, for rounds,
        the rounds left counting the current one (default: all).

        Raises:
            MatchPlayError: totals, seat or rounds out of range.
        """
        n = self.players
        totals = [0] * n if totals is None else [int(t) for t in totals]
        if len(totals) != n:
            raise MatchPlayError(f"give {n} totals, one per player, not {len(totals)}")
        if any(t < 0 for t in totals):
            raise MatchPlayError(f"totals are sums of scores, so never below 0: got {totals}")
        if not 0 <= seat_to_move < n:
            raise MatchPlayError(f"the seat to move must be 1..{n}, not {seat_to_move + 1}")
        if self.rounds is not None:
            k = self.rounds if rounds_left is None else rounds_left
            node = self._norm_rounds(k, seat_to_move, list(totals))
            return node
        thr = self.threshold
        if totals[seat_to_move] >= thr:
            raise MatchPlayError(f"a player whose total has reached the threshold {thr} is out and takes no "
                                 f"more turns (STB-12): the total to move is {totals[seat_to_move]}")
        for i in range(seat_to_move, n):
            if totals[i] >= thr:
                raise MatchPlayError(f"seat {i + 1} has not played this round yet, so its total must be below "
                                     f"the threshold {thr}, not {totals[i]} (STB-12)")
        return (seat_to_move, tuple(totals))

    def root(self):
        """The node at the start of the match (every total 0, seat 1 to move)."""
        return self.start()

    def seats(self):
        """Every seat's exact chance to win and to tie the match from the start.

        Returns:
            DataFrame per seat: ``seat`` (1-based), ``play`` (``adaptive`` or
            ``lowest``), ``p_win`` (sole lowest total, or last one in),
            ``p_tie`` (shares the lowest total).
        """
        import pandas as pd

        with _deep_recursion():
            v = self.value(self.root())
        n = self.players
        return pd.DataFrame({"seat": range(1, n + 1), "play": list(self.play), "p_win": v[:n],
                             "p_tie": v[n:]})


def _check_match(rules: BoxRules, players, rounds, threshold, play):
    # the limit of a match solved exactly or played adaptively (its state space), not of --players
    players = _whole(players, "an exact or adaptive match's players", 2, 3)
    if rounds is not None and threshold is not None:
        raise MatchPlayError("a match is either several rounds (totals add up) or elimination at a threshold, "
                             "not both")
    if rounds is None and threshold is None:
        raise MatchPlayError("give the rounds of the match (STB-11) or the elimination threshold (STB-12)")
    if rounds is not None:
        rounds = _whole(rounds, "rounds", 1, 1000)
    else:
        threshold = _whole(threshold, "the elimination threshold", 1, 10**6)
        if rules.score not in ("sum", "count"):
            raise MatchPlayError(f"elimination adds up scores against a threshold: use the scoring sum or count, "
                                 f"not {rules.score}")
    if rules.score == "digital":
        raise MatchPlayError("digital scores run into the thousands and more, too many totals to solve a match "
                             "exactly: use the scoring sum, count or all-or-nothing")
    if isinstance(play, str):
        play = (play,) * players
    play = tuple(play)
    if len(play) != players or any(p not in PLAYS for p in play):
        raise MatchPlayError(f"play must be one of {', '.join(PLAYS)} for every seat ({players} seats), "
                             f"not {play!r}")
    return players, rounds, threshold, play


def estimated_nodes(rules: BoxRules, players: int, rounds: int | None, threshold: int | None) -> int:
    """About how many situations an exact match holds (within a factor of about 2 for 9 tiles):
    rounds: ``players * rounds * (top * rounds + 1) ** (players - 1) / 4`` with ``top`` the highest
    score of a turn; elimination: ``players * threshold ** players``."""
    if rounds is not None:
        top = int(rules.scores.max())
        return players * rounds * (top * rounds + 1) ** (players - 1) // 4
    return players * threshold ** players


def adaptive_play(rules: BoxRules, players: int = 2, rounds: int | None = 3, threshold: int | None = None,
                  ties_win: bool = False, max_nodes: int = MAX_NODES):
    """Every seat playing for the match: the exact :class:`MatchPlay` where it fits (see
    :func:`estimated_nodes`), else, for 3 players, the heads-up approximation :class:`HeadsUpPlay`.

    Raises:
        MatchPlayError: as :func:`match_play` (a 2-player match too large to solve).
    """
    players, rounds, threshold, _ = _check_match(rules, players, rounds, threshold, "adaptive")
    if players == 3 and estimated_nodes(rules, players, rounds, threshold) > max_nodes:
        return HeadsUpPlay(rules, players, rounds, threshold, ties_win)
    return match_play(rules, players, rounds, threshold, ties_win, "adaptive", max_nodes)


def match_play(rules: BoxRules, players: int = 2, rounds: int | None = 3, threshold: int | None = None,
               ties_win: bool = False, play="adaptive", max_nodes: int = MAX_NODES) -> MatchPlay:
    """Solve a match of several rounds or an elimination game exactly (STB-11, STB-12, STB-O5).

    Every turn is played for the best chance to win the match, given every total, the
    rounds left (or the threshold) and who plays after; each ``adaptive`` seat knows the
    others play the same way (backward induction: a subgame-perfect equilibrium).  A
    ``lowest`` seat plays every turn for the lowest expected score (STB-O1), as
    :func:`~ludolab.sim.box_match.simulate_rounds` does with the policy ``optimal``.

    Args:
        rules: the ruleset (scoring sum, count or all-or-nothing; elimination: sum or count).
        players: 2 or 3.
        rounds: rounds of the match (1..1000), totals add up (STB-11); or ``None`` with
            ``threshold``: elimination (STB-12).  An exact elimination game has no cap on
            its length (the simulation's cap of 1000 rounds never matters in practice).
        threshold: elimination threshold in points (>= 1), with ``rounds=None``.
        ties_win: the player choosing its play counts a shared lowest total as a win.
        play: ``adaptive`` or ``lowest`` for every seat, or a tuple of them, one per seat.
        max_nodes: refuse beyond this many situations (see :data:`MAX_NODES`).

    Returns:
        :class:`MatchPlay`; :meth:`MatchPlay.seats` gives the exact chances per seat.

    Raises:
        MatchPlayError: bad players, rounds, threshold, scoring or play, or a match too
        large to solve exactly (raised when solving reaches ``max_nodes``).
    """
    players, rounds, threshold, play = _check_match(rules, players, rounds, threshold, play)
    est = estimated_nodes(rules, players, rounds, threshold)
    if est > max_nodes:
        raise MatchPlayError(f"{_mode(rounds, threshold)} with {players} players holds about {est:,} situations, "
                             f"more than the {max_nodes:,} solved exactly: use fewer rounds, a lower threshold, "
                             "fewer players or tiles, or simulation")
    return MatchPlay(rules, players, rounds, threshold, ties_win, play, max_nodes)


def match_play_exact(rules: BoxRules, players: int = 2, rounds: int | None = 3, threshold: int | None = None,
                     ties_win: bool = False, play="adaptive", max_nodes: int = MAX_NODES):
    """Exact win and tie chances per seat (:meth:`MatchPlay.seats`) of :func:`match_play` with
    the same arguments; ``attrs`` carries ``nodes`` (situations solved) and ``turn_solves``.

    Raises:
        MatchPlayError: as :func:`match_play`.
    """
    mp = match_play(rules, players, rounds, threshold, ties_win, play, max_nodes)
    df = mp.seats()
    df.attrs.update(nodes=mp.n_nodes, turn_solves=mp.n_turn_solves, mode=_mode(rounds, threshold))
    return df


def _mode(rounds, threshold) -> str:
    if rounds is not None:
        return f"{rounds} round{'s' if rounds != 1 else ''}"
    return f"elimination at {threshold}"


def adaptive_gain_table(rules: BoxRules | None = None, players: int = 2, rounds=(1, 2, 3, 5),
                        thresholds=(45,), ties_win: bool = False, max_nodes: int = MAX_NODES):
    """What playing for the match gains over playing each turn for the lowest score, exactly (STB-O5).

    For every match (each number of rounds, then each elimination threshold) and seat:
    the chance to win when every seat plays for the lowest score (STB-O1, today's
    default), when only this seat plays for the match, and when every seat does.

    Args:
        rules: the ruleset (default: :class:`~ludolab.stdlib.box.BoxRules` defaults).
        players: 2 or 3.
        rounds: numbers of rounds (STB-11) to solve; thresholds: elimination thresholds
            (STB-12; only with the scoring sum or count, skipped otherwise).
        ties_win: as in :func:`match_play`.

    Returns:
        DataFrame, one row per (match, seat): ``match`` (``3 rounds`` or
        ``elimination at 45``), ``seat`` (1-based), ``p_win_lowest`` (every seat
        plays for the lowest score), ``p_win_alone`` (this seat plays for the match,
        the others for the lowest score), ``gain`` (``p_win_alone - p_win_lowest``,
        in probability), ``p_win_all`` (every seat plays for the match) and
        ``p_tie_all`` (shares the lowest total then).  With ``ties_win`` the ``p_win_*``
        columns and ``gain`` count a shared lowest total as a win, as the players do.

    Raises:
        MatchPlayError: as :func:`match_play`.
    """
    import pandas as pd

    rules = BoxRules() if rules is None else rules
    matches = [(r, None) for r in rounds]
    if rules.score in ("sum", "count"):
        matches += [(None, t) for t in thresholds]
    rows = []
    for r, t in matches:
        base = match_play_exact(rules, players, r, t, ties_win, "lowest", max_nodes)
        every = match_play_exact(rules, players, r, t, ties_win, "adaptive", max_nodes)
        tv = 1.0 if ties_win else 0.0
        for s in range(players):
            play = tuple("adaptive" if i == s else "lowest" for i in range(players))
            alone = match_play_exact(rules, players, r, t, ties_win, play, max_nodes)
            low = float(base["p_win"][s] + tv * base["p_tie"][s])
            mine = float(alone["p_win"][s] + tv * alone["p_tie"][s])
            rows.append({"match": _mode(r, t), "seat": s + 1, "p_win_lowest": low, "p_win_alone": mine,
                         "gain": mine - low, "p_win_all": float(every["p_win"][s] + tv * every["p_tie"][s]),
                         "p_tie_all": float(every["p_tie"][s])})
    df = pd.DataFrame(rows)
    df.attrs.update(rules=rules.to_dict(), players=players, ties_win=ties_win, method="exact")
    return df


# ------------------------------------------------------ where the match changes the move
def match_decisions(rules: BoxRules | None = None, rounds_left: int = 2, leads=range(-30, 31, 6),
                    seats=(1, 2), top: int | None = 20):
    """Where playing for the match changes the move (STB-O5): 2 players, situations at the start
    of a turn, every (open tiles, roll) the turn can meet where the move for the match differs
    from the move for the lowest score.

    Args:
        rules: the ruleset (default :class:`~ludolab.stdlib.box.BoxRules` defaults).
        rounds_left: rounds still to play counting the current one (STB-11).
        leads: the player's lead in points at the start of the turn (the opponent's total minus
            the player's; negative: behind).
        seats: the player's seats to look at (1: the opponent plays after, 2: before).
        top: keep this many rows (``None``: all), by ``weighted_gain``.

    Returns:
        DataFrame: ``seat``, ``lead``, ``open`` (text), ``roll`` (text), ``cover_lowest`` (the
        move for the lowest expected score, STB-O1), ``cover_match`` (the move for the match),
        ``p_meet`` (chance that the turn meets this open set and roll, playing for the match),
        ``gain`` (chance to win the match gained by the match move), ``weighted_gain``
        (``p_meet * gain``); sorted by ``weighted_gain``, largest first.

    Raises:
        MatchPlayError: bad rounds or seats.
    """
    import pandas as pd

    rules = BoxRules() if rules is None else rules
    mp = match_play(rules, 2, rounds_left)
    base = mp._base
    oc = rules.outcomes
    rows = []
    with _deep_recursion():
        for seat in seats:
            seat = _whole(seat, "the seat", 1, 2)
            for lead in leads:
                lead = int(lead)
                mine, theirs = max(-lead, 0), max(lead, 0)
                totals = [mine, theirs] if seat == 1 else [theirs, mine]
                node = mp.start(seat - 1, totals, rounds_left)
                if isinstance(node, np.ndarray):
                    continue
                u = mp.turn_utility(node)
                value, move, dice = solve_utility(rules, u[mp.idx], 1.0)
                visit = evaluate(Policy("match", rules, move, dice)).visit
                differ = (move != base.move) & (move >= 0) & (base.move >= 0)
                for s_, o in zip(*np.nonzero(differ)):
                    s_, o = int(s_), int(o)
                    if visit[s_] <= 0 or oc.dice[o] != dice[s_]:
                        continue
                    m, b = int(move[s_, o]), int(base.move[s_, o])
                    gain = float(value[s_ ^ m] - value[s_ ^ b])
                    if gain <= 1e-12:
                        continue
                    p_meet = float(visit[s_] * oc.prob[o])
                    rows.append({"seat": seat, "lead": lead, "open": rules.format_state(s_), "roll": oc.label[o],
                                 "cover_lowest": rules.format_state(b), "cover_match": rules.format_state(m),
                                 "p_meet": p_meet, "gain": gain, "weighted_gain": p_meet * gain})
    cols = ["seat", "lead", "open", "roll", "cover_lowest", "cover_match", "p_meet", "gain", "weighted_gain"]
    df = pd.DataFrame(rows, columns=cols).sort_values("weighted_gain", ascending=False, kind="stable")
    df = df.reset_index(drop=True)
    if top is not None:
        df = df.head(top)
    df.attrs.update(rules=rules.to_dict(), rounds_left=rounds_left, method="exact")
    return df


# ------------------------------------------------------------------ advice
def advise_match(rules: BoxRules, open_tiles, roll=None, my_total: int = 0, their_totals=(0,), seat: int = 1,
                 rounds_left: int | None = 1, threshold: int | None = None, ties_win: bool = False,
                 dice: int | None = None):
    """Advice in a match: every legal move ranked by the chance to win the match (STB-O5).

    Every player is assumed to play for the match from here on.

    Args:
        rules: the ruleset.
        open_tiles: the open tile numbers of the turn being played.
        roll: the roll (as :meth:`~ludolab.stdlib.box.BoxRules.roll_index` reads it),
            or ``None`` for the dice choice before rolling (STB-6).
        my_total: the player's total before this turn; their_totals: the other
            players' totals, in seat order (1 or 2 of them).
        seat: the player's seat (1-based) in this round: the players in earlier
            seats have already played this round (their totals include it).
        rounds_left: rounds still to play counting this one (STB-11); ``None`` with
            ``threshold`` for elimination (STB-12).
        threshold: the elimination threshold (STB-12).
        ties_win: a shared lowest total counts as a win.
        dice: 1 or 2, the dice the roll was made with (``None``: inferred).

    Returns:
        With a roll: DataFrame of the legal moves, best first, ``cover``, ``tiles_left``
        (text, ``"shut"`` for none), ``p_win_match`` (the chance to win the match after
        the move, playing on for the match), ``best``; empty when no move is legal
        (``attrs['stop_value']`` the chance then).  Without a roll: ``dice``,
        ``p_win_match``, ``best``.  ``attrs``: ``objective`` and ``p_win_now`` (the
        chance to win the match before this roll).

    Raises:
        RulesError: tiles, roll or dice as in :func:`ludolab.sim.box.advise`;
        MatchPlayError: a bad situation (totals, seat, rounds left, threshold).
    """
    their = [their_totals] if isinstance(their_totals, (int, np.integer)) else list(their_totals)
    players = 1 + len(their)
    if not 2 <= players <= 3:
        raise MatchPlayError(f"advice in a match takes 1 or 2 opponents' totals, not {len(their)}")
    seat = _whole(seat, "your seat", 1, players)
    _whole(my_total, "your total", 0)
    for t in their:
        _whole(t, "an opponent's total", 0)
    if threshold is None and rounds_left is None:
        raise MatchPlayError("give the rounds left (counting this one) or the elimination threshold")
    if threshold is not None and rounds_left is not None:
        raise MatchPlayError("rounds left applies to a match of several rounds, a threshold to elimination: "
                             "give one of them")
    totals = their[:seat - 1] + [int(my_total)] + their[seat - 1:]
    mp = match_play(rules, players, rounds_left, threshold, ties_win, "adaptive")
    s = advice_state(rules, open_tiles, roll, dice)
    with _deep_recursion():
        node = mp.start(seat - 1, totals, rounds_left)
        if isinstance(node, np.ndarray):  # already decided
            u = np.full(len(mp.domain), float(node[seat - 1] + mp._tv * node[players + seat - 1]))
        else:
            u = mp.turn_utility(node)
    value, move, dice_tab = solve_utility(rules, u[mp.idx], 1.0)
    label = "max P(win the match)" + (" (a tie counts)" if ties_win else "")
    df = rank_choices(rules, s, roll, dice, value, move, float(u[mp.idx[s]]), 1.0, "p_win_match")
    df.attrs.update(objective=label, p_win_now=float(value[s]))
    if roll is not None:
        df.attrs["stop_value"] = float(u[mp.idx[s]])
    return df


# ------------------------------------------------------- three players, heads-up
class HeadsUpPlay:
    """Three players where the exact match is too large (STB-O5, an approximation): every seat
    plays the solved 2-player match against its strongest opponent, the one with the lowest
    total among those still in (the earlier seat on equal totals), in their seat order.

    Attributes:
        duel: the 2-player :class:`MatchPlay` the seats play from.
    """

    def __init__(self, rules: BoxRules, players: int, rounds: int | None, threshold: int | None,
                 ties_win: bool = False):
        players, rounds, threshold, _ = _check_match(rules, players, rounds, threshold, "adaptive")
        self.rules, self.players, self.rounds, self.threshold = rules, players, rounds, threshold
        self.play = ("adaptive heads-up",) * players
        self.duel = match_play(rules, 2, rounds, threshold, ties_win)

    def policy_for(self, rounds_left: int | None, seat: int, totals, out) -> Policy:
        """As :meth:`MatchPlay.policy_for`: the duel's policy against the strongest opponent."""
        rivals = [i for i in range(self.players) if i != seat and not out[i]]
        o = min(rivals, key=lambda i: (totals[i], i))
        me, pair = (1, (totals[o], totals[seat])) if o < seat else (0, (totals[seat], totals[o]))
        return self.duel.policy_for(rounds_left, me, pair, (False, False))


# -------------------------------------------------------------- simulation
def simulate_match_play(mp, games: int, seed: int = 0, chunks: int = 8):
    """Matches played roll by roll with the solved plays (Monte Carlo), a check of :meth:`MatchPlay.seats`,
    or the only figures for three players where the exact match is too large (:class:`HeadsUpPlay`).

    Each turn looks up the situation (totals, rounds left, seat) and plays the policy
    table the solution gives there, rolling the dice with the pure-Python engine (one
    random stream per game, as every Monte Carlo of the tool).

    Args:
        mp: a :class:`MatchPlay` (solved as play reaches its situations) or a :class:`HeadsUpPlay`.
        games: matches to play (1 .. 10**7; a few thousand per second).
        seed: root seed; chunks: how the games are cut into streams.

    Returns:
        DataFrame per seat: ``seat``, ``play``, ``p_win`` and ``p_tie`` with 95% Wilson
        confidence intervals (``_ci_low``, ``_ci_high``), ``mean_total``; ``attrs``
        carry the seed, games and chunks.

    Raises:
        LudolabError: bad games, seed or chunks.
    """
    import pandas as pd

    from . import box_reference as R
    from .experiment import plan_run
    from .rng import py_game_state
    from .stats import wilson_ci

    plan = plan_run(games, seed, chunks)
    n = mp.players
    rules = mp.rules
    wins = np.zeros(n, dtype=np.int64)
    ties = np.zeros(n, dtype=np.int64)
    tot_sum = np.zeros(n)
    with _deep_recursion():
        for c in range(plan.n_chunks):
            for g in range(int(plan.games[c])):
                st = py_game_state(int(plan.keys[c]), g)
                totals = [0] * n
                out = [False] * n
                k = mp.rounds
                while True:
                    dropped = []
                    for j in range(n):
                        if out[j]:
                            continue
                        s, st = R.play_turn(rules, mp.policy_for(k, j, totals, out), st)
                        totals[j] += int(rules.scores[s])
                        if mp.threshold is not None and totals[j] >= mp.threshold:
                            dropped.append(j)
                    if mp.rounds is not None:
                        k -= 1
                        if k == 0:
                            live = list(range(n))
                            break
                        continue
                    stay = [i for i in range(n) if not out[i] and i not in dropped]
                    if len(stay) >= 2:
                        for i in dropped:
                            out[i] = True
                        continue
                    live = stay if stay else [i for i in range(n) if not out[i]]
                    break
                best = min(totals[i] for i in live)
                win = [i for i in live if totals[i] == best]
                for i in win:
                    if len(win) == 1:
                        wins[i] += 1
                    else:
                        ties[i] += 1
                tot_sum += totals
    rows = [{"seat": i + 1, "play": mp.play[i], **wilson_ci(int(wins[i]), plan.n_games).as_dict("p_win"),
             **wilson_ci(int(ties[i]), plan.n_games).as_dict("p_tie"), "mean_total": tot_sum[i] / plan.n_games}
            for i in range(n)]
    df = pd.DataFrame(rows)
    df.attrs.update(plan.provenance())
    df.attrs["mode"] = _mode(mp.rounds, mp.threshold)
    return df
