"""Shut The Books through the step interface: what the shared harness does not reach.

The shared harness (tests/test_step_interface.py) checks the step functions of every game; here:
the determinization is exactly uniform and respects shown voids (STK-5), kernel and twin determinize
alike, the rollout policies (skipped by the harness's step-by-step twin comparison for speed) decide
alike in kernel and twin and do not peek, a one-hand game equals the accuracy kernel's hands, illegal
actions are refused, and the invariant check catches a broken state.  Clause ids refer to
seeds/shut_the_books.md.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ludolab.sim import books as S
from ludolab.sim import books_kernels as K
from ludolab.sim import books_reference as REF
from ludolab.sim.rng import chunk_keys, game_state
from ludolab.stdlib import books as B
from ludolab.stdlib.books import BooksRules


def _keys(seed, n):
    k = chunk_keys(seed, 1)[0]
    return [np.uint64(game_state(k, g)) for g in range(n)]


def _obs(rules_arr, st, seat):
    o = np.zeros(K.OBS_SIZE, dtype=np.int64)
    K.observe(rules_arr, st, seat, o)
    return o


def _playout(rules_arr, policies, key, visit=None):
    """A step-interface game with the seats' policy pairs; ``visit(state, seat)`` before each action."""
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.new_game(rules_arr, key, st)
    while K.current_player(st) >= 0:
        seat = int(K.current_player(st))
        if visit is not None:
            visit(st.copy(), seat)
        kind, params = policies[seat]
        K.apply_action(rules_arr, st, K.act(kind, params, _obs(rules_arr, st, seat), st))
    return st


def _voids_of(obs):
    void = np.zeros(16, dtype=np.int64)
    K._voids(obs, void)
    return void


def _late_observation(rules, min_hidden=5, max_hidden=8):
    """An observation late in a hand with few hidden cards and a shown void that still constrains the deal."""
    ra = rules.game_array()
    pol = S.step_policies(rules)
    seats = tuple(pol["heuristic/random"] for _ in range(rules.players))
    for key in _keys(41, 200):
        found = []

        def visit(st, seat):
            if found or st[B.S_PHASE] != B.PH_PLAY:
                return
            o = _obs(ra, st, seat)
            hidden = [c for c in range(B.N_CARD_IDS) if o[B.LOC + c] == B.L_HIDDEN]
            void = _voids_of(o)
            binding = any(void[4 * s + B.colour_of(c)] for s in range(rules.players) if s != seat for c in hidden)
            if min_hidden <= len(hidden) <= max_hidden and binding:
                found.append((o, seat, hidden))

        _playout(ra, seats, key, visit)
        if found:
            return ra, found[0]
    raise AssertionError("no late observation with a binding void in 200 games")


def _consistent_deals(o, seat, hidden):
    """Every deal of the hidden cards to the other seats in their hand sizes that respects the voids."""
    P = int(o[B.S_PLAYERS])
    void = _voids_of(o)
    others = [s for s in range(P) if s != seat]
    slots = [s for s in others for _ in range(int(o[B.NHAND + s]))]
    deals = set()
    for perm in itertools.permutations(range(len(hidden))):
        d = tuple(slots[perm[i]] for i in range(len(hidden)))
        if all(not void[4 * d[i] + B.colour_of(c)] for i, c in enumerate(hidden)):
            deals.add(d)
    return sorted(deals)


@pytest.mark.parametrize("players", [3, 4])
def test_determinize_is_uniform_over_consistent_deals(players):
    """Each hidden card lands with each seat as often as in the uniform draw over the deals consistent
    with the observation (hand sizes, shown voids: STK-5), within 4.5 standard errors."""
    ra, (o, seat, hidden) = _late_observation(BooksRules(players))
    deals = _consistent_deals(o, seat, hidden)
    assert 1 < len(deals) < len(set(itertools.product(range(players), repeat=len(hidden))))
    exact = {(c, s): sum(d[i] == s for d in deals) / len(deals) for i, c in enumerate(hidden) for s in range(players)}
    n = 4000
    counts = {k: 0 for k in exact}
    seen = set()
    world = np.zeros(K.STATE_SIZE, dtype=np.int64)
    rng = np.random.default_rng(3)
    for _ in range(n):
        K.determinize(ra, o, seat, np.uint64(rng.integers(1, 2**63)), world)
        d = tuple(int(world[B.LOC + c] - B.L_HAND) for c in hidden)
        assert d in deals, f"determinize dealt {d}, not consistent with the observation"
        seen.add(d)
        for i, c in enumerate(hidden):
            counts[(c, d[i])] += 1
    assert seen == set(deals), "some consistent deal never came up"
    for k, p in exact.items():
        se = math.sqrt(p * (1 - p) / n)
        assert abs(counts[k] / n - p) <= 4.5 * se + 1e-12, f"card {k[0]} to seat {k[1]}: {counts[k] / n} vs exact {p}"


@pytest.mark.parametrize("players", [3, 4])
def test_determinize_kernel_and_twin_identical(players):
    """Kernel and twin deal the same world from the same key, consistent with the observation."""
    rules = BooksRules(players)
    ra = rules.game_array()
    pol = S.step_policies(rules)
    seats = tuple(pol["random/random"] for _ in range(players))
    states = []
    _playout(ra, seats, _keys(43, 1)[0], lambda st, seat: states.append((st, seat)))
    for st, seat in states[:: max(1, len(states) // 15)]:
        o = _obs(ra, st, seat)
        key = np.uint64(game_state(np.uint64(7), len(states)))
        kw = np.zeros(K.STATE_SIZE, dtype=np.int64)
        tw = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.determinize(ra, o, seat, key, kw)
        REF.determinize(ra, o, seat, key, tw)
        assert np.array_equal(kw, tw)
        assert np.array_equal(_obs(ra, kw, seat), o)
        S._step_check_state(ra, kw)
        void = _voids_of(o)
        for c in range(B.N_CARD_IDS):
            loc = int(kw[B.LOC + c])
            if o[B.LOC + c] == B.L_HIDDEN:
                assert 0 <= loc < players and loc != seat and not void[4 * loc + B.colour_of(c)]


def test_rollout_policies_kernel_twin_and_no_peeking():
    """The rollout pairs (small budgets) decide alike in kernel and twin, draw alike from the stream, and
    give the same action in a determinized world the seat cannot tell from the true one."""
    rules = BooksRules(3)
    ra = rules.game_array()
    pol = S.step_policies(rules)
    rollouts = {n: p for n, p in pol.items() if "rollout" in n}
    assert set(rollouts) == set(S.step_game().extra["slow_policies"])
    seats = (pol["heuristic/heuristic"],) * 3
    states = []
    _playout(ra, seats, _keys(47, 1)[0], lambda st, seat: states.append((st, seat)))
    picks = [x for x in states if x[0][B.S_PHASE] == B.PH_FORECAST][:2]
    picks += [x for x in states if x[0][B.S_PHASE] == B.PH_PLAY][5:40:12]
    picks += [x for x in states if x[0][B.S_PHASE] == B.PH_CLOSE][:1]
    assert len(picks) >= 5
    for st, seat in picks:
        o = _obs(ra, st, seat)
        world = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.determinize(ra, o, seat, np.uint64(12345), world)
        world[K.S_RNG] = st[K.S_RNG]
        for name, (kind, params) in rollouts.items():
            ks, ts, ws = st.copy(), st.copy(), world.copy()
            a = int(K.act(kind, params, o.copy(), ks))
            b = int(REF.act(kind, params, o.copy(), ts))
            c = int(K.act(kind, params, _obs(ra, ws, seat), ws))
            assert a == b and np.array_equal(ks, ts), f"{name}: kernel plays {a}, twin {b}"
            assert a == c and ks[K.S_RNG] == ws[K.S_RNG], f"{name} peeks: {a} in the true state, {c} in a world"
            legal = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
            assert a in legal[:K.legal_actions(ra, st, legal)]


@pytest.mark.parametrize("players", [3, 4])
def test_one_hand_game_equals_the_accuracy_kernel(players):
    """With one hand per game (rules entry R_HANDS) the step game is the accuracy study's hand: seat 0
    starts, the same deal and decisions, the same score per seat summed over the same keys (STK-8)."""
    rules = BooksRules(players)
    ra = rules.game_array(hands=1)
    pair = S.step_policies(rules)["heuristic/random"]
    keys = chunk_keys(9, 2)
    per_chunk = 15
    totals = np.zeros(players)
    for c in range(2):
        for g in range(per_chunk):
            st = _playout(ra, (pair,) * players, np.uint64(game_state(keys[c], g)))
            out = np.zeros(players)
            K.returns(ra, st, out)
            totals += out
    fk, fp, pk, pp = S._pair_arrays((pair,) * players)
    acc = np.zeros((2, 1, players + 1, 6, K.N_STATS))
    K._simulate_hands(keys, np.zeros(2, np.int64), np.full(2, per_chunk, np.int64), rules.as_array(), 0,
                      fk[None], fp[None], pk[None], pp[None], acc)
    fast = acc.sum(axis=0)[0, :players, :, K.ST_SCORE].sum(axis=1)
    assert np.array_equal(totals, fast)


def test_illegal_actions_are_refused():
    """An action outside the legal ones is refused by kernel and twin (STK-4, STK-5)."""
    ra = BooksRules(4).game_array()
    for m in (K, REF):
        st = np.zeros(K.STATE_SIZE, dtype=np.int64)
        m.new_game(ra, np.uint64(5), st)
        with pytest.raises(ValueError, match="at most 5 positions"):
            m.apply_action(ra, st, 0b111111)  # six prediction cards
        with pytest.raises(ValueError, match="at most 5 positions"):
            m.apply_action(ra, st, 1 << 15)  # a position outside the 15-card hand
        for _ in range(4):
            m.apply_action(ra, st, 0)
        seat = int(st[B.S_TURN])
        foreign = next(c for c in range(B.N_CARD_IDS) if st[B.LOC + c] == B.L_HAND + (seat + 1) % 4)
        with pytest.raises(ValueError, match="may play"):
            m.apply_action(ra, st, foreign)


def test_check_state_names_a_broken_state():
    """The harness's invariant check is not vacuous: a lost card, a wrong count, a stale card set fail."""
    ra = BooksRules(4).game_array()
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.new_game(ra, np.uint64(11), st)
    S._step_check_state(ra, st)
    c = next(c for c in range(B.N_CARD_IDS) if st[B.LOC + c] == B.L_HAND + 1)
    lost = st.copy()
    lost[B.LOC + c] = B.L_PLAYED
    count = st.copy()
    count[B.NHAND + 2] += 1
    stale = st.copy()
    stale[B.HMASK + 4] ^= 1  # seat 1's red 1 flips in its hand's card set
    total = st.copy()
    total[B.S_TOTAL] = 3
    for broken, what in ((lost, "conserved"), (count, "count"), (stale, "card set"), (total, "total")):
        with pytest.raises(AssertionError, match=what):
            S._step_check_state(ra, broken)


def test_record_check_replays_through_the_step_interface():
    """The conformance check replays a record's actions through the step functions: a trick whose
    cards are played out of turn, or a forecast of a card not held, is refused (STK-4, STK-5)."""
    c = S.conformance()
    rec = c.play(5, 1, "reference")[0]
    c.check(rec)
    swapped = __import__("copy").deepcopy(rec)
    tr = swapped["hands"][0]["tricks"][0]
    tr["cards"] = tr["cards"][1:] + tr["cards"][:1]
    with pytest.raises(AssertionError, match="STK-5"):
        c.check(swapped)
    foreign = __import__("copy").deepcopy(rec)
    hand = foreign["hands"][0]
    other = hand["deal"][1][0] if hand["deal"][1][0] not in hand["predictions"][1] else hand["deal"][1][1]
    hand["predictions"][0] = hand["predictions"][0][:4] + [other]
    with pytest.raises(AssertionError, match="STK-4"):
        c.check(foreign)
