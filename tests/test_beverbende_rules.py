"""Beverbende rules, clause by clause (BVB-1 .. BVB-15 of seeds/beverbende.md).

Most tests script a round of the pure-Python reference engine (whose rounds
the kernels reproduce exactly, see test_beverbende_engine.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from ludolab.sim import beverbende as B
from ludolab.sim import beverbende_reference as R
from ludolab.sim.rng import py_game_state, py_shuffle
from ludolab.stdlib.beverbende import (DRAW2, PEEK, STANDARD_COMPOSITION, SWAP, BeverbendeRules, RulesError,
                                       card_name, default_rounds, parse_composition)
from ludolab.stdlib.errors import LudolabError

THR = B.make_policy("threshold")


def scripted(rows, pile, discard, players=None, start=0, know=None, **rules_kw):
    """A round in a given position: rows (list of 4-card lists), pile (top last), discard (top last)."""
    P = players or len(rows)
    used = [0] * 13
    for c in [c for r in rows for c in r] + pile + discard:
        used[c] += 1
    rules = BeverbendeRules(players=P, **rules_kw)
    r = R.Round(rules, start)
    r.rows = [list(x) for x in rows]
    r.pile = list(pile)
    r.discard = list(discard)
    r.know = know or [[[None] * 4 for _ in range(P)] for _ in range(P)]
    r.turn = start
    return r


def turn(r, decisions, st=1):
    """Play one turn of the seat to move with the scripted decisions (in order)."""
    it = iter(decisions)
    seen = []

    def chooser(obs):
        seen.append(obs)
        return next(it)

    P = r.players
    st = R.play_turn(r, [1] * P, [THR.params] * P, [0] * P, st, chooser=chooser)
    return seen, st


# ------------------------------------------------------------------ BVB-1 deck
def test_standard_deck_has_66_cards():  # BVB-1
    rules = BeverbendeRules()
    deck = rules.deck()
    assert rules.n_cards == 66 and len(deck) == 66
    assert sum(deck < 10) == 45 and sum(deck >= 10) == 21
    for v in range(9):
        assert sum(deck == v) == 4
    assert sum(deck == 9) == 9
    assert (sum(deck == SWAP), sum(deck == PEEK), sum(deck == DRAW2)) == (9, 7, 5)


def test_card_names():  # BVB-1
    assert [card_name(c) for c in (0, 9, SWAP, PEEK, DRAW2)] == ["0", "9", "SW", "PK", "D2"]


def test_special_kinds_can_be_removed_or_doubled():  # BVB-1
    r = BeverbendeRules()
    assert r.with_special("swap", 0).composition[SWAP] == 0
    assert r.with_special("peek", 2).composition[PEEK] == 14
    assert r.with_special("draw-twice", 2).n_cards == 71
    with pytest.raises(LudolabError, match="allowed are"):
        r.with_special("joker", 2)


@pytest.mark.parametrize("comp, msg", [
    ((4,) * 12, "13 counts"),
    ((4, 4, 4, 4, 4, 4, 4, 4, 4, 9, 9, 7, 21), "0..20 copies"),
    ((1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 9, 7, 5), "number cards"),
    ((4, 4, 4, 4, 4, 4, 4, 4, 4, 9, 9, 7, -1), "0..20 copies"),
])
def test_bad_compositions_are_refused(comp, msg):  # BVB-1
    with pytest.raises(RulesError, match=msg):
        BeverbendeRules(composition=comp)


def test_parse_composition():  # BVB-1
    assert parse_composition("4,4,4,4,4,4,4,4,4,9,9,7,5") == STANDARD_COMPOSITION
    with pytest.raises(RulesError, match="13 whole numbers"):
        parse_composition("4,x")


# ------------------------------------------------------------------ BVB-2 players
@pytest.mark.parametrize("p", [2, 3, 4, 5, 6])
def test_two_to_six_players(p):  # BVB-2
    assert BeverbendeRules(players=p).players == p


@pytest.mark.parametrize("p", [0, 1, 7, 2.5, True, "4"])
def test_other_player_counts_are_refused(p):  # BVB-2
    with pytest.raises(RulesError, match="2..6"):
        BeverbendeRules(players=p)


@pytest.mark.parametrize("kw, msg", [({"memory_loss": 1.5}, "between 0 and 1"), ({"scoring": "max"}, "allowed are"),
                                     ({"round_cap": 0}, "round cap"), ({"rounds": 0}, "rounds per game"),
                                     ({"knock_penalty": -1}, "knock penalty")])
def test_bad_options_are_refused(kw, msg):  # BVB-12..BVB-15
    with pytest.raises(RulesError, match=msg):
        BeverbendeRules(**kw)


# ------------------------------------------------------------------ BVB-3, BVB-4 deal and first look
@pytest.mark.parametrize("p", [2, 4, 6])
def test_deal_follows_the_shuffled_deck(p):  # BVB-3
    rules = BeverbendeRules(players=p)
    st = py_game_state(99, 3)
    deck = rules.deck().tolist()
    py_shuffle(deck, st)
    r, _, dealt = R.deal(rules, 0, st)
    assert dealt == deck
    assert r.rows == [deck[4 * q:4 * q + 4] for q in range(p)]
    assert r.discard == [deck[4 * p]]
    assert r.pile == deck[4 * p + 1:] and r.pile[-1] == deck[-1]


def test_each_player_knows_only_its_outer_cards():  # BVB-4
    rules = BeverbendeRules(players=3)
    r, _, _ = R.deal(rules, 0, py_game_state(1, 1))
    for o in range(3):
        for q in range(3):
            for s in range(4):
                expect = r.rows[q][s] if (o == q and s in (0, 3)) else None
                assert r.know[o][q][s] == expect


# ------------------------------------------------------------------ BVB-5 turn order
def test_turns_go_clockwise_from_the_starting_player():  # BVB-5
    rules = BeverbendeRules(players=4)
    r, _, _, _ = R.play_round(rules, [1] * 4, [THR.params] * 4, [0] * 4, py_game_state(5, 5), start=2)
    seats = [e[1] for e in r.events if e[0] == "turn"]
    assert seats == [(2 + i) % 4 for i in range(len(seats))]


# ------------------------------------------------------------------ BVB-6 action A
def test_take_the_discard_is_public():  # BVB-6
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, 9], discard=[9, 2])
    turn(r, [1, 0])   # take the 2 into slot 1, then do not knock
    assert r.rows[0] == [5, 2, 7, 8]
    assert r.discard == [9, 6]
    assert r.know[0][0][1] == 2 and r.know[1][0][1] == 2


def test_a_special_card_on_the_discard_cannot_be_taken():  # BVB-6
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, 9], discard=[3, SWAP])
    seen, _ = turn(r, [4, 4])   # must draw (9), then discard it
    assert R.legal(seen[0]) == [4]
    with pytest.raises(AssertionError, match="illegal"):
        turn(scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9], discard=[PEEK]), [0])


# ------------------------------------------------------------------ BVB-7 action B
def test_draw_and_exchange_is_private():  # BVB-7
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, 1], discard=[9])
    know = r.know
    know[1][0][2] = 7
    seen, _ = turn(r, [4, 2])    # draw the 1, put it in slot 2
    assert seen[1]["card"] == 1 and seen[1]["phase"] == "drawn"
    assert r.rows[0][2] == 1 and r.discard[-1] == 7
    assert r.know[0][0][2] == 1 and r.know[1][0][2] is None


def test_draw_and_discard():  # BVB-7
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, 9], discard=[1])
    turn(r, [4, 4])
    assert r.rows[0] == [5, 6, 7, 8] and r.discard == [1, 9] and r.pile == [0, 9]


def test_special_cards_are_not_exchanged_unless_the_option_says_so():  # BVB-7
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, SWAP], discard=[1])
    seen, _ = turn(r, [4, 4])
    assert R.legal(seen[1]) == [4, 5]
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, SWAP], discard=[1], exchange_specials=True)
    seen, _ = turn(r, [4, 0])
    assert R.legal(seen[1]) == [0, 1, 2, 3, 4, 5] and r.rows[0][0] == SWAP


# ------------------------------------------------------------------ BVB-8 special cards
def test_swap_moves_cards_and_what_everyone_knew():  # BVB-8
    P = 3
    know = [[[None] * 4 for _ in range(P)] for _ in range(P)]
    know[0][0][3] = 8
    know[2][1][1] = 2
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4], [0, 0, 0, 0]], pile=[0, 9, SWAP], discard=[9], know=know)
    turn(r, [4, 5, 3 * 24 + 1 * 4 + 1, 0])
    assert r.rows[0] == [5, 6, 7, 2] and r.rows[1] == [1, 8, 3, 4]
    assert r.know[0][1][1] == 8 and r.know[0][0][3] is None
    assert r.know[2][0][3] == 2 and r.know[2][1][1] is None
    assert r.discard[-1] == SWAP


def test_swap_with_oneself_is_not_allowed():  # BVB-8
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, SWAP], discard=[9])
    with pytest.raises(AssertionError, match="illegal"):
        turn(r, [4, 5, 0 * 24 + 0 * 4 + 1])


def test_peek_shows_one_own_card():  # BVB-8
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, PEEK], discard=[9])
    turn(r, [4, 5, 2, 0])
    assert r.know[0][0][2] == 7 and r.know[1][0][2] is None and r.discard[-1] == PEEK


def test_draw_twice_keep_the_first_card():  # BVB-8
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, 3, DRAW2], discard=[9])
    turn(r, [4, 5, 1, 0])
    assert r.rows[0][1] == 3 and r.pile == [0, 9] and r.discard[-2:] == [DRAW2, 6]


def test_draw_twice_discard_the_first_then_the_second():  # BVB-8
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, 3, DRAW2], discard=[9])
    seen, _ = turn(r, [4, 5, 4, 4, 0])
    assert seen[2]["first_of_two"] and not seen[3]["first_of_two"]
    assert r.rows[0] == [5, 6, 7, 8] and r.pile == [0] and r.discard[-3:] == [DRAW2, 3, 9]


def test_draw_twice_first_card_special_can_be_performed():  # BVB-8
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, PEEK, DRAW2], discard=[9])
    turn(r, [4, 5, 5, 0, 0])
    assert r.know[0][0][0] == 5 and r.pile == [0, 9]


# ------------------------------------------------------------------ BVB-9 knocking
def test_no_knock_before_every_player_has_played():  # BVB-9
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4], [1, 1, 1, 1]], pile=[0] * 5 + [9] * 6, discard=[9])
    s1, _ = turn(r, [4, 4])
    s2, _ = turn(r, [4, 4])
    assert not any(o["phase"] == "knock" for o in s1 + s2)
    s3, _ = turn(r, [4, 4, 1])
    assert s3[-1]["phase"] == "knock" and r.knocker == 2 and r.left == 2


def test_after_a_knock_every_other_player_plays_once():  # BVB-9
    rules = BeverbendeRules(players=5)
    for g in range(30):
        r, _, _, _ = R.play_round(rules, [1] * 5, [THR.params] * 5, [0] * 5, py_game_state(3, g))
        if r.knocker is None:
            continue
        ev = [e for e in r.events if e[0] in ("turn", "knock")]
        k = ev.index(["knock", r.knocker])
        after = [e[1] for e in ev[k + 1:] if e[0] == "turn"]
        assert after == [(r.knocker + i) % 5 for i in range(1, 5)]
        assert sum(1 for e in ev[:k] if e[0] == "turn") >= 5


# ------------------------------------------------------------------ BVB-10 end of round
def test_specials_are_replaced_knocker_first_until_a_number():  # BVB-10
    r = scripted([[SWAP, 1, 1, 1], [PEEK, 2, 2, DRAW2], [3, 3, 3, 3]], pile=[9, 8, 7, SWAP, 5], discard=[0])
    r.knocker = 1
    scores, _ = R.end_round(r, 1)
    # seat 1 first: slot 0 gets 5, slot 3 gets SW then 7; then seat 2 (nothing), then seat 0: 8
    assert r.rows == [[8, 1, 1, 1], [5, 2, 2, 7], [3, 3, 3, 3]]
    assert scores == [11, 16, 12]
    assert sorted(r.aside) == sorted([SWAP, PEEK, DRAW2, SWAP])


def test_round_score_is_the_sum_of_the_row():  # BVB-10
    rules = BeverbendeRules(players=3)
    r, scores, _, _ = R.play_round(rules, [1] * 3, [THR.params] * 3, [0] * 3, py_game_state(8, 1))
    assert scores == [sum(row) for row in r.rows] and all(0 <= s <= 36 for s in scores)


# ------------------------------------------------------------------ BVB-11 reshuffle
def test_empty_pile_is_rebuilt_from_the_discard_except_its_top():  # BVB-11
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[], discard=[0, 1, 2, 9, 3])
    c, _ = R.draw(r, 7)
    assert r.discard == [3]
    assert sorted(r.pile + [c]) == [0, 1, 2, 9]
    assert r.reshuffles == 1


# ------------------------------------------------------------------ BVB-12 round cap
def test_a_round_without_a_knock_ends_at_the_cap():  # BVB-12
    never = B.make_policy("threshold", knock=-1)
    out = B.simulate(BeverbendeRules(players=3, round_cap=50), never, rounds=40, seed=1, chunks=4)
    assert out["capped_rounds"] == 40 and out["mean_turns"] == 50
    assert out["reshuffles_per_round"] > 0


# ------------------------------------------------------------------ BVB-13 memory
def test_total_memory_loss_forgets_everything_at_the_start_of_the_turn():  # BVB-13
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, 9], discard=[9], memory_loss=1.0)
    r.know[0][0][0] = 5
    r.know[0][1][2] = 3
    seen = []
    R.play_turn(r, [1, 1], [THR.params] * 2, [1 << 24] * 2, 5, chooser=lambda o: seen.append(o) or 4)
    assert all(v is None for row in seen[0]["know"] for v in row)


def test_memory_loss_keeps_the_discard_pile():  # BVB-13
    r = scripted([[5, 6, 7, 8], [1, 2, 3, 4]], pile=[0, 9, 9], discard=[9, 4])
    obs = R.observe_round(r, 0, "action")
    assert obs["top"] == 4 and obs["discard_counts"][9] == 1


def test_perfect_memory_draws_no_forgetting_numbers():  # BVB-13
    rules = BeverbendeRules(players=3)
    rules_q = rules.with_changes(memory_loss=0.0)
    a = B.trace_round(rules, "threshold", 11, 2)
    b = B.trace_round(rules_q, "threshold", 11, 2)
    assert a == b and not any(e[0] == "forget" for e in a["events"])


def test_memory_loss_forgets_but_deals_the_same_cards():  # BVB-13
    rules = BeverbendeRules(players=4)
    a = B.trace_round(rules, "threshold", 11, 2)
    b = B.trace_round(rules.with_changes(memory_loss=0.5), "threshold", 11, 2)
    assert a["deal"] == b["deal"]
    assert any(e[0] == "forget" for e in b["events"])


# ------------------------------------------------------------------ BVB-14 rounds and game
@pytest.mark.parametrize("p, n", [(2, 4), (3, 3), (4, 4), (5, 5), (6, 6)])
def test_rounds_per_game(p, n):  # BVB-14
    assert default_rounds(p) == n and BeverbendeRules(players=p).n_rounds == n
    assert BeverbendeRules(players=p, rounds=2).n_rounds == 2


def test_a_game_rotates_the_start_and_adds_the_rounds():  # BVB-14
    rules = BeverbendeRules(players=3)
    st = py_game_state(4, 0)
    totals, _, _ = R.play_game(rules, [1] * 3, [THR.params] * 3, [0] * 3, st)
    acc = [0] * 3
    for rnd in range(3):
        r, raw, st, _ = R.play_round(rules, [1] * 3, [THR.params] * 3, [0] * 3, st, rnd % 3)
        assert r.start == rnd and r.events[0] == ["turn", rnd]
        acc = [a + x for a, x in zip(acc, raw)]
    assert totals == acc


def test_whole_game_win_probabilities_add_up():  # BVB-14
    df = B.simulate_games(BeverbendeRules(players=3), "threshold", games=300, seed=1, chunks=4)
    assert len(df) == 3
    assert df.p_win_alone.sum() <= 1.0 + 1e-12
    assert (df.p_win_alone.sum() + df.p_win_shared.sum()) >= 1.0 - 1e-12


# ------------------------------------------------------------------ BVB-15 scoring variants
def test_scoring_variants():  # BVB-15
    pen = BeverbendeRules(players=3, scoring="knocker-penalty", knock_penalty=5)
    assert R.round_points(pen, [10, 12, 14], 1) == [10, 17, 14]
    assert R.round_points(pen, [10, 10, 14], 0) == [15, 10, 14]   # tied is not strictly lowest
    assert R.round_points(pen, [10, 12, 14], 0) == [10, 12, 14]
    wc = BeverbendeRules(players=3, scoring="win-count")
    assert R.round_points(wc, [10, 10, 14], 0) == [1, 1, 0]
    assert R.round_points(BeverbendeRules(players=3), [10, 12, 14], 1) == [10, 12, 14]


def test_knocker_penalty_raises_the_knockers_score():  # BVB-15
    base = BeverbendeRules(players=4)
    a = B.simulate(base, "threshold:knock=14", rounds=2000, seed=3, chunks=4)
    b = B.simulate(base.with_changes(scoring="knocker-penalty"), "threshold:knock=14", rounds=2000, seed=3,
                   chunks=4)
    assert b["mean_score"] > a["mean_score"]
    assert np.isclose(b["mean_score"] - a["mean_score"],
                      5 * sum(s["knock_rate"] * (1 - (s["p_knock_wins"] or 0)) for s in a["seats"]) / 4)


def test_rows_never_touched_average_twenty():  # BVB-1, BVB-10
    """Exact value: a player who always draws and discards keeps the dealt row; each slot then ends with a
    number card uniform over the 45 (a dealt special is replaced from the pile), mean 225 / 45 = 5, so the
    row averages 20. The Monte Carlo CI must contain it."""
    idle = B.make_policy("threshold", knock=99, take=99, exchange=99, swap=99, peek=0, draw2=0)
    out = B.simulate(BeverbendeRules(players=3), idle, rounds=20_000, seed=7, chunks=8)
    lo, hi = out["mean_score_ci"]
    assert lo <= 20.0 <= hi
    assert out["mean_turns"] == 5   # seat 2 knocks at once (BVB-9), seats 0 and 1 play once more


@pytest.mark.parametrize("P", [2, 4])
def test_the_late_parameter_moves_the_knock_bar_once_a_lap_is_done(P):  # BVB-9
    """``late`` raises the knock bar for each lap of the table completed before the turn. With a bar of -1
    (never) and late=100, nobody knocks in the first lap (the last seat's first turn is its first chance,
    BVB-9) and seat 0 knocks on its second turn, turn P + 1; the others then play once more: 2P turns. The
    kernel and the pure-Python twin agree on the turns."""
    pol = B.make_policy("threshold", knock=-1, late=100)
    out = B.simulate(BeverbendeRules(players=P), pol, rounds=200, seed=3, chunks=2)
    assert out["mean_turns"] == 2 * P
    r, _, _, _ = R.play_round(BeverbendeRules(players=P), [1] * P, [pol.params] * P, [0] * P, py_game_state(5, 0))
    assert r.knocker == 0 and r.turns == 2 * P
    falling = B.make_policy("threshold", knock=99, late=-200)   # knocks at the first chance, never later
    assert B.simulate(BeverbendeRules(players=P), falling, rounds=200, seed=3, chunks=2)["mean_turns"] == 2 * P - 1
