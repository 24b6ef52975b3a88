"""Foresight: a player who knows every die of the turn in advance (STB-O6, seeds/shut_the_box.md).

The exact values are checked against a brute force that throws every sequence of
faces and tries every path; the 9-tile figures are a regression of the exact
computation.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from ludolab.analysis.cli import cli, main
from ludolab.sim import box
from ludolab.sim.box_foresight import ForesightError, foresight, foresight_table
from ludolab.stdlib.box import BoxRules


def brute_force(rules: BoxRules, faces: int):
    """Every sequence of ``faces`` die faces, every path through it (STB-O6): (mean, P(shut)) as Fractions."""
    oc = rules.outcomes

    def best(s, seq, i):
        if s == 0:
            return 0
        res = None
        for d in (1, 2):
            if not rules.dice_allowed[s] & d:
                continue
            k = 1 if d == 1 else 2
            assert i + k <= len(seq), "sequence too short for this box"
            o = oc.draw_map1[seq[i] - 1] if d == 1 else oc.draw_map2[6 * (seq[i] - 1) + seq[i + 1] - 1]
            moves = rules.legal_moves(s, o)
            v = min(best(s ^ m, seq, i + k) for m in moves) if moves else int(rules.scores[s])
            res = v if res is None else min(res, v)
        return res

    mean = shut = Fraction(0)
    for seq in itertools.product(range(1, 7), repeat=faces):
        v = best(rules.full, seq, 0)
        mean += Fraction(v, 6 ** faces)
        shut += Fraction(int(v == 0), 6 ** faces)
    return mean, shut


def test_two_tiles_two_dice_by_hand():
    # STB-O6: tiles 1 and 2, two dice always: only a 3 shuts (2/36); a 2 covers the 2 and leaves the 1,
    # which two dice never make (score 1); anything else ends the turn at once (score 3).
    fs = foresight(BoxRules(tiles=(1, 2), one_die="never"), exact=True)
    assert fs.p_shut == Fraction(2, 36)
    assert fs.mean_score == Fraction(1 * 1 + 33 * 3, 36)


@pytest.mark.parametrize("tiles, one_die, faces", [((1, 2), "always-optional", 6), ((1, 3), "le6-optional", 6),
                                                   ((1, 2, 3), "never", 6)])
def test_exact_against_every_dice_sequence(tiles, one_die, faces):
    # STB-O6: one sequence of faces, two for a roll of two dice, one for one die (STB-2, STB-6)
    rules = BoxRules(tiles=tiles, one_die=one_die)
    fs = foresight(rules, exact=True)
    assert (fs.mean_score, fs.p_shut) == brute_force(rules, faces)
    approx = foresight(rules)
    assert approx.p_shut == pytest.approx(float(fs.p_shut), abs=1e-15)
    assert approx.mean_score == pytest.approx(float(fs.mean_score), abs=1e-13)


@pytest.mark.parametrize("rules", [BoxRules(), BoxRules(one_die="never"), BoxRules(tiles=5, moves="thai", one_die="never"),
                                   BoxRules(tiles=8, score="count", one_die="le6-forced")])
def test_foresight_bounds_optimal_play(rules):
    # STB-O6: knowing the dice can only help: at least the optimal chance to shut, at most the optimal mean
    fs = foresight(rules)
    assert fs.p_shut >= box.solve(rules, "shut").start_value - 1e-12
    assert fs.mean_score <= box.solve(rules, "expected-score").start_value + 1e-12


def test_nine_tiles_far_below_seventy_percent():
    # STB-O6, regression of the exact computation: 9 tiles, default rules (one die once 7, 8, 9 are covered)
    fs = foresight(BoxRules())
    assert fs.p_shut == pytest.approx(0.16193247898092555, abs=1e-12)
    assert fs.mean_score == pytest.approx(8.264544836752208, abs=1e-10)
    never = foresight(BoxRules(one_die="never"))
    assert never.p_shut == pytest.approx(0.08814090143982736, abs=1e-12)
    assert never.p_shut < 0.7 and fs.p_shut < 0.7


def test_too_many_knowledge_sets_is_refused():
    # STB-O6: the computation stops with a clear error instead of running out of memory
    with pytest.raises(ForesightError, match="knowledge sets"):
        foresight(BoxRules(), max_sets=50)


def test_skill_table():
    # STB-O6: random play 0, foresight 1; every real player in between
    rules = BoxRules(tiles=6)
    df = foresight_table(rules)
    assert list(df["player"]) == ["random", "best named heuristic", "best rule of thumb",
                                  "optimal for the mean score", "optimal for shutting", "foresight"]
    assert df["share_of_mean"].iloc[0] == 0 and df["share_of_mean"].iloc[-1] == pytest.approx(1)
    assert df["share_of_p_shut"].iloc[0] == 0 and df["share_of_p_shut"].iloc[-1] == pytest.approx(1)
    assert (df["p_shut"] <= df["p_shut"].iloc[-1] + 1e-12).all()
    assert (df["mean_score"] >= df["mean_score"].iloc[-1] - 1e-12).all()
    opt = df.set_index("player")
    assert opt.loc["optimal for the mean score", "mean_score"] <= opt.loc["best rule of thumb", "mean_score"] + 1e-12
    assert opt.loc["optimal for shutting", "p_shut"] >= opt.loc["best named heuristic", "p_shut"] - 1e-12


def test_cli_foresight(tmp_path):
    res = CliRunner().invoke(cli, ["box", "foresight", "--tiles", "5", "--no-thumb", "--format", "json"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["rules"]["tiles"] == [1, 2, 3, 4, 5]
    assert [r["player"] for r in out["rows"]][-1] == "foresight"
    fs = foresight(BoxRules(tiles=5))
    assert out["rows"][-1]["p_shut"] == pytest.approx(fs.p_shut)
    res = CliRunner().invoke(cli, ["box", "foresight", "--tiles", "4", "--out", str(tmp_path)],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert {"foresight.csv", "foresight.meta.json", "foresight_skill.png"} <= {p.name for p in tmp_path.iterdir()}
    meta = json.loads((tmp_path / "foresight.meta.json").read_text())
    assert meta["method"] == "exact" and meta["rules"]["tiles"] == [1, 2, 3, 4]


def test_cli_foresight_bad_tiles(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["box", "foresight", "--tiles", "0"])
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and err.startswith("Error:") and out == ""
