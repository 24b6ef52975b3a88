"""One game at the play page: the state array on the server, the bots' moves, hints, the review and the record.

The state is the game's step-interface state (``kernels.new_game``, ``apply_action``, ...); the
person's seat acts only through :meth:`Session.move`, which refuses an action that is not legal now
(or not the person's turn) and leaves the state as it was.  The bots decide on a copy of the state,
so their own random choices never move the game's stream: the game is fixed by its key and the
list of actions, which is what the record holds and :func:`replay_record` plays back.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ludolab.sim.rng import game_state

from .games import Adapter, Built, PlayError, adapter

RECORD_FORMAT = "ludolab-play-record"
RECORD_VERSION = 1
#: Worlds of a hint (determinized samples) unless asked otherwise; of each reviewed decision.
HINT_WORLDS = 64
REVIEW_WORLDS = 16
#: A search bot's playouts per decision.
SEARCH_BUDGET = 48
_BOT_SALT = 0x5EA7_0B07
_HINT_SALT = 0x4A17_7ED5


class Session:
    """One game: the adapter, the built rules, the seats (the person's and the bots'), the state.

    Args:
        game: box, books, shelf or beverbende; variant: one of the adapter's variants;
        players: seats at the table; bots: one bot name per other seat (a named policy or
        ``search``; one name for all); seat: the person's seat, 0..players-1 (counted from 0, as every
        seat of the play API and the record; the page shows it as 1..players); key: the game's key.

    Raises:
        PlayError: an unknown game, variant, bot, seat or player count.
    """

    def __init__(self, game: str, variant: str, players: int, bots=None, seat: int = 0, key: int = 0):
        self.ad: Adapter = adapter(game)
        self.b: Built = self.ad.build(variant, players)
        n = self.b.n
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise PlayError(f"your seat must be 0..{n - 1} (seats count from 0: the page's seat 1 is 0), "
                            f"not {seat!r}")
        if isinstance(key, bool) or not isinstance(key, int) or not 0 <= key < 2**63:
            raise PlayError(f"the game key must be a whole number 0..2**63-1, not {key!r}")
        allowed = self.ad.bots()
        if bots is None or isinstance(bots, str):
            bots = [bots or self.ad.best] * (n - 1)
        if not isinstance(bots, (list, tuple)) or len(bots) != n - 1:
            raise PlayError(f"give one bot per other seat ({n - 1}), not {bots!r}")
        for x in bots:
            if x not in allowed:
                raise PlayError(f"unknown bot {x!r}: allowed are {', '.join(allowed)}")
        self.seat = seat
        self.key = int(key)
        others = iter(bots)
        self.bots = [None if p == seat else next(others) for p in range(n)]
        K = self.ad.kernels
        self.K = K
        self.state = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.new_game(self.b.rules, np.uint64(self.key), self.state)
        self.actions: list[int] = []
        self.decisions: list[dict] = []  # the person's: obs, legal, chosen
        self.log: list[dict] = []
        self.moments: list[dict] = []
        self._score = np.zeros(8)
        self._moment = int(K.running_score(self.b.rules, self.state, self._score))
        self._acts = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
        self.review_rows = None
        self.play_bots()

    # ------------------------------------------------------------ queries
    @property
    def rules(self):
        return self.b.rules

    def current(self) -> int:
        return int(self.K.current_player(self.state))

    def over(self) -> bool:
        return self.current() < 0

    def obs(self, seat: int | None = None, state=None) -> np.ndarray:
        """The observation of ``seat`` (the person's by default), as ``kernels.observe`` writes it."""
        o = np.zeros(self.K.OBS_SIZE, dtype=np.int64)
        self.K.observe(self.rules, self.state if state is None else state, self.seat if seat is None else seat, o)
        return o

    def legal(self) -> list[int]:
        n = int(self.K.legal_actions(self.rules, self.state, self._acts))
        return [int(a) for a in self._acts[:n]]

    def scores(self) -> list[float]:
        """Each seat's running score (``kernels.running_score``), in the game's units."""
        out = np.zeros(8)
        self.K.running_score(self.rules, self.state, out)
        return [float(x) for x in out[:self.b.n]]

    def final(self) -> list[float]:
        out = np.zeros(8)
        self.K.returns(self.rules, self.state, out)
        return [float(x) for x in out[:self.b.n]]

    # ------------------------------------------------------------ moves
    def _apply(self, seat: int, action: int) -> None:
        before = self.obs()
        self.K.apply_action(self.rules, self.state, int(action))
        self.actions.append(int(action))
        after = self.obs()
        who = "You" if seat == self.seat else f"Seat {seat + 1} ({self.bots[seat]})"
        text = self.ad.log_text(self.b, seat, self.seat, before, after, action)
        self.log.append({"seat": seat, "who": who, "text": text})
        k = int(self.K.running_score(self.rules, self.state, self._score))
        if k > self._moment:
            self._moment = k
            self.moments.append({"moment": k, "name": self.ad.moment_name(k),
                                 "scores": [float(x) for x in self._score[:self.b.n]]})

    def move(self, action) -> None:
        """Play the person's ``action`` (an int of the game's encoding), then the bots up to the person's next turn.

        Raises:
            PlayError: the game is over, it is not the person's turn, or the action is not legal now
                (the message lists a few legal ones); the state is then unchanged.
        """
        if isinstance(action, bool) or not isinstance(action, int):
            raise PlayError(f"an action is a whole number of the game's encoding, not {action!r}")
        p = self.current()
        if p < 0:
            raise PlayError("the game is over: no more moves")
        if p != self.seat:
            raise PlayError(f"it is seat {p + 1}'s turn, not yours")
        legal = self.legal()
        if action not in legal:
            shown = ", ".join(map(str, legal[:8])) + (" ..." if len(legal) > 8 else "")
            raise PlayError(f"action {action} is not legal now: the legal actions are {shown}")
        self.decisions.append({"obs": self.obs(), "legal": legal, "action": action, "step": len(self.actions)})
        self._apply(p, action)
        self.play_bots()

    def bot_action(self, p: int) -> int:
        """Seat ``p``'s bot decides from its observation on a copy of the state (the game's stream untouched)."""
        name = self.bots[p]
        legal = self.legal()
        if len(legal) == 1:
            return legal[0]
        key = int(game_state(np.uint64((self.key ^ _BOT_SALT) & (2**64 - 1)), len(self.actions)))
        if name == "search":
            from ludolab.sim.ladder import Contender, Table
            from ludolab.sim.step import RulesCase

            best = self.b.policies[self.ad.best]
            table = Table(self.ad.step, RulesCase("play", self.rules, self.b.n, ()))
            table.lower = self.b.lower_better  # the scoring's direction (win-count: the most rounds won)
            return int(table.decide(Contender("search", "search", budget=SEARCH_BUDGET * self.b.n, rollout=best),
                                    self.state.copy(), p, key))
        kind, params = self.b.policies[name]
        o = self.obs(p)
        work = self.state.copy()
        return int(self.K.act(kind, np.asarray(params, dtype=np.float64), o, work))

    def play_bots(self) -> None:
        """Let the bots move until it is the person's turn or the game is over."""
        while True:
            p = self.current()
            if p < 0 or p == self.seat:
                return
            self._apply(p, self.bot_action(p))

    # ------------------------------------------------------------ what the page gets
    def payload(self) -> dict:
        """The JSON the page gets: the view (a function of the person's observation only), the legal
        actions with their labels when it is the person's turn, the log, the scores at each scoring moment."""
        o = self.obs()
        view = self.ad.view(self.b, o, self.seat)
        mine = self.current() == self.seat
        out = {"game": self.ad.id, "title": self.ad.title, "variant": self.b.variant, "players": self.b.n,
               "seat": self.seat, "bots": self.bots, "units": self.b.units, "over": self.over(),
               "view": view, "your_turn": mine, "log": self.log[-12:], "moments": self.moments,
               "moment_kind": self.ad.moment, "steps": len(self.actions)}
        out["scores"] = self.scores()
        if mine:
            legal = self.legal()
            pick = self.ad.picker(self.b, o, np.array(legal))
            if pick is not None:
                out["picker"] = pick
                out["actions"] = []
            else:
                out["actions"] = [{"action": a, "label": self.ad.label(self.b, o, a)} for a in legal]
        else:
            out["actions"] = []
        if self.over():
            out["final"] = self.final()
            out["result"] = self._result()
        return out

    def _result(self) -> str:
        f = self.final()
        best = min(f) if self.b.lower_better else max(f)
        win = [p for p in range(self.b.n) if f[p] == best]
        mine = f[self.seat]
        if self.b.n == 1:  # a game of one's own: a score, not a win
            return f"Your score: {mine:g}."
        if win == [self.seat]:
            return f"You win with {mine:g}."
        if self.seat in win:
            return f"You share the best score, {mine:g}."
        return f"Seat {win[0] + 1} wins with {best:g}; you have {mine:g}."

    # ------------------------------------------------------------ hints
    def hint(self, worlds: int | None = None) -> dict:
        """The advice table for the person's decision now: every legal action with its value and 95% CI, best first.

        Shut the Box: the exact expected score of the turn.  Shut The Books forecasts: the forecast
        search of ``sim/books.py`` (its best candidates).  Otherwise determinized search
        (``ludolab.sim.advice``) with the game's best heuristic as the continuation.

        Raises:
            PlayError: not the person's turn, or the game is over.
        """
        if self.current() != self.seat:
            raise PlayError("a hint is for your own decision: it is not your turn")
        return advise_decision(self.ad, self.b, self.seat, self.obs(), self.legal(),
                               worlds or HINT_WORLDS, key=self.key ^ _HINT_SALT ^ len(self.actions))

    def review(self, worlds: int = REVIEW_WORLDS, top: int = 3, most: int = 40) -> list[dict]:
        """The person's costliest decisions: each decision advised afresh, cost = best value - chosen value
        (in the game's units, the sign turned where lower is better); the ``top`` largest costs.

        Only decisions with two or more legal actions count; at most ``most`` of them (the last ones).
        A decision that cost nothing (the best action, or one worth as much) is not listed.
        """
        if self.review_rows is not None:
            return self.review_rows
        rows = []
        cand = [d for d in self.decisions if len(d["legal"]) > 1][-most:]
        for d in cand:
            try:
                h = advise_decision(self.ad, self.b, self.seat, d["obs"], d["legal"], worlds,
                                    key=self.key ^ _HINT_SALT ^ d["step"], chosen=d["action"])
            except PlayError:
                continue
            vals = {r["action"]: r["value"] for r in h["rows"]}
            if d["action"] not in vals or not h["rows"]:
                continue
            best = h["rows"][0]
            cost = (vals[d["action"]] - best["value"]) if self.b.lower_better else (best["value"] - vals[d["action"]])
            if d["action"] == best["action"] or not cost > 0:
                continue
            rows.append({"step": d["step"], "chosen": self.ad.label(self.b, d["obs"], d["action"]),
                         "chosen_value": vals[d["action"]], "best": best["label"], "best_value": best["value"],
                         "cost": cost, "situation": self.ad.view(self.b, d["obs"], self.seat)["status"],
                         "method": h["method"]})
        rows.sort(key=lambda r: -r["cost"])
        self.review_rows = rows[:top]
        return self.review_rows

    # ------------------------------------------------------------ record
    def record(self) -> dict:
        """The played game as a JSON-able record: game, variant, players, the person's seat, the bots,
        the key and every action in order (what :func:`replay_record` reads)."""
        return {"format": RECORD_FORMAT, "version": RECORD_VERSION, "game": self.ad.id, "variant": self.b.variant,
                "players": self.b.n, "seat": self.seat, "bots": self.bots, "key": self.key,
                "actions": list(self.actions), "scores": [m["scores"] for m in self.moments],
                "final": self.final() if self.over() else None}


# ====================================================================== advice
def advise_decision(ad: Adapter, b: Built, seat: int, obs: np.ndarray, legal: list, worlds: int, key: int,
                    chosen: int | None = None) -> dict:
    """The advice table for one decision of ``seat`` from its observation ``obs``.

    Returns:
        dict: ``rows`` (best first: ``action``, ``label``, ``value``, ``ci_low``, ``ci_high``), ``budget``
        (text), ``method``, ``verdict`` (best against second), ``units``, ``seconds``.
    """
    t0 = time.perf_counter()
    if len(legal) == 1:
        return {"rows": [{"action": legal[0], "label": ad.label(b, obs, legal[0]), "value": float("nan"),
                          "ci_low": float("nan"), "ci_high": float("nan")}],
                "budget": "none needed", "method": "the only legal action", "verdict": "only one legal action",
                "units": b.units, "seconds": 0.0}
    ex = ad.exact_hint(b, obs, legal)
    if ex is not None:
        rows_, method = ex
        rows = [{"action": a, "label": ad.label(b, obs, a), "value": v, "ci_low": v, "ci_high": v} for a, v in rows_]
        verdict = "exact values"
        if len(rows) > 1:
            d = rows[1]["value"] - rows[0]["value"]
            verdict = "best and second are equally good (exact)" if abs(d) < 1e-9 else \
                f"the best is better than the second by {abs(d):.3f} (exact)"
        return {"rows": rows, "budget": "exact (no sampling)", "method": method, "verdict": verdict,
                "units": b.units, "seconds": time.perf_counter() - t0}
    if ad.id == "books":
        import ludolab.stdlib.books as B

        if int(obs[B.S_PHASE]) == B.PH_FORECAST:
            return _books_forecast_hint(ad, b, seat, obs, legal, worlds, key, chosen, t0)
    return _search_hint(ad, b, seat, obs, legal, worlds, key, t0)


def _search_hint(ad, b, seat, obs, legal, worlds, key, t0):
    """Determinized search (:func:`ludolab.sim.advice.advise`): sampled worlds, every legal action played in
    each, then the game's best heuristic for every seat; the paired best-against-second verdict."""
    from ludolab.sim import advice

    adv = advice.advise(ad.step, b.rules, b.n, seat, obs, measure=b.measure, budget=int(worlds),
                        key=int(key) & (2**63 - 1), lower_is_better=b.lower_better)
    rows = [{"action": int(a), "label": ad.label(b, obs, int(a)), "value": float(m), "ci_low": float(lo),
             "ci_high": float(hi)} for a, m, lo, hi in zip(adv.actions, adv.mean, adv.ci_low, adv.ci_high)]
    verdict = "only one legal action"
    if adv.verdict is not None:
        verdict = (f"best vs second: {adv.verdict} (paired difference {adv.diff:+.2f}, 95% CI "
                   f"{adv.diff_low:+.2f} to {adv.diff_high:+.2f})")
    return {"rows": rows, "budget": adv.worlds_line(), "method":
            f"determinized search, then {adv.continuation} for every seat", "verdict": verdict,
            "units": b.units, "seconds": time.perf_counter() - t0}


def _books_forecast_hint(ad, b, seat, obs, legal, worlds, key, chosen, t0):
    """A forecast: the forecast search of ``sim/books.py`` over its best candidates (not all 6885 subsets)."""
    import ludolab.stdlib.books as B
    from ludolab.sim.books import advise

    P = b.n
    start = int(obs[B.S_START])
    position = (seat - start) % P + 1
    hand = [c for c in range(B.N_CARD_IDS) if int(obs[B.LOC + c]) == B.L_HAND + seat]
    earlier = []
    for i in range(position - 1):
        s = (start + i) % P
        earlier.append([B.card_name(c) for c in range(B.N_CARD_IDS) if int(obs[B.LOC + c]) == B.L_OPEN + s])
    df = advise(b.ctx, [B.card_name(c) for c in hand], position, earlier, pool=6, worlds=max(4, int(worlds) // 8),
                half_width=0.5, max_worlds=max(64, int(worlds) * 4), seed=int(key) & (2**31 - 1), top=0)
    index = {c: i for i, c in enumerate(hand)}
    rows = []
    for _, r in df.iterrows():
        cards = [B.parse_card(x) for x in r["lay"]]
        a = sum(1 << index[c] for c in cards)
        rows.append({"action": int(a), "label": ad.label(b, obs, int(a)), "value": float(r["expected_score"]),
                     "ci_low": float(r["expected_score_ci_low"]), "ci_high": float(r["expected_score_ci_high"]),
                     "worlds": int(r["worlds"])})
    rows = [r for r in rows if r["action"] in set(legal)]
    verdict = f"searched {len(rows)} candidate forecasts of the {len(legal)} legal ones"
    return {"rows": rows, "budget": f"{int(df['worlds'].sum())} hand rollouts",
            "method": "forecast search (sim/books.py advise): heuristic play for everyone, this hand's score",
            "verdict": verdict, "units": "points this hand", "seconds": time.perf_counter() - t0,
            "partial": True}


# ====================================================================== replay
def replay_record(record) -> dict:
    """Play a saved record back through the kernels.

    Args:
        record: the dict of :meth:`Session.record`.

    Returns:
        dict: ``game``, ``title``, ``variant``, ``players``, ``moments`` (each scoring moment's name and
        scores), ``finished``, ``final`` (each seat's return; None for a game saved before its end, whose
        ``running`` score is given instead), ``units``, ``lower_better``, ``seat``, ``actions``.

    Raises:
        PlayError: not a play record, an unknown game or variant, a wrong player count or key, an
            action that is not legal where it stands (naming its position), or actions after the end.
    """
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise PlayError(f"not a play record: the file has no \"format\": \"{RECORD_FORMAT}\"")
    for f in ("game", "variant", "players", "key", "actions"):
        if f not in record:
            raise PlayError(f"the record has no {f!r} field")
    for f in ("game", "variant"):
        if not isinstance(record[f], str):
            raise PlayError(f"the record's {f} must be text, not {record[f]!r}")
    ad = adapter(record["game"])
    b = ad.build(record["variant"], record["players"])
    key = record["key"]
    if isinstance(key, bool) or not isinstance(key, int) or not 0 <= key < 2**63:
        raise PlayError(f"the record's key must be a whole number 0..2**63-1, not {key!r}")
    actions = record["actions"]
    if not isinstance(actions, list):
        raise PlayError("the record's actions must be a list of whole numbers")
    seat = record.get("seat")
    if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < b.n):
        raise PlayError(f"the record's seat must be a seat of the table, 0..{b.n - 1} (counted from 0), not {seat!r}")
    K = ad.kernels
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.new_game(b.rules, np.uint64(key), st)
    acts = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    sc = np.zeros(8)
    k0 = int(K.running_score(b.rules, st, sc))
    moments = []
    for i, a in enumerate(actions):
        if K.current_player(st) < 0:
            raise PlayError(f"action {i + 1} of {len(actions)} comes after the end of the game")
        n = int(K.legal_actions(b.rules, st, acts))
        if isinstance(a, bool) or not isinstance(a, int) or a not in set(int(x) for x in acts[:n]):
            raise PlayError(f"action {i + 1} ({a!r}) is not legal there: the record was changed or is of other rules")
        K.apply_action(b.rules, st, int(a))
        k = int(K.running_score(b.rules, st, sc))
        if k > k0:
            k0 = k
            moments.append({"name": ad.moment_name(k), "scores": [float(x) for x in sc[:b.n]]})
    out = {"game": ad.id, "title": ad.title, "variant": b.variant, "players": b.n, "moments": moments,
           "final": None, "units": b.units, "lower_better": b.lower_better, "seat": record.get("seat"),
           "finished": bool(K.current_player(st) < 0), "actions": len(actions)}
    if out["finished"]:
        ret = np.zeros(8)
        K.returns(b.rules, st, ret)
        out["final"] = [float(x) for x in ret[:b.n]]
    else:  # a game saved before its end: the running score where it stopped
        K.running_score(b.rules, st, sc)
        out["running"] = [float(x) for x in sc[:b.n]]
    return out
