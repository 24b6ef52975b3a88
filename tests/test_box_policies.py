"""Policy catalogue and policy tables (ludolab.sim.box): STB-4..STB-7, STB-O1.

Every catalogue policy must only play legal moves (STB-4, STB-5) with an
allowed dice count (STB-6); policy tables must round-trip through CSV and
malformed tables must be refused with a message that names the problem.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ludolab.analysis import box_tables as T
from ludolab.analysis.box import catalogue
from ludolab.sim import box as B
from ludolab.sim import box_reference as R
from ludolab.stdlib.box import BoxRules

CATALOGUE = B.POLICY_NAMES + ("worst",)

RULESETS = {
    "default": BoxRules(),
    "never": BoxRules(one_die="never"),
    "always-thai": BoxRules(tiles="1-8", one_die="always-optional", moves="thai"),
    "le6-forced-k2": BoxRules(tiles="1-8", one_die="le6-forced", max_tiles_per_move=2),
    "odd-digital": BoxRules(tiles="1,3,5,7,9,11", one_die="789-forced", score="digital"),
}


def _played(rules, pol):
    """Boolean (n_states, n_outcomes): the entries the policy can actually reach (its dice count)."""
    oc = rules.outcomes
    used = (pol.dice[:, None] == 0) | (oc.dice[None, :] == pol.dice[:, None])
    used[0] = False
    return used


@pytest.mark.parametrize("rname", list(RULESETS))
@pytest.mark.parametrize("name", CATALOGUE)
def test_stb4_stb6_catalogue_policies_are_legal(rname, name):
    """STB-4/5/6/7: every table entry is a legal move, -1 only when nothing is legal, -2 for random;
    the dice count is allowed in the state (0 = random only for the random policy)."""
    rules = RULESETS[rname]
    pol = B.make_policy(rules, name)
    oc = rules.outcomes
    assert pol.move.shape == (rules.n_states, oc.n) and pol.move.dtype == np.int16
    assert pol.dice.shape == (rules.n_states,) and pol.dice.dtype == np.int8
    for s in range(1, rules.n_states):
        if name == "random":
            assert pol.dice[s] == 0
        else:
            assert pol.dice[s] in (1, 2) and rules.dice_allowed[s] & pol.dice[s], (s, pol.dice[s])
        for o in range(oc.n):
            m = int(pol.move[s, o])
            legal = rules.legal_moves(s, o)
            if name == "random":
                assert m == -2
            elif legal:
                assert m in legal, (rules.format_state(s), oc.label[o], m)
            else:
                assert m == -1


def test_stb4_greedy_high_covers_highest_tile():
    """STB-4: greedy-high covers the highest tile any legal move can cover (ties: the highest tiles)."""
    for rules in (BoxRules(), BoxRules(tiles="1-8", max_tiles_per_move=2, one_die="le6-optional")):
        pol = B.make_policy(rules, "greedy-high")
        oc = rules.outcomes
        for s in range(1, rules.n_states):
            for o in range(oc.n):
                legal = rules.legal_moves(s, o)
                if not legal:
                    continue
                m = int(pol.move[s, o])
                top = max(max(rules.tiles_of(x)) for x in legal)
                assert top in rules.tiles_of(m)
                assert m == max(legal)


def test_stb4_fewest_and_most_tiles():
    """STB-4: fewest-tiles / most-tiles cover the fewest / most tiles among the legal moves."""
    rules = BoxRules()
    few = B.make_policy(rules, "fewest-tiles")
    most = B.make_policy(rules, "most-tiles")
    oc = rules.outcomes
    for s in range(1, rules.n_states):
        for o in range(oc.n):
            legal = rules.legal_moves(s, o)
            if not legal:
                continue
            sizes = [x.bit_count() for x in legal]
            assert int(few.move[s, o]).bit_count() == min(sizes)
            assert int(most.move[s, o]).bit_count() == max(sizes)


def test_stb4_most_options_shuts_when_it_can():
    """STB-4/STB-7: most-options covers the last tiles (shuts) whenever that is legal."""
    rules = BoxRules()
    pol = B.make_policy(rules, "most-options")
    oc = rules.outcomes
    for s in range(1, rules.n_states):
        for o in range(oc.n):
            if s in rules.legal_moves(s, o):
                assert pol.move[s, o] == s


@pytest.mark.parametrize("rname", ["default", "never", "always-thai", "le6-forced-k2", "odd-digital"])
def test_stb_o1_optimal_mean_not_worse_than_heuristics(rname):
    """STB-O1/O4: the optimal expected-score policy's exact mean is <= every heuristic's (and random's),
    and the worst policy's is >= all of them."""
    rules = RULESETS[rname]
    opt = B.evaluate(B.make_policy(rules, "optimal")).mean()
    worst = B.evaluate(B.make_policy(rules, "worst")).mean()
    for name in ("random", "greedy-high", "fewest-tiles", "most-tiles", "most-options"):
        m = B.evaluate(B.make_policy(rules, name)).mean()
        assert opt <= m + 1e-9 * max(1.0, abs(m)), name
        assert m <= worst + 1e-9 * max(1.0, abs(m)), name


def test_stb_o2_optimal_shut_policy_beats_heuristics_exactly():
    """STB-O2: with exact fractions, the max-P(shut) policy shuts at least as often as each heuristic."""
    rules = BoxRules(tiles="1-7", one_die="le6-forced")
    best = R.evaluate_exact(B.make_policy(rules, "optimal", objective="shut"))[0]
    for name in ("random", "greedy-high", "fewest-tiles", "most-tiles", "most-options"):
        assert R.evaluate_exact(B.make_policy(rules, name))[0] <= best, name


def test_make_policy_errors_and_info():
    """Policy catalogue: an unknown name is a PolicyError naming the allowed ones; info records the name."""
    rules = BoxRules(tiles="1-5")
    with pytest.raises(B.PolicyError, match="greedy-high"):
        B.make_policy(rules, "cleverest")
    assert B.make_policy(rules, "worst").info["policy"] == "worst"
    assert B.make_policy(rules, "optimal", objective="beat", target=5).info["target"] == 5
    with pytest.raises(ValueError):
        B.make_policy(rules, "optimal", objective="beat")


# --------------------------------------------------------------- policy tables
def _write(tmp_path, df, name="pol.csv"):
    path = tmp_path / name
    df.to_csv(path, index=False)
    return path


ROUNDTRIP = [
    ("never", "subset", None, "optimal"),
    ("789-optional", "subset", None, "optimal"),
    ("le6-forced", "subset", 2, "most-options"),
    ("always-optional", "thai", None, "worst"),
    ("789-forced", "subset", None, "greedy-high"),
]


@pytest.mark.parametrize("one_die, moves, k, name", ROUNDTRIP)
def test_policy_table_round_trip_moves_and_dice(tmp_path, one_die, moves, k, name):
    """STB-4/5/6: policy_table_frame -> CSV -> load_policy_table gives the same dice and the same move on
    every entry the policy plays; the exact evaluation is unchanged."""
    rules = BoxRules(one_die=one_die, moves=moves, max_tiles_per_move=k)
    pol = B.make_policy(rules, name)
    df = T.policy_table_frame(pol)
    assert list(df.columns) == ["open", "dice", "roll", "cover"]
    loaded = T.load_policy_table(rules, _write(tmp_path, df))
    used = _played(rules, pol)
    assert (loaded.move[used] == pol.move[used]).all()
    assert (loaded.dice[1:] == pol.dice[1:]).all()
    assert loaded.info["rows"] == len(df)
    assert np.array_equal(B.evaluate(loaded).final, B.evaluate(pol).final)
    # also through make_policy("table:...")
    again = catalogue(rules, (f"table:{tmp_path / 'pol.csv'}",))[0]
    assert (again.move[used] == pol.move[used]).all()


@pytest.mark.parametrize("one_die, moves, k, name", ROUNDTRIP)
def test_policy_table_round_trip_nothing_filled(tmp_path, one_die, moves, k, name):
    """STB-6: a table written by policy_table_frame gives every (state, roll) the policy can meet, so
    loading it fills nothing from greedy-high: info['filled'] == 0."""
    rules = BoxRules(one_die=one_die, moves=moves, max_tiles_per_move=k)
    pol = B.make_policy(rules, name)
    loaded = T.load_policy_table(rules, _write(tmp_path, T.policy_table_frame(pol)))
    unplayed = int((~_played(rules, pol)[1:]).sum())
    assert loaded.info["filled"] == 0, (
        f"filled={loaded.info['filled']} although the CSV gives every played (state, roll); "
        f"{unplayed} entries are rolls of a dice count the policy never rolls in that state")


def test_policy_table_value_after_column():
    """STB-O1: value_after is the solver value of the state the move leaves (NaN when no move)."""
    rules = BoxRules(tiles="1-6")
    sol = B.solve(rules)
    df = T.policy_table_frame(sol.policy(), sol.value)
    assert "value_after" in df.columns
    row = df[(df["open"] == "1 2 3 4 5 6") & (df["roll"] == "7")].iloc[0]
    cover = [int(t) for t in row["cover"].split()]
    assert row["value_after"] == sol.value[rules.full ^ rules.mask_of(cover)]
    assert df.loc[df["cover"] == "", "value_after"].isna().all()


def test_policy_table_random_is_marked():
    """STB-6 always-optional: the random policy writes 'random' for every roll of both dice counts."""
    rules = BoxRules(tiles="1-4", one_die="always-optional")
    df = T.policy_table_frame(B.make_policy(rules, "random"))
    assert (df["cover"] == "random").all()
    assert len(df) == (rules.n_states - 1) * rules.outcomes.n


def test_policy_table_partial_is_filled_with_greedy_high(tmp_path):
    """STB-4: a table giving only some rows: the rest is played by greedy-high, counted in info['filled']."""
    rules = BoxRules(one_die="never")
    df = pd.DataFrame([{"open": "1 2 3 4 5 6 7 8 9", "dice": 2, "roll": "9", "cover": "2 3 4"}])
    pol = T.load_policy_table(rules, _write(tmp_path, df))
    o = rules.roll_index(9)
    greedy = B.make_policy(rules, "greedy-high")
    assert pol.move[rules.full, o] == rules.mask_of([2, 3, 4])
    mask = np.ones(pol.move.shape, dtype=bool)
    mask[rules.full, o] = False
    assert (pol.move[mask] == greedy.move[mask]).all()
    assert pol.info["filled"] > 0


def _base_row():
    return {"open": "1 2 3 4 5 6 7 8 9", "dice": "2", "roll": "9", "cover": "4 5"}


@pytest.mark.parametrize(
    "change, pattern",
    [
        ({"cover": "2 3 5"}, "not a legal move"),          # STB-4: 2+3+5 = 10, not 9
        ({"cover": "9 1"}, "not a legal move"),
        ({"cover": ""}, "may not be empty"),              # 9 can be covered
        ({"dice": "3"}, "dice must be 1 or 2"),
        ({"dice": "1", "roll": "5", "cover": "5"}, "not allowed"),  # STB-6: one die not allowed with 7..9 open
        ({"roll": "13"}, "impossible"),
        ({"roll": "x"}, "cannot read roll"),
        ({"open": "1 2 x"}, "cannot read tiles"),
        ({"cover": "four five"}, "cannot read tiles"),
        ({"open": "1 2 10"}, "not in this box"),
        ({"open": "1 1 2"}, "twice"),
        ({"open": ""}, "empty"),
    ],
)
def test_policy_table_malformed_rows_raise(tmp_path, change, pattern):
    """STB-4/STB-6: an illegal or unreadable row raises PolicyError naming the problem and the line."""
    rules = BoxRules()
    row = {**_base_row(), **change}
    path = _write(tmp_path, pd.DataFrame([_base_row(), row]))
    with pytest.raises(B.PolicyError, match=pattern) as exc:
        T.load_policy_table(rules, path)
    assert "line 3" in str(exc.value)


def test_policy_table_missing_file(tmp_path):
    """A missing policy file raises PolicyError saying it was not found."""
    with pytest.raises(B.PolicyError, match="not found"):
        T.load_policy_table(BoxRules(), tmp_path / "nope.csv")
    with pytest.raises(B.PolicyError, match="not found"):
        catalogue(BoxRules(), (f"table:{tmp_path / 'nope.csv'}",))


@pytest.mark.parametrize("drop", ["open", "roll", "cover"])
def test_policy_table_missing_column(tmp_path, drop):
    """A table without one of the required columns raises PolicyError naming the column."""
    df = pd.DataFrame([_base_row()]).drop(columns=drop)
    with pytest.raises(B.PolicyError, match=f"missing column.*{drop}"):
        T.load_policy_table(BoxRules(), _write(tmp_path, df))


def test_policy_table_needs_dice_column_and_reads_thai_rolls(tmp_path):
    """STB-5/STB-6: the dice column is required (a state has one dice choice);
    thai tables name the dice of the roll."""
    rules = BoxRules(moves="thai", one_die="always-optional")
    no_dice = pd.DataFrame([{"open": "3 4 7", "roll": "3+4", "cover": "7"}])
    with pytest.raises(B.PolicyError, match="missing column.*dice"):
        T.load_policy_table(rules, _write(tmp_path, no_dice, "nodice.csv"))
    df = pd.DataFrame([
        {"open": "3 4 7", "dice": "2", "roll": "3+4", "cover": "7"},
        {"open": "3 4", "dice": "1", "roll": "4", "cover": "4"},
    ])
    pol = T.load_policy_table(rules, _write(tmp_path, df))
    assert pol.move[rules.mask_of([3, 4, 7]), rules.roll_index("3+4")] == rules.mask_of([7])
    assert pol.move[rules.mask_of([3, 4]), rules.roll_index("4", dice=1)] == rules.mask_of([4])
    assert pol.dice[rules.mask_of([3, 4])] == 1
    mixed = pd.DataFrame([
        {"open": "3 4 7", "dice": "2", "roll": "3+4", "cover": "7"},
        {"open": "3 4 7", "dice": "1", "roll": "4", "cover": "4"},
    ])
    with pytest.raises(B.PolicyError, match="one dice choice"):
        T.load_policy_table(rules, _write(tmp_path, mixed, "mixed.csv"))
    bad = pd.DataFrame([{"open": "3 4 7", "dice": "2", "roll": "3+4", "cover": "3 4"}])
    with pytest.raises(B.PolicyError, match="not a legal move"):
        T.load_policy_table(rules, _write(tmp_path, bad, "bad.csv"))


def test_policy_table_refuses_duplicates_empty_and_other_rules(tmp_path):
    """A table gives one move per state and roll, has rows, and is read with the
    rules it was written for (its .meta.json sidecar)."""
    rules = BoxRules(one_die="never")
    dup = pd.DataFrame([
        {"open": "1 2 3 4", "dice": "2", "roll": "5", "cover": "1 4"},
        {"open": "1 2 3 4", "dice": "2", "roll": "5", "cover": "2 3"},
    ])
    with pytest.raises(B.PolicyError, match="already have another move"):
        T.load_policy_table(rules, _write(tmp_path, dup, "dup.csv"))
    empty = pd.DataFrame(columns=["open", "dice", "roll", "cover"])
    with pytest.raises(B.PolicyError, match="no rows"):
        T.load_policy_table(rules, _write(tmp_path, empty, "empty.csv"))
    from ludolab.analysis.results import save_table

    table = T.policy_table_frame(B.solve(rules).policy())
    save_table(table, tmp_path, "nine", "csv", {"rules": rules.to_dict()})
    assert T.load_policy_table(rules, tmp_path / "nine.csv").info["filled"] == 0
    with pytest.raises(B.PolicyError, match="made for tiles"):
        T.load_policy_table(BoxRules(tiles=12, one_die="never"), tmp_path / "nine.csv")
    with pytest.raises(B.PolicyError, match="is a folder"):
        T.load_policy_table(rules, tmp_path)


@pytest.mark.parametrize("one_die, row, words", [
    ("789-optional", {"open": "1 2 3 4 5 6 7 8 9", "dice": "1", "roll": "5", "cover": "5"},
     ['1 die is not allowed here', '"789-optional" calls for two dice until every tile of 7 or more is covered']),
    ("le6-forced", {"open": "1 2", "dice": "2", "roll": "3", "cover": "1 2"},
     ['2 dice are not allowed here', '"le6-forced" calls for one die (the open tiles total 6 or less)']),
    ("never", {"open": "1 2", "dice": "1", "roll": "3", "cover": "1 2"},
     ['"never" one die is never allowed']),
])
def test_policy_table_dice_refused_with_what_the_rule_asks(tmp_path, one_die, row, words):
    """STB-6: a row rolling dice the one-die rule does not allow says what the rule asks for there."""
    path = _write(tmp_path, pd.DataFrame([row]))
    with pytest.raises(B.PolicyError) as exc:
        T.load_policy_table(BoxRules(one_die=one_die), path)
    for w in words:
        assert w in str(exc.value)
    assert "line 2" in str(exc.value)


# -------------------------------------------------------------- STB-T1 tie-breaks
@pytest.mark.parametrize("rules", [BoxRules(), BoxRules(tiles=12, one_die="never"),
                                   BoxRules(tiles="1-8", dice="3d6", max_tiles_per_move=3)], ids=lambda r: r.label())
@pytest.mark.parametrize("name", ["fewest-tiles", "most-tiles", "most-options"])
def test_stbt1_tie_groups_hold_exactly_the_tied_moves(rules, name):
    """STB-T1: under random tie-breaks each entry is the tie group of the moves the high and low
    tie-breaks choose between: all legal, all equal under the rule, and containing both choices."""
    rnd = B.make_policy(rules, name, tie_break="random")
    high = B.make_policy(rules, name).move
    low = B.make_policy(rules, name, tie_break="low").move
    assert (rnd.dice == B.make_policy(rules, name).dice).all()
    rng = np.random.default_rng(0)
    oc = rules.outcomes
    states = rng.integers(1, rules.n_states, 200)
    for s in states:
        for o in range(oc.n):
            m = int(rnd.move[s, o])
            legal = rules.legal_moves(int(s), o)
            if m <= -3:
                j = -3 - m
                group = [int(x) for x in rnd.ties[j + 1: j + 1 + rnd.ties[j]]]
                assert len(group) >= 2 and set(group) <= set(legal)
                assert max(group) == high[s, o] and min(group) == low[s, o]
                if name != "most-options":
                    assert len({g.bit_count() for g in group}) == 1
            else:
                assert m == high[s, o] == low[s, o]
    assert rnd.info["policy"] == f"{name} (random ties)"


def test_stbt1_greedy_high_never_ties_and_unknown_tie_break():
    """STB-T1: greedy-high compares tiles from the highest: every tie-break gives the same table."""
    r = BoxRules()
    g = B.make_policy(r, "greedy-high").move
    assert (B.make_policy(r, "greedy-high", tie_break="random").move == g).all()
    assert (B.make_policy(r, "greedy-high", tie_break="low").move == g).all()
    with pytest.raises(B.PolicyError, match="high, low, random"):
        B.make_policy(r, "fewest-tiles", tie_break="coin")


def test_stbt1_low_tie_break_prefers_the_lowest_tiles():
    """STB-T1: fewest tiles with a roll of 8 and 1..9 open: high covers the 8; with 8 covered, high
    plays 1 and 7, low plays 3 and 5."""
    r = BoxRules()
    k = r.roll_index("8")
    s = r.mask_of([1, 2, 3, 4, 5, 6, 7, 9])
    assert r.tiles_of(int(B.make_policy(r, "fewest-tiles").move[s, k])) == (1, 7)
    assert r.tiles_of(int(B.make_policy(r, "fewest-tiles", tie_break="low").move[s, k])) == (3, 5)


def test_stb2_policy_table_round_trip_other_dice_and_sidecar_dice(tmp_path):
    """STB-2: a 3d6 policy table reads back to the same policy; its sidecar's dice must match the rules."""
    import json

    r = BoxRules(tiles="1-6", dice="3d6")
    pol = B.solve(r).policy()
    path = tmp_path / "p.csv"
    T.policy_table_frame(pol).to_csv(path, index=False)
    (tmp_path / "p.meta.json").write_text(json.dumps({"rules": r.to_dict()}))
    back = T.load_policy_table(r, path)
    assert (back.move == pol.move).all() and (back.dice == pol.dice).all()
    with pytest.raises(B.PolicyError, match="dice 3d6 but the rules here have 2d6"):
        T.load_policy_table(BoxRules(tiles="1-6"), path)


def test_stbt1_policy_table_shows_tie_groups():
    """STB-T1: a random tie-break policy's table names each tie group's moves."""
    pol = B.make_policy(BoxRules(), "fewest-tiles", tie_break="random")
    df = T.policy_table_frame(pol)
    row = df[(df["open"] == "1 2 3 4 5 6 7 9") & (df["roll"] == "8")]
    assert row["cover"].iloc[0] == "random: 3 5 | 2 6 | 1 7"
