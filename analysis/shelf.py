"""Shelve the Book analyses: tables, charts, the report section and the bench entries.

Clause ids (``SHB-n``) refer to ``seeds/shelve_the_book.md``.  Every Monte
Carlo figure carries a 95% confidence interval; policies and variants are
compared on the same deals (common random numbers).  Tables and charts name
the deck, and say so when it is the assumed default deck (ruling S1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ludolab.sim import shelf as S
from ludolab.stdlib.shelf import KIND_GROUPS, VARIANT_TEXT, VARIANTS, Deck, ShelfRules, generate_deck

GROUPS = ("colour", "field", "number", "author")
DEFAULT_POLICIES = ("random", "greedy", "potential")


def rules_meta(rules: ShelfRules, **fields) -> dict:
    """Provenance fields of a ruleset (deck labelled as assumed where it is)."""
    from ludolab.stdlib import registry

    info = {k: v for k, v in registry.game_provenance("shelf").items() if k != "game"}
    return {**info, "rules": rules.to_dict(), **fields}


def _group_points(kp: dict) -> dict:
    out = {g: 0.0 for g in GROUPS}
    for k, v in kp.items():
        out[KIND_GROUPS[k]] += v
    return out


# ------------------------------------------------------------------ policies
def policy_table(rules: ShelfRules, policies=DEFAULT_POLICIES, games: int = 2000, seed: int = 0,
                 chunks: int = 64, progress=False, track: bool = True) -> tuple[pd.DataFrame, S.SimResult]:
    """Each policy in every seat (self-play), all on the same deals.

    Columns: policy; players; deck (``assumed-90 (assumed)`` for the default deck); mean_score (points per player per game) with its 95% CI;
    diff_vs_first (mean table score minus that of the first policy on the same
    deals, paired 95% CI); draw_share (share of turns that drew two blind);
    first_player_win (win share of the player who starts, 1/players if the
    start does not matter); pts_colour .. pts_author (mean points per player from
    each combination kind); p_offer_better (hindsight: share of turns where the
    best offer card gained more at once than the two cards really on top of the
    pile, with the Wilson CI).
    """
    pols = [S.parse_policy(p) if isinstance(p, str) else p for p in policies]
    res = S.simulate(rules, [[p] * rules.players for p in pols], games, seed, chunks, progress, track=track)
    rows = []
    for c, p in enumerate(pols):
        m = res.table_mean(c)
        d = res.paired_diff(c, 0)
        row = {"policy": p.label, "players": rules.players, "deck": rules.deck.short_label, **m.as_dict("mean_score"),
               **d.as_dict("diff_vs_first"),
               "draw_share": float(np.mean([res.draw_share(c, s) for s in range(rules.players)])),
               **res.position_win(c, 0).as_dict("first_player_win")}
        for g, v in _group_points(res.kind_points(c)).items():
            row[f"pts_{g}"] = v
        if track:
            ovd = res.offer_vs_draw(c)
            row.update({k: ovd[k] for k in ("p_offer_better", "p_offer_better_ci_low", "p_offer_better_ci_high",
                                            "p_draw_better")})
        rows.append(row)
    df = pd.DataFrame(rows)
    df.attrs.update(res.provenance)
    return df, res


def by_players(policies=DEFAULT_POLICIES, games: int = 1000, seed: int = 0, variant: str = "standard",
               deck: Deck | None = None, progress=False) -> tuple[pd.DataFrame, dict]:
    """policy_table for 2..5 players (one row per policy and player count); also the results."""
    frames, results = [], {}
    for n in (2, 3, 4, 5):
        rules = ShelfRules(players=n, variant=variant, deck=deck)
        df, res = policy_table(rules, policies, games, seed, progress=progress, track=False)
        frames.append(df)
        results[n] = res
    return pd.concat(frames, ignore_index=True), results


def draw_option_table(rules: ShelfRules, games: int = 2000, seed: int = 0, progress=False) -> pd.DataFrame:
    """What the blind draw is worth (SHB-6): the potential policy as it is, never drawing two
    blind, and drawing two blind whenever the pile allows, each in every seat, on the same deals.

    Columns: play (which of the three), mean_score with 95% CI, diff_vs_potential (paired, CI),
    draw_share (share of turns drawing two blind)."""
    plays = (("potential (draws when no offer card gains a point)", S.make_policy("potential")),
             ("offer only (never draws blind)", S.make_policy("potential", draw_below=-1e9)),
             ("blind draw whenever allowed", S.make_policy("potential", draw_below=1e9)))
    res = S.simulate(rules, [[p] * rules.players for _, p in plays], games, seed, progress=progress)
    rows = []
    for c, (name, _) in enumerate(plays):
        rows.append({"play": name, "deck": rules.deck.short_label, **res.table_mean(c).as_dict("mean_score"),
                     **res.paired_diff(c, 0).as_dict("diff_vs_potential"),
                     "draw_share": float(np.mean([res.draw_share(c, s) for s in range(rules.players)]))})
    df = pd.DataFrame(rows)
    df.attrs.update(res.provenance)
    return df


def position_table(res: S.SimResult, c: int = 0) -> pd.DataFrame:
    """Turn order (SHB-3): position 1 starts.  Columns: position, mean_score with CI,
    win_share with CI (fair = 1/players)."""
    labels = [q.label for q in res.configs[c]]
    who = labels[0] if len(set(labels)) == 1 else "mixed: " + ", ".join(labels)
    rows = []
    for p in range(res.rules.players):
        rows.append({"position": p + 1, "policy": who, "deck": res.rules.deck.short_label,
                     **res.position_mean(c, p).as_dict("mean_score"), **res.position_win(c, p).as_dict("win_share")})
    return pd.DataFrame(rows)


def head_to_head(rules: ShelfRules, hero: str, field: str, games: int, seed: int = 0, progress=False) -> dict:
    """One ``hero`` player against ``field`` in every other seat: the hero's win share and
    score edge (hero's mean minus the others' mean), 95% CIs."""
    cfg = [hero] + [field] * (rules.players - 1)
    res = S.simulate(rules, [cfg], games, seed, progress=progress)
    w = res.seat_win(0, 0)
    m0 = res.seat_mean(0, 0)
    others = np.mean([res.seat_mean(0, s).value for s in range(1, rules.players)])
    return {"hero": hero, "field": field, "deck": rules.deck.short_label, **w.as_dict("hero_win_share"), "fair_share": 1 / rules.players,
            "hero_mean": m0.value, "others_mean": float(others)}


# ------------------------------------------------------------------ scoring variants (SHB-11)
def variant_table(players: int = 4, skilled: str = "potential", games: int = 2000, seed: int = 0,
                  deck: Deck | None = None, progress=False) -> pd.DataFrame:
    """Each scoring variant: random, greedy and the skilled policy on the same deals.

    Columns: variant, rule (its points), deck, mean_random / mean_skilled (points per
    player), spread (skilled minus random on the same deals, paired 95% CI),
    spread_sd (the spread in standard deviations of the random policy's score,
    so variants with bigger numbers compare fairly; CI scaled alike), skilled_win_share (one
    skilled player against greedy players, CI; fair = 1/players), share_colour ..
    share_author (share of the skilled policy's points from each kind).
    """
    rows = []
    for v in VARIANTS:
        rules = ShelfRules(players=players, variant=v, deck=deck)
        res = S.simulate(rules, [["random"] * players, ["greedy"] * players, [skilled] * players], games, seed,
                         progress=progress)
        rnd = res.table_mean(0)
        sk = res.table_mean(2)
        d = res.paired_diff(2, 0)
        sd = res.seat_mean(0, 0).se * np.sqrt(games)
        h = head_to_head(rules, skilled, "greedy", games, seed + 1)
        gp = _group_points(res.kind_points(2))
        tot = sum(gp.values()) or 1.0
        rows.append({"variant": v, "rule": VARIANT_TEXT[v], "deck": rules.deck.short_label, "mean_random": rnd.value, "mean_greedy": res.table_mean(1).value,
                     "mean_skilled": sk.value, **d.as_dict("spread"), "spread_sd": d.value / sd if sd > 0 else np.nan,
                     "spread_sd_ci_low": d.low / sd if sd > 0 else np.nan,
                     "spread_sd_ci_high": d.high / sd if sd > 0 else np.nan,
                     **{k: h[k] for k in ("hero_win_share", "hero_win_share_ci_low", "hero_win_share_ci_high")},
                     **{f"share_{g}": gp[g] / tot for g in GROUPS}})
    df = pd.DataFrame(rows).rename(columns=lambda c: c.replace("hero_win_share", "skilled_win_share"))
    df.attrs.update({"games": games, "seed": seed, "players": players, "skilled": skilled})
    return df


# ------------------------------------------------------------------ deck sensitivity (SHB-1)
DECK_STUDY = (
    ("assumed-90", None),
    ("corr 0 (generated)", {"correlation": 0.0}),
    ("corr 0.5", {"correlation": 0.5}),
    ("corr 1", {"correlation": 1.0}),
    ("3 fields", {"fields": 3}),
    ("10 colours", {"colours": 10}),
    ("numbers 1-500", {"numbers": (1, 500)}),
)


def deck_table(players: int = 4, skilled: str = "potential", games: int = 1000, seed: int = 0,
               decks=DECK_STUDY, deck_seed: int = 0, progress=False) -> pd.DataFrame:
    """How the skilled policy's edge changes with the deck (90 cards each, 6 fields x 5
    colours unless the row changes one parameter of the generator).

    Columns: deck, mean_random, mean_skilled, edge (skilled minus random on the
    same deals, paired 95% CI), skilled_win_share against greedy players (CI;
    fair = 1/players), share_colour .. share_author (share of the skilled
    policy's points).
    """
    from ludolab.stdlib.shelf import assumed_deck

    rows = []
    for name, params in decks:
        deck = assumed_deck() if params is None else generate_deck(**{"seed": deck_seed, **params})
        rules = ShelfRules(players=players, deck=deck)
        res = S.simulate(rules, [["random"] * players, [skilled] * players], games, seed, progress=progress)
        d = res.paired_diff(1, 0)
        h = head_to_head(rules, skilled, "greedy", games, seed + 1)
        gp = _group_points(res.kind_points(1))
        tot = sum(gp.values()) or 1.0
        rows.append({"deck": name if params is None else f"{name}", "deck_detail": deck.label,
                     "mean_random": res.table_mean(0).value, "mean_skilled": res.table_mean(1).value,
                     **d.as_dict("edge"),
                     **{k.replace("hero", "skilled"): h[k] for k in ("hero_win_share", "hero_win_share_ci_low",
                                                                   "hero_win_share_ci_high")},
                     **{f"share_{g}": gp[g] / tot for g in GROUPS}})
    df = pd.DataFrame(rows)
    df.attrs.update({"games": games, "seed": seed, "players": players, "skilled": skilled})
    return df


# ------------------------------------------------------------------ charts
def _fig(w=7.5, h=4.2):
    from matplotlib.figure import Figure

    return Figure(figsize=(w, h))


def fig_score_distribution(res: S.SimResult, deck_label: str):
    """Histogram of final scores per policy (self-play, all seats pooled)."""
    fig = _fig()
    ax = fig.add_subplot(1, 1, 1)
    for c, cfg in enumerate(res.configs):
        h = sum(res.histogram(c, s) for s in range(res.rules.players))
        h = h / h.sum()
        top = int(np.flatnonzero(h)[-1]) + 2 if h.any() else 10
        x = np.arange(len(h))
        m = res.table_mean(c)
        ax.step(x[:top], h[:top], where="mid", label=f"{cfg[0].label} (mean {m.value:.1f}, 95% CI ± {m.value - m.low:.2f})")
    ax.set_title(f"Shelve the Book: final score by policy, {res.rules.players} players, "
                 f"{res.rules.variant} scoring\n{deck_label}", fontsize=10)
    ax.set_xlabel("final score (points)")
    ax.set_ylabel("share of players")
    ax.legend(fontsize=8)
    return fig


def fig_points_sources(df: pd.DataFrame, title: str, label_col: str = "policy", prefix: str = "pts_",
                       ylabel: str = "mean points per player"):
    """Stacked bars: points (or shares) from colour, field, number and author runs."""
    fig = _fig()
    ax = fig.add_subplot(1, 1, 1)
    bottom = np.zeros(len(df))
    for g in GROUPS:
        vals = df[f"{prefix}{g}"].to_numpy(dtype=float)
        ax.bar(df[label_col].astype(str), vals, bottom=bottom, label=g)
        bottom += vals
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(ylabel)
    ax.legend(title="runs of", fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    for t in ax.get_xticklabels():
        t.set_rotation(15)
    return fig


def fig_ci_bars(df: pd.DataFrame, label_col: str, col: str, title: str, ylabel: str, fair: float | None = None):
    """Bars with 95% CI whiskers for column ``col`` (with ``col_ci_low``/``col_ci_high``)."""
    fig = _fig()
    ax = fig.add_subplot(1, 1, 1)
    v = df[col].to_numpy(dtype=float)
    lo = v - df[f"{col}_ci_low"].to_numpy(dtype=float)
    hi = df[f"{col}_ci_high"].to_numpy(dtype=float) - v
    ax.bar(df[label_col].astype(str), v, yerr=np.vstack([lo, hi]), capsize=4, label=f"{col} (95% CI)")
    if fair is not None:
        ax.axhline(fair, color="k", ls="--", lw=1, label=f"fair share {fair:.2f}")
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    for t in ax.get_xticklabels():
        t.set_rotation(15)
    return fig


# ------------------------------------------------------------------ report
def report_section(ctx) -> str:
    """Shelve the Book: which policy wins, the value of going first, offer against blind draw,
    what each scoring variant does, and how much the deck matters."""
    from ludolab.analysis.results import provenance
    from ludolab.stdlib.shelf import assumed_deck

    deck = assumed_deck()
    rules = ShelfRules(players=4)
    g_main = 1500 if ctx.quick else 6000
    g_var = 300 if ctx.quick else 1200
    g_deck = 200 if ctx.quick else 800
    seed = ctx.seed

    def meta(**fields):
        return provenance("shelf", **rules_meta(rules, **fields))

    md = ["# Shelve the Book\n",
          f"Rules: {rules.label()} (clauses in `seeds/shelve_the_book.md`). **The deck is assumed**: the real "
          "deck list is unpublished, so ludolab uses `assumed-90` (6 fields x 5 colours x 3 cards, numbers "
          "1-90, real scholars' surnames, drawn once with a fixed seed); every number below depends on that "
          f"assumption. Monte Carlo with root seed {seed}; 95% confidence intervals; policies and variants are "
          "compared on the same deals (common random numbers).\n",
          "Policies: " + "; ".join(f"`{k}`: {v[2]}" for k, v in S.POLICIES.items()) + ".\n"]

    ctx.say("shelf: policies ...")
    df, res = policy_table(rules, DEFAULT_POLICIES, g_main, seed, track=True)
    best = df.loc[df["mean_score"].idxmax()]
    rnd = df.loc[df["policy"] == "random"].iloc[0]
    grd = df.loc[df["policy"] == "greedy"].iloc[0]
    md += ["## Which policy wins\n",
           f"Over {g_main:,} four-player deals, **{best['policy']}** scores most: {best['mean_score']:.2f} points per "
           f"player (95% CI {best['mean_score_ci_low']:.2f}-{best['mean_score_ci_high']:.2f}) against "
           f"{grd['mean_score']:.2f} for greedy and {rnd['mean_score']:.2f} for random play. "
           f"On the same deals skill is worth {best['diff_vs_first']:.2f} points per player over random "
           f"(CI {best['diff_vs_first_ci_low']:.2f}-{best['diff_vs_first_ci_high']:.2f}).\n",
           "Columns: `deck` the deck (`assumed` marks the assumed default); `mean_score` points per player and game; `diff_vs_first` the paired difference to the random "
           "policy; `draw_share` share of turns drawing two blind; `first_player_win` win share of the starting "
           "player (fair 0.25); `pts_*` mean points from runs of each kind; `p_offer_better` / `p_draw_better` "
           "hindsight share of turns where the best offer card / the two real top cards of the pile gained more "
           "points at once (the rest are ties).\n",
           ctx.table(df, "shelf_policies", meta(what="self-play per policy", policies=list(DEFAULT_POLICIES))),
           ctx.figure(fig_score_distribution(res, deck.label), "shelf_score_distribution",
                      "Final score distribution by policy"),
           ctx.figure(fig_points_sources(df, f"Where the points come from (4 players, standard scoring)\n{deck.label}"),
                      "shelf_points_sources", "Points by combination kind and policy")]

    ctx.say("shelf: rollout and potential against greedy players ...")
    g_h2h = 100 if ctx.quick else 400
    import time

    t0 = time.perf_counter()
    h_ro = head_to_head(rules, "rollout", "greedy", g_h2h, seed + 5)
    t1 = time.perf_counter()
    h_po = head_to_head(rules, "potential", "greedy", g_h2h, seed + 5)
    t2 = time.perf_counter()
    slower = (t1 - t0) / max(t2 - t1, 1e-9)
    h2h = pd.DataFrame([h_ro, h_po])
    ro, po = h2h.iloc[0], h2h.iloc[1]
    md += [f"\nHead to head on the same {g_h2h:,} deals, one player against three `greedy` players: `rollout` "
           f"wins {ro['hero_win_share']:.3f} of the games (CI {ro['hero_win_share_ci_low']:.3f}-"
           f"{ro['hero_win_share_ci_high']:.3f}) with {ro['hero_mean']:.2f} points against their "
           f"{ro['others_mean']:.2f}; `potential` wins {po['hero_win_share']:.3f} (CI {po['hero_win_share_ci_low']:.3f}-"
           f"{po['hero_win_share_ci_high']:.3f}); a fair share is 0.25. Looking ahead over the unseen cards is the "
           f"strongest play found; these games took {slower:.0f} times as long as with `potential`, which the "
           "larger studies below use as the skilled policy. Columns: `hero_win_share` (ties shared), `hero_mean` and "
           "`others_mean` points per player.\n",
           ctx.table(h2h, "shelf_head_to_head", meta(what="one policy against three greedy players", games=g_h2h))]

    ctx.say("shelf: player counts and the value of going first ...")
    g_pc = max(200, g_main // 4)
    dfp, resp = by_players(("random", "greedy", "potential"), g_pc, seed + 1)
    pos = position_table(res, 2)
    pot_rows = dfp[dfp["policy"] == "potential"].set_index("players")["mean_score"]
    pc2, pc5 = pot_rows[2], pot_rows[5]
    p1 = pos.iloc[0]
    md += ["## Player count and the value of going first\n",
           f"Mean score per player by player count ({g_pc:,} deals each). With `potential` play the mean goes from "
           f"{pc2:.2f} points with 2 players to {pc5:.2f} with 5 (the offer holds players + 1 cards, so each turn "
           "offers more choice at a bigger table). `first_player_win` is the starting player's win share "
           "(fair: 1/players).\n",
           ctx.table(dfp[["players", "policy", "deck", "mean_score", "mean_score_ci_low", "mean_score_ci_high",
                          "first_player_win", "first_player_win_ci_low", "first_player_win_ci_high"]],
                     "shelf_players", meta(what="self-play by player count", games=g_pc)),
           f"\nTurn order with four `potential` players: the starting player's win share is {p1['win_share']:.3f} "
           f"(CI {p1['win_share_ci_low']:.3f}-{p1['win_share_ci_high']:.3f}; fair 0.25). Columns: `position` in turn "
           "order (1 starts), `mean_score`, `win_share` (ties shared).\n",
           ctx.table(pos, "shelf_turn_order", meta(what="score and win share by turn position", policy="potential"))]

    o = df.loc[df["policy"] == "potential"].iloc[0]
    md += ["## The offer against the blind draw\n",
           f"At turns where both were open, the best offer card gave a bigger immediate gain than the two cards "
           f"really on top of the pile in {100 * o['p_offer_better']:.1f}% of turns "
           f"(CI {100 * o['p_offer_better_ci_low']:.1f}-{100 * o['p_offer_better_ci_high']:.1f}%), the blind draw in "
           f"{100 * o['p_draw_better']:.1f}%; the rest were ties (potential players, hindsight on the real pile; "
           "immediate points only, not the value of the card kept).\n"]
    ctx.say("shelf: the value of the blind draw ...")
    g_draw = max(300, g_main // 4)
    dw = draw_option_table(rules, g_draw, seed + 6)
    never = dw.iloc[1]
    always = dw.iloc[2]
    md += [f"What the option is worth, on the same {g_draw:,} deals with the potential policy in every seat: never "
           f"drawing blind changes the mean score by {never['diff_vs_potential']:+.2f} points (CI "
           f"{never['diff_vs_potential_ci_low']:+.2f} to {never['diff_vs_potential_ci_high']:+.2f}); drawing blind "
           f"whenever allowed by {always['diff_vs_potential']:+.2f} (CI {always['diff_vs_potential_ci_low']:+.2f} to "
           f"{always['diff_vs_potential_ci_high']:+.2f}). Columns: `play`, `mean_score` points per player, "
           "`diff_vs_potential` paired difference to the first row, `draw_share` share of turns drawing blind.\n",
           ctx.table(dw, "shelf_draw_option", meta(what="value of the blind draw", games=g_draw))]

    ctx.say("shelf: scoring variants ...")
    dv = variant_table(4, "potential", g_var, seed + 2)
    widest = dv.loc[dv["spread_sd"].idxmax()]
    narrow = dv.loc[dv["spread_sd"].idxmin()]
    md += ["## What each scoring rule does\n",
           f"{g_var:,} deals per variant, four players. `spread` is potential minus random on the same deals "
           "(points, paired CI); `spread_sd` is that spread in standard deviations of a random player's score, "
           "comparable across variants; `skilled_win_share` is one potential player against three greedy ones "
           f"(fair 0.25); `share_*` is the share of the potential policy's points from each kind. Skill matters "
           f"most under **{widest['variant']}** ({widest['spread_sd']:.2f} SD) and least under "
           f"**{narrow['variant']}** ({narrow['spread_sd']:.2f} SD).\n",
           ctx.table(dv, "shelf_variants", meta(what="scoring variants", games=g_var, skilled="potential")),
           ctx.figure(fig_ci_bars(dv, "variant", "spread_sd",
                                  f"Skill spread (potential - random) by scoring variant, 4 players\n{deck.label}",
                                  "spread (SD of a random player's score)"),
                      "shelf_variant_spread", "Skill spread by scoring variant"),
           ctx.figure(fig_points_sources(dv, "Share of the potential policy's points by kind, per scoring variant, "
                                         f"4 players\n{deck.label}",
                                         "variant", "share_", "share of points"),
                      "shelf_variant_sources", "Where the points come from under each variant")]

    std = dv.set_index("variant")
    seq_std = std.loc["standard", "share_number"] + std.loc["standard", "share_author"]
    md.insert(-3, f"Under the published scoring {100 * seq_std:.0f}% of a skilled player's points come from "
              f"sequences (numbers and names); scoring columns too lifts a random player from "
              f"{std.loc['standard', 'mean_random']:.1f} to {std.loc['columns', 'mean_random']:.1f} points and a skilled "
              f"one from {std.loc['standard', 'mean_skilled']:.1f} to {std.loc['columns', 'mean_skilled']:.1f}; "
              f"scoring pairs narrows the gap between greedy and potential play to "
              f"{std.loc['pairs', 'mean_skilled'] - std.loc['pairs', 'mean_greedy']:.2f} points (standard: "
              f"{std.loc['standard', 'mean_skilled'] - std.loc['standard', 'mean_greedy']:.2f}).\n")

    ctx.say("shelf: deck sensitivity ...")
    dd = deck_table(4, "potential", g_deck, seed + 3)
    lo = dd.loc[dd["edge"].idxmin()]
    hi = dd.loc[dd["edge"].idxmax()]
    a90 = dd.iloc[0]
    base = dd.loc[dd["deck"] == "corr 0 (generated)", "edge"].iloc[0]
    shifts = ", ".join(f"{r['deck']} {r['edge'] - base:+.2f}" for _, r in dd.iloc[2:].iterrows())
    n_beat = int((dd["skilled_win_share_ci_low"] > 0.25).sum())
    md += ["## How much the deck matters\n",
           f"{g_deck:,} deals per deck, four players. Each generated deck has 90 cards, 6 fields x 5 colours and "
           "numbers 1-90 unless the row changes one thing (correlation = share of cards whose colour follows "
           "their field). `edge` is potential minus random on the same deals (points, paired CI); "
           "`skilled_win_share` is one potential player against three greedy ones (fair 0.25). "
           f"The edge over random play ranges from {lo['edge']:.2f} points ({lo['deck']}) to {hi['edge']:.2f} "
           f"({hi['deck']}), against {a90['edge']:.2f} with the assumed deck. Against the generated baseline "
           f"(corr 0): {shifts}. One potential player beats three greedy ones (win share CI above 0.25) with "
           f"{n_beat} of {len(dd)} decks, so which policy wins does not hang on the deck{'' if n_beat == len(dd) else ' everywhere'}; "
           "how many points skill is worth does, so those numbers wait for the real deck.\n",
           ctx.table(dd, "shelf_decks", meta(what="deck sensitivity", games=g_deck, skilled="potential")),
           ctx.figure(fig_ci_bars(dd, "deck", "skilled_win_share",
                                  "Win share of one potential player against three greedy ones, by deck",
                                  "win share (ties shared)", fair=0.25),
                      "shelf_deck_sensitivity", "Deck sensitivity of the best policy's edge")]
    return "\n".join(md)


# ------------------------------------------------------------------ bench
def bench(games: int, reference_seconds: float, say) -> list[dict]:
    """Shelve the Book: tableau scoring and greedy 4-player games, kernel against the reference."""
    import numba

    from ludolab.analysis.bench import record, time_call, with_threads
    from ludolab.sim import shelf_reference as ref
    from ludolab.stdlib.shelf import assumed_deck

    threads = numba.get_num_threads()
    deck = assumed_deck()
    attrs = deck.attrs.astype(np.int64)
    points = np.array(VARIANTS["standard"][0], dtype=np.int64)
    rng = np.random.default_rng(1)
    n_tab = int(min(max(games, 100_000), 2_000_000))
    tabs = np.argsort(rng.random((n_tab, 90)), axis=1)[:, :15].astype(np.int64)
    say("warming the kernels ...")
    S.score_many(tabs[:100], attrs, points)
    rules = ShelfRules(players=4)
    S.simulate(rules, ["greedy"], 20, 1, chunks=2)
    rows = []

    say(f"shelf scoring: {n_tab:,} tableaus ...")
    t_all = time_call(lambda: S.score_many(tabs, attrs, points), 0.5)
    t_one = with_threads(1, lambda: time_call(lambda: S.score_many(tabs, attrs, points), 0.5))
    al, pl = attrs.tolist(), points.tolist()
    sample = tabs[:20000].tolist()
    state = {"i": 0}

    def one_ref():
        ref.score(sample[state["i"] % len(sample)], al, pl)
        state["i"] += 1

    t_ref = time_call(one_ref, reference_seconds)
    rows.append(record("shelf tableau scoring (standard)", "tableaus", n_tab / t_all, threads, n_tab / t_one, 1 / t_ref))

    n_games = int(min(max(games // 500, 2000), 50_000))
    say(f"shelf greedy 4-player games: {n_games:,} ...")
    t_all = time_call(lambda: S.simulate(rules, ["greedy"], n_games, 1), 0.5)
    t_one = with_threads(1, lambda: time_call(lambda: S.simulate(rules, ["greedy"], n_games, 1), 0.5))
    state["g"] = 0

    def one_game():
        S.play_game(rules, ["greedy"], seed=1, game=state["g"], engine="reference")
        state["g"] += 1

    t_ref = time_call(one_game, reference_seconds)
    rows.append(record("shelf greedy 4-player games", "games", n_games / t_all, threads, n_games / t_one, 1 / t_ref))
    return rows
