"""Rules of thumb (STB-T2, seeds/shut_the_box.md): lexicographic preferences, their exact search and cost,
where a rule goes wrong, and the strategy card."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from ludolab.analysis.outputs import MANIFEST
from ludolab.analysis.cli import cli, main
from ludolab.sim import box
from ludolab.sim import box_thumb as T
from ludolab.stdlib.box import BoxRules

DEFAULT = BoxRules()


def run(*args):
    res = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res


def run_error(capsys, *args) -> str:
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert exc.value.code == 2 and len(lines) == 1 and lines[0].startswith("Error:") and out == "", err
    return lines[0]


@pytest.mark.parametrize("rules", [DEFAULT, BoxRules(tiles=10, one_die="le6-optional")])
@pytest.mark.parametrize("name, keys", [("greedy-high", ("highest-tile",)), ("fewest-tiles", ("fewest-tiles",)),
                                        ("most-tiles", ("most-tiles",)),
                                        ("most-options", ("best-cover", "most-ways"))])
def test_named_heuristics_are_rules_of_thumb(rules, name, keys):
    # STB-T2: the catalogue's heuristics are one- and two-preference rules with the "cover" dice habit
    named = box.make_policy(rules, name)
    rule = T.thumb_policy(rules, keys, "cover")
    assert np.array_equal(named.move, rule.move)
    assert np.array_equal(named.dice, rule.dice)


def test_preferences_are_read_in_order():
    # STB-T2: open 1,2,3,7,8 and a roll of 8: the moves are the 8 alone or the 1 and 7
    rules = DEFAULT
    s = rules.mask_of((1, 2, 3, 7, 8))
    o = rules.roll_index(8, dice=2)

    def cover(keys):
        return rules.tiles_of(int(T.thumb_policy(rules, keys).move[s, o]))

    assert cover(("fewest-tiles",)) == (8,)
    assert cover(("most-tiles",)) == (1, 7)
    assert cover(("lowest-top", "most-tiles")) == (8,)  # covering 8 leaves 7 as the highest open tile
    assert cover(("most-tiles", "lowest-top")) == (1, 7)


def test_search_counts_and_costs():
    # STB-T2: 8 + 56 + 336 preference lists, times 3 dice habits where the one-die rule gives a choice
    df = T.search_rules_of_thumb(DEFAULT)
    assert df.attrs["tried"] == 3 * (8 + 8 * 7 + 8 * 7 * 6)
    assert T.search_rules_of_thumb(DEFAULT.replace(one_die="never"), max_keys=2).attrs["tried"] == 8 + 8 * 7
    assert (df["cost"] >= 0).all() and df["cost"].is_monotonic_increasing
    opt = box.solve(DEFAULT).start_value
    assert df["optimal"].iloc[0] == pytest.approx(opt)
    assert df["cost"].to_numpy() == pytest.approx(df["mean_score"].to_numpy() - opt)
    # the catalogue's heuristics lie inside the search, so the best rule is at least as good
    for name in ("greedy-high", "fewest-tiles", "most-options"):
        assert df["mean_score"].iloc[0] <= box.evaluate(box.make_policy(DEFAULT, name)).mean() + 1e-12
    assert df["rule"].is_unique


def test_search_values_are_exact_evaluations():
    # STB-T2: the search's one-pass evaluation agrees with the exact forward pass of the full table
    for objective in ("expected-score", "shut"):
        df = T.best_rules_of_thumb(DEFAULT, objective, top=4)
        for _, row in df.iterrows():
            keys, habit = T.parse_rule(row["rule"])
            ev = box.evaluate(T.thumb_policy(DEFAULT, keys, habit))
            assert row["mean_score"] == pytest.approx(ev.mean(), abs=1e-12)
            assert row["p_shut"] == pytest.approx(ev.p_shut, abs=1e-14)


def test_beat_objective_and_survey():
    df = T.best_rules_of_thumb(BoxRules(tiles=6), "beat", target=5, top=2)
    assert df.attrs["objective"] == "max P(score < 5)"
    assert (df["value"] <= df["optimal"] + 1e-12).all()
    survey = T.thumb_survey(BoxRules(tiles=5), one_die_rules=("never", "le6-optional"), top=2)
    assert set(survey["one_die"]) == {"never", "le6-optional"}
    assert set(survey["objective"]) == {"min E[score]", "max P(shut)"}
    assert list(survey["rank"][:2]) == [1, 2]


def test_exceptions_say_what_to_do_instead():
    # STB-T2: each listed situation loses value against the optimal choice; fixing it would gain exactly that
    keys = ("fewest-tiles", "lowest-top", "best-cover")
    exc = T.thumb_exceptions(DEFAULT, keys, "cover", top=None)
    assert len(exc) > 0 and (exc["loss"] > 0).all()
    assert exc["expected_loss"].is_monotonic_decreasing
    sol = box.solve(DEFAULT)
    row = exc[exc["roll"].notna()].iloc[0]
    s = DEFAULT.mask_of(map(int, row["open"].split(",")))
    left = s ^ DEFAULT.mask_of(map(int, row["rule_plays"].split(",")))
    better = s ^ DEFAULT.mask_of(map(int, row["instead"].split(",")))
    assert row["loss"] == pytest.approx(sol.value[left] - sol.value[better])
    # the optimal policy itself has nothing to fix: a rule that never loses lists nothing
    tiny = BoxRules(tiles=(1, 2), one_die="never")
    assert len(T.thumb_exceptions(tiny, ("highest-tile",))) == 0


def test_bad_rules_are_refused():
    with pytest.raises(T.ThumbError, match="unknown preference 'biggest'"):
        T.parse_rule("biggest > fewest-tiles")
    with pytest.raises(T.ThumbError, match="listed twice"):
        T.thumb_policy(DEFAULT, ("fewest-tiles", "fewest-tiles"))
    with pytest.raises(T.ThumbError, match="1 to 3 preferences"):
        T.thumb_policy(DEFAULT, ("fewest-tiles", "most-ways", "lowest-top", "highest-tile"))
    with pytest.raises(T.ThumbError, match="dice habit"):
        T.parse_rule("fewest-tiles; dice sometimes")
    assert T.parse_rule("fewest-tiles > lowest-top; dice one") == (("fewest-tiles", "lowest-top"), "one")
    words = T.describe_rule(DEFAULT, ("fewest-tiles", "most-ways"), "cover")
    assert words[0] == "Cover as few tiles as possible" and len(words) == 3


def test_cli_thumb_and_card(tmp_path, capsys):
    out = json.loads(run("box", "thumb", "--tiles", "5", "--top", "2", "--format", "json").stdout)
    assert out["objective"] == "min E[score]" and len(out["rows"]) == 2
    assert out["rows"][0]["cost"] >= 0
    csv = run("box", "thumb", "--tiles", "4", "--every-one-die", "--top", "1", "--format", "csv").stdout
    assert csv.splitlines()[0].startswith("one_die,objective,rank,rule")
    run("box", "thumb", "--tiles", "5", "--top", "3", "--out", tmp_path / "t")
    assert {"thumb_rules.csv", "thumb_rules.meta.json", "thumb_rules.png"} <= {p.name for p in (tmp_path / "t").iterdir()}
    card = json.loads(run("box", "card", "--tiles", "6", "--format", "json").stdout)
    assert card["cost"] >= 0 and card["words"][0][0].isupper()
    players = [r["player"] for r in card["compare"]]
    assert players[0] == "random" and "this rule of thumb" in players and players[-1] == "foresight"
    mine = card["compare"][players.index("this rule of thumb")]
    assert mine["mean_score"] == pytest.approx(card["mean_score"]) and mine["policy"] == card["rule"]
    assert all(isinstance(r["open"], list) for r in card["rows"])
    run("box", "card", "--tiles", "6", "--out", tmp_path / "c")
    files = {p.name for p in (tmp_path / "c").iterdir()}
    assert {"strategy_card.png", "strategy_card.pdf", "strategy_card_exceptions.csv"} <= files
    assert (tmp_path / "c" / "strategy_card.pdf").read_bytes()[:4] == b"%PDF"
    assert not [p for p in (tmp_path / "c").iterdir() if p.name.startswith(".") and p.name != MANIFEST]
    assert "unknown preference 'bogus'" in run_error(capsys, "box", "card", "--tiles", "5", "--rule", "bogus")
    assert "--tie-break random" in run_error(capsys, "box", "thumb", "--tiles", "5", "--tie-break", "random")
    low = json.loads(run("box", "thumb", "--tiles", "5", "--top", "1", "--tie-break", "low", "--format", "json").stdout)
    assert low["rows"][0]["rule"].endswith("; ties low")
    assert "--every-one-die" in run_error(capsys, "box", "thumb", "--every-one-die", "--one-die", "never")


def test_findings_in_plain_words():
    # STB-T2, STB-O6: the findings quote the exact figures of the card
    from ludolab.analysis import box_card

    rules = BoxRules(tiles=6)
    data = box_card.card_data(rules)
    text = box_card.findings(rules, data)
    assert text[0].startswith("The best rule of thumb is: ")
    assert f"{data['mean_score']:.2f}" in text[0]
    assert text[-1].startswith("How much is luck:")
    fs = data["compare"].set_index("player").loc["foresight", "p_shut"]
    assert f"{100 * fs:.1f}%" in text[-1]


def test_lowest_sum_separates_thai_moves():
    # STB-T2, STB-5: with thai moves a roll of 3+4 covers the 3, the 4 or the 7; leaving the lowest total
    # open means covering the largest of them
    rules = BoxRules(tiles=7, moves="thai", one_die="never")
    o = rules.roll_index("3+4")
    s = rules.full
    assert rules.tiles_of(int(T.thumb_policy(rules, ("lowest-sum",)).move[s, o])) == (7,)
    s2 = rules.mask_of((1, 2, 3, 4, 5, 6))  # 7 covered: the 3 or the 4
    assert rules.tiles_of(int(T.thumb_policy(rules, ("lowest-sum",)).move[s2, o])) == (4,)
    assert rules.tiles_of(int(T.thumb_policy(rules, ("one-die-ready", "lowest-sum")).move[s2, o])) == (4,)
    # with subset moves every move for a roll covers the same total: lowest-sum ties everywhere
    plain = T.thumb_policy(DEFAULT, ("lowest-sum",))
    assert np.array_equal(plain.move, box.make_policy(DEFAULT, "greedy-high").move)


def test_low_ties():
    # STB-T1, STB-T2: with low ties the last tie goes to the lowest tiles; fewest tiles with low ties is the
    # catalogue's fewest-tiles with --tie-break low
    rules = BoxRules(tiles=12, one_die="sum-lt-6-forced")
    rule = T.thumb_policy(rules, ("fewest-tiles",), tie_break="low")
    assert rule.name == "fewest-tiles; ties low"
    named = box.make_policy(rules, "fewest-tiles", tie_break="low")
    assert box.evaluate(rule).mean() == pytest.approx(box.evaluate(named).mean(), abs=1e-12)
    s = rules.full
    o = rules.roll_index(8, dice=2)
    assert rules.tiles_of(int(rule.move[s, o])) == (8,)
    two = T.thumb_policy(rules, ("most-tiles",), tie_break="low")  # 1,2,5 or 1,3,4: the 4 is lower than the 5
    assert rules.tiles_of(int(two.move[s, o])) == (1, 3, 4)
    o9 = rules.roll_index(9, dice=2)
    pair = T.thumb_policy(rules, ("fewest-tiles",), tie_break="low")
    assert rules.tiles_of(int(pair.move[s, o9])) == (9,)
    s2 = rules.mask_of((1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12))  # 9 covered: 1+8, 2+7, 3+6, 4+5 tie
    assert rules.tiles_of(int(pair.move[s2, o9])) == (4, 5)
    assert T.parse_tie_break("fewest-tiles; ties low") == "low"
    assert T.parse_rule("fewest-tiles; dice one; ties low") == (("fewest-tiles",), "one")
    df = T.best_rules_of_thumb(rules, top=1, tie_break="low")
    assert df["rule"].iloc[0].endswith("; ties low")
    with pytest.raises(T.ThumbError, match="high or low"):
        T.thumb_policy(rules, ("fewest-tiles",), tie_break="random")
