"""Shelve the Book engine: setup, turns, placement, end, policies, Monte Carlo (SHB-2..SHB-14).

Clause ids refer to seeds/shelve_the_book.md.  The numba kernels and the
pure-Python reference (shelf_reference) draw the same random numbers, so the
same game must come out move for move.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ludolab.sim import shelf as S
from ludolab.sim import shelf_kernels as K
from ludolab.sim import shelf_reference as R
from ludolab.sim.rng import chunk_keys, game_state, py_game_state
from ludolab.stdlib.errors import LudolabError
from ludolab.stdlib.shelf import ShelfRules, assumed_deck, generate_deck

POLS = ("random", "greedy", "potential")
SMALL = generate_deck(size=32, seed=5)  # 16 cards per player for 2 players: the pile runs out


def _ref_game(rules, pols, seed=0, g=0, hook=None):
    attrs, points, columns, tiebreak = S._kernel_rules(rules)
    pols = [S.make_policy(p) for p in pols]
    key = int(chunk_keys(seed, 1)[0])
    return R.play(key, g, rules.players, attrs.tolist(), points.tolist(), rules.columns,
                  [p.kind for p in pols], [p.array().tolist() for p in pols], tiebreak, hook=hook)


def _connected(grid) -> bool:
    if not grid:
        return True
    todo = [next(iter(grid))]
    seen = set(todo)
    while todo:
        r, c = todo.pop()
        for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if n in grid and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(grid)


# ------------------------------------------------------------------ SHB-3 setup
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_shb3_setup_kernel_equals_reference(players):
    """SHB-3: one card each, players + 1 face up, the lowest number starts; kernel = reference."""
    deck = assumed_deck()
    attrs = deck.attrs.astype(np.int64)
    for g in range(20):
        state = np.zeros(K.STATE_LEN, dtype=np.int16)
        K._setup(state, players, 90, attrs, np.uint64(game_state(np.uint64(99), g)))
        game = R.Game(players, 90, deck.attrs.tolist(), py_game_state(99, g))
        hands = [int(state[K.HAND0 + s]) for s in range(players)]
        offer = [int(state[K.OFFER0 + j]) for j in range(state[K.S_OFFER])]
        assert hands == game.hand and offer == game.offer
        assert len(offer) == players + 1 and state[K.S_PILE] == 90 - 2 * players - 1
        assert game.pile == game.deal[:90 - 2 * players - 1]
        nums = [deck.numbers[c] for c in hands]
        assert state[K.S_FIRST] == game.first == int(np.argmin(nums))
        assert state[K.S_SEAT] == state[K.S_FIRST]


# ------------------------------------------------------------------ SHB-4..SHB-9 whole games
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("variant", ["standard", "columns", "pairs"])
def test_shb4_kernel_and_reference_play_the_same_game(players, variant):
    """SHB-4..SHB-12: the kernel and the reference play the same game for the same stream."""
    rules = ShelfRules(players=players, variant=variant)
    for g in range(3):
        pols = [POLS[(s + g) % 3] for s in range(players)]
        k = S._record(rules, [S.make_policy(p) for p in pols], 4242, g, "kernel")
        r = S._record(rules, [S.make_policy(p) for p in pols], 4242, g, "reference")
        assert k == r
        S.check_record(k)


def test_shb7_small_deck_pile_runs_out_and_offer_shrinks():
    """SHB-7: with 16 cards per player the pile empties; drawing two needs 2+ cards; the offer shrinks."""
    rules = ShelfRules(players=2, deck=SMALL)
    seen = {"draw_blocked": 0, "shrunk": 0}

    def hook(game):
        if game.turn < 30:
            if len(game.pile) <= 1:
                assert R.DRAW not in game.sources()
                seen["draw_blocked"] += 1
            if len(game.offer) < 3:
                assert not game.pile
                seen["shrunk"] += 1
            assert game.sources(), "the player to move has no card to take"
        else:
            assert not game.pile and not game.offer

    for g in range(4):
        rec = _ref_game(rules, ["random", "greedy"], seed=1, g=g, hook=hook)
        assert sorted(sum(rec["tableaus"], [])) != []
    assert seen["draw_blocked"] > 0 and seen["shrunk"] > 0
    for g in range(4):
        k = S._record(rules, [S.make_policy("random"), S.make_policy("potential")], 7, g, "kernel")
        assert k == S._record(rules, [S.make_policy("random"), S.make_policy("potential")], 7, g, "reference")
        S.check_record(k, SMALL)


def test_shb8_placement_never_impossible_and_always_connected():
    """SHB-8: a legal place always exists, the tableau stays connected inside 5 x 3, and ends 5 x 3."""
    def hook(game):
        for s in range(game.n):
            g = game.grid[s]
            assert _connected(g)
            if g:
                r0, r1, c0, c1 = game.bbox(s)
                assert r1 - r0 <= 2 and c1 - c0 <= 4
            if len(g) < 15:
                assert game.legal_cells(s), "no legal place"
        if game.turn == 15 * game.n:
            for s in range(game.n):
                r0, r1, c0, c1 = game.bbox(s)
                assert (r1 - r0, c1 - c0, len(game.grid[s])) == (2, 4, 15)

    for players in (2, 5):
        _ref_game(ShelfRules(players=players), ["random"] * players, seed=3, hook=hook)


def test_shb8_first_card_anywhere_then_adjacent_only():
    """SHB-8: one place for the first card (the frame is relative), then only orthogonal neighbours."""
    state = np.zeros(K.STATE_LEN, dtype=np.int16)
    K._setup(state, 2, 90, assumed_deck().attrs.astype(np.int64), np.uint64(1))
    cells = np.zeros(K.NCELL, dtype=np.int64)
    assert K._legal_cells(state, 0, cells) == 1 and cells[0] == K.CENTRE
    K._place(state, 0, 5, K.CENTRE)
    n = K._legal_cells(state, 0, cells)
    assert sorted(cells[:n]) == sorted([K.CENTRE - K.GW, K.CENTRE + K.GW, K.CENTRE - 1, K.CENTRE + 1])
    # a row of five: no cell left or right of it any more
    for c in (1, 2, 3, 4):
        K._place(state, 0, 5 + c, K.CENTRE + c)
    n = K._legal_cells(state, 0, cells)
    assert all(K.CENTRE // K.GW != x // K.GW for x in cells[:n])
    assert n == 10


# ------------------------------------------------------------------ SHB-12 winner
def test_shb12_ties_shared_and_sequence_tiebreak():
    scores = np.array([10, 10, 7, 0, 0])
    kinds = np.array([[4, 0, 3, 3, 0, 0], [0, 0, 5, 5, 0, 0], [0] * 6, [0] * 6, [0] * 6])
    sh = np.zeros(5)
    K._win_shares(scores, kinds, 3, 0, sh)
    assert sh[:3].tolist() == [0.5, 0.5, 0.0]
    assert R.win_shares([10, 10, 7], kinds.tolist(), 0) == [0.5, 0.5, 0.0]
    K._win_shares(scores, kinds, 3, 1, sh)
    assert sh[:3].tolist() == [0.0, 1.0, 0.0]
    assert R.win_shares([10, 10, 7], kinds.tolist(), 1) == [0.0, 1.0, 0.0]


# ------------------------------------------------------------------ SHB-14 no peeking
@pytest.mark.parametrize("policy", POLS + ("rollout:rollouts=2,candidates=2",))
def test_shb14_policies_never_see_the_pile_order(policy):
    """SHB-14: permuting the hidden pile (and other hands) changes no observation and no choice."""
    rules = ShelfRules(players=3)
    attrs, points, columns, _ = S._kernel_rules(rules)
    pol = S.parse_policy(policy)
    tab = (attrs, points, columns, K._make_aux(attrs, points))
    ws = K._workspace()
    rng = np.random.default_rng(0)
    for g in range(15):
        state = np.zeros(K.STATE_LEN, dtype=np.int16)
        obs = np.zeros(K.STATE_LEN, dtype=np.int16)
        st = K._setup(state, 3, 90, attrs, np.uint64(game_state(np.uint64(5), g)))
        # advance a few turns with the real engine
        for _ in range(g % 7):
            seat = state[K.S_SEAT]
            K._observe(state, seat, obs)
            src, st = K._choose_source(pol.kind, pol.array(), obs, tab, np.uint64(st), ws)
            K._take(state, src)
            K._observe(state, seat, obs)
            pi, cell, ri, st = K._choose_place(pol.kind, pol.array(), obs, tab, np.uint64(st), ws)
            K._finish(state, pi, cell, ri)
        seat = state[K.S_SEAT]
        other = state.copy()
        p = other[K.S_PILE]
        hidden = other[K.PILE0:K.PILE0 + p].copy()
        rng.shuffle(hidden)
        other[K.PILE0:K.PILE0 + p] = hidden
        for s in range(3):
            if s != seat:  # swap another seat's hand with a pile card
                j = K.PILE0 + int(rng.integers(0, p))
                other[K.HAND0 + s], other[j] = other[j], other[K.HAND0 + s]
        o1 = np.zeros(K.STATE_LEN, dtype=np.int16)
        o2 = np.zeros(K.STATE_LEN, dtype=np.int16)
        K._observe(state, seat, o1)
        K._observe(other, seat, o2)
        assert np.array_equal(o1, o2)
        a = K._choose_source(pol.kind, pol.array(), o1, tab, np.uint64(11), K._workspace())
        b = K._choose_source(pol.kind, pol.array(), o2, tab, np.uint64(11), K._workspace())
        assert a == b
        # after drawing two, the rest of the pile is still hidden
        if state[K.S_PILE] >= 4:
            s1, s2 = state.copy(), other.copy()
            s2[K.PILE0:K.PILE0 + p] = state[K.PILE0:K.PILE0 + p]
            rest = s2[K.PILE0:K.PILE0 + p - 2].copy()
            rng.shuffle(rest)
            s2[K.PILE0:K.PILE0 + p - 2] = rest
            K._take(s1, K.DRAW)
            K._take(s2, K.DRAW)
            K._observe(s1, seat, o1)
            K._observe(s2, seat, o2)
            assert np.array_equal(o1, o2)
            assert K._choose_place(pol.kind, pol.array(), o1, tab, np.uint64(3), K._workspace()) == \
                K._choose_place(pol.kind, pol.array(), o2, tab, np.uint64(3), K._workspace())


def test_shb14_a_card_put_back_is_known_to_its_player_only():
    """SHB-6/SHB-14: after putting a card back, that player (only) sees the top of the pile."""
    state = np.zeros(K.STATE_LEN, dtype=np.int16)
    attrs = assumed_deck().attrs.astype(np.int64)
    K._setup(state, 3, 90, attrs, np.uint64(8))
    seat = state[K.S_SEAT]
    K._take(state, K.DRAW)
    K._finish(state, 0, K.CENTRE, 1)
    top = state[K.PILE0 + state[K.S_PILE] - 1]
    obs = np.zeros(K.STATE_LEN, dtype=np.int16)
    K._observe(state, seat, obs)
    assert obs[K.PILE0 + state[K.S_PILE] - 1] == top
    K._observe(state, (seat + 1) % 3, obs)
    assert (obs[K.PILE0:K.PILE0 + K.MAXD] == -1).all()


# ------------------------------------------------------------------ properties over many games
@settings(max_examples=25)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), g=st.integers(0, 10**6),
       pols=st.lists(st.sampled_from(POLS), min_size=5, max_size=5),
       variant=st.sampled_from(["standard", "flat", "linear", "pairs", "columns"]))
def test_property_every_game_is_legal_and_scores_follow_the_rules(players, seed, g, pols, variant):
    """Every finished tableau is 5 x 3 and connected, cards are conserved, no placement is ever
    impossible, scores equal the reference scorer (check_record replays the whole game)."""
    rules = ShelfRules(players=players, variant=variant)
    key = int(chunk_keys(seed, 1)[0])
    rec = S._record(rules, [S.make_policy(p) for p in pols[:players]], key, g, "kernel")
    S.check_record(rec)


@settings(max_examples=8)
@given(players=st.integers(2, 5), g=st.integers(0, 10**6), pols=st.lists(st.sampled_from(POLS), min_size=5, max_size=5))
def test_property_kernel_equals_reference(players, g, pols):
    rules = ShelfRules(players=players)
    p = [S.make_policy(x) for x in pols[:players]]
    assert S._record(rules, p, 31337, g, "kernel") == S._record(rules, p, 31337, g, "reference")


# ------------------------------------------------------------------ policies
@pytest.mark.parametrize("players", [2, 4])
def test_rollout_policy_kernel_equals_reference(players):
    """The rollout policy draws its determinizations from the game's stream: kernel = reference."""
    rules = ShelfRules(players=players, variant="standard" if players == 2 else "columns")
    pols = [S.parse_policy("rollout:rollouts=2,candidates=3")] + [S.make_policy("greedy")] * (players - 1)
    k = S._record(rules, pols, 77, 1, "kernel")
    assert k == S._record(rules, pols, 77, 1, "reference")
    S.check_record(k)


def test_rollout_beats_greedy():
    """Monte Carlo over future draws wins more than its share against greedy players."""
    rules = ShelfRules(players=2)
    res = S.simulate(rules, [["rollout:rollouts=4", "greedy"]], 60, seed=1, chunks=2)
    assert res.seat_win(0, 0).low > 0.5


def test_policy_names_and_parameters():
    assert S.parse_policy("greedy").label == "greedy"
    p = S.parse_policy("potential:open_run2=1,draw_below=2")
    assert p.params[:2] == (2.0, 1.0) and "open_run2=1" in p.label
    with pytest.raises(LudolabError, match="unknown policy 'gready'"):
        S.parse_policy("gready")
    with pytest.raises(LudolabError, match="has no parameter"):
        S.parse_policy("greedy:open_run2=1")
    with pytest.raises(LudolabError, match="must be a number"):
        S.parse_policy("greedy:draw_below=x")
    with pytest.raises(LudolabError, match="rollouts must be a whole number 1..256"):
        S.parse_policy("rollout:rollouts=0.5")
    with pytest.raises(LudolabError, match="one policy for every seat"):
        S.simulate(ShelfRules(players=3), [["greedy", "random"]], 5)


# ------------------------------------------------------------------ Monte Carlo
def test_simulate_equals_the_sum_of_single_games():
    """simulate() with one chunk adds exactly the games play_game() records."""
    rules = ShelfRules(players=3)
    res = S.simulate(rules, [["greedy", "random", "potential"]], 12, seed=9, chunks=1)
    recs = [S.play_game(rules, ["greedy", "random", "potential"], seed=9, game=g) for g in range(12)]
    for s in range(3):
        assert res.seat_mean(0, s).value == pytest.approx(np.mean([r["scores"][s] for r in recs]))
        assert res.seat_win(0, s).value == pytest.approx(np.mean([r["win_shares"][s] for r in recs]))
    first = [r["first"] for r in recs]
    assert res.position_mean(0, 0).value == pytest.approx(np.mean([r["scores"][f] for r, f in zip(recs, first)]))


def test_simulate_same_seed_same_result_and_common_deals():
    rules = ShelfRules(players=2)
    a = S.simulate(rules, ["greedy", "random"], 40, seed=2, chunks=4)
    b = S.simulate(rules, ["greedy", "random"], 40, seed=2, chunks=4)
    assert np.array_equal(a.acc, b.acc)
    d = a.paired_diff(0, 1)
    assert d.value == pytest.approx(a.table_mean(0).value - a.table_mean(1).value)
    assert d.low < d.value < d.high
    assert a.paired_diff(0, 0).value == 0


def test_offer_against_blind_draw_equals_reference():
    """The hindsight comparison of the offer with the two real top cards (SHB-5, SHB-6) matches a
    pure-Python count over the same games."""
    rules = ShelfRules(players=3)
    games = 6
    res = S.simulate(rules, [["greedy", "potential", "random"]], games, seed=4, chunks=1, track=True)
    got = res.offer_vs_draw(0)
    attrs, points, columns, _ = S._kernel_rules(rules)
    tally = {1: 0, 0: 0, -1: 0}
    gains = [0.0, 0.0]

    def hook(game):
        if game.turn < 15 * game.n and len(game.pile) >= 2 and game.offer:
            v, go, gd = R.offer_vs_draw(game, attrs.tolist(), points.tolist(), rules.columns)
            tally[v] += 1
            gains[0] += go
            gains[1] += gd

    for g in range(games):
        _ref_game(rules, ["greedy", "potential", "random"], seed=4, g=g, hook=hook)
    assert got["turns"] == sum(tally.values())
    assert got["p_offer_better"] == pytest.approx(tally[1] / got["turns"])
    assert got["p_draw_better"] == pytest.approx(tally[-1] / got["turns"])
    assert got["mean_offer_gain"] == pytest.approx(gains[0] / got["turns"])
    assert got["mean_draw_gain"] == pytest.approx(gains[1] / got["turns"])


def test_simulate_bit_identical_on_one_and_two_threads():
    import numba

    rules = ShelfRules(players=4)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = S.simulate(rules, ["greedy", "random"], 64, seed=5, chunks=8, track=True).acc
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = S.simulate(rules, ["greedy", "random"], 64, seed=5, chunks=8, track=True).acc
    finally:
        numba.set_num_threads(old)
    assert np.array_equal(one, two)
