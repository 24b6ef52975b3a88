"""Beverbende engine: kernel vs reference, properties over random rounds, no peeking.

Clause ids refer to seeds/beverbende.md.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ludolab.sim import beverbende as B
from ludolab.sim import beverbende_kernels as K
from ludolab.sim import beverbende_reference as R
from ludolab.sim.experiment import plan_run
from ludolab.sim.rng import chunk_keys, py_game_state
from ludolab.stdlib.beverbende import CARD_NAMES, STANDARD_COMPOSITION, BeverbendeRules

POLICIES = ["random", "threshold", "expected-value", "threshold:knock=-1", "threshold:knock=14,peek=0,draw2=0",
            "threshold:knock=16,late=-2", "threshold:knock=4,late=1.5",
            "expected-value:margin=0,kmax=3"]


@st.composite
def rulesets(draw):
    P = draw(st.integers(2, 6))
    comp = list(STANDARD_COMPOSITION)
    for k in (10, 11, 12):
        comp[k] = draw(st.sampled_from([0, comp[k], 2 * comp[k]]))
    return BeverbendeRules(players=P, composition=tuple(comp), memory_loss=draw(st.sampled_from([0.0, 0.1, 0.6])),
                           exchange_specials=draw(st.booleans()), round_cap=draw(st.integers(P, 90)))


@st.composite
def cases(draw):
    rules = draw(rulesets())
    pols = [draw(st.sampled_from(POLICIES)) for _ in range(rules.players)]
    return rules, pols, draw(st.integers(0, 2**63)), draw(st.integers(0, 1000)), draw(st.integers(0, rules.players - 1))


# ------------------------------------------------------------------ differential
@settings(max_examples=60)
@given(cases())
def test_kernel_and_reference_play_the_same_round(case):  # BVB-3..BVB-13
    rules, pols, key, g, start = case
    a = B.trace_round(rules, pols, key, g, start, engine="kernel")
    b = B.trace_round(rules, pols, key, g, start, engine="reference")
    assert a == b
    B.check_record(a)


def test_kernel_statistics_match_the_reference_rounds():  # BVB-10
    rules = BeverbendeRules(players=3, memory_loss=0.2)
    pols = ["threshold", "expected-value", "random"]
    kinds, params = B.seat_arrays(rules, pols)
    mem = B.memory_array(rules)
    plan = plan_run(60, 4, 3)
    starts = np.zeros(3, dtype=np.int64)
    out = np.zeros((3, 4, K.N_ROUND_STATS), dtype=np.int64)
    K._simulate_rounds(plan.keys, starts, plan.games, rules.rules_array(), kinds, params, mem, out)
    tot = np.zeros(3, dtype=np.int64)
    for i in range(3):
        for s in R.simulate_rounds(rules, kinds.tolist(), params.tolist(), mem.tolist(), int(plan.keys[i]),
                                   int(plan.games[i])):
            tot += s
    assert out.sum(axis=0)[:3, K.RS_RAW].tolist() == tot.tolist()


def test_whole_games_match_the_reference():  # BVB-14, BVB-15
    for scoring in ("sum", "knocker-penalty", "win-count"):
        rules = BeverbendeRules(players=2, scoring=scoring)
        kinds, params = B.seat_arrays(rules, ["threshold", "expected-value"])
        mem = B.memory_array(rules)
        keys = chunk_keys(9, 1)
        out = np.zeros((1, 3, 4), dtype=np.int64)
        K._simulate_games(keys, np.zeros(1, np.int64), np.full(1, 20, np.int64), rules.rules_array(), kinds,
                          params, mem, out)
        tot = np.zeros(2, dtype=np.int64)
        for g in range(20):
            t, _, _ = R.play_game(rules, kinds.tolist(), params.tolist(), mem.tolist(), py_game_state(int(keys[0]), g))
            tot += t
        assert out[0, :2, 2].tolist() == tot.tolist(), scoring


def test_compare_uses_common_random_numbers():
    rules = BeverbendeRules(players=3)
    df = B.compare(rules, ["threshold", "threshold", "random"], "threshold", rounds=400, seed=3, chunks=4)
    assert df.mean_score[0] == df.mean_score[1]
    assert df.diff_vs_first[1] == 0.0 and df.diff_vs_first_ci_low[1] == 0.0
    single = B.simulate(rules, "threshold", rounds=400, seed=3, chunks=4)
    assert np.isclose(single["seats"][0]["mean_score"], df.mean_score[0])
    assert df.share_differs_from_first.tolist()[:2] == [0.0, 0.0] and df.share_differs_from_first[2] > 0.5


def test_compare_counts_the_rounds_a_candidate_changes_as_the_reference_does():  # BVB-9, BVB-10
    """The compare kernel's count of rounds where the focal seat's score differs from the first candidate's
    equals a count over the same rounds played by the pure-Python reference, seating by seating."""
    rules = BeverbendeRules(players=3)
    seatings = [[B.as_policy(c), B.as_policy("threshold"), B.as_policy("threshold")]
                for c in ("threshold", "threshold:knock=4,late=2", "expected-value")]
    arrays = [B.seat_arrays(rules, s) for s in seatings]
    kinds = np.stack([k for k, _ in arrays])
    params = np.stack([p for _, p in arrays])
    mem = np.tile(B.memory_array(rules), (3, 1))
    plan = plan_run(90, 3, 5)
    n = plan.n_chunks
    out = np.zeros((n, 3, 2 * 3 + 11), dtype=np.int64)
    K._compare_rounds(plan.keys, np.zeros(n, dtype=np.int64), plan.games, rules.rules_array(), kinds, params,
                      mem, 0, out)
    differs = np.zeros(3, dtype=np.int64)
    for i in range(n):
        for g in range(int(plan.games[i])):
            first = None
            for a in range(3):
                _, raw, _, _ = R.play_round(rules, kinds[a].tolist(), params[a].tolist(), mem[a].tolist(),
                                            py_game_state(int(plan.keys[i]), g))
                first = raw[0] if first is None else first
                differs[a] += raw[0] != first
    assert out.sum(axis=0)[:, 2 * 3 + 10].tolist() == differs.tolist()
    assert differs[0] == 0 and differs[1] > 0


# ------------------------------------------------------------------ properties
@settings(max_examples=40)
@given(cases())
def test_cards_are_conserved_after_every_action(case):  # BVB-1
    rules, pols, key, g, start = case
    kinds, params = B.seat_arrays(rules, pols)
    mem = B.memory_array(rules).tolist()
    full = list(rules.composition)

    def hook(r, obs, d):
        counts = r.cards()
        if obs["phase"] == "drawn":
            counts[obs["card"]] += 1
        assert counts == full

    r, scores, _, _ = R.play_round(rules, kinds.tolist(), params.tolist(), mem, py_game_state(key, g), start, hook)
    assert r.cards() == full


@settings(max_examples=40)
@given(cases())
def test_knock_timing_and_replacement(case):  # BVB-9, BVB-10
    rules, pols, key, g, start = case
    kinds, params = B.seat_arrays(rules, pols)
    r, scores, _, _ = R.play_round(rules, kinds.tolist(), params.tolist(), B.memory_array(rules).tolist(),
                                   py_game_state(key, g), start)
    P = rules.players
    turns = [e[1] for e in r.events if e[0] == "turn"]
    if r.knocker is not None:
        k = next(i for i, e in enumerate(r.events) if e[0] == "knock")
        before = sum(1 for e in r.events[:k] if e[0] == "turn")
        assert before >= P
        assert turns[before:] == [(r.knocker + i) % P for i in range(1, P)]
    else:
        assert r.capped and len(turns) == rules.round_cap
    assert all(c < 10 for row in r.rows for c in row)
    assert all(c >= 10 for c in r.aside)
    assert scores == [sum(row) for row in r.rows]


# ------------------------------------------------------------------ no peeking
def _all_decisions(obs, kind, par):
    """The policy's decision in every phase and with every drawn card, from one observation."""
    out = []
    o = obs.copy()
    for ph in range(5):
        for card in (range(13) if ph == K.PH_DRAWN else [-1]):
            for mode in ((0, 1) if ph == K.PH_DRAWN else (0,)):
                o[K.O_PHASE] = ph
                o[K.O_CARD] = card
                o[K.O_MODE] = mode
                d, _ = K._act(kind, par, o, np.uint64(12345))
                out.append(int(d))
    return out


@settings(max_examples=50)
@given(cases(), st.integers(0, 40), st.integers(0, 2**32))
def test_hidden_values_do_not_change_a_policys_choices(case, turns, salt):  # BVB-13
    rules, pols, key, g, _ = case
    kinds, params = B.seat_arrays(rules, pols)
    mem = B.memory_array(rules)
    ra = rules.rules_array()
    P = rules.players
    seat = salt % P
    obs = np.zeros(K.O_SIZE, dtype=np.int64)
    state = K._observe_at(ra, kinds, params, mem, np.uint64(key), g, turns, seat, obs)
    # change every card the seat cannot know: unknown slots of every row and the whole draw pile
    rng = np.random.default_rng(salt)
    other = state.copy()
    changed = 0
    for q in range(P):
        for s in range(4):
            if state[K.S_KNOW + 24 * seat + 4 * q + s] < 0:
                other[K.S_ROWS + 4 * q + s] = rng.integers(0, 13)
                changed += 1
    n = state[K.S_PILE_N]
    other[K.S_PILE:K.S_PILE + n] = rng.integers(0, 13, size=n)
    obs2 = np.zeros(K.O_SIZE, dtype=np.int64)
    K._observe(other, ra, seat, K.PH_ACTION, -1, 0, obs2)
    assert (obs == obs2).all()
    for kind in (K.K_THRESHOLD, K.K_EV, K.K_RANDOM):
        par = params[seat]
        assert _all_decisions(obs, kind, par) == _all_decisions(obs2, kind, par)
    # and the test can see a difference: a card the seat knows changes its observation
    known = [(q, s) for q in range(P) for s in range(4) if state[K.S_KNOW + 24 * seat + 4 * q + s] >= 0]
    if known:
        q, s = known[0]
        third = state.copy()
        third[K.S_KNOW + 24 * seat + 4 * q + s] = (third[K.S_KNOW + 24 * seat + 4 * q + s] + 1) % 10
        obs3 = np.zeros(K.O_SIZE, dtype=np.int64)
        K._observe(third, ra, seat, K.PH_ACTION, -1, 0, obs3)
        assert not (obs3 == obs).all()


def test_reference_policies_never_see_hidden_cards():  # BVB-13
    """In every decision of many reference rounds, the observation's beliefs are true values the
    player learnt, and the observation holds nothing else about face-down cards."""
    rules = BeverbendeRules(players=4, memory_loss=0.1)
    kinds, params = B.seat_arrays(rules, ["random", "threshold", "expected-value", "threshold"])

    def hook(r, obs, d):
        seat = obs["seat"]
        assert set(obs) == {"seat", "players", "phase", "card", "top", "turns", "knocker", "pile", "first_of_two",
                            "exchange_specials", "discard_counts", "composition", "know"}
        for q in range(4):
            for s in range(4):
                v = obs["know"][q][s]
                assert v is None or v == r.rows[q][s], "a belief that is not the card there"
                assert v == r.know[seat][q][s]

    for g in range(40):
        R.play_round(rules, kinds.tolist(), params.tolist(), B.memory_array(rules).tolist(),
                     py_game_state(17, g), 0, hook)


# ------------------------------------------------------------------ conformance
def test_conformance_hooks():
    c = B.conformance()
    assert c.play(1, 25, "kernel") == c.play(1, 25, "reference")
    for rec in c.play(2, 60, "kernel"):
        c.check(rec)
    rec = c.play(5, 1, "reference")[0]
    bad = dict(rec, scores=[s + 1 for s in rec["scores"]])
    with pytest.raises(AssertionError):
        c.check(bad)


def test_check_catches_an_illegal_take():  # BVB-6
    rec = B.conformance().play(1, 1, "reference")[0]
    ev = [list(e) for e in rec["events"]]
    for e in ev:
        if e[0] == "take":
            e[3] = "SW"
            break
    else:
        pytest.skip("no take in this round")
    with pytest.raises(AssertionError):
        B.check_record(dict(rec, events=ev))


def test_same_seed_same_numbers_on_one_or_two_threads():
    import numba

    rules = BeverbendeRules(players=5, memory_loss=0.1)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = B.simulate(rules, ["random", "threshold", "expected-value", "threshold", "random"], 3000, seed=4,
                         chunks=8)
        g1 = B.simulate_games(rules, "threshold", 100, seed=4, chunks=8)
    finally:
        numba.set_num_threads(old)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        two = B.simulate(rules, ["random", "threshold", "expected-value", "threshold", "random"], 3000, seed=4,
                         chunks=8)
        g2 = B.simulate_games(rules, "threshold", 100, seed=4, chunks=8)
    finally:
        numba.set_num_threads(old)
    assert one == two
    assert g1.equals(g2)


def test_check_catches_a_second_draw():  # BVB-7
    recs = B.conformance().play(1, 20, "reference")
    for rec in recs:
        ev = [list(e) for e in rec["events"]]
        for i, e in enumerate(ev):
            if e[0] == "draw" and ev[i + 1][0] == "discard" and ev[i - 1][0] == "turn":
                ev.insert(i + 2, ["draw", e[1], "9"])
                with pytest.raises(AssertionError):
                    B.check_record(dict(rec, events=ev))
                return
    pytest.skip("no draw-and-discard turn found")


# ------------------------------------------------------------------ the step interface
def _step_play(rules, pols, stream):
    arr = rules.rules_array()
    kinds, params = B.seat_arrays(rules, pols)
    state = np.zeros(K.STATE_SIZE, dtype=np.int64)
    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    K.new_game(arr, np.uint64(stream), state)
    while not K.is_terminal(state):
        p = K.current_player(state)
        K.observe(arr, state, p, obs)
        K.apply_action(arr, state, K.act(kinds[p], params[p], obs, state))
    out = np.zeros(rules.players)
    K.returns(arr, state, out)
    return out.tolist()


def test_step_interface_plays_the_traced_round():  # BVB-3..BVB-13
    """A one-round step game with the same policies is the round the traced kernel plays."""
    rules = BeverbendeRules(players=3, rounds=1, memory_loss=0.1)
    pols = ["threshold", "expected-value", "random"]
    key = int(chunk_keys(3, 1)[0])
    for g in range(12):
        rec = B.trace_round(rules, pols, key, g)
        assert _step_play(rules, pols, py_game_state(key, g)) == rec["scores"]


def test_step_interface_plays_the_reference_game():  # BVB-14, BVB-15
    rules = BeverbendeRules(players=4, scoring="knocker-penalty", memory_loss=0.2)
    pols = ["threshold", "random", "expected-value", "threshold:knock=6"]
    kinds, params = B.seat_arrays(rules, pols)
    mem = B.memory_array(rules).tolist()
    for g in range(4):
        totals, _, _ = R.play_game(rules, kinds.tolist(), params.tolist(), mem, py_game_state(5, g))
        assert _step_play(rules, pols, py_game_state(5, g)) == totals


def test_replay_catches_an_exchanged_special_and_a_decision_not_the_policys():  # BVB-7
    recs = B.conformance().play(1, 30, "reference")
    found = 0
    for rec in recs:
        ev = [list(e) for e in rec["events"]]
        for i, e in enumerate(ev):
            if e[0] == "discard" and e[2] in ("SW", "PK", "D2") and not rec["exchange_specials"]:
                rp = B._Replay(rec)   # the card in slot 0 when the special is in hand
                idx = {n: k for k, n in enumerate(CARD_NAMES)}
                for j, x in enumerate(ev[:i]):
                    B._replay_event(rp, x[0], [idx[y] if isinstance(y, str) else y for y in x[1:]], str(j))
                ev[i] = ["exchange", e[1], 0, e[2], CARD_NAMES[rp.row(e[1], 0)]]
                with pytest.raises(AssertionError):
                    B.check_record(dict(rec, events=ev))
                found += 1
                break
        knocks = [i for i, e in enumerate(rec["events"]) if e[0] == "knock"]
        if knocks:
            ev = [list(e) for e in rec["events"]]
            del ev[knocks[0]]   # the knock decision becomes 'no knock', which the policy did not take
            with pytest.raises(AssertionError):
                B.check_record(dict(rec, events=ev))
            found += 1
    assert found >= 4
