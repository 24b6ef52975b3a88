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


def deck_case(players: int, params: dict | None, deck_seed: int = 0):
    """Shelve the Book at ``players`` seats on one deck of :data:`DECK_STUDY`, as a ruleset of the step
    interface (:class:`ludolab.sim.step.RulesCase`, labelled with the deck, ``potential`` in every seat), its
    named policies carrying that deck's own scoring tables.

    Args:
        params: None for the assumed deck, else the parameters of :func:`ludolab.stdlib.shelf.generate_deck`
            that differ from its defaults (``numbers`` as a pair), drawn with ``deck_seed``.

    Raises:
        RulesError: a player count the rules do not allow (SHB-2), or deck parameters the generator refuses
            (SHB-1)."""
    from ludolab.sim.shelf import step_policies, step_rules
    from ludolab.sim.step import RulesCase
    from ludolab.stdlib.shelf import assumed_deck

    if params is None:
        deck = assumed_deck()
    else:
        params = {k: tuple(v) if k == "numbers" else v for k, v in params.items()}
        deck = generate_deck(**{"seed": deck_seed, **params})
    ra = step_rules(ShelfRules(players=players, deck=deck))
    named = step_policies(ra)
    return RulesCase(deck.label, ra, players, (named["potential"],) * players, named=named)


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

    return Figure(figsize=(w, h), layout="constrained")


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
    ax.bar(df[label_col].astype(str), v, yerr=np.vstack([lo, hi]), capsize=4, label="whiskers: 95% CI")
    if fair is not None:
        ax.axhline(fair, color="k", ls="--", lw=1, label=f"fair share {fair:.2f}")
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    for t in ax.get_xticklabels():
        t.set_rotation(15)
    return fig


# ------------------------------------------------------------------ report
# What every column of the report's tables means (plain text, no backticks: the report shows the name).
COLUMN_DOC = {
    "policy": "the policy every player at the table uses",
    "players": "number of players",
    "deck": "the deck played (assumed marks the assumed default deck)",
    "mean_score": "mean final score, points per player and game",
    "diff_vs_first": "mean score minus that of random play on the same deals (paired)",
    "draw_share": "share of turns on which the player drew two cards blind",
    "first_player_win": "win share of the player who starts (ties shared; fair share 1/players)",
    "pts_colour": "mean points per player from colour runs",
    "pts_field": "mean points per player from field runs",
    "pts_number": "mean points per player from number sequences",
    "pts_author": "mean points per player from author-name sequences",
    "p_offer_better": ("hindsight share of turns where the best offer card gained more points at once than the "
                       "two cards really on top of the pile"),
    "p_draw_better": "hindsight share of turns where those two top cards gained more (the rest are ties)",
    "hero": "the single player's policy",
    "field": "the policy of the three other players",
    "hero_win_share": "share of games the single player wins (ties shared)",
    "fair_share": "win share of a player no better than the others (1/players)",
    "hero_mean": "the single player's mean score",
    "others_mean": "the other players' mean score",
    "position": "place in turn order (1 starts)",
    "win_share": "share of games won from that place (ties shared; fair 0.25)",
    "play": "how the potential policy treats the blind draw",
    "diff_vs_potential": "mean score minus that of the first row on the same deals (paired)",
    "variant": "scoring variant",
    "rule": "what runs score under it",
    "mean_random": "mean score of random play",
    "mean_greedy": "mean score of greedy play",
    "mean_skilled": "mean score of potential play",
    "spread": "potential minus random play on the same deals, points per player (paired)",
    "spread_sd": "that spread in standard deviations of a random player's score, comparable across variants",
    "skilled_win_share": "win share of one potential player against three greedy ones (ties shared; fair 0.25)",
    "share_colour": "share of the potential player's points from colour runs",
    "share_field": "share of the potential player's points from field runs",
    "share_number": "share of the potential player's points from number sequences",
    "share_author": "share of the potential player's points from author-name sequences",
    "deck_detail": "the deck's full description (generator parameters)",
    "edge": "potential minus random play on the same deals, points per player (paired)",
}


def columns_line(df: pd.DataFrame, overrides: dict | None = None) -> str:
    """``Columns:`` line defining every column the report shows of ``df`` (and nothing else), then what is
    the same on every row and what is in the CSV only (:func:`ludolab.analysis.report.table_layout`); a
    ``X_ci_low`` / ``X_ci_high`` pair is shown in brackets with ``X``.  A column without a definition raises
    KeyError."""
    from .report import table_layout

    doc = {**COLUMN_DOC, **(overrides or {})}
    lay = table_layout(df)
    parts = []
    for c in lay.shown:
        text = f"`{c}` {doc[c]}"
        if c in lay.with_ci:
            text += ", with its 95% confidence interval in brackets"
        parts.append(text)
    note = lay.note()
    return "Columns: " + "; ".join(parts) + "." + (" " + note if note else "") + "\n"


def _ci(v, lo, hi, f=".2f") -> str:
    from .report import ci_bound

    return f"{v:{f}} (95% CI {ci_bound(lo, format(lo, f))} to {ci_bound(hi, format(hi, f))})"


def _agreement(items, f=".2f") -> str:
    """Several estimates of one quantity (label, value, low, high) from different deals: does any two differ
    beyond noise (the 95% CI of their difference excludes 0, :func:`ludolab.analysis.findings.all_agree`)?"""
    from .findings import all_agree

    listed = "; ".join(f"{name} {_ci(v, lo, hi, f)}" for name, v, lo, hi in items)
    if all_agree(items):
        return (f"{listed}: no two differ beyond noise (the 95% CI of each difference includes 0), so the "
                "differences come from playing different deals")
    return f"{listed}: at least two differ beyond noise (the 95% CI of their difference excludes 0)"


def sequence_finding(policies: pd.DataFrame, skilled: str = "potential"):
    """Where a skilled player's points come from (SHB scoring): the share from sequences (numbers and
    author names) against runs of colour and field, from :func:`policy_table`.

    Args:
        policies: :func:`policy_table` (``policy``, ``mean_score``, ``pts_colour`` .. ``pts_author``).
        skilled: the policy whose points are split.

    Returns:
        a ``rule`` :class:`~ludolab.analysis.findings.Finding` quoting the sequence share.

    Raises:
        KeyError: ``skilled`` is not a row of ``policies``.
    """
    from .findings import Finding, Quote

    r = policies.set_index("policy").loc[skilled]
    pts = {g: float(r[f"pts_{g}"]) for g in GROUPS}
    total = sum(pts.values())
    seq = (pts["number"] + pts["author"]) / total
    text = (f"{100 * seq:.0f}% of a skilled (`{skilled}`) player's points come from sequences: "
            f"{pts['number']:.1f} points from number sequences and {pts['author']:.1f} from author-name sequences, "
            f"against {pts['colour']:.1f} from colour runs and {pts['field']:.1f} from field runs: when you place a "
            "book, look first for a place where it extends a sequence of numbers or names you can still finish, "
            "since that is where a skilled player's points come from.")
    return Finding("rule", "Build sequences: they bring most of the points.", text,
                   {f"pts_{g}": Quote(v, "shelf_policies", f"pts_{g}", skilled) for g, v in pts.items()})


def designer_finding(variants: pd.DataFrame):
    """Which scoring rewards skill, by two measures that need not agree: the spread of a skilled player over
    a random one (in standard deviations of a random player's score) and the win share of one skilled
    player against greedy ones, from :func:`variant_table`.

    Returns:
        an ``estimate`` :class:`~ludolab.analysis.findings.Finding`; each measure names its own most and least.
    """
    from .findings import Finding, Quote

    ws = variants.sort_values("spread_sd", ascending=False)
    top, low = ws.iloc[0], ws.iloc[-1]
    tie = ws.iloc[1]["spread_sd_ci_high"] >= top["spread_sd_ci_low"]
    wn = variants.sort_values("skilled_win_share", ascending=False)
    wtop, wlow = wn.iloc[0], wn.iloc[-1]
    text = (f"Measured as the spread of a skilled player over a random one, skill counts most under **{top['variant']}** "
            f"({_ci(top['spread_sd'], top['spread_sd_ci_low'], top['spread_sd_ci_high'])} standard deviations of a "
            f"random player's score)"
            + (f", tied within the CIs with **{ws.iloc[1]['variant']}** ({ws.iloc[1]['spread_sd']:.2f})" if tie else "")
            + f", and least under **{low['variant']}** ({low['spread_sd']:.2f}). Measured as one potential player "
            f"against three greedy ones, it counts most under **{wtop['variant']}** (win share "
            f"{_ci(wtop['skilled_win_share'], wtop['skilled_win_share_ci_low'], wtop['skilled_win_share_ci_high'], '.3f')}"
            f") and least under **{wlow['variant']}** ({wlow['skilled_win_share']:.3f}; a fair share is 0.25)"
            + ("" if wtop["variant"] != low["variant"] else
               f": **{low['variant']}** gives a skilled player the smallest lead over random play but the best chance "
               "against greedy players")
            + ".")
    return Finding("estimate", "For designers: which scoring rewards skill depends on the measure.", text,
                   {"spread_top": Quote(top["spread_sd"], "shelf_variants", "spread_sd", top["variant"]),
                    "spread_low": Quote(low["spread_sd"], "shelf_variants", "spread_sd", low["variant"]),
                    "win_top": Quote(wtop["skilled_win_share"], "shelf_variants", "skilled_win_share",
                                     wtop["variant"])})


def _policy_finding(df: pd.DataFrame):
    """Which policy scores most, from :func:`policy_table` (table ``shelf_policies``): its mean score per
    player against greedy and random play, and the paired edge over random play."""
    from .findings import Finding, Quote

    best = df.loc[df["mean_score"].idxmax()]
    rnd = df.loc[df["policy"] == "random"].iloc[0]
    grd = df.loc[df["policy"] == "greedy"].iloc[0]
    pol_desc = {"greedy": "takes the card that scores most right now",
                "potential": "also values unfinished runs it can still extend",
                "rollout": "plays out the rest of the game on samples of the unseen cards"}
    best_desc = pol_desc.get(best["policy"], "")
    text = (("Play for unfinished runs, not only for points now: " if best["policy"] == "potential" else "")
            + f"the `{best['policy']}` policy"
            + (f" ({best_desc})" if best_desc else "")
            + f" scores {_ci(best['mean_score'], best['mean_score_ci_low'], best['mean_score_ci_high'])} points per "
            f"player in four-player games, against {grd['mean_score']:.2f} for greedy play and {rnd['mean_score']:.2f} "
            f"for random play; skill is worth "
            f"{_ci(best['diff_vs_first'], best['diff_vs_first_ci_low'], best['diff_vs_first_ci_high'])} points per "
            "player over random play.")
    t = "shelf_policies"
    return Finding("estimate", "", text, {"best": Quote(best["mean_score"], t, "mean_score", best["policy"]),
                                          "greedy": Quote(grd["mean_score"], t, "mean_score", "greedy"),
                                          "random": Quote(rnd["mean_score"], t, "mean_score", "random"),
                                          "edge": Quote(best["diff_vs_first"], t, "diff_vs_first", best["policy"])})


def _look_ahead_finding(h2h: pd.DataFrame, deals: int):
    """One ``rollout`` and one ``potential`` player against three greedy ones, from two rows of
    :func:`head_to_head` (table ``shelf_head_to_head``, rollout first) on ``deals`` deals."""
    from .findings import Finding, Quote

    ro, po = h2h.iloc[0], h2h.iloc[1]
    text = (("Looking ahead pays most: " if ro["hero_win_share_ci_low"] > po["hero_win_share"] else "")
            + f"one `rollout` player against three greedy ones wins "
            f"{_ci(ro['hero_win_share'], ro['hero_win_share_ci_low'], ro['hero_win_share_ci_high'], '.3f')} of the "
            f"games, one `potential` player "
            f"{_ci(po['hero_win_share'], po['hero_win_share_ci_low'], po['hero_win_share_ci_high'], '.3f')} "
            f"(a fair share is 0.25; {deals:,} deals).")
    t = "shelf_head_to_head"
    return Finding("estimate", "", text, {"rollout": Quote(ro["hero_win_share"], t, "hero_win_share", "rollout"),
                                          "potential": Quote(po["hero_win_share"], t, "hero_win_share", "potential"),
                                          "fair": Quote(ro["fair_share"], t, "fair_share")})


#: Rules a player can follow at the table (SHB-5, SHB-6, SHB-8): ``(name, what it does, policy, parameters)``;
#: the first is the baseline every other seat plays, the last the strongest player the report plays itself
#: (searching play, stronger still, is in the stored deep run).
THUMB_RULES = (
    ("potential", "place for points now plus unfinished runs; draw blind only when no offer card gains a point",
     "potential", {}),
    ("points now only", "place each book where it scores most at once, ignoring unfinished runs (greedy)",
     "greedy", {}),
    ("unfinished runs count double", "as potential, with every unfinished run worth twice as much",
     "potential", {"open_run2": 0.6, "open_run3": 1.2, "open_run4": 1.8}),
    ("never draw blind", "as potential, but always take an offer card", "potential", {"draw_below": -1e9}),
    ("draw blind unless an offer scores 2", "as potential, but draw blind unless an offer card gains at least 2 "
     "points at once", "potential", {"draw_below": 1.5}),
    ("draw blind whenever allowed", "as potential, but draw blind whenever the pile allows", "potential",
     {"draw_below": 1e9}),
    ("look-ahead (rollout)", "Monte Carlo look-ahead, the strongest player the report plays itself", "rollout", {}),
)


def rules_of_thumb(rules: ShelfRules, deals: int = 400, seed: int = 0, thumb_rules=THUMB_RULES) -> pd.DataFrame:
    """Each rule of ``thumb_rules`` in one seat, the first rule (potential) in every other seat, on duplicate
    deals with the seats rotated (:func:`ludolab.sim.ladder.ladder`): what each rule is worth against the
    baseline in the same seat on the same deals, and how often it changes the seat's result.

    Args:
        rules: the ruleset (its deck and scoring); ``deals`` >= 2, each played once per seat per rule.
        thumb_rules: ``(name, description, policy name, parameters)`` rows, the baseline first.

    Returns:
        one row per rule: ``rule``, ``what``, ``mean`` (its mean final score, points), ``diff_vs_potential``
        with ``diff_vs_potential_ci_low/high`` (its score minus the baseline's in the same seat, paired 95% CI),
        ``share_changed`` (games, deal by seat, whose score it changes), ``win_share`` (pairs at the table won,
        ties half), ``verdict`` (:func:`ludolab.analysis.findings.compare` on ``shelf_points``, higher is
        better; ``baseline`` on the first row) and ``deals``.

    Raises:
        PolicyError: an unknown policy or parameter; ValueError: fewer than 2 deals.
    """
    from ludolab.sim import ladder as L
    from ludolab.sim import shelf_kernels as SK
    from ludolab.sim.step import RulesCase

    from .findings import one_seat

    ra = S.step_rules(rules)
    named = S.step_policies(ra)
    case = RulesCase("rules of thumb", ra, rules.players, (named["potential"],) * rules.players, named=named)
    cons = [L.Contender(name, "named", (named[pol][0], SK.policy_params(S.make_policy(pol, **par).array(), ra)))
            for name, _, pol, par in thumb_rules]
    rows = one_seat(S.step_game(), case, cons, deals, seed, "shelf_points")
    return pd.DataFrame([{"rule": name, "what": what, "mean": r["mean"], "diff_vs_potential": r["diff"],
                          "diff_vs_potential_ci_low": r["ci_low"], "diff_vs_potential_ci_high": r["ci_high"],
                          "share_changed": r["share_changed"], "win_share": r["win_share"], "verdict": r["verdict"],
                          "deals": int(deals)} for (name, what, _, _), r in zip(thumb_rules, rows)])


def thumb_finding(th: pd.DataFrame):
    """Where to place and when to draw blind, as rules a player can follow, each measured in one seat against
    potential play in the others and set beside the table's strongest player, its last row (table
    ``shelf_rules_of_thumb``).

    Returns:
        a ``rule`` :class:`~ludolab.analysis.findings.Finding` quoting each rule's paired difference and the
        share of games it changes.
    """
    from .findings import Finding, Quote, one_seat_clause

    t = "shelf_rules_of_thumb"
    rows = th.set_index("rule")
    base, best = th.iloc[0], th.iloc[-1]

    def one(r):
        return one_seat_clause(r.name, r.diff_vs_potential, r.diff_vs_potential_ci_low, r.diff_vs_potential_ci_high,
                               r.verdict, r.share_changed, "points a game")
    others = rows.iloc[1:-1]
    quotes = {f"diff_{i}": Quote(r.diff_vs_potential, t, "diff_vs_potential", name)
              for i, (name, r) in enumerate(rows.iterrows())}
    quotes.update({f"changed_{i}": Quote(r.share_changed, t, "share_changed", name)
                   for i, (name, r) in enumerate(rows.iterrows()) if i})
    worse = [n for n, r in others.iterrows() if r.verdict == "worse"]
    head = ("Place for unfinished runs and draw blind only when no offer card scores."
            if {"points now only", "never draw blind", "draw blind whenever allowed"} <= set(worse) else
            "Rules of thumb for placing and drawing, measured.")
    text = (f"Each rule played in one seat, `{base['rule']}` play in the other seats ({int(base.deals):,} duplicate "
            f"deals, seats rotated); its score minus that of `{base['rule']}` ({base['what']}) in the same seat: "
            + "; ".join(one(r) for _, r in others.iterrows())
            + f". The strongest player of this table, *{best['rule']}*, scores {best.diff_vs_potential:+.2f} points "
            f"a game (95% CI {best.diff_vs_potential_ci_low:+.2f} to {best.diff_vs_potential_ci_high:+.2f}) against "
            "that rule in the same seat: the rules of thumb leave at least that much on the table. Almost any "
            "change of play alters "
            "the rest of a game, so the share of games changed says how often a rule acts, not by how much.")
    return Finding("rule", head, text, quotes)


def _draw_finding(dw: pd.DataFrame):
    """What the blind draw is worth (SHB-6), from :func:`draw_option_table` (table ``shelf_draw_option``):
    never drawing blind and drawing blind whenever allowed, paired against the potential policy."""
    from .findings import Finding, Quote

    never, always = dw.iloc[1], dw.iloc[2]
    text = (("Draw two blind only when no offer card gains a point: "
             if never["diff_vs_potential_ci_high"] < 0 and always["diff_vs_potential_ci_high"] < 0 else
             "Drawing blind only when no offer card gains a point against the alternatives: ")
            + f"never drawing blind changes the score by "
            f"{_ci(never['diff_vs_potential'], never['diff_vs_potential_ci_low'], never['diff_vs_potential_ci_high'], '+.2f')}"
            f" points, drawing blind whenever allowed by "
            f"{_ci(always['diff_vs_potential'], always['diff_vs_potential_ci_low'], always['diff_vs_potential_ci_high'], '+.2f')}.")
    t = "shelf_draw_option"
    return Finding("rule", "", text, {"never": Quote(never["diff_vs_potential"], t, "diff_vs_potential", never["play"]),
                                      "always": Quote(always["diff_vs_potential"], t, "diff_vs_potential",
                                                      always["play"])})


def _first_finding(pos: pd.DataFrame):
    """Whether going first matters (SHB-3), from :func:`position_table` (table ``shelf_turn_order``)."""
    from .findings import Finding, Quote

    p1 = pos.iloc[0]
    first_fair = p1["win_share_ci_low"] <= 0.25 <= p1["win_share_ci_high"]
    text = (f"Going first {'does not measurably help' if first_fair else 'matters'}: the starting player of four wins "
            f"{_ci(p1['win_share'], p1['win_share_ci_low'], p1['win_share_ci_high'], '.3f')} of the games against a "
            "fair 0.25.")
    return Finding("estimate", "", text, {"first": Quote(p1["win_share"], "shelf_turn_order", "win_share", "1")})


def _players_finding(dfp: pd.DataFrame):
    """How the player count changes the score with `potential` play, 2 against 5 players, from
    :func:`by_players` (table ``shelf_players``)."""
    from .findings import Finding, Quote

    pot = dfp[dfp["policy"] == "potential"].set_index("players")
    r2, r5 = pot.loc[2], pot.loc[5]
    text = (("Bigger tables score more: " if r5["mean_score_ci_low"] > r2["mean_score_ci_high"] else "")
            + f"with `potential` play the mean goes from "
            f"{_ci(r2['mean_score'], r2['mean_score_ci_low'], r2['mean_score_ci_high'])} points per player with 2 "
            f"players to {_ci(r5['mean_score'], r5['mean_score_ci_low'], r5['mean_score_ci_high'])} with 5.")
    t = "shelf_players"
    return Finding("estimate", "", text, {"two": Quote(r2["mean_score"], t, "mean_score", "2, potential"),
                                          "five": Quote(r5["mean_score"], t, "mean_score", "5, potential")})


def _designer_pairs_finding(dv: pd.DataFrame):
    """:func:`designer_finding` with what scoring pairs does to the gap between greedy and potential play
    (table ``shelf_variants``)."""
    from .findings import Finding, Quote

    d = designer_finding(dv)
    std = dv.set_index("variant")
    gap_pairs = std.loc["pairs", "mean_skilled"] - std.loc["pairs", "mean_greedy"]
    gap_std = std.loc["standard", "mean_skilled"] - std.loc["standard", "mean_greedy"]
    text = (d.text + f" Scoring pairs shrinks the gap between greedy and potential play to {gap_pairs:.2f} points "
            f"(standard: {gap_std:.2f}).")
    t = "shelf_variants"
    gaps = {f"{v}_{c}": Quote(std.loc[v, c], t, c, v) for v in ("pairs", "standard")
            for c in ("mean_skilled", "mean_greedy")}
    return Finding(d.kind, d.title, text, {**d.quotes, **gaps})


def _deck_finding(dd: pd.DataFrame):
    """How much the deck matters, from :func:`deck_table` (table ``shelf_decks``): the range of skill's edge
    and how many decks let one potential player beat three greedy ones."""
    from .findings import Finding, Quote

    lo, hi = dd.loc[dd["edge"].idxmin()], dd.loc[dd["edge"].idxmax()]
    n_beat = int((dd["skilled_win_share_ci_low"] > 0.25).sum())
    text = (("The deck changes how much skill is worth, not who wins: " if n_beat == len(dd) else
             "The deck changes how much skill is worth: ")
            + f"the edge over random play runs from "
            f"{lo['edge']:.2f} ({lo['deck']}) to {hi['edge']:.2f} ({hi['deck']}) points across {len(dd)} decks, and one "
            f"potential player beats three greedy ones with {n_beat} of them.")
    t = "shelf_decks"
    return Finding("estimate", "", text, {"low": Quote(lo["edge"], t, "edge", lo["deck"]),
                                          "high": Quote(hi["edge"], t, "edge", hi["deck"])})


def _edge_items(df: pd.DataFrame, dv: pd.DataFrame, dd: pd.DataFrame) -> list:
    """Skill's edge at four players as three tables measure it on their own deals: (label, value, low, high)."""
    pot_main = df.loc[df["policy"] == "potential"].iloc[0]
    sv = dv.set_index("variant").loc["standard"]
    a90 = dd.iloc[0]
    return [("first table", pot_main["diff_vs_first"], pot_main["diff_vs_first_ci_low"],
             pot_main["diff_vs_first_ci_high"]),
            ("variant table (standard)", sv["spread"], sv["spread_ci_low"], sv["spread_ci_high"]),
            ("here (assumed-90)", a90["edge"], a90["edge_ci_low"], a90["edge_ci_high"])]


def _repeat_finding(df: pd.DataFrame, dv: pd.DataFrame, dd: pd.DataFrame):
    """Skill's edge read in three tables (``shelf_policies``, ``shelf_variants``, ``shelf_decks``), each on its own
    deals, and whether any two differ beyond noise (:func:`ludolab.analysis.findings.all_agree`)."""
    from .findings import Finding, Quote, all_agree

    items = _edge_items(df, dv, dd)
    (_, e1, *_), (_, e2, *_), (_, e3, *_) = items
    text = ("Numbers repeated across tables differ a little because each table plays its own deals: skill's edge at "
            f"four players reads {e1:.2f}, {e2:.2f} and {e3:.2f} points in three tables, "
            + ("and no two differ beyond noise, each difference's 95% CI including 0" if all_agree(items) else
               "and at least two differ beyond noise")
            + " (see the player-count and deck sections).")
    return Finding("estimate", "", text, {"policies": Quote(e1, "shelf_policies", "diff_vs_first", "potential"),
                                          "variants": Quote(e2, "shelf_variants", "spread", "standard"),
                                          "decks": Quote(e3, "shelf_decks", "edge", dd.iloc[0]["deck"])})


def section_findings(*, policies: pd.DataFrame, head_to_head: pd.DataFrame, h2h_deals: int, players: pd.DataFrame,
                     turn_order: pd.DataFrame, draw: pd.DataFrame, variants: pd.DataFrame,
                     decks: pd.DataFrame, thumb: pd.DataFrame, deep: dict | None = None,
                     strong_variants: dict | None = None, strong_decks: dict | None = None) -> list:
    """The findings of the Shelve the Book section, a pure function of its tables, most useful first.

    Args:
        policies: :func:`policy_table` (four players; rows ``random``, ``greedy``, ``potential``).
        head_to_head: two rows of :func:`head_to_head` (``rollout`` then ``potential`` against greedy players),
            played on ``h2h_deals`` deals.
        players: :func:`by_players` (rows for ``potential`` at 2 and 5 players).
        turn_order: :func:`position_table` (position 1 first).
        draw: :func:`draw_option_table` (as it is, never drawing blind, drawing blind whenever allowed).
        variants: :func:`variant_table` (rows ``standard`` and ``pairs`` among them).
        decks: :func:`deck_table` (the assumed deck first).
        thumb: :func:`rules_of_thumb` (potential first, its strongest player, rollout, last).
        deep: the stored deep run of strong play when it is shown (the arguments of :func:`deep_text` by
            name), else None.
        strong_variants: the stored deep run of the scoring variants under strong play when it is shown (the
            arguments of :func:`variants_strong_text` by name), else None.
        strong_decks: the stored deep run of the decks under strong play when it is shown (the arguments of
            :func:`decks_strong_text` by name), else None.

    Returns:
        :class:`~ludolab.analysis.findings.Finding` objects, each quoting its numbers from the tables
        ``shelf_policies``, ``shelf_head_to_head``, ``shelf_players``, ``shelf_turn_order``,
        ``shelf_draw_option``, ``shelf_rules_of_thumb``, ``shelf_variants`` and ``shelf_decks``.

    Raises:
        KeyError: a row named above is missing.
    """
    strong = [_strong_play_finding(**deep)] if deep else []
    return strong + [_policy_finding(policies), sequence_finding(policies, "potential"),
            _look_ahead_finding(head_to_head, h2h_deals), thumb_finding(thumb), _draw_finding(draw),
            _first_finding(turn_order),
            _players_finding(players), _designer_pairs_finding(variants), _deck_finding(decks),
            _repeat_finding(policies, variants, decks)] + (
        [_strong_variants_finding(**strong_variants)] if strong_variants else []) + (
        [_strong_decks_finding(**strong_decks)] if strong_decks else [])


def _study_policies(ctx, s) -> list[str]:
    """Which heuristic scores most: self-play per policy, four players (adds ``policies`` and the games ``res``)."""
    ctx.say("shelf: policies ...")
    df, res = policy_table(s.rules, DEFAULT_POLICIES, s.g_main, s.seed, track=True)
    best = df.loc[df["mean_score"].idxmax()]
    rnd = df.loc[df["policy"] == "random"].iloc[0]
    grd = df.loc[df["policy"] == "greedy"].iloc[0]
    s.tables["policies"], s.res = df, res
    return ["## Which heuristic scores most\n",
            f"Over {s.g_main:,} four-player deals of self-play, **{best['policy']}** scores most of the rules of "
            "thumb (random, greedy, potential; `rollout` and the searching players, which look ahead, are in the "
            "sections below): "
            f"{_ci(best['mean_score'], best['mean_score_ci_low'], best['mean_score_ci_high'])} points per player, "
            f"against {_ci(grd['mean_score'], grd['mean_score_ci_low'], grd['mean_score_ci_high'])} for greedy and "
            f"{_ci(rnd['mean_score'], rnd['mean_score_ci_low'], rnd['mean_score_ci_high'])} for random play. "
            f"On the same deals skill is worth "
            f"{_ci(best['diff_vs_first'], best['diff_vs_first_ci_low'], best['diff_vs_first_ci_high'])} points per "
            "player over random.\n",
            columns_line(df),
            ctx.table(df, "shelf_policies", s.meta(what="self-play per policy", policies=list(DEFAULT_POLICIES))),
            ctx.figure(fig_score_distribution(res, s.deck.label), "shelf_score_distribution",
                       "Final score distribution by policy"),
            ctx.figure(fig_points_sources(df, f"Where the points come from (4 players, standard scoring)\n"
                                              f"{s.deck.label}"),
                       "shelf_points_sources", "Points by combination kind and policy")]


def _stronger_still(s) -> str:
    """The sentence that the stored deep run's search beats ``rollout`` in one seat, paired on its deals (its
    ``paired`` row against ``rollout`` with a CI above 0), or "" when it is not shown or does not say so."""
    deep = s.tables.get("deep")
    if not deep:
        return ""
    p = deep["paired"]
    row = p[(p.versus == "rollout") & p.policy.str.startswith("search:")]
    if row.empty or not row.iloc[0].ci_low > 0:
        return ""
    r = row.iloc[0]
    return (f"It is not the strongest play there is: in the stored deep run, `{r.policy}` in one seat scores "
            f"{_ci(r['diff'], r.ci_low, r.ci_high, '+.2f')} points more than `rollout` in that seat on the same deals "
            "(\"Strong play at four players\", above). ")


def _study_head_to_head(ctx, s) -> list[str]:
    """Does looking ahead beat greedy players: rollout and potential, each against three greedy players."""
    import time

    ctx.say("shelf: rollout and potential against greedy players ...")
    g_h2h = s.tables["h2h_deals"] = 100 if ctx.quick else 400
    t0 = time.perf_counter()
    h_ro = head_to_head(s.rules, "rollout", "greedy", g_h2h, s.seed + 5)
    t1 = time.perf_counter()
    h_po = head_to_head(s.rules, "potential", "greedy", g_h2h, s.seed + 5)
    t2 = time.perf_counter()
    slower = (t1 - t0) / max(t2 - t1, 1e-9)
    ctx.note(f"shelf: rollout games took {slower:.0f} times as long as potential games")  # a timing: build.log
    h2h = s.tables["head_to_head"] = pd.DataFrame([h_ro, h_po])
    ro, po = h2h.iloc[0], h2h.iloc[1]
    return ["## Does looking ahead beat greedy players\n",
            f"Head to head on the same {g_h2h:,} deals, one player against three `greedy` players: `rollout` "
            f"wins {_ci(ro['hero_win_share'], ro['hero_win_share_ci_low'], ro['hero_win_share_ci_high'], '.3f')} "
            f"of the games with {ro['hero_mean']:.2f} points against their {ro['others_mean']:.2f}; `potential` wins "
            f"{_ci(po['hero_win_share'], po['hero_win_share_ci_low'], po['hero_win_share_ci_high'], '.3f')}; a fair "
            f"share is 0.25. "
            + (("Looking ahead over the unseen cards plays better than `potential` here. " + _stronger_still(s))
               if ro["hero_win_share"] > po["hero_win_share"] else "")
            + "These games are far slower than with `potential` (the build log has the times), which the larger "
            "studies below use as the skilled "
            "policy.\n",
            columns_line(h2h),
            ctx.table(h2h, "shelf_head_to_head", s.meta(what="one policy against three greedy players",
                                                        games=g_h2h))]


def _study_players(ctx, s) -> list[str]:
    """How the player count changes the score (2 to 5 players), and the turn order at four players."""
    ctx.say("shelf: player counts and the value of going first ...")
    g_pc = max(200, s.g_main // 4)
    dfp, _ = by_players(("random", "greedy", "potential"), g_pc, s.seed + 1)
    pos = position_table(s.res, 2)
    s.tables["players"], s.tables["turn_order"] = dfp, pos
    shown_p = dfp[["players", "policy", "deck", "mean_score", "mean_score_ci_low", "mean_score_ci_high",
                   "first_player_win", "first_player_win_ci_low", "first_player_win_ci_high"]]
    pot = dfp[dfp["policy"] == "potential"].set_index("players")
    r2, r5, r4 = pot.loc[2], pot.loc[5], pot.loc[4]
    df = s.tables["policies"]
    pot_main = df.loc[df["policy"] == "potential"].iloc[0]
    fair = 1 / dfp["players"]
    off = dfp[(dfp["first_player_win_ci_low"] > fair) | (dfp["first_player_win_ci_high"] < fair)]
    off_txt = ("every row's CI contains the fair share" if off.empty else
               f"{len(off)} of {len(dfp)} rows have a CI that misses it ("
               + ", ".join(f"{int(r['players'])} players {r['policy']} {r['first_player_win']:.3f}"
                           for _, r in off.iterrows())
               + f"); with {len(dfp)} intervals at 95% about {0.05 * len(dfp):.1f} are expected to miss by chance, "
               "so this is weak evidence of a seat effect; the four-player case is measured on four times as many "
               "deals in the next section")
    body = ["## How the player count changes the score\n",
            f"Mean score per player by player count ({g_pc:,} deals each). With `potential` play the mean goes from "
            f"{_ci(r2['mean_score'], r2['mean_score_ci_low'], r2['mean_score_ci_high'])} points with 2 players to "
            f"{_ci(r5['mean_score'], r5['mean_score_ci_low'], r5['mean_score_ci_high'])} with 5 (the offer holds "
            "players + 1 cards, so each turn offers more choice at a bigger table). The four-player rows repeat "
            "the first table on other deals; for `potential`: "
            + _agreement([("here", r4["mean_score"], r4["mean_score_ci_low"], r4["mean_score_ci_high"]),
                          ("first table", pot_main["mean_score"], pot_main["mean_score_ci_low"],
                           pot_main["mean_score_ci_high"])])
            + f". On the starting player's win share (fair: 1/players), {off_txt}.\n",
            columns_line(shown_p),
            ctx.table(shown_p, "shelf_players", s.meta(what="self-play by player count", games=g_pc))]
    p1 = pos.iloc[0]
    pos_off = pos[(pos["win_share_ci_low"] > 0.25) | (pos["win_share_ci_high"] < 0.25)]
    first_fair = p1["win_share_ci_low"] <= 0.25 <= p1["win_share_ci_high"]
    return body + ["## Does going first matter\n",
                   f"Turn order with four `potential` players on the {s.g_main:,} deals of the first table: the "
                   f"starting player wins {_ci(p1['win_share'], p1['win_share_ci_low'], p1['win_share_ci_high'], '.3f')}"
                   f" of the games (fair 0.25), "
                   + ("so going first gives no measurable advantage" if first_fair else
                      "so the start matters" + (" in its favour" if p1["win_share"] > 0.25 else " against it"))
                   + ("; no position's CI misses 0.25" if pos_off.empty else
                      f"; {len(pos_off)} of 4 positions have a CI that misses 0.25")
                   + ".\n",
                   columns_line(pos),
                   ctx.table(pos, "shelf_turn_order", s.meta(what="score and win share by turn position",
                                                             policy="potential"))]


def _study_draw(ctx, s) -> list[str]:
    """The offer against the blind draw: how often each was better, and what the option is worth (SHB-6)."""
    df = s.tables["policies"]
    o = df.loc[df["policy"] == "potential"].iloc[0]
    ctx.say("shelf: the value of the blind draw ...")
    g_draw = max(300, s.g_main // 4)
    dw = s.tables["draw"] = draw_option_table(s.rules, g_draw, s.seed + 6)
    never, always = dw.iloc[1], dw.iloc[2]
    return ["## The offer against the blind draw\n",
            f"At turns where both were open, the best offer card gave a bigger immediate gain than the two cards "
            f"really on top of the pile in {100 * o['p_offer_better']:.1f}% of turns "
            f"(95% CI {100 * o['p_offer_better_ci_low']:.1f} to {100 * o['p_offer_better_ci_high']:.1f}%), the blind "
            f"draw in {100 * o['p_draw_better']:.1f}%; the rest were ties (potential players, hindsight on the real "
            "pile; immediate points only, not the value of the card kept; these shares are columns of the first "
            "table).\n",
            f"What the option is worth, on the same {g_draw:,} deals with the potential policy in every seat: never "
            f"drawing blind changes the mean score by "
            f"{_ci(never['diff_vs_potential'], never['diff_vs_potential_ci_low'], never['diff_vs_potential_ci_high'], '+.2f')}"
            f" points; drawing blind whenever allowed by "
            f"{_ci(always['diff_vs_potential'], always['diff_vs_potential_ci_low'], always['diff_vs_potential_ci_high'], '+.2f')}.\n",
            columns_line(dw),
            ctx.table(dw, "shelf_draw_option", s.meta(what="value of the blind draw", games=g_draw))]


def _study_thumb(ctx, s) -> list[str]:
    """Rules of thumb for placing and drawing, each in one seat against potential play (adds ``thumb``)."""
    from .findings import tolerance_text

    ctx.say("shelf: rules of thumb against potential and rollout ...")
    deals = 100 if ctx.quick else 400
    th = s.tables["thumb"] = rules_of_thumb(s.rules, deals, s.seed + 7)
    shown = th[["rule", "mean", "diff_vs_potential", "diff_vs_potential_ci_low", "diff_vs_potential_ci_high",
                "share_changed", "win_share", "verdict", "deals"]]
    return ["## Rules of thumb at the table\n",
            "Rules a player can follow for where to place and when to draw blind, each played in one seat with "
            f"`potential` play in the other three, on {deals:,} duplicate deals with the seats rotated (every rule "
            "meets the same cards in every seat): "
            + "; ".join(f"*{r.rule}*: {r.what}" for r in th.itertuples())
            + ". The verdict is the report's paired rule on the difference against `potential` in the same seat: "
              "better or worse only when the paired 95% CI excludes 0, equally good only when it includes 0 and its "
              f"half-width is under {tolerance_text('shelf_points')}, cannot tell yet otherwise. One seat on "
              f"{deals:,} deals tells less than the whole table on more deals: the value of the blind draw above "
              "changes every seat's play at once.\n",
            columns_line(shown, {"rule": "the rule the one seat follows",
                                 "mean": "its mean final score (points per game)",
                                 "diff_vs_potential": "its score minus that of potential play in the same seat "
                                                      "on the same deals (points, paired)",
                                 "share_changed": "share of games, deal by seat, in which the rule changes the "
                                                  "seat's final score",
                                 "win_share": "share of the seat's pairings with each other player that it wins "
                                              "(ties half; 0.5 is even)",
                                 "verdict": "better, worse, equally good or cannot tell yet, against potential play "
                                            "(baseline: the potential row itself)",
                                 "deals": "duplicate deals, each played once per seat"}),
            ctx.table(th, "shelf_rules_of_thumb", s.meta(what="rules of thumb in one seat", deals=deals),
                      shown=shown)]


def _study_variants(ctx, s) -> list[str]:
    """What each scoring rule does (SHB-11): skill's spread and where the points come from, per variant."""
    ctx.say("shelf: scoring variants ...")
    dv = s.tables["variants"] = variant_table(4, "potential", s.g_var, s.seed + 2)
    widest, narrow = dv.loc[dv["spread_sd"].idxmax()], dv.loc[dv["spread_sd"].idxmin()]
    std = dv.set_index("variant")
    seq_std = std.loc["standard", "share_number"] + std.loc["standard", "share_author"]
    gap_pairs = std.loc["pairs", "mean_skilled"] - std.loc["pairs", "mean_greedy"]
    gap_std = std.loc["standard", "mean_skilled"] - std.loc["standard", "mean_greedy"]
    ws = dv.sort_values("spread_sd", ascending=False)
    tie_top = ws.iloc[1]["spread_sd_ci_high"] >= ws.iloc[0]["spread_sd_ci_low"]
    return ["## What each scoring rule does\n",
            f"{s.g_var:,} deals per variant, four players. Skill matters most under **{widest['variant']}** "
            f"({_ci(widest['spread_sd'], widest['spread_sd_ci_low'], widest['spread_sd_ci_high'])} standard deviations "
            f"of a random player's score) and least under **{narrow['variant']}** "
            f"({_ci(narrow['spread_sd'], narrow['spread_sd_ci_low'], narrow['spread_sd_ci_high'])})"
            + (f"; the runner-up **{ws.iloc[1]['variant']}** ({ws.iloc[1]['spread_sd']:.2f}) is within the CIs of "
               "the first, so the top two are not told apart" if tie_top else "")
            + f". Under the published scoring {100 * seq_std:.0f}% of a skilled player's points come from sequences "
            f"(numbers and names); scoring columns too lifts a random player from "
            f"{std.loc['standard', 'mean_random']:.1f} to {std.loc['columns', 'mean_random']:.1f} points and a skilled "
            f"one from {std.loc['standard', 'mean_skilled']:.1f} to {std.loc['columns', 'mean_skilled']:.1f}; scoring "
            f"pairs narrows the gap between greedy and potential play to {gap_pairs:.2f} points (standard: "
            f"{gap_std:.2f}).\n",
            columns_line(dv),
            ctx.table(dv, "shelf_variants", s.meta(what="scoring variants", games=s.g_var, skilled="potential")),
            ctx.figure(fig_ci_bars(dv, "variant", "spread_sd",
                                   f"Skill spread (potential - random) by scoring variant, 4 players\n{s.deck.label}",
                                   "spread (SD of a random player's score)"),
                       "shelf_variant_spread", "Skill spread by scoring variant"),
            ctx.figure(fig_points_sources(dv, "Share of the potential policy's points by kind, per scoring variant, "
                                          f"4 players\n{s.deck.label}",
                                          "variant", "share_", "share of points"),
                       "shelf_variant_sources", "Where the points come from under each variant")]


def _study_decks(ctx, s) -> list[str]:
    """How much the deck matters: skill's edge and win share on generated decks, against the assumed one."""
    ctx.say("shelf: deck sensitivity ...")
    dd = s.tables["decks"] = deck_table(4, "potential", s.g_deck, s.seed + 3)
    lo, hi = dd.loc[dd["edge"].idxmin()], dd.loc[dd["edge"].idxmax()]
    a90 = dd.iloc[0]
    b = dd.loc[dd["deck"] == "corr 0 (generated)"].iloc[0]

    def shift(r):
        noise = r["edge_ci_low"] <= b["edge_ci_high"] and b["edge_ci_low"] <= r["edge_ci_high"]
        return f"{r['deck']} {r['edge'] - b['edge']:+.2f}" + (" (within the CIs)" if noise else "")

    shifts = ", ".join(shift(r) for _, r in dd.iloc[2:].iterrows())
    n_beat = int((dd["skilled_win_share_ci_low"] > 0.25).sum())
    po = s.tables["head_to_head"].iloc[1]
    sv = s.tables["variants"].set_index("variant").loc["standard"]
    win_agree = _agreement([("head-to-head table", po["hero_win_share"], po["hero_win_share_ci_low"],
                             po["hero_win_share_ci_high"]),
                            ("variant table (standard)", sv["skilled_win_share"], sv["skilled_win_share_ci_low"],
                             sv["skilled_win_share_ci_high"]),
                            ("here (assumed-90)", a90["skilled_win_share"], a90["skilled_win_share_ci_low"],
                             a90["skilled_win_share_ci_high"])], ".3f")
    edge_agree = _agreement(_edge_items(s.tables["policies"], s.tables["variants"], dd))
    return ["## How much the deck matters\n",
            f"{s.g_deck:,} deals per deck, four players. Each generated deck has 90 cards, 6 fields x 5 colours and "
            "numbers 1-90 unless the row changes one thing (correlation = share of cards whose colour follows "
            f"their field). The edge of potential over random play ranges from "
            f"{_ci(lo['edge'], lo['edge_ci_low'], lo['edge_ci_high'])} points ({lo['deck']}) to "
            f"{_ci(hi['edge'], hi['edge_ci_low'], hi['edge_ci_high'])} ({hi['deck']}), against "
            f"{_ci(a90['edge'], a90['edge_ci_low'], a90['edge_ci_high'])} with the assumed deck. Against the "
            f"generated baseline (corr 0): {shifts}. One potential player beats three greedy ones (win share CI "
            f"above 0.25) with {n_beat} of {len(dd)} decks, so which policy wins does not hang on the "
            f"deck{'' if n_beat == len(dd) else ' everywhere'}; how many points skill is worth does, so those numbers "
            "wait for the real deck.\n",
            f"The same quantities appear in several tables, each on its own deals. Skill's edge in points: "
            f"{edge_agree}. One potential player's win share against three greedy ones: {win_agree}.\n",
            columns_line(dd, {"deck": "the deck studied (assumed-90 is the assumed default; the others are "
                                      "generated and change one parameter)"}),
            ctx.table(dd, "shelf_decks", s.meta(what="deck sensitivity", games=s.g_deck, skilled="potential")),
            ctx.figure(fig_ci_bars(dd, "deck", "skilled_win_share",
                                   "Win share of one potential player against three greedy ones, by deck",
                                   "win share (ties shared)", fair=0.25),
                       "shelf_deck_sensitivity",
                       "Win share of one potential player against three greedy ones, by deck (0.25 is a fair share)")]


# ------------------------------------------------------------------ strong play (a stored deep run)
DEEP_NAME = "shelf_strong_4p"

#: the goal for strong play: this mean score per player in four-player self-play (points per game)
SELF_PLAY_GOAL = 30.0

#: a doubling of the search's budget that gains less than this (points per game, its 95% CI within ± it)
#: leaves strong play where it stops improving
SATURATION_TOLERANCE = 0.2


def _search_words(label: str) -> str:
    """A ladder search label (``search:budget=512,rollout=potential``) in words."""
    from .ladder_cli import search_options

    opts = search_options(label)
    return f"{int(opts.get('budget', 64)):,} playouts per decision on sampled deals, `{opts.get('rollout')}` playing " \
           "every seat in the playouts"


def _doubling_words(lo: float, hi: float) -> str:
    """The verdict of one doubling's paired gain CI (points per game) by :func:`~ludolab.analysis.findings.doubling_verdict`."""
    from .findings import doubling_verdict

    tol = SATURATION_TOLERANCE
    return {"stopped": f"its CI lies within ±{tol:g} points: play has stopped improving, by that tolerance",
            "improving": "the CI lies above 0, so play has not stopped improving at the smaller budget",
            "worse": "the doubling scores less, the CI below 0",
            "not settled": f"the CI includes 0 but reaches beyond ±{tol:g} points, so whether play has stopped "
                           "improving is not settled by these deals"}[doubling_verdict(lo, hi, tol)]


def deep_text(self_play: pd.DataFrame, self_paired: pd.DataFrame, ladder: pd.DataFrame, paired: pd.DataFrame,
              plan: dict) -> list[str]:
    """The deep run in words, every number read from its tables: the strongest search in every seat (the
    plan's last ``self_play`` policy) against :data:`SELF_PLAY_GOAL` and beside rollout and potential in every
    seat, the last doubling there (the last row of ``self_paired``); the strongest search in one seat against
    the baseline field (the plan's last ``policies`` entry) and its doubling (the last row of ``paired``); the
    first player's edge under the strongest search and under the plan's first ``self_play`` policy.

    Args:
        self_play: the run's ``self_play`` table (``policy``, ``mean``, ``ci_low``, ``ci_high``, ``first_edge``
            and ``first_win_share`` with their CIs; points per player and game, higher is better).
        self_paired: its ``self_play_paired`` table (``policy``, ``versus``, ``diff``, ``ci_low``, ``ci_high``).
        ladder, paired: its ``ladder`` and ``paired`` tables (one seat against the baseline field).
        plan: the run's plan (``players``, ``deals``, ``baseline``, ``policies``, ``self_play``).
    """
    from .findings import side_of

    sp = self_play.set_index("policy")
    top = sp.loc[plan["self_play"][-1]]
    m, lo, hi = top["mean"], top.ci_low, top.ci_high
    g = SELF_PLAY_GOAL
    goal = (f"the goal set for strong play, {g:g} points per player in {plan['players']}-player self-play, is "
            + {"above": "reached (the CI lies above it)", "below": f"not reached: the CI ends {g - hi:.1f} points "
               "below it", "inside": "neither shown nor ruled out (it lies inside the CI)"}[side_of(m, lo, hi, g)])
    others = [p for p in ("rollout", plan["baseline"]) if p in sp.index]
    beside = " and ".join(f"{_ci(sp.loc[p, 'mean'], sp.loc[p, 'ci_low'], sp.loc[p, 'ci_high'])} with `{p}`"
                          for p in others)
    first = (f"With search ({_search_words(top.name)}) in every seat, a player scores "
             f"{_ci(m, lo, hi)} points a game ({plan['deals']:,} deals, {plan['players']} players, the rulebook "
             f"scoring), against {beside} in every seat on the same deals: {goal}.")
    last = self_paired.iloc[-1]
    prev = sp.loc[last.versus]
    second = (f"Against every seat searching with half the budget (it scores {prev['mean']:.2f}), doubling changes "
              f"the score by {_ci(last['diff'], last.ci_low, last.ci_high, '+.2f')} points per player, paired on "
              f"the same deals: {_doubling_words(last.ci_low, last.ci_high)}.")
    lad = ladder.set_index("policy")
    one = lad.loc[plan["policies"][-1]]
    lp = paired.iloc[-1]
    third = (f"One seat searching ({_search_words(one.name)}) among {plan['players'] - 1} `{plan['baseline']}` "
             f"players scores {one['mean']:.2f} points, {_ci(one['diff'], one.ci_low, one.ci_high, '+.2f')} against "
             f"`{plan['baseline']}` in the same seat, and wins "
             f"{_ci(one.win_share, one.win_ci_low, one.win_ci_high, '.1%')} of its pairings with the other seats")
    if lp.versus.startswith("search:") and lp.policy == one.name:
        third += (f"; against the same search with half the budget in that seat, doubling changes its score by "
                  f"{_ci(lp['diff'], lp.ci_low, lp.ci_high, '+.2f')} points: {_doubling_words(lp.ci_low, lp.ci_high)}.")
    else:
        third += (f"; against `{lp.versus}` in that seat, `{lp.policy}` scores "
                  f"{_ci(lp['diff'], lp.ci_low, lp.ci_high, '+.2f')} points more (paired).")
    base = sp.loc[plan["self_play"][0]]  # edge_vs_first is paired against it
    fair = 1 / plan["players"]

    def edge(r):
        return (f"{_ci(r.first_edge, r.first_edge_ci_low, r.first_edge_ci_high, '+.2f')} points over the mean of "
                f"the others, winning {_ci(r.first_win_share, r.first_win_ci_low, r.first_win_ci_high, '.1%')} of "
                "the games")
    d, dlo, dhi = top.edge_vs_first, top.edge_vs_first_ci_low, top.edge_vs_first_ci_high
    changed = ("is larger than" if dlo > 0 else "is smaller than" if dhi < 0 else "is not told apart from")
    fourth = (f"Going first, with `{top.name}` in every seat: {edge(top)} (a fair share of the wins is "
              f"{fair:.0%}); with `{base.name}` in every seat: {edge(base)}. The first player's edge under the search "
              f"{changed} that under `{base.name}` (paired on the same deals, the difference is "
              f"{_ci(d, dlo, dhi, '+.2f')} points).")
    return [first, second, third, fourth]


def _strong_play_finding(self_play, self_paired, ladder, paired, plan):
    """Strong play at four players, from the stored deep run (tables ``shelf_deep_self_play``,
    ``shelf_deep_self_play_paired``, ``shelf_deep_ladder``, ``shelf_deep_paired``), worded by :func:`deep_text`."""
    from .findings import Finding, Quote, side_of

    top = self_play.set_index("policy").loc[plan["self_play"][-1]]
    g = SELF_PLAY_GOAL
    title = (f"Search in every seat scores {top['mean']:.1f} points a player at four players"
             + {"above": f", above the {g:g}-point goal.", "below": f", short of the {g:g}-point goal.",
                "inside": f", not told apart from {g:g}."}[side_of(top["mean"], top.ci_low, top.ci_high, g)])
    t = "shelf_deep_self_play"
    return Finding("estimate", title, " ".join(deep_text(self_play, self_paired, ladder, paired, plan))
                   + " (stored deep run; see \"Strong play at four players\".)",
                   {"self_play": Quote(top["mean"], t, "mean", top.name),
                    "doubling": Quote(self_paired.iloc[-1]["diff"], "shelf_deep_self_play_paired", "diff",
                                      str(self_paired.iloc[-1].policy)),
                    "first_edge": Quote(top.first_edge, t, "first_edge", top.name)})


def _study_deep(ctx, s) -> list[str]:
    """Strong play at four players: the stored deep run ``shelf_strong_4p`` (:mod:`ludolab.analysis.deep`), or
    why it is not shown.  Adds ``deep`` to ``s.tables`` (None unless shown); returns the Markdown blocks."""
    from . import deep

    st, head = deep.section_start(ctx, DEEP_NAME, "shelf", "Strong play at four players (stored deep run)")
    s.tables["deep"] = None
    if st.status != "ok":
        return head
    summ, t = st.summary, st.tables()
    plan = summ["plan"]
    meta = deep.table_meta(st)
    sp = t["self_play"][["policy", "mean", "ci_low", "ci_high", "first_edge", "first_edge_ci_low",
                         "first_edge_ci_high", "first_win_share", "first_win_ci_low", "first_win_ci_high"]]
    shown = sp.rename(columns={"ci_low": "mean_ci_low", "ci_high": "mean_ci_high",
                               "first_win_ci_low": "first_win_share_ci_low",
                               "first_win_ci_high": "first_win_share_ci_high"})
    defs = {"policy": "the policy in every seat (a search is written `search:budget=B,rollout=NAME`: B playouts "
                      "per decision on sampled deals, NAME in every seat of the playouts)",
            "mean": "mean final score per player (points; higher is better)",
            "first_edge": "the first seat's score minus the mean of the other seats' on the same deal (points)",
            "first_win_share": "the first seat's share of the games won (ties shared)"}
    lad = t["ladder"]
    lshown = deep.shown_ladder(lad, ["policy", "mean", "diff", "ci_low", "ci_high", "win_share", "win_ci_low",
                                     "win_ci_high"])
    ldefs = {"policy": f"the policy in one seat, the other seats playing {plan['baseline']}",
             "mean": "its mean final score (points)",
             "diff": f"its score minus that of {plan['baseline']} in the same seat on the same deal (paired)",
             "win_share": "share of its pairings with the other seats it wins (ties 1/2)"}
    body = [columns_line(shown, defs), ctx.table(t["self_play"], "shelf_deep_self_play", meta, shown=shown),
            "\n" + columns_line(lshown, ldefs), ctx.table(lad, "shelf_deep_ladder", meta, shown=lshown)]
    deep.write_tables(ctx, t, "shelf_deep", ("paired", "by_seat", "self_play_paired", "self_play_by_seat"), meta)
    setting = (f"{plan['players']} players, the rulebook scoring, the assumed deck, {plan['deals']:,} deals with "
               f"seed {plan['seed']} in {plan['chunks']} chunks; each policy in every seat (self-play), and in one "
               f"seat in turn against `{plan['baseline']}` (the ladder of `ludolab shelf ladder --players "
               f"{plan['players']}`)")
    intro = (deep.stored_intro(st, setting, f"{plan['canary_deals']} deal of its own with a small search")
             + " Its provenance is in `tables/shelf_deep_self_play.meta.json`; each policy against the one before "
             "it, paired, is in `tables/shelf_deep_self_play_paired.csv` (every seat) and "
             "`tables/shelf_deep_paired.csv` (one seat), and the figures by seat in "
             "`tables/shelf_deep_self_play_by_seat.csv` and `tables/shelf_deep_by_seat.csv`.\n")
    s.tables["deep"] = {"self_play": t["self_play"], "self_paired": t["self_play_paired"], "ladder": lad,
                        "paired": t["paired"], "plan": plan}
    words = deep_text(t["self_play"], t["self_play_paired"], lad, t["paired"], plan)
    return head + [intro, " ".join(words[:2]) + "\n", " ".join(words[2:]) + "\n", *body]


# ------------------------------------------------------------------ scoring variants under strong play (a stored deep run)
VARIANTS_DEEP_NAME = "shelf_strong_variants"


def _ends(skill: pd.DataFrame, which: str) -> tuple:
    """``(top, runner-up, bottom, the one above the bottom)`` rows of the variants ordered by their skill spread
    under ``which``."""
    order = skill.sort_values(f"spread_sd_{which}", ascending=False)
    return order.iloc[0], order.iloc[1], order.iloc[-1], order.iloc[-2]


def _apart(hi_row, lo_row, which: str) -> bool:
    """Whether two variants' skill spreads under ``which`` are told apart: their 95% CIs do not meet."""
    k = f"spread_sd_{which}"
    return lo_row[f"{k}_ci_high"] < hi_row[f"{k}_ci_low"]


def variants_strong_text(skill: pd.DataFrame, self_play: pd.DataFrame, plan: dict) -> list[str]:
    """The scoring variants under strong play in words, every number read from the stored run's tables: which
    variant rewards skill most and least with the search in every seat and with the heuristic in every seat on
    the same deals, how much strong play changes each variant's spread (paired, deal by deal), and the first
    player's edge under the search in each variant.

    Args:
        skill: the run's ``skill`` table (per ``variant``: ``mean_random``, ``mean_heuristic``,
            ``mean_strong``, ``random_sd``, ``spread_sd_heuristic`` and ``spread_sd_strong`` with their CIs,
            ``gain`` with its paired CI; points per player and game).
        self_play: its ``self_play`` table (``variant``, ``policy``, ``first_edge`` with its CI).
        plan: the run's plan (``players``, ``deals``, ``self_play``: random, the heuristic, the search).
    """
    heur, strong = plan["self_play"][1], plan["self_play"][2]
    ts, rs, ls, ks = _ends(skill, "strong")
    th, rh, lh, kh = _ends(skill, "heuristic")

    def name(r):
        return f"**{r['variant'].removesuffix(' scoring')}**"

    def end(r, which, other, what):
        k = f"spread_sd_{which}"
        out = f"{name(r)} ({r[k]:.2f}, 95% CI {r[f'{k}_ci_low']:.2f} to {r[f'{k}_ci_high']:.2f}"
        if not (_apart(r, other, which) if what == "runner-up" else _apart(other, r, which)):
            out += f"; not told apart from the {what}, {name(other)} at {other[k]:.2f}: their CIs meet"
        return out + ")"

    def verdict(what, s_rows, h_rows, s_apart, h_apart):
        if s_apart and h_apart:
            return (f"the same scoring rewards skill {what} under both" if s_rows["variant"] == h_rows["variant"]
                    else f"strong play changes which scoring rewards skill {what}")
        if s_rows["variant"] == h_rows["variant"] and (s_apart or h_apart):
            return (f"{name(s_rows)} rewards skill {what} under both, told apart from the "
                    f"{'runner-up' if what == 'most' else 'next'} under "
                    f"{'the search' if s_apart else 'the heuristic'} only")
        return f"which scoring rewards skill {what} under both kinds of play is not settled by these deals"
    first = (f"Skill's spread over random play, in standard deviations of a random player's score: with search "
             f"({_search_words(strong)}) in every seat it is widest under {end(ts, 'strong', rs, 'runner-up')} and "
             f"narrowest under {end(ls, 'strong', ks, 'next')}; with `{heur}` in every seat on the same deals it is "
             f"widest under {end(th, 'heuristic', rh, 'runner-up')} and narrowest under "
             f"{end(lh, 'heuristic', kh, 'next')}: "
             f"{verdict('most', ts, th, _apart(ts, rs, 'strong'), _apart(th, rh, 'heuristic'))}, and "
             f"{verdict('least', ls, lh, _apart(ks, ls, 'strong'), _apart(kh, lh, 'heuristic'))}.")

    def change(r):
        sd = r["random_sd"]
        word = "wider" if r["gain_ci_low"] > 0 else "narrower" if r["gain_ci_high"] < 0 else "not told apart"
        return (f"{name(r)} {_ci(r['gain'] / sd, r['gain_ci_low'] / sd, r['gain_ci_high'] / sd, '+.2f')} standard "
                f"deviations, {word} ({r['gain']:+.2f} points a player, {r['mean_heuristic']:.2f} to "
                f"{r['mean_strong']:.2f})")
    wider, narrower = (skill["gain_ci_low"] > 0).all(), (skill["gain_ci_high"] < 0).all()
    lead = ("Strong play widens the spread under every scoring" if wider else
            "Strong play narrows the spread under every scoring" if narrower else
            "How the spread changes from the heuristic to the search")
    second = (f"{lead} (the search in every seat against the heuristic in every seat, paired deal by deal): "
              + "; ".join(change(r) for _, r in skill.iterrows()) + ".")
    sp = self_play[self_play["policy"] == strong]
    edged = sp[(sp["first_edge_ci_low"] > 0) | (sp["first_edge_ci_high"] < 0)]
    big = sp.loc[sp["first_edge"].abs().idxmax()]
    if edged.empty:
        third = (f"Under the search no scoring gives the first seat an edge told apart from 0 (the largest, "
                 f"{name(big)}: {_ci(big.first_edge, big.first_edge_ci_low, big.first_edge_ci_high, '+.2f')} points "
                 "over the mean of the others).")
    else:
        third = ("Under the search the first seat's edge over the mean of the others is told apart from 0 under "
                 + ", ".join(f"{name(r)} ({_ci(r.first_edge, r.first_edge_ci_low, r.first_edge_ci_high, '+.2f')} "
                             "points)" for _, r in edged.iterrows())
                 + f", and not under the other {len(sp) - len(edged)}.")
    return [first, second, third]


def _strong_variants_finding(skill: pd.DataFrame, self_play: pd.DataFrame, plan: dict):
    """The scoring variants under strong play, from the stored deep run (table ``shelf_deep_variants``), worded
    by :func:`variants_strong_text`."""
    from .findings import Finding, Quote

    ts, rs, _, _ = _ends(skill, "strong")
    th, _, _, _ = _ends(skill, "heuristic")
    v = ts["variant"].removesuffix(" scoring")
    if not _apart(ts, rs, "strong"):
        title = (f"Under strong play {v} and {rs['variant'].removesuffix(' scoring')} scoring are not told apart as "
                 "the scoring where skill counts most.")
    else:
        title = (f"Under strong play skill counts most with {v} scoring"
                 + (", as under the heuristic." if ts["variant"] == th["variant"] else
                    f", not with {th['variant'].removesuffix(' scoring')} scoring as under the heuristic."))
    t = "shelf_deep_variants"
    return Finding("estimate", title, " ".join(variants_strong_text(skill, self_play, plan))
                   + " (stored deep run; see \"What each scoring rule does under strong play\".)",
                   {"top_strong": Quote(ts["spread_sd_strong"], t, "spread_sd_strong", ts["variant"]),
                    "top_heuristic": Quote(th["spread_sd_heuristic"], t, "spread_sd_heuristic", th["variant"])})


def _rulesets_body(ctx, s, name: str, heading: str, col: str, what: str, rules_words: str, sd: bool,
                   caveat: str) -> tuple:
    """The parts shared by the report sections of the stored deep runs of many rulesets (scoring variants, decks):
    ``(the section's first blocks, None)`` when the run ``name`` is not shown (the blocks say why), else
    ``(those blocks, (plan, tables, its skill table, the intro paragraph, the Columns: line, the table
    block))``; the run's other tables written to ``tables/shelf_deep_<what>_*.csv`` with its provenance.
    Sets ``s.tables["strong_<what>"]`` to None (the caller fills it when the run is shown).

    Args:
        name, heading: the study (:data:`ludolab.analysis.deep.STUDIES`) and the section's heading;
        col: the skill table's ruleset column (``variant`` or ``deck``, the plan's list ``variants`` or
            ``decks``); what: ``variants`` or ``decks``;
        rules_words: the rules every ruleset shares, in words; sd: show the spreads in standard deviations of a
            random player's score (``spread_sd_*``) rather than in points (``spread_*``); caveat: a sentence
            after the run's opening."""
    from . import deep

    st, head = deep.section_start(ctx, name, "shelf", heading)
    s.tables[f"strong_{what}"] = None
    if st.status != "ok":
        return head, None
    plan, t = st.summary["plan"], st.tables()
    meta = deep.table_meta(st)
    skill = t["skill"]
    heur, strong = plan["self_play"][1], plan["self_play"][2]
    spread = "spread_sd" if sd else "spread"
    shown = skill[[col, "mean_random", "mean_heuristic", "mean_strong",
                   *(f"{spread}_{w}{e}" for w in ("heuristic", "strong") for e in ("", "_ci_low", "_ci_high")),
                   "gain", "gain_ci_low", "gain_ci_high"]]
    unit = (", in standard deviations of a random player's score (comparable across variants whose points differ)"
            if sd else " (points a player, paired)")
    defs = {col: ("the scoring variant (SHB-11), every other rule the rulebook's" if col == "variant" else
                  "the deck (assumed-90 the assumed default; the others generated with one parameter changed, as "
                  "in the table above)"),
            "mean_random": "mean final score per player with random play in every seat (points)",
            "mean_heuristic": f"the same with {heur} in every seat",
            "mean_strong": f"the same with {strong} in every seat",
            f"{spread}_heuristic": f"{heur} minus random play on the same deal{unit}",
            f"{spread}_strong": f"the same for {strong}",
            "gain": f"{strong} minus {heur} on the same deal (points a player, paired)"}
    prefix = f"shelf_deep_{what}"
    deep.write_tables(ctx, t, prefix, ("self_play", "self_play_paired", "self_play_by_seat"), meta)
    setting = (f"{plan['players']} players, {rules_words}, each of {len(plan[what])} {what} on the same "
               f"{plan['deals']:,} deals with seed {plan['seed']} in {plan['chunks']} chunks; `random`, `{heur}` "
               f"and `{strong}` each in every seat")
    intro = (deep.stored_intro(st, setting, f"{plan['canary_deals']} deal of its own per {col} with a small search")
             + f" {caveat} Its provenance is in `tables/{prefix}.meta.json`; the scores, the first player's edge and "
             f"the win shares of every policy on every {col} are in `tables/{prefix}_self_play.csv`, each policy "
             f"against the one before it (paired) in `tables/{prefix}_self_play_paired.csv`, and by seat in "
             f"`tables/{prefix}_self_play_by_seat.csv`.\n")
    return head, (plan, t, skill, intro, columns_line(shown, defs), ctx.table(skill, prefix, meta, shown=shown))


def _study_variants_strong(ctx, s) -> list[str]:
    """The scoring variants under strong play: the stored deep run ``shelf_strong_variants``
    (:mod:`ludolab.analysis.deep`), or why it is not shown.  Adds ``strong_variants`` to ``s.tables`` (None
    unless shown); returns the Markdown blocks."""
    head, shown = _rulesets_body(
        ctx, s, VARIANTS_DEEP_NAME, "What each scoring rule does under strong play (stored deep run)", "variant",
        "variants", "the assumed deck", True,
        "The budget is not one where play has stopped improving (see \"Strong play at four players\": under the "
        "rulebook scoring the search still gains from 256 to 1,024 playouts), so these are figures of strong play, "
        "not yet of the game's ceiling.")
    if shown is None:
        return head
    plan, t, skill, intro, cols, table = shown
    s.tables["strong_variants"] = {"skill": skill, "self_play": t["self_play"], "plan": plan}
    return head + [intro, " ".join(variants_strong_text(skill, t["self_play"], plan)) + "\n", cols, table]


# ------------------------------------------------------------------ decks under strong play (a stored deep run)
DECKS_DEEP_NAME = "shelf_strong_decks"


def _edge_range(skill: pd.DataFrame, which: str) -> tuple:
    """``(smallest, largest)`` rows of the decks by skill's edge over random play under ``which``."""
    k = f"spread_{which}"
    return skill.loc[skill[k].idxmin()], skill.loc[skill[k].idxmax()]


def decks_strong_text(skill: pd.DataFrame, plan: dict) -> list[str]:
    """The decks under strong play in words, every number read from the stored run's ``skill`` table: the
    range of skill's edge over random play across the decks with the search and with the heuristic in every
    seat (on the same deals), whether its ends are told apart, and what the search adds over the heuristic on
    each deck (paired, deal by deal).

    Args:
        skill: per ``deck``: ``spread_heuristic`` and ``spread_strong`` (the heuristic's and the search's
            score minus random play's on the same deal, points a player) with their CIs, ``gain`` (the search
            minus the heuristic) with its paired CI, ``mean_heuristic``, ``mean_strong``.
        plan: the run's plan (``decks``, ``deals``, ``self_play``: random, the heuristic, the search).
    """
    heur, strong = plan["self_play"][1], plan["self_play"][2]

    def cell(r, which):
        k = f"spread_{which}"
        return f"{r[k]:.2f} (95% CI {r[f'{k}_ci_low']:.2f} to {r[f'{k}_ci_high']:.2f}) under **{r['deck']}**"

    def ends(which):
        lo, hi = _edge_range(skill, which)
        k = f"spread_{which}"
        apart = lo[f"{k}_ci_high"] < hi[f"{k}_ci_low"]
        return (f"from {cell(lo, which)} to {cell(hi, which)}, "
                + ("the two told apart (their CIs do not meet)" if apart else "the two not told apart (their CIs "
                                                                            "meet)"))
    first = (f"Skill's edge over random play, in points a player on the same deals: with search "
             f"({_search_words(strong)}) in every seat it ranges over the {len(skill)} decks {ends('strong')}; with "
             f"`{heur}` in every seat {ends('heuristic')}.")

    def gain(r):
        word = "more" if r["gain_ci_low"] > 0 else "less" if r["gain_ci_high"] < 0 else "not told apart"
        return (f"**{r['deck']}** {_ci(r['gain'], r['gain_ci_low'], r['gain_ci_high'], '+.2f')}, {word} "
                f"({r['mean_heuristic']:.2f} to {r['mean_strong']:.2f})")
    second = (f"What the search scores over `{heur}` in every seat, paired deal by deal, points a player: "
              + "; ".join(gain(r) for _, r in skill.iterrows()) + ".")
    return [first, second]


def _strong_decks_finding(skill: pd.DataFrame, plan: dict):
    """The decks under strong play, from the stored deep run (table ``shelf_deep_decks``), worded by
    :func:`decks_strong_text`."""
    from .findings import Finding, Quote

    lo, hi = _edge_range(skill, "strong")
    title = (f"Under strong play skill's edge over random play ranges from {lo['spread_strong']:.1f} to "
             f"{hi['spread_strong']:.1f} points a player across {len(skill)} decks.")
    t = "shelf_deep_decks"
    return Finding("estimate", title, " ".join(decks_strong_text(skill, plan))
                   + " (stored deep run; see \"How much the deck matters under strong play\".)",
                   {"edge_low": Quote(lo["spread_strong"], t, "spread_strong", lo["deck"]),
                    "edge_high": Quote(hi["spread_strong"], t, "spread_strong", hi["deck"])})


def _study_decks_strong(ctx, s) -> list[str]:
    """The decks under strong play: the stored deep run ``shelf_strong_decks`` (:mod:`ludolab.analysis.deep`),
    or why it is not shown.  Adds ``strong_decks`` to ``s.tables`` (None unless shown); returns the Markdown
    blocks."""
    head, shown = _rulesets_body(
        ctx, s, DECKS_DEEP_NAME, "How much the deck matters under strong play (stored deep run)", "deck", "decks",
        "the rulebook scoring", False,
        "As for the scoring variants, the search's budget is not one where play has stopped improving.")
    if shown is None:
        return head
    plan, _, skill, intro, cols, table = shown
    s.tables["strong_decks"] = {"skill": skill, "plan": plan}
    return head + [intro, " ".join(decks_strong_text(skill, plan)) + "\n", cols, table]


def study(ctx) -> tuple[dict, list[str]]:
    """The Shelve the Book study: every run and table of the report section, in the order they are made (each
    table's provenance lists the runs made since the previous one).

    Args:
        ctx: the :class:`~ludolab.analysis.report.ReportContext` (``ctx.quick``: 1,500 deals for the policy
            table, 300 per variant, 200 per deck and 100 head to head, instead of 6,000, 1,200, 800 and 400;
            seeds ``ctx.seed`` to ``ctx.seed + 7``).

    Returns:
        ``(tables, body)``: the arguments of :func:`section_findings` by name, and the sub-sections as Markdown
        blocks (sub-heading, prose, columns line, table, charts).
    """
    from types import SimpleNamespace

    from ludolab.analysis.results import provenance
    from ludolab.stdlib.shelf import assumed_deck

    rules = ShelfRules(players=4)
    s = SimpleNamespace(deck=assumed_deck(), rules=rules, seed=ctx.seed, tables={},
                        g_main=1500 if ctx.quick else 6000, g_var=300 if ctx.quick else 1200,
                        g_deck=200 if ctx.quick else 800,
                        meta=lambda **fields: provenance("shelf", **rules_meta(rules, **fields)))
    body = []
    for part in (_study_policies, _study_deep, _study_head_to_head, _study_players, _study_draw, _study_thumb,
                 _study_variants, _study_variants_strong, _study_decks, _study_decks_strong):
        body += part(ctx, s)
    return s.tables, body


def report_section(ctx) -> str:
    """Shelve the Book: what a player should know first, then one sub-section per question (which
    policy wins, strong play, head to head, player count, going first, offer against blind draw, scoring
    variants, deck sensitivity, the last two also under strong play from stored deep runs); every table is
    preceded by a ``Columns:`` line defining each column it shows.

    The study (:func:`study`) makes the tables, :func:`section_findings` reads them, and
    :func:`~ludolab.analysis.findings.render_section` puts the section together."""
    from .findings import render_section

    tables, body = study(ctx)
    how = ("## Rules, policies and method\n",
           f"Rules: {ShelfRules(players=4).label()} (clauses in `seeds/shelve_the_book.md`). The assumed deck "
           "`assumed-90` has 6 fields x 5 colours x 3 cards, numbers 1-90 and real scholars' surnames, drawn once "
           f"with a fixed seed. Monte Carlo with root seed {ctx.seed}; 95% confidence intervals; policies and "
           "variants are compared on the same deals (common random numbers).\n",
           "Policies: " + "; ".join(f"`{k}`: {v[2]}" for k, v in S.POLICIES.items()) + ".\n")
    warning = ("**The deck is assumed** (the real deck list is unpublished): every number below depends on the "
               "`assumed-90` deck.\n")
    return render_section("Shelve the Book", section_findings(**tables), body, before=(warning,), after=how)


# ------------------------------------------------------------------ bench
def bench(games: int, reference_seconds: float, say) -> list[dict]:
    """Shelve the Book: tableau scoring and greedy 4-player games, kernel against the reference.

    games: sizes the runs (tableaus: games clipped to 100,000..2,000,000; games: games / 500
    clipped to 2,000..50,000); reference_seconds: each reference repeat's least time; say:
    a progress callback.  Returns records of :func:`ludolab.analysis.bench.record`."""
    import numba

    from ludolab.analysis.bench import record, time_call, time_pair
    from ludolab.sim import shelf_reference as ref
    from ludolab.stdlib.shelf import assumed_deck

    threads = numba.get_num_threads()
    deck = assumed_deck()
    attrs = deck.attrs.astype(np.int64)
    points = np.array(VARIANTS["standard"][0], dtype=np.int64)
    rng = np.random.default_rng(1)
    n_tab = int(min(max(games, 100_000), 2_000_000))
    # full tableaus of distinct cards as uint8 card ids (a 90-card deck), drawn 50,000 at a time so the
    # random keys and their argsort stay small (the whole bench peaks well under 1 GB)
    tabs = np.empty((n_tab, 15), dtype=np.uint8)
    for i in range(0, n_tab, 50_000):
        m = min(50_000, n_tab - i)
        tabs[i:i + m] = np.argsort(rng.random((m, len(deck))), axis=1)[:, :15]
    say("warming the kernels ...")
    S.score_many(tabs[:100], attrs, points)
    rules = ShelfRules(players=4)
    S.simulate(rules, ["greedy"], 20, 1, chunks=2)
    rows = []

    say(f"shelf scoring: {n_tab:,} tableaus ...")
    scores = np.empty(n_tab, dtype=np.int64)  # written in place: the timing is the scoring, not page faults
    t_all = time_call(lambda: S.score_many(tabs, attrs, points, out=scores))
    al, pl = attrs.tolist(), points.tolist()
    sample = tabs[:20000].tolist()
    state = {"i": 0}

    def one_ref():
        ref.score(sample[state["i"] % len(sample)], al, pl)
        state["i"] += 1

    t_one, t_ref = time_pair(lambda: S.score_many(tabs, attrs, points, out=scores), one_ref, reference_seconds,
                             threads=1)
    rows.append(record("shelf tableau scoring (standard, uint8 card ids)", "tableaus", n_tab / t_all, threads, n_tab / t_one, 1 / t_ref))

    n_games = int(min(max(games // 500, 2000), 50_000))
    say(f"shelf greedy 4-player games: {n_games:,} ...")
    t_all = time_call(lambda: S.simulate(rules, ["greedy"], n_games, 1))
    state["g"] = 0

    def one_game():
        S.play_game(rules, ["greedy"], seed=1, game=state["g"], engine="reference")
        state["g"] += 1

    t_one, t_ref = time_pair(lambda: S.simulate(rules, ["greedy"], n_games, 1), one_game, reference_seconds,
                             threads=1)
    rows.append(record("shelf greedy 4-player games", "games", n_games / t_all, threads, n_games / t_one, 1 / t_ref))
    return rows
