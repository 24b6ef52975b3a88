"""Pure-Python reference engine for Beverbende, the readable twin of the kernels.

Clause ids (``BVB-n``) refer to ``seeds/beverbende.md``.  It plays the same
rounds as :mod:`ludolab.sim.beverbende_kernels`: the same random numbers in
the same order (deal, forgetting, random decisions, reshuffles), the same
policies, the same events.  It is slow on purpose (lists and small objects);
it is the baseline of ``ludolab bench`` and the other side of the
differential tests.  At the end, the nine step functions of
:mod:`ludolab.sim.step` over the kernels' state array, played with the same
rule code.
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


def observe_round(r: Round, seat: int, phase: str, card: int | None = None, first_of_two: bool = False) -> dict:
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


def policy_act(kind: int, par, obs, st: int) -> tuple[int, int]:
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
        if kind == THRESHOLD:   # the bar moves by par[7] for each lap completed before this turn
            return int(t <= par[0] + par[7] * ((obs["turns"] - 1) // obs["players"])), st
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


def forget(r: Round, p: int, mem_p: int, st: int) -> int:
    """BVB-13: player p forgets each value it remembers with probability mem_p / 2**24; returns the stream."""
    for q in range(r.players):
        for s in range(SLOTS):
            if r.know[p][q][s] is not None:
                x, st = py_next_below(st, MEM_ONE)
                if x < mem_p:
                    r.know[p][q][s] = None
                    r.log("forget", p, q, s)
    return st


def swap(r: Round, p: int, own: int, q: int, qs: int) -> None:
    """BVB-8 swap: p's slot own with q's slot qs, every player's knowledge moving with the cards."""
    r.rows[p][own], r.rows[q][qs] = r.rows[q][qs], r.rows[p][own]
    for o in range(r.players):
        r.know[o][p][own], r.know[o][q][qs] = r.know[o][q][qs], r.know[o][p][own]


def peek(r: Round, p: int, s: int) -> int:
    """BVB-8 peek: p looks at its own slot s; returns the value seen."""
    r.know[p][p][s] = r.rows[p][s]
    return r.rows[p][s]


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
        st = forget(r, p, mem[p], st)

    def decide(obs):
        nonlocal st
        if chooser is not None:
            d = chooser(obs)
        else:
            d, st = policy_act(kinds[p], params[p], obs, st)
        assert d in legal(obs), f"illegal decision {d} in phase {obs['phase']}"
        if hook is not None:
            hook(r, obs, d)
        return d

    d = decide(observe_round(r, p, "action"))
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
            d = decide(observe_round(r, p, "drawn", c, first_of_two))
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
                d = decide(observe_round(r, p, "swap"))
                own, q, qs = d // 24, (d % 24) // 4, d % 4
                swap(r, p, own, q, qs)
                r.log("swap", p, own, q, qs)
                break
            if c == PEEK:
                s = decide(observe_round(r, p, "peek"))
                r.log("peek", p, s, peek(r, p, s))
                break
            assert c == DRAW2
            c, st = draw(r, st)
            r.log("draw", p, c)
            first_of_two = True
    r.turns += 1
    if r.knocker is None:   # BVB-9
        if r.turns >= P:
            if decide(observe_round(r, p, "knock")) == 1:
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


# ------------------------------------------------------------------ the step interface
# The nine functions of ludolab.sim.step over the kernels' arrays (the same offsets, the same random
# numbers): each call reads the round into a Round, plays it with the functions above, writes it back.
from . import beverbende_kernels as _K   # noqa: E402  (offsets and encodings, defined once there)
from ludolab.stdlib.beverbende import SCORINGS   # noqa: E402

_PHASES = ("action", "drawn", "swap", "peek", "knock")
_MASK = (1 << 64) - 1


def _i64(st: int) -> int:
    return st - (1 << 64) if st >= 1 << 63 else st


def _u64(x) -> int:
    return int(x) & _MASK


def rules_of(rules) -> BeverbendeRules:
    """The ruleset of a kernels' rules array (inverse of ``BeverbendeRules.rules_array``)."""
    a = [int(x) for x in rules]
    return BeverbendeRules(players=a[_K.R_PLAYERS], composition=tuple(a[_K.R_COMP:_K.R_COMP + N_KINDS]),
                           exchange_specials=bool(a[_K.R_XSPEC]), round_cap=a[_K.R_CAP],
                           memory_loss=a[_K.R_MEMQ] / MEM_ONE, rounds=a[_K.R_ROUNDS],
                           scoring=SCORINGS[a[_K.R_SCORING]], knock_penalty=a[_K.R_PENALTY])


def _read(R: BeverbendeRules, state) -> Round:
    P = int(state[_K.S_NP])
    r = Round(R, int(state[_K.S_START]))
    r.rows = [[int(state[_K.S_ROWS + 4 * q + s]) for s in range(SLOTS)] for q in range(P)]
    r.know = [[[None if state[_K.S_KNOW + 24 * o + 4 * q + s] < 0 else int(state[_K.S_KNOW + 24 * o + 4 * q + s])
                for s in range(SLOTS)] for q in range(P)] for o in range(P)]
    r.pile = [int(x) for x in state[_K.S_PILE:_K.S_PILE + state[_K.S_PILE_N]]]
    r.discard = [int(x) for x in state[_K.S_DISC:_K.S_DISC + state[_K.S_DISC_N]]]
    r.aside = [int(x) for x in state[_K.S_ASIDE:_K.S_ASIDE + state[_K.S_ASIDE_N]]]
    r.turn, r.turns = int(state[_K.S_TURN]), int(state[_K.S_TURNS])
    r.knocker = None if state[_K.S_KNOCKER] < 0 else int(state[_K.S_KNOCKER])
    r.left = int(state[_K.S_LEFT])
    r.over, r.capped = bool(state[_K.S_OVER]), bool(state[_K.S_CAPPED])
    r.reshuffles = int(state[_K.S_RESHUFFLES])
    return r


def _write(r: Round, state) -> None:
    P = r.players
    state[_K.S_NP], state[_K.S_TURN], state[_K.S_TURNS] = P, r.turn, r.turns
    state[_K.S_KNOCKER] = -1 if r.knocker is None else r.knocker
    state[_K.S_LEFT], state[_K.S_START] = r.left, r.start
    state[_K.S_OVER], state[_K.S_CAPPED], state[_K.S_RESHUFFLES] = int(r.over), int(r.capped), r.reshuffles
    for q in range(P):
        for s in range(SLOTS):
            state[_K.S_ROWS + 4 * q + s] = r.rows[q][s]
    for o in range(_K.MAXP):
        for j in range(SLOTS * _K.MAXP):
            q, s = divmod(j, SLOTS)
            v = r.know[o][q][s] if (o < P and q < P) else None
            state[_K.S_KNOW + 24 * o + j] = -1 if v is None else v
    for base, nbase, cards in ((_K.S_PILE, _K.S_PILE_N, r.pile), (_K.S_DISC, _K.S_DISC_N, r.discard),
                               (_K.S_ASIDE, _K.S_ASIDE_N, r.aside)):
        state[nbase] = len(cards)
        state[base:base + _K.MAX_CARDS] = 0
        state[base:base + len(cards)] = cards
    counts = [0] * 16
    for c in r.discard:
        counts[c] += 1
    state[_K.S_DCOUNT:_K.S_DCOUNT + 16] = counts


def _start_turn(r: Round, state, st: int) -> int:
    p = r.turn
    if state[_K.S_MEM + p] > 0:
        st = forget(r, p, int(state[_K.S_MEM + p]), st)
    state[_K.S_PHASE], state[_K.S_CARD], state[_K.S_MODE] = _K.PH_ACTION, -1, 0
    return st


def _end_of_round(R: BeverbendeRules, r: Round, state, st: int):
    scores, st = end_round(r, st)
    for p, x in enumerate(round_points(R, scores, r.knocker)):
        state[_K.S_TOTAL + p] += x
    state[_K.S_CAPS] += int(r.capped)
    nxt = int(state[_K.S_ROUND]) + 1
    if nxt < R.n_rounds:
        state[_K.S_ROUND] = nxt
        r, st, _ = deal(R, nxt % R.players, st)
        return r, _start_turn(r, state, st)
    state[_K.S_GAMEOVER], state[_K.S_PHASE], state[_K.S_CARD], state[_K.S_MODE] = 1, _K.PH_ACTION, -1, 0
    return r, st


def _close_turn(R: BeverbendeRules, r: Round, state, st: int, before_knock: bool):
    if before_knock:
        if r.knocker is None and r.turns >= R.round_cap:   # BVB-12
            r.over = r.capped = True
    else:
        r.left -= 1
        if r.left == 0:
            r.over = True
    r.turn = (r.turn + 1) % r.players
    if r.over:
        return _end_of_round(R, r, state, st)
    return r, _start_turn(r, state, st)


def _end_action(R: BeverbendeRules, r: Round, state, st: int):
    r.turns += 1
    state[_K.S_CARD], state[_K.S_MODE] = -1, 0
    if r.knocker is None:
        if r.turns >= r.players:   # BVB-9
            state[_K.S_PHASE] = _K.PH_KNOCK
            return r, st
        return _close_turn(R, r, state, st, True)
    return _close_turn(R, r, state, st, False)


def new_game(rules, key, state) -> None:
    """Twin of ``beverbende_kernels.new_game``."""
    R = rules_of(rules)
    state[:] = 0
    state[_K.S_MEM:_K.S_MEM + R.players] = R.memory_q24
    r, st, _ = deal(R, 0, _u64(key))
    st = _start_turn(r, state, st)
    _write(r, state)
    state[_K.S_RNG] = _i64(st)


def current_player(state) -> int:
    """Twin of ``beverbende_kernels.current_player``."""
    return -1 if state[_K.S_GAMEOVER] == 1 else int(state[_K.S_TURN])


def is_terminal(state) -> bool:
    """Twin of ``beverbende_kernels.is_terminal``."""
    return bool(state[_K.S_GAMEOVER] == 1)


def _obs_dict(R: BeverbendeRules, r: Round, state) -> dict:
    ph = int(state[_K.S_PHASE])
    card = int(state[_K.S_CARD]) if ph == _K.PH_DRAWN else None
    return observe_round(r, r.turn, _PHASES[ph], card, bool(state[_K.S_MODE]))


def legal_actions(rules, state, out) -> int:
    """Twin of ``beverbende_kernels.legal_actions`` (the decisions of :func:`legal`, ascending)."""
    if state[_K.S_GAMEOVER] == 1:
        return 0
    R = rules_of(rules)
    acts = sorted(legal(_obs_dict(R, _read(R, state), state)))
    out[:len(acts)] = acts
    return len(acts)


def apply_action(rules, state, action) -> None:
    """Twin of ``beverbende_kernels.apply_action``."""
    R = rules_of(rules)
    r = _read(R, state)
    st = _u64(state[_K.S_RNG])
    p, ph, a = r.turn, int(state[_K.S_PHASE]), int(action)
    if ph == _K.PH_ACTION:
        if a < 4:   # BVB-6
            _place(r, p, a, r.discard.pop(), True)
            r, st = _end_action(R, r, state, st)
        else:       # BVB-7
            c, st = draw(r, st)
            state[_K.S_CARD], state[_K.S_MODE], state[_K.S_PHASE] = c, 0, _K.PH_DRAWN
    elif ph == _K.PH_DRAWN:
        c = int(state[_K.S_CARD])
        if a < 4:
            _place(r, p, a, c, False)
            r, st = _end_action(R, r, state, st)
        elif a == 4:
            r.discard.append(c)
            if state[_K.S_MODE] == 1:
                c, st = draw(r, st)
                state[_K.S_CARD], state[_K.S_MODE] = c, 0
            else:
                r, st = _end_action(R, r, state, st)
        else:       # BVB-8
            r.discard.append(c)
            state[_K.S_CARD], state[_K.S_MODE] = -1, 0
            if c == SWAP:
                state[_K.S_PHASE] = _K.PH_SWAP
            elif c == PEEK:
                state[_K.S_PHASE] = _K.PH_PEEK
            else:
                c, st = draw(r, st)
                state[_K.S_CARD], state[_K.S_MODE] = c, 1
    elif ph == _K.PH_SWAP:
        swap(r, p, a // 24, (a % 24) // 4, a % 4)
        r, st = _end_action(R, r, state, st)
    elif ph == _K.PH_PEEK:
        peek(r, p, a)
        r, st = _end_action(R, r, state, st)
    else:           # BVB-9
        if a == 1:
            r.knocker, r.left = p, r.players - 1
        r, st = _close_turn(R, r, state, st, True)
    _write(r, state)
    state[_K.S_RNG] = _i64(st)


def observe(rules, state, seat, obs) -> None:
    """Twin of ``beverbende_kernels.observe`` (the step observation, from :func:`observe_round`'s dict)."""
    R = rules_of(rules)
    r = _read(R, state)
    over = state[_K.S_GAMEOVER] == 1
    ph = int(state[_K.S_PHASE])
    card = int(state[_K.S_CARD]) if (seat == r.turn and not over and state[_K.S_CARD] >= 0) else None
    d = observe_round(r, seat, _PHASES[ph], card, bool(state[_K.S_MODE]))
    obs[:] = 0
    obs[_K.O_SEAT], obs[_K.O_NP], obs[_K.O_PHASE] = seat, r.players, ph
    obs[_K.O_CARD] = -1 if card is None else card
    obs[_K.O_TOP] = -1 if d["top"] is None else d["top"]
    obs[_K.O_CANKNOCK] = int(ph == _K.PH_KNOCK)
    obs[_K.O_TURNS], obs[_K.O_PILE_N] = d["turns"], d["pile"]
    obs[_K.O_KNOCKER] = -1 if d["knocker"] is None else d["knocker"]
    obs[_K.O_MODE], obs[_K.O_XSPEC] = int(d["first_of_two"]), int(d["exchange_specials"])
    obs[_K.O_DCOUNT:_K.O_DCOUNT + N_KINDS] = d["discard_counts"]
    obs[_K.O_COMP:_K.O_COMP + N_KINDS] = d["composition"]
    know = r.rows if over else d["know"]   # BVB-10: the rows are revealed at the end
    for j in range(SLOTS * _K.MAXP):
        q, s = divmod(j, SLOTS)
        v = know[q][s] if q < r.players else None
        obs[_K.O_KNOW + j] = -1 if v is None else v
    obs[_K.O_TURN] = -1 if over else r.turn
    obs[_K.O_ROUND], obs[_K.O_START], obs[_K.O_LEFT] = state[_K.S_ROUND], r.start, r.left
    obs[_K.O_OVER], obs[_K.O_RESHUFFLES], obs[_K.O_CAPS] = state[_K.S_GAMEOVER], r.reshuffles, state[_K.S_CAPS]
    obs[_K.O_TOTAL:_K.O_TOTAL + r.players] = state[_K.S_TOTAL:_K.S_TOTAL + r.players]


def _obs_to_dict(obs) -> dict:
    """The dict :func:`observe_round` gives, read back from a step observation (what :func:`act` decides on)."""
    P = int(obs[_K.O_NP])
    none = (lambda v: None if v < 0 else int(v))
    return {"seat": int(obs[_K.O_SEAT]), "players": P, "phase": _PHASES[int(obs[_K.O_PHASE])],
            "card": none(obs[_K.O_CARD]), "top": none(obs[_K.O_TOP]), "turns": int(obs[_K.O_TURNS]),
            "knocker": none(obs[_K.O_KNOCKER]), "pile": int(obs[_K.O_PILE_N]),
            "first_of_two": bool(obs[_K.O_MODE]), "exchange_specials": bool(obs[_K.O_XSPEC]),
            "discard_counts": [int(x) for x in obs[_K.O_DCOUNT:_K.O_DCOUNT + N_KINDS]],
            "composition": [int(x) for x in obs[_K.O_COMP:_K.O_COMP + N_KINDS]],
            "know": [[none(obs[_K.O_KNOW + 4 * q + s]) for s in range(SLOTS)] for q in range(P)]}


def act(kind, params, obs, state) -> int:
    """Twin of ``beverbende_kernels.act``: :func:`policy_act` on the observation, its draws from state[S_RNG]."""
    d, st = policy_act(int(kind), [float(x) for x in params], _obs_to_dict(obs), _u64(state[_K.S_RNG]))
    state[_K.S_RNG] = _i64(st)
    return int(d)


def returns(rules, state, out) -> None:
    """Twin of ``beverbende_kernels.returns``."""
    for p in range(int(state[_K.S_NP])):
        out[p] = float(state[_K.S_TOTAL + p])


def determinize(rules, obs, seat, key, state) -> None:
    """Twin of ``beverbende_kernels.determinize`` (the same deal of the hidden cards for the same key)."""
    R = rules_of(rules)
    P = int(obs[_K.O_NP])
    over = obs[_K.O_OVER] == 1
    state[:] = 0
    state[_K.S_MEM:_K.S_MEM + P] = R.memory_q24
    turn = int(obs[_K.O_TURN]) if obs[_K.O_TURN] >= 0 else (int(obs[_K.O_START]) + int(obs[_K.O_TURNS])) % P
    for k, v in ((_K.S_NP, P), (_K.S_TURN, turn), (_K.S_TURNS, obs[_K.O_TURNS]), (_K.S_KNOCKER, obs[_K.O_KNOCKER]),
                 (_K.S_LEFT, obs[_K.O_LEFT]), (_K.S_PILE_N, obs[_K.O_PILE_N]), (_K.S_START, obs[_K.O_START]),
                 (_K.S_OVER, int(over)), (_K.S_RESHUFFLES, obs[_K.O_RESHUFFLES]), (_K.S_PHASE, obs[_K.O_PHASE]),
                 (_K.S_MODE, obs[_K.O_MODE]), (_K.S_ROUND, obs[_K.O_ROUND]), (_K.S_GAMEOVER, obs[_K.O_OVER]),
                 (_K.S_CAPS, obs[_K.O_CAPS])):
        state[k] = v
    state[_K.S_TOTAL:_K.S_TOTAL + P] = obs[_K.O_TOTAL:_K.O_TOTAL + P]
    dcount = [int(x) for x in obs[_K.O_DCOUNT:_K.O_DCOUNT + N_KINDS]]
    state[_K.S_DCOUNT:_K.S_DCOUNT + N_KINDS] = dcount
    cnt = [R.composition[k] - dcount[k] for k in range(N_KINDS)]
    top = int(obs[_K.O_TOP])
    disc = [k for k in range(N_KINDS) for _ in range(dcount[k] - (k == top))] + ([top] if top >= 0 else [])
    state[_K.S_DISC_N] = len(disc)
    state[_K.S_DISC:_K.S_DISC + len(disc)] = disc
    know = [int(x) for x in obs[_K.O_KNOW:_K.O_KNOW + SLOTS * _K.MAXP]]
    for j in range(SLOTS * P):
        if know[j] >= 0:
            state[_K.S_ROWS + j] = know[j]
            cnt[know[j]] -= 1
    state[_K.S_KNOW + 24 * seat:_K.S_KNOW + 24 * seat + 24] = [-1] * 24 if over else know
    drawn = obs[_K.O_PHASE] == _K.PH_DRAWN and not over
    own_card = drawn and obs[_K.O_TURN] == seat
    state[_K.S_CARD] = -1
    if own_card:
        state[_K.S_CARD] = obs[_K.O_CARD]
        cnt[int(obs[_K.O_CARD])] -= 1
    if min(cnt) < 0:
        raise ValueError("the observation holds more cards of a kind than the deck")
    cards = [k for k in range(N_KINDS) for _ in range(cnt[k])]
    st = py_shuffle(cards, _u64(key))
    places = [j for j in range(SLOTS * P) if know[j] < 0]
    need = len(places) + int(drawn and not own_card)
    pile_n = int(obs[_K.O_PILE_N])
    if len(cards) - need < pile_n or (not over and len(cards) - need != pile_n):
        raise ValueError("the observation's draw pile does not hold the hidden cards")
    for n, j in enumerate(places):
        state[_K.S_ROWS + j] = cards[n]
    n = len(places)
    if drawn and not own_card:
        state[_K.S_CARD] = cards[n]
        n += 1
    state[_K.S_PILE:_K.S_PILE + pile_n] = cards[n:n + pile_n]
    aside = cards[n + pile_n:]
    state[_K.S_ASIDE_N] = len(aside)
    state[_K.S_ASIDE:_K.S_ASIDE + len(aside)] = aside
    for o in range(_K.MAXP):
        if o != seat:
            for j in range(SLOTS * _K.MAXP):
                mine = o < P and j // SLOTS == o and not over
                state[_K.S_KNOW + 24 * o + j] = state[_K.S_ROWS + j] if mine else -1
    state[_K.S_RNG] = _i64(st)
