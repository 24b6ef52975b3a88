"""Shelve the Book through the step interface: what a seat knows (SHB-14), the action
encoding, and the rollout policy, which the shared harness leaves out of its twin and
no-peeking checks for speed (tests/test_step_interface.py runs everything else)."""

from __future__ import annotations

import numpy as np
import pytest

from ludolab.sim import shelf as S
from ludolab.sim import shelf_kernels as K
from ludolab.sim import shelf_reference as R
from ludolab.sim.rng import chunk_keys, game_state
from ludolab.stdlib.shelf import ShelfRules


def _new(rules, key):
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.new_game(rules, np.uint64(key), st)
    return st


def _obs(rules, st, seat):
    o = np.zeros(K.OBS_SIZE, dtype=np.int64)
    K.observe(rules, st, seat, o)
    return o


def _legal(rules, st):
    out = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    return out[:K.legal_actions(rules, st, out)].tolist()


def test_shb5_a_card_kept_from_the_offer_is_known_to_every_player():
    """SHB-5/SHB-14: taking offer card X and placing the old hand card leaves X in hand, face up
    to everyone's memory; drawing two later makes the hand unknown again."""
    rules = S.step_rules(ShelfRules(players=3))
    st = _new(rules, 12345)
    seat = K.current_player(st)
    K.apply_action(rules, st, 0)  # take offer card 1
    taken = int(st[K.HELD0 + 1])
    K.apply_action(rules, st, K.A_PLACE0 + (3 * 0 + 0) * K.NCELL + K.CENTRE)  # place the old hand card
    for other in range(3):
        o = _obs(rules, st, other)
        assert o[K.HAND0 + seat] == taken and o[K.O_KNOWN0 + seat] == taken
    # a determinized world keeps it where it is known
    other = (seat + 1) % 3
    o = _obs(rules, st, other)
    w = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.determinize(rules, o, other, np.uint64(7), w)
    assert w[K.HAND0 + seat] == taken
    S.check_step_state(rules, w)
    # play round to the seat again, then it draws two: its hand is unknown to the others
    while K.current_player(st) != seat:
        K.apply_action(rules, st, _legal(rules, st)[0])
        K.apply_action(rules, st, _legal(rules, st)[0])
    K.apply_action(rules, st, K.A_DRAW)
    assert _obs(rules, st, other)[K.HELD0] == taken  # mid-turn, the known card is still held
    K.apply_action(rules, st, _legal(rules, st)[-1])  # places a drawn card
    assert _obs(rules, st, other)[K.HAND0 + seat] == -1
    assert st[K.S_KNOWN0 + seat] == -1


def test_shb6_a_card_put_back_is_seen_on_the_pile_by_its_player_only():
    """SHB-6/SHB-14: after drawing two and putting one back, the top card is in that seat's
    observation and in no other seat's; determinize leaves it on top."""
    rules = S.step_rules(ShelfRules(players=2))
    st = _new(rules, 99)
    seat = K.current_player(st)
    K.apply_action(rules, st, K.A_DRAW)
    back = int(st[K.HELD0 + 2])
    K.apply_action(rules, st, K.A_PLACE0 + (3 * 0 + 2) * K.NCELL + K.CENTRE)  # place held 0, put held 2 back
    p = int(st[K.S_PILE])
    assert st[K.PILE0 + p - 1] == back
    mine, theirs = _obs(rules, st, seat), _obs(rules, st, 1 - seat)
    assert mine[K.PILE0 + p - 1] == back and (theirs[K.PILE0:K.PILE0 + K.MAXD] == -1).all()
    w = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.determinize(rules, mine, seat, np.uint64(3), w)
    assert w[K.PILE0 + p - 1] == back and not np.array_equal(w[K.PILE0:K.PILE0 + p - 1], st[K.PILE0:K.PILE0 + p - 1])


def test_action_encoding_round_trips_the_fast_trace():
    """trace_actions turns the whole-game trace into step actions that replay the same game."""
    rules = ShelfRules(players=3)
    ra = S.step_rules(rules)
    pols = [S.make_policy(x) for x in ("greedy", "random", "potential")]
    key = int(game_state(chunk_keys(4, 1)[0], 2))
    games = S._step_fast_games(ra, [(p.kind, p.array()) for p in pols], np.array([key], dtype=np.uint64))
    st = _new(ra, key)
    for a in games[0]:
        assert a in _legal(ra, st)
        K.apply_action(ra, st, a)
    assert K.is_terminal(st) and K.current_player(st) == -1
    rec = S._record(rules, pols, int(chunk_keys(4, 1)[0]), 2, "kernel")
    out = np.zeros(3)
    K.returns(ra, st, out)
    assert out.tolist() == rec["scores"]


@pytest.mark.parametrize("policy", ["rollout", "rollout:rollouts=2,candidates=2"])
def test_shb14_rollout_sees_only_its_observation_and_matches_the_twin(policy):
    """The rollout policy gives the same action and draws alike in a determinized world; with
    few rollouts the pure-Python twin's act is the same action and stream."""
    rules = S.step_rules(ShelfRules(players=3))
    pol = S.parse_policy(policy)
    params = pol.array()
    rng = np.random.default_rng(2)
    for g in range(3):
        st = _new(rules, int(game_state(np.uint64(8), g)))
        for step in range(4 + 9 * g):  # reach both decisions at several depths
            K.apply_action(rules, st, _legal(rules, st)[int(rng.integers(len(_legal(rules, st))))])
        seat = K.current_player(st)
        o = _obs(rules, st, seat)
        w = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.determinize(rules, o, seat, np.uint64(int(rng.integers(1, 2**62))), w)
        w[K.S_RNG] = st[K.S_RNG]
        assert not np.array_equal(w, st)
        a_s, a_w = st.copy(), w.copy()
        assert K.act(pol.kind, params, o.copy(), a_s) == K.act(pol.kind, params, _obs(rules, w, seat), a_w)
        assert a_s[K.S_RNG] == a_w[K.S_RNG]
        if policy != "rollout":
            t = st.copy()
            assert R.act(pol.kind, params, o.copy(), t) == K.act(pol.kind, params, o.copy(), st.copy())
            k = st.copy()
            K.act(pol.kind, params, o.copy(), k)
            assert t[K.S_RNG] == k[K.S_RNG]


# ------------------------------------------------------------------ the lookup tables, built once per ruleset
def _bare(name):
    """A named policy's (kind, params) without the lookup tables: (NPARAM,) as the face made them before."""
    return S.POLICIES[name][0], S.make_policy(name).array()


@pytest.mark.parametrize("label", ["2p-standard", "3p-columns-sequences", "2p-pairs-32cards-sequences"])
def test_tables_built_once_give_the_same_actions_draws_and_returns(label):
    """SHB-10/SHB-11/SHB-14: act with the tables its params carry for this deck, with the standard
    deck's tables (not this deck's where it differs: act builds its own) and with bare params gives
    the same action and the same stream at every decision of a game; returns reads the rules'
    tables and equals returns on the rules array without them."""
    g = S.step_game()
    case = next(c for c in g.cases if c.label == label)
    rules = case.rules
    n = int(rules[K.R_NDECK])
    short = rules[:K.R_ATTRS + 4 * n].copy()  # a rules array without the tables
    assert rules.shape == (K.R_ATTRS + 4 * n + K.aux_len(n),)
    mine = g.extra["policies_for"](rules)
    assert mine is case.named and set(mine) == set(g.policies)
    names = ("random", "greedy", "potential")
    for game in range(2):
        st = _new(rules, int(game_state(np.uint64(5), game)))
        while K.current_player(st) >= 0:
            seat = K.current_player(st)
            o = _obs(rules, st, seat)
            for name in names:
                kind, bare = _bare(name)
                got = []
                for par in (bare, mine[name][1], g.policies[name][1]):
                    s2 = st.copy()
                    got.append((int(K.act(kind, par, o.copy(), s2)), int(s2[K.S_RNG])))
                assert got[0] == got[1] == got[2], (name, got)
            kind, par = mine[names[int(st[K.S_TURN]) % 3]]
            K.apply_action(rules, st, K.act(kind, par, o, st))
            a, b = np.zeros(case.n_players), np.zeros(case.n_players)
            K.returns(rules, st, a)
            K.returns(short, st, b)
            assert a.tolist() == b.tolist()


def test_tables_of_another_deck_of_the_same_size_are_not_read():
    """Params carrying the tables of another 90-card deck decide as the bare params do on this deck
    (act checks the deck and points they were built for against its observation); the pure-Python
    twin reads only the policy's own parameters of the long array and agrees."""
    from ludolab.stdlib.shelf import generate_deck

    rules = S.step_rules(ShelfRules(players=2))
    alien = S.step_rules(ShelfRules(players=2, deck=generate_deck(size=90, seed=11)))
    assert alien[K.R_NDECK] == rules[K.R_NDECK] and not np.array_equal(alien, rules)
    wrong = S.step_policies(alien)
    right = S.step_policies(rules)
    rng = np.random.default_rng(4)
    differs = 0
    for game in range(2):
        st = _new(rules, int(game_state(np.uint64(9), game)))
        for step in range(40):
            seat = K.current_player(st)
            o = _obs(rules, st, seat)
            for name in ("greedy", "potential"):
                kind, bare = _bare(name)
                s0, s1 = st.copy(), st.copy()
                a0 = int(K.act(kind, bare, o.copy(), s0))
                assert int(K.act(kind, wrong[name][1], o.copy(), s1)) == a0 and s0[K.S_RNG] == s1[K.S_RNG]
                if step % 13 == 0:
                    t = st.copy()
                    assert R.act(kind, right[name][1], o.copy(), t) == a0 and t[K.S_RNG] == s0[K.S_RNG]
                # the alien tables labelled as this deck's are read, and change some decisions
                forged = wrong[name][1].copy()
                forged[K.PX_ATTRS:K.PX_ATTRS + 4 * 90] = rules[K.R_ATTRS:K.R_ATTRS + 4 * 90]
                differs += int(K.act(kind, forged, o.copy(), st.copy()) != a0)
            legal = _legal(rules, st)
            K.apply_action(rules, st, legal[int(rng.integers(len(legal)))])
    assert differs > 0


def test_policy_tables_refuse_what_they_cannot_carry():
    """policy_params takes at most NPARAM parameters; step_policies needs a rules array of the face."""
    rules = S.step_rules(ShelfRules(players=2))
    with pytest.raises(ValueError, match="at most 8 parameters"):
        K.policy_params(np.zeros(K.NPARAM + 1), rules)
    with pytest.raises(ValueError, match="rules array"):
        S.step_policies(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="rules array"):
        S.step_policies(rules[:K.R_ATTRS + 10])
