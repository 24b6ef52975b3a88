"""Shut the Box rules as data (ludolab.stdlib.box): STB-1 .. STB-8.

Clause ids refer to seeds/shut_the_box.md.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from box_strategies import rulesets

from ludolab.stdlib.box import (
    DICE_BOTH,
    DICE_ONE,
    DICE_TWO,
    MOVE_STYLES,
    ONE_DIE_RULES,
    SCORINGS,
    BoxRules,
    RulesError,
    parse_tiles,
)

NINE = tuple(range(1, 10))


# ------------------------------------------------------------------ STB-1 tiles
@pytest.mark.parametrize(
    "spec, expected",
    [
        ("9", NINE),
        (9, NINE),
        (12, tuple(range(1, 13))),
        ("12", tuple(range(1, 13))),
        ("2", (1, 2)),
        ("1-9", NINE),
        ("4-9", (4, 5, 6, 7, 8, 9)),
        ("1,3,5,7,9,11", (1, 3, 5, 7, 9, 11)),
        ("1-3,9", (1, 2, 3, 9)),
        (" 1, 3 ,5 ", (1, 3, 5)),
        ([9, 3, 1], (1, 3, 9)),
        ((4, 5, 6), (4, 5, 6)),
        (np.int64(6), (1, 2, 3, 4, 5, 6)),
    ],
)
def test_stb1_parse_tiles_forms(spec, expected):
    """STB-1: a count N (2..12), a range, a list, ranges mixed into a list, a sequence."""
    assert parse_tiles(spec) == expected


@pytest.mark.parametrize(
    "spec",
    [0, 21, "0", "21", "9-4", "1,1", "1-3,2", "x", "", "1,21", [21], [0, 1], "4-21", [1, 1],
     [1.5, 2], [True, 2], "1;2", "-3", []],
)
def test_stb1_parse_tiles_errors(spec):
    """STB-1: counts outside 1..20, backwards ranges, repeats, junk and tiles outside 1..20 are refused."""
    with pytest.raises(RulesError):
        parse_tiles(spec)


def test_stb1_parse_tiles_error_messages_name_the_problem():
    """STB-1: the error says what is allowed."""
    with pytest.raises(RulesError, match="1..20"):
        parse_tiles(21)
    with pytest.raises(RulesError, match="backwards"):
        parse_tiles("9-4")
    with pytest.raises(RulesError, match="repeat"):
        parse_tiles("1,1")
    with pytest.raises(RulesError, match="1..20"):
        parse_tiles("1,21")
    with pytest.raises(RulesError, match="cannot read"):
        parse_tiles("x")


def test_stb1_default_box_is_nine_tiles():
    """STB-1: by default the box holds tiles 1..9; state = bitmask of open tiles."""
    r = BoxRules()
    assert r.tiles == NINE
    assert r.n_tiles == 9 and r.n_states == 512 and r.full == 511
    assert r.one_die == "789-optional" and r.moves == "subset" and r.score == "sum"
    assert r.max_tiles_per_move is None


def test_stb1_boxrules_accepts_tile_specs():
    """STB-1: BoxRules parses its tiles field like parse_tiles."""
    assert BoxRules(tiles="4-9").tiles == (4, 5, 6, 7, 8, 9)
    assert BoxRules(tiles="12").tiles == tuple(range(1, 13))
    assert BoxRules(tiles=[11, 1, 3]).tiles == (1, 3, 11)
    with pytest.raises(RulesError):
        BoxRules(tiles="1,21")


def test_stb1_boxrules_int_tile_count_is_accepted_or_refused_cleanly():
    """STB-1: ``BoxRules(tiles=12)`` is either tiles 1..12 (as parse_tiles(12)) or a RulesError,
    never an unrelated exception (the docstring promises RulesError for any invalid value)."""
    try:
        r = BoxRules(tiles=12)
    except RulesError:
        return
    assert r.tiles == tuple(range(1, 13))


def test_stb1_mask_of_and_tiles_of_round_trip():
    """STB-1: bit i stands for the i-th smallest tile; mask_of / tiles_of are inverse."""
    r = BoxRules(tiles="4-9")
    assert r.mask_of([4]) == 1
    assert r.mask_of([9, 4]) == 1 | 32
    for s in range(r.n_states):
        assert r.mask_of(r.tiles_of(s)) == s
    with pytest.raises(RulesError):
        r.mask_of([3])
    with pytest.raises(RulesError):
        r.mask_of([4, 4])
    assert r.format_state(0) == "shut"
    assert r.format_state(r.mask_of([5, 9])) == "5,9"


# ---------------------------------------------------------- ruleset validation
@pytest.mark.parametrize(
    "kwargs",
    [
        {"one_die": "sometimes"},
        {"one_die": "789"},
        {"moves": "pairs"},
        {"score": "golf"},
        {"score": "min"},
        {"moves": "thai", "max_tiles_per_move": 2},
        {"moves": "thai", "max_tiles_per_move": 1},
        {"max_tiles_per_move": 0},
        {"max_tiles_per_move": -1},
        {"max_tiles_per_move": True},
        {"max_tiles_per_move": 2.5},
        {"max_tiles_per_move": "2"},
    ],
)
def test_boxrules_rejects_invalid(kwargs):
    """STB-4/5/6/8: unknown one-die rule, move style or scoring; thai + max tiles; K < 1."""
    with pytest.raises(RulesError):
        BoxRules(**kwargs)


def test_boxrules_error_messages_list_allowed_values():
    """STB-5/6/8: messages name the allowed values or the conflict."""
    with pytest.raises(RulesError, match="789-optional"):
        BoxRules(one_die="sometimes")
    with pytest.raises(RulesError, match="thai"):
        BoxRules(moves="pairs")
    with pytest.raises(RulesError, match="digital"):
        BoxRules(score="golf")
    with pytest.raises(RulesError, match="thai"):
        BoxRules(moves="thai", max_tiles_per_move=2)


def test_boxrules_valid_combinations_and_replace():
    """STB-4..8: every listed option value is accepted; replace() validates again."""
    for od, mv, sc in itertools.product(ONE_DIE_RULES, MOVE_STYLES, SCORINGS):
        BoxRules(tiles="1-4", one_die=od, moves=mv, score=sc)
    r = BoxRules(max_tiles_per_move=np.int64(2))
    assert r.max_tiles_per_move == 2 and type(r.max_tiles_per_move) is int
    with pytest.raises(RulesError):
        r.replace(moves="thai")
    assert r.replace(max_tiles_per_move=None, moves="thai").moves == "thai"


# ------------------------------------------------------------------ STB-8 scoring
def test_stb8_sum_scoring():
    """STB-8: sum (Golf): tiles 3, 6 and 8 open score 17."""
    r = BoxRules()
    assert r.score_of(r.mask_of([3, 6, 8])) == 17
    assert r.score_of(r.full) == 45


def test_stb8_count_scoring():
    """STB-8: count (Missionary): number of open tiles."""
    r = BoxRules(score="count")
    assert r.score_of(r.mask_of([3, 6, 8])) == 3
    assert r.score_of(r.full) == 9


def test_stb8_digital_scoring():
    """STB-8: digital: {2,5} -> 25; {3,7,9,11} -> 37911 (12-tile box, two-digit tile written in full)."""
    r9 = BoxRules(score="digital")
    assert r9.score_of(r9.mask_of([2, 5])) == 25
    assert r9.score_of(r9.mask_of([5, 2])) == 25
    assert r9.score_of(r9.full) == 123456789
    r12 = BoxRules(tiles="12", score="digital")
    assert r12.score_of(r12.mask_of([3, 7, 9, 11])) == 37911
    assert r12.score_of(r12.mask_of([10, 12])) == 1012


def test_stb8_all_or_nothing_scoring():
    """STB-8: all-or-nothing: 0 when shut, 1 otherwise (lower is better)."""
    r = BoxRules(score="all-or-nothing")
    assert r.score_of(0) == 0
    assert all(r.score_of(s) == 1 for s in range(1, r.n_states))


@pytest.mark.parametrize("scoring", SCORINGS)
def test_stb8_shut_scores_zero_and_scores_table(scoring):
    """STB-8: a shut box scores 0 under every method; scores[] agrees with score_of; open box > 0."""
    r = BoxRules(tiles="1-6", score=scoring)
    sc = r.scores
    assert sc.dtype == np.int64 and sc.shape == (r.n_states,)
    assert sc[0] == 0
    assert all(sc[s] == r.score_of(s) for s in range(r.n_states))
    assert (sc[1:] > 0).all()
    assert (r.scores_under("count") == BoxRules(tiles="1-6", score="count").scores).all()


# ------------------------------------------------------------------ STB-2 dice
@pytest.mark.parametrize("moves", MOVE_STYLES)
def test_stb2_outcome_weights(moves):
    """STB-2: two-dice outcomes weigh 36 in total (totals 2..12), one-die outcomes 6 (faces 1..6)."""
    oc = BoxRules(moves=moves).outcomes
    two = oc.dice == 2
    one = oc.dice == 1
    assert oc.weight[two].sum() == 36
    assert oc.weight[one].sum() == 6
    assert set(oc.total[two]) == set(range(2, 13))
    assert sorted(oc.total[one]) == [1, 2, 3, 4, 5, 6]
    # draw maps: every ordered pair of dice lands on an outcome with that total
    for a in range(1, 7):
        assert oc.total[oc.draw_map1[a - 1]] == a and oc.dice[oc.draw_map1[a - 1]] == 1
        for b in range(1, 7):
            k = oc.draw_map2[6 * (a - 1) + (b - 1)]
            assert oc.dice[k] == 2 and oc.total[k] == a + b
            if moves == "thai":
                assert tuple(oc.faces[k]) == tuple(sorted((a, b)))
    counts = np.bincount(oc.draw_map2, minlength=oc.n)
    assert (counts[two] == oc.weight[two]).all()


# ------------------------------------------------------------------ STB-6 one die
def _allowed(rule, tiles, open_tiles):
    r = BoxRules(tiles=tiles, one_die=rule)
    return int(r.dice_allowed[r.mask_of(open_tiles)])


@pytest.mark.parametrize(
    "open_tiles, expected",
    [
        # never, 789-optional, 789-forced, le6-optional, le6-forced, always-optional
        (range(1, 10), (DICE_TWO, DICE_TWO, DICE_TWO, DICE_TWO, DICE_TWO, DICE_BOTH)),
        ((1, 2, 3, 4, 5, 6), (DICE_TWO, DICE_BOTH, DICE_ONE, DICE_TWO, DICE_TWO, DICE_BOTH)),
        ((1, 5), (DICE_TWO, DICE_BOTH, DICE_ONE, DICE_BOTH, DICE_ONE, DICE_BOTH)),
        ((6,), (DICE_TWO, DICE_BOTH, DICE_ONE, DICE_BOTH, DICE_ONE, DICE_BOTH)),
        ((1, 6), (DICE_TWO, DICE_BOTH, DICE_ONE, DICE_TWO, DICE_TWO, DICE_BOTH)),
        ((7,), (DICE_TWO, DICE_TWO, DICE_TWO, DICE_TWO, DICE_TWO, DICE_BOTH)),
        ((1, 9), (DICE_TWO, DICE_TWO, DICE_TWO, DICE_TWO, DICE_TWO, DICE_BOTH)),
        ((1, 2, 3), (DICE_TWO, DICE_BOTH, DICE_ONE, DICE_BOTH, DICE_ONE, DICE_BOTH)),
        ((1, 2, 4), (DICE_TWO, DICE_BOTH, DICE_ONE, DICE_TWO, DICE_TWO, DICE_BOTH)),
    ],
)
def test_stb6_dice_allowed_each_rule(open_tiles, expected):
    """STB-6: dice allowed by each of the six one-die rules on sample states of the 1..9 box."""
    got = tuple(_allowed(rule, "9", open_tiles) for rule in ONE_DIE_RULES)
    assert got == expected


def test_stb6_789_condition_holds_at_start_without_high_tiles():
    """STB-6: with no tile >= 7 in the box, the 789 condition already holds at the start."""
    assert _allowed("789-optional", "1-6", range(1, 7)) == DICE_BOTH
    assert _allowed("789-forced", "1-6", range(1, 7)) == DICE_ONE
    assert _allowed("le6-optional", "1-6", range(1, 7)) == DICE_TWO
    # 12-tile box: 10, 11, 12 count as "7 or higher"
    assert _allowed("789-optional", "12", (1, 2, 10)) == DICE_TWO
    assert _allowed("789-optional", "12", (1, 2, 6)) == DICE_BOTH


@pytest.mark.parametrize("rule", ONE_DIE_RULES)
def test_stb6_dice_allowed_matches_definition(rule):
    """STB-6: dice_allowed on every state of the 1..9 box equals the clause, computed independently."""
    r = BoxRules(one_die=rule)
    for s in range(r.n_states):
        open_tiles = r.tiles_of(s)
        if rule == "never":
            want = DICE_TWO
        elif rule == "always-optional":
            want = DICE_BOTH
        else:
            cond = max(open_tiles, default=0) < 7 if rule.startswith("789") else sum(open_tiles) <= 6
            want = DICE_TWO if not cond else (DICE_ONE if rule.endswith("forced") else DICE_BOTH)
        assert r.dice_allowed[s] == want, (rule, open_tiles)


@pytest.mark.parametrize("moves", MOVE_STYLES)
def test_stb6_one_die_roll_of_one_is_legal(moves):
    """STB-6: with one die a roll of 1 is an ordinary legal roll that covers tile 1."""
    r = BoxRules(moves=moves, one_die="always-optional")
    k = r.roll_index("1", dice=1)
    assert r.outcomes.dice[k] == 1 and r.outcomes.total[k] == 1
    assert r.legal_moves(r.mask_of([1, 5]), k) == [r.mask_of([1])]
    assert r.legal_moves(r.mask_of([2, 5]), k) == []  # 1 is covered: the turn ends (STB-7)
    if moves == "subset":
        assert r.roll_index("1") == k  # only one die can make a 1


def test_stb2_roll_index_errors():
    """STB-2: impossible rolls are refused (13 with two dice, 7 with one die, 1 with two dice)."""
    r = BoxRules()
    with pytest.raises(RulesError):
        r.roll_index("13")
    with pytest.raises(RulesError):
        r.roll_index("7", dice=1)
    with pytest.raises(RulesError):
        r.roll_index("1", dice=2)
    with pytest.raises(RulesError):
        r.roll_index("x")
    with pytest.raises(RulesError):
        r.roll_index("7", dice=3)
    t = BoxRules(moves="thai")
    with pytest.raises(RulesError):
        t.roll_index("7+1")
    with pytest.raises(RulesError):
        t.roll_index("7")
    with pytest.raises(RulesError):
        t.roll_index("3+4", dice=1)
    assert t.roll_index("4+3") == t.roll_index("3,4") == t.roll_index("3+4", dice=2)


# ------------------------------------------------------------------ STB-4 / STB-5 moves
def _tileset(r, masks):
    return {r.tiles_of(m) for m in masks}


def test_stb4_subset_moves_any_size():
    """STB-4: any group of open tiles totalling the roll, of any size: 9 can cover 2+3+4."""
    r = BoxRules()
    got = _tileset(r, r.legal_moves(r.full, r.roll_index(9)))
    assert got == {(9,), (1, 8), (2, 7), (3, 6), (4, 5), (1, 2, 6), (1, 3, 5), (2, 3, 4)}
    got8 = _tileset(r, r.legal_moves(r.mask_of([1, 2, 3, 5, 6, 7, 8]), r.roll_index(8)))
    assert got8 == {(8,), (1, 7), (2, 6), (3, 5), (1, 2, 5)}
    # only open tiles may be covered
    assert _tileset(r, r.legal_moves(r.mask_of([2, 3, 4]), r.roll_index(9))) == {(2, 3, 4)}
    assert r.legal_moves(r.mask_of([1, 2]), r.roll_index(9)) == []


def test_stb4_max_tiles_per_move_two_excludes_three_tile_moves():
    """STB-4: with --max-tiles-per-move 2, 3-tile moves are not legal."""
    r = BoxRules(max_tiles_per_move=2)
    got = _tileset(r, r.legal_moves(r.full, r.roll_index(9)))
    assert got == {(9,), (1, 8), (2, 7), (3, 6), (4, 5)}
    assert r.legal_moves(r.mask_of([2, 3, 4]), r.roll_index(9)) == []
    r1 = BoxRules(max_tiles_per_move=1)
    assert _tileset(r1, r1.legal_moves(r1.full, r1.roll_index(9))) == {(9,)}


def test_stb5_thai_moves():
    """STB-5: thai: cover exactly one tile equal to a die or the sum; 3+4 on {3,4,7} -> {3},{4},{7}."""
    r = BoxRules(moves="thai")
    assert _tileset(r, r.legal_moves(r.mask_of([3, 4, 7]), r.roll_index("3+4"))) == {(3,), (4,), (7,)}
    assert _tileset(r, r.legal_moves(r.full, r.roll_index("3+4"))) == {(3,), (4,), (7,)}
    # no subset moves: 1+6 / 2+5 are not thai moves for 3+4
    assert _tileset(r, r.legal_moves(r.mask_of([1, 2, 5, 6]), r.roll_index("3+4"))) == set()
    # doubles: 2+2 -> tile 2 or tile 4
    assert _tileset(r, r.legal_moves(r.full, r.roll_index("2+2"))) == {(2,), (4,)}
    # 6+6: the sum 12 is not in a 1..9 box
    assert _tileset(r, r.legal_moves(r.full, r.roll_index("6+6"))) == {(6,)}
    # one die: the tile must equal that die
    assert _tileset(r, r.legal_moves(r.full, r.roll_index("5", dice=1))) == {(5,)}


def _brute_force_moves(rules, state, outcome):
    """Independent reading of STB-4/STB-5: the legal moves as tile tuples."""
    oc = rules.outcomes
    open_tiles = rules.tiles_of(state)
    if rules.moves == "thai":
        if oc.dice[outcome] == 2:
            a, b = (int(x) for x in oc.faces[outcome])
            values = {a, b, a + b}
        else:
            values = {int(oc.faces[outcome][0])}
        return {(t,) for t in open_tiles if t in values}
    total = int(oc.total[outcome])
    kmax = rules.max_tiles_per_move or len(open_tiles)
    out = set()
    for size in range(1, min(kmax, len(open_tiles)) + 1):
        for combo in itertools.combinations(open_tiles, size):
            if sum(combo) == total:
                out.add(combo)
    return out




@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets(max_tiles=7), data=st.data())
def test_stb4_stb5_legal_moves_match_brute_force(rules, data):
    """STB-4/STB-5: legal_moves equals an independent enumeration for random boxes, states and rolls."""
    oc = rules.outcomes
    for _ in range(10):
        s = data.draw(st.integers(0, rules.full))
        o = data.draw(st.integers(0, oc.n - 1))
        got = rules.legal_moves(s, o)
        assert len(got) == len(set(got))
        assert {rules.tiles_of(m) for m in got} == _brute_force_moves(rules, s, o)


def test_stb4_count_of_coverable_state_roll_pairs():
    """STB-4/STB-7: 4040 of the 512 * 11 (state, two-dice total) pairs of the 1..9 box have a legal move."""
    r = BoxRules(one_die="never")
    oc = r.outcomes
    two = [o for o in range(oc.n) if oc.dice[o] == 2]
    assert len(two) == 11
    n = sum(1 for s in range(r.n_states) for o in two if r.legal_moves(s, o))
    assert r.n_states * len(two) == 5632
    assert n == 4040


# ------------------------------------------------------------------ messages
def test_lower_layers_never_speak_of_command_line_flags():
    """Errors raised by the rules, the solvers and the analyses are in the game's terms: only the
    command line (analysis/box_cli.py) names flags such as --dice."""
    import ast
    import re
    from pathlib import Path

    import ludolab.analysis.box
    import ludolab.analysis.box_tables
    import ludolab.sim.box
    import ludolab.stdlib.box

    flag = re.compile(r"(^|[\s'\"(])--[a-z]")
    files = [Path(ludolab.stdlib.box.__file__), Path(ludolab.analysis.box.__file__),
             Path(ludolab.analysis.box_tables.__file__)]
    files += sorted(Path(ludolab.sim.box.__file__).parent.glob("box*.py"))
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Raise):
                continue
            for part in ast.walk(node):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    assert not flag.search(part.value), f"{path.name} line {node.lineno}: {part.value!r}"


@pytest.mark.parametrize("rules, state, roll, dice, want", [
    (dict(), None, "1", 2, "two dice cannot make 1"),
    (dict(), None, "9", 1, "one die cannot make 9"),
    (dict(one_die="never"), (1, 2, 3), "3", 1, 'under the one-die rule "never" one die is never allowed'),
    (dict(one_die="never"), (1, 2, 3), "1", None, "two dice cannot make 1"),
    (dict(one_die="789-optional"), (1, 2, 8), "4", 1, "two dice until every tile of 7 or more is covered"),
    (dict(one_die="le6-optional"), (1, 6), "4", 1, "two dice until the open tiles total 6 or less"),
    (dict(one_die="le6-forced"), (1, 2), "5", 2, "calls for one die (the open tiles total 6 or less)"),
    (dict(one_die="789-forced"), (1, 2), "8", None, "one die cannot make 8"),
    (dict(moves="thai"), None, "3+4", 1, "shows two dice, not one die"),
])
def test_stb2_stb6_roll_messages(rules, state, roll, dice, want):
    """STB-2, STB-6: a roll refused for its dice says which count, and what the one-die rule asks for."""
    r = BoxRules(**rules)
    s = None if state is None else r.mask_of(state)
    with pytest.raises(RulesError) as exc:
        r.roll_index(roll, dice, state=s)
    assert want in str(exc.value)
    assert "allows only" not in str(exc.value)


# ------------------------------------------------------------- STB-2 other dice
@pytest.mark.parametrize("spec, n, sides", [("2d6", 2, 6), ("3d6", 3, 6), ("1d20", 1, 20), (" 2D4 ", 2, 4),
                                            ("8d5", 8, 5)])
def test_stb2_parse_dice(spec, n, sides):
    """STB-2: --dice NdS reads N dice of S sides."""
    from ludolab.stdlib.box import parse_dice

    assert parse_dice(spec) == (n, sides)


@pytest.mark.parametrize("spec, want", [("2x6", "NdS"), ("0d6", "1..8"), ("9d6", "1..8"), ("2d1", "2..100"),
                                        ("2d101", "2..100"), ("5d20", "at most"), ("", "NdS")])
def test_stb2_parse_dice_errors(spec, want):
    """STB-2: unreadable dice and dice beyond the limits are refused, naming what is allowed."""
    from ludolab.stdlib.box import parse_dice

    with pytest.raises(RulesError, match=want):
        parse_dice(spec)


def _ways(n, sides):
    """Ordered results of n dice of the given sides by total, by brute force."""
    out = {}
    for faces in itertools.product(range(1, sides + 1), repeat=n):
        out[sum(faces)] = out.get(sum(faces), 0) + 1
    return out


@pytest.mark.parametrize("dice", ["2d6", "3d6", "1d8", "2d4", "4d3", "2d10"])
def test_stb2_outcome_table_of_any_dice(dice):
    """STB-2: the full roll's outcomes are the totals N..N*S weighted by their ways out of S**N, one die's
    the faces 1..S out of S; each draw of the map lands on the outcome of its total."""
    n, sides = int(dice.split("d")[0]), int(dice.split("d")[1])
    r = BoxRules(tiles="1-6", dice=dice, one_die="never" if n == 1 else "always-optional")
    oc = r.outcomes
    ways = _ways(n, sides)
    full = [k for k in range(oc.n) if oc.dice[k] == 2]
    assert [int(oc.total[k]) for k in full] == list(range(n, n * sides + 1))
    assert [int(oc.weight[k]) for k in full] == [ways[t] for t in range(n, n * sides + 1)]
    assert all(int(oc.den[k]) == sides ** n for k in full)
    assert abs(sum(oc.prob[k] for k in full) - 1) < 1e-12
    assert len(oc.draw_map2) == sides ** n and len(oc.draw_map1) == sides
    for u, faces in enumerate(itertools.product(range(1, sides + 1), repeat=n)):
        assert oc.total[oc.draw_map2[u]] == sum(faces)
    if n > 1:
        one = [k for k in range(oc.n) if oc.dice[k] == 1]
        assert [int(oc.total[k]) for k in one] == list(range(1, sides + 1))
        assert all(oc.prob[k] == 1 / sides for k in one)
    assert oc.n == r.n_outcomes


def test_stb2_two_dice_table_unchanged():
    """STB-2: 2d6 keeps its outcome table: totals 2..12 then faces 1..6, draw u = 6*(a-1)+(b-1)."""
    oc = BoxRules().outcomes
    assert list(oc.total) == list(range(2, 13)) + list(range(1, 7))
    assert list(oc.weight) == [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1] + [1] * 6
    for a in range(1, 7):
        for b in range(1, 7):
            assert oc.total[oc.draw_map2[6 * (a - 1) + (b - 1)]] == a + b


def test_stb2_rolls_no_tiles_can_use_end_the_turn():
    """STB-2, STB-7: with 3d6 a total of 3 has no move once the 3 and the 1 are covered."""
    r = BoxRules(tiles=9, dice="3d6")
    k = r.roll_index("3")
    assert r.outcomes.dice[k] == 2
    assert r.legal_moves(r.mask_of([2, 4, 5]), k) == []
    assert sorted(r.legal_moves(r.mask_of([1, 2, 3]), k)) == sorted([r.mask_of([3]), r.mask_of([1, 2])])
    with pytest.raises(RulesError, match="three dice"):
        r.roll_index("2", dice=2)
    assert r.outcomes.dice[r.roll_index("2")] == 1  # only one die makes 2


def test_stb2_single_die_and_thai_dice():
    """STB-2: a single die has no one-die rule; thai moves need two dice; labels name other dice."""
    r = BoxRules(dice="1d20", tiles=20, one_die="never")
    assert r.n_outcomes == 20 and r.outcomes.n == 20 and (r.dice_allowed == DICE_TWO).all()
    assert r.roll_index("17") == r.roll_index("17", dice=1)
    assert "dice 1d20" in r.label() and r.to_dict()["dice"] == "1d20"
    assert "dice" not in BoxRules().label()
    with pytest.raises(RulesError, match="single die"):
        BoxRules(dice="1d20")
    with pytest.raises(RulesError, match="2 dice"):
        BoxRules(moves="thai", dice="3d6")
    t = BoxRules(moves="thai", dice="2d4")
    assert t.n_outcomes == t.outcomes.n == 10 + 4


# ------------------------------------------------------------ STB-1 up to 20 tiles
def test_stb1_up_to_twenty_tiles_and_a_single_tile():
    """STB-1: 1..20 tiles; a single tile; the move tables widen beyond 15 tiles."""
    assert parse_tiles(20) == tuple(range(1, 21)) and parse_tiles("20") == tuple(range(1, 21))
    assert parse_tiles(1) == (1,) and parse_tiles("7") == tuple(range(1, 8)) and parse_tiles([5]) == (5,)
    assert parse_tiles("13-20") == tuple(range(13, 21))
    one = BoxRules(tiles=[5])
    assert one.n_states == 2 and one.scores.tolist() == [0, 5]
    r = BoxRules(tiles=20)
    assert r.n_states == 1 << 20 and r.move_dtype == np.int32 and BoxRules(tiles=15).move_dtype == np.int16
    assert int(r.scores[r.full]) == 210


def test_stb1_solver_table_limit_is_one_clear_line():
    """STB-1: a box whose policy table passes 2**25 entries is refused with the limit named."""
    from ludolab.stdlib.box import MAX_TABLE_ENTRIES

    assert MAX_TABLE_ENTRIES == 1 << 25
    for dice in ("2d6", "3d6", "4d6"):
        BoxRules(tiles=20, dice=dice)
    BoxRules(tiles=20, dice="1d20", one_die="never")
    with pytest.raises(RulesError) as exc:
        BoxRules(tiles=20, dice="4d20")
    msg = str(exc.value)
    assert "\n" not in msg and "33,554,432" in msg and "4d20" in msg


def test_stb8_digital_scoring_digit_limit():
    """STB-1, STB-8: digital scores of more than 18 digits are refused; 1..13 fits."""
    assert BoxRules(tiles=13, score="digital").scores[-1] == 12345678910111213
    with pytest.raises(RulesError, match="18 digits"):
        BoxRules(tiles=14, score="digital")


def test_stb8_vectorised_scores_match_score_of():
    """STB-8: the score table equals score_of state by state, every scoring."""
    for sc in SCORINGS:
        r = BoxRules(tiles="1,3,4,8,11", score=sc)
        assert r.scores.tolist() == [r.score_of(s) for s in range(r.n_states)]


# ------------------------------------------------------------ STB-6 the family
FAMILY = ["never", "always-optional", "sum-le-6-optional", "sum-le-6-forced", "sum-lt-6-optional",
          "sum-lt-6-forced", "max-le-6-optional", "max-le-9-forced", "only-1-optional", "only-1-forced",
          "sum-le-0-forced", "sum-lt-13-optional", "max-le-3-forced"]


@pytest.mark.parametrize("rule", FAMILY)
@pytest.mark.parametrize("tiles", ["1-9", "12", "2,4,6,8"])
def test_stb6_one_die_family_state_by_state(rule, tiles):
    """STB-6: each family rule allows one die exactly where its condition holds (brute force)."""
    from ludolab.stdlib.box import parse_one_die

    r = BoxRules(tiles=tiles, one_die=rule)
    cond_name, k, forced = parse_one_die(rule)
    for s in range(r.n_states):
        open_tiles = r.tiles_of(s)
        cond = {"never": False, "always": True,
                "sum-le": sum(open_tiles) <= (k or 0), "sum-lt": sum(open_tiles) < (k or 0),
                "max-le": max(open_tiles, default=0) <= (k or 0), "only-1": open_tiles == (1,)}[cond_name]
        if cond_name == "always":
            want = DICE_BOTH
        elif not cond:
            want = DICE_TWO
        else:
            want = DICE_ONE if forced else DICE_BOTH
        assert r.dice_allowed[s] == want, (rule, open_tiles)


@pytest.mark.parametrize("old, new", [("789-optional", "max-le-6-optional"), ("789-forced", "max-le-6-forced"),
                                      ("le6-optional", "sum-le-6-optional"), ("le6-forced", "sum-le-6-forced")])
def test_stb6_todays_names_are_family_aliases(old, new):
    """STB-6: the older one-die names are family members; the name given is kept."""
    from ludolab.stdlib.box import parse_one_die

    assert parse_one_die(old) == parse_one_die(new)
    for tiles in ("1-9", "12", "4-9"):
        assert (BoxRules(tiles=tiles, one_die=old).dice_allowed == BoxRules(tiles=tiles, one_die=new).dice_allowed).all()
    assert BoxRules(one_die=old).one_die == old


def test_stb6_strict_and_loose_thresholds_differ_by_one():
    """STB-6: sum-lt-K is sum-le-(K-1)."""
    for k in (1, 6, 10):
        a = BoxRules(tiles=12, one_die=f"sum-lt-{k}-forced").dice_allowed
        assert (a == BoxRules(tiles=12, one_die=f"sum-le-{k - 1}-forced").dice_allowed).all()


@pytest.mark.parametrize("rule", ["sum-le-6", "sum-6-forced", "le7-forced", "max-le-x-optional", "only-2-forced",
                                  "always-forced", "sum-lt-1001-forced", 6])
def test_stb6_family_errors_name_the_forms(rule):
    """STB-6: a one-die rule outside the family is refused, naming the allowed forms."""
    with pytest.raises(RulesError, match="sum-lt-K|K must|give its name"):
        BoxRules(one_die=rule)


def test_stb6_family_messages_in_the_games_terms():
    """STB-6: the roll messages name the family rule's condition."""
    r = BoxRules(tiles=12, one_die="sum-lt-6-forced")
    with pytest.raises(RulesError, match="calls for one die \\(the open tiles total less than 6\\)"):
        r.roll_index("5", dice=2, state=r.mask_of([1, 4]))
    r = BoxRules(one_die="only-1-optional")
    with pytest.raises(RulesError, match="two dice until only tile 1 is left open"):
        r.roll_index("1", dice=1, state=r.mask_of([1, 2]))
