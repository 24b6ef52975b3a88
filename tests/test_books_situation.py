"""Shut The Books situations at a card-play decision (sim/books_situation.py).

Every decision the step game reaches in play (STK-5) and close (STK-6) round-trips through the
situation format bit for bit; a situation the rules cannot produce is refused in one line naming
its clause (ids of seeds/shut_the_books.md).
"""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest

from ludolab.sim import books_reference as REF
from ludolab.sim import books_situation as BS
from ludolab.stdlib import books as B
from ludolab.stdlib.books import BooksRules

CASES = [(4, 1, "counts", "rulebook"), (3, 3, "ignored", "linear"), (4, 4, "counts", "exact-only")]


def _decisions(rules_arr, key, twin=REF):
    """(state, seat) at every card-play and close decision of a random step-interface playout."""
    st = np.zeros(B.GAME_STATE_SIZE, dtype=np.int64)
    twin.new_game(rules_arr, key, st)
    out = np.zeros(B.MAX_FORECAST_ACTIONS, dtype=np.int64)
    rnd = random.Random(key)
    while not twin.is_terminal(st):
        seat = int(twin.current_player(st))
        n = twin.legal_actions(rules_arr, st, out)
        if st[B.S_PHASE] == B.PH_FORECAST:
            a = out[rnd.randrange(min(n, 300))]  # forecasts of at most a few cards keep the hands long
        else:
            yield st.copy(), seat, out[:n].copy()
            a = out[rnd.randrange(n)]
        twin.apply_action(rules_arr, st, a)


@pytest.mark.parametrize("players,hands,void,scoring", CASES)
def test_every_decision_round_trips_bit_for_bit(players, hands, void, scoring):
    """to_position(from_obs(obs)) is obs, through JSON; the twin's determinize of it observes back to obs,
    and the labels of the legal actions are distinct."""
    ra = BooksRules(players, scoring=scoring, void_trump=void).game_array(hands)
    obs = np.zeros(B.GAME_STATE_SIZE, dtype=np.int64)
    seen_close = 0
    for key in (3, 4):
        for i, (st, seat, legal) in enumerate(_decisions(ra, key)):
            REF.observe(ra, st, seat, obs)
            sit = json.loads(json.dumps(BS.from_obs(ra, obs)))
            pos = BS.to_position(sit)
            assert np.array_equal(pos.obs, obs), sit
            assert np.array_equal(pos.rules, ra) and pos.seat == seat and pos.n_players == players
            labels = [BS.action_label(pos.rules, pos.obs, a) for a in legal]
            assert len(set(labels)) == len(labels)
            seen_close += st[B.S_PHASE] == B.PH_CLOSE
            if i % 7 == 0:
                world = np.zeros_like(obs)
                REF.determinize(pos.rules, pos.obs, seat, 1000 + i, world)
                back = np.zeros_like(obs)
                REF.observe(pos.rules, world, seat, back)
                assert np.array_equal(back, obs)
    assert seen_close >= 0


def test_kernel_determinize_and_observe_agree_with_the_situation():
    """The compiled kernels' determinize of a situation's observation observes back to it."""
    from ludolab.sim import books_kernels as K

    ra = BooksRules(4).game_array(1)
    back = np.zeros(K.OBS_SIZE, dtype=np.int64)
    world = np.zeros(K.STATE_SIZE, dtype=np.int64)
    obs = np.zeros(K.OBS_SIZE, dtype=np.int64)
    for i, (st, seat, legal) in enumerate(_decisions(ra, 9)):
        K.observe(ra, st, seat, obs)
        pos = BS.to_position(BS.from_obs(ra, obs))
        assert np.array_equal(pos.obs, obs)
        K.determinize(pos.rules, pos.obs, seat, 77 + i, world)
        K.observe(pos.rules, world, seat, back)
        assert np.array_equal(back, obs)
        out = np.zeros(K.MAX_ACTIONS, dtype=np.int64)
        n = K.legal_actions(pos.rules, world, out)
        assert sorted(out[:n]) == sorted(legal)


# ------------------------------------------------------------------ a hand-written situation
HAND = "R15 R9 R4 B1 B2 B5 Y1 Y9 Y14 P15 P14 P13 P1"
BASE = {"players": 4, "start": 0, "hand": HAND, "predictions": ["B3", "", "Y7 P2", "R1"],
        "tricks": [{"leader": 0, "cards": "B10 B11 B12 B13", "winner": 3, "close": None}],
        "trick": "Y2"}
#: Seat 0 leads with Y13, wins, and Y13 matches both its open B13 (number) and Y15 (colour): a close.
CLOSE = {"players": 4, "start": 0, "hand": "R15 R9 R4 B1 B2 B5 Y1 Y9 Y14 P15 P14 P13",
         "predictions": ["B13 Y15", "", "Y7 P2", "R1"], "tricks": [], "trick": "Y13 Y3 Y4 Y5"}


def test_a_written_situation_reads():
    pos = BS.to_position(BASE)
    assert pos.seat == 0 and int(pos.obs[B.S_PHASE]) == B.PH_PLAY
    back = BS.from_obs(pos.rules, pos.obs)
    assert back["hand_lasts"] == 13 and back["cards_in_hand"] == [13, 14, 12, 12]
    assert back["open"] == ["B3", "", "Y7 P2", "R1"]
    n = REF.legal_actions(pos.rules, pos.obs, np.zeros(64, dtype=np.int64))
    assert n == 3  # Y1 Y9 Y14: seat 0 must follow yellow (STK-5)
    c = BS.to_position(CLOSE)
    assert c.seat == 0 and int(c.obs[B.S_PHASE]) == B.PH_CLOSE
    out = np.zeros(64, dtype=np.int64)
    n = REF.legal_actions(c.rules, c.obs, out)
    assert [BS.action_label(c.rules, c.obs, a) for a in out[:n]] == ["close B13", "close Y15"]
    # shorthand: a trick as a card list, the start derived from the first trick's leader or the seat
    short = dict(BASE, tricks=["B10 B11 B12 B13"])
    assert np.array_equal(BS.to_position(short).obs, pos.obs)
    derived = {k: v for k, v in CLOSE.items() if k != "start"}
    lead = dict(derived, seat=0, trick="", hand=CLOSE["hand"] + " Y13")
    assert np.array_equal(BS.to_position(lead).obs, BS.to_position(dict(lead, start=0)).obs)
    assert BS.value_scope(pos) == "expected points of this hand (STK-8)"


def _with(**kw):
    s = copy.deepcopy(BASE)
    for k, v in kw.items():
        if v is None:
            s.pop(k, None)
        else:
            s[k] = v
    return s


REFUSALS = [
    # (situation, words in the message)
    (_with(colour="red"), ["unknown field 'colour'", "allowed are players"]),
    (_with(players=5), ["3 or 4", "STK-1"]),
    (_with(hand=HAND.replace("R15", "X15")), ["hand", "STK-2"]),
    (_with(hand=HAND.replace("R15", "R16")), ["not in the deck", "STK-2"]),
    (dict(BASE, players=3, predictions=["B3", "", "Y7 P2"]), ["not in the deck", "STK-2"]),
    (_with(hand=HAND.replace("R15", "B3")), ["B3", "every card is unique", "STK-1"]),
    (_with(trick="Y1"), ["Y1", "both in hand and in trick", "STK-1"]),
    (_with(predictions=["B3 B4 B6 B7 B8 B9", "", "Y7 P2", "R1"]), ["at most 5", "STK-4"]),
    (_with(predictions=["B3", ""]), ["forecast", "STK-4", "without --play"]),
    (_with(predictions=None), ["forecast", "STK-4"]),
    (_with(predictions=["B3", "", "Y7 P2", "R1", ""]), ["4 players", "STK-4"]),
    (_with(tricks=[{"leader": 0, "cards": "B10 B11 B12"}]), ["3 cards", "STK-5"]),
    (_with(trick="Y2 Y3 Y4 Y5 Y6"), ["5 cards", "STK-5"]),
    (_with(tricks=[{"leader": 1, "cards": "B10 B11 B12 B13"}]), ["leader is the starting player", "STK-5"]),
    (_with(tricks=[{"cards": "B10 B11 B12 B13", "winner": 2}]), ["won by seat 3", "STK-5"]),
    (_with(tricks=[{"cards": "B10 B11 B12 B13", "who": 2}]), ["unknown field 'who'", "STK-5"]),
    (_with(tricks=[{"cards": "B10 B11 B12 B13", "close": "R1"}]), ["extra trick", "STK-6"]),
    # seat 1 showed out of blue in trick 1, then plays a blue card (STK-5)
    (_with(tricks=["B10 Y11 B12 B13"], trick="B4 B6 B7"), ["seat 1 plays B7", "STK-5"]),
    # seat 0 (advised) did not follow blue in trick 1 but holds B1 (STK-5)
    (_with(tricks=["B11 B12 B13 Y10"], trick="B4", start=1), ["seat 0 plays Y10 but holds B1", "STK-5"]),
    (_with(hand=HAND + " P12"), ["holds 13 cards", "STK-3, STK-7"]),
    (_with(seat=2), ["seat 2 is not the one to act", "seat 0 is", "STK-5"]),
    (_with(start=7), ["start", "0..3", "STK-3"]),
    (_with(start=None, tricks=["B10 B11 B12 B13"]), ["start is missing", "STK-3"]),
    (_with(trick="Y2 Y3 Y4 Y5", hand="R15 R9 R4 B1 B2 B5 Y1 Y9 Y14 P15 P14 P13"),
     ["closes by itself", "STK-6"]),
    (_with(game={"hand_number": 1, "hands": 4, "totals": [0, 0, 0, 0]}), ["started by seat 1", "STK-9"]),
    (_with(game={"hand_number": 0, "hands": 5}), ["1..4", "STK-9"]),
    (_with(game={"hand_number": 0, "hands": 2, "totals": [9, 0, 0, 0]}), ["totals[0]", "STK-8, STK-9"]),
    (_with(game={"hand": 0}), ["unknown field 'hand'", "STK-9"]),
    (_with(open=["", "", "Y7 P2", "R1"]), ["open is", "the cards say"]),
    (_with(tricks="B10"), ["tricks", "STK-5"]),
    (_with(hand=None), ["hand is missing"]),
    (_with(scoring="exact"), ["scoring", "allowed are rulebook"]),
    ([1, 2], ["a situation is a JSON object"]),
]


@pytest.mark.parametrize("sit,words", REFUSALS)
def test_a_situation_the_rules_cannot_produce_is_refused(sit, words):
    with pytest.raises(BS.SituationError) as e:
        BS.to_position(sit)
    msg = str(e.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, msg


def test_the_hand_over_and_close_refusals():
    """A hand already over (STK-7); a close that is missing or not allowed (STK-6)."""
    # seat 3 laid 5: the hand lasts 10 tricks; 10 closed tricks leave nothing to play (STK-7)
    many = {"players": 4, "start": 0, "hand": "", "predictions": ["", "", "", "R1 R2 R3 R4 R5"]}
    deck = [f"{c}{n}" for c in "BYP" for n in range(1, 16)] + [f"R{n}" for n in range(6, 16)]
    tricks = [" ".join(deck[4 * t:4 * t + 4]) for t in range(10)]
    many["tricks"] = tricks
    with pytest.raises(BS.SituationError, match=r"lasts 10 .*STK-7"):
        BS.to_position(many)
    with pytest.raises(BS.SituationError, match=r"close is missing.*B13 and Y15.*STK-6"):
        BS.to_position(dict(CLOSE, trick="", tricks=["Y13 Y3 Y4 Y5"],
                            hand=CLOSE["hand"]))
    with pytest.raises(BS.SituationError, match=r"cannot close Y7.*matches only B13, Y15.*STK-6"):
        BS.to_position(dict(CLOSE, trick="", tricks=[{"cards": "Y13 Y3 Y4 Y5", "close": "Y7"}],
                            hand=CLOSE["hand"]))
    ok = BS.to_position(dict(CLOSE, trick="", tricks=[{"cards": "Y13 Y3 Y4 Y5", "close": "Y15"}],
                             hand=CLOSE["hand"]))
    assert BS.from_obs(ok.rules, ok.obs)["open"][0] == "B13"


def test_no_deal_fits_the_shown_voids():
    """Seats 1, 2 and 3 all showed out of blue: the blue cards nobody has seen have no holder (STK-5)."""
    sit = {"players": 4, "start": 0, "hand": "R15 R9 R4 B1 B2 B5 Y1 Y9 Y14 P15 P14 P13 P1",
           "predictions": ["", "", "", ""], "tricks": ["B10 Y11 Y12 Y13", "B11 Y3 Y4 Y5"], "trick": ""}
    with pytest.raises(BS.SituationError, match=r"no deal of the unseen cards fits.*STK-5"):
        BS.to_position(sit)


def test_from_obs_refuses_a_forecast():
    ra = BooksRules(4).game_array(1)
    st = np.zeros(B.GAME_STATE_SIZE, dtype=np.int64)
    REF.new_game(ra, 1, st)
    obs = np.zeros_like(st)
    REF.observe(ra, st, 0, obs)
    with pytest.raises(BS.SituationError, match="without --play"):
        BS.from_obs(ra, obs)
