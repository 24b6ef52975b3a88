"""Pure-Python reference engine for Shut The Books: slow, readable, the kernels' twin.

It follows the same rules (STK-1..STK-9), the same state layout
(:mod:`ludolab.stdlib.books`, ``S_*`` offsets) and draws the same random
numbers in the same order as :mod:`ludolab.sim.books_kernels`, so a seeded
hand gives the very same deal, tricks and scores.  It is the baseline of
``ludolab bench`` and the twin of every kernel in the tests.

A state is a Python list of ints (the kernels use an int16 array of the same
layout).  Policies read only ``observe_hand(state, seat)``.
"""

from __future__ import annotations

from ludolab.stdlib import books as R
from ludolab.stdlib.books import (F_ROLLOUT, P_ROLLOUT, PREDS, A_CLOSE, A_DEAL, A_EXTRA, A_FORECAST, A_HAND, A_PLAY, A_PREDICT, A_SCORE,
                                  F_HEURISTIC, F_RANDOM, F_ZERO, L_CLOSED, L_HAND, L_HIDDEN, L_OPEN, L_OUT,
                                  L_PLAYED, LOC, MAX_NUMBER, MAX_PREDICTIONS, N_CARD_IDS, NCLOSED, NEXTRA,
                                  NHAND, NPRED, NWON, HMASK, OMASK, P_HEURISTIC, P_RANDOM, PH_CLOSE, PH_DONE, PH_FORECAST,
                                  PH_PLAY, RED, S_HAND, S_LEADER, S_NFORECAST, S_NMAX, S_NPLAYED, S_NTRICKS,
                                  S_PENDING, S_PHASE, S_PLAYERS, S_START, S_TRICK, S_TURN, S_VIEWER,
                                  S_VOIDRULE, STATE_SIZE, T_CARDS, T_CLOSE, T_LEAD, T_WIN)

from .rng import py_game_state, py_next_below, py_shuffle


def colour(c: int) -> int:
    return c // MAX_NUMBER


def number(c: int) -> int:
    return c % MAX_NUMBER + 1


def rank(c: int) -> int:
    """Trick-taking strength of a card for the heuristics: reds above all, then by number."""
    return (16 if c // MAX_NUMBER == RED else 0) + c % MAX_NUMBER + 1


# ------------------------------------------------------------------ the deal
def new_hand(state: list, rules_arr, start: int, rng: int) -> int:
    """Reset ``state`` for a new hand, shuffle and deal (STK-1, STK-3); returns the stream state.

    Args:
        rules_arr: ``[players, max_number, hand_size, void_trump_counts]``.
        start: seat of the starting player.
    """
    P, N, H, vr = (int(x) for x in rules_arr[:4])
    for i in range(STATE_SIZE):
        state[i] = 0
    state[S_PLAYERS], state[S_NMAX], state[S_HAND], state[S_VOIDRULE] = P, N, H, vr
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
    deck = [col * MAX_NUMBER + n for col in range(4) for n in range(N)]
    rng = py_shuffle(deck, rng)
    for s in range(P):
        for j in range(H):
            state[LOC + deck[s * H + j]] = L_HAND + s
            mask_add(state, HMASK + 4 * s, deck[s * H + j])
        state[NHAND + s] = H
    return rng


def mask_add(state, base: int, c: int) -> None:
    """Add card ``c`` to the card set at ``base`` (HMASK or OMASK + 4 * seat)."""
    state[base + colour(c)] |= 1 << (c % MAX_NUMBER)


def mask_remove(state, base: int, c: int) -> None:
    state[base + colour(c)] &= ~(1 << (c % MAX_NUMBER))


def sync_masks(state) -> None:
    """Rebuild the hand and open-prediction card sets (HMASK, OMASK) from LOC, for a state set up by hand."""
    for i in range(HMASK, STATE_SIZE):
        state[i] = 0
    for c in range(N_CARD_IDS):
        loc = state[LOC + c]
        if L_HAND <= loc < L_HAND + 4:
            mask_add(state, HMASK + 4 * (loc - L_HAND), c)
        elif L_OPEN <= loc < L_OPEN + 4:
            mask_add(state, OMASK + 4 * (loc - L_OPEN), c)


def hand_cards(state, seat: int) -> list[int]:
    """Card ids in ``seat``'s hand, ascending."""
    return [c for c in range(N_CARD_IDS) if state[LOC + c] == L_HAND + seat]


def observe_hand(state, seat: int) -> list:
    """What ``seat`` knows: the same layout, every card in another hand marked L_HIDDEN.

    Public: prediction cards laid (open or closed), cards played, tricks, closes
    and counts.  Private: the viewer's own hand.
    """
    obs = list(state)
    obs[S_VIEWER] = seat
    for s in range(4):
        if s != seat:
            for col in range(4):
                obs[HMASK + 4 * s + col] = 0
    for c in range(N_CARD_IDS):
        loc = obs[LOC + c]
        if L_HAND <= loc < L_HAND + 4 and loc != L_HAND + seat:
            obs[LOC + c] = L_HIDDEN
    return obs


# -------------------------------------------------------------- forecast
def apply_forecast(state, seat: int, cards, trace=None) -> None:
    """``seat`` lays ``cards`` (ascending ids) as prediction cards (STK-4)."""
    for i, c in enumerate(cards):
        state[LOC + c] = L_OPEN + seat
        mask_remove(state, HMASK + 4 * seat, c)
        mask_add(state, OMASK + 4 * seat, c)
        state[PREDS + MAX_PREDICTIONS * seat + i] = c
        if trace is not None:
            trace.append((A_PREDICT, seat, c))
    state[NPRED + seat] = len(cards)
    state[NHAND + seat] -= len(cards)
    if trace is not None:
        trace.append((A_FORECAST, seat, len(cards)))
    P = state[S_PLAYERS]
    state[S_NFORECAST] += 1
    if state[S_NFORECAST] == P:
        state[S_NTRICKS] = min(state[NHAND + s] for s in range(P))  # STK-7: the shortest hand
        state[S_PHASE] = PH_PLAY
        state[S_TRICK] = 0
        state[S_NPLAYED] = 0
        state[S_LEADER] = state[S_START]
        state[T_LEAD + 0] = state[S_START]
        state[S_TURN] = state[S_START]
    else:
        state[S_TURN] = (seat + 1) % P


# ------------------------------------------------------------------- tricks
def led_colour(state) -> int:
    """Colour led in the current trick, -1 before the lead."""
    if state[S_NPLAYED] == 0:
        return -1
    return colour(state[T_CARDS + 4 * state[S_TRICK] + state[S_LEADER]])


def legal_plays(state, seat: int) -> list[int]:
    """Cards ``seat`` may play now, ascending (STK-5: follow the colour led if able)."""
    hand = [c for c in range(N_CARD_IDS) if state[LOC + c] == L_HAND + seat]
    led = led_colour(state)
    if led >= 0:
        follow = [c for c in hand if colour(c) == led]
        if follow:
            return follow
    return hand


def beats(c: int, best: int, led: int) -> bool:
    """Does card ``c`` beat the trick's current winning card ``best`` (STK-5)?"""
    if colour(c) == RED:
        return colour(best) != RED or number(c) > number(best)
    return colour(best) != RED and colour(c) == led and number(c) > number(best)


def matching_open(state, seat: int, win_card: int, led: int) -> list[int]:
    """Open prediction cards of ``seat`` that ``win_card`` matches (STK-6), ascending."""
    void_led = state[S_VOIDRULE] == 1 and colour(win_card) == RED and led != RED
    out = []
    for p in range(N_CARD_IDS):
        if state[LOC + p] == L_OPEN + seat:
            if colour(p) == colour(win_card) or number(p) == number(win_card) or (void_led and colour(p) == led):
                out.append(p)
    return out


def close_card(state, card: int, trace=None) -> None:
    """The pending trick winner closes prediction card ``card`` (STK-6) and the trick ends."""
    w = state[T_WIN + state[S_TRICK]]
    state[LOC + card] = L_CLOSED + w
    mask_remove(state, OMASK + 4 * w, card)
    state[NCLOSED + w] += 1
    state[T_CLOSE + state[S_TRICK]] = card
    state[S_PENDING] = -1
    if trace is not None:
        trace.append((A_CLOSE, w, card))
    _finish_trick(state)


def _finish_trick(state) -> None:
    w = state[T_WIN + state[S_TRICK]]
    state[S_TRICK] += 1
    state[S_NPLAYED] = 0
    state[S_LEADER] = w
    state[S_TURN] = w
    if state[S_TRICK] >= state[S_NTRICKS]:  # STK-7: some hand is empty
        state[S_PHASE] = PH_DONE
    else:
        state[T_LEAD + state[S_TRICK]] = w
        state[S_PHASE] = PH_PLAY


def play_card(state, card: int, trace=None) -> None:
    """The seat to act plays ``card`` (assumed legal); resolves the trick when complete (STK-5, STK-6)."""
    P = state[S_PLAYERS]
    seat = state[S_TURN]
    t = state[S_TRICK]
    state[T_CARDS + 4 * t + seat] = card
    state[LOC + card] = L_PLAYED
    mask_remove(state, HMASK + 4 * seat, card)
    state[NHAND + seat] -= 1
    state[S_NPLAYED] += 1
    if trace is not None:
        trace.append((A_PLAY, seat, card))
    if state[S_NPLAYED] < P:
        state[S_TURN] = (seat + 1) % P
        return
    leader = state[S_LEADER]
    led = colour(state[T_CARDS + 4 * t + leader])
    best = state[T_CARDS + 4 * t + leader]
    w = leader
    for k in range(1, P):
        s = (leader + k) % P
        c = state[T_CARDS + 4 * t + s]
        if beats(c, best, led):
            best, w = c, s
    state[T_WIN + t] = w
    state[NWON + w] += 1
    m = matching_open(state, w, best, led)
    if len(m) == 0:
        state[NEXTRA + w] += 1
        state[T_CLOSE + t] = -1
        if trace is not None:
            trace.append((A_EXTRA, w, -1))
        _finish_trick(state)
    elif len(m) == 1:
        state[LOC + m[0]] = L_CLOSED + w
        mask_remove(state, OMASK + 4 * w, m[0])
        state[NCLOSED + w] += 1
        state[T_CLOSE + t] = m[0]
        if trace is not None:
            trace.append((A_CLOSE, w, m[0]))
        _finish_trick(state)
    else:
        state[S_PHASE] = PH_CLOSE
        state[S_PENDING] = best
        state[S_TURN] = w


def pending_matches(state) -> list[int]:
    """In the close phase: the open prediction cards the pending winning card matches."""
    t = state[S_TRICK]
    w = state[T_WIN + t]
    led = colour(state[T_CARDS + 4 * t + state[S_LEADER]])
    return matching_open(state, w, state[S_PENDING], led)


# ------------------------------------------------------------------ scoring
def off_of(state, seat: int) -> int:
    """Open prediction cards left plus extra tricks (STK-8)."""
    return (state[NPRED + seat] - state[NCLOSED + seat]) + state[NEXTRA + seat]


def score_of(off: int, won: int, scoring: int) -> int:
    """Points of one hand (STK-8); scoring 0 rulebook, 1 exact-only, 2 linear."""
    if scoring == 0:
        return 4 if off == 0 else (2 if off == 1 else -off)
    if scoring == 1:
        return 10 + won if off == 0 else 0
    return 4 - 2 * off


# ------------------------------------------------------------------ policies
def _strength(c, N, p):
    x = number(c) / N
    if colour(c) == RED:
        return p[0] + p[1] * x
    v = (x - p[3]) / (1.0 - p[3])
    return p[2] * v if v > 0.0 else 0.0


def _hand_value(cards, N, p):
    e = 0.0
    cnt = [0, 0, 0, 0]
    for c in cards:
        e += _strength(c, N, p)
        cnt[colour(c)] += 1
    nshort = 0
    for col in range(1, 4):
        if cnt[col] <= 1:
            nshort += 1
    if cnt[RED] > 0:
        e += p[4] * min(nshort, cnt[RED])
    return e


def forecast_heuristic(obs, p) -> list[int]:
    """Hand-strength forecaster: the prediction set (ascending ids) for the viewer.

    Each card gets a trick value (reds by rank, non-red cards above a rank cut),
    trumps gain per short side colour; cards are ranked as prediction cards by how
    many strong cards of the hand share their colour or number, and the number k
    is the one whose remaining hand value, scaled for the shorter hand laying k
    causes and lowered for the prediction cards laid earlier, is nearest to k.
    """
    me = obs[S_VIEWER]
    P, N, H = obs[S_PLAYERS], obs[S_NMAX], obs[S_HAND]
    hand = [c for c in range(N_CARD_IDS) if obs[LOC + c] == L_HAND + me]
    n_earlier = obs[S_NFORECAST]
    sum_earlier = 0
    max_earlier = 0
    for i in range(n_earlier):
        s = (obs[S_START] + i) % P
        sum_earlier += obs[NPRED + s]
        max_earlier = max(max_earlier, obs[NPRED + s])
    st = [_strength(c, N, p) for c in hand]
    # value as a prediction card: the strength of the other cards sharing its colour or its number
    # (the two groups are disjoint), less its own strength
    sumcol = [0.0] * 4
    sumnum = [0.0] * 16
    for i, c in enumerate(hand):
        sumcol[colour(c)] += st[i]
        sumnum[number(c)] += st[i]
    pv = [sumcol[colour(c)] + sumnum[number(c)] - 3.0 * st[i] for i, c in enumerate(hand)]
    order = []
    used = [False] * len(hand)
    for _ in range(min(MAX_PREDICTIONS, len(hand))):
        bi = -1
        for i in range(len(hand)):
            if not used[i] and (bi < 0 or pv[i] > pv[bi]):
                bi = i
        used[bi] = True
        order.append(bi)
    best_k, best_err = 0, 0.0
    for k in range(len(order) + 1):
        taken = set(order[:k])
        rest = [hand[i] for i in range(len(hand)) if i not in taken]
        e = _hand_value(rest, N, p)
        t = H - max(k, max_earlier)
        e = e * (1.0 - p[7] * (1.0 - t / H)) - p[5] * (sum_earlier - n_earlier * p[6]) + p[8]
        err = abs(e - k)
        if k == 0 or err < best_err:
            best_k, best_err = k, err
    return sorted(hand[i] for i in order[:best_k])


def forecast_random(obs, rng):
    """Random forecaster: k uniform on 0..5, then k cards of the hand uniformly."""
    me = obs[S_VIEWER]
    hand = [c for c in range(N_CARD_IDS) if obs[LOC + c] == L_HAND + me]
    k, rng = py_next_below(rng, MAX_PREDICTIONS + 1)
    for i in range(k):
        j, rng = py_next_below(rng, len(hand) - i)
        hand[i], hand[i + j] = hand[i + j], hand[i]
    return sorted(hand[:k]), rng


def choose_forecast(obs, kind: int, params, rng):
    """Prediction set (ascending ids) of the viewer under policy ``kind``; returns (cards, rng)."""
    if kind == F_ZERO:
        return [], rng
    if kind == F_HEURISTIC:
        return forecast_heuristic(obs, params), rng
    if kind == F_RANDOM:
        return forecast_random(obs, rng)
    if kind == F_ROLLOUT:
        cards, _, rng = forecast_rollout(obs, params, rng)
        return cards, rng
    raise ValueError(f"forecast policy kind {kind} has no reference implementation")


def _open_preds(obs, me):
    return [p for p in range(N_CARD_IDS) if obs[LOC + p] == L_OPEN + me]


def _would_match(c, led, preds, voidrule):
    void_led = voidrule == 1 and colour(c) == RED and led >= 0 and led != RED
    for p in preds:
        if colour(p) == colour(c) or number(p) == number(c) or (void_led and colour(p) == led):
            return True
    return False


def play_heuristic(obs, p) -> int:
    """Heuristic card play (STK-5 legal): win with a card that closes an open prediction,
    duck when winning would only add an extra trick.

    Following: among legal cards that beat the trick so far and would close a
    prediction, the lowest if last to play, else the highest; otherwise the
    lowest losing card while predictions are open (keep strength), the highest
    losing card once all are closed (shed strength); if every card wins, the
    lowest.  Leading: with open predictions the highest card that would close
    one (else the lowest card); with none, the lowest non-red card.
    """
    me = obs[S_VIEWER]
    legal = legal_plays(obs, me)
    preds = _open_preds(obs, me)
    vr = obs[S_VOIDRULE]
    if obs[S_NPLAYED] == 0:
        best = -1
        if preds:
            for c in legal:
                if _would_match(c, -1, preds, vr) and (best < 0 or rank(c) > rank(best)):
                    best = c
            if best >= 0:
                return best
            for c in legal:
                if best < 0 or rank(c) < rank(best):
                    best = c
            return best
        for c in legal:
            if colour(c) != RED and (best < 0 or rank(c) < rank(best)):
                best = c
        if best < 0:
            for c in legal:
                if best < 0 or rank(c) < rank(best):
                    best = c
        return best
    t = obs[S_TRICK]
    leader = obs[S_LEADER]
    P = obs[S_PLAYERS]
    led = colour(obs[T_CARDS + 4 * t + leader])
    cur = obs[T_CARDS + 4 * t + leader]
    for k in range(1, obs[S_NPLAYED]):
        c = obs[T_CARDS + 4 * t + (leader + k) % P]
        if beats(c, cur, led):
            cur = c
    last = obs[S_NPLAYED] == P - 1
    win_match = -1
    lose = -1
    low_win = -1
    for c in legal:
        if beats(c, cur, led):
            if _would_match(c, led, preds, vr):
                if win_match < 0 or (rank(c) < rank(win_match) if last else rank(c) > rank(win_match)):
                    win_match = c
            if low_win < 0 or rank(c) < rank(low_win):
                low_win = c
        else:
            if lose < 0 or ((rank(c) < rank(lose)) if (preds and p[0] > 0.5) else (rank(c) > rank(lose))):
                lose = c
    if win_match >= 0:
        return win_match
    if lose >= 0:
        return lose
    return low_win


def close_heuristic(obs, options) -> int:
    """Close the matching prediction card least likely to be closed later: the one whose
    colour and number the viewer's remaining hand matches least (weighted by rank)."""
    me = obs[S_VIEWER]
    hand = [c for c in range(N_CARD_IDS) if obs[LOC + c] == L_HAND + me]
    best, best_v = -1, 0
    for pc in options:
        v = 0
        for h in hand:
            if colour(h) == colour(pc) or number(h) == number(pc):
                v += rank(h)
        if best < 0 or v < best_v:
            best, best_v = pc, v
    return best


def choose_play(obs, kind: int, params, rng):
    """Card the viewer plays under policy ``kind``; returns (card, rng)."""
    if kind == P_RANDOM:
        legal = legal_plays(obs, obs[S_VIEWER])
        if len(legal) == 1:
            return legal[0], rng
        j, rng = py_next_below(rng, len(legal))
        return legal[j], rng
    if kind == P_HEURISTIC:
        return play_heuristic(obs, params), rng
    if kind == P_ROLLOUT:
        return rollout_choice(obs, params, rng, legal_plays(obs, obs[S_VIEWER]), False)
    raise ValueError(f"play policy kind {kind} has no reference implementation")


def choose_close(obs, kind: int, params, rng):
    """Prediction card the viewer closes (close phase) under policy ``kind``; returns (card, rng)."""
    options = pending_matches(obs)
    if kind == P_ROLLOUT:
        return rollout_choice(obs, params, rng, options, True)
    if kind == P_RANDOM:
        j, rng = py_next_below(rng, len(options))
        return options[j], rng
    return close_heuristic(obs, options), rng


# ------------------------------------------------------------------ determinization and rollouts
def continue_basic(state, fk, fp, pk, pp, rng) -> int:
    """Play the hand in ``state`` to its end from wherever it is, with basic (non-rollout) policies."""
    while state[S_PHASE] == PH_FORECAST:
        s = state[S_TURN]
        cards, rng = choose_forecast(observe_hand(state, s), fk[s], fp[s], rng)
        apply_forecast(state, s, cards)
    while state[S_PHASE] != PH_DONE:
        s = state[S_TURN]
        if state[S_PHASE] == PH_PLAY:
            c, rng = choose_play(observe_hand(state, s), pk[s], pp[s], rng)
            play_card(state, c)
        else:
            c, rng = choose_close(observe_hand(state, s), pk[s], pp[s], rng)
            close_card(state, c)
    return rng


def voids(obs) -> list[int]:
    """void[4 * seat + colour] = 1 if the seat showed out of that colour in a trick (STK-5)."""
    void = [0] * 16
    P = obs[S_PLAYERS]
    for t in range(min(obs[S_TRICK] + 1, 16)):
        leader = obs[T_LEAD + t]
        if leader < 0 or obs[T_CARDS + 4 * t + leader] < 0:
            continue
        led = colour(obs[T_CARDS + 4 * t + leader])
        for s in range(P):
            c = obs[T_CARDS + 4 * t + s]
            if c >= 0 and colour(c) != led:
                void[4 * s + led] = 1
    return void


def sample_world(obs, rng):
    """Determinization (twin of the kernel's ``_sample_world``): a full state consistent with ``obs``.

    Returns (world, rng)."""
    me = obs[S_VIEWER]
    P = obs[S_PLAYERS]
    void = voids(obs)
    hidden = [c for c in range(N_CARD_IDS) if obs[LOC + c] == L_HIDDEN]
    nh = len(hidden)
    world = list(obs)
    for attempt in range(9):
        use_void = attempt < 8
        world = list(obs)
        world[S_VIEWER] = -1
        cap = [0 if s == me else world[NHAND + s] for s in range(P)]

        def holders(c):
            return [s for s in range(P) if s != me and (not use_void or void[4 * s + colour(c)] == 0)]

        for i in range(nh - 1, 0, -1):
            j, rng = py_next_below(rng, i + 1)
            hidden[i], hidden[j] = hidden[j], hidden[i]
        for i in range(1, nh):
            c = hidden[i]
            kc = len(holders(c))
            j = i
            while j > 0:
                d = hidden[j - 1]
                if len(holders(d)) <= kc:
                    break
                hidden[j] = d
                j -= 1
            hidden[j] = c
        ok = True
        for c in hidden:
            hs = holders(c)
            tot = sum(cap[s] for s in hs)
            if tot == 0:
                ok = False
                break
            r, rng = py_next_below(rng, tot)
            for s in hs:
                if r < cap[s]:
                    world[LOC + c] = L_HAND + s
                    mask_add(world, HMASK + 4 * s, c)
                    cap[s] -= 1
                    break
                r -= cap[s]
        if ok:
            return world, rng
    return world, rng


def _rollout_defaults(P, params, keep_low):
    fk = [F_HEURISTIC] * P
    pk = [P_HEURISTIC] * P
    fp = [list(params[R.ROLLOUT_HEURISTIC_AT:]) + [0.0] * R.ROLLOUT_HEURISTIC_AT] * P
    pp = [[keep_low] + [0.0] * (R.N_PARAMS - 1)] * P
    return fk, fp, pk, pp


def rollout_choice(obs, params, rng, options, close_phase: bool):
    """Rollout choice among options (twin of the kernel's ``_rollout_choice``); returns (card, rng)."""
    if len(options) == 1:
        return options[0], rng
    me = obs[S_VIEWER]
    P = obs[S_PLAYERS]
    R_ = max(1, int(params[1]))
    scoring = int(params[2])
    fk, fp, pk, pp = _rollout_defaults(P, params, params[0])
    total = [0] * len(options)
    for w in range(R_):
        world, rng = sample_world(obs, rng)
        sub = py_game_state(rng, w)
        for i, o in enumerate(options):
            sim = list(world)
            if close_phase:
                close_card(sim, o)
            else:
                play_card(sim, o)
            continue_basic(sim, fk, fp, pk, pp, sub)
            total[i] += score_of(off_of(sim, me), sim[NWON + me], scoring)
    best = 0
    for i in range(1, len(options)):
        if total[i] > total[best]:
            best = i
    return options[best], rng


def forecast_candidates(obs, pool_size: int, kmax: int, params) -> list[int]:
    """Candidate prediction sets as bitmasks over card ids (twin of ``_forecast_candidates``)."""
    me = obs[S_VIEWER]
    N = obs[S_NMAX]
    p = list(params[R.ROLLOUT_HEURISTIC_AT:])
    hand = [c for c in range(N_CARD_IDS) if obs[LOC + c] == L_HAND + me]
    st = [_strength(c, N, p) for c in hand]
    pv = []
    for i, c in enumerate(hand):
        v = -st[i]
        for j, h in enumerate(hand):
            if j != i and (colour(h) == colour(c) or number(h) == number(c)):
                v += st[j]
        pv.append(v)
    m = min(pool_size, len(hand))
    used = [False] * len(hand)
    pool = []
    for _ in range(m):
        bi = -1
        for i in range(len(hand)):
            if not used[i] and (bi < 0 or pv[i] > pv[bi]):
                bi = i
        used[bi] = True
        pool.append(hand[bi])
    out = []
    for sub in range(1 << m):
        bits = [pool[b] for b in range(m) if (sub >> b) & 1]
        if len(bits) <= kmax:
            mask = 0
            for c in bits:
                mask |= 1 << c
            out.append(mask)
    return out


def forecast_search(obs, params, rng, cands, final_n: int = 0, half_width: float = 0.0):
    """Successive halving with rollouts (twin of ``_forecast_search``); returns (best index, stats, rng)."""
    import math

    me = obs[S_VIEWER]
    P = obs[S_PLAYERS]
    base = max(1, int(params[1]))
    scoring = int(params[2])
    fk, fp, pk, pp = _rollout_defaults(P, params, 1.0)
    nc = len(cands)
    stats = [[0.0] * 6 for _ in range(nc)]
    alive = list(range(nc))
    na = nc
    r = 0
    n_round = base
    wcount = 0

    def evaluate(n_worlds, rng, wcount, rr):
        for _ in range(n_worlds):
            world, rng = sample_world(obs, rng)
            sub = py_game_state(rng, wcount)
            wcount += 1
            for a in range(na):
                ci = alive[a]
                sim = list(world)
                cards = [c for c in range(N_CARD_IDS) if (cands[ci] >> c) & 1]
                apply_forecast(sim, me, cards)
                continue_basic(sim, fk, fp, pk, pp, sub)
                off = off_of(sim, me)
                x = float(score_of(off, sim[NWON + me], scoring))
                st = stats[ci]
                st[0] += 1
                st[1] += x
                st[2] += x * x
                if off == 0:
                    st[3] += 1
                elif off == 1:
                    st[4] += 1
                st[5] = rr
        return rng, wcount

    while True:
        rng, wcount = evaluate(n_round, rng, wcount, r)
        if na <= 1:
            break
        keep = (na + 1) // 2
        for i in range(1, na):
            a = alive[i]
            j = i
            while j > 0 and stats[alive[j - 1]][1] / stats[alive[j - 1]][0] < stats[a][1] / stats[a][0]:
                alive[j] = alive[j - 1]
                j -= 1
            alive[j] = a
        if na <= 8 and final_n > 0:
            break
        na = keep
        r += 1
        n_round *= 2
    if final_n > 0:
        while True:
            worst = 0.0
            for a in range(na):
                st = stats[alive[a]]
                n = st[0]
                m = st[1] / n
                var = max(st[2] / n - m * m, 0.0) * n / max(n - 1.0, 1.0)
                worst = max(worst, 1.959963984540054 * math.sqrt(var / n))
            if worst <= half_width or stats[alive[0]][0] >= final_n:
                break
            rng, wcount = evaluate(256, rng, wcount, r + 1)
    best = alive[0]
    for a in range(na):
        ci = alive[a]
        if stats[ci][1] / stats[ci][0] > stats[best][1] / stats[best][0]:
            best = ci
    return best, stats, rng


def forecast_rollout(obs, params, rng):
    """Rollout forecaster (twin of ``_forecast_rollout``); returns (cards, P(exact) estimate, rng)."""
    kmax = int(params[3]) if params[3] > 0 else MAX_PREDICTIONS
    cands = forecast_candidates(obs, int(params[0]), min(kmax, MAX_PREDICTIONS), params)
    best, stats, rng = forecast_search(obs, params, rng, cands)
    cards = [c for c in range(N_CARD_IDS) if (cands[best] >> c) & 1]
    return cards, stats[best][3] / stats[best][0], rng


# ------------------------------------------------------------------ a hand, a game
def play_hand(state, rules_arr, start, fk, fp, pk, pp, rng, trace=None) -> int:
    """Deal and play one hand to the end with per-seat policies; returns the stream state.

    Args:
        fk, pk: per-seat forecast and play policy kinds (length players).
        fp, pp: per-seat parameter sequences.
        trace: a list to append ``(code, seat, card)`` events to, or None.
    """
    rng = new_hand(state, rules_arr, start, rng)
    P = state[S_PLAYERS]
    if trace is not None:
        trace.append((A_HAND, -1, start))
        for s in range(P):
            for c in hand_cards(state, s):
                trace.append((A_DEAL, s, c))
    while state[S_PHASE] == PH_FORECAST:
        s = state[S_TURN]
        cards, rng = choose_forecast(observe_hand(state, s), fk[s], fp[s], rng)
        apply_forecast(state, s, cards, trace)
    while state[S_PHASE] != PH_DONE:
        s = state[S_TURN]
        if state[S_PHASE] == PH_PLAY:
            c, rng = choose_play(observe_hand(state, s), pk[s], pp[s], rng)
            play_card(state, c, trace)
        else:
            c, rng = choose_close(observe_hand(state, s), pk[s], pp[s], rng)
            close_card(state, c, trace)
    return rng


def hand_scores(state, scoring: int) -> list[int]:
    """Points of every seat for the finished hand (STK-8)."""
    return [score_of(off_of(state, s), state[NWON + s], scoring) for s in range(state[S_PLAYERS])]


def winners(totals, last_start: int, tie_break: int) -> list[int]:
    """Winning seats of a game (STK-9): tie_break 0 last-start (one winner), 1 shared."""
    P = len(totals)
    top = max(totals)
    tied = [s for s in range(P) if totals[s] == top]
    if tie_break == 1:
        return tied
    for k in range(P):
        s = (last_start + k) % P
        if totals[s] == top:
            return [s]
    return tied


def play_game(rules_arr, scoring, fk, fp, pk, pp, rng, trace=None):
    """A whole game (STK-9): as many hands as players, seat 0 starts, start moves clockwise.

    Returns:
        (totals per seat, list of per-hand score lists, rng).
    """
    P = int(rules_arr[0])
    state = [0] * STATE_SIZE
    totals = [0] * P
    per_hand = []
    for h in range(P):
        rng = play_hand(state, rules_arr, h % P, fk, fp, pk, pp, rng, trace)
        sc = hand_scores(state, scoring)
        if trace is not None:
            for s in range(P):
                trace.append((A_SCORE, s, sc[s]))
        per_hand.append(sc)
        for s in range(P):
            totals[s] += sc[s]
    return totals, per_hand, rng



def state_from_hands(rules_arr, hands, start: int) -> list:
    """A state at the start of the forecast with the given hands (lists of card ids) instead of a deal."""
    state = [0] * STATE_SIZE
    P = int(rules_arr[0])
    new_hand(state, rules_arr, start, 0)
    for c in range(N_CARD_IDS):
        if state[LOC + c] != L_OUT:
            state[LOC + c] = L_OUT
    for s in range(P):
        for c in hands[s]:
            state[LOC + c] = L_HAND + s
        state[NHAND + s] = len(hands[s])
    sync_masks(state)
    return state


# ------------------------------------------------------------------ the step interface
# Twins of the step functions of ``books_kernels`` (the same arguments, numpy int64 state, observation
# and action arrays, the same random numbers).  The hand part of a state is worked on as a list of ints
# by the functions above.
_MASK64 = (1 << 64) - 1


def _bits(x) -> int:
    """The uint64 stream state kept as int64 bits."""
    return int(x) & _MASK64


def _signed(x: int) -> int:
    """A uint64 stream state as the int64 stored in a state array."""
    x &= _MASK64
    return x - (1 << 64) if x >> 63 else x


def _hand_part(state) -> list:
    return [int(x) for x in state[:STATE_SIZE]]


def current_player(state) -> int:
    """The seat to act; -1 once the game's last hand is over (STK-9)."""
    return -1 if state[R.S_HANDNO] >= state[R.S_NHANDS] else int(state[S_TURN])


def is_terminal(state) -> bool:
    """True once every hand of the game is played (STK-9)."""
    return bool(state[R.S_HANDNO] >= state[R.S_NHANDS])


def new_game(rules, key, state) -> None:
    """Set up game ``key`` in ``state``: the first hand dealt, seat 0 starting (STK-3, STK-9)."""
    st = [0] * STATE_SIZE
    rng = new_hand(st, rules, 0, int(key))
    state[:] = 0
    state[:STATE_SIZE] = st
    state[R.S_RNG] = _signed(rng)
    state[R.S_HANDNO] = 0
    state[R.S_NHANDS] = int(rules[R.R_HANDS])


def _end_hand(rules, state, st: list) -> None:
    """Score a finished hand into the totals (STK-8) and deal the next one (STK-9)."""
    if st[S_PHASE] != PH_DONE or state[R.S_HANDNO] >= state[R.S_NHANDS]:
        return
    P = st[S_PLAYERS]
    for s in range(P):
        state[R.S_TOTAL + s] += score_of(off_of(st, s), st[NWON + s], int(rules[R.R_SCORING]))
    state[R.S_HANDNO] += 1
    h = int(state[R.S_HANDNO])
    if h < state[R.S_NHANDS]:
        rng = new_hand(st, rules, h % P, _bits(state[R.S_RNG]))
        state[R.S_RNG] = _signed(rng)


def _forecast_actions(nh: int) -> list[int]:
    return [m for m in range(1 << nh) if bin(m).count("1") <= MAX_PREDICTIONS]


def legal_actions(rules, state, out) -> int:
    """The legal actions, ascending, into ``out``; returns their number (see ``books_kernels.legal_actions``)."""
    if current_player(state) < 0:
        return 0
    st = _hand_part(state)
    seat = st[S_TURN]
    if st[S_PHASE] == PH_FORECAST:
        acts = _forecast_actions(st[NHAND + seat])
    elif st[S_PHASE] == PH_PLAY:
        acts = legal_plays(st, seat)
    else:
        acts = pending_matches(st)
    out[:len(acts)] = acts
    return len(acts)


def apply_action(rules, state, action) -> None:
    """Play ``action`` for the seat to act, then score and deal at the end of a hand.

    Raises:
        ValueError: the game is over, or the action is not legal.
    """
    if current_player(state) < 0:
        raise ValueError("the game is over: no action is legal")
    st = _hand_part(state)
    seat = st[S_TURN]
    a = int(action)
    if st[S_PHASE] == PH_FORECAST:
        hand = hand_cards(st, seat)
        if a < 0 or a >> len(hand) or bin(a).count("1") > MAX_PREDICTIONS:
            raise ValueError("a forecast is a bitmask of at most 5 positions of the hand (STK-4)")
        apply_forecast(st, seat, [c for i, c in enumerate(hand) if (a >> i) & 1])
    elif st[S_PHASE] == PH_PLAY:
        if a not in legal_plays(st, seat):
            raise ValueError("the card is not one the seat may play (STK-5)")
        play_card(st, a)
    else:
        if a not in pending_matches(st):
            raise ValueError("the card is not an open prediction card the winning card matches (STK-6)")
        close_card(st, a)
    _end_hand(rules, state, st)
    state[:STATE_SIZE] = st


def observe(rules, state, seat, obs) -> None:
    """What ``seat`` knows, into ``obs`` (twin of ``books_kernels.observe``): the hand as
    :func:`observe_hand` gives it, the hand number and the totals; the stream slot is 0."""
    obs[:STATE_SIZE] = observe_hand(_hand_part(state), seat)
    obs[R.S_RNG] = 0
    obs[R.S_HANDNO] = state[R.S_HANDNO]
    obs[R.S_NHANDS] = state[R.S_NHANDS]
    obs[R.S_TOTAL:R.S_TOTAL + 4] = state[R.S_TOTAL:R.S_TOTAL + 4]


def returns(rules, state, out) -> None:
    """Points per seat into ``out[:players]``: the totals of the finished hands (STK-9)."""
    for s in range(int(state[S_PLAYERS])):
        out[s] = float(state[R.S_TOTAL + s])


def _uniform(rng: int):
    hi, rng = py_next_below(rng, 1 << 26)
    lo, rng = py_next_below(rng, 1 << 27)
    return (hi * 134217728.0 + lo) / 9007199254740992.0, rng


def _split_options(h, a, b, d, allow, col):
    """(n0, n1) splits of h cards of colour col among three seats with room a, b, d (kernel order)."""
    for n0 in range(min(a, h) + 1):
        if n0 > 0 and not allow[0][col]:
            break
        for n1 in range(min(b, h - n0) + 1):
            if n1 > 0 and not allow[1][col]:
                break
            n2 = h - n0 - n1
            if n2 > d or (n2 > 0 and not allow[2][col]):
                continue
            yield n0, n1


def deal_hidden(world: list, seat: int, rng: int) -> int:
    """Twin of ``books_kernels._deal_hidden``: the hidden cards of ``world`` dealt uniformly among the
    deals consistent with hand sizes and shown voids (STK-5); returns the stream state."""
    P = world[S_PLAYERS]
    void = voids(world)
    others = [s for s in range(P) if s != seat] + [0] * (4 - P)
    cap = [world[NHAND + s] for s in range(P) if s != seat] + [0] * (4 - P)
    allow = [[1 - void[4 * s + col] for col in range(4)] for s in range(P) if s != seat]
    allow += [[0] * 4] * (4 - P)
    hid = [[c for c in range(N_CARD_IDS) if world[LOC + c] == L_HIDDEN and colour(c) == col] for col in range(4)]
    left = [0] * 5
    for col in range(3, -1, -1):
        left[col] = left[col + 1] + len(hid[col])
    if left[0] != sum(cap):
        raise ValueError("the hidden cards do not fill the other hands")
    binom = [[0.0] * 17 for _ in range(17)]
    for n in range(17):
        binom[n][0] = 1.0
        for k in range(1, n + 1):
            binom[n][k] = binom[n - 1][k - 1] + binom[n - 1][k]
    ways = [[[0.0] * 17 for _ in range(17)] for _ in range(5)]
    ways[4][0][0] = 1.0
    for col in range(3, -1, -1):
        h = len(hid[col])
        for a in range(min(cap[0], left[col]) + 1):
            for b in range(min(cap[1], left[col] - a) + 1):
                d = left[col] - a - b
                if d > cap[2]:
                    continue
                tot = 0.0
                for n0, n1 in _split_options(h, a, b, d, allow, col):
                    tot += binom[h][n0] * binom[h - n0][n1] * ways[col + 1][a - n0][b - n1]
                ways[col][a][b] = tot
    if ways[0][cap[0]][cap[1]] <= 0.0:
        raise ValueError("no deal of the hidden cards is consistent with the observation")
    a, b = cap[0], cap[1]
    for col in range(4):
        h = len(hid[col])
        d = left[col] - a - b
        u, rng = _uniform(rng)
        x = u * ways[col][a][b]
        pick = None
        cum = 0.0
        for n0, n1 in _split_options(h, a, b, d, allow, col):
            w = binom[h][n0] * binom[h - n0][n1] * ways[col + 1][a - n0][b - n1]
            if w > 0.0:
                cum += w
                pick = (n0, n1)
                if x < cum:
                    break
        cards = hid[col]
        for i in range(h - 1, 0, -1):
            j, rng = py_next_below(rng, i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        for i, c in enumerate(cards):
            o = 0 if i < pick[0] else (1 if i < pick[0] + pick[1] else 2)
            world[LOC + c] = L_HAND + others[o]
            mask_add(world, HMASK + 4 * others[o], c)
        a -= pick[0]
        b -= pick[1]
    return rng


def determinize(rules, obs, seat, key, state) -> None:
    """Twin of ``books_kernels.determinize``: a full state consistent with ``seat``'s observation.

    Raises:
        ValueError: ``obs`` is not the seat's, or no deal is consistent with it.
    """
    if obs[S_VIEWER] != seat:
        raise ValueError("the observation is not the seat's")
    state[:] = obs
    world = _hand_part(obs)
    world[S_VIEWER] = -1
    rng = deal_hidden(world, seat, int(key))
    state[:STATE_SIZE] = world
    state[R.S_RNG] = _signed(rng)


def act(kind, params, obs, state) -> int:
    """Twin of ``books_kernels.act``: the seat's policy pair (kind = POLICY_PAIR_BASE * forecast kind +
    play kind, params = forecast parameters then play parameters) decides from ``obs`` alone, drawing
    from ``state[S_RNG]``."""
    o = _hand_part(obs)
    fkind, pkind = divmod(int(kind), R.POLICY_PAIR_BASE)
    fp = [float(x) for x in params[:R.N_PARAMS]]
    pp = [float(x) for x in params[R.N_PARAMS:2 * R.N_PARAMS]]
    rng = _bits(state[R.S_RNG])
    if o[S_PHASE] == PH_FORECAST:
        cards, rng = choose_forecast(o, fkind, fp, rng)
        hand = hand_cards(o, o[S_VIEWER])
        a = sum(1 << hand.index(c) for c in cards)
    elif o[S_PHASE] == PH_PLAY:
        a, rng = choose_play(o, pkind, pp, rng)
    else:
        a, rng = choose_close(o, pkind, pp, rng)
    state[R.S_RNG] = _signed(rng)
    return int(a)
