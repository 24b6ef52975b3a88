"""Numba kernels of Shut The Books: deal, forecast, tricks, matching, scoring, policies, simulation.

The state of a hand is one int16 array with the named offsets of
:mod:`ludolab.stdlib.books` (``S_*``, ``LOC``, ``NPRED``, ``T_CARDS``, ...).
A policy is a kind id plus a float64 parameter array and reads only
``_observe(state, seat, obs)``, the same layout with every card of another
hand marked hidden.  Every kernel has its pure-Python twin in
:mod:`ludolab.sim.books_reference`, drawing the same random numbers in the
same order; the differential tests hold them identical.  Clause ids ``STK-n``
refer to ``seeds/shut_the_books.md``.

Speed: each hand and each seat's prediction cards are also kept as card sets
(int64, bit = card id), and the basic policies decide on those sets with bit
operations; a hand in which no seat uses a rollout policy runs in
:func:`_play_hand_basic`, compiled without reference counting (nothing in it
allocates).  ``ludolab bench --game books`` measures it.

The step interface (:mod:`ludolab.sim.step`) steps a whole game (STK-9: as many hands as players,
the rules entry ``R_HANDS`` of ``BooksRules.game_array`` may ask for fewer; :func:`_simulate_games`
plays the whole game) one decision at a time.  Its state is one int64 array: the hand state above
(same offsets), then ``S_RNG`` (the stream, uint64 bits as int64), ``S_HANDNO``, ``S_NHANDS`` and
``S_TOTAL + seat``; the next hand is dealt inside :func:`apply_action` when a hand ends.  Actions:

* forecast (STK-4): a bitmask over the positions 0..n-1 of the seat's hand in ascending card id
  order (at most 16 positions, at most 5 bits set), e.g. ``0b101`` lays the lowest and the third
  lowest card; 0 lays nothing;
* play (STK-5): the id of the card played;
* close (STK-6), only when the winning card matches two or more open prediction cards: the id of
  the prediction card closed (a single match closes without a decision).

A seat's policy in :func:`act` is its pair of fast-kernel policies: ``kind = POLICY_PAIR_BASE *
forecast kind + play kind`` and ``params`` the two parameter vectors one after the other
(2 * N_PARAMS floats); it decides with the same deciders and the same random draws as
:func:`_hand_loop`, so a step playout of a key is the fast kernels' game of that key.
"""

from __future__ import annotations

import numpy as np
from numba import literal_unroll, njit, prange
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from . import kernel_cache as _kernel_cache  # noqa: F401  (processes sharing the cache take turns)

from ludolab.stdlib.books import (N_PARAMS, PREDS, ROLLOUT_HEURISTIC_AT, A_CLOSE, A_DEAL, A_EXTRA, A_FORECAST, A_HAND, A_PLAY, A_PREDICT, A_SCORE,
                                  F_HEURISTIC, F_RANDOM, F_ROLLOUT, HMASK, L_CLOSED, L_HAND, L_HIDDEN, OMASK,
                                  L_OPEN, L_OUT, L_PLAYED, LOC, MAX_NUMBER, MAX_PREDICTIONS, N_CARD_IDS,
                                  NCLOSED, NEXTRA, NHAND, NPRED, NWON, P_HEURISTIC, P_RANDOM, P_ROLLOUT,
                                  PH_CLOSE, PH_DONE, PH_FORECAST, PH_PLAY, RED, S_HAND, S_LEADER,
                                  S_NFORECAST, S_NMAX, S_NPLAYED, S_NTRICKS, S_PENDING, S_PHASE, S_PLAYERS,
                                  S_START, S_TRICK, S_TURN, S_VIEWER, S_VOIDRULE, T_CARDS,
                                  T_CLOSE, T_LEAD, T_WIN, GAME_STATE_SIZE, MAX_FORECAST_ACTIONS,
                                  POLICY_PAIR_BASE, R_HANDS, R_SCORING, R_TIE_BREAK, S_HANDNO, S_NHANDS, S_RNG, S_TOTAL)
from ludolab.stdlib.books import STATE_SIZE as HAND_STATE_SIZE

from .lowlevel import borrow as _borrow
from .lowlevel import keep as _keep
from .lowlevel import popcount as _popcount
from . import play as _loops
from . import search as _search
from .rng import game_state, next_below, shuffle_inplace


#: Statistics per (config, seat, number of prediction cards) in the accuracy accumulator.
ST_N, ST_SCORE, ST_SCORE2, ST_EXACT, ST_OFF1, ST_OFF, ST_OFF2, ST_ABSERR, ST_ABSERR2, ST_WON = range(10)
ST_HIST = 10          #: + off (0..MAX_OFF): histogram of off
MAX_OFF = 21
N_STATS = ST_HIST + MAX_OFF + 1
#: Hand-level paired statistics (row ``players`` of the accumulator, k = 0).
HP_N, HP_DFIRST, HP_DFIRST2, HP_MEAN, HP_MEAN2, HP_D0, HP_D02 = range(7)
#: Scratch arrays passed down from a chunk (no allocation per hand): int64 ``work`` and float64 ``fwork``.
W_BUF, W_HAND, W_ORDER, W_RANK, W_DECK = 0, 24, 40, 48, 80
W_SIZE = W_DECK + 64
FW_ST, FW_PV = 0, 16
FW_PEX = 32       #: P(exact) the last forecast expects (-1: the policy has no estimate)
FW_PEXS = 36      #: + seat: the same, per seat, for the hand being played
FW_SUMCOL = 40    #: + colour: scratch of the hand-strength forecaster
FW_SUMNUM = 44    #: + number: scratch of the hand-strength forecaster
FW_LEFT = 60      #: + k: strength left in hand after laying k cards (hand-strength forecaster)
FW_SIZE = 66
#: Calibration (row ``players``): k = 1 count, 2 sum of P(exact), 3 exact, per bin of P(exact);
#: k = 4: [Brier sum, n, sum P(exact), exact, sum of squared Brier terms].
N_CAL_BINS = 10
#: Game statistics per seat: games won (under the tie-break), win shares (1/k among k tied tops),
#: sum and sum of squares of the game total, games played.
G_WINS, G_SHARED, G_TOTAL, G_TOTAL2, G_GAMES = range(5)
N_GSTATS = 5


@njit(cache=True, inline="always")
def _colour(c):
    return c // MAX_NUMBER


@njit(cache=True, inline="always")
def _number(c):
    return c % MAX_NUMBER + 1


#: The cards of one number in a card set (bit = card id): colours 15 bits apart.
NUMBER_BITS = 0x200040008001
COLOUR_BITS = 0x7FFF


@njit(cache=True, inline="always")
def _seat_after(seat, k, P):
    """(seat + k) % P for 0 <= k < P, without a division."""
    s = np.int64(seat) + np.int64(k)
    return s - P if s >= P else s


@njit(cache=True, inline="always")
def _next_seat(seat, P):
    return _seat_after(seat, 1, P)


# ------------------------------------------------------------------ card sets
@njit(cache=True, inline="always")
def _mask(state, base):
    """Card set (int64, bit = card id) of the four colour words at ``base`` (HMASK / OMASK + 4 * seat)."""
    return (np.int64(state[base]) | (np.int64(state[base + 1]) << 15) | (np.int64(state[base + 2]) << 30)
            | (np.int64(state[base + 3]) << 45))


@njit(cache=True, inline="always")
def _mask_add(state, base, c):
    i = base + c // MAX_NUMBER
    state[i] = np.int64(state[i]) | (np.int64(1) << (c % MAX_NUMBER))


@njit(cache=True, inline="always")
def _mask_remove(state, base, c):
    i = base + c // MAX_NUMBER
    state[i] = np.int64(state[i]) & ~(np.int64(1) << (c % MAX_NUMBER))


@njit(cache=True, inline="always")
def _colour_bits(col):
    return np.int64(COLOUR_BITS) << np.int64(15 * col)


@njit(cache=True, inline="always")
def _match_bits(c):
    """Cards sharing the colour or the number of card ``c`` (``c`` included)."""
    return (np.int64(COLOUR_BITS) << np.int64(15 * (c // MAX_NUMBER))) | (np.int64(NUMBER_BITS) << np.int64(c % MAX_NUMBER))


@njit(cache=True, inline="always")
def _bits_to(m, out, n):
    """Write the card ids of set ``m`` into out[n:], ascending; returns the new count."""
    while m != 0:
        out[n] = trailing_zeros(m)
        n += 1
        m &= m - 1
    return n


@njit(cache=True, inline="always")
def _nth_card(m, j):
    """The j-th lowest card id (0-based) of set ``m``: the j-th entry of the ascending list."""
    for _ in range(j):
        m &= m - 1
    return trailing_zeros(m)


#: Cards of colours other than red in a card set.
NON_RED_BITS = 0x7FFF << 15 | 0x7FFF << 30 | 0x7FFF << 45


@njit(cache=True, inline="always")
def _numbers(m):
    """Bit n - 1 set for every number n present in the card set ``m`` (any colour)."""
    return (m | (m >> np.int64(15)) | (m >> np.int64(30)) | (m >> np.int64(45))) & np.int64(COLOUR_BITS)


@njit(cache=True, inline="always")
def _first_non_red(m, nb):
    """The non-red card of number bit ``nb`` in ``m`` with the lowest id (blue before yellow before purple)."""
    x = m >> np.int64(15)
    if (x >> np.int64(nb)) & 1:
        return MAX_NUMBER + nb
    if (x >> np.int64(15 + nb)) & 1:
        return 2 * MAX_NUMBER + nb
    return 3 * MAX_NUMBER + nb


@njit(cache=True, inline="always")
def _highest_rank(m):
    """The card of the non-empty set ``m`` with the highest rank (``books_reference.rank``: the number,
    plus 16 for a red card, so any red ranks above any other colour), among equal ranks the lowest id:
    the first maximum of the ascending list."""
    red = m & np.int64(COLOUR_BITS)
    if red != 0:
        return 63 - leading_zeros(red)
    return _first_non_red(m, 63 - leading_zeros(_numbers(m >> np.int64(15))))


@njit(cache=True, inline="always")
def _lowest_rank(m):
    """The card of the non-empty set ``m`` with the lowest rank, among equal ranks the lowest id."""
    other = m & np.int64(NON_RED_BITS)
    if other != 0:
        return _first_non_red(other, trailing_zeros(_numbers(other >> np.int64(15))))
    return trailing_zeros(m)


@njit(cache=True, inline="always")
def _matching_set(opn):
    """Cards sharing the colour or the number of a card in the set ``opn`` (STK-6)."""
    m = _numbers(opn) * np.int64(NUMBER_BITS)  # every colour of each number present
    for col in range(4):
        if (opn >> np.int64(15 * col)) & np.int64(COLOUR_BITS):
            m |= _colour_bits(col)
    return m


@njit(cache=True, inline="always")
def _beating_set(cur, led):
    """Cards that beat ``cur``, the winning card so far of a trick led in ``led`` (STK-5)."""
    above = ~((np.int64(2) << np.int64(cur)) - 1)
    if _colour(cur) == RED:
        return np.int64(COLOUR_BITS) & above
    return np.int64(COLOUR_BITS) | (_colour_bits(led) & above)


@njit(cache=True)
def _sync_masks(state):
    """Rebuild the card sets (HMASK, OMASK) from LOC, for a state set up by hand."""
    for i in range(HMASK, HAND_STATE_SIZE):
        state[i] = 0
    for c in range(N_CARD_IDS):
        loc = state[LOC + c]
        if loc >= L_HAND and loc < L_HAND + 4:
            _mask_add(state, HMASK + 4 * (loc - L_HAND), c)
        elif loc >= L_OPEN and loc < L_OPEN + 4:
            _mask_add(state, OMASK + 4 * (loc - L_OPEN), c)


# ------------------------------------------------------------------ the deal
@njit(cache=True)
def _new_hand(state, rules, start, rng, work):
    """Reset ``state`` for a new hand, shuffle and deal (STK-1, STK-3); returns the stream state."""
    P = rules[0]
    N = rules[1]
    H = rules[2]
    for i in range(HAND_STATE_SIZE):
        state[i] = 0
    state[S_PLAYERS] = P
    state[S_NMAX] = N
    state[S_HAND] = H
    state[S_VOIDRULE] = rules[3]
    state[S_START] = start
    state[S_PHASE] = PH_FORECAST
    state[S_TURN] = start
    state[S_LEADER] = start
    state[S_VIEWER] = -1
    state[S_PENDING] = -1
    for c in range(N_CARD_IDS):
        state[LOC + c] = L_OUT
    for i in range(T_LEAD, HMASK):
        state[i] = -1
    deck = work[W_DECK:W_DECK + 4 * N]
    k = 0
    for col in range(4):
        for n in range(N):
            deck[k] = col * MAX_NUMBER + n
            k += 1
    rng = shuffle_inplace(deck, rng)
    for s in range(P):
        for j in range(H):
            c = deck[s * H + j]
            state[LOC + c] = L_HAND + s
            _mask_add(state, HMASK + 4 * s, c)
        state[NHAND + s] = H
    return rng


@njit(cache=True, inline="always")
def _observe(state, seat, obs):
    """Fill ``obs`` with what ``seat`` knows: cards in other hands become L_HIDDEN."""
    for i in range(LOC):
        obs[i] = state[i]
    obs[S_VIEWER] = seat
    for c in range(N_CARD_IDS):  # branch-free select, so the loop vectorizes
        v = state[LOC + c]
        obs[LOC + c] = L_HIDDEN if (v >= L_HAND) & (v < L_HAND + 4) & (v != L_HAND + seat) else v
    for i in range(NPRED, HMASK):
        obs[i] = state[i]
    for i in range(16):  # other hands' card sets are hidden too
        obs[HMASK + i] = state[HMASK + i] if i // 4 == seat else 0
    for i in range(OMASK, HAND_STATE_SIZE):
        obs[i] = state[i]


# -------------------------------------------------------------- forecast
@njit(cache=True, inline="always")
def _apply_forecast(state, seat, cards, n, trace, tpos):
    """``seat`` lays cards[:n] (ascending) as prediction cards (STK-4); returns the trace position."""
    for i in range(n):
        state[LOC + cards[i]] = L_OPEN + seat
        _mask_remove(state, HMASK + 4 * seat, cards[i])
        _mask_add(state, OMASK + 4 * seat, cards[i])
        state[PREDS + MAX_PREDICTIONS * seat + i] = cards[i]
        tpos = _trace(trace, tpos, A_PREDICT, seat, cards[i])
    state[NPRED + seat] = n
    state[NHAND + seat] -= n
    tpos = _trace(trace, tpos, A_FORECAST, seat, n)
    P = state[S_PLAYERS]
    state[S_NFORECAST] += 1
    if state[S_NFORECAST] == P:
        mn = state[NHAND]
        for s in range(1, P):
            if state[NHAND + s] < mn:
                mn = state[NHAND + s]
        state[S_NTRICKS] = mn  # STK-7: the shortest hand
        state[S_PHASE] = PH_PLAY
        state[S_TRICK] = 0
        state[S_NPLAYED] = 0
        state[S_LEADER] = state[S_START]
        state[T_LEAD] = state[S_START]
        state[S_TURN] = state[S_START]
    else:
        state[S_TURN] = _next_seat(seat, P)
    return tpos


@njit(cache=True, inline="always")
def _trace(trace, tpos, code, seat, card):
    if trace.shape[0] > 0:
        trace[tpos, 0] = code
        trace[tpos, 1] = seat
        trace[tpos, 2] = card
        return tpos + 1
    return tpos


# ------------------------------------------------------------------- tricks
@njit(cache=True, inline="always")
def _led_colour(state):
    if state[S_NPLAYED] == 0:
        return -1
    return _colour(state[T_CARDS + 4 * state[S_TRICK] + state[S_LEADER]])


@njit(cache=True, inline="always")
def _legal_set(state, seat):
    """The card set ``seat`` may play now (STK-5): the led colour if the hand holds it, else the hand."""
    led = _led_colour(state)
    base = HMASK + 4 * seat
    if led >= 0:
        w = np.int64(state[base + led])
        if w != 0:
            return w << np.int64(15 * led)
    return _mask(state, base)


@njit(cache=True, inline="always")
def _legal_plays(state, seat, out):
    """Cards ``seat`` may play now, ascending, into ``out``; returns the count (STK-5)."""
    return _bits_to(_legal_set(state, seat), out, 0)


@njit(cache=True, inline="always")
def _beats(c, best, led):
    """Does ``c`` beat the current winning card ``best`` of a trick led in ``led`` (STK-5)?"""
    if c // MAX_NUMBER == RED:
        return best // MAX_NUMBER != RED or c > best
    return best // MAX_NUMBER != RED and c // MAX_NUMBER == led and c > best


@njit(cache=True, inline="always")
def _matching_open_set(state, seat, win_card, led):
    """The set of open prediction cards of ``seat`` matched by ``win_card`` in a trick led in ``led`` (STK-6)."""
    bits = _match_bits(win_card)
    if state[S_VOIDRULE] == 1 and _colour(win_card) == RED and led != RED:
        bits |= _colour_bits(led)
    return _mask(state, OMASK + 4 * seat) & bits


@njit(cache=True, inline="always")
def _matching_open(state, seat, win_card, led, out):
    """Open prediction cards of ``seat`` matched by ``win_card`` (STK-6), ascending; returns the count."""
    return _bits_to(_matching_open_set(state, seat, win_card, led), out, 0)


@njit(cache=True, inline="always")
def _finish_trick(state):
    w = state[T_WIN + state[S_TRICK]]
    state[S_TRICK] += 1
    state[S_NPLAYED] = 0
    state[S_LEADER] = w
    state[S_TURN] = w
    if state[S_TRICK] >= state[S_NTRICKS]:  # STK-7
        state[S_PHASE] = PH_DONE
    else:
        state[T_LEAD + state[S_TRICK]] = w
        state[S_PHASE] = PH_PLAY


@njit(cache=True, inline="always")
def _close_card(state, card, trace, tpos):
    """The pending winner closes prediction card ``card`` (STK-6); returns the trace position."""
    t = state[S_TRICK]
    w = state[T_WIN + t]
    state[LOC + card] = L_CLOSED + w
    _mask_remove(state, OMASK + 4 * w, card)
    state[NCLOSED + w] += 1
    state[T_CLOSE + t] = card
    state[S_PENDING] = -1
    tpos = _trace(trace, tpos, A_CLOSE, w, card)
    _finish_trick(state)
    return tpos


@njit(cache=True, inline="always")
def _play_card(state, card, trace, tpos):
    """The seat to act plays ``card`` (legal); resolves a complete trick (STK-5, STK-6)."""
    P = state[S_PLAYERS]
    seat = state[S_TURN]
    t = state[S_TRICK]
    state[T_CARDS + 4 * t + seat] = card
    state[LOC + card] = L_PLAYED
    _mask_remove(state, HMASK + 4 * seat, card)
    state[NHAND + seat] -= 1
    state[S_NPLAYED] += 1
    tpos = _trace(trace, tpos, A_PLAY, seat, card)
    if state[S_NPLAYED] < P:
        state[S_TURN] = _next_seat(seat, P)
        return tpos
    leader = state[S_LEADER]
    best = np.int64(state[T_CARDS + 4 * t + leader])
    led = _colour(best)
    w = leader
    for k in range(1, P):
        s = _seat_after(leader, k, P)
        c = np.int64(state[T_CARDS + 4 * t + s])
        if _beats(c, best, led):
            best = c
            w = s
    state[T_WIN + t] = w
    state[NWON + w] += 1
    m = _matching_open_set(state, w, best, led)
    if m == 0:
        state[NEXTRA + w] += 1
        state[T_CLOSE + t] = -1
        tpos = _trace(trace, tpos, A_EXTRA, w, -1)
        _finish_trick(state)
    elif m & (m - 1) == 0:  # one matching card: closed at once
        pc = trailing_zeros(m)
        state[LOC + pc] = L_CLOSED + w
        _mask_remove(state, OMASK + 4 * w, pc)
        state[NCLOSED + w] += 1
        state[T_CLOSE + t] = pc
        tpos = _trace(trace, tpos, A_CLOSE, w, pc)
        _finish_trick(state)
    else:
        state[S_PHASE] = PH_CLOSE
        state[S_PENDING] = best
        state[S_TURN] = w
    return tpos


@njit(cache=True, inline="always")
def _pending_matches(state, out):
    t = state[S_TRICK]
    w = state[T_WIN + t]
    led = _colour(state[T_CARDS + 4 * t + state[S_LEADER]])
    return _matching_open(state, w, state[S_PENDING], led, out)


# ------------------------------------------------------------------ scoring
@njit(cache=True, inline="always")
def _off(state, seat):
    """Open prediction cards left plus extra tricks (STK-8)."""
    return (state[NPRED + seat] - state[NCLOSED + seat]) + state[NEXTRA + seat]


@njit(cache=True, inline="always")
def _score(off, won, scoring):
    """Points of one hand (STK-8): scoring 0 rulebook, 1 exact-only, 2 linear."""
    if scoring == 0:
        if off == 0:
            return 4
        if off == 1:
            return 2
        return -off
    if scoring == 1:
        if off == 0:
            return 10 + won
        return 0
    return 4 - 2 * off


# ------------------------------------------------------------------ policies
@njit(cache=True, inline="always")
def _strength(c, N, p, r, o):
    """Trick value of card ``c`` under the forecaster parameters p[r, o:o + 4]."""
    x = _number(c) / N
    if _colour(c) == RED:
        return p[r, o] + p[r, o + 1] * x
    v = (x - p[r, o + 3]) / (1.0 - p[r, o + 3])
    if v > 0.0:
        return p[r, o + 2] * v
    return 0.0


@njit(cache=True, inline="always")
def _prediction_values(nh, N, p, r, work, fwork):
    """Each card's strength (fwork[FW_ST + i]) and value as a prediction card (fwork[FW_PV + i]) for the
    ``nh`` hand cards at work[W_HAND:], parameters p[r] (see :func:`_forecast_heuristic`)."""
    for i in range(nh):
        fwork[FW_ST + i] = _strength(work[W_HAND + i], N, p, r, 0)
    # value as a prediction card: the strength of the other cards sharing its colour or its number
    # (the two groups are disjoint), less its own strength
    for i in range(4):
        fwork[FW_SUMCOL + i] = 0.0
    for i in range(16):
        fwork[FW_SUMNUM + i] = 0.0
    for i in range(nh):
        c = work[W_HAND + i]
        fwork[FW_SUMCOL + _colour(c)] += fwork[FW_ST + i]
        fwork[FW_SUMNUM + _number(c)] += fwork[FW_ST + i]
    for i in range(nh):
        c = work[W_HAND + i]
        fwork[FW_PV + i] = fwork[FW_SUMCOL + _colour(c)] + fwork[FW_SUMNUM + _number(c)] - 3.0 * fwork[FW_ST + i]


@njit(cache=True, inline="always")
def _rank_predictions(nh, n_order, work, fwork):
    """The ``n_order`` best prediction cards, best first, into work[W_ORDER:] (each card's rank in
    work[W_RANK + i]), and the strength left in hand after laying the first k of them, k = 0..5,
    into fwork[FW_LEFT + k] (see :func:`_forecast_heuristic`)."""
    # rank = cards rated higher, ties to the earlier card (the order a repeated pick of the strict
    # maximum gives), counted without branches
    for i in range(nh):
        v = fwork[FW_PV + i]
        rk = 0
        for j in range(i):
            rk += fwork[FW_PV + j] >= v
        for j in range(i + 1, nh):
            rk += fwork[FW_PV + j] > v
        work[W_RANK + i] = rk
        if rk < n_order:
            work[W_ORDER + rk] = i
    # the strength left for k = 0..5 in one pass: each sum runs in hand order, adding 0.0 for a laid
    # card (the reference's sums, term by term)
    e0 = 0.0
    e1 = 0.0
    e2 = 0.0
    e3 = 0.0
    e4 = 0.0
    e5 = 0.0
    for i in range(nh):
        x = fwork[FW_ST + i]
        rk = work[W_RANK + i]
        e0 += x
        e1 += 0.0 if rk < 1 else x
        e2 += 0.0 if rk < 2 else x
        e3 += 0.0 if rk < 3 else x
        e4 += 0.0 if rk < 4 else x
        e5 += 0.0 if rk < 5 else x
    fwork[FW_LEFT] = e0
    fwork[FW_LEFT + 1] = e1
    fwork[FW_LEFT + 2] = e2
    fwork[FW_LEFT + 3] = e3
    fwork[FW_LEFT + 4] = e4
    fwork[FW_LEFT + 5] = e5


@njit(cache=True, inline="always")
def _best_forecast_size(nh, n_order, H, max_earlier, earlier, p, r, work, fwork):
    """How many of the ranked prediction cards to lay (0..n_order): the k whose expected tricks
    (strength left, short-suit trumping, the shorter hand of STK-7, less what the ``earlier``
    forecasts take away) come closest to k, the first such k on ties (see :func:`_forecast_heuristic`)."""
    p4 = p[r, 4]
    p7 = p[r, 7]
    p8 = p[r, 8]
    best_k = 0
    best_err = 0.0
    cnt0 = 0
    cnt1 = 0
    cnt2 = 0
    cnt3 = 0
    for i in range(nh):
        col = _colour(work[W_HAND + i])
        cnt0 += col == 0
        cnt1 += col == 1
        cnt2 += col == 2
        cnt3 += col == 3
    for k in range(n_order + 1):
        if k > 0:
            col = _colour(work[W_HAND + work[W_ORDER + k - 1]])
            cnt0 -= col == 0
            cnt1 -= col == 1
            cnt2 -= col == 2
            cnt3 -= col == 3
        e = fwork[FW_LEFT + k]
        nshort = 0
        if cnt1 <= 1:
            nshort += 1
        if cnt2 <= 1:
            nshort += 1
        if cnt3 <= 1:
            nshort += 1
        if cnt0 > 0:
            e += p4 * min(nshort, cnt0)
        t = H - max(k, max_earlier)
        e = e * (1.0 - p7 * (1.0 - t / H)) - earlier + p8
        err = abs(e - k)
        if k == 0 or err < best_err:
            best_k = k
            best_err = err
    return best_k


@njit(cache=True, inline="always")
def _forecast_heuristic(obs, p, r, out, work, fwork):
    """Hand-strength forecaster (twin of ``books_reference.forecast_heuristic``) with the parameters
    p[r, :9] (p float64 (rows, N_PARAMS), read in place: no view per decision); returns k, cards in out.

    Scratch lives in ``work`` / ``fwork`` at the W_* / FW_* offsets (no allocation)."""
    me = obs[S_VIEWER]
    P = obs[S_PLAYERS]
    nh = _bits_to(_mask(obs, HMASK + 4 * me), work, W_HAND) - W_HAND
    n_earlier = obs[S_NFORECAST]
    sum_earlier = 0
    max_earlier = 0
    for i in range(n_earlier):
        s = _seat_after(obs[S_START], i, P)
        sum_earlier += obs[NPRED + s]
        if obs[NPRED + s] > max_earlier:
            max_earlier = obs[NPRED + s]
    _prediction_values(nh, obs[S_NMAX], p, r, work, fwork)
    n_order = min(MAX_PREDICTIONS, nh)
    _rank_predictions(nh, n_order, work, fwork)
    earlier = p[r, 5] * (sum_earlier - n_earlier * p[r, 6])  # what the earlier forecasts take away
    best_k = _best_forecast_size(nh, n_order, obs[S_HAND], max_earlier, earlier, p, r, work, fwork)
    # the chosen cards, ascending
    chosen = 0
    for o in range(best_k):
        chosen |= 1 << work[W_ORDER + o]
    n = 0
    for i in range(nh):
        if (chosen >> i) & 1:
            out[n] = work[W_HAND + i]
            n += 1
    return n


@njit(cache=True, inline="always")
def _forecast_random(obs, rng, out, work):
    me = obs[S_VIEWER]
    hand = work[W_HAND:W_HAND + 16]
    nh = _bits_to(_mask(obs, HMASK + 4 * me), hand, 0)
    k, rng = next_below(rng, MAX_PREDICTIONS + 1)
    for i in range(k):
        j, rng = next_below(rng, nh - i)
        tmp = hand[i]
        hand[i] = hand[i + j]
        hand[i + j] = tmp
    for i in range(k):  # insertion sort into out: the chosen cards ascending
        c = hand[i]
        j = i
        while j > 0 and out[j - 1] > c:
            out[j] = out[j - 1]
            j -= 1
        out[j] = c
    return k, rng


@njit(cache=True, inline="always")
def _play_heuristic(obs, p0):
    """Heuristic card play (twin of ``books_reference.play_heuristic``); p0 is its parameter 0.

    Computed on card sets: the legal cards, those that would beat the trick so far, and those that
    would close an open prediction card if they won.  Each choice of the reference ("the highest /
    lowest rank, the first in ascending order among equals") is :func:`_highest_rank` or
    :func:`_lowest_rank` of one set."""
    me = obs[S_VIEWER]
    npreds = obs[NPRED + me] - obs[NCLOSED + me]
    opn = _mask(obs, OMASK + 4 * me)
    legal = _legal_set(obs, me)
    if obs[S_NPLAYED] == 0:
        if npreds > 0:
            x = legal & _matching_set(opn)
            if x != 0:
                return _highest_rank(x)
            return _lowest_rank(legal)
        x = legal & np.int64(NON_RED_BITS)
        if x != 0:
            return _lowest_rank(x)
        return _lowest_rank(legal)
    t = obs[S_TRICK]
    leader = obs[S_LEADER]
    P = obs[S_PLAYERS]
    cur = np.int64(obs[T_CARDS + 4 * t + leader])
    led = _colour(cur)
    for k in range(1, obs[S_NPLAYED]):
        c = np.int64(obs[T_CARDS + 4 * t + _seat_after(leader, k, P)])
        if _beats(c, cur, led):
            cur = c
    beat = legal & _beating_set(cur, led)
    would = _matching_set(opn)
    if obs[S_VOIDRULE] == 1 and led != RED and (opn & _colour_bits(led)) != 0:
        would |= np.int64(COLOUR_BITS)  # a red card played void in the led colour counts as it (STK-6)
    win_match = beat & would
    if win_match != 0:
        if obs[S_NPLAYED] == P - 1:
            return _lowest_rank(win_match)
        return _highest_rank(win_match)
    lose = legal & ~beat
    if lose != 0:
        if npreds > 0 and p0 > 0.5:
            return _lowest_rank(lose)
        return _highest_rank(lose)
    return _lowest_rank(beat)


#: _RANK_WEIGHTS[j]: the cards whose number has bit j set (in every colour), for :func:`_rank_sum`.
_RANK_WEIGHTS = tuple(sum(1 << b for b in range(MAX_NUMBER) if (b + 1) >> j & 1) * NUMBER_BITS for j in range(4))


@njit(cache=True, inline="always")
def _rank_sum(m):
    """Sum of the ranks (``books_reference.rank``) over the card set ``m``: the numbers, bit by bit of
    the number, plus 16 per red card."""
    return (_popcount(m & np.int64(_RANK_WEIGHTS[0])) + 2 * _popcount(m & np.int64(_RANK_WEIGHTS[1]))
            + 4 * _popcount(m & np.int64(_RANK_WEIGHTS[2])) + 8 * _popcount(m & np.int64(_RANK_WEIGHTS[3]))
            + 16 * _popcount(m & np.int64(COLOUR_BITS)))


@njit(cache=True, inline="always")
def _close_heuristic(obs, options, n):
    """Close the matching prediction least likely to be closed later (twin of the reference)."""
    me = obs[S_VIEWER]
    hand = _mask(obs, HMASK + 4 * me)
    best = -1
    best_v = 0
    for i in range(n):
        pc = options[i]
        v = _rank_sum(hand & _match_bits(pc))
        if best < 0 or v < best_v:
            best = pc
            best_v = v
    return best


@njit(cache=True, inline="always")
def _choose_forecast_basic(obs, kind, params, r, rng, out, work, fwork):
    """Prediction set of the viewer under policy ``kind`` with parameters params[r] (params float64
    (rows, N_PARAMS)): returns (k, rng), cards in out[:k]; fwork[FW_PEX] = -1 (no estimate)."""
    fwork[FW_PEX] = -1.0
    if kind == F_HEURISTIC:
        return _forecast_heuristic(obs, params, r, out, work, fwork), rng
    if kind == F_RANDOM:
        return _forecast_random(obs, rng, out, work)
    return 0, rng


@njit(cache=True, inline="always")
def _choose_play_basic(obs, kind, params, r, rng, buf, work):
    """Card the viewer plays under a basic policy ``kind`` (heuristic, or uniform over the legal
    cards in ascending order) with parameters params[r]; returns (card, rng)."""
    if kind == P_HEURISTIC:
        return _play_heuristic(obs, params[r, 0]), rng
    legal = _legal_set(obs, obs[S_VIEWER])
    nl = _popcount(legal)
    if nl == 1:
        return trailing_zeros(legal), rng
    j, rng = next_below(rng, nl)
    return _nth_card(legal, j), rng


@njit(cache=True, inline="always")
def _choose_close_basic(obs, kind, params, r, rng, buf):
    n = _pending_matches(obs, buf)
    if kind == P_RANDOM:
        j, rng = next_below(rng, n)
        return buf[j], rng
    return _close_heuristic(obs, buf, n), rng


# ------------------------------------------------------------------ determinization and rollouts
@njit(cache=True, inline="always")
def _hand_loop(state, pol, rng, trace, tpos, scratch, choose_forecast, choose_play, choose_close):
    """Play the hand in ``state`` to its end from wherever it is: each decision goes to the seat's
    policy through ``_observe`` (what that seat knows) and the ``choose_*`` functions; returns
    (rng, trace position).

    Args:
        pol: the seats' policies ``(fk, fp, pk, pp)``: int64 (players,) forecast / play kinds and
            float64 (players, N_PARAMS) their parameters.
        scratch: ``(obs, work, fwork)``: an observation buffer (the hand state's layout) and the int64
            / float64 scratch at the W_* / FW_* offsets; fwork[FW_PEXS + seat] receives each
            forecast's P(exact) estimate.
    """
    fk, fp, pk, pp = pol
    obs, work, fwork = scratch
    buf = work[W_BUF:W_BUF + 16]
    while state[S_PHASE] == PH_FORECAST:
        s = state[S_TURN]
        _observe(state, s, obs)
        k, rng = choose_forecast(obs, fk[s], fp, s, rng, buf, work, fwork)
        fwork[FW_PEXS + s] = fwork[FW_PEX]
        tpos = _apply_forecast(state, s, buf, k, trace, tpos)
    while state[S_PHASE] != PH_DONE:
        s = state[S_TURN]
        _observe(state, s, obs)
        if state[S_PHASE] == PH_PLAY:
            c, rng = choose_play(obs, pk[s], pp, s, rng, buf, work)
            tpos = _play_card(state, c, trace, tpos)
        else:
            c, rng = choose_close(obs, pk[s], pp, s, rng, buf)
            tpos = _close_card(state, c, trace, tpos)
    return rng, tpos


@njit(cache=True, _nrt=False)
def _continue_basic(state, pol, rng, scratch, trace):
    """Play the hand in ``state`` to its end with basic (non-rollout) policies ``pol`` (see
    :func:`_hand_loop`, as ``scratch``); returns the stream state.  Compiled without reference
    counting: nothing here allocates, and the hot loops run faster without it."""
    rng, _ = _hand_loop(state, pol, rng, trace, 0, scratch, _choose_forecast_basic, _choose_play_basic,
                        _choose_close_basic)
    return rng


@njit(cache=True)
def _voids(obs, void):
    """void int64 (16,): void[4 * seat + colour] = 1 if seat showed out of that colour (STK-5)."""
    void[:] = 0
    P = obs[S_PLAYERS]
    for t in range(obs[S_TRICK] + 1):
        if t >= 16:
            break
        leader = obs[T_LEAD + t]
        if leader < 0 or obs[T_CARDS + 4 * t + leader] < 0:
            continue
        led = _colour(obs[T_CARDS + 4 * t + leader])
        for s in range(P):
            c = obs[T_CARDS + 4 * t + s]
            if c >= 0 and _colour(c) != led:
                void[4 * s + led] = 1


@njit(cache=True)
def _sample_world(obs, rng, world, hidden, void):
    """Determinization: a full state consistent with the observation ``obs`` (its viewer's knowledge).

    The cards hidden from the viewer are dealt to the other seats in the public hand counts, never
    giving a seat a colour it has shown out of (STK-5): cards are shuffled, the colours with the
    fewest possible holders go first, and each card goes to a possible holder with probability
    proportional to the room left in that hand; a dead end restarts (up to 8 times), after which
    the voids are ignored.  Returns the stream state.
    """
    me = obs[S_VIEWER]
    P = obs[S_PLAYERS]
    _voids(obs, void)
    nh = 0
    for c in range(N_CARD_IDS):
        if obs[LOC + c] == L_HIDDEN:
            hidden[nh] = c
            nh += 1
    cap = np.zeros(4, dtype=np.int64)
    for attempt in range(9):
        use_void = attempt < 8
        world[:] = obs
        world[S_VIEWER] = -1
        for s in range(P):
            cap[s] = 0 if s == me else world[NHAND + s]
        for i in range(nh - 1, 0, -1):
            j, rng = next_below(rng, i + 1)
            t = hidden[i]
            hidden[i] = hidden[j]
            hidden[j] = t
        # stable insertion sort by the number of possible holders of the card's colour
        for i in range(1, nh):
            c = hidden[i]
            kc = 0
            for s in range(P):
                if s != me and (not use_void or void[4 * s + _colour(c)] == 0):
                    kc += 1
            j = i
            while j > 0:
                d = hidden[j - 1]
                kd = 0
                for s in range(P):
                    if s != me and (not use_void or void[4 * s + _colour(d)] == 0):
                        kd += 1
                if kd <= kc:
                    break
                hidden[j] = d
                j -= 1
            hidden[j] = c
        ok = True
        for i in range(nh):
            c = hidden[i]
            tot = 0
            for s in range(P):
                if s != me and (not use_void or void[4 * s + _colour(c)] == 0):
                    tot += cap[s]
            if tot == 0:
                ok = False
                break
            r, rng = next_below(rng, tot)
            for s in range(P):
                if s != me and (not use_void or void[4 * s + _colour(c)] == 0):
                    if r < cap[s]:
                        world[LOC + c] = L_HAND + s
                        _mask_add(world, HMASK + 4 * s, c)
                        cap[s] -= 1
                        break
                    r -= cap[s]
        if ok:
            return rng
    return rng


@njit(cache=True)
def _rollout_defaults(P, params, keep_low):
    """Policies every seat follows inside a rollout: heuristic forecasts (parameters
    ``params[ROLLOUT_HEURISTIC_AT:]``) and heuristic play."""
    fk = np.full(P, F_HEURISTIC, dtype=np.int64)
    pk = np.full(P, P_HEURISTIC, dtype=np.int64)
    fp = np.zeros((P, N_PARAMS))
    pp = np.zeros((P, N_PARAMS))
    for s in range(P):
        for i in range(N_PARAMS - ROLLOUT_HEURISTIC_AT):
            fp[s, i] = params[ROLLOUT_HEURISTIC_AT + i]
        pp[s, 0] = keep_low
    return fk, fp, pk, pp


@njit(cache=True)
def _rollout_choice(obs, params, rng, options, n, close_phase):
    """Rollout (perfect-information Monte Carlo) choice among ``options[:n]`` (cards to play, or
    prediction cards to close): ``params[1]`` worlds are sampled consistent with the observation
    and shared by every option; each option is played out to the end of the hand with heuristic
    play for everyone; the option with the highest total hand score of the viewer (scoring
    ``params[2]``) wins, ties to the lowest card.  Returns (card, rng)."""
    if n == 1:
        return options[0], rng
    me = obs[S_VIEWER]
    P = obs[S_PLAYERS]
    R = max(1, int(params[1]))
    scoring = int(params[2])
    pol = _rollout_defaults(P, params, params[0])
    world = np.empty(HAND_STATE_SIZE, dtype=np.int16)
    sim = np.empty(HAND_STATE_SIZE, dtype=np.int16)
    hidden = np.empty(64, dtype=np.int64)
    void = np.empty(16, dtype=np.int64)
    scratch = (np.empty(HAND_STATE_SIZE, dtype=np.int16), np.zeros(W_SIZE, dtype=np.int64), np.zeros(FW_SIZE))
    notrace = np.zeros((0, 3), dtype=np.int64)
    opts = options[:n].copy()
    total = np.zeros(n, dtype=np.int64)
    for w in range(R):
        rng = _sample_world(obs, rng, world, hidden, void)
        sub = game_state(rng, w)
        for i in range(n):
            sim[:] = world
            if close_phase:
                _close_card(sim, opts[i], notrace, 0)
            else:
                _play_card(sim, opts[i], notrace, 0)
            _continue_basic(sim, pol, sub, scratch, notrace)
            total[i] += _score(_off(sim, me), sim[NWON + me], scoring)
    best = 0
    for i in range(1, n):
        if total[i] > total[best]:
            best = i
    return opts[best], rng


@njit(cache=True)
def _forecast_candidates(obs, pool_size, kmax, cands, params):
    """Candidate prediction sets for the rollout forecaster, as bitmasks over card ids (int64).

    Pruning: only the ``pool_size`` cards that the hand-strength ranking rates best as prediction
    cards (those sharing colour or number with the most strong cards of the hand) are considered,
    and every subset of the pool with at most ``kmax`` cards is a candidate (the empty set first).
    Returns the number of candidates.

    No set is dropped as dominated, because no sound dominance exists under the rules: a set is
    worth what it scores over the deals of the hidden cards, and for two different sets S and T
    there are deals where each scores more.  Laying a card does three things at once: it leaves
    the hand (so it cannot win or lose a trick: STK-5), it must be closed by a won trick whose
    winning card shares its colour or number, or a red winner when void (STK-6), and a larger
    set shortens the hand for everyone (STK-7).  Take a card c in S and not in T.  On a deal where
    the other players hold every card that could win a trick matching c, c stays open and costs
    S one more off; on a deal where c, kept in hand, wins a trick its player cannot use to close
    anything (an extra trick), laying c saves that trick and S ends one less off.
    So relations such as "every card of S can be closed by the cards of T" or "S is T with a
    lower card of the same colour" hold on some deals and fail on others, and the only safe
    pruning is statistical: successive halving on common worlds (:func:`_forecast_search`).
    """
    me = obs[S_VIEWER]
    N = obs[S_NMAX]
    p = params.reshape((1, params.shape[0]))
    hand = np.empty(16, dtype=np.int64)
    nh = 0
    for c in range(N_CARD_IDS):
        if obs[LOC + c] == L_HAND + me:
            hand[nh] = c
            nh += 1
    st = np.empty(16)
    for i in range(nh):
        st[i] = _strength(hand[i], N, p, 0, ROLLOUT_HEURISTIC_AT)
    pv = np.empty(16)
    for i in range(nh):
        c = hand[i]
        v = -st[i]
        for j in range(nh):
            h = hand[j]
            if j != i and (_colour(h) == _colour(c) or _number(h) == _number(c)):
                v += st[j]
        pv[i] = v
    m = min(pool_size, nh)
    pool = np.empty(16, dtype=np.int64)
    used = np.zeros(16, dtype=np.int64)
    for o in range(m):
        bi = -1
        for i in range(nh):
            if used[i] == 0 and (bi < 0 or pv[i] > pv[bi]):
                bi = i
        used[bi] = 1
        pool[o] = hand[bi]
    n = 0
    for sub in range(1 << m):
        k = 0
        mask = np.int64(0)
        for b in range(m):
            if (sub >> b) & 1:
                k += 1
                mask |= np.int64(1) << np.int64(pool[b])
        if k <= kmax:
            cands[n] = mask
            n += 1
    return n


@njit(cache=True)
def _score_candidates(world, cands, alive, na, stats, rnd, playout, sub):
    """Play one sampled ``world`` out once per candidate prediction set ``cands[alive[:na]]`` of the seat
    searching, every one on the stream ``sub`` (common random numbers), adding each hand score to its row
    of ``stats`` (see :func:`_forecast_search`; column 5 records the round ``rnd``).

    Args:
        playout: what every playout of the search shares, ``(me, scoring, pol, sim, cards, notrace,
            scratch)``: the seat and the scoring id (STK-8) its hands are judged by, the policies
            (see :func:`_hand_loop`), a hand state to play in, an int64 (16,) card buffer, an empty
            trace and the scratch of :func:`_hand_loop`.
    """
    me, scoring, pol, sim, cards, notrace, scratch = playout
    for a in range(na):
        ci = alive[a]
        sim[:] = world
        k = _bits_to(cands[ci], cards, 0)
        _apply_forecast(sim, me, cards, k, notrace, 0)
        _continue_basic(sim, pol, sub, scratch, notrace)
        off = _off(sim, me)
        x = float(_score(off, sim[NWON + me], scoring))
        stats[ci, 0] += 1
        stats[ci, 1] += x
        stats[ci, 2] += x * x
        if off == 0:
            stats[ci, 3] += 1
        elif off == 1:
            stats[ci, 4] += 1
        stats[ci, 5] = rnd


@njit(cache=True)
def _forecast_search(obs, params, rng, cands, nc, stats, final_n, half_width):
    """Successive halving over candidate prediction sets with rollouts (common worlds per round).

    Round r evaluates every surviving candidate on ``params[1] * 2**r`` fresh worlds sampled
    consistent with the viewer's information (own hand, prediction cards laid before); each world
    is played out with heuristic forecasts for the later players and heuristic play for everyone.
    The better half (by mean hand score, scoring ``params[2]``) survives.  The survivor, and every
    candidate of the last round, then gets more worlds (up to ``final_n``) until the 95% CI
    half-width of its mean score is at most ``half_width``.

    stats float64 (nc, 6): worlds, sum score, sum score^2, exact, off by 1, round reached.
    Returns (index of the best candidate, rng).
    """
    me = obs[S_VIEWER]
    P = obs[S_PLAYERS]
    base = max(1, int(params[1]))
    scoring = int(params[2])
    world = np.empty(HAND_STATE_SIZE, dtype=np.int16)
    hidden = np.empty(64, dtype=np.int64)
    void = np.empty(16, dtype=np.int64)
    scratch = (np.empty(HAND_STATE_SIZE, dtype=np.int16), np.zeros(W_SIZE, dtype=np.int64), np.zeros(FW_SIZE))
    playout = (me, scoring, _rollout_defaults(P, params, 1.0), np.empty(HAND_STATE_SIZE, dtype=np.int16),
               np.empty(16, dtype=np.int64), np.zeros((0, 3), dtype=np.int64), scratch)
    alive = np.arange(nc)
    na = nc
    stats[:nc, :] = 0.0
    r = 0
    n_round = base
    wcount = 0
    while True:
        for w in range(n_round):
            rng = _sample_world(obs, rng, world, hidden, void)
            _score_candidates(world, cands, alive, na, stats, r, playout, game_state(rng, wcount))
            wcount += 1
        if na <= 1:
            break
        # keep the better half (stable: ties keep the earlier candidate)
        keep = (na + 1) // 2
        for i in range(1, na):
            a = alive[i]
            j = i
            while j > 0 and stats[alive[j - 1], 1] / stats[alive[j - 1], 0] < stats[a, 1] / stats[a, 0]:
                alive[j] = alive[j - 1]
                j -= 1
            alive[j] = a
        if na <= 8 and final_n > 0:
            break
        na = keep
        r += 1
        n_round *= 2
    # refine the last candidates until their CI is narrow enough
    if final_n > 0:
        while True:
            worst_hw = 0.0
            for a in range(na):
                ci = alive[a]
                n = stats[ci, 0]
                m = stats[ci, 1] / n
                var = max(stats[ci, 2] / n - m * m, 0.0) * n / max(n - 1.0, 1.0)
                hw = 1.959963984540054 * np.sqrt(var / n)
                if hw > worst_hw:
                    worst_hw = hw
            if worst_hw <= half_width or stats[alive[0], 0] >= final_n:
                break
            for w in range(256):
                rng = _sample_world(obs, rng, world, hidden, void)
                _score_candidates(world, cands, alive, na, stats, r + 1, playout, game_state(rng, wcount))
                wcount += 1
    best = alive[0]
    for a in range(na):
        ci = alive[a]
        if stats[ci, 1] / stats[ci, 0] > stats[best, 1] / stats[best, 0]:
            best = ci
    return best, rng


@njit(cache=True)
def _forecast_rollout(obs, params, rng, out, fwork):
    """Rollout forecaster as a policy: candidates (pool ``params[0]``, at most ``params[3]`` cards),
    successive halving from ``params[1]`` worlds; writes the chosen set (ascending) into out,
    its estimated P(exact) into fwork[FW_PEX]; returns (k, rng)."""
    kmax = int(params[3]) if params[3] > 0 else MAX_PREDICTIONS
    cands = np.empty(1 << 12, dtype=np.int64)
    nc = _forecast_candidates(obs, int(params[0]), min(kmax, MAX_PREDICTIONS), cands, params)
    stats = np.zeros((nc, 6))
    best, rng = _forecast_search(obs, params, rng, cands, nc, stats, 0, 0.0)
    k = 0
    for c in range(N_CARD_IDS):
        if (cands[best] >> np.int64(c)) & 1:
            out[k] = c
            k += 1
    fwork[FW_PEX] = stats[best, 3] / stats[best, 0]
    return k, rng


@njit(cache=True, inline="always")
def _choose_forecast(obs, kind, params, r, rng, out, work, fwork):
    """Prediction set of the viewer under policy ``kind`` (any kind) with parameters params[r];
    returns (k, rng)."""
    fwork[FW_PEX] = -1.0
    if kind == F_ROLLOUT:
        return _forecast_rollout(obs, params[r], rng, out, fwork)
    return _choose_forecast_basic(obs, kind, params, r, rng, out, work, fwork)


@njit(cache=True, inline="always")
def _choose_play(obs, kind, params, r, rng, buf, work):
    """Card the viewer plays under policy ``kind`` with parameters params[r]; returns (card, rng)."""
    if kind == P_ROLLOUT:
        nl = _legal_plays(obs, obs[S_VIEWER], buf)
        return _rollout_choice(obs, params[r], rng, buf, nl, False)
    return _choose_play_basic(obs, kind, params, r, rng, buf, work)


@njit(cache=True, inline="always")
def _choose_close(obs, kind, params, r, rng, buf):
    if kind == P_ROLLOUT:
        n = _pending_matches(obs, buf)
        return _rollout_choice(obs, params[r], rng, buf, n, True)
    return _choose_close_basic(obs, kind, params, r, rng, buf)


# ------------------------------------------------------------------ a hand, a game
@njit(cache=True, inline="always")
def _deal_hand(state, rules, start, rng, trace, tpos, work):
    """Deal a hand (STK-1, STK-3) and trace it; returns (rng, trace position)."""
    rng = _new_hand(state, rules, start, rng, work)
    if trace.shape[0] > 0:
        tpos = _trace(trace, tpos, A_HAND, -1, start)
        for s in range(rules[0]):
            for c in range(N_CARD_IDS):
                if state[LOC + c] == L_HAND + s:
                    tpos = _trace(trace, tpos, A_DEAL, s, c)
    return rng, tpos


@njit(cache=True)
def _play_hand(state, rules, start, pol, rng, trace, tpos, scratch):
    """Deal and play one hand with per-seat policies of any kind; returns (rng, trace position).

    Args:
        pol: ``(fk, fp, pk, pp)``: int64 (players,) forecast / play policy kinds, float64 (players,
            N_PARAMS) their parameters.
        trace: int64 (n, 3) event rows (code, seat, card), or shape (0, 3) for none.
        scratch: ``(obs, work, fwork)`` (see :func:`_hand_loop`); on return fwork[FW_PEXS + seat]
            holds each seat's forecast P(exact) estimate (-1 if its forecaster makes none).
    """
    rng, tpos = _deal_hand(state, rules, start, rng, trace, tpos, scratch[1])
    return _hand_loop(state, pol, rng, trace, tpos, scratch, _choose_forecast, _choose_play, _choose_close)


@njit(cache=True, _nrt=False)
def _play_hand_basic(state, rules, start, pol, rng, trace, tpos, scratch):
    """:func:`_play_hand` for basic policies only (no rollout kind), compiled without reference
    counting (nothing allocates); the same hands, decisions and random numbers."""
    rng, tpos = _deal_hand(state, rules, start, rng, trace, tpos, scratch[1])
    return _hand_loop(state, pol, rng, trace, tpos, scratch, _choose_forecast_basic, _choose_play_basic,
                      _choose_close_basic)


@njit(cache=True)
def _all_basic(fk, pk):
    """True if no seat uses a rollout policy (the hand can run in :func:`_play_hand_basic`)."""
    for s in range(fk.shape[0]):
        if fk[s] == F_ROLLOUT or pk[s] == P_ROLLOUT:
            return False
    return True


@njit(cache=True, inline="always")
def _untraced_hand(basic, state, rules, start, pol, rng, empty, scratch):
    """Deal and play one hand without a trace (``empty``: int64 (0, 3)), in :func:`_play_hand_basic` when
    ``basic`` (no rollout policy at the table, see :func:`_all_basic`), else in :func:`_play_hand`
    (``pol`` and ``scratch`` as there); returns the stream state."""
    if basic:
        rng, _ = _play_hand_basic(state, rules, start, pol, rng, empty, 0, scratch)
    else:
        rng, _ = _play_hand(state, rules, start, pol, rng, empty, 0, scratch)
    return rng


@njit(cache=True, inline="always")
def _chunk_scratch(rules, fk, fp, pk, pp):
    """What one chunk of a simulation owns: state, observation, int and float scratch, an empty trace,
    and private copies of the rules and policy arrays."""
    return (np.zeros(HAND_STATE_SIZE, dtype=np.int16), np.zeros(HAND_STATE_SIZE, dtype=np.int16),
            np.zeros(W_SIZE, dtype=np.int64), np.zeros(FW_SIZE), np.zeros((0, 3), dtype=np.int64),
            rules.copy(), fk.copy(), fp.copy(), pk.copy(), pp.copy())


@njit(cache=True, inline="always")
def _borrow_all(owners):
    """:func:`_borrow` of each array of :func:`_chunk_scratch` (keep ``owners`` alive: :func:`_keep_all`)."""
    return (_borrow(owners[0]), _borrow(owners[1]), _borrow(owners[2]), _borrow(owners[3]), _borrow(owners[4]),
            _borrow(owners[5]), _borrow(owners[6]), _borrow(owners[7]), _borrow(owners[8]), _borrow(owners[9]))


@njit(cache=True)
def _keep_all(owners):
    """:func:`_keep` of every array of :func:`_chunk_scratch`, after the loops that borrow them."""
    n = 0
    for k in literal_unroll(owners):
        n += _keep(k)
    return n


@njit(cache=True)
def _winner(totals, last_start, P):
    """Winning seat under the last-start tie-break (STK-9)."""
    top = totals[0]
    for s in range(1, P):
        if totals[s] > top:
            top = totals[s]
    for k in range(P):
        s = (last_start + k) % P
        if totals[s] == top:
            return s
    return -1


@njit(cache=True)
def _trace_game(key, g, rules, scoring, fk, fp, pk, pp, trace):
    """Play game ``g`` of the chunk with ``key`` (STK-9), writing every event; returns the row count."""
    return _trace_stream(game_state(key, g), rules, scoring, fk, fp, pk, pp, trace)


@njit(cache=True)
def _trace_stream(rng, rules, scoring, fk, fp, pk, pp, trace):
    """Play one game (STK-9) from the stream state ``rng`` (as :func:`_simulate_games` plays game g from
    ``game_state(key, g)``), writing every event into ``trace`` (int64 (n, 3)); returns the row count."""
    P = rules[0]
    state = np.zeros(HAND_STATE_SIZE, dtype=np.int16)
    obs = np.zeros(HAND_STATE_SIZE, dtype=np.int16)
    work = np.zeros(W_SIZE, dtype=np.int64)
    fwork = np.zeros(FW_SIZE)
    fk = fk.copy()
    fp = fp.copy()
    pk = pk.copy()
    pp = pp.copy()
    tpos = 0
    pol = (fk, fp, pk, pp)
    scratch = (obs, work, fwork)
    for h in range(P):
        rng, tpos = _play_hand(state, rules, h % P, pol, rng, trace, tpos, scratch)
        for s in range(P):
            tpos = _trace(trace, tpos, A_SCORE, s, _score(_off(state, s), state[NWON + s], scoring))
    return tpos


@njit(cache=True, parallel=True)
def _simulate_hands(keys, starts, stops, rules, scoring, fk, fp, pk, pp, out):
    """Accuracy study: hand g is dealt once and played under every config (common random numbers).

    Args:
        fk, pk: int64 (C, players); fp, pp: float64 (C, players, N_PARAMS): C policy configs.
        out: float64 (n_chunks, C, players + 1, 6, N_STATS); seat = forecast position (seat 0
            starts every hand); row ``players`` holds hand-level paired statistics (HP_*).
    """
    P = rules[0]
    C = fk.shape[0]
    for i in prange(keys.shape[0]):
        owners = _chunk_scratch(rules, fk, fp, pk, pp)
        state, obs, work, fwork, empty_b, rules_b, fkb, fpb, pkb, ppb = _borrow_all(owners)
        scratch = (obs, work, fwork)
        sc = np.zeros(4)
        mean0 = np.zeros(stops[i] - starts[i])
        # configs outside, hands inside: each accumulator still sees the hands in order
        for c in range(C):
            pol = (fkb[c], fpb[c], pkb[c], ppb[c])
            oc = out[i, c]
            basic = _all_basic(pol[0], pol[2])
            for g in range(starts[i], stops[i]):
                rng = _untraced_hand(basic, state, rules_b, 0, pol, game_state(keys[i], g), empty_b, scratch)
                tot = 0.0
                for s in range(P):
                    off = _off(state, s)
                    won = state[NWON + s]
                    k = state[NPRED + s]
                    x = float(_score(off, won, scoring))
                    sc[s] = x
                    tot += x
                    oc[s, k, ST_N] += 1
                    oc[s, k, ST_SCORE] += x
                    oc[s, k, ST_SCORE2] += x * x
                    if off == 0:
                        oc[s, k, ST_EXACT] += 1
                    elif off == 1:
                        oc[s, k, ST_OFF1] += 1
                    oc[s, k, ST_OFF] += off
                    oc[s, k, ST_OFF2] += off * off
                    ae = abs(won - k)
                    oc[s, k, ST_ABSERR] += ae
                    oc[s, k, ST_ABSERR2] += ae * ae
                    oc[s, k, ST_WON] += won
                    oc[s, k, ST_HIST + min(off, MAX_OFF)] += 1
                    pe = fwork[FW_PEXS + s]
                    if pe >= 0.0:  # calibration of the forecaster's own P(exact)
                        b = min(int(pe * N_CAL_BINS), N_CAL_BINS - 1)
                        ex = 1.0 if off == 0 else 0.0
                        oc[P, 1, b] += 1
                        oc[P, 2, b] += pe
                        oc[P, 3, b] += ex
                        oc[P, 4, 0] += (pe - ex) * (pe - ex)
                        oc[P, 4, 1] += 1
                        oc[P, 4, 2] += pe
                        oc[P, 4, 3] += ex
                        oc[P, 4, 4] += (pe - ex) * (pe - ex) * (pe - ex) * (pe - ex)
                mean = tot / P
                d_first = sc[0] - (tot - sc[0]) / (P - 1)
                if c == 0:
                    mean0[g - starts[i]] = mean
                m0 = mean0[g - starts[i]]
                oc[P, 0, HP_N] += 1
                oc[P, 0, HP_DFIRST] += d_first
                oc[P, 0, HP_DFIRST2] += d_first * d_first
                oc[P, 0, HP_MEAN] += mean
                oc[P, 0, HP_MEAN2] += mean * mean
                oc[P, 0, HP_D0] += mean - m0
                oc[P, 0, HP_D02] += (mean - m0) * (mean - m0)
        _keep_all(owners)


@njit(cache=True, parallel=True)
def _simulate_games(keys, starts, stops, rules, fk, fp, pk, pp, out):
    """Whole games (STK-9) with per-seat policies; out float64 (n_chunks, players, N_GSTATS): games won
    (under the tie-break ``rules[R_TIE_BREAK]`` 1, shared, every tied player wins one), 1/(number tied)
    summed over the games the seat tops, sum and sum of squares of the game total, games played (G_*
    columns).

    Args:
        rules: int64 (GAME_RULES_SIZE,), ``BooksRules.game_array()``: the hand rules, the scoring id
            (STK-8) and the tie-break id (STK-9); every game has as many hands as players.
        fk, pk: int64 (players,) forecast / play policy kinds; fp, pp: float64 (players, N_PARAMS).
    """
    P = rules[0]
    scoring = rules[R_SCORING]
    tie_break = rules[R_TIE_BREAK]
    for i in prange(keys.shape[0]):
        owners = _chunk_scratch(rules, fk, fp, pk, pp)
        state, obs, work, fwork, empty_b, rules_b, fkb, fpb, pkb, ppb = _borrow_all(owners)
        pol = (fkb, fpb, pkb, ppb)
        scratch = (obs, work, fwork)
        totals = np.zeros(4, dtype=np.int64)
        basic = _all_basic(fkb, pkb)
        for g in range(starts[i], stops[i]):
            rng = game_state(keys[i], g)
            for s in range(P):
                totals[s] = 0
            for h in range(P):
                rng = _untraced_hand(basic, state, rules_b, h % P, pol, rng, empty_b, scratch)
                for s in range(P):
                    totals[s] += _score(_off(state, s), state[NWON + s], scoring)
            top = totals[0]
            for s in range(1, P):
                if totals[s] > top:
                    top = totals[s]
            nt = 0
            for s in range(P):
                if totals[s] == top:
                    nt += 1
            w = _winner(totals, P - 1, P)
            for s in range(P):
                x = float(totals[s])
                out[i, s, G_GAMES] += 1.0
                out[i, s, G_TOTAL] += x
                out[i, s, G_TOTAL2] += x * x
                if totals[s] == top:
                    out[i, s, G_SHARED] += 1.0 / nt
            if tie_break == 1:  # shared: every tied player wins (STK-9)
                for s in range(P):
                    if totals[s] == top:
                        out[i, s, G_WINS] += 1.0
            else:
                out[i, w, G_WINS] += 1
        _keep_all(owners)


# ------------------------------------------------------------------ the step interface
#: The step interface's state: the hand state (int16 layout, here as int64), then the game around it
#: (named offsets of :mod:`ludolab.stdlib.books`: S_RNG, S_HANDNO, S_NHANDS, S_TOTAL + seat).
STATE_SIZE = GAME_STATE_SIZE
#: An observation has the state's layout (see :func:`observe`).
OBS_SIZE = GAME_STATE_SIZE
#: The most legal actions of one decision: the forecasts of a 16-card hand.
MAX_ACTIONS = MAX_FORECAST_ACTIONS


@njit(cache=True)
def current_player(state):
    """The seat to act (forecast, play or close); -1 once the game's last hand is over."""
    if state[S_HANDNO] >= state[S_NHANDS]:
        return -1
    return state[S_TURN]


@njit(cache=True)
def is_terminal(state):
    """True once every hand of the game is played (STK-9)."""
    return state[S_HANDNO] >= state[S_NHANDS]


@njit(cache=True)
def new_game(rules, key, state):
    """Set up game ``key`` (uint64 stream start) in ``state`` (int64 (STATE_SIZE,)): the first hand dealt
    with seat 0 starting (STK-3), exactly as :func:`_simulate_games` starts a game from
    ``game_state(chunk_key, g)``; the stream then lives in ``state[S_RNG]``.

    Args:
        rules: int64 (GAME_RULES_SIZE,), ``BooksRules.game_array()``.
    """
    for i in range(STATE_SIZE):
        state[i] = 0
    work = np.zeros(W_SIZE, dtype=np.int64)
    rng = _new_hand(state, rules, 0, np.uint64(key), work)
    state[S_RNG] = np.int64(rng)
    state[S_HANDNO] = 0
    state[S_NHANDS] = rules[R_HANDS]


@njit(cache=True)
def _end_hand(rules, state):
    """After an action: if the hand is over (STK-7), score it into the totals (STK-8) and deal the next
    hand, its starting player one seat to the left (STK-9), from the state's stream."""
    if state[S_PHASE] != PH_DONE or state[S_HANDNO] >= state[S_NHANDS]:
        return
    P = state[S_PLAYERS]
    for s in range(P):
        state[S_TOTAL + s] += _score(_off(state, s), state[NWON + s], rules[R_SCORING])
    state[S_HANDNO] += 1
    h = state[S_HANDNO]
    if h < state[S_NHANDS]:
        work = np.zeros(W_SIZE, dtype=np.int64)
        rng = _new_hand(state, rules, h % P, np.uint64(state[S_RNG]), work)
        state[S_RNG] = np.int64(rng)


@njit(cache=True)
def legal_actions(rules, state, out):
    """The legal actions, ascending, into ``out`` (int64 (MAX_ACTIONS,)); returns their number (0 once the
    game is over).  Forecast (STK-4): every bitmask with at most 5 bits over the positions 0..n-1 of the
    seat's hand in ascending card order; play (STK-5): the card ids it may play; close (STK-6): the ids
    of the open prediction cards the winning card matches."""
    if current_player(state) < 0:
        return 0
    seat = state[S_TURN]
    ph = state[S_PHASE]
    if ph == PH_FORECAST:
        nh = state[NHAND + seat]
        n = 0
        for m in range(np.int64(1) << nh):
            if _popcount(np.int64(m)) <= MAX_PREDICTIONS:
                out[n] = m
                n += 1
        return n
    if ph == PH_PLAY:
        return _legal_plays(state, seat, out)
    return _pending_matches(state, out)


@njit(cache=True, inline="always")
def _forecast_cards(hand, action, cards):
    """Card ids (ascending, into ``cards``) at the positions set in ``action`` of the card set ``hand``
    taken in ascending order; returns their number, -1 if a position is outside the hand."""
    k = 0
    i = 0
    m = hand
    while m != 0:
        if (action >> np.int64(i)) & 1:
            cards[k] = trailing_zeros(m)
            k += 1
        i += 1
        m &= m - 1
    if action >> np.int64(i) != 0:
        return -1
    return k


@njit(cache=True)
def apply_action(rules, state, action):
    """Play ``action`` (see :func:`legal_actions`) for the seat to act, then the chance that follows:
    at the end of a hand its scores are added and the next hand is dealt from ``state[S_RNG]``.

    Raises:
        ValueError: the game is over, or the action is not legal.
    """
    if current_player(state) < 0:
        raise ValueError("the game is over: no action is legal")
    seat = state[S_TURN]
    ph = state[S_PHASE]
    notrace = np.zeros((0, 3), dtype=np.int64)
    a = np.int64(action)
    if ph == PH_FORECAST:
        cards = np.zeros(16, dtype=np.int64)
        k = _forecast_cards(_mask(state, HMASK + 4 * seat), a, cards) if a >= 0 else -1
        if k < 0 or k > MAX_PREDICTIONS:
            raise ValueError("a forecast is a bitmask of at most 5 positions of the hand (STK-4)")
        _apply_forecast(state, seat, cards, k, notrace, 0)
    elif ph == PH_PLAY:
        if a < 0 or a >= N_CARD_IDS or ((_legal_set(state, seat) >> a) & 1) == 0:
            raise ValueError("the card is not one the seat may play (STK-5)")
        _play_card(state, a, notrace, 0)
    else:
        t = state[S_TRICK]
        led = _colour(state[T_CARDS + 4 * t + state[S_LEADER]])
        if a < 0 or a >= N_CARD_IDS or ((_matching_open_set(state, seat, state[S_PENDING], led) >> a) & 1) == 0:
            raise ValueError("the card is not an open prediction card the winning card matches (STK-6)")
        _close_card(state, a, notrace, 0)
    _end_hand(rules, state)


@njit(cache=True)
def observe(rules, state, seat, obs):
    """What ``seat`` knows, into ``obs`` (int64 (OBS_SIZE,), the state's layout): the hand as
    :func:`_observe` gives it (its own hand; every prediction card laid, open or closed; every card
    played, trick by trick; the counts; the phase and the seat to act), the hand number and every
    total (public); every card in another hand is L_HIDDEN and the stream (``obs[S_RNG]``) is 0.
    Earlier hands tell nothing about this one (each hand is a new shuffle, STK-9) beyond the totals."""
    _observe(state, seat, obs)
    obs[S_RNG] = 0
    obs[S_HANDNO] = state[S_HANDNO]
    obs[S_NHANDS] = state[S_NHANDS]
    for s in range(4):
        obs[S_TOTAL + s] = state[S_TOTAL + s]


@njit(cache=True)
def returns(rules, state, out):
    """Points per seat into ``out[:players]`` (float64): the totals of the finished hands (STK-9)."""
    for s in range(state[S_PLAYERS]):
        out[s] = float(state[S_TOTAL + s])


@njit(cache=True, inline="always")
def _uniform(rng):
    """A float64 uniform on [0, 1) with 53 random bits (two draws); returns (u, rng)."""
    hi, rng = next_below(rng, 1 << 26)
    lo, rng = next_below(rng, 1 << 27)
    return (hi * 134217728.0 + lo) / 9007199254740992.0, rng


@njit(cache=True)
def _count_deals(nhid, left, cap, allow):
    """The tables :func:`_deal_hidden` draws from: binom float64 (17, 17) the binomial coefficients and
    ways float64 (5, 17, 17), ways[col, a, b] the weighted deals of colours col..3 with a, b (and
    left[col] - a - b) cards still to place in the first, second (and third) other hand.

    Args:
        nhid: int64 (4,) hidden cards per colour; left: int64 (5,) hidden cards of colours col..3;
        cap: int64 (3,) cards each other hand holds; allow: int64 (3, 4), 0 where that hand has shown
            out of the colour (STK-5).
    """
    binom = np.zeros((17, 17))
    for n in range(17):
        binom[n, 0] = 1.0
        for k in range(1, n + 1):
            binom[n, k] = binom[n - 1, k - 1] + binom[n - 1, k]
    ways = np.zeros((5, 17, 17))
    ways[4, 0, 0] = 1.0
    splits = _split_buffers()
    for col in range(3, -1, -1):
        h = nhid[col]
        for a in range(min(cap[0], left[col]) + 1):
            for b in range(min(cap[1], left[col] - a) + 1):
                d = left[col] - a - b
                if d > cap[2]:
                    continue
                tot = 0.0
                for i in range(_colour_splits(h, (a, b, d), col, allow, binom, ways, splits)):
                    tot += splits[2][i]
                ways[col, a, b] = tot
    return binom, ways


@njit(cache=True, inline="always")
def _split_buffers():
    """Room for every split of one colour (:func:`_colour_splits`): int64 n0, int64 n1, float64 weight."""
    return np.zeros(289, dtype=np.int64), np.zeros(289, dtype=np.int64), np.zeros(289)


@njit(cache=True, inline="always")
def _colour_splits(h, room, col, allow, binom, ways, splits):
    """The splits of the ``h`` hidden cards of colour ``col`` among the three other hands, in the
    order (n0, n1) ascending: n0 to the first hand, n1 to the second, the rest to the third, within
    the places ``room = (a, b, d)`` still free in them and none to a hand void in the colour (allow,
    STK-5); each weighted by its orderings times ways[col + 1] (the deals of the later colours).
    Writes them into ``splits`` (:func:`_split_buffers`) and returns their number."""
    a, b, d = room
    n0s, n1s, ws = splits
    m = 0
    for n0 in range(min(a, h) + 1):
        if n0 > 0 and allow[0, col] == 0:
            break
        for n1 in range(min(b, h - n0) + 1):
            if n1 > 0 and allow[1, col] == 0:
                break
            n2 = h - n0 - n1
            if n2 > d or (n2 > 0 and allow[2, col] == 0):
                continue
            n0s[m] = n0
            n1s[m] = n1
            ws[m] = binom[h, n0] * binom[h - n0, n1] * ways[col + 1, a - n0, b - n1]
            m += 1
    return m


@njit(cache=True)
def _deal_hidden(world, seat, rng):
    """Deal the L_HIDDEN cards of ``world`` (a hand state as ``seat`` observes it, int64) to the other
    seats, uniformly among the deals that give each seat its public number of cards and no card of a
    colour it has shown out of (STK-5); returns the stream state.

    Exact: the count of such deals is summed colour by colour over how many cards of the colour each
    seat gets (multinomial weights, float64), a split is drawn with probability proportional to its
    count, then the colour's cards are shuffled into the split.

    Raises:
        ValueError: no deal is consistent with the observation.
    """
    P = world[S_PLAYERS]
    void = np.zeros(16, dtype=np.int64)
    _voids(world, void)
    others = np.zeros(3, dtype=np.int64)
    cap = np.zeros(3, dtype=np.int64)
    allow = np.zeros((3, 4), dtype=np.int64)
    m = 0
    for s in range(P):
        if s != seat:
            others[m] = s
            cap[m] = world[NHAND + s]
            for col in range(4):
                allow[m, col] = 1 - void[4 * s + col]
            m += 1
    hid = np.zeros((4, 16), dtype=np.int64)
    nhid = np.zeros(4, dtype=np.int64)
    for c in range(N_CARD_IDS):
        if world[LOC + c] == L_HIDDEN:
            col = c // MAX_NUMBER
            hid[col, nhid[col]] = c
            nhid[col] += 1
    left = np.zeros(5, dtype=np.int64)  # hidden cards of colours col..3
    for col in range(3, -1, -1):
        left[col] = left[col + 1] + nhid[col]
    if left[0] != cap[0] + cap[1] + cap[2]:
        raise ValueError("the hidden cards do not fill the other hands")
    binom, ways = _count_deals(nhid, left, cap, allow)
    if ways[0, cap[0], cap[1]] <= 0.0:
        raise ValueError("no deal of the hidden cards is consistent with the observation")
    a = cap[0]
    b = cap[1]
    splits = _split_buffers()
    n0s, n1s, ws = splits
    for col in range(4):
        h = nhid[col]
        d = left[col] - a - b
        u, rng = _uniform(rng)
        x = u * ways[col, a, b]
        pick0 = -1
        pick1 = -1
        cum = 0.0
        for i in range(_colour_splits(h, (a, b, d), col, allow, binom, ways, splits)):
            if ws[i] > 0.0:
                cum += ws[i]
                pick0 = n0s[i]
                pick1 = n1s[i]
                if x < cum:
                    break
        for i in range(h - 1, 0, -1):  # the colour's cards in a uniform order, then split
            j, rng = next_below(rng, i + 1)
            t = hid[col, i]
            hid[col, i] = hid[col, j]
            hid[col, j] = t
        for i in range(h):
            o = 0 if i < pick0 else (1 if i < pick0 + pick1 else 2)
            c = hid[col, i]
            world[LOC + c] = L_HAND + others[o]
            _mask_add(world, HMASK + 4 * others[o], c)
        a -= pick0
        b -= pick1
    return rng


@njit(cache=True)
def determinize(rules, obs, seat, key, state):
    """A full state consistent with ``obs`` (``seat``'s observation) into ``state``: the cards hidden
    from the seat dealt uniformly among the deals consistent with it (:func:`_deal_hidden`: hand sizes
    and shown voids), drawn from the stream start ``key``; the state's stream continues from there.
    ``observe(rules, state, seat, ...)`` then equals ``obs``.

    Raises:
        ValueError: ``obs`` is not an observation of ``seat``, or no deal is consistent with it.
    """
    if obs[S_VIEWER] != seat:
        raise ValueError("the observation is not the seat's")
    for i in range(STATE_SIZE):
        state[i] = obs[i]
    state[S_VIEWER] = -1
    rng = _deal_hidden(state, seat, np.uint64(key))
    state[S_RNG] = np.int64(rng)


@njit(cache=True)
def act(kind, params, obs, state):
    """A seat's named policy pair decides from ``obs`` alone: ``kind = POLICY_PAIR_BASE * forecast kind
    + play kind`` (F_* / P_* of :mod:`ludolab.stdlib.books`), ``params`` float64 (2 * N_PARAMS,): the
    forecast policy's parameters, then the play policy's.  The forecast policy lays the prediction cards
    (returned as the bitmask of their hand positions), the play policy plays a card and chooses which
    prediction card to close; the deciders are the fast kernels' own (:func:`_choose_forecast`,
    :func:`_choose_play`, :func:`_choose_close`), on the same observation, drawing from ``state[S_RNG]``
    the random numbers :func:`_hand_loop` draws for the same decision."""
    o = np.empty(HAND_STATE_SIZE, dtype=np.int16)
    for i in range(HAND_STATE_SIZE):
        o[i] = obs[i]
    fp = np.empty((1, N_PARAMS))
    pp = np.empty((1, N_PARAMS))
    for i in range(N_PARAMS):
        fp[0, i] = params[i]
        pp[0, i] = params[N_PARAMS + i]
    work = np.zeros(W_SIZE, dtype=np.int64)
    fwork = np.zeros(FW_SIZE)
    buf = work[W_BUF:W_BUF + 16]
    rng = np.uint64(state[S_RNG])
    ph = o[S_PHASE]
    if ph == PH_FORECAST:
        k, rng = _choose_forecast(o, kind // POLICY_PAIR_BASE, fp, 0, rng, buf, work, fwork)
        hand = _mask(o, HMASK + 4 * o[S_VIEWER])
        a = np.int64(0)
        for j in range(k):
            a |= np.int64(1) << _popcount(hand & ((np.int64(1) << np.int64(buf[j])) - 1))
    elif ph == PH_PLAY:
        c, rng = _choose_play(o, kind % POLICY_PAIR_BASE, pp, 0, rng, buf, work)
        a = np.int64(c)
    else:
        c, rng = _choose_close(o, kind % POLICY_PAIR_BASE, pp, 0, rng, buf)
        a = np.int64(c)
    state[S_RNG] = np.int64(rng)
    return a


# ------------------------------------------- the shared loops over the step interface
@njit(cache=True)
def running_score(rules, state, out):
    """Each seat's game total (STK-9) into out; returns the hands finished."""
    returns(rules, state, out)
    return state[S_HANDNO]


@njit(cache=True, nogil=True)
def play_many(rules, inp, out):
    """Whole games of named policy pairs (:func:`ludolab.sim.play.play_games`) on these rules."""
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
