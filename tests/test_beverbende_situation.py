"""Beverbende situations (ludolab.sim.beverbende_situation): the round trip observation -> situation ->
observation at every decision of step-interface playouts, determinization from a situation, the
labels of the decisions, and every refusal with the clause it follows (seeds/beverbende.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ludolab.sim import beverbende_kernels as K
from ludolab.sim import beverbende_reference as REF
from ludolab.sim import beverbende_situation as BS
from ludolab.sim.rng import chunk_keys, game_state
from ludolab.stdlib.beverbende import BeverbendeRules

RULESETS = [
    BeverbendeRules(players=2, rounds=1),
    BeverbendeRules(players=4, rounds=1),
    BeverbendeRules(players=3, rounds=1, scoring="knocker-penalty", memory_loss=0.25, exchange_specials=True,
                    round_cap=60),
    BeverbendeRules(players=6, rounds=1, memory_loss=0.1, composition=(4,) * 9 + (9, 12, 3, 8)),
    BeverbendeRules(players=3),   # a whole game: later rounds give the one-round observation
]


def _playout_observations(rs: BeverbendeRules, seed: int, games: int):
    """(rules, state, obs of the seat to move, legal actions) at every decision of random playouts
    that knock rarely and draw often (so rounds are long enough to reshuffle and to meet every phase)."""
    rules = rs.rules_array()
    rng = np.random.default_rng(seed)
    acts = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
    for g in range(games):
        st = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.new_game(rules, np.uint64(game_state(chunk_keys(seed, 1)[0], g)), st)
        while not K.is_terminal(st):
            p = K.current_player(st)
            obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
            K.observe(rules, st, p, obs)
            n = K.legal_actions(rules, st, acts)
            legal = [int(a) for a in acts[:n]]
            yield rules, st, obs, legal
            if st[K.S_PHASE] == K.PH_KNOCK:
                a = 1 if rng.random() < 0.03 else 0
            elif st[K.S_PHASE] == K.PH_ACTION and rng.random() < 0.7:
                a = K.D_DRAW  # draw more often than a uniform choice would, so the pile runs out (BVB-11)
            else:
                a = legal[rng.integers(n)]
            K.apply_action(rules, st, a)


def _one_round(obs: np.ndarray) -> np.ndarray:
    out = obs.copy()
    out[K.O_ROUND] = 0
    out[K.O_CAPS] = 0
    out[K.O_TOTAL:K.O_TOTAL + K.MAXP] = 0
    return out


@pytest.mark.parametrize("ri", range(len(RULESETS)))
def test_round_trip_and_determinize_at_every_decision(ri):
    """from_obs then to_position (through JSON) gives the observation back bit for bit; a world
    determinized from it is observed as the same (BVB-13); labels are distinct for distinct actions."""
    rs = RULESETS[ri]
    phases = set()
    reshuffled = knocked = draw_twice = False
    n = 0
    for rules, st, obs, legal in _playout_observations(rs, seed=ri, games=6):
        sit = BS.from_obs(rules, obs)
        pos = BS.to_position(json.loads(json.dumps(sit)))
        want = obs if rs.n_rounds == 1 else _one_round(obs)
        assert pos.obs.dtype == np.int64 and pos.obs.shape == (K.OBS_SIZE,)
        assert np.array_equal(pos.obs, want), (sit, np.nonzero(pos.obs != want))
        assert pos.rules[K.R_ROUNDS] == 1 and pos.n_players == rs.players and pos.seat == obs[K.O_SEAT]
        assert np.array_equal(np.delete(pos.rules, K.R_ROUNDS), np.delete(rs.rules_array(), K.R_ROUNDS))
        world = np.zeros(K.STATE_SIZE, dtype=np.int64)
        K.determinize(pos.rules, pos.obs, pos.seat, np.uint64(n + 11), world)
        back = np.zeros(K.OBS_SIZE, dtype=np.int64)
        K.observe(pos.rules, world, pos.seat, back)
        assert np.array_equal(back, pos.obs)
        assert BS.legal_actions(pos) == legal
        labels = [BS.action_label(pos.rules, pos.obs, a) for a in legal]
        assert len(set(labels)) == len(labels), labels
        phases.add(int(obs[K.O_PHASE]))
        reshuffled |= sit["reshuffles"] > 0
        knocked |= sit["knocker"] is not None
        draw_twice |= bool(sit.get("draw_twice"))
        n += 1
    assert n > 100
    assert phases == {K.PH_ACTION, K.PH_DRAWN, K.PH_SWAP, K.PH_PEEK, K.PH_KNOCK}
    assert knocked
    if ri in (0, 4):  # rounds long enough to rebuild the pile (BVB-11) and meet a draw twice (BVB-8)
        assert reshuffled and draw_twice


def test_determinize_from_a_situation_equals_its_twin():
    """The kernels and the pure-Python twin determinize a situation's observation alike."""
    pos = BS.to_position(EXAMPLE)
    a = np.zeros(K.STATE_SIZE, dtype=np.int64)
    b = np.zeros(K.STATE_SIZE, dtype=np.int64)
    K.determinize(pos.rules, pos.obs, pos.seat, np.uint64(5), a)
    REF.determinize(pos.rules, pos.obs, pos.seat, np.uint64(5), b)
    assert np.array_equal(a, b)


#: The module docstring's example (a drawn 4, seat 1 to move, 7 turns played).
EXAMPLE = {
    "players": 3, "seat": 1, "turns": 7, "phase": "drawn", "drawn": "4", "draw_twice": False,
    "rows": [["?", "?", "?", "?"], ["2", "?", "?", "9"], ["?", "5", "?", "?"]],
    "discard": ["3", "9", "SW", "7"], "knocker": None,
}


def test_example_reads_and_labels():
    pos = BS.to_position(EXAMPLE)
    assert pos.obs[K.O_START] == 0 and pos.obs[K.O_CARD] == 4 and pos.obs[K.O_TOP] == 7
    assert pos.obs[K.O_PILE_N] == 66 - 4 - 12 - 1
    labels = [BS.action_label(pos.rules, pos.obs, a) for a in BS.legal_actions(pos)]
    assert labels == ["exchange 4 into slot 0 (2)", "exchange 4 into slot 1 (?)", "exchange 4 into slot 2 (?)",
                      "exchange 4 into slot 3 (9)", "discard 4"]
    # a row may be one string, rows a dict by seat (missing seats unknown), cards lower case
    alt = dict(EXAMPLE, rows={"1": "2 ? ? 9", "2": "?,5,?,?"}, discard="3 9 sw 7")
    assert np.array_equal(BS.to_position(alt).obs, pos.obs)
    sw = BS.to_position(dict(EXAMPLE, phase="swap", drawn=None, draw_twice=False, discard=["3", "SW"]))
    assert BS.action_label(sw.rules, sw.obs, 3 * 24 + 2 * 4 + 1) == "swap slot 3 (9) with seat 2 slot 1 (5)"


def _sit(change: dict) -> dict:
    """The example with some keys changed (or dropped: the value _DROP)."""
    sit = dict(EXAMPLE)
    sit.update(change)
    return {k: v for k, v in sit.items() if v is not _DROP}


def _refused(change: dict, *words):
    sit = _sit(change)
    with pytest.raises(BS.SituationError) as e:
        BS.to_position(sit)
    msg = str(e.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, msg
    return msg


_DROP = object()


def test_refuses_unknown_keys_naming_the_allowed():
    assert "allowed are players, seat" in _refused({"hand": "4"}, "unknown key 'hand'")
    _refused({"rules": {"decks": [1]}}, "unknown key 'decks'", "exchange_specials")
    _refused({"phase": "draw"}, "unknown phase 'draw'", "action, drawn, swap, peek, knock")
    _refused({"game": {"score": 1}}, "unknown key 'score'", "round, rounds")


def test_refuses_cards_that_do_not_exist_bvb_1():
    _refused({"drawn": "10"}, "BVB-1", "'10'", "SW (swap)")
    _refused({"rows": [["?"] * 4, ["2", "X", "?", "9"], ["?"] * 4]}, "BVB-1", "'X'", "? for an unknown card")
    _refused({"discard": ["3", "?"]}, "BVB-1", "'?'")


def test_refuses_a_card_seen_more_often_than_the_deck_holds_bvb_1():
    # five 3s: four on the discard pile, one remembered (the deck holds four)
    _refused({"discard": ["3", "3", "3", "3", "7"], "rows": [["3", "?", "?", "?"], ["2", "?", "?", "9"],
                                                            ["?"] * 4]},
             "BVB-1", "card 3 is seen 5 times", "deck holds 4")
    _refused({"drawn": "2", "discard": ["2", "2", "2"], "rows": [["?"] * 4, ["2", "?", "?", "9"], ["?"] * 4]},
             "BVB-1", "card 2 is seen 5 times", "1 in hand")


def test_refuses_more_cards_than_the_deck_bvb_1():
    small = {"deck": [2, 2, 2, 2, 0, 0, 0, 0, 0, 2, 1, 1, 0]}   # 12 cards, 2 players
    _refused({"players": 2, "seat": 0, "turns": 3, "phase": "action", "drawn": _DROP, "draw_twice": _DROP,
              "rows": [["?"] * 4, ["?"] * 4], "discard": ["0", "1", "2", "3", "9", "SW", "PK"], "rules": small},
             "BVB-1", "7 cards on the discard pile", "more than the 12 of the deck")


def test_refuses_rows_that_are_not_four_slots_a_seat_bvb_3():
    _refused({"rows": [["?"] * 4, ["2", "?", "?", "9", "1"], ["?"] * 4]}, "BVB-3", "gives 5")
    _refused({"rows": [["?"] * 4, ["2", "?", "?", "9"]]}, "BVB-3", "one row per seat (3 players)")
    _refused({"rows": {"4": "? ? ? ?"}}, "a seat of \"rows\"", "0..2")


def test_refuses_an_empty_discard_pile_bvb_3():
    _refused({"discard": []}, "BVB-3", "at least one card")


def test_refuses_players_and_seats_out_of_range_bvb_2():
    _refused({"players": 7}, "number of players", "2..6")
    _refused({"seat": 3}, "seat to move", "0..2")
    _refused({"players": _DROP}, "needs \"players\"")


def test_refuses_a_seat_not_to_move_bvb_5():
    _refused({"start": 2}, "BVB-5", "after 7 turns from starting seat 2 the seat to move is 0, not seat 1")


def test_refuses_a_drawn_card_outside_its_phase_bvb_7():
    _refused({"drawn": _DROP}, "BVB-7", "needs \"drawn\"")
    _refused({"phase": "action"}, "BVB-7", "only in phase drawn")


def test_refuses_a_special_phase_without_its_card_on_top_bvb_8():
    _refused({"phase": "swap", "drawn": _DROP, "draw_twice": _DROP}, "BVB-8", "SW is the top", "not 7")
    _refused({"phase": "peek", "drawn": _DROP, "draw_twice": _DROP}, "BVB-8", "PK is the top")
    _refused({"draw_twice": True}, "BVB-8", "the first card of a draw twice", "D2")
    _refused({"phase": "action", "drawn": _DROP, "draw_twice": True}, "BVB-8", "only in phase drawn")


def test_refuses_a_knock_the_rules_do_not_allow_bvb_9():
    base = {"phase": "knock", "drawn": _DROP, "draw_twice": _DROP}
    # seat 1 just played turn 2 of 3 players: not everyone has had a turn yet
    _refused(dict(base, turns=2), "BVB-9", "phase knock needs 3..400 turns", "not 2")
    _refused(dict(base, turns=8, knocker=0), "BVB-9", "one knock per round")
    _refused({"knocker": 1}, "BVB-9", "does not play again")
    # seat 1 to move: seat 0 knocked just before (two turns left), or seat 2 did and seat 0 has played since
    assert BS.to_position(dict(EXAMPLE, knocker=0)).obs[K.O_LEFT] == 2
    assert BS.to_position(dict(EXAMPLE, knocker=2)).obs[K.O_LEFT] == 1
    _refused({"turns": 2, "knocker": 0}, "BVB-9", "turns must be 3..400, not 2")
    _refused({"turns": 3, "knocker": 2}, "BVB-9", "turns must be 4..401, not 3")


def test_refuses_turns_past_the_round_cap_bvb_12():
    _refused({"turns": 400}, "BVB-12", "round cap 400")
    _refused({"turns": 10, "rules": {"round_cap": 10}}, "BVB-12")
    _refused({"phase": "knock", "drawn": _DROP, "draw_twice": _DROP, "turns": 11, "rules": {"round_cap": 10}},
             "BVB-9", "3..10")


def test_refuses_what_the_first_turn_cannot_know_bvb_4():
    first = {"seat": 0, "turns": 0, "phase": "action", "drawn": _DROP, "draw_twice": _DROP, "discard": ["5"],
             "rows": [["1", "?", "?", "8"], ["?"] * 4, ["?"] * 4]}
    assert BS.to_position(_sit(first)).obs[K.O_PILE_N] == 66 - 13
    _refused(dict(first, rows=[["1", "?", "?", "8"], ["?", "?", "3", "?"], ["?"] * 4]), "BVB-4", "seat 1 slot 2")
    _refused(dict(first, rows=[["1", "2", "?", "8"], ["?"] * 4, ["?"] * 4]), "BVB-4", "not slot 1")
    _refused(dict(first, rows=[["1", "?", "?", "?"], ["?"] * 4, ["?"] * 4]), "BVB-4", "slot 3 is unknown")
    # with forgetting the outer cards may be forgotten at the start of the first turn (BVB-13)
    forgot = dict(first, rows=[["1", "?", "?", "?"], ["?"] * 4, ["?"] * 4], rules={"memory_loss": 0.5})
    assert BS.to_position(_sit(forgot)).obs[K.O_KNOW + 3] == -1
    _refused(dict(first, discard=["5", "6"]), "BVB-3", "not 2")


def test_refuses_other_bad_values():
    _refused({"turns": -1}, "turns", ">= 0")
    _refused({"draw_twice": "no"}, "draw_twice must be true or false")
    _refused({"rules": {"players": 3}}, "unknown key 'players'")
    _refused({"rules": {"round_cap": 0}}, "round cap")
    _refused({"rules": {"deck": 66}}, "BVB-1", "13 copy counts")
    _refused({"rules": {"deck": "4,4"}}, "13 counts")
    assert BS.to_position(_sit({"rules": {"deck": "4,4,4,4,4,4,4,4,4,9,9,7,5"}})).obs[K.O_COMP + 9] == 9
    with pytest.raises(BS.SituationError, match="given twice"):
        BS.to_position(dict(EXAMPLE, rules={}), BeverbendeRules())
    with pytest.raises(BS.SituationError, match="not valid JSON"):
        BS.load("{players: 3")


def test_situation_rules_override_and_default():
    pos = BS.to_position(dict(EXAMPLE, rules={"exchange_specials": True, "scoring": "knocker-penalty"}))
    assert pos.obs[K.O_XSPEC] == 1 and pos.ruleset.scoring == "knocker-penalty" and pos.ruleset.n_rounds == 1
    pos = BS.to_position(EXAMPLE, BeverbendeRules(players=5, memory_loss=0.1))
    assert pos.n_players == 3 and pos.ruleset.memory_loss == 0.1
    assert BS.from_obs(pos.rules, pos.obs)["rules"] == {"memory_loss": 0.1}
