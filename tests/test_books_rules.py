"""Shut The Books rules, clause by clause (STK-1 .. STK-9), on the data layer and both engines.

Clause ids refer to seeds/shut_the_books.md.
"""

from __future__ import annotations

import numpy as np
import pytest

from ludolab.sim import books_kernels as K
from ludolab.sim import books_reference as REF
from ludolab.stdlib import books as B
from ludolab.stdlib.books import BooksRules, CardError, RulesError, card_name, parse_card, parse_cards, score_hand
from ludolab.stdlib.errors import LudolabError


def cards(text, n=15):
    return parse_cards(text, n)


def setup(hands, preds, start=0, players=4, void_trump="counts"):
    """A state in the trick phase: hands (notation per seat, prediction cards included), predictions."""
    rules = BooksRules(players, void_trump=void_trump)
    st = REF.state_from_hands(rules.as_array(), [cards(h, rules.max_number) for h in hands], start)
    for i in range(players):
        s = (start + i) % players
        REF.apply_forecast(st, s, sorted(cards(preds[s], rules.max_number)))
    return st


# ------------------------------------------------------------------ STK-1 cards
def test_stk1_deck_sizes():
    """STK-1: 60 cards with four players (1..15), 48 with three (1..12); four colours."""
    four, three = BooksRules(4), BooksRules(3)
    assert len(four.deck) == 60 and len(set(four.deck)) == 60
    assert len(three.deck) == 48
    assert {B.number_of(c) for c in three.deck} == set(range(1, 13))
    assert {B.colour_of(c) for c in four.deck} == {0, 1, 2, 3}
    assert four.max_number == 15 and three.max_number == 12


@pytest.mark.parametrize("players", [0, 1, 2, 5, 6, True, "4"])
def test_stk1_player_counts_refused(players):
    """STK-1: only 3 or 4 players."""
    with pytest.raises(RulesError, match="3 or 4"):
        BooksRules(players)


def test_stk1_red_is_trump():
    """STK-1, STK-5: a red card beats any non-red card."""
    r1, b15 = parse_card("R1"), parse_card("B15")
    assert REF.beats(r1, b15, B.colour_of(b15))
    assert K._beats(r1, b15, B.colour_of(b15))


def test_stk1_rules_options_refused():
    """STK-6, STK-8, STK-9: unknown option values are refused naming the allowed ones."""
    with pytest.raises(LudolabError, match="rulebook"):
        BooksRules(scoring="golf")
    with pytest.raises(LudolabError, match="counts"):
        BooksRules(void_trump="maybe")
    with pytest.raises(LudolabError, match="last-start"):
        BooksRules(tie_break="coin")


# ------------------------------------------------------------------ STK-2 notation
@pytest.mark.parametrize("text, colour, number", [("R15", 0, 15), ("b1", 1, 1), ("Y3", 2, 3), ("P12", 3, 12)])
def test_stk2_card_notation(text, colour, number):
    """STK-2: colour letter R/B/Y/P then the number; lower case accepted."""
    c = parse_card(text)
    assert (B.colour_of(c), B.number_of(c)) == (colour, number)
    assert card_name(c) == text.upper()


def test_stk2_card_lists():
    """STK-2: spaces or commas between cards; the empty string is no card; a list of strings works."""
    assert parse_cards("R15 R9,B10") == parse_cards(["R15", "R9", "B10"])
    assert parse_cards("") == [] and parse_cards("  ") == []


@pytest.mark.parametrize("text, match", [("G5", "colour"), ("R16", "not in the deck"), ("R0", "not in the deck"),
                                         ("15R", "cannot read"), ("R", "cannot read"), ("R1.5", "cannot read")])
def test_stk2_bad_notation(text, match):
    """STK-2: unknown colours, numbers outside the deck and junk are refused, saying what is allowed."""
    with pytest.raises(CardError, match=match):
        parse_card(text)


def test_stk2_three_player_deck_refuses_13_to_15():
    """STK-1, STK-2: with three players B14 is not in the deck."""
    with pytest.raises(CardError, match="1..12"):
        BooksRules(3).parse_card("B14")


def test_stk2_duplicate_refused():
    """STK-2: a card named twice is refused."""
    with pytest.raises(CardError, match="twice"):
        parse_cards("R1 B2 r1")


# ------------------------------------------------------------------ STK-3 deal
@pytest.mark.parametrize("players", [3, 4])
def test_stk3_deal_is_complete_and_equal(players):
    """STK-3: the cards in play are dealt out completely, 15 (4 players) or 16 (3 players) each."""
    rules = BooksRules(players)
    st = [0] * B.STATE_SIZE
    REF.new_hand(st, rules.as_array(), 0, 12345)
    hands = [REF.hand_cards(st, s) for s in range(players)]
    assert all(len(h) == rules.hand_size for h in hands)
    assert sorted(c for h in hands for c in h) == sorted(int(c) for c in rules.deck)
    kst = np.zeros(B.STATE_SIZE, dtype=np.int16)
    K._new_hand(kst, rules.as_array(), 0, np.uint64(12345), np.zeros(K.W_SIZE, dtype=np.int64))
    assert list(kst) == st


# ------------------------------------------------------------------ STK-4 forecast
def test_stk4_forecast_order_and_hand_shrinks():
    """STK-4: forecasts go clockwise from the starting player; prediction cards leave the hand."""
    rules = BooksRules(4)
    st = [0] * B.STATE_SIZE
    REF.new_hand(st, rules.as_array(), 2, 99)
    assert st[B.S_TURN] == 2
    h = REF.hand_cards(st, 2)
    REF.apply_forecast(st, 2, h[:3])
    assert st[B.S_TURN] == 3 and st[B.NHAND + 2] == 12 and st[B.NPRED + 2] == 3
    assert all(st[B.LOC + c] == B.L_OPEN + 2 for c in h[:3])
    assert len(REF.hand_cards(st, 2)) == 12


def test_stk4_later_players_see_earlier_predictions_only():
    """STK-4: a player's observation shows earlier prediction cards and hides other hands."""
    rules = BooksRules(4)
    st = [0] * B.STATE_SIZE
    REF.new_hand(st, rules.as_array(), 0, 7)
    h0 = REF.hand_cards(st, 0)
    REF.apply_forecast(st, 0, h0[:2])
    obs = REF.observe_hand(st, 1)
    assert all(obs[B.LOC + c] == B.L_OPEN + 0 for c in h0[:2])
    assert all(obs[B.LOC + c] == B.L_HIDDEN for c in h0[2:])
    assert all(obs[B.LOC + c] == B.L_HAND + 1 for c in REF.hand_cards(st, 1))


# ------------------------------------------------------------------ STK-5 tricks
HANDS4 = ["R1 R2 B1 B2 Y1", "R3 B3 B4 Y2 Y3", "R4 B5 Y4 Y5 P1", "B6 Y6 P2 P3 P4"]


def test_stk5_follow_suit_when_able():
    """STK-5: a player holding the colour led must play it; otherwise any card."""
    st = setup(HANDS4, ["", "", "", ""])
    REF.play_card(st, parse_card("B1"))
    assert REF.legal_plays(st, 1) == cards("B3 B4")
    REF.play_card(st, parse_card("B3"))
    assert REF.legal_plays(st, 2) == cards("B5")
    REF.play_card(st, parse_card("B5"))
    assert REF.legal_plays(st, 3) == cards("B6")


def test_stk5_void_may_play_anything():
    """STK-5: a player without the colour led may play any card."""
    st = setup(HANDS4, ["", "", "", ""])
    REF.play_card(st, parse_card("Y1"))
    REF.play_card(st, parse_card("Y2"))
    REF.play_card(st, parse_card("Y4"))
    REF.play_card(st, parse_card("Y6"))
    # trick won by seat 3 (Y6), who leads purple next
    assert st[B.S_LEADER] == 3
    REF.play_card(st, parse_card("P2"))
    assert REF.legal_plays(st, 0) == REF.hand_cards(st, 0)  # seat 0 holds no purple


def test_stk5_highest_red_wins_else_highest_of_led_colour():
    """STK-5: highest red wins; with no red, the highest of the colour led; off-colour cards never win."""
    st = setup(["R1 B2 Y1", "R3 B15 Y2", "R4 B5 Y4", "B6 Y6 P15"], ["", "", "", ""])
    for c in ("B2", "B15", "B5", "B6"):
        REF.play_card(st, parse_card(c))
    assert st[B.T_WIN + 0] == 1  # B15
    # seat 1 leads Y2; seat 2 Y4; seat 3 Y6; seat 0 Y1: Y6 wins
    for c in ("Y2", "Y4", "Y6", "Y1"):
        REF.play_card(st, parse_card(c))
    assert st[B.T_WIN + 1] == 3
    st = setup(["R1 B2", "R3 B15", "R4 Y5", "B6 P15"], ["", "", "", ""])
    for c in ("B2", "B15", "R4", "P15"):  # seat 2 is void in blue and trumps; P15 never wins
        REF.play_card(st, parse_card(c))
    assert st[B.T_WIN + 0] == 2


def test_stk5_winner_leads_next():
    """STK-5: the starting player leads the first trick, the winner of a trick leads the next."""
    st = setup(HANDS4, ["", "", "", ""], start=1)
    assert st[B.S_LEADER] == 1 and st[B.S_TURN] == 1
    for c in ("B3", "B5", "B6", "B1"):
        REF.play_card(st, parse_card(c))
    assert st[B.T_WIN + 0] == 3 and st[B.S_LEADER] == 3 and st[B.S_TURN] == 3


# ------------------------------------------------------------------ STK-6 matching
def test_stk6_worked_example_1_two_matches_winner_chooses():
    """STK-6: Y13 wins against open P13 and Y3: both match; the winner chooses which to close."""
    st = setup(["Y13 P13 Y3 B1 B2", "Y1 B3 B4 B5 B6", "Y2 B7 B8 B9 B10", "Y4 B11 B12 B13 B14"],
               ["P13 Y3", "", "", ""])
    for c in ("Y13", "Y1", "Y2", "Y4"):
        REF.play_card(st, parse_card(c))
    assert st[B.S_PHASE] == B.PH_CLOSE and st[B.S_TURN] == 0
    assert REF.pending_matches(st) == cards("Y3 P13")
    REF.close_card(st, parse_card("Y3"))
    assert st[B.LOC + parse_card("Y3")] == B.L_CLOSED + 0
    assert st[B.LOC + parse_card("P13")] == B.L_OPEN + 0
    assert st[B.NCLOSED + 0] == 1 and st[B.NEXTRA + 0] == 0


def test_stk6_worked_example_2_no_match_is_extra():
    """STK-6: Y11 wins against open B2 and P9: nothing matches; an extra trick."""
    st = setup(["Y11 B2 P9 R1 R2", "Y1 B3 B4 B5 B6", "Y3 B7 B8 B9 B10", "Y4 B11 B12 B13 B14"],
               ["B2 P9", "", "", ""])
    for c in ("Y11", "Y1", "Y3", "Y4"):
        REF.play_card(st, parse_card(c))
    assert st[B.NEXTRA + 0] == 1 and st[B.NCLOSED + 0] == 0 and st[B.T_CLOSE + 0] == -1


def test_stk6_single_match_closes_it():
    """STK-6: exactly one open match closes automatically; one trick closes at most one card."""
    st = setup(["B15 B2 R7 R1 R2", "B1 R3 Y5 Y6 Y7", "B3 Y8 Y9 Y10 Y11", "B4 Y12 Y13 Y14 Y15"],
               ["B2 R7", "", "", ""])
    for c in ("B15", "B1", "B3", "B4"):
        REF.play_card(st, parse_card(c))
    assert st[B.T_CLOSE + 0] == parse_card("B2") and st[B.NCLOSED + 0] == 1
    assert st[B.LOC + parse_card("R7")] == B.L_OPEN + 0


@pytest.mark.parametrize("void_trump, closes", [("counts", True), ("ignored", False)])
def test_stk6_void_trump_counts_as_led_colour(void_trump, closes):
    """STK-6: R4 wins a blue trick for a player void in blue: with `counts` it closes an open B9."""
    st = setup(["B1 Y1 Y2 Y3 Y5", "R4 B9 Y4 Y6 Y7", "B2 Y8 Y9 Y10 Y11", "B3 Y12 Y13 Y14 Y15"],
               ["", "B9", "", ""], void_trump=void_trump)
    for c in ("B1", "R4", "B2", "B3"):
        REF.play_card(st, parse_card(c))
    assert st[B.T_WIN + 0] == 1
    assert (st[B.T_CLOSE + 0] == parse_card("B9")) is closes
    assert st[B.NEXTRA + 1] == (0 if closes else 1)


def test_stk6_red_lead_gives_no_void_bonus():
    """STK-6: the void-trump clause needs a non-red lead; on a red lead a red winner matches by red or number."""
    st = setup(["R1 Y1 Y2 Y3 Y5", "R4 B9 Y4 Y6 Y7", "R2 Y8 Y9 Y10 Y11", "R3 Y12 Y13 Y14 Y15"],
               ["", "B9", "", ""])
    for c in ("R1", "R4", "R2", "R3"):
        REF.play_card(st, parse_card(c))
    assert st[B.T_WIN + 0] == 1 and st[B.T_CLOSE + 0] == -1


def test_stk6_matching_kernel_twin():
    """STK-6: the kernel's matching gives the same open cards as the reference."""
    st = setup(["Y13 P13 Y3 B1 B2", "Y1 B3 B4 B5 B6", "Y2 B7 B8 B9 B10", "Y4 B11 B12 B13 B14"],
               ["P13 Y3", "", "", ""])
    kst = np.array(st, dtype=np.int16)
    buf = np.zeros(16, dtype=np.int64)
    n = K._matching_open(kst, 0, parse_card("Y13"), 2, buf)
    assert list(buf[:n]) == REF.matching_open(st, 0, parse_card("Y13"), 2)


# ------------------------------------------------------------------ STK-7 end of hand
def test_stk7_hand_length_is_shortest_hand():
    """STK-7: the hand lasts hand size minus the largest number of prediction cards laid."""
    rules = BooksRules(4)
    st = [0] * B.STATE_SIZE
    REF.new_hand(st, rules.as_array(), 0, 5)
    for s, k in enumerate((2, 5, 0, 3)):
        REF.apply_forecast(st, s, REF.hand_cards(st, s)[:k])
    assert st[B.S_NTRICKS] == 15 - 5
    rules3 = BooksRules(3)
    st = [0] * B.STATE_SIZE
    REF.new_hand(st, rules3.as_array(), 0, 5)
    for s in range(3):
        REF.apply_forecast(st, s, [])
    assert st[B.S_NTRICKS] == 16


def test_stk7_hand_ends_when_a_hand_is_empty():
    """STK-7: play stops when the player with the most predictions has no card; others keep cards."""
    st = setup(["R1 R2 B1 B2 Y1", "R3 B3 B4 Y2 Y3", "R4 B5 Y4 Y5 P1", "B6 Y6 P2 P3 P4"],
               ["R1 R2 B1", "", "", ""])
    assert st[B.S_NTRICKS] == 2
    for _ in range(2):
        while st[B.S_PHASE] == B.PH_PLAY:
            s = st[B.S_TURN]
            REF.play_card(st, REF.legal_plays(st, s)[0])
        if st[B.S_PHASE] == B.PH_CLOSE:
            REF.close_card(st, REF.pending_matches(st)[0])
    assert st[B.S_PHASE] == B.PH_DONE
    assert st[B.NHAND + 0] == 0 and all(st[B.NHAND + s] == 3 for s in (1, 2, 3))


# ------------------------------------------------------------------ STK-8 scoring
@pytest.mark.parametrize("open_left, extra, points", B.RULEBOOK_EXAMPLES)
def test_stk8_rulebook_examples(open_left, extra, points):
    """STK-8: the printed examples: 4, 2, -3, 2."""
    assert score_hand(open_left + extra, 3, "rulebook") == points
    assert REF.score_of(open_left + extra, 3, 0) == points
    assert K._score(open_left + extra, 3, 0) == points


@pytest.mark.parametrize("off, rulebook, exact_only, linear", [(0, 4, 15, 4), (1, 2, 0, 2), (2, -2, 0, 0),
                                                               (3, -3, 0, -2), (7, -7, 0, -10)])
def test_stk8_scoring_variants(off, rulebook, exact_only, linear):
    """STK-8: rulebook 4 / 2 / -k; exact-only 10 + tricks or 0; linear 4 - 2 off (5 tricks won here)."""
    assert score_hand(off, 5, "rulebook") == rulebook
    assert score_hand(off, 5, "exact-only") == exact_only
    assert score_hand(off, 5, "linear") == linear
    for sid, v in enumerate((rulebook, exact_only, linear)):
        assert K._score(off, 5, sid) == v == REF.score_of(off, 5, sid)


def test_stk8_zero_predictions_zero_tricks_is_exact():
    """STK-8: no prediction card and no trick is exact: 4 points."""
    assert score_hand(0, 0) == 4


def test_stk8_off_counts_open_and_extra():
    """STK-8: off = open prediction cards left + extra tricks."""
    st = setup(["Y11 B2 P9 R1 R2", "Y1 B3 B4 B5 B6", "Y3 B7 B8 B9 B10", "Y4 B11 B12 B13 B14"],
               ["B2 P9", "", "", ""])
    for c in ("Y11", "Y1", "Y3", "Y4"):
        REF.play_card(st, parse_card(c))
    assert REF.off_of(st, 0) == 2 + 1


# ------------------------------------------------------------------ STK-9 a game
def test_stk9_tie_break_last_start():
    """STK-9: ties go to the tied player first met clockwise from the last hand's starter, included."""
    assert REF.winners([5, 9, 9, 2], 3, 0) == [1]
    assert REF.winners([5, 9, 9, 2], 2, 0) == [2]
    assert REF.winners([9, 1, 9, 2], 1, 0) == [2]
    assert REF.winners([5, 9, 9, 2], 3, 1) == [1, 2]
    assert K._winner(np.array([5, 9, 9, 2]), 2, 4) == 2


@pytest.mark.parametrize("tie_break", [0, 1])
def test_stk9_kernel_game_winners_match_the_reference(tie_break):
    """STK-9: whole games in the kernel count the reference's winners, seat by seat, under both
    tie-breaks (last-start: one winner; shared: every tied player wins)."""
    from ludolab.sim.rng import py_game_state

    rules = BooksRules(3)
    P, n, key = 3, 80, 20261129
    fk, pk = np.full(P, B.F_RANDOM), np.full(P, B.P_RANDOM)
    fp, pp = np.zeros((P, B.N_PARAMS)), np.zeros((P, B.N_PARAMS))
    out = np.zeros((1, P, K.N_GSTATS))
    game_rules = rules.game_array()
    game_rules[B.R_SCORING], game_rules[B.R_TIE_BREAK] = 0, tie_break
    K._simulate_games(np.array([key], dtype=np.uint64), np.array([0]), np.array([n]), game_rules, fk, fp, pk, pp, out)
    wins, ties = [0] * P, 0
    for g in range(n):
        totals, _, _ = REF.play_game(rules.as_array(), 0, list(fk), fp.tolist(), list(pk), pp.tolist(),
                                     py_game_state(key, g))
        ties += totals.count(max(totals)) > 1
        for s in REF.winners(totals, P - 1, tie_break):
            wins[s] += 1
    assert ties > 0, "no tied game: the test needs more games"
    assert list(out[0, :, K.G_WINS]) == wins
    assert sum(wins) == n if tie_break == 0 else sum(wins) > n


def test_stk9_game_has_one_hand_per_player_and_rotating_start():
    """STK-9: as many hands as players; the start moves one seat clockwise each hand."""
    rules = BooksRules(3)
    z = [0.0] * B.N_PARAMS
    tr = []
    REF.play_game(rules.as_array(), 0, [3, 3, 3], [z] * 3, [0, 0, 0], [z] * 3, 42, tr)
    starts = [card for code, _, card in tr if code == B.A_HAND]
    assert starts == [0, 1, 2]
