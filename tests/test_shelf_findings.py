"""The Shelve the Book findings are a pure function of the section's tables: given small tables built by hand
(no simulation), every finding is a Finding and every number it quotes is in the table it names."""

from __future__ import annotations

import pandas as pd

from findings_tables import check_change_caught, check_findings, with_ci
from ludolab.analysis import shelf as A

def _thumb(rows) -> pd.DataFrame:
    """A :func:`~ludolab.analysis.shelf.rules_of_thumb` table by hand: ``(rule, difference, CI half-width,
    share changed)``, each verdict by the report's paired rule."""
    from ludolab.analysis.findings import compare

    out = []
    for rule, d, h, ch in rows:
        out.append({"rule": rule, "what": f"what {rule} does", "mean": 21.0 + d, "diff_vs_potential": d,
                    "diff_vs_potential_ci_low": d - h, "diff_vs_potential_ci_high": d + h, "share_changed": ch,
                    "win_share": 0.5 + d / 20, "verdict": "baseline" if h == 0 else
                    compare(d, d - h, d + h, "shelf_points", lower_is_better=False), "deals": 400})
    return pd.DataFrame(out)


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
    thumb = _thumb([("potential", 0.0, 0.0, 0.0), ("points now only", -3.5, 0.25, 0.94),
                    ("unfinished runs count double", -0.55, 0.2, 0.88), ("never draw blind", -0.6, 0.2, 0.89),
                    ("draw blind unless an offer scores 2", 0.1, 0.2, 0.91),
                    ("draw blind whenever allowed", -2.4, 0.25, 0.92), ("look-ahead (rollout)", 4.4, 0.25, 0.97)])
    args = dict(thumb=thumb, policies=policies, head_to_head=h2h, h2h_deals=100, players=players, turn_order=turn, draw=draw,
                variants=variants, decks=decks)
    named = {"shelf_policies": policies, "shelf_head_to_head": h2h, "shelf_players": players,
             "shelf_turn_order": turn, "shelf_draw_option": draw, "shelf_variants": variants, "shelf_decks": decks,
             "shelf_rules_of_thumb": thumb}
    return args, named


def test_findings_quote_only_numbers_of_their_tables():
    args, named = _tables()
    check_findings(A.section_findings(**args), named, 10,
                   ("24.75", "0.460", "-0.45", "0.262", "27.25", "0.75 points", "14.00 (corr 0", "with 2 of them"))


def test_a_changed_number_is_caught():
    args, named = _tables()
    check_change_caught(A.section_findings(**args), named, "shelf_decks", "edge", [1.0, 2.0, 3.0])


def test_the_rules_of_thumb_finding_words_each_rule_by_its_verdict():
    """Each rule's word comes from its paired verdict; the headline names the three rules only when all three
    measured alternatives (points now, never blind, always blind) are worse; the best play is quoted too."""
    from ludolab.analysis.findings import quote_problems

    args, _ = _tables()
    th = args["thumb"]
    f = A.thumb_finding(th)
    assert quote_problems([f], {"shelf_rules_of_thumb": th}) == []
    assert f.title == "Place for unfinished runs and draw blind only when no offer card scores."
    assert "*points now only*: -3.50 points a game (paired 95% CI -3.75 to -3.25), worse, changing" in f.text
    assert "changing the seat's score in 94% of games" in f.text
    assert "*draw blind unless an offer scores 2*: +0.10 points a game (paired 95% CI -0.10 to +0.30), " \
           "equally good" in f.text
    assert "*look-ahead (rollout)*, scores +4.40 points a game" in f.text and "`potential` play" in f.text
    mild = th.copy()
    mild.loc[mild.rule == "never draw blind", ["diff_vs_potential_ci_low", "diff_vs_potential_ci_high"]] = [-2.0, 0.8]
    mild.loc[mild.rule == "never draw blind", "verdict"] = "cannot tell yet"
    g = A.thumb_finding(mild)
    assert g.title == "Rules of thumb for placing and drawing, measured."
    assert "*never draw blind*: -0.60 points a game (paired 95% CI -2.00 to +0.80), cannot tell yet" in g.text
