"""The checks every game's situation reader shares (sim/situation_common.py), each refusal in one line."""

from __future__ import annotations

import pytest

from ludolab.sim import situation_common as C
from ludolab.stdlib.errors import SituationError


@pytest.mark.parametrize("value, kw, words", [
    (True, {}, "must be a whole number 0..5, not true"),  # JSON's spelling
    (2.5, {}, "not 2.5"),
    (float("nan"), {}, "not nan"),
    (float("inf"), {}, "not inf"),
    (3.0, {"integral_floats": False}, "not 3.0"),
    ("3", {"digit_strings": False}, "not '3'"),
    ("9", {}, "not '9'"),  # in the range's form but out of it
    ("３", {}, "not '３'"),  # a fullwidth digit
    (-1, {}, "not -1"),
])
def test_whole_refuses_what_is_not_a_whole_number_in_range(value, kw, words):
    with pytest.raises(SituationError, match="^pile must be a whole number 0..5, not ") as e:
        C.whole(value, "pile", 0, 5, **kw)
    assert words in str(e.value)


def test_whole_takes_whole_numbers_and_the_forms_allowed():
    assert C.whole(5, "x", 0, 5) == 5
    assert C.whole(3.0, "x", 0, 5, integral_floats=True) == 3
    assert C.whole(" 4", "x", 0, 5, digit_strings=True) == 4
    assert C.whole(10**9, "x", 0) == 10**9
    with pytest.raises(SituationError, match="must be a whole number >= 2, not 1"):
        C.whole(1, "x", 2)


def test_check_keys_names_the_first_unknown_key_and_the_allowed_ones():
    with pytest.raises(SituationError, match="^unknown field 'b' in the trick: allowed are a, c$"):
        C.check_keys({"a": 1, "b": 2}, ("a", "c"), "the trick", word="field")
    with pytest.raises(SituationError, match=r"^the game must be a JSON object \(keys a\), not list$"):
        C.check_keys([], ("a",), "the game")
    with pytest.raises(SituationError, match="^give an object$"):
        C.check_keys(3, ("a",), "x", not_object="give an object")
    C.check_keys({"a": 1}, ("a",), "x")


def test_a_card_seen_in_two_places_is_refused_in_the_game_s_words():
    places = C.CardPlaces(lambda card, first, second: f"{card}: {first} / {second}")
    assert places.see(7, "the hand", "R7") == 7 and 7 in places
    with pytest.raises(SituationError, match="^R7: the hand / the trick$"):
        places.see(7, "the trick", "R7")


def test_per_seat_and_seat_keyed_objects():
    assert C.per_seat([1, 2], 2, lambda v: "no") == [1, 2]
    with pytest.raises(SituationError, match="^3 for 2 seats$"):
        C.per_seat([1, 2, 3], 2, lambda v: f"{len(v)} for 2 seats")
    with pytest.raises(SituationError, match="^no$"):
        C.per_seat((1, 2), 2, lambda v: "no")
    assert C.per_seat((1, 2), 2, lambda v: "no", (list, tuple)) == [1, 2]
    assert C.seat_keyed({"1": "a", "2": "b"}, lambda k: int(k) - 1, "known") == {0: "a", 1: "b"}
    with pytest.raises(SituationError, match=r'^known is an object \{"seat": card\}, not \[\]$'):
        C.seat_keyed([], int, "known")
    with pytest.raises(SituationError, match="^seat 1 twice$"):
        C.seat_keyed({"1": "a", " 1": "b"}, lambda k: int(k), "rows", twice="seat {seat} twice")
    assert C.split_cards("R1, B2  Y3") == ["R1", "B2", "Y3"]


def test_every_games_situation_reads_a_whole_number_by_the_one_rule():
    """Shut The Books' start and Beverbende's seat, written 1, 1.0 or "1", give the same position; true
    and 1.5 are refused (the rule of :func:`whole`)."""
    import numpy as np

    from test_beverbende_advise import SITUATION as BEV
    from test_books_advise_play import SIT as BOOKS
    from ludolab.sim import beverbende_situation as BV
    from ludolab.sim import books_situation as BK

    for reader, sit, key in ((BK, BOOKS, "start"), (BV, BEV, "seat")):
        want = reader.to_position(dict(sit)).obs
        for form in (float(sit[key]), str(sit[key])):
            assert np.array_equal(reader.to_position({**sit, key: form}).obs, want), (reader.__name__, form)
        for bad in (True, 1.5):
            with pytest.raises(SituationError, match="whole number"):
                reader.to_position({**sit, key: bad})
