"""Shut The Books engines: kernel vs reference, properties over random hands, no peeking.

Clause ids refer to seeds/shut_the_books.md.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from numba import njit
from hypothesis import strategies as st

from ludolab.sim import books as S
from ludolab.sim import books_kernels as K
from ludolab.sim import books_reference as REF
from ludolab.sim.rng import py_game_state
from ludolab.stdlib import books as B
from ludolab.stdlib.books import BooksRules, card_name

POLICY_MIXES = [((B.F_HEURISTIC,) * 4, (B.P_HEURISTIC,) * 4), ((B.F_RANDOM,) * 4, (B.P_RANDOM,) * 4),
                ((B.F_ZERO, B.F_HEURISTIC, B.F_RANDOM, B.F_HEURISTIC), (B.P_RANDOM, B.P_HEURISTIC) * 2)]


def arrays(players, mix):
    fk = np.array(mix[0][:players], dtype=np.int64)
    pk = np.array(mix[1][:players], dtype=np.int64)
    fp = np.zeros((players, B.N_PARAMS))
    fp[:, :9] = B.HEURISTIC_FORECAST_PARAMS
    pp = np.zeros((players, B.N_PARAMS))
    pp[:, 0] = 1.0
    return fk, fp, pk, pp


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("mix", range(len(POLICY_MIXES)))
@pytest.mark.parametrize("void_trump", ["counts", "ignored"])
def test_kernel_and_reference_identical(players, mix, void_trump):
    """Differential (STK-1..STK-9): same deals, forecasts, tricks, closes and scores, event by event."""
    rules = BooksRules(players, void_trump=void_trump)
    fk, fp, pk, pp = arrays(players, POLICY_MIXES[mix])
    for g in range(6):
        a = S.trace_game(rules, 2026, g, fk, fp, pk, pp, "kernel")
        b = S.trace_game(rules, 2026, g, fk, fp, pk, pp, "reference")
        assert a == b, f"game {g} differs"


@pytest.mark.parametrize("scoring", B.SCORINGS)
def test_kernel_and_reference_scores_under_every_scoring(scoring):
    """STK-8: both engines score every variant alike."""
    rules = BooksRules(4, scoring=scoring)
    fk, fp, pk, pp = arrays(4, POLICY_MIXES[0])
    for g in range(3):
        a = S.trace_game(rules, 5, g, fk, fp, pk, pp, "kernel")
        b = S.trace_game(rules, 5, g, fk, fp, pk, pp, "reference")
        assert a == b


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([3, 4]), mix=st.integers(0, 2),
       void_trump=st.sampled_from(["counts", "ignored"]))
def test_properties_of_random_games(seed, players, mix, void_trump):
    """Cards conserved (STK-1, STK-3), one winner per trick and follow suit obeyed (STK-5), at most one
    close per trick and closes match (STK-6), hand length = the shortest hand (STK-7), scores (STK-8)."""
    rules = BooksRules(players, void_trump=void_trump)
    fk, fp, pk, pp = arrays(players, POLICY_MIXES[mix])
    rec = S.record_from_trace(rules, S.trace_game(rules, seed, 0, fk, fp, pk, pp, "kernel"))
    S._conformance_check(rec)  # full replay through the rules
    for hand in rec["hands"]:
        held = [set(h) for h in hand["deal"]]
        for s in range(players):
            assert len(hand["predictions"][s]) <= B.MAX_PREDICTIONS  # STK-4
            assert set(hand["predictions"][s]) <= held[s]
            held[s] -= set(hand["predictions"][s])
        n_tricks = min(len(h) for h in held)
        assert len(hand["tricks"]) == n_tricks  # STK-7
        played = set()
        closed = set()
        for tr in hand["tricks"]:
            assert len(tr["cards"]) == players
            led = tr["cards"][0][0]
            for k, c in enumerate(tr["cards"]):
                s = (tr["leader"] + k) % players
                assert c in held[s], "a card not in hand"
                if c[0] != led:
                    assert not any(x[0] == led for x in held[s]), "follow suit broken (STK-5)"
                held[s].discard(c)
                assert c not in played
                played.add(c)
            assert 0 <= tr["winner"] < players  # one winner
            if tr["close"] is not None:
                assert tr["close"] in hand["predictions"][tr["winner"]] and tr["close"] not in closed
                closed.add(tr["close"])
        assert min(len(h) for h in held) == 0  # STK-7: some hand is empty
        for s in range(players):
            won = sum(1 for t in hand["tricks"] if t["winner"] == s)
            ncl = sum(1 for t in hand["tricks"] if t["winner"] == s and t["close"] is not None)
            off = len(hand["predictions"][s]) - ncl + (won - ncl)
            assert hand["scores"][s] == rules.score(off, won)  # STK-8


def _mid_hand_state(seed, tricks_to_play=3):
    rules = BooksRules(4)
    st = [0] * B.STATE_SIZE
    z = [0.0] * B.N_PARAMS
    fp = [list(B.HEURISTIC_FORECAST_PARAMS) + [0.0] * (B.N_PARAMS - 9)] * 4
    rng = REF.new_hand(st, rules.as_array(), 0, py_game_state(seed, 0))
    for s in range(4):
        cards, rng = REF.choose_forecast(REF.observe_hand(st, s), B.F_HEURISTIC, fp[s], rng)
        REF.apply_forecast(st, s, cards)
    n = 0
    while n < tricks_to_play * 4 + 1:  # stop with one card of a trick played
        s = st[B.S_TURN]
        if st[B.S_PHASE] == B.PH_PLAY:
            c, rng = REF.choose_play(REF.observe_hand(st, s), B.P_HEURISTIC, [1.0] + z[1:], rng)
            REF.play_card(st, c)
            n += 1
        else:
            c, rng = REF.choose_close(REF.observe_hand(st, s), B.P_HEURISTIC, z, rng)
            REF.close_card(st, c)
    return st


def _swap_hidden(st, seat, seed):
    """Exchange cards between two other players' hands (same counts): hidden from ``seat``."""
    rnd = np.random.default_rng(seed)
    others = [s for s in range(4) if s != seat]
    a, b = rnd.choice(others, 2, replace=False)
    ha, hb = REF.hand_cards(st, a), REF.hand_cards(st, b)
    new = list(st)
    for _ in range(3):
        ca, cb = ha[rnd.integers(len(ha))], hb[rnd.integers(len(hb))]
        new[B.LOC + ca], new[B.LOC + cb] = B.L_HAND + b, B.L_HAND + a
        ha, hb = REF.hand_cards(new, a), REF.hand_cards(new, b)
    REF.sync_masks(new)
    return new


@pytest.mark.xdist_group("books_choices")  # one worker compiles the choice kernels, the others load them
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("kind", [B.P_RANDOM, B.P_HEURISTIC])
def test_no_peeking_play(seed, kind):
    """A play policy's choice does not change when cards hidden from its player change hands."""
    st = _mid_hand_state(seed)
    seat = st[B.S_TURN]
    params = np.zeros(B.N_PARAMS)
    params[0] = 1.0
    buf = np.zeros(16, dtype=np.int64)
    choices = set()
    for v in range(4):
        s2 = st if v == 0 else _swap_hidden(st, seat, seed * 10 + v)
        assert s2 == st or v > 0
        ks = np.array(s2, dtype=np.int16)
        obs = np.zeros(B.STATE_SIZE, dtype=np.int16)
        K._observe(ks, seat, obs)
        c, _ = K._choose_play(obs, kind, params.reshape(1, -1), 0, np.uint64(99), buf, np.zeros(K.W_SIZE, dtype=np.int64))
        choices.add(int(c))
        r, _ = REF.choose_play(REF.observe_hand(s2, seat), kind, list(params), 99)
        assert r == c
    assert len(choices) == 1


@pytest.mark.xdist_group("books_choices")  # one worker compiles the choice kernels, the others load them
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("kind", [B.F_HEURISTIC, B.F_RANDOM])
def test_no_peeking_forecast(seed, kind):
    """A forecast's choice depends only on its own hand and the prediction cards laid before (STK-4)."""
    rules = BooksRules(4)
    st = [0] * B.STATE_SIZE
    REF.new_hand(st, rules.as_array(), 0, py_game_state(seed, 1))
    REF.apply_forecast(st, 0, REF.hand_cards(st, 0)[:2])
    params = np.zeros(B.N_PARAMS)
    params[:9] = B.HEURISTIC_FORECAST_PARAMS
    out = np.zeros(16, dtype=np.int64)
    seen = set()
    for v in range(4):
        s2 = st if v == 0 else _swap_hidden(st, 1, seed * 7 + v)
        obs = np.zeros(B.STATE_SIZE, dtype=np.int16)
        K._observe(np.array(s2, dtype=np.int16), 1, obs)
        k, _ = K._choose_forecast(obs, kind, params.reshape(1, -1), 0, np.uint64(5), out, np.zeros(K.W_SIZE, dtype=np.int64),
                                  np.zeros(K.FW_SIZE))
        seen.add(tuple(out[:k]))
    assert len(seen) == 1


def test_observation_hides_other_hands_only():
    """observe(state, seat): other hands hidden; own hand, predictions and played cards public."""
    st = _mid_hand_state(3)
    obs = REF.observe_hand(st, 2)
    for c in range(B.N_CARD_IDS):
        loc = st[B.LOC + c]
        if B.L_HAND <= loc < B.L_HAND + 4 and loc != B.L_HAND + 2:
            assert obs[B.LOC + c] == B.L_HIDDEN
        else:
            assert obs[B.LOC + c] == loc
    kobs = np.zeros(B.STATE_SIZE, dtype=np.int16)
    K._observe(np.array(st, dtype=np.int16), 2, kobs)
    assert list(kobs) == obs


def test_trace_names_cards():
    """Records carry cards as notation strings (STK-2)."""
    rules = BooksRules(4)
    fk, fp, pk, pp = arrays(4, POLICY_MIXES[0])
    rec = S.record_from_trace(rules, S.trace_game(rules, 1, 0, fk, fp, pk, pp))
    assert all(isinstance(c, str) for c in rec["hands"][0]["deal"][0])
    assert card_name(0) == "R1"


# ------------------------------------------------------------------ rollouts (determinization)
def test_rollout_policies_kernel_and_reference_identical():
    """The rollout forecaster and player (tiny budgets) play the same game in both engines."""
    rules = BooksRules(3)
    fk = np.array([B.F_ROLLOUT, B.F_HEURISTIC, B.F_ROLLOUT])
    pk = np.array([B.P_ROLLOUT, B.P_RANDOM, B.P_HEURISTIC])
    fp = np.zeros((3, B.N_PARAMS))
    pp = np.zeros((3, B.N_PARAMS))
    for s in range(3):
        fp[s] = S.forecast_policy("heuristic" if fk[s] == B.F_HEURISTIC else "rollout", pool=3, worlds=1).params
        pp[s] = S.play_policy({B.P_ROLLOUT: "rollout", B.P_RANDOM: "random", B.P_HEURISTIC: "heuristic"}[int(pk[s])],
                              worlds=2).params
    a = S.trace_game(rules, 4, 0, fk, fp, pk, pp, "kernel")
    b = S.trace_game(rules, 4, 0, fk, fp, pk, pp, "reference")
    assert a == b


@pytest.mark.parametrize("seed", range(6))
def test_sampled_worlds_are_consistent_with_the_observation(seed):
    """Determinization: known cards stay put, hidden cards fill the other hands in their public sizes,
    and no seat gets a colour it has shown out of (STK-5)."""
    st = _mid_hand_state(seed, tricks_to_play=6)
    seat = st[B.S_TURN]
    obs = REF.observe_hand(st, seat)
    void = REF.voids(obs)
    kobs = np.array(obs, dtype=np.int16)
    world = np.empty(B.STATE_SIZE, dtype=np.int16)
    rng = np.uint64(seed)
    for _ in range(5):
        rng = np.uint64(K._sample_world(kobs, rng, world, np.empty(64, dtype=np.int64), np.empty(16, dtype=np.int64)))
        w = [int(x) for x in world]
        for c in range(B.N_CARD_IDS):
            if obs[B.LOC + c] != B.L_HIDDEN:
                assert w[B.LOC + c] == obs[B.LOC + c]
            else:
                s = w[B.LOC + c] - B.L_HAND
                assert 0 <= s < 4 and s != seat
                assert void[4 * s + B.colour_of(c)] == 0  # voids respected
        for s in range(4):
            assert len(REF.hand_cards(w, s)) == st[B.NHAND + s]


@njit
def _popcount(m):
    return K._popcount(m)


@njit
def _rank_sum(m):
    return K._rank_sum(m)


def _ranked(cards, highest):
    """The reference's choice: the first card of the ascending list with the highest / lowest rank."""
    best = None
    for c in sorted(cards):
        r = REF.rank(c)
        if best is None or (r > best[0] if highest else r < best[0]):
            best = (r, c)
    return best[1]


@settings(max_examples=300)
@given(cards=st.sets(st.integers(0, B.N_CARD_IDS - 1), min_size=1, max_size=20))
def test_card_set_choices_match_the_list_scan(cards):
    """STK-5: the card-set picks of the heuristic player (highest / lowest rank, a red card above any
    other, the lowest id among equal ranks) are the reference's scan of the ascending list."""
    m = 0
    for c in cards:
        m |= 1 << c
    assert K._highest_rank(np.int64(m)) == _ranked(cards, True)
    assert K._lowest_rank(np.int64(m)) == _ranked(cards, False)
    assert _popcount(np.int64(m)) == len(cards)
    ordered = sorted(cards)
    for j in range(len(ordered)):
        assert K._nth_card(np.int64(m), j) == ordered[j]


@settings(max_examples=200)
@given(opn=st.sets(st.integers(0, B.N_CARD_IDS - 1), max_size=5), cur=st.integers(0, B.N_CARD_IDS - 1),
       led=st.integers(0, 3))
def test_matching_and_beating_sets(opn, cur, led):
    """STK-6: a card is in the matching set iff it shares colour or number with an open prediction card;
    STK-5: a card is in the beating set iff it beats the current winner of a trick led in ``led``."""
    if cur // 15 != B.RED:
        cur = led * 15 + cur % 15  # a non-red winner is of the led colour
    m = 0
    for c in opn:
        m |= 1 << c
    match = int(K._matching_set(np.int64(m)))
    beat = int(K._beating_set(np.int64(cur), led))
    for c in range(B.N_CARD_IDS):
        shares = any(c // 15 == o // 15 or c % 15 == o % 15 for o in opn)
        assert bool(match >> c & 1) == shares
        assert bool(beat >> c & 1) == bool(K._beats(c, cur, led))


@settings(max_examples=200)
@given(cards=st.sets(st.integers(0, B.N_CARD_IDS - 1), max_size=20))
def test_rank_sum_of_a_card_set(cards):
    """The close heuristic's card-set rank sum equals the sum of each card's rank (STK-5 ranks)."""
    m = 0
    for c in cards:
        m |= 1 << c
    assert _rank_sum(np.int64(m)) == sum(REF.rank(c) for c in cards)
