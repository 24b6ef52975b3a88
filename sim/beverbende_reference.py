"""Pure-Python reference engine for Beverbende, the readable twin of the kernels.

Clause ids (``BVB-n``) refer to ``seeds/beverbende.md``.  It plays the same
rounds as :mod:`ludolab.sim.beverbende_kernels`: the same random numbers in
the same order (deal, forgetting, random decisions, reshuffles), the same
policies, the same events.  It is slow on purpose (lists and small objects);
it is the baseline of ``ludolab bench`` and the other side of the
differential tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ludolab.stdlib.beverbende import DRAW2, N_KINDS, PEEK, SLOTS, SWAP, BeverbendeRules
from .rng import py_game_state, py_next_below, py_shuffle

MEM_ONE = 1 << 24
RANDOM, THRESHOLD, EV = 0, 1, 2

# event names (the kernel's EV_* codes, in order)
EVENTS = {1: "take", 2: "draw", 3: "exchange", 4: "discard", 5: "swap", 6: "peek", 7: "knock",
          8: "reshuffle", 9: "forget", 10: "replace", 11: "perform", 12: "score", 13: "cap",
          14: "aside", 15: "turn"}
CODES = {v: k for k, v in EVENTS.items()}


@dataclass
class Round:
    """The state of one round: rows, beliefs, piles (BVB-3..BVB-13).

    ``know[o][q][s]`` is observer o's belief of seat q slot s (None: unknown).
    """

    rules: BeverbendeRules
    start: int
    rows: list = field(default_factory=list)
    know: list = field(default_factory=list)
    pile: list = field(default_factory=list)      # top = last
    discard: list = field(default_factory=list)   # top = last
    aside: list = field(default_factory=list)
    turn: int = 0
    turns: int = 0
    knocker: int | None = None
    left: int = -1
    over: bool = False
    capped: bool = False
    reshuffles: int = 0
    events: list = field(default_factory=list)

    @property
    def players(self) -> int:
        return self.rules.players

    def log(self, name, *args):
        self.events.append([name, *[int(a) for a in args]])

    def cards(self) -> list[int]:
        """Count of every card kind over rows, piles and the cards put aside (BVB-1: always the deck)."""
        counts = [0] * N_KINDS
        for row in self.rows:
            for c in row:
                counts[c] += 1
        for c in self.pile + self.discard + self.aside:
            counts[c] += 1
        return counts


def deal(rules: BeverbendeRules, start: int, st: int) -> tuple[Round, int, list]:
    """BVB-3, BVB-4: returns (round, stream, the shuffled deck)."""
    deck = []
    for kind, n in enumerate(rules.composition):
        deck += [kind] * n
    st = py_shuffle(deck, st)
    P = rules.players
    r = Round(rules, start)
    r.rows = [deck[SLOTS * p:SLOTS * p + SLOTS] for p in range(P)]
    r.discard = [deck[SLOTS * P]]
    r.pile = deck[SLOTS * P + 1:]
    r.know = [[[None] * SLOTS for _ in range(P)] for _ in range(P)]
    for p in range(P):
        r.know[p][p][0] = r.rows[p][0]
        r.know[p][p][3] = r.rows[p][3]
    r.turn = start
    return r, st, list(deck)


def draw(r: Round, st: int) -> tuple[int, int]:
    """The top card of the pile; an empty pile is rebuilt from the discard pile first (BVB-11)."""
    if not r.pile:
        top = r.discard[-1]
        new = r.discard[:-1]
        st = py_shuffle(new, st)
        r.pile = new
        r.discard = [top]
        r.reshuffles += 1
        r.log("reshuffle", len(new))
    return r.pile.pop(), st


def observe(r: Round, seat: int, phase: str, card: int | None = None, first_of_two: bool = False) -> dict:
    """What the player at ``seat`` knows (BVB-13): public facts and their own beliefs only."""
    counts = [0] * N_KINDS
    for c in r.discard:
        counts[c] += 1
    return {"seat": seat, "players": r.players, "phase": phase, "card": card,
            "top": r.discard[-1] if r.discard else None, "turns": r.turns, "knocker": r.knocker,
            "pile": len(r.pile), "first_of_two": first_of_two,
            "exchange_specials": r.rules.exchange_specials, "discard_counts": counts,
            "composition": list(r.rules.composition),
            "know": [list(row) for row in r.know[seat]]}


# ------------------------------------------------------------------ policies
def _belief(obs, q, s, u):
    v = obs["know"][q][s]
    return u if v is None or v >= 10 else float(v)


def unseen_mean(obs) -> float:
    """Mean value of the number cards whose place the player does not know."""
    cnt = [obs["composition"][v] - obs["discard_counts"][v] for v in range(10)]
    for row in obs["know"]:
        for v in row:
            if v is not None and v < 10:
                cnt[v] -= 1
    c = obs["card"]
    if c is not None and c < 10:
        cnt[c] -= 1
    tot = sum(n for n in cnt if n > 0)
    acc = sum(v * n for v, n in enumerate(cnt) if n > 0)
    return 4.5 if tot == 0 else acc / tot


def _worst_own(obs, u):
    seat = obs["seat"]
    ws, wv = 0, _belief(obs, seat, 0, u)
    for s in range(1, SLOTS):
        b = _belief(obs, seat, s, u)
        if b > wv:
            ws, wv = s, b
    return ws, wv


def _best_target(obs, u):
    seat, P = obs["seat"], obs["players"]
    best = ((seat + 1) % P, 0, 1e9)
    for i in range(1, P):
        q = (seat + i) % P
        for s in range(SLOTS):
            b = _belief(obs, q, s, u)
            if b < best[2]:
                best = (q, s, b)
    return best


def _first_unknown_own(obs):
    for s in range(SLOTS):
        if obs["know"][obs["seat"]][s] is None:
            return s
    return None


def legal(obs) -> list:
    """The legal decisions of an observation, as the kernel encodes them (BVB-6..BVB-9)."""
    ph, P, seat = obs["phase"], obs["players"], obs["seat"]
    if ph == "action":
        top = obs["top"]
        return ([0, 1, 2, 3] if top is not None and top < 10 else []) + [4]
    if ph == "drawn":
        c = obs["card"]
        out = [0, 1, 2, 3] if c < 10 or obs["exchange_specials"] else []
        out.append(4)
        if c >= 10:
            out.append(5)
        return out
    if ph == "swap":
        return [own * 24 + ((seat + 1 + i) % P) * 4 + s for own in range(SLOTS)
                for i in range(P - 1) for s in range(SLOTS)]
    if ph == "peek":
        return [0, 1, 2, 3]
    return [0, 1]


def act(kind: int, par, obs, st: int) -> tuple[int, int]:
    """Decision of policy (kind, par) on obs; returns (decision, stream)."""
    if kind == RANDOM:
        options = legal(obs)
        if len(options) == 1:
            return options[0], st
        u, st = py_next_below(st, len(options))
        return options[u], st
    ph = obs["phase"]
    if kind == THRESHOLD:
        u, take, exch = par[2], par[1], par[3]
    else:
        u, take, exch = unseen_mean(obs), par[2], par[3]
    seat = obs["seat"]
    if ph == "knock":
        t = 0.0
        for s in range(SLOTS):
            t += _belief(obs, seat, s, u)
        if kind == THRESHOLD:
            return int(t <= par[0]), st
        if t <= par[1]:
            return 1, st
        for i in range(1, obs["players"]):
            q = (seat + i) % obs["players"]
            o = 0.0
            for s in range(SLOTS):
                o += _belief(obs, q, s, u)
            if t + par[0] > o:
                return 0, st
        return 1, st
    ws, wv = _worst_own(obs, u)
    if ph == "action":
        top = obs["top"]
        return (ws if top is not None and top < 10 and wv - top >= take else 4), st
    if ph == "drawn":
        c = obs["card"]
        if c < 10:
            return (ws if wv - c >= exch else 4), st
        if c == PEEK:
            if kind == THRESHOLD and par[5] < 0.5:
                return 4, st
            return (5 if _first_unknown_own(obs) is not None else 4), st
        if c == DRAW2:
            if kind == THRESHOLD and par[6] < 0.5:
                return 4, st
            return 5, st
        q, s, bv = _best_target(obs, u)
        ok = (wv >= par[4] and wv - bv >= 1.0) if kind == THRESHOLD else (wv - bv >= par[4])
        return (5 if ok else 4), st
    if ph == "swap":
        q, s, _ = _best_target(obs, u)
        return ws * 24 + q * 4 + s, st
    s = _first_unknown_own(obs)
    return (ws if s is None else s), st


# ------------------------------------------------------------------ the turn
def _place(r: Round, p: int, s: int, c: int, public: bool) -> int:
    old = r.rows[p][s]
    r.rows[p][s] = c
    r.discard.append(old)
    for o in range(r.players):
        r.know[o][p][s] = c if (public or o == p) else None
    return old


def play_turn(r: Round, kinds, params, mem, st: int,
              hook: Callable[[Round, dict, int], None] | None = None,
              chooser: Callable[[dict], int] | None = None) -> int:
    """One turn of the seat to move (BVB-5..BVB-9, BVB-13).

    ``hook(round, obs, decision)`` is called after every decision with the
    observation the policy saw (tests use it for invariants and legality);
    ``chooser(obs) -> decision``, if given, decides instead of the seat's
    policy (scripted rules tests).
    """
    P = r.players
    p = r.turn
    r.log("turn", p)
    if mem[p] > 0:   # BVB-13
        for q in range(P):
            for s in range(SLOTS):
                if r.know[p][q][s] is not None:
                    x, st = py_next_below(st, MEM_ONE)
                    if x < mem[p]:
                        r.know[p][q][s] = None
                        r.log("forget", p, q, s)

    def decide(obs):
        nonlocal st
        if chooser is not None:
            d = chooser(obs)
        else:
            d, st = act(kinds[p], params[p], obs, st)
        assert d in legal(obs), f"illegal decision {d} in phase {obs['phase']}"
        if hook is not None:
            hook(r, obs, d)
        return d

    d = decide(observe(r, p, "action"))
    if d < 4:   # BVB-6
        top = r.discard.pop()
        assert top < 10, "a special card cannot be taken from the discard pile"
        old = _place(r, p, d, top, True)
        r.log("take", p, d, top, old)
    else:       # BVB-7
        c, st = draw(r, st)
        r.log("draw", p, c)
        first_of_two = False
        while True:
            d = decide(observe(r, p, "drawn", c, first_of_two))
            if d < 4:
                old = _place(r, p, d, c, False)
                r.log("exchange", p, d, c, old)
                break
            if d == 4:
                r.discard.append(c)
                r.log("discard", p, c)
                if first_of_two:
                    c, st = draw(r, st)
                    r.log("draw", p, c)
                    first_of_two = False
                    continue
                break
            r.discard.append(c)   # BVB-8: the special goes on the discard pile as its effect starts
            r.log("perform", p, c)
            if c == SWAP:
                d = decide(observe(r, p, "swap"))
                own, q, qs = d // 24, (d % 24) // 4, d % 4
                r.rows[p][own], r.rows[q][qs] = r.rows[q][qs], r.rows[p][own]
                for o in range(P):
                    r.know[o][p][own], r.know[o][q][qs] = r.know[o][q][qs], r.know[o][p][own]
                r.log("swap", p, own, q, qs)
                break
            if c == PEEK:
                s = decide(observe(r, p, "peek"))
                r.know[p][p][s] = r.rows[p][s]
                r.log("peek", p, s, r.rows[p][s])
                break
            assert c == DRAW2
            c, st = draw(r, st)
            r.log("draw", p, c)
            first_of_two = True
    r.turns += 1
    if r.knocker is None:   # BVB-9
        if r.turns >= P:
            if decide(observe(r, p, "knock")) == 1:
                r.knocker = p
                r.left = P - 1
                r.log("knock", p)
        if r.knocker is None and r.turns >= r.rules.round_cap:   # BVB-12
            r.over = r.capped = True
            r.log("cap", r.turns)
    else:
        r.left -= 1
        if r.left == 0:
            r.over = True
    r.turn = (p + 1) % P
    return st


def end_round(r: Round, st: int) -> tuple[list[int], int]:
    """BVB-10: replace specials in the rows, knocker first then clockwise; returns (scores, stream)."""
    P = r.players
    first = r.knocker if r.knocker is not None else r.start
    for i in range(P):
        p = (first + i) % P
        for s in range(SLOTS):
            while r.rows[p][s] >= 10:
                r.aside.append(r.rows[p][s])
                r.log("aside", p, s, r.rows[p][s])
                c, st = draw(r, st)
                r.rows[p][s] = c
                r.log("replace", p, s, c)
    scores = [sum(row) for row in r.rows]
    for p, t in enumerate(scores):
        r.log("score", p, t)
    return scores, st


def play_round(rules: BeverbendeRules, kinds, params, mem, st: int, start: int = 0,
               hook=None) -> tuple[Round, list[int], int, list]:
    """A whole round; returns (final round state, scores, stream, the shuffled deck)."""
    r, st, deck = deal(rules, start, st)
    while not r.over:
        st = play_turn(r, kinds, params, mem, st, hook)
    scores, st = end_round(r, st)
    return r, scores, st, deck


def round_points(rules: BeverbendeRules, raw: list[int], knocker: int | None) -> list[int]:
    """Round scores under the scoring variant (BVB-15)."""
    lo = min(raw)
    alone = raw.count(lo) == 1
    if rules.scoring == "win-count":
        return [int(x == lo) for x in raw]
    pts = list(raw)
    if rules.scoring == "knocker-penalty" and knocker is not None and not (raw[knocker] == lo and alone):
        pts[knocker] += rules.knock_penalty
    return pts


def play_game(rules: BeverbendeRules, kinds, params, mem, st: int) -> tuple[list[int], int, int]:
    """A whole game (BVB-14); returns (totals, capped rounds, stream)."""
    P = rules.players
    totals = [0] * P
    capped = 0
    for rnd in range(rules.n_rounds):
        r, raw, st, _ = play_round(rules, kinds, params, mem, st, rnd % P)
        capped += int(r.capped)
        for p, x in enumerate(round_points(rules, raw, r.knocker)):
            totals[p] += x
    return totals, capped, st


def simulate_rounds(rules: BeverbendeRules, kinds, params, mem, key: int, games: int) -> list[list[int]]:
    """Raw round scores of rounds 0..games-1 of the chunk with ``key`` (the bench baseline)."""
    out = []
    for g in range(games):
        _, scores, _, _ = play_round(rules, kinds, params, mem, py_game_state(key, g))
        out.append(scores)
    return out
