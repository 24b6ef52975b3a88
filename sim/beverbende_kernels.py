"""Numba kernels for Beverbende (private; the face is :mod:`ludolab.sim.beverbende`).

Clause ids (``BVB-n``) refer to ``seeds/beverbende.md``.  Cards are small
ints (``0..9`` number cards, ``10`` swap, ``11`` peek, ``12`` draw twice).

A round's state is one int64 array with the named offsets ``S_*`` below: the
rows, every player's knowledge of every slot, the draw pile, the discard pile
(with its public count per card kind) and the cards put aside at the end of
the round.  A policy is data: a kind id (``K_RANDOM``, ``K_THRESHOLD``,
``K_EV``) and a float64 parameter array; it reads only the observation that
:func:`_observe` builds for its seat (offsets ``O_*``), never the state, so
hidden information cannot leak into a decision.

The rules arrive as the int64 array of
:meth:`ludolab.stdlib.beverbende.BeverbendeRules.rules_array` (offsets
``R_*``).  Every random number comes from the game's own stream
(:mod:`ludolab.sim.rng`), in the order the pure-Python twin
(:mod:`ludolab.sim.beverbende_reference`) draws them.

The step interface (:mod:`ludolab.sim.step`): ``new_game`` .. ``act`` play one
game of ``rules[R_ROUNDS]`` rounds (BVB-14; the rulebook's count, a single
round where the rules say ``rounds=1``) one decision at a time, over a state
of ``STATE_SIZE`` int64 (the round's state, then ``S_PHASE``, the card in hand
``S_CARD``, ``S_MODE``, the round, the game totals, each seat's forgetting
threshold ``S_MEM`` from ``rules[R_MEMQ]`` and the stream ``S_RNG``).  An
action is the decision of the phase the seat to move faces (``S_PHASE``,
public in the observation's ``O_PHASE``):

* ``PH_ACTION``: ``0..3`` take the top discard (a number card) into that slot
  (BVB-6); ``4`` draw (BVB-7).
* ``PH_DRAWN`` (the drawn card in hand): ``0..3`` exchange it into that slot
  (number cards; specials too with ``exchange_specials``); ``4`` discard it
  (the first card of a draw twice: discard and draw the second); ``5`` carry
  out the special card (BVB-8).
* ``PH_SWAP``: ``own_slot * 24 + opponent_seat * 4 + opponent_slot``.
* ``PH_PEEK``: the own slot to look at.
* ``PH_KNOCK`` (after the action, once every player has had a turn): ``1``
  knock, ``0`` not (BVB-9).

Chance follows an action inside ``apply_action`` in the order the fast
kernels draw it: a draw (and a reshuffle, BVB-11), the end of the round
(replacements, BVB-10), the next deal, and the forgetting of the next seat to
move (BVB-13).  ``observe`` is ``_observe`` (what the policies read) followed
by the game's public facts (``O_TURN`` .. ``O_TOTAL``); other players'
memories are not in it.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from . import kernel_cache as _kernel_cache  # noqa: F401  (processes sharing the cache take turns)

from . import play as _loops
from . import search as _search
from .rng import game_state, next_below, shuffle_inplace

# ------------------------------------------------------------------ cards
SWAP = 10
PEEK = 11
DRAW2 = 12
N_KINDS = 13
SLOTS = 4
MAXP = 6
MAX_CARDS = 260

# ------------------------------------------------------------------ rules array
R_PLAYERS = 0
R_XSPEC = 1
R_CAP = 2
R_MEMQ = 3
R_ROUNDS = 4
R_SCORING = 5
R_PENALTY = 6
R_NCARDS = 7
R_COMP = 8
SC_SUM = 0
SC_PENALTY = 1
SC_WINCOUNT = 2
MEM_ONE = 1 << 24

# ------------------------------------------------------------------ state offsets
S_NP = 0          # players
S_TURN = 1        # seat to move
S_TURNS = 2       # turns played this round
S_KNOCKER = 3     # seat that knocked, -1 before a knock
S_LEFT = 4        # turns left after the knock
S_PILE_N = 5
S_DISC_N = 6
S_ASIDE_N = 7
S_START = 8       # the round's starting seat
S_OVER = 9        # 1 when the round is over
S_CAPPED = 10     # 1 when the round ended by the round cap (BVB-12)
S_RESHUFFLES = 11
S_ROWS = 16                       # card in seat q slot s at S_ROWS + 4 q + s
S_KNOW = S_ROWS + MAXP * SLOTS    # observer o's belief of seat q slot s: S_KNOW + 24 o + 4 q + s (-1 unknown)
S_DCOUNT = S_KNOW + MAXP * MAXP * SLOTS   # cards of each kind on the discard pile
S_PILE = S_DCOUNT + 16            # draw pile, top = S_PILE + pile_n - 1
S_DISC = S_PILE + MAX_CARDS       # discard pile, top = S_DISC + disc_n - 1
S_ASIDE = S_DISC + MAX_CARDS      # special cards put aside at the end of the round
S_SIZE = S_ASIDE + MAX_CARDS

# ------------------------------------------------------------------ observation offsets
O_SEAT = 0
O_NP = 1
O_PHASE = 2
O_CARD = 3        # the card just drawn (phase PH_DRAWN), else -1
O_TOP = 4         # top of the discard pile, -1 if empty
O_CANKNOCK = 5
O_TURNS = 6
O_KNOCKER = 7
O_PILE_N = 8
O_MODE = 9        # 1 for the first card of a draw twice (discarding it draws again)
O_XSPEC = 10
O_DCOUNT = 16     # public: cards of each kind on the discard pile
O_COMP = O_DCOUNT + N_KINDS   # public: the deck composition
O_KNOW = O_COMP + N_KINDS     # this player's belief of seat q slot s at O_KNOW + 4 q + s
O_SIZE = O_KNOW + MAXP * SLOTS

# ------------------------------------------------------------------ phases and decisions
PH_ACTION = 0     # decision 0..3: take the discard into slot s (BVB-6); 4: draw (BVB-7)
PH_DRAWN = 1      # 0..3: exchange into slot s; 4: discard; 5: carry out the special card
PH_SWAP = 2       # own_slot * 24 + opponent_seat * 4 + opponent_slot (BVB-8)
PH_PEEK = 3       # own slot to look at (BVB-8)
PH_KNOCK = 4      # 1 to knock (BVB-9)
D_DRAW = 4
D_DISCARD = 4
D_PERFORM = 5

# ------------------------------------------------------------------ policies
K_RANDOM = 0
K_THRESHOLD = 1
K_EV = 2
N_PARAMS = 8
# threshold heuristic parameters
T_KNOCK = 0       # knock when the believed total is at most this
T_TAKE = 1        # take the discard when it improves the worst believed slot by at least this
T_UNKNOWN = 2     # value assumed for an unknown card
T_EXCHANGE = 3    # exchange a drawn number card when it improves the worst believed slot by at least this
T_SWAP = 4        # carry out a swap when the own worst believed card is at least this (and the target is lower)
T_PEEK = 5        # >= 0.5: carry out a peek when an own card is unknown
T_DRAW2 = 6       # >= 0.5: carry out a draw twice
T_LATE = 7        # the knock bar moves by this much for each lap of the table completed before this turn
# expected-value policy parameters
E_MARGIN = 0      # knock when own expected total + margin <= every opponent's expected total
E_KMAX = 1        # ... or when the own expected total is at most this
E_TAKE = 2
E_EXCHANGE = 3
E_SWAPGAIN = 4    # carry out a swap when it gains at least this in expectation

# ------------------------------------------------------------------ trace events
EV_TAKE = 1       # seat, slot, card taken, card replaced
EV_DRAW = 2       # seat, card
EV_EXCHANGE = 3   # seat, slot, card, card replaced
EV_DISCARD = 4    # seat, card
EV_SWAP = 5       # seat, own slot, opponent seat, opponent slot
EV_PEEK = 6       # seat, slot, value seen
EV_KNOCK = 7      # seat
EV_RESHUFFLE = 8  # cards in the new pile
EV_FORGET = 9     # seat, seat of the slot, slot
EV_REPLACE = 10   # seat, slot, card drawn for it (a special is put aside too)
EV_PERFORM = 11   # seat, special card
EV_SCORE = 12     # seat, score
EV_CAP = 13       # turns played
EV_ASIDE = 14     # seat, slot, special card put aside
EV_TURN = 15      # seat


@njit(cache=True, inline="always")
def _ev(trace, code, a, b, c, d):
    if trace.shape[0] > 1:
        n = trace[0, 0] + 1
        if n < trace.shape[0]:
            trace[n, 0] = code
            trace[n, 1] = a
            trace[n, 2] = b
            trace[n, 3] = c
            trace[n, 4] = d
            trace[0, 0] = n


# ------------------------------------------------------------------ piles
@njit(cache=True)
def _discard(state, c):
    """Put card c face up on the discard pile (public)."""
    n = state[S_DISC_N]
    state[S_DISC + n] = c
    state[S_DISC_N] = n + 1
    state[S_DCOUNT + c] += 1


@njit(cache=True)
def _pop_discard(state):
    n = state[S_DISC_N] - 1
    c = state[S_DISC + n]
    state[S_DISC_N] = n
    state[S_DCOUNT + c] -= 1
    return c


@njit(cache=True)
def _reshuffle(state, st, trace):
    """BVB-11: the discard pile except its top card becomes the new draw pile."""
    nd = state[S_DISC_N]
    k = nd - 1
    top = state[S_DISC + k]
    for i in range(k):
        c = state[S_DISC + i]
        state[S_PILE + i] = c
        state[S_DCOUNT + c] -= 1
    st = shuffle_inplace(state[S_PILE:S_PILE + k], st)
    state[S_PILE_N] = k
    state[S_DISC] = top
    state[S_DISC_N] = 1
    state[S_RESHUFFLES] += 1
    _ev(trace, EV_RESHUFFLE, k, 0, 0, 0)
    return st


@njit(cache=True)
def _draw(state, st, trace):
    """Top card of the draw pile, reshuffling first if it is empty (BVB-11)."""
    if state[S_PILE_N] == 0:
        st = _reshuffle(state, st, trace)
    n = state[S_PILE_N] - 1
    c = state[S_PILE + n]
    state[S_PILE_N] = n
    return c, st


# ------------------------------------------------------------------ deal
@njit(cache=True)
def _deal(state, rules, start, st, trace):
    """BVB-3, BVB-4: shuffle, deal four cards a seat, start the discard pile, look at the outer cards."""
    P = rules[R_PLAYERS]
    for j in range(S_ROWS):
        state[j] = 0
    for k in range(N_KINDS):
        state[S_DCOUNT + k] = 0
    state[S_NP] = P
    n = 0
    for kind in range(N_KINDS):
        for _ in range(rules[R_COMP + kind]):
            state[S_PILE + n] = kind
            n += 1
    st = shuffle_inplace(state[S_PILE:S_PILE + n], st)
    for j in range(SLOTS * P):
        state[S_ROWS + j] = state[S_PILE + j]
    for j in range(S_KNOW, S_KNOW + MAXP * MAXP * SLOTS):
        state[j] = -1
    _discard(state, state[S_PILE + SLOTS * P])
    m = n - SLOTS * P - 1
    for i in range(m):
        state[S_PILE + i] = state[S_PILE + SLOTS * P + 1 + i]
    state[S_PILE_N] = m
    for p in range(P):
        kb = S_KNOW + 24 * p + 4 * p
        state[kb] = state[S_ROWS + 4 * p]
        state[kb + 3] = state[S_ROWS + 4 * p + 3]
    state[S_TURN] = start
    state[S_START] = start
    state[S_KNOCKER] = -1
    state[S_LEFT] = -1
    return st


# ------------------------------------------------------------------ observation
@njit(cache=True)
def _observe(state, rules, seat, phase, card, mode, obs):
    """Fill obs (int64, O_SIZE) with what the player at ``seat`` knows (BVB-13).

    Public: the phase, the discard pile (top and count per kind), the pile
    size, the turn count, the knock, the rules.  Private: the card the player
    just drew and the player's own beliefs of every slot.
    """
    P = state[S_NP]
    obs[O_SEAT] = seat
    obs[O_NP] = P
    obs[O_PHASE] = phase
    obs[O_CARD] = card
    nd = state[S_DISC_N]
    obs[O_TOP] = state[S_DISC + nd - 1] if nd > 0 else -1
    obs[O_CANKNOCK] = 1 if (phase == PH_KNOCK) else 0
    obs[O_TURNS] = state[S_TURNS]
    obs[O_KNOCKER] = state[S_KNOCKER]
    obs[O_PILE_N] = state[S_PILE_N]
    obs[O_MODE] = mode
    obs[O_XSPEC] = rules[R_XSPEC]
    for k in range(N_KINDS):
        obs[O_DCOUNT + k] = state[S_DCOUNT + k]
        obs[O_COMP + k] = rules[R_COMP + k]
    base = S_KNOW + 24 * seat
    for j in range(SLOTS * P):
        obs[O_KNOW + j] = state[base + j]
    for j in range(SLOTS * P, SLOTS * MAXP):
        obs[O_KNOW + j] = -1


# ------------------------------------------------------------------ policies
@njit(cache=True)
def _belief(obs, q, s, u):
    """Believed value of seat q slot s: the known number, else u (a known special is replaced at
    the end of the round by an unknown number, BVB-10)."""
    v = obs[O_KNOW + 4 * q + s]
    if v < 0 or v >= 10:
        return u
    return float(v)


@njit(cache=True)
def _unseen_mean(obs):
    """Mean value of the number cards whose place the player does not know (the unseen multiset)."""
    P = obs[O_NP]
    cnt = np.zeros(10, dtype=np.int64)
    for v in range(10):
        cnt[v] = obs[O_COMP + v] - obs[O_DCOUNT + v]
    for j in range(SLOTS * P):
        v = obs[O_KNOW + j]
        if 0 <= v < 10:
            cnt[v] -= 1
    c = obs[O_CARD]
    if 0 <= c < 10:
        cnt[c] -= 1
    tot = 0
    acc = 0
    for v in range(10):
        if cnt[v] > 0:
            tot += cnt[v]
            acc += v * cnt[v]
    if tot == 0:
        return 4.5
    return acc / tot


@njit(cache=True)
def _worst_own(obs, u):
    """(slot, believed value) of the own slot believed highest; ties to the lowest slot."""
    seat = obs[O_SEAT]
    ws = 0
    wv = _belief(obs, seat, 0, u)
    for s in range(1, SLOTS):
        b = _belief(obs, seat, s, u)
        if b > wv:
            wv = b
            ws = s
    return ws, wv


@njit(cache=True)
def _own_total(obs, u):
    seat = obs[O_SEAT]
    t = 0.0
    for s in range(SLOTS):
        t += _belief(obs, seat, s, u)
    return t


@njit(cache=True)
def _best_target(obs, u):
    """(seat, slot, believed value) of the opponent slot believed lowest, clockwise from the next seat."""
    seat = obs[O_SEAT]
    P = obs[O_NP]
    bq = (seat + 1) % P
    bs = 0
    bv = 1e9
    for i in range(1, P):
        q = (seat + i) % P
        for s in range(SLOTS):
            b = _belief(obs, q, s, u)
            if b < bv:
                bv = b
                bq = q
                bs = s
    return bq, bs, bv


@njit(cache=True)
def _first_unknown_own(obs):
    seat = obs[O_SEAT]
    for s in range(SLOTS):
        if obs[O_KNOW + 4 * seat + s] < 0:
            return s
    return -1


@njit(cache=True)
def _act_random(obs, st):
    """Uniformly random among the legal decisions (one draw, none if only one is legal)."""
    ph = obs[O_PHASE]
    P = obs[O_NP]
    seat = obs[O_SEAT]
    if ph == PH_ACTION:
        top = obs[O_TOP]
        if 0 <= top < 10:
            u, st = next_below(st, 5)
            return u, st
        return D_DRAW, st
    if ph == PH_DRAWN:
        c = obs[O_CARD]
        exch = c < 10 or obs[O_XSPEC] == 1
        n = 1
        if exch:
            n += 4
        if c >= 10:
            n += 1
        u, st = next_below(st, n)
        if exch:
            return u, st
        return u + 4, st
    if ph == PH_SWAP:
        m = (P - 1) * SLOTS
        u, st = next_below(st, SLOTS * m)
        own = u // m
        r = u % m
        q = (seat + 1 + r // SLOTS) % P
        return own * 24 + q * 4 + r % SLOTS, st
    if ph == PH_PEEK:
        u, st = next_below(st, SLOTS)
        return u, st
    u, st = next_below(st, 2)
    return u, st


@njit(cache=True)
def _act_heuristic(kind, par, obs):
    """The threshold heuristic (kind K_THRESHOLD) and the expected-value policy (K_EV)."""
    ph = obs[O_PHASE]
    if kind == K_THRESHOLD:
        u = par[T_UNKNOWN]
        take = par[T_TAKE]
        exch = par[T_EXCHANGE]
    else:
        u = _unseen_mean(obs)
        take = par[E_TAKE]
        exch = par[E_EXCHANGE]
    if ph == PH_KNOCK:
        t = _own_total(obs, u)
        if kind == K_THRESHOLD:
            return 1 if t <= par[T_KNOCK] + par[T_LATE] * ((obs[O_TURNS] - 1) // obs[O_NP]) else 0
        if t <= par[E_KMAX]:
            return 1
        seat = obs[O_SEAT]
        P = obs[O_NP]
        for i in range(1, P):
            q = (seat + i) % P
            o = 0.0
            for s in range(SLOTS):
                o += _belief(obs, q, s, u)
            if t + par[E_MARGIN] > o:
                return 0
        return 1
    ws, wv = _worst_own(obs, u)
    if ph == PH_ACTION:
        top = obs[O_TOP]
        if 0 <= top < 10 and wv - top >= take:
            return ws
        return D_DRAW
    if ph == PH_DRAWN:
        c = obs[O_CARD]
        if c < 10:
            if wv - c >= exch:
                return ws
            return D_DISCARD
        if c == PEEK:
            if kind == K_THRESHOLD and par[T_PEEK] < 0.5:
                return D_DISCARD
            return D_PERFORM if _first_unknown_own(obs) >= 0 else D_DISCARD
        if c == DRAW2:
            if kind == K_THRESHOLD and par[T_DRAW2] < 0.5:
                return D_DISCARD
            return D_PERFORM
        q, s, bv = _best_target(obs, u)
        if kind == K_THRESHOLD:
            ok = wv >= par[T_SWAP] and wv - bv >= 1.0
        else:
            ok = wv - bv >= par[E_SWAPGAIN]
        return D_PERFORM if ok else D_DISCARD
    if ph == PH_SWAP:
        q, s, bv = _best_target(obs, u)
        return ws * 24 + q * 4 + s
    # PH_PEEK
    s = _first_unknown_own(obs)
    return ws if s < 0 else s


@njit(cache=True)
def _act(kind, par, obs, st):
    """The decision of policy (kind, par) on observation obs; returns (decision, stream)."""
    if kind == K_RANDOM:
        return _act_random(obs, st)
    return _act_heuristic(kind, par, obs), st


# ------------------------------------------------------------------ a turn
@njit(cache=True)
def _forget(state, p, qi, st, trace):
    """BVB-13: each value player p remembers is forgotten with probability qi / 2**24."""
    P = state[S_NP]
    base = S_KNOW + 24 * p
    for j in range(SLOTS * P):
        if state[base + j] >= 0:
            r, st = next_below(st, MEM_ONE)
            if r < qi:
                state[base + j] = -1
                _ev(trace, EV_FORGET, p, j // SLOTS, j % SLOTS, 0)
    return st


@njit(cache=True)
def _place(state, p, s, c, public):
    """Card c into seat p slot s; the old card goes face up on the discard pile (BVB-6, BVB-7)."""
    P = state[S_NP]
    old = state[S_ROWS + 4 * p + s]
    state[S_ROWS + 4 * p + s] = c
    _discard(state, old)
    for o in range(P):
        state[S_KNOW + 24 * o + 4 * p + s] = c if (public or o == p) else -1
    return old


@njit(cache=True, inline="always")
def _swap_slots(state, p, own, q, qs):
    """BVB-8 swap: seat p's slot own with seat q's slot qs, every player's knowledge moving with the cards."""
    P = state[S_NP]
    a = S_ROWS + 4 * p + own
    b = S_ROWS + 4 * q + qs
    t = state[a]
    state[a] = state[b]
    state[b] = t
    for o in range(P):
        ka = S_KNOW + 24 * o + 4 * p + own
        kb = S_KNOW + 24 * o + 4 * q + qs
        t = state[ka]
        state[ka] = state[kb]
        state[kb] = t


@njit(cache=True, inline="always")
def _peek_slot(state, p, s):
    """BVB-8 peek: seat p looks at its own slot s; returns the value seen."""
    v = state[S_ROWS + 4 * p + s]
    state[S_KNOW + 24 * p + 4 * p + s] = v
    return v


@njit(cache=True)
def _play_turn(state, rules, kinds, params, mem, obs, st, trace):
    """One turn of the seat to move (BVB-5..BVB-9, BVB-13); returns the stream."""
    P = state[S_NP]
    p = state[S_TURN]
    _ev(trace, EV_TURN, p, 0, 0, 0)
    if mem[p] > 0:
        st = _forget(state, p, mem[p], st, trace)
    kind = kinds[p]
    par = params[p]
    _observe(state, rules, p, PH_ACTION, -1, 0, obs)
    d, st = _act(kind, par, obs, st)
    if d < D_DRAW:
        top = _pop_discard(state)
        old = _place(state, p, d, top, True)
        _ev(trace, EV_TAKE, p, d, top, old)
    else:
        c, st = _draw(state, st, trace)
        _ev(trace, EV_DRAW, p, c, 0, 0)
        mode = 0
        while True:
            _observe(state, rules, p, PH_DRAWN, c, mode, obs)
            d, st = _act(kind, par, obs, st)
            if d < D_DISCARD:
                old = _place(state, p, d, c, False)
                _ev(trace, EV_EXCHANGE, p, d, c, old)
                break
            if d == D_DISCARD:
                _discard(state, c)
                _ev(trace, EV_DISCARD, p, c, 0, 0)
                if mode == 1:
                    c, st = _draw(state, st, trace)
                    _ev(trace, EV_DRAW, p, c, 0, 0)
                    mode = 0
                    continue
                break
            _discard(state, c)
            _ev(trace, EV_PERFORM, p, c, 0, 0)
            if c == SWAP:
                _observe(state, rules, p, PH_SWAP, -1, 0, obs)
                d, st = _act(kind, par, obs, st)
                own = d // 24
                q = (d % 24) // 4
                qs = d % 4
                _swap_slots(state, p, own, q, qs)
                _ev(trace, EV_SWAP, p, own, q, qs)
                break
            if c == PEEK:
                _observe(state, rules, p, PH_PEEK, -1, 0, obs)
                d, st = _act(kind, par, obs, st)
                v = _peek_slot(state, p, d)
                _ev(trace, EV_PEEK, p, d, v, 0)
                break
            c, st = _draw(state, st, trace)
            _ev(trace, EV_DRAW, p, c, 0, 0)
            mode = 1
    state[S_TURNS] += 1
    if state[S_KNOCKER] < 0:
        if state[S_TURNS] >= P:
            _observe(state, rules, p, PH_KNOCK, -1, 0, obs)
            k, st = _act(kind, par, obs, st)
            if k == 1:
                state[S_KNOCKER] = p
                state[S_LEFT] = P - 1
                _ev(trace, EV_KNOCK, p, 0, 0, 0)
        if state[S_KNOCKER] < 0 and state[S_TURNS] >= rules[R_CAP]:
            state[S_OVER] = 1
            state[S_CAPPED] = 1
            _ev(trace, EV_CAP, state[S_TURNS], 0, 0, 0)
    else:
        state[S_LEFT] -= 1
        if state[S_LEFT] == 0:
            state[S_OVER] = 1
    state[S_TURN] = (p + 1) % P
    return st


@njit(cache=True)
def _end_round(state, st, scores, trace):
    """BVB-10: replace the special cards in the rows (knocker first, then clockwise) and score."""
    P = state[S_NP]
    first = state[S_KNOCKER] if state[S_KNOCKER] >= 0 else state[S_START]
    for i in range(P):
        p = (first + i) % P
        for s in range(SLOTS):
            a = S_ROWS + 4 * p + s
            while state[a] >= 10:
                n = state[S_ASIDE_N]
                state[S_ASIDE + n] = state[a]
                state[S_ASIDE_N] = n + 1
                _ev(trace, EV_ASIDE, p, s, state[a], 0)
                c, st = _draw(state, st, trace)
                state[a] = c
                _ev(trace, EV_REPLACE, p, s, c, 0)
    for p in range(P):
        t = 0
        for s in range(SLOTS):
            t += state[S_ROWS + 4 * p + s]
        scores[p] = t
        _ev(trace, EV_SCORE, p, t, 0, 0)
    return st


@njit(cache=True)
def _play_round(state, rules, kinds, params, mem, start, obs, st, scores, trace):
    """A whole round from the deal to the scores (BVB-3..BVB-12); returns the stream."""
    st = _deal(state, rules, start, st, trace)
    while state[S_OVER] == 0:
        st = _play_turn(state, rules, kinds, params, mem, obs, st, trace)
    st = _end_round(state, st, scores, trace)
    return st


@njit(cache=True)
def _round_points(state, rules, raw, pts):
    """Round score of each seat under the scoring variant (BVB-15); the win-count variant gives
    1 to every seat tied for the lowest row."""
    P = state[S_NP]
    lo = raw[0]
    for p in range(1, P):
        if raw[p] < lo:
            lo = raw[p]
    nlo = 0
    for p in range(P):
        if raw[p] == lo:
            nlo += 1
    sc = rules[R_SCORING]
    kn = state[S_KNOCKER]
    for p in range(P):
        if sc == SC_WINCOUNT:
            pts[p] = 1 if raw[p] == lo else 0
        else:
            pts[p] = raw[p]
            if sc == SC_PENALTY and p == kn and not (raw[p] == lo and nlo == 1):
                pts[p] += rules[R_PENALTY]
    return lo, nlo


# ------------------------------------------------------------------ Monte Carlo kernels
RS_HIST = 10      # RS_HIST + v: rounds in which the row's value was v (0..36)
N_ROUND_STATS = RS_HIST + 37
RS_SCORE = 0      # round score under the scoring variant (win-count: the raw row value)
RS_SCORE2 = 1
RS_WIN = 2        # strictly lowest row
RS_TIE = 3        # tied for the lowest row with others
RS_KNOCK = 4
RS_KNOCK_WIN = 5  # knocked and was strictly lowest
RS_RAW = 6
RS_RAW2 = 7
RT_CAPPED = 0     # out[i, P, ...]: rounds ended by the cap
RT_TURNS = 1
RT_TURNS2 = 2
RT_MEAN = 3       # sum over rounds of the seats' total score
RT_MEAN2 = 4      # ... and of its square
RT_RESHUFFLES = 5
RT_GAMES = 6      # rounds played


@njit(cache=True)
def _round_stats(state, rules, raw, pts, out_p, out_t):
    P = state[S_NP]
    lo, nlo = _round_points(state, rules, raw, pts)
    kn = state[S_KNOCKER]
    tot = 0
    for p in range(P):
        x = pts[p] if rules[R_SCORING] != SC_WINCOUNT else raw[p]
        out_p[p, RS_SCORE] += x
        out_p[p, RS_SCORE2] += x * x
        tot += x
        if raw[p] == lo:
            if nlo == 1:
                out_p[p, RS_WIN] += 1
            else:
                out_p[p, RS_TIE] += 1
        if p == kn:
            out_p[p, RS_KNOCK] += 1
            if raw[p] == lo and nlo == 1:
                out_p[p, RS_KNOCK_WIN] += 1
        out_p[p, RS_RAW] += raw[p]
        out_p[p, RS_RAW2] += raw[p] * raw[p]
        out_p[p, RS_HIST + raw[p]] += 1
    out_t[RT_CAPPED] += state[S_CAPPED]
    out_t[RT_TURNS] += state[S_TURNS]
    out_t[RT_TURNS2] += state[S_TURNS] * state[S_TURNS]
    out_t[RT_MEAN] += tot
    out_t[RT_MEAN2] += tot * tot
    out_t[RT_RESHUFFLES] += state[S_RESHUFFLES]
    out_t[RT_GAMES] += 1


@njit(cache=True, parallel=True)
def _simulate_rounds(keys, starts, stops, rules, kinds, params, mem, out):
    """Single rounds, seat 0 starting; out[i, p, RS_*] per seat p, out[i, P, RT_*] per round.

    kinds int64 (P,), params float64 (P, N_PARAMS), mem int64 (P,) forgetting thresholds out of 2**24.
    """
    P = rules[R_PLAYERS]
    for i in prange(keys.shape[0]):
        state = np.zeros(S_SIZE, dtype=np.int64)
        obs = np.zeros(O_SIZE, dtype=np.int64)
        raw = np.zeros(P, dtype=np.int64)
        pts = np.zeros(P, dtype=np.int64)
        trace = np.zeros((1, 5), dtype=np.int64)
        for g in range(starts[i], stops[i]):
            st = game_state(keys[i], g)
            st = _play_round(state, rules, kinds, params, mem, 0, obs, st, raw, trace)
            _round_stats(state, rules, raw, pts, out[i, :P], out[i, P])


@njit(cache=True, parallel=True)
def _compare_rounds(keys, starts, stops, rules, kinds, params, mem, focal, out):
    """Common random numbers: round g is played under each of K seatings with the same stream.

    kinds int64 (K, P), params float64 (K, P, N_PARAMS), mem int64 (K, P); the focal seat's
    round score x_k (under the scoring variant) is accumulated:
    out[i, a, b] += (x_a - x_b)**2 for b < K; out[i, a, K] += x_a; out[i, a, K+1] += x_a**2;
    out[i, a, K+2] += strict wins of the focal seat; out[i, a, K+3] += shared wins;
    out[i, a, K+4] += capped rounds; out[i, a, K+5] += knocks by the focal seat;
    out[i, a, K+6] += the mean score over all seats (sum over seats); out[i, a, K+7] += its square;
    out[i, a, K+8] += (P - 1) times the focal seat's margin over the mean of the other seats; [K+9] its square;
    out[i, a, K+10+b] += (m_a - m_b)**2 for those (P - 1)-scaled margins (the paired margin difference);
    out[i, a, 2K+10] += 1 when the focal seat's round score differs from the first seating's (x_a != x_0).
    """
    K = kinds.shape[0]
    P = rules[R_PLAYERS]
    for i in prange(keys.shape[0]):
        state = np.zeros(S_SIZE, dtype=np.int64)
        obs = np.zeros(O_SIZE, dtype=np.int64)
        raw = np.zeros(P, dtype=np.int64)
        pts = np.zeros(P, dtype=np.int64)
        x = np.zeros(K, dtype=np.int64)
        mx = np.zeros(K, dtype=np.int64)
        trace = np.zeros((1, 5), dtype=np.int64)
        for g in range(starts[i], stops[i]):
            for a in range(K):
                st = game_state(keys[i], g)
                st = _play_round(state, rules, kinds[a], params[a], mem[a], 0, obs, st, raw, trace)
                lo, nlo = _round_points(state, rules, raw, pts)
                xa = raw[focal] if rules[R_SCORING] == SC_WINCOUNT else pts[focal]
                x[a] = xa
                out[i, a, K] += xa
                out[i, a, K + 1] += xa * xa
                if raw[focal] == lo:
                    if nlo == 1:
                        out[i, a, K + 2] += 1
                    else:
                        out[i, a, K + 3] += 1
                out[i, a, K + 4] += state[S_CAPPED]
                if state[S_KNOCKER] == focal:
                    out[i, a, K + 5] += 1
                tot = 0
                totx = 0
                for p in range(P):
                    tot += raw[p]
                    totx += raw[p] if rules[R_SCORING] == SC_WINCOUNT else pts[p]
                out[i, a, K + 6] += tot
                out[i, a, K + 7] += tot * tot
                m = (P - 1) * xa - (totx - xa)
                out[i, a, K + 8] += m
                out[i, a, K + 9] += m * m
                mx[a] = m
            for a in range(K):
                for b in range(K):
                    dd = x[a] - x[b]
                    out[i, a, b] += dd * dd
                    dm = mx[a] - mx[b]
                    out[i, a, K + 10 + b] += dm * dm
                if x[a] != x[0]:
                    out[i, a, 2 * K + 10] += 1


@njit(cache=True)
def _play_game(state, rules, kinds, params, mem, obs, st, scores, trace):
    """A whole game (BVB-14): rules[R_ROUNDS] rounds, the start moving one seat each round.
    Returns (stream, capped rounds).

    Args:
        scores: ``(raw, pts, total)``, int64 (players,) each: a round's raw points and points under
            the scoring variant (scratch), and total[p], which gets the game total (BVB-15).
    """
    raw, pts, total = scores
    P = rules[R_PLAYERS]
    capped = 0
    for p in range(P):
        total[p] = 0
    for r in range(rules[R_ROUNDS]):
        st = _play_round(state, rules, kinds, params, mem, r % P, obs, st, raw, trace)
        _round_points(state, rules, raw, pts)
        capped += state[S_CAPPED]
        for p in range(P):
            total[p] += pts[p]
    return st, capped


@njit(cache=True, parallel=True)
def _simulate_games(keys, starts, stops, rules, kinds, params, mem, out):
    """Whole games; out[i, p, 0] strict wins, [1] shared wins, [2] total, [3] total**2;
    out[i, P, 0] capped rounds, out[i, P, 1] games.  Lowest total wins; with win-count the highest (BVB-14, BVB-15)."""
    P = rules[R_PLAYERS]
    sign = -1 if rules[R_SCORING] == SC_WINCOUNT else 1
    for i in prange(keys.shape[0]):
        state = np.zeros(S_SIZE, dtype=np.int64)
        obs = np.zeros(O_SIZE, dtype=np.int64)
        raw = np.zeros(P, dtype=np.int64)
        pts = np.zeros(P, dtype=np.int64)
        total = np.zeros(P, dtype=np.int64)
        trace = np.zeros((1, 5), dtype=np.int64)
        for g in range(starts[i], stops[i]):
            st = game_state(keys[i], g)
            st, capped = _play_game(state, rules, kinds, params, mem, obs, st, (raw, pts, total), trace)
            best = sign * total[0]
            for p in range(1, P):
                if sign * total[p] < best:
                    best = sign * total[p]
            nb = 0
            for p in range(P):
                if sign * total[p] == best:
                    nb += 1
            for p in range(P):
                if sign * total[p] == best:
                    if nb == 1:
                        out[i, p, 0] += 1
                    else:
                        out[i, p, 1] += 1
                out[i, p, 2] += total[p]
                out[i, p, 3] += total[p] * total[p]
            out[i, P, 0] += capped
            out[i, P, 1] += 1


@njit(cache=True)
def _trace_round(key, g, rules, kinds, params, mem, start, deal, trace, scores):
    """One traced round (conformance): deal[:] gets the shuffled deck, trace the events
    (trace[0, 0] = count), scores the rows' values.  Returns the knocker."""
    state = np.zeros(S_SIZE, dtype=np.int64)
    obs = np.zeros(O_SIZE, dtype=np.int64)
    st = game_state(key, g)
    st2 = st
    # the deal as shuffled (same draws as _deal)
    n = 0
    for kind in range(N_KINDS):
        for _ in range(rules[R_COMP + kind]):
            deal[n] = kind
            n += 1
    shuffle_inplace(deal[:n], st2)
    trace[0, 0] = 0
    st = _play_round(state, rules, kinds, params, mem, start, obs, st, scores, trace)
    return state[S_KNOCKER]


@njit(cache=True)
def _observe_at(rules, kinds, params, mem, key, g, turns, seat, obs):
    """Test hook: play ``turns`` turns of round g, then fill obs as seen by ``seat`` at the start of
    an action; returns the state (for the no-peeking test)."""
    state = np.zeros(S_SIZE, dtype=np.int64)
    o2 = np.zeros(O_SIZE, dtype=np.int64)
    trace = np.zeros((1, 5), dtype=np.int64)
    st = game_state(key, g)
    st = _deal(state, rules, 0, st, trace)
    t = 0
    while state[S_OVER] == 0 and t < turns:
        st = _play_turn(state, rules, kinds, params, mem, o2, st, trace)
        t += 1
    _observe(state, rules, seat, PH_ACTION, -1, 0, obs)
    return state


@njit(cache=True)
def _trace_game(key, rules, kinds, params, mem, trace, total):
    """One traced whole game from the stream start ``key`` (the step-interface check): the events go
    to trace (trace[0, 0] = count), total[p] the game totals.  Returns the capped rounds."""
    P = rules[R_PLAYERS]
    state = np.zeros(S_SIZE, dtype=np.int64)
    obs = np.zeros(O_SIZE, dtype=np.int64)
    raw = np.zeros(P, dtype=np.int64)
    pts = np.zeros(P, dtype=np.int64)
    trace[0, 0] = 0
    st, capped = _play_game(state, rules, kinds, params, mem, obs, np.uint64(key), (raw, pts, total), trace)
    return capped


# ------------------------------------------------------------------ the step interface
# One game of rules[R_ROUNDS] rounds (BVB-14; a single round when the rules say rounds=1), one
# decision at a time (ludolab.sim.step).  The round's state above is followed by the turn's
# decision phase, the card in hand, the round, the game totals, each seat's memory threshold and the
# stream.
S_PHASE = S_SIZE          # PH_* of the decision the seat to move faces
S_CARD = S_SIZE + 1       # the card in hand (phase PH_DRAWN), else -1
S_MODE = S_SIZE + 2       # 1 for the first card of a draw twice
S_ROUND = S_SIZE + 3      # round being played, 0-based
S_GAMEOVER = S_SIZE + 4   # 1 once the last round is scored
S_CAPS = S_SIZE + 5       # rounds of this game ended by the cap (BVB-12)
S_RNG = S_SIZE + 6        # the game's stream (uint64 bits as int64)
S_MEM = S_SIZE + 8        # forgetting threshold of seat p out of 2**24 (BVB-13) at S_MEM + p
S_TOTAL = S_MEM + MAXP    # game total of seat p under the scoring variant at S_TOTAL + p
STATE_SIZE = S_TOTAL + MAXP

# the observation above (what the policies read) is followed by the public facts of the game
O_TURN = O_SIZE           # the seat to move, -1 once the game is over
O_ROUND = O_SIZE + 1
O_START = O_SIZE + 2      # the round's starting seat
O_LEFT = O_SIZE + 3       # turns left after the knock, -1 before it
O_OVER = O_SIZE + 4       # 1 once the game is over (O_KNOW then holds the revealed rows, BVB-10)
O_RESHUFFLES = O_SIZE + 5
O_CAPS = O_SIZE + 6
O_TOTAL = O_SIZE + 7      # game total of seat p at O_TOTAL + p
OBS_SIZE = O_TOTAL + MAXP

MAX_ACTIONS = 96          # a swap decision is at most 3 * 24 + 5 * 4 + 3


@njit(cache=True)
def _tidy(state):
    """Clear the cells past the top of each pile, so a state is a function of the game alone."""
    for j in range(state[S_PILE_N], MAX_CARDS):
        state[S_PILE + j] = 0
    for j in range(state[S_DISC_N], MAX_CARDS):
        state[S_DISC + j] = 0
    for j in range(state[S_ASIDE_N], MAX_CARDS):
        state[S_ASIDE + j] = 0


@njit(cache=True)
def _start_turn(state, st):
    """BVB-5, BVB-13: the seat to move forgets (its draws, as _play_turn makes them), then faces PH_ACTION."""
    p = state[S_TURN]
    if state[S_MEM + p] > 0:
        st = _forget(state, p, state[S_MEM + p], st, np.zeros((1, 5), dtype=np.int64))
    state[S_PHASE] = PH_ACTION
    state[S_CARD] = -1
    state[S_MODE] = 0
    return st


@njit(cache=True)
def _step_end_round(rules, state, st):
    """BVB-10, BVB-14: replace and score the round, add it to the totals, deal the next round or end."""
    P = state[S_NP]
    raw = np.zeros(P, dtype=np.int64)
    pts = np.zeros(P, dtype=np.int64)
    trace = np.zeros((1, 5), dtype=np.int64)
    st = _end_round(state, st, raw, trace)
    _round_points(state, rules, raw, pts)
    for p in range(P):
        state[S_TOTAL + p] += pts[p]
    state[S_CAPS] += state[S_CAPPED]
    r = state[S_ROUND] + 1
    if r < rules[R_ROUNDS]:
        state[S_ROUND] = r
        st = _deal(state, rules, r % P, st, trace)
        return _start_turn(state, st)
    state[S_GAMEOVER] = 1
    state[S_PHASE] = PH_ACTION
    state[S_CARD] = -1
    state[S_MODE] = 0
    return st


@njit(cache=True)
def _close_turn(rules, state, st, before_knock):
    """The end of a turn as _play_turn has it (BVB-9, BVB-12); ``before_knock`` when nobody had
    knocked at the end of its action."""
    P = state[S_NP]
    if before_knock:
        if state[S_KNOCKER] < 0 and state[S_TURNS] >= rules[R_CAP]:
            state[S_OVER] = 1
            state[S_CAPPED] = 1
    else:
        state[S_LEFT] -= 1
        if state[S_LEFT] == 0:
            state[S_OVER] = 1
    state[S_TURN] = (state[S_TURN] + 1) % P
    if state[S_OVER] == 1:
        return _step_end_round(rules, state, st)
    return _start_turn(state, st)


@njit(cache=True)
def _end_action(rules, state, st):
    """The turn's action is complete: the knock decision follows where BVB-9 allows one."""
    state[S_TURNS] += 1
    state[S_CARD] = -1
    state[S_MODE] = 0
    if state[S_KNOCKER] < 0:
        if state[S_TURNS] >= state[S_NP]:
            state[S_PHASE] = PH_KNOCK
            return st
        return _close_turn(rules, state, st, True)
    return _close_turn(rules, state, st, False)


@njit(cache=True)
def new_game(rules, key, state):
    """Deal game ``key`` into state (int64, STATE_SIZE) as _simulate_games starts it (BVB-3, BVB-4, BVB-14).

    key: the game's stream start (uint64), ``game_state(chunk_key, g)``; every seat forgets with the
    rules' memory loss (rules[R_MEMQ], BVB-13).
    """
    mem = np.full(rules[R_PLAYERS], rules[R_MEMQ], dtype=np.int64)
    _setup(rules, key, 0, mem, state)


@njit(cache=True)
def _setup(rules, key, start, mem, state):
    """A round dealt from the stream start ``key`` with ``start`` to move first and forgetting
    thresholds mem (int64, P), as _play_round begins it (new_game, and the replay of a traced round)."""
    for j in range(state.shape[0]):
        state[j] = 0
    for p in range(rules[R_PLAYERS]):
        state[S_MEM + p] = mem[p]
    st = _deal(state, rules, start, np.uint64(key), np.zeros((1, 5), dtype=np.int64))
    st = _start_turn(state, st)
    _tidy(state)
    state[S_RNG] = np.int64(st)


@njit(cache=True)
def current_player(state):
    """The seat to decide, -1 once the game is over."""
    if state[S_GAMEOVER] == 1:
        return -1
    return state[S_TURN]


@njit(cache=True)
def is_terminal(state):
    """True once the last round of the game is scored (BVB-14)."""
    return state[S_GAMEOVER] == 1


@njit(cache=True)
def legal_actions(rules, state, out):
    """The legal decisions, ascending, into out[:n] (int64, MAX_ACTIONS); returns n (0 once over).

    The encoding per phase is the one of the PH_* constants (BVB-6..BVB-9).
    """
    if state[S_GAMEOVER] == 1:
        return 0
    ph = state[S_PHASE]
    p = state[S_TURN]
    P = state[S_NP]
    n = 0
    if ph == PH_ACTION:
        nd = state[S_DISC_N]
        if nd > 0 and state[S_DISC + nd - 1] < 10:
            for s in range(SLOTS):
                out[n] = s
                n += 1
        out[n] = D_DRAW
        return n + 1
    if ph == PH_DRAWN:
        c = state[S_CARD]
        if c < 10 or rules[R_XSPEC] == 1:
            for s in range(SLOTS):
                out[n] = s
                n += 1
        out[n] = D_DISCARD
        n += 1
        if c >= 10:
            out[n] = D_PERFORM
            n += 1
        return n
    if ph == PH_SWAP:
        for own in range(SLOTS):
            for q in range(P):
                if q != p:
                    for s in range(SLOTS):
                        out[n] = own * 24 + q * 4 + s
                        n += 1
        return n
    if ph == PH_PEEK:
        for s in range(SLOTS):
            out[s] = s
        return SLOTS
    out[0] = 0
    out[1] = 1
    return 2


@njit(cache=True)
def apply_action(rules, state, action):
    """Play the seat to move's decision ``action`` (BVB-6..BVB-13), then the chance that follows it
    (draws, reshuffles, the end of the round, the next deal, the next seat's forgetting) from state[S_RNG]."""
    st = np.uint64(state[S_RNG])
    trace = np.zeros((1, 5), dtype=np.int64)
    p = state[S_TURN]
    ph = state[S_PHASE]
    a = action
    if ph == PH_ACTION:
        if a < D_DRAW:
            top = _pop_discard(state)
            _place(state, p, a, top, True)
            st = _end_action(rules, state, st)
        else:
            c, st = _draw(state, st, trace)
            state[S_CARD] = c
            state[S_MODE] = 0
            state[S_PHASE] = PH_DRAWN
    elif ph == PH_DRAWN:
        c = state[S_CARD]
        if a < D_DISCARD:
            _place(state, p, a, c, False)
            st = _end_action(rules, state, st)
        elif a == D_DISCARD:
            _discard(state, c)
            if state[S_MODE] == 1:
                c, st = _draw(state, st, trace)
                state[S_CARD] = c
                state[S_MODE] = 0
            else:
                st = _end_action(rules, state, st)
        else:
            _discard(state, c)
            state[S_CARD] = -1
            state[S_MODE] = 0
            if c == SWAP:
                state[S_PHASE] = PH_SWAP
            elif c == PEEK:
                state[S_PHASE] = PH_PEEK
            else:
                c, st = _draw(state, st, trace)
                state[S_CARD] = c
                state[S_MODE] = 1
    elif ph == PH_SWAP:
        _swap_slots(state, p, a // 24, (a % 24) // 4, a % 4)
        st = _end_action(rules, state, st)
    elif ph == PH_PEEK:
        _peek_slot(state, p, a)
        st = _end_action(rules, state, st)
    else:
        if a == 1:
            state[S_KNOCKER] = p
            state[S_LEFT] = state[S_NP] - 1
        st = _close_turn(rules, state, st, True)
    _tidy(state)
    state[S_RNG] = np.int64(st)


@njit(cache=True)
def observe(rules, state, seat, obs):
    """What ``seat`` knows (BVB-13) into obs (int64, OBS_SIZE): _observe's fields (the phase, the card
    in hand if it is the seat's, the public discard pile, its own memory) and the game's public facts.
    Once the game is over O_KNOW holds the revealed rows (BVB-10)."""
    over = state[S_GAMEOVER] == 1
    card = state[S_CARD] if (seat == state[S_TURN] and not over) else -1
    _observe(state, rules, seat, state[S_PHASE], card, state[S_MODE], obs)
    for j in range(O_XSPEC + 1, O_DCOUNT):
        obs[j] = 0
    P = state[S_NP]
    if over:
        for j in range(SLOTS * P):
            obs[O_KNOW + j] = state[S_ROWS + j]
    obs[O_TURN] = -1 if over else state[S_TURN]
    obs[O_ROUND] = state[S_ROUND]
    obs[O_START] = state[S_START]
    obs[O_LEFT] = state[S_LEFT]
    obs[O_OVER] = state[S_GAMEOVER]
    obs[O_RESHUFFLES] = state[S_RESHUFFLES]
    obs[O_CAPS] = state[S_CAPS]
    for p in range(MAXP):
        obs[O_TOTAL + p] = state[S_TOTAL + p] if p < P else 0


@njit(cache=True)
def _public_into_state(rules, obs, state):
    """The public part of a determinization (:func:`determinize`): ``state`` cleared, then what every
    player sees copied from ``obs`` (turn, knocker, counts, phase, round, totals; BVB-13) and each
    player's memory quality ``rules[R_MEMQ]``."""
    for j in range(state.shape[0]):
        state[j] = 0
    P = obs[O_NP]
    for p in range(P):
        state[S_MEM + p] = rules[R_MEMQ]
    state[S_NP] = P
    state[S_TURN] = obs[O_TURN] if obs[O_TURN] >= 0 else (obs[O_START] + obs[O_TURNS]) % P
    state[S_TURNS] = obs[O_TURNS]
    state[S_KNOCKER] = obs[O_KNOCKER]
    state[S_LEFT] = obs[O_LEFT]
    state[S_PILE_N] = obs[O_PILE_N]
    state[S_START] = obs[O_START]
    state[S_OVER] = 1 if obs[O_OVER] == 1 else 0
    state[S_RESHUFFLES] = obs[O_RESHUFFLES]
    state[S_PHASE] = obs[O_PHASE]
    state[S_MODE] = obs[O_MODE]
    state[S_ROUND] = obs[O_ROUND]
    state[S_GAMEOVER] = obs[O_OVER]
    state[S_CAPS] = obs[O_CAPS]
    for p in range(P):
        state[S_TOTAL + p] = obs[O_TOTAL + p]


@njit(cache=True)
def _others_remember_own_rows(state, seat, P, over):
    """In a determinized ``state``: every player but ``seat`` remembers exactly the cards of its own
    row (nothing once the game is ``over``), and the seats beyond the P players nothing."""
    for o in range(P):
        if o != seat:
            for s in range(SLOTS):
                state[S_KNOW + 24 * o + 4 * o + s] = state[S_ROWS + 4 * o + s] if not over else -1
    for o in range(MAXP):
        if o != seat:
            for j in range(SLOTS * MAXP):
                if o >= P or j // SLOTS != o or over:
                    state[S_KNOW + 24 * o + j] = -1


@njit(cache=True)
def determinize(rules, obs, seat, key, state):
    """A full state consistent with ``seat``'s observation obs into state (BVB-13).

    The cards the seat cannot see (the slots it does not remember, another player's card in hand,
    the draw pile, and once the game is over the cards put aside) are the deck less the discard
    pile, the remembered cards and its own card in hand, shuffled from the stream start ``key``
    (uniform among the arrangements consistent with obs); the pile below the top of the discard
    pile, whose order no rule reads, lies in card order.  Every other player remembers the cards
    of its own row.  The state's stream continues the shuffle's.

    Raises:
        ValueError: an observation no deal of the rules' deck can give.
    """
    P = obs[O_NP]
    over = obs[O_OVER] == 1
    _public_into_state(rules, obs, state)
    cnt = np.zeros(N_KINDS, dtype=np.int64)
    for k in range(N_KINDS):
        cnt[k] = rules[R_COMP + k] - obs[O_DCOUNT + k]
        state[S_DCOUNT + k] = obs[O_DCOUNT + k]
    # the discard pile: its top, the rest in card order
    top = obs[O_TOP]
    nd = 0
    for k in range(N_KINDS):
        m = obs[O_DCOUNT + k] - (1 if k == top else 0)
        for _ in range(m):
            state[S_DISC + nd] = k
            nd += 1
    if top >= 0:
        state[S_DISC + nd] = top
        nd += 1
    state[S_DISC_N] = nd
    # what the seat remembers, and its card in hand
    for j in range(SLOTS * P):
        v = obs[O_KNOW + j]
        if v >= 0:
            state[S_ROWS + j] = v
            cnt[v] -= 1
    for j in range(SLOTS * MAXP):
        state[S_KNOW + 24 * seat + j] = obs[O_KNOW + j] if not over else -1
    drawn = obs[O_PHASE] == PH_DRAWN and not over
    own_card = drawn and obs[O_TURN] == seat
    state[S_CARD] = -1
    if own_card:
        state[S_CARD] = obs[O_CARD]
        cnt[obs[O_CARD]] -= 1
    hidden = 0
    for k in range(N_KINDS):
        if cnt[k] < 0:
            raise ValueError("the observation holds more cards of a kind than the deck")
        hidden += cnt[k]
    cards = np.zeros(hidden, dtype=np.int64)
    n = 0
    for k in range(N_KINDS):
        for _ in range(cnt[k]):
            cards[n] = k
            n += 1
    st = shuffle_inplace(cards, np.uint64(key))
    n = 0
    for j in range(SLOTS * P):
        if obs[O_KNOW + j] < 0:
            if n >= hidden:
                raise ValueError("the observation leaves fewer hidden cards than hidden places")
            state[S_ROWS + j] = cards[n]
            n += 1
    if drawn and not own_card:
        if n >= hidden:
            raise ValueError("the observation leaves fewer hidden cards than hidden places")
        state[S_CARD] = cards[n]
        n += 1
    if hidden - n < state[S_PILE_N] or (not over and hidden - n != state[S_PILE_N]):
        raise ValueError("the observation's draw pile does not hold the hidden cards")
    for j in range(state[S_PILE_N]):
        state[S_PILE + j] = cards[n]
        n += 1
    na = 0
    while n < hidden:
        state[S_ASIDE + na] = cards[n]
        na += 1
        n += 1
    state[S_ASIDE_N] = na
    _others_remember_own_rows(state, seat, P, over)
    _tidy(state)
    state[S_RNG] = np.int64(st)


@njit(cache=True)
def returns(rules, state, out):
    """Each seat's game total so far (float64, out[:P]) under the scoring variant (BVB-14, BVB-15):
    penalty points, lower is better (win-count: rounds won, higher is better)."""
    for p in range(state[S_NP]):
        out[p] = float(state[S_TOTAL + p])


@njit(cache=True)
def act(kind, params, obs, state):
    """Policy (kind, params float64 (N_PARAMS,)) decides on obs alone; its random choices (K_RANDOM)
    advance state[S_RNG] exactly as _play_turn draws them.  Returns the decision."""
    d, st = _act(kind, params, obs, np.uint64(state[S_RNG]))
    state[S_RNG] = np.int64(st)
    return d


# ------------------------------------------- the shared loops over the step interface
@njit(cache=True)
def running_score(rules, state, out):
    """Each seat's game total so far (BVB-14, BVB-15) into out; returns the rounds scored."""
    returns(rules, state, out)
    return state[S_ROUND] + (1 if state[S_GAMEOVER] == 1 else 0)


@njit(cache=True, nogil=True)
def play_many(rules, inp, out):
    """Whole games of named policies (:func:`ludolab.sim.play.play_games`) on these rules."""
    _loops.play_games(new_game, current_player, legal_actions, apply_action, observe, returns, act, rules, inp, out)


@njit(cache=True, nogil=True)
def play_traced_many(rules, inp, out):
    """Whole games with their running totals (:func:`ludolab.sim.play.play_traced`)."""
    _loops.play_traced(new_game, current_player, apply_action, observe, returns, act, running_score,
                       rules, inp, out)


@njit(cache=True)
def search(rules, inp, work):
    """Determinized search at one decision (:func:`ludolab.sim.search.pimc`) on these rules."""
    return _search.pimc(current_player, legal_actions, apply_action, observe, determinize, returns, act,
                        rules, inp, work)


@njit(cache=True)
def search_tree(rules, inp, work):
    """Information-set MCTS at one decision (:func:`ludolab.sim.search.ismcts`) on these rules."""
    return _search.ismcts(current_player, legal_actions, apply_action, observe, determinize, returns, act,
                          rules, inp, work)
