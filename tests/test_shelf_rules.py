"""Shelve the Book rules as data and tableau scoring: SHB-1, SHB-2, SHB-10, SHB-11, SHB-13, SHB-15.

Clause ids refer to seeds/shelve_the_book.md.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ludolab.sim import shelf as S
from ludolab.sim import shelf_kernels as K
from ludolab.sim import shelf_reference as R
from ludolab.stdlib.errors import LudolabError
from ludolab.stdlib.shelf import (
    ASSUMED_SCHOLARS,
    KINDS,
    VARIANTS,
    DeckError,
    RulesError,
    ShelfRules,
    TableauError,
    assumed_deck,
    build_assumed_deck,
    generate_deck,
    load_deck,
    parse_tableau,
    read_deck_csv,
)


def card(field, colour, author, number):
    return {"field": field, "colour": colour, "author": author, "number": number}


#: SHB-13: a tableau holding exactly the combinations of the rulebook's worked example.
WORKED_EXAMPLE = {"shelves": [
    # top: five increasing numbers (5), field triplet (1), colour triplet (1),
    # Greenspan - Marx - Nietzsche (1) = 8
    [card("physics", "red", "Smith", 10), card("physics", "blue", "Greenspan", 12),
     card("physics", "blue", "Marx", 15), card("history", "blue", "Nietzsche", 18),
     card("economics", "green", "Adams", 30)],
    # middle: one colour on all five (5), 6-7-65 and 65-33-20 (2),
    # Blackwell-Einstein-Jung and Jung-Hegel-Austin (2) = 9
    [card("mathematics", "yellow", "Blackwell", 6), card("mathematics", "yellow", "Einstein", 7),
     card("philosophy", "yellow", "Jung", 65), card("philosophy", "yellow", "Hegel", 33),
     card("psychology", "yellow", "Austin", 20)],
    # bottom: one field on all five (5), five authors Z to A (5), 40-50-60 (1) = 11
    [card("history", "red", "Weber", 40), card("history", "red", "Rousseau", 50),
     card("history", "blue", "Locke", 60), card("history", "blue", "Kant", 55),
     card("history", "red", "Durkheim", 58)],
]}


# ------------------------------------------------------------------ SHB-13 worked example
def test_shb13_worked_example_totals_28():
    """SHB-13: 8 + 9 + 11 = 28, with exactly the combinations the rulebook lists."""
    sc = S.score_tableau(parse_tableau(WORKED_EXAMPLE))
    assert sc.total == 28
    per_shelf = Counter()
    for c in sc.combinations:
        per_shelf[c["line"]] += c["points"]
    assert per_shelf == {"shelf 1": 8, "shelf 2": 9, "shelf 3": 11}
    got = sorted((c["line"], c["kind"], tuple(c["positions"]), c["points"]) for c in sc.combinations)
    assert got == sorted([
        ("shelf 1", "number-up", (1, 2, 3, 4, 5), 5), ("shelf 1", "field", (1, 2, 3), 1),
        ("shelf 1", "colour", (2, 3, 4), 1), ("shelf 1", "author-up", (2, 3, 4), 1),
        ("shelf 2", "colour", (1, 2, 3, 4, 5), 5), ("shelf 2", "number-up", (1, 2, 3), 1),
        ("shelf 2", "number-down", (3, 4, 5), 1), ("shelf 2", "author-up", (1, 2, 3), 1),
        ("shelf 2", "author-down", (3, 4, 5), 1),
        ("shelf 3", "field", (1, 2, 3, 4, 5), 5), ("shelf 3", "author-down", (1, 2, 3, 4, 5), 5),
        ("shelf 3", "number-up", (1, 2, 3), 1),
    ])


# ------------------------------------------------------------------ SHB-10 / SHB-11 scoring
def _one_shelf(values, kind):
    """A tableau whose top shelf varies only in one attribute; other shelves score nothing."""
    base = [card("f%d" % i, "c%d" % i, "N%02d" % (10 - i), 100 + i) for i in range(5)]
    shelves = [[dict(c) for c in base] for _ in range(3)]
    for r in range(3):
        for i, c in enumerate(shelves[r]):
            c["number"] = 100 * (r + 1) + (2, 1, 4, 3, 5)[i]  # a zigzag: no run of 3
            c["author"] = ["Bb", "Aa", "Cc", "Ab", "Ca"][i] + str(r)
            c["field"] = ["f0", "f1", "f0", "f1", "f0"][i]
            c["colour"] = ["c0", "c1", "c0", "c1", "c0"][i]
    for i, v in enumerate(values):
        shelves[0][i][kind] = v
    return {"shelves": shelves}


def test_zigzag_background_scores_nothing():
    tab = _one_shelf([], "field")
    assert S.score_tableau(parse_tableau(tab)).total == 0


@pytest.mark.parametrize("values, expected", [
    (["x", "x", "x", "f1", "f0"], 1), (["x", "x", "x", "x", "f0"], 3), (["x"] * 5, 5),
    (["x", "x", "f0", "x", "x"], 0), (["f1", "x", "x", "x", "f1"], 1),
])
def test_shb10_same_field_runs(values, expected):
    """SHB-10/SHB-11: maximal runs of one field score 1/3/5 for 3/4/5 books; 2 books score nothing."""
    assert S.score_tableau(parse_tableau(_one_shelf(values, "field"))).total == expected


@pytest.mark.parametrize("values, expected", [
    ([1, 2, 3, 4, 5], 5), ([5, 4, 3, 2, 1], 5), ([1, 3, 2, 4, 5], 1 + 0), ([1, 5, 9, 2, 3], 1),
    ([3, 2, 1, 4, 5], 1 + 1), ([2, 4, 6, 5, 1], 1 + 1), ([1, 2, 3, 4, 0], 3),
])
def test_shb10_number_runs_either_way(values, expected):
    """SHB-10: strictly increasing or decreasing numbers (gaps allowed); a shared book counts in both."""
    tab = _one_shelf([], "number")
    for i, v in enumerate(values):
        tab["shelves"][0][i]["number"] = v
    assert S.score_tableau(parse_tableau(tab)).total == expected


def test_shb10_equal_numbers_break_a_sequence():
    """SHB-10: strictly ordered: alphabetical with a repeated surname does not continue."""
    tab = _one_shelf(["Adams", "Baker", "baker", "Cole", "Dunn"], "author")
    # Adams < Baker then Baker == baker (case ignored) breaks; baker < Cole < Dunn: 1 point
    assert S.score_tableau(parse_tableau(tab)).total == 1


@pytest.mark.parametrize("variant, expected", [
    ("standard", 5 + 1), ("flat", 3 + 1), ("linear", 5 + 3),
])
def test_shb11_variants_points(variant, expected):
    """SHB-11: a colour quintuplet plus a field triplet under every variant."""
    tab = _one_shelf(["k"] * 5, "colour")
    for i, v in enumerate(["a", "a", "a", "b", "b"]):
        tab["shelves"][0][i]["field"] = v
    sc = S.score_tableau(parse_tableau(tab), ShelfRules(players=2, variant=variant))
    assert sc.total == expected


def test_shb11_pairs_variant_scores_runs_of_two():
    """SHB-11 pairs: runs of 2/3 score 1/2; zigzag numbers and authors give four pairs each."""
    attrs = [(0, 0, 5, 5), (0, 1, 1, 1), (1, 2, 9, 9), (1, 3, 3, 3), (1, 4, 7, 7)]
    line = [0, 1, 2, 3, 4]
    pairs = list(VARIANTS["pairs"][0])
    assert sum(p for *_, p in R.line_runs(line, attrs, pairs)) == 1 + 2 + 4 + 4
    assert sum(p for *_, p in R.line_runs(line, attrs, list(VARIANTS["standard"][0]))) == 1


def test_shb10_columns_variant_scores_columns():
    """SHB-10 option: columns of 3 score under the columns variant only."""
    tab = _one_shelf([], "field")
    for r in range(3):
        tab["shelves"][r][0]["colour"] = "same"
    assert S.score_tableau(parse_tableau(tab)).total == 0
    assert S.score_tableau(parse_tableau(tab), ShelfRules(players=2, variant="columns")).total >= 1


@pytest.mark.xdist_group("shelf_scorer")
@settings(max_examples=60)
@given(st.lists(st.integers(0, 89), min_size=15, max_size=15, unique=True),
       st.sampled_from(sorted(VARIANTS)))
def test_kernel_scorer_equals_reference(tab, variant):
    """The kernel scorers (fast and per-kind) equal the pure-Python reference on any tableau."""
    deck = assumed_deck()
    pts, cols = VARIANTS[variant]
    attrs = deck.attrs.astype(np.int64)
    ref = R.score(tab, deck.attrs.tolist(), list(pts), cols)
    assert S.score_many(np.array([tab]), attrs, np.array(pts), cols)[0] == ref
    kinds = np.zeros((1, K.NKIND), dtype=np.int64)
    out = np.zeros(1, dtype=np.int64)
    K._score_many_kinds(np.array([tab], dtype=np.int64), attrs, np.array(pts, dtype=np.int64), int(cols), out, kinds)
    assert out[0] == ref and kinds[0].tolist() == R.score_kinds(tab, deck.attrs.tolist(), list(pts), cols)



@pytest.mark.xdist_group("shelf_scorer")  # one worker compiles the scorer for each dtype, the rest load it
@pytest.mark.parametrize("points,cols", [(v[0], v[1]) for _, v in sorted(VARIANTS.items())]
                         + [((0, 2, 1, 3, 7, 11), True), ((0, 2, 1, 3, 7, 11), False)])
def test_fast_scorer_equals_reference_on_partial_and_full_tableaus(points, cols):
    """The pair-code scorer (SHB-10, SHB-11) gives the reference's total on random full
    tableaus and on partial ones (empty places end runs), in every integer dtype it takes;
    the last two cases score runs of 1 and 2 too, so every branch of the scorer runs."""
    rng = np.random.default_rng(19)
    deck = assumed_deck()
    attrs = deck.attrs.astype(np.int64)
    n = 600
    tabs = np.argsort(rng.random((n, len(deck))), axis=1)[:, :15].astype(np.int64)
    holes = rng.random((n, 15)) < rng.random((n, 1))
    holes[: n // 3] = False  # a third full, the rest with up to every place empty
    tabs[holes] = -1
    ref = np.array([R.score([None if x < 0 else x for x in t], deck.attrs.tolist(), list(points), cols)
                    for t in tabs.tolist()])
    pts = np.array(points)
    for dtype in (np.int64, np.int32, np.int16, np.int8):
        assert np.array_equal(S.score_many(tabs.astype(dtype), attrs, pts, cols), ref)
    full = tabs[: n // 3]
    assert np.array_equal(S.score_many(full.astype(np.uint8), attrs, pts, cols), ref[: n // 3])
    for m in (1, 2, 3, 7):  # odd and even counts: uint8 tableaus are read two at a time
        assert np.array_equal(S.score_many(full[:m].astype(np.uint8), attrs, pts, cols), ref[:m])
    out = np.full(len(full), -7, dtype=np.int64)
    assert S.score_many(full.astype(np.uint8), attrs, pts, cols, out=out) is out
    assert np.array_equal(out, ref[: n // 3])
    with pytest.raises(ValueError, match="C-contiguous int64"):
        S.score_many(full, attrs, pts, cols, out=np.zeros(len(full), dtype=np.int32))
    locked = np.zeros(len(full), dtype=np.int64)
    locked.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        S.score_many(full, attrs, pts, cols, out=locked)
    bad = full[:2].copy()
    for ids, dtype, where in ((90, np.int64, "-1..89"), (-2, np.int64, "-1 an empty place"),
                              (10**6, np.int64, "outside"), (200, np.uint8, "0..89 .*no empty place")):
        b = bad.copy()
        b[1, 7] = ids
        with pytest.raises(ValueError, match=where):
            S.score_many(b.astype(dtype), attrs, pts, cols)
    for wrong, what in ((full[:, :14], "tabs must be"), (full[0], "tabs must be")):
        with pytest.raises(ValueError, match=what):
            S.score_many(wrong, attrs, pts, cols)
    with pytest.raises(ValueError, match="attrs must be"):
        S.score_many(full, attrs[:, :3], pts, cols)
    with pytest.raises(ValueError, match="points must be"):
        S.score_many(full, attrs, pts[:3], cols)
    every_other = full.astype(np.uint8)[::2]  # not contiguous: copied first
    assert np.array_equal(S.score_many(every_other, attrs, pts, cols), ref[: n // 3][::2])
    kinds = np.zeros((n, K.NKIND), dtype=np.int64)
    out = np.zeros(n, dtype=np.int64)
    K._score_many_kinds(tabs, attrs, pts.astype(np.int64), int(cols), out, kinds)
    assert np.array_equal(out, ref)

# ------------------------------------------------------------------ SHB-1 the deck
def test_shb1_assumed_deck_composition():
    """SHB-1 (ruling S1): 90 cards, 6 fields x 5 colours x 3, numbers 1..90 once, 90 distinct scholars."""
    d = assumed_deck()
    assert len(d) == 90 and d.assumed and "assumed" in d.label
    assert Counter(zip(d.fields, d.colours)) == {(f, c): 3 for f in set(d.fields) for c in set(d.colours)}
    assert len(set(d.fields)) == 6 and len(set(d.colours)) == 5
    assert sorted(d.numbers) == list(range(1, 91))
    assert len({a.casefold() for a in d.authors}) == 90
    for f, a in zip(d.fields, d.authors):
        assert a in ASSUMED_SCHOLARS[f], f"{a} is not a scholar of {f}"


def test_shb1_assumed_deck_file_is_the_fixed_seed_draw():
    """SHB-1: the checked-in data file is what the fixed seed drew (stored, not drawn at run time)."""
    assert build_assumed_deck().to_csv() == assumed_deck().to_csv()


def test_shb1_deck_csv_round_trip(tmp_path):
    d = assumed_deck()
    p = tmp_path / "deck.csv"
    p.write_text(d.to_csv())
    e = load_deck(p)
    assert e.ids == d.ids and e.numbers == d.numbers and not e.assumed
    assert np.array_equal(e.attrs, d.attrs)


GOOD = "id,field,colour,author,number\n"


@pytest.mark.parametrize("text, words", [
    ("id,field,colour,number\nA,f,c,1\n", "missing author"),
    (GOOD + "A,f,c,Kant,1\nB,f,,Hume,2\n", "card 2 (B): the colour is missing"),
    (GOOD + "A,f,c,Kant,1\nB,f,c,Hume,two\n", "number 'two' is not a whole number"),
    (GOOD + "A,f,c,Kant,1\nA,f,c,Hume,2\n", "id 'A' appears twice"),
    (GOOD + "A,f,c,Kant,1\nB,f,c,Hume,1\n", "number 1 appears twice"),
    (GOOD, "holds no card"),
    (GOOD + "A,f,c,Kant,1,extra\n", "card 1 has more fields than the header"),
    (GOOD + "A,f,c,Kant\n", "card 1 (A): the number is missing or empty"),
])
def test_shb1_bad_deck_files_are_refused(text, words):
    """SHB-1: a bad deck file is refused with one line naming the card and the problem."""
    with pytest.raises(DeckError) as e:
        read_deck_csv(text, "deck.csv")
    assert words in str(e.value) and "\n" not in str(e.value)
    assert isinstance(e.value, LudolabError)


def test_shb1_missing_deck_file(tmp_path):
    with pytest.raises(DeckError, match="cannot read deck file"):
        load_deck(tmp_path / "nope.csv")


def test_shb1_generated_decks():
    """SHB-1 option: the generator's parameters shape the deck."""
    d = generate_deck(fields=3, colours=4, numbers=(10, 200), correlation=0.0, size=60, seed=1)
    assert len(d) == 60 and len(set(d.fields)) == 3 and len(set(d.colours)) == 4
    assert min(d.numbers) >= 10 and max(d.numbers) <= 200 and len(set(d.numbers)) == 60
    full = generate_deck(fields=5, colours=5, correlation=1.0, seed=1)
    assert len(set(zip(full.fields, full.colours))) == 5  # each field its own colour
    assert generate_deck(seed=4).to_csv() == generate_deck(seed=4).to_csv()
    for bad in ({"fields": 0}, {"size": 10}, {"numbers": (1, 20)}, {"correlation": 2}):
        with pytest.raises(DeckError):
            generate_deck(**bad)


# ------------------------------------------------------------------ SHB-2 players
@pytest.mark.parametrize("players", [1, 6, 0, True, 2.5])
def test_shb2_players_out_of_range(players):
    with pytest.raises(RulesError, match="players must be 2..5"):
        ShelfRules(players=players)


def test_shb2_deck_too_small_for_the_players():
    """SHB-2: 16 cards per player are needed."""
    small = generate_deck(size=40)
    ShelfRules(players=2, deck=small)
    with pytest.raises(RulesError, match="need at least 48"):
        ShelfRules(players=3, deck=small)


def test_unknown_variant_lists_the_allowed():
    with pytest.raises(LudolabError, match="allowed are standard, flat, linear, pairs, columns"):
        ShelfRules(variant="nope")


# ------------------------------------------------------------------ SHB-15 tableau input
def _bad(mutate):
    tab = json.loads(json.dumps(WORKED_EXAMPLE))
    mutate(tab)
    return tab


@pytest.mark.parametrize("mutate, words", [
    (lambda t: t["shelves"].pop(), "exactly 3 shelves"),
    (lambda t: t["shelves"][1].pop(), "shelf 2 must hold exactly 5 cards, not 4"),
    (lambda t: t["shelves"][0][2].pop("author"), "shelf 1 position 3: the author is missing"),
    (lambda t: t["shelves"][2][0].update(field=""), "shelf 3 position 1: the field is missing or empty"),
    (lambda t: t["shelves"][0][0].update(number=1.5), "shelf 1 position 1: number 1.5 is not a whole number"),
    (lambda t: t["shelves"][0][0].update(number="x"), "number 'x' is not a whole number"),
    (lambda t: t["shelves"][2][4].update(number=6), "shelf 3 position 5: duplicate card, number 6"),
    (lambda t: t["shelves"][0].__setitem__(0, "NOPE-1"), "shelf 1 position 1: unknown card id 'NOPE-1'"),
    (lambda t: t.pop("shelves"), "a tableau is a JSON object"),
    (lambda t: t["shelves"][0].__setitem__(1, "."), "shelf 1 position 2 is empty: a scored tableau is full"),
    (lambda t: t["shelves"][1].__setitem__(0, None), "shelf 2 position 1 is empty"),
    (lambda t: t["shelves"][0][0].update(year=1), "unknown key 'year' on a card: allowed are id, field"),
    (lambda t: t["shelves"][0].__setitem__(0, 5), "a deck id or an object with field, colour, author, number, not 5"),
    (lambda t: t["shelves"][0].__setitem__(0, True), "not true"),
])
def test_shb15_malformed_tableau_refused(mutate, words):
    """SHB-15: a malformed tableau is refused with one line naming the card."""
    with pytest.raises(TableauError) as e:
        parse_tableau(_bad(mutate))
    assert words in str(e.value) and "\n" not in str(e.value)


def test_shb15_deck_ids_in_a_tableau():
    d = assumed_deck()
    ids = list(d.ids[:15])
    tab = parse_tableau({"shelves": [ids[:5], ids[5:10], ids[10:]]})
    assert tab.ids == tuple(ids)
    assert S.score_tableau(tab).total == R.score(list(range(15)), d.attrs.tolist(), [0, 0, 0, 1, 3, 5])
    with pytest.raises(TableauError, match="duplicate card"):
        parse_tableau({"shelves": [ids[:5], ids[5:10], ids[10:14] + ids[:1]]})


def test_kinds_are_six():
    assert KINDS == ("colour", "field", "number-up", "number-down", "author-up", "author-down")


def test_tableau_text_with_a_byte_order_mark():
    """A tableau given as JSON text may start with a byte-order mark; bad text is refused in plain words."""
    tab = json.dumps(WORKED_EXAMPLE)
    assert S.score_tableau(parse_tableau("\ufeff" + tab)).total == S.score_tableau(parse_tableau(tab)).total
    with pytest.raises(LudolabError, match="not valid JSON") as exc:
        parse_tableau("\ufeff{bad")
    assert "BOM" not in str(exc.value) and "utf-8-sig" not in str(exc.value)
