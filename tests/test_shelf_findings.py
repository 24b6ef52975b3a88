"""The Shelve the Book findings are a pure function of the section's tables: given small tables built by hand
(no simulation), every finding is a Finding and every number it quotes is in the table it names."""

from __future__ import annotations

import pandas as pd

from findings_tables import check_change_caught, check_findings, with_ci
from ludolab.analysis import shelf as A

def _tables() -> tuple[dict, dict]:
    policies = with_ci(pd.DataFrame({"policy": ["random", "greedy", "potential"], "mean_score": [9.5, 21.25, 24.75],
                                     "diff_vs_first": [0.0, 11.75, 15.25], "pts_colour": [3.0, 5.0, 4.0],
                                     "pts_field": [2.0, 4.0, 3.0], "pts_number": [3.0, 7.0, 10.0],
                                     "pts_author": [1.5, 5.25, 7.75]}), 0.3, "mean_score", "diff_vs_first")
    h2h = with_ci(pd.DataFrame({"hero": ["rollout", "potential"], "hero_win_share": [0.46, 0.38], "fair_share": [0.25] * 2,
                                "hero_mean": [26.0, 25.0], "others_mean": [21.0, 21.5]}), 0.05, "hero_win_share")
    players = with_ci(pd.DataFrame({"players": [2, 4, 5], "policy": ["potential"] * 3,
                                    "mean_score": [19.5, 24.5, 27.25]}), 0.4, "mean_score")
    turn = with_ci(pd.DataFrame({"position": [1, 2, 3, 4], "win_share": [0.262, 0.25, 0.244, 0.244]}), 0.02, "win_share")
    draw = with_ci(pd.DataFrame({"play": ["potential", "offer only", "blind draw whenever allowed"],
                                 "diff_vs_potential": [0.0, -0.45, -3.5]}), 0.2, "diff_vs_potential")
    rows = [("standard", 4.5, 0.30, 15.25, 24.75, 21.25), ("linear", 3.98, 0.41, 12.0, 20.0, 17.0),
            ("columns", 5.51, 0.28, 18.0, 30.0, 26.0), ("pairs", 5.40, 0.26, 17.0, 28.5, 27.75)]
    variants = with_ci(pd.DataFrame([{"variant": v, "spread_sd": s, "skilled_win_share": w, "spread": e,
                                      "mean_skilled": m, "mean_greedy": g} for v, s, w, e, m, g in rows]),
                       0.08, "spread_sd", "skilled_win_share", "spread")
    decks = with_ci(pd.DataFrame({"deck": ["assumed-90", "corr 0 (generated)", "corr 1 (generated)"],
                              "edge": [15.5, 14.0, 17.25], "skilled_win_share": [0.4, 0.36, 0.31]}),
                0.5, "edge").assign(skilled_win_share_ci_low=[0.35, 0.3, 0.24])
    args = dict(policies=policies, head_to_head=h2h, h2h_deals=100, players=players, turn_order=turn, draw=draw,
                variants=variants, decks=decks)
    named = {"shelf_policies": policies, "shelf_head_to_head": h2h, "shelf_players": players,
             "shelf_turn_order": turn, "shelf_draw_option": draw, "shelf_variants": variants, "shelf_decks": decks}
    return args, named


def test_findings_quote_only_numbers_of_their_tables():
    args, named = _tables()
    check_findings(A.section_findings(**args), named, 9,
                   ("24.75", "0.460", "-0.45", "0.262", "27.25", "0.75 points", "14.00 (corr 0", "with 2 of them"))


def test_a_changed_number_is_caught():
    args, named = _tables()
    check_change_caught(A.section_findings(**args), named, "shelf_decks", "edge", [1.0, 2.0, 3.0])
