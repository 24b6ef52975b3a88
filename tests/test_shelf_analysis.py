"""Shelve the Book analyses on tiny N: tables have their columns and CIs, charts draw, bench records."""

from __future__ import annotations

import numpy as np
import pytest

from ludolab.analysis import shelf as A
from ludolab.stdlib.shelf import ShelfRules


def test_policy_table_columns_and_paired_ci():
    df, res = A.policy_table(ShelfRules(players=2), ("random", "greedy"), 40, seed=1, chunks=2)
    assert list(df["policy"]) == ["random", "greedy"]
    for col in ("mean_score", "diff_vs_first", "first_player_win", "p_offer_better"):
        assert (df[f"{col}_ci_low"] <= df[col]).all() and (df[col] <= df[f"{col}_ci_high"]).all()
    assert df["diff_vs_first"][0] == 0 and df["diff_vs_first"][1] > 0
    assert df.attrs["seed"] == 1 and df.attrs["games"] == 40
    fig = A.fig_score_distribution(res, "test deck")
    assert fig.axes[0].get_xlabel() == "final score (points)"
    assert len(A.fig_points_sources(df, "t").axes[0].patches) == 8


def test_position_table_and_head_to_head():
    df, res = A.policy_table(ShelfRules(players=3), ("greedy",), 30, seed=2, chunks=2, track=False)
    pos = A.position_table(res)
    assert list(pos["position"]) == [1, 2, 3]
    assert pos["win_share"].sum() == pytest.approx(1.0)
    h = A.head_to_head(ShelfRules(players=2), "greedy", "random", 30, seed=3)
    assert 0 <= h["hero_win_share"] <= 1 and h["fair_share"] == 0.5


def test_variant_and_deck_tables_tiny():
    dv = A.variant_table(players=2, games=12, seed=4)
    assert list(dv["variant"]) == ["standard", "flat", "linear", "pairs", "columns"]
    shares = dv[[f"share_{g}" for g in A.GROUPS]].sum(axis=1)
    assert np.allclose(shares, 1.0)
    assert A.fig_ci_bars(dv, "variant", "spread_sd", "t", "y").axes
    dd = A.deck_table(players=2, games=8, seed=5, decks=A.DECK_STUDY[:2])
    assert "assumed" in dd["deck_detail"][0]


def test_bench_records():
    rows = A.bench(100_000, 0.1, lambda m: None)
    assert [r["unit"] for r in rows] == ["tableaus", "games"]
    for r in rows:
        assert r["per_second"] > 0 and r["reference_per_second"] > 0 and r["ratio"] > 1


def test_draw_option_table():
    dw = A.draw_option_table(ShelfRules(players=2), 20, seed=6)
    assert dw["draw_share"][1] == 0.0 and dw["draw_share"][2] > dw["draw_share"][0]
    assert dw["diff_vs_potential"][0] == 0.0


def test_rules_of_thumb_are_paired_in_one_seat_against_the_baseline():  # SHB-6, SHB-8
    """The baseline's row is 0 with nothing changed; a rule's difference is the ladder's on the same deals, and
    its share of changed games is at most 1; a rule that never draws blind really differs from the baseline."""
    from ludolab.sim import ladder as L
    from ludolab.sim import shelf as S
    from ludolab.sim import shelf_kernels as SK
    from ludolab.sim.step import RulesCase

    rules = ShelfRules(players=3)
    picks = (A.THUMB_RULES[0], A.THUMB_RULES[1], A.THUMB_RULES[3])
    th = A.rules_of_thumb(rules, 12, 5, picks)
    assert list(th.rule) == ["potential", "points now only", "never draw blind"]
    base = th.iloc[0]
    assert base.diff_vs_potential == 0 and base.share_changed == 0 and base.verdict == "baseline"
    assert (th.share_changed.iloc[1:] > 0).all() and (th.share_changed <= 1).all()
    ra = S.step_rules(rules)
    named = S.step_policies(ra)
    greedy = L.Contender("g", "named", (named["greedy"][0], SK.policy_params(S.make_policy("greedy").array(), ra)))
    pot = L.Contender("p", "named", named["potential"])
    case = RulesCase("x", ra, 3, (named["potential"],) * 3, named=named)
    row = L.ladder(L.Table(S.step_game(), case), [greedy], pot, 12, 5)[0]
    assert row["diff"] == th.diff_vs_potential.iloc[1] and row["share_changed"] == th.share_changed.iloc[1]


def test_ci_bar_charts_speak_plain_language_in_their_legend():
    """The legend names the whiskers, not a column: no column name (with its underscores) in any legend text."""
    import pandas as pd

    df = pd.DataFrame({"deck": ["a", "b"], "skilled_win_share": [0.3, 0.4], "skilled_win_share_ci_low": [0.2, 0.3],
                       "skilled_win_share_ci_high": [0.4, 0.5]})
    fig = A.fig_ci_bars(df, "deck", "skilled_win_share", "title", "win share", fair=0.25)
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert sorted(texts) == ["fair share 0.25", "whiskers: 95% CI"]
    assert not any("_" in t for t in texts)
