"""The Shut the Box section of ``ludolab report``, written as advice first.

The section opens with plain-language findings computed from the numbers it
shows further down (:func:`findings`); every table is preceded by a line that
defines each of its columns (:func:`columns_note`, from :data:`COLUMNS`); every
chart names its rules in the title.  Clause ids refer to ``seeds/shut_the_box.md``.
"""

from __future__ import annotations

import pandas as pd

from ludolab.sim import box
from ludolab.stdlib.box import ONE_DIE_RULES, SCORINGS, BoxRules

from .findings import Finding, Quote, render_markdown

#: What each column of a Shut the Box report table holds, in a player's words.
COLUMNS = {
    "tiles": "the box holds tiles 1 to this number",
    "one_die": "the one-die rule (STB-6): when a player may or must roll one die instead of two",
    "min_expected_score": "the lowest expected score, with the best play (points)",
    "max_p_shut": "the best chance to shut the box",
    "min_p_shut": "the chance to shut with the worst possible play (a bound, not a strategy)",
    "max_expected_score": "the expected score with the worst possible play (points; a bound)",
    "decimal": "the same chance as a decimal",
    "policy": "how the player chooses moves: `optimal (min E[score])` plays for the lowest expected score; "
              "the rules of thumb are described in the text",
    "mean_score": "expected final score, exact (points; lower is better)",
    "sd_score": "standard deviation of the final score (points)",
    "p_shut": "chance to shut the box",
    "p_below_5": "chance of a final score below 5",
    "p_below_10": "chance of a final score below 10",
    "mc_mean_score": "mean score over the simulated games (points)",
    "diff_vs_first": "extra points per turn against the optimal policy on the same dice (paired)",
    "quantity": "what is compared",
    "exact": "the exact value",
    "simulated": "the value over the simulated games",
    "ci_low": "lower 95% confidence limit of the simulated value",
    "ci_high": "upper 95% confidence limit of the simulated value",
    "inside": "whether the exact value lies inside the 95% confidence interval",
    "optimised_for": "the scoring the policy plays for (it minimises the expected score under it)",
    "scored_by": "the scoring its games are scored by",
    "open": "the tiles still open",
    "roll": "the dice total rolled",
    "cover_a": "the tiles the row's policy (playing for `optimised_for`) covers",
    "cover_b": "the tiles the best policy for `scored_by` covers instead",
    "p_meet": "the chance of meeting this position and roll in a turn (reaching the open tiles, then this roll)",
    "loss": "expected points lost under `scored_by` by covering `cover_a` instead of `cover_b`, once met",
    "weighted_loss": "`p_meet` x `loss`: what the difference costs per turn on average",
    "weighted_loss_pct": "`weighted_loss` in % of the best expected score under `scored_by`",
    "target": "the score T to beat (strictly below T wins, STB-10)",
    "players": "players in the game",
    "seat": "playing order (seat 1 plays first)",
    "p_win": "chance to win outright",
    "p_tie": "chance to share the win with equal lowest scores",
    "p_play": "chance the seat gets to play at all (an earlier player who shuts the box wins at once, STB-9)",
    "expected_score": "expected score of the seat, given it plays (points)",
    "mean_total": "mean running total at the end of the game (points)",
    "mean_rounds": "mean number of rounds the game lasted (its length, the same for every seat)",
    "cover": "the tiles the optimal player covers",
    "rule": "the rule of thumb: preferences read in order (`a > b`: prefer by a, break ties by b), then the dice "
            "habit where the one-die rule leaves a choice (`cover`: the dice count likelier to make a coverable "
            "roll; `one`: one die whenever allowed; `full`: two dice whenever allowed)",
    "keys": "how many preferences the rule has",
    "cost": "how much worse than optimal play the rule does (points of expected score)",
    "dice": "dice count of the roll (1 or 2)",
    "rule_plays": "what the rule does: the tiles it covers, or the dice it rolls",
    "instead": "what optimal play does instead",
    "how_often": "the chance per turn that a player following the rule meets this situation",
    "expected_loss": "`loss` x `how_often`: what the mistake costs per turn on average (points)",
    "player": "who plays, from least to most able: random moves, the best rule of thumb, optimal play, and a "
              "player with foresight who knows every die of the turn in advance",
    "share_of_p_shut": "how far the player gets from random play (0) towards foresight (1) in chance to shut",
    "share_of_mean": "how far the player gets from random play (0) towards foresight (1) in mean score",
    "lead": "your lead in points at the start of the turn (the opponent's total minus yours; negative: behind)",
    "cover_lowest": "the tiles the play for the lowest expected score covers",
    "cover_match": "the tiles the play for the match covers instead",
    "match": "the match: a number of rounds whose scores add up, lowest total wins (STB-11), or elimination at a "
             "threshold (STB-12)",
    "p_win_lowest": "the seat's chance to win the match when every seat plays each turn for its lowest expected "
                    "score",
    "p_win_alone": "the seat's chance to win when it alone plays every turn for the match (given both totals and "
                   "the rounds left) and the other seat plays for its lowest score",
    "gain": "`p_win_alone` minus `p_win_lowest`: what playing for the match is worth to the seat",
    "p_win_all": "the seat's chance to win when both seats play for the match",
    "p_tie_all": "the chance the match ends in a tie (equal lowest totals) when both seats play for the match",
    "choices": "how many different legal moves the roll allows there",
}
for _rule in ONE_DIE_RULES:
    COLUMNS.setdefault(_rule, f"one-die rule {_rule} (STB-6)")
for _sc in SCORINGS:
    COLUMNS.setdefault(_sc, f"scored by `{_sc}` (STB-8)")

#: The catalogue's rules of thumb in a player's words (sim/box_policies.py).
HEURISTIC_WORDS = {
    "greedy-high": "cover the highest tiles you can",
    "fewest-tiles": "cover as few tiles as possible",
    "most-tiles": "cover as many tiles as possible",
    "most-options": "leave the position whose next roll is most likely to be coverable",
    "random": "any legal move at random",
}


def column_definition(col: str, glossary: dict | None = None) -> str:
    """The definition of one report column.

    Args:
        col: the column name; ``X_ci_low``/``X_ci_high`` are read as the 95%
            confidence limits of ``X``.
        glossary: definitions that take precedence over :data:`COLUMNS`.

    Raises:
        KeyError: a column nobody defined (the report refuses to show it undefined).
    """
    g = {**COLUMNS, **(glossary or {})}
    if col in g:
        return g[col]
    for end, word in (("_ci_low", "lower"), ("_ci_high", "upper")):
        if col.endswith(end) and col[: -len(end)] in g:
            return f"{word} 95% confidence limit of `{col[: -len(end)]}`"
    raise KeyError(f"report column {col!r} has no definition")


def columns_note(df: pd.DataFrame, glossary: dict | None = None) -> str:
    """One line defining every column the report shows of ``df``, to print right before the table, then what
    is the same on every row and what is in the CSV only (:func:`ludolab.analysis.report.table_layout`).

    Returns:
        ``"Columns: `a`: ...; `b`: ...."`` in column order.

    Raises:
        KeyError: a column without a definition (see :func:`column_definition`).
    """
    from .report import table_layout

    lay = table_layout(df)
    parts = [f"`{c}`: {column_definition(str(c), glossary)}" + (", with its 95% confidence interval in brackets"
                                                               if c in lay.with_ci else "") for c in lay.shown]
    note = lay.note()
    return "Columns: " + "; ".join(parts) + "." + (" " + note if note else "") + "\n"


def rule_text(words: list[str]) -> str:
    """The lines of :func:`ludolab.sim.box_thumb.describe_rule` as prose: ``then ...`` lines continue the
    sentence before them, every other line starts a new sentence."""
    out = ""
    for w in words:
        w = w.strip().rstrip(".")
        if not out:
            out = w
        elif w.lower().startswith("then"):
            out += ", " + w
        else:
            out += ". " + w[:1].upper() + w[1:]
    return out + "." if out else ""


def _pct(p: float, digits: int = 1) -> str:
    return f"{100 * p:.{digits}f}%"


def findings(*, rules: BoxRules, summary: pd.DataFrame, optimal: pd.DataFrame, curve: pd.DataFrame,
             seats: pd.DataFrame, variants: pd.DataFrame, match_gain: pd.DataFrame | None = None,
             match_moves: pd.DataFrame | None = None,
             thumbs: pd.DataFrame | None = None, thumb_words: list[str] | None = None,
             thumb_mistakes: pd.DataFrame | None = None, skill: pd.DataFrame | None = None,
             extra: list[str] | None = None, one_die: pd.DataFrame | None = None,
             one_die_rules: pd.DataFrame | None = None) -> list[str]:
    """Plain-language findings, each computed from a table the section shows, as Markdown bullets.

    The findings themselves (:class:`~ludolab.analysis.findings.Finding` where they carry their quotes) are
    :func:`box_findings`; this renders them with :func:`~ludolab.analysis.findings.render_markdown`.

    Args:
        rules: the default rules (9 tiles).
        summary: :func:`ludolab.analysis.box.policy_summary` of the catalogue, optimal first.
        optimal: :func:`ludolab.analysis.box.optimal_values` (must hold the rules' tile count).
        curve: :func:`ludolab.analysis.box.beat_curve` of ``rules``.
        seats: :func:`ludolab.analysis.box.match_table` (2 players and more).
        variants: the tidy matrix of :func:`ludolab.analysis.box.variants_matrix`.
        match_gain: :func:`ludolab.sim.box_matchplay.adaptive_gain_table` (2 players), or ``None``.
        match_moves: :func:`ludolab.sim.box_matchplay.match_decisions`, most valuable first, or ``None``.
        thumbs: :func:`ludolab.sim.box_thumb.best_rules_of_thumb` for the mean score (best first), or ``None``;
        thumb_words: the best rule in words (:func:`ludolab.sim.box_thumb.describe_rule`);
        thumb_mistakes: :func:`ludolab.sim.box_thumb.thumb_exceptions` of the best rule.
        skill: :func:`ludolab.sim.box_foresight.foresight_table`, or ``None``.
        extra: findings from other analyses, inserted after the rule-of-thumb finding.
        one_die: :func:`ludolab.analysis.box.one_die_decisions` of ``rules``, or ``None``.
        one_die_rules: :func:`ludolab.analysis.box.one_die_total_rules` of ``rules``, or ``None``.

    Returns:
        Markdown bullet lines, most actionable first.
    """
    return render_markdown(box_findings(
        rules=rules, summary=summary, optimal=optimal, curve=curve, seats=seats, variants=variants,
        match_gain=match_gain, match_moves=match_moves, thumbs=thumbs, thumb_words=thumb_words,
        thumb_mistakes=thumb_mistakes, skill=skill, extra=extra, one_die=one_die,
        one_die_rules=one_die_rules)).split("\n")


def one_die_finding(decisions: pd.DataFrame, total_rules: pd.DataFrame) -> Finding:
    """The one-die rule a person can follow (STB-6), measured exactly against optimal play.

    Args:
        decisions: :func:`ludolab.analysis.box.one_die_decisions` (every position with a choice of dice).
        total_rules: :func:`ludolab.analysis.box.one_die_total_rules` (the rule "one die when the open tiles
            total K or less" for every K).

    Returns:
        A ``rule`` finding quoting the best K, its cost, the positions it gets wrong, and the cost of rolling
        one die whenever allowed and of never rolling it.
    """
    n_pos = len(decisions)
    n_one = int((decisions["dice"] == 1).sum())
    best = total_rules.loc[total_rules["cost"].idxmin()]
    k = int(best["max_total"])
    always = total_rules.iloc[-1]
    never = total_rules.iloc[0]
    wrong = decisions[(decisions["total"] <= k) != (decisions["dice"] == 1)]
    text = (f"Where the rules let you choose, roll one die when the open tiles total {k} or less, two dice "
            f"otherwise. Optimal play rolls one die in {n_one} of the {n_pos} positions with a choice and two "
            f"dice in the other {n_pos - n_one}; this rule costs {best['cost']:.3f} points per turn against "
            f"optimal play")
    if len(wrong):
        parts = [f"{r.open} open (one die {'better' if r.dice == 1 else 'worse'} by {r.gain:.2f} points, "
                 f"met {_pct(r.p_meet)} of turns)" for r in wrong.itertuples()]
        text += f", and it differs from optimal play only with " + "; ".join(parts)
    text += (f". Rolling one die whenever allowed costs {always['cost']:.2f} points per turn, more than never "
             f"rolling it ({never['cost']:.2f}).")
    return Finding("rule", f"The one-die rule: one die at a total of {k} or less.", text,
                   {"max_total": Quote(k, "box_one_die_rules", "max_total"),
                    "cost": Quote(best["cost"], "box_one_die_rules", "cost", str(k)),
                    "always_cost": Quote(always["cost"], "box_one_die_rules", "cost", str(int(always["max_total"]))),
                    "never_cost": Quote(never["cost"], "box_one_die_rules", "cost", "0"),
                    "positions": Quote(n_pos, "box_one_die_decisions", "open"),
                    "one_die_positions": Quote(n_one, "box_one_die_decisions", "dice")})


def _thumb_finding(opt, thumbs: pd.DataFrame, thumb_words, thumb_mistakes) -> Finding:
    """The best rule of thumb (``box_rules_of_thumb``) against optimal play (``opt``, the first row of
    ``box_policy_summary``), with its costliest mistake (``box_rule_of_thumb_mistakes``)."""
    t = thumbs.iloc[0]
    said = rule_text(thumb_words or [t["rule"]])
    text = (f"{said} This rule (`{t['rule']}`) costs {t['cost']:.2f} points "
            f"per turn against optimal play (expected score {t['mean_score']:.2f} against {opt['mean_score']:.2f})"
            f" and shuts the box {_pct(t['p_shut'])} of the time against {_pct(opt['p_shut'])}.")
    rt, ps = "box_rules_of_thumb", "box_policy_summary"
    quotes = {"cost": Quote(t["cost"], rt, "cost", t["rule"]), "mean": Quote(t["mean_score"], rt, "mean_score", t["rule"]),
              "p_shut": Quote(t["p_shut"], rt, "p_shut", t["rule"]),
              "optimal_mean": Quote(opt["mean_score"], ps, "mean_score", opt["policy"]),
              "optimal_p_shut": Quote(opt["p_shut"], ps, "p_shut", opt["policy"])}
    if thumb_mistakes is not None and len(thumb_mistakes):
        m = thumb_mistakes.iloc[0]
        where = (f"with {m['open']} open, before rolling" if pd.isna(m["roll"]) else
                 f"with {m['open']} open and a roll of {m['roll']}")
        text += (f" Its costliest mistake: {where}, it plays {m['rule_plays']} where {m['instead']} would be better "
                 f"({m['loss']:.2f} points each time).")
        quotes["mistake_loss"] = Quote(m["loss"], "box_rule_of_thumb_mistakes", "loss", str(m["open"]))
    return Finding("rule", "A rule of thumb nearly as good as perfect play.", text, quotes)


def _named_policy_finding(summary: pd.DataFrame, after_thumbs: bool) -> Finding:
    """The best and the worst named policy of the catalogue against optimal play (``box_policy_summary``,
    optimal first; ``random`` left out); ``after_thumbs``: the best rule of thumb was the finding before."""
    opt = summary.iloc[0]
    heur = summary.iloc[1:]
    heur = heur[heur["policy"] != "random"]
    best = heur.loc[heur["mean_score"].idxmin()]
    worst = heur.loc[heur["mean_score"].idxmax()]
    words = HEURISTIC_WORDS.get(best["policy"], best["policy"])
    title, lead = (("Not every simple rule is good.", "Of the named policies in the catalogue,") if after_thumbs else
                   ("A simple rule is nearly as good as perfect play.", "Of the rules of thumb in the catalogue,"))
    text = (f"{lead} "
            f"`{best['policy']}` ({words}) does best: it costs {best['mean_score'] - opt['mean_score']:.2f} points per "
            f"turn against optimal play (expected score {best['mean_score']:.2f} against {opt['mean_score']:.2f}) and "
            f"shuts the box {_pct(best['p_shut'])} of the time against {_pct(opt['p_shut'])}. The worst named policy, "
            f"`{worst['policy']}` ({HEURISTIC_WORDS.get(worst['policy'], '')}), costs "
            f"{worst['mean_score'] - opt['mean_score']:.1f} points.")
    t = "box_policy_summary"
    return Finding("exact", title, text, {
        "best_mean": Quote(best["mean_score"], t, "mean_score", best["policy"]),
        "best_p_shut": Quote(best["p_shut"], t, "p_shut", best["policy"]),
        "optimal_mean": Quote(opt["mean_score"], t, "mean_score", opt["policy"]),
        "optimal_p_shut": Quote(opt["p_shut"], t, "p_shut", opt["policy"]),
        "worst_mean": Quote(worst["mean_score"], t, "mean_score", worst["policy"])})


def _one_die_option_finding(rules: BoxRules, ov: pd.DataFrame, when_follows: bool) -> Finding | None:
    """What the option to roll one die is worth (STB-6), from ``box_optimal_values`` at the rules' tile count
    (indexed by ``one_die``); ``None`` when the rules have no one-die rule or the table lacks ``never``."""
    if not ({"never", rules.one_die}.issubset(ov.index) and rules.one_die != "never"):
        return None
    nv, od = ov.loc["never"], ov.loc[rules.one_die]
    text = (f"With the `{rules.one_die}` rule, a player who rolls one die only where it pays has an expected "
            f"score of {od['min_expected_score']:.2f} against {nv['min_expected_score']:.2f} when both dice "
            f"are always rolled; playing to shut the box rather than for the lowest score, the best chance to "
            f"shut is {_pct(od['max_p_shut'])} against {_pct(nv['max_p_shut'])}.")
    t = "box_optimal_values"
    quotes = {"one_die_score": Quote(od["min_expected_score"], t, "min_expected_score", rules.one_die),
              "never_score": Quote(nv["min_expected_score"], t, "min_expected_score", "never"),
              "one_die_shut": Quote(od["max_p_shut"], t, "max_p_shut", rules.one_die),
              "never_shut": Quote(nv["max_p_shut"], t, "max_p_shut", "never")}
    forced = rules.one_die.replace("-optional", "-forced")
    if forced != rules.one_die and forced in ov.index:
        fo = ov.loc[forced]
        verdict = "worse than" if fo["min_expected_score"] > nv["min_expected_score"] else "no better than"
        text += (f" Being made to roll one die (`{forced}`) is {verdict} never having it: expected score "
                 f"{fo['min_expected_score']:.2f}, chance to shut {_pct(fo['max_p_shut'])}.")
        quotes["forced_score"] = Quote(fo["min_expected_score"], t, "min_expected_score", forced)
    if when_follows:
        text += " When to take it is the next finding: most of the time two dice are still better."
    return Finding("exact", "The option to roll one die is worth having.", text, quotes)


def _target_finding(cur: pd.DataFrame) -> Finding:
    """What playing for a target T adds over playing for the lowest expected score, from the rows of
    :func:`ludolab.analysis.box.beat_curve` under one one-die rule (the frame the chart ``box_beat_curve`` draws;
    the table ``box_beat_targets`` shows four of its targets)."""
    gain = cur["p_beat"] - cur["p_beat_min_mean"]
    top = cur.loc[gain.idxmax()]
    text = (f"Playing to beat a target T instead of for the "
            f"lowest expected score gains at most {100 * gain.max():.1f} percentage points, at T = "
            f"{int(top['target'])} ({_pct(top['p_beat'])} instead of {_pct(top['p_beat_min_mean'])}); at most "
            f"targets the gain is a few tenths of a point.")
    t, row = "box_beat_curve", str(int(top["target"]))
    return Finding("exact", "Chasing a posted score hardly changes the play.", text,
                   {"target": Quote(top["target"], t, "target"), "p_beat": Quote(top["p_beat"], t, "p_beat", row),
                    "p_beat_min_mean": Quote(top["p_beat_min_mean"], t, "p_beat_min_mean", row)})


def _first_seat_finding(seats: pd.DataFrame, match_gain: pd.DataFrame | None) -> Finding:
    """Going first, one round with best play (``box_match_seats``: two seats or more), set beside the one-round
    rows of the match-play table (``box_match_play``) where it has them."""
    two = seats[seats["players"] == 2].set_index("seat")
    a, b = two.loc[1], two.loc[2]
    t = "box_match_seats"
    text = (f"In a two-player round with best play, the first player wins "
            f"{_pct(a['p_win'])} and the second {_pct(b['p_win'])} ({_pct(a['p_tie'])} ties): a first player "
            f"who shuts the box wins before the second rolls, which happens {_pct(1 - b['p_play'])} of the time.")
    quotes = {"first": Quote(a["p_win"], t, "p_win", "2 players, seat 1"),
              "second": Quote(b["p_win"], t, "p_win", "2 players, seat 2"),
              "tie": Quote(a["p_tie"], t, "p_tie", "2 players, seat 1"),
              "second_plays": Quote(b["p_play"], t, "p_play", "2 players, seat 2")}
    many = seats[seats["players"] == seats["players"].max()].set_index("seat")
    if len(many) > 2:
        text += (f" With {len(many)} players the first seat wins {_pct(many['p_win'].iloc[0])} and the last "
                 f"{_pct(many['p_win'].iloc[-1])}.")
        quotes["many_first"] = Quote(many["p_win"].iloc[0], t, "p_win", f"{len(many)} players, seat 1")
        quotes["many_last"] = Quote(many["p_win"].iloc[-1], t, "p_win", f"{len(many)} players, last seat")
    if match_gain is not None and {"p_win_all", "p_tie_all"}.issubset(match_gain.columns):
        one = match_gain[match_gain["match"] == "1 round"].set_index("seat")
        if {1, 2}.issubset(one.index):
            text += (f" The match-play table further down has other one-round figures (first player "
                     f"{_pct(one.loc[1, 'p_win_all'])}, second {_pct(one.loc[2, 'p_win_all'])}, ties "
                     f"{_pct(one.loc[1, 'p_tie_all'])}) because it scores a round as one round of a match: a "
                     "shut box scores 0 and does not end the game, so the second player still rolls and can "
                     "tie it.")
            m = "box_match_play"
            quotes.update(match_first=Quote(one.loc[1, "p_win_all"], m, "p_win_all", "1 round, seat 1"),
                          match_second=Quote(one.loc[2, "p_win_all"], m, "p_win_all", "1 round, seat 2"),
                          match_tie=Quote(one.loc[1, "p_tie_all"], m, "p_tie_all", "1 round, seat 1"))
    return Finding("exact", "Going first is a small edge.", text, quotes)


def _match_finding(match_gain: pd.DataFrame, match_moves: pd.DataFrame | None) -> Finding:
    """What playing every turn for the match is worth (``box_match_play``), and where it matters most
    (the first row of ``box_match_decisions``)."""
    g = match_gain.loc[match_gain["gain"].idxmax()]
    multi = match_gain[match_gain["match"] != "1 round"]
    h = multi.loc[multi["gain"].idxmax()] if len(multi) else g
    t = "box_match_play"
    quotes = {"gain": Quote(g["gain"], t, "gain", f"{g['match']}, seat {int(g['seat'])}"),
              "p_win_alone": Quote(g["p_win_alone"], t, "p_win_alone", g["match"]),
              "p_win_lowest": Quote(g["p_win_lowest"], t, "p_win_lowest", g["match"])}
    text = (f"Playing every turn for the "
            f"best chance to win the match, given both totals and the rounds left, is worth at most "
            f"{100 * g['gain']:.2f} percentage points (seat {int(g['seat'])}, {g['match']}: "
            f"{_pct(g['p_win_alone'], 2)} instead of {_pct(g['p_win_lowest'], 2)})")
    if h is not g:
        text += f"; over {h['match']} it is worth {100 * h['gain']:.2f} points to seat {int(h['seat'])}."
        quotes["gain_multi"] = Quote(h["gain"], t, "gain", f"{h['match']}, seat {int(h['seat'])}")
    else:
        text += "."
    if match_moves is not None and len(match_moves):
        mv = match_moves.iloc[0]
        lead = int(mv["lead"])
        text += (" Where it matters most: {} as seat {} with two rounds to play, {} open and a roll of {}: cover {} "
                 "instead of {}.".format("level on points" if lead == 0 else
                                         f"{abs(lead)} points " + ("ahead" if lead > 0 else "behind"),
                                         int(mv["seat"]), mv["open"], mv["roll"], mv["cover_match"],
                                         mv["cover_lowest"]))
        quotes["lead"] = Quote(lead, "box_match_decisions", "lead")
        quotes["roll"] = Quote(mv["roll"], "box_match_decisions", "roll")
    return Finding("exact", "In a match, playing each turn for your lowest score is nearly right.", text, quotes)


def _luck_finding(summary: pd.DataFrame, skill: pd.DataFrame | None, shut_opt: float | None) -> Finding:
    """How much of the result is luck: optimal play's chance to shut and spread (``box_policy_summary``),
    random moves, the best chance to shut (``shut_opt``, from ``box_optimal_values``) and the player with
    foresight (``box_skill``)."""
    opt = summary.iloc[0]
    ps = "box_policy_summary"
    quotes = {"p_shut": Quote(opt["p_shut"], ps, "p_shut", opt["policy"]),
              "sd": Quote(opt["sd_score"], ps, "sd_score", opt["policy"]),
              "mean": Quote(opt["mean_score"], ps, "mean_score", opt["policy"])}
    text = (f"Even the play for the lowest expected score shuts the box only "
            f"{_pct(opt['p_shut'])} of the time"
            + (f" (the play aimed at shutting it, {_pct(shut_opt)})" if shut_opt is not None else "")
            + f", and one turn's score varies by {opt['sd_score']:.1f} points (standard deviation) around its "
            f"mean of {opt['mean_score']:.2f}")
    if shut_opt is not None:
        quotes["max_p_shut"] = Quote(shut_opt, "box_optimal_values", "max_p_shut")
    rnd = summary[summary["policy"] == "random"]
    if len(rnd):
        r = rnd.iloc[0]
        text += (f"; skill is worth {r['mean_score'] - opt['mean_score']:.1f} points per turn against random "
                 f"moves (expected score {r['mean_score']:.2f}, chance to shut {_pct(r['p_shut'])})")
        quotes.update(random_mean=Quote(r["mean_score"], ps, "mean_score", "random"),
                      random_p_shut=Quote(r["p_shut"], ps, "p_shut", "random"))
    sk = skill.set_index("player") if skill is not None else None
    if sk is not None and "foresight" in sk.index:
        f = sk.loc["foresight"]
        text += (f". A player who knew every die of the turn in advance would still shut only {_pct(f['p_shut'])} "
                 f"of the time (mean score {f['mean_score']:.2f})")
        quotes.update(foresight_p_shut=Quote(f["p_shut"], "box_skill", "p_shut", "foresight"),
                      foresight_mean=Quote(f["mean_score"], "box_skill", "mean_score", "foresight"))
        if "optimal for the mean score" in sk.index:
            o = sk.loc["optimal for the mean score"]
            text += (f": optimal play gets {_pct(o['share_of_mean'], 0)} of the way from random moves to foresight "
                     f"in mean score, {_pct(o['share_of_p_shut'], 0)} in chance to shut")
            quotes.update(share_mean=Quote(o["share_of_mean"], "box_skill", "share_of_mean", "optimal"),
                          share_p_shut=Quote(o["share_of_p_shut"], "box_skill", "share_of_p_shut", "optimal"))
    return Finding("exact", "Most of the result is luck.", text + ".", quotes)


def _scoring_finding(variants: pd.DataFrame) -> Finding | None:
    """The costliest and the cheapest wrong scoring to play for (STB-8), from the tidy matrix of
    :func:`ludolab.analysis.box.variants_matrix` (shown as ``box_variants_cost_pct``: a row per scoring played
    for, a column per scoring scored by); ``None`` without a pair of different scorings."""
    var = variants.set_index(["optimised_for", "scored_by"])["cost_pct"]
    off = var[[a != b for a, b in var.index]]
    if not len(off):
        return None
    (a, b), c = off.idxmax(), off.max()
    (a2, b2), c2 = off.idxmin(), off.min()
    text = (f"Playing for `{a}` when the game is scored by "
            f"`{b}` costs {c:.1f}% of the best expected score; the closest pair, playing for `{a2}` when "
            f"scored by `{b2}`, costs {c2:.1f}%.")
    t = "box_variants_cost_pct"
    return Finding("exact", "Play for the scoring you are scored by.", text,
                   {"most": Quote(c, t, b, a), "least": Quote(c2, t, b2, a2)})


def box_findings(*, rules: BoxRules, summary: pd.DataFrame, optimal: pd.DataFrame, curve: pd.DataFrame,
                 seats: pd.DataFrame, variants: pd.DataFrame, match_gain: pd.DataFrame | None = None,
                 match_moves: pd.DataFrame | None = None, thumbs: pd.DataFrame | None = None,
                 thumb_words: list[str] | None = None, thumb_mistakes: pd.DataFrame | None = None,
                 skill: pd.DataFrame | None = None, extra: list | None = None,
                 one_die: pd.DataFrame | None = None, one_die_rules: pd.DataFrame | None = None) -> list:
    """The findings of :func:`findings` as data: :class:`~ludolab.analysis.findings.Finding` objects (with
    the numbers they quote, by table: ``box_policy_summary``, ``box_optimal_values``, ``box_one_die_rules``,
    ``box_beat_curve``, ``box_match_seats``, ``box_match_play``, ``box_match_decisions``, ``box_skill``,
    ``box_rules_of_thumb``, ``box_variants_cost_pct``), most actionable first; ``extra`` findings are put
    after the rule-of-thumb ones as they are.  A pure function of the tables; arguments as :func:`findings`."""
    has_thumbs = thumbs is not None and len(thumbs) > 0
    out = [_thumb_finding(summary.iloc[0], thumbs, thumb_words, thumb_mistakes)] if has_thumbs else []
    out.append(_named_policy_finding(summary, has_thumbs))
    out += list(extra or [])
    ov = optimal[optimal["tiles"] == rules.n_tiles].set_index("one_die")
    option = _one_die_option_finding(rules, ov, one_die_rules is not None and len(one_die_rules) > 0)
    out += [option] if option is not None else []
    if one_die is not None and len(one_die) and one_die_rules is not None and len(one_die_rules):
        out.append(one_die_finding(one_die, one_die_rules))
    cur = curve[curve["one_die"] == rules.one_die]
    if len(cur):
        out.append(_target_finding(cur))
    if {1, 2}.issubset(seats[seats["players"] == 2]["seat"]):
        out.append(_first_seat_finding(seats, match_gain))
    if match_gain is not None and len(match_gain):
        out.append(_match_finding(match_gain, match_moves))
    out.append(_luck_finding(summary, skill, None if option is None else option.quotes["one_die_shut"].value))
    scoring = _scoring_finding(variants)
    return out + ([scoring] if scoring is not None else [])


def _study_optimal_values(ctx, s) -> list[str]:
    """Optimal play for every one-die rule (9, 10 and 12 tiles), and the exact fractions for 1-9.

    Reads the study so far from ``s`` (:func:`study`), adds ``ov`` to it; returns the Markdown blocks."""
    from ludolab.analysis import box as ba

    rules, exact, table = s.rules, s.exact, s.table
    ctx.say("box: optimal values for every one-die rule ...")
    ov = ba.optimal_values((9, 10, 12))
    md = ["## Optimal play for every one-die rule\n",
          "Best expected score and best chance to shut, with the worst play (adversarial) as a bound. "
          "Exact, for 9, 10 and 12 tiles. The one-die rules: `never` (always two dice), `789-optional` / "
          "`789-forced` (one die may / must be rolled once 7, 8 and 9 are covered), `le6-optional` / "
          "`le6-forced` (once the open tiles total 6 or less), `always-optional` (before every roll).\n",
          table(ov, "box_optimal_values", exact(
              vary={"tiles": ("tiles", [9, 10, 12]), "one_die": ("one_die", ONE_DIE_RULES)},
              what="optimal start values; column tiles is the tile count N (tiles 1..N)",
              policy="optimal for each column's objective; worst (adversarial) for min_p_shut and "
                     "max_expected_score",
              objectives={"min_expected_score": "min E[score]", "max_p_shut": "max P(shut)",
                          "min_p_shut": "min P(shut)", "max_expected_score": "max E[score]"}))]
    exact_rows = []
    exact_rules = ("never", "789-optional", "le6-forced")
    for rule in exact_rules:
        sol = box.solve(rules.replace(one_die=rule), "shut", exact=True)
        v = sol.start_value_exact
        exact_rows.append({"one_die": rule, "max_p_shut": f"{v.numerator}/{v.denominator}",
                           "decimal": float(v)})
    md += ["\nExact fractions for the chance to shut 1-9 (these reproduce the published values: "
           "466473281/6530347008 with two dice always, 956177159/9795520512 with a one-die rule).\n",
           table(pd.DataFrame(exact_rows), "box_exact_p_shut",
                 exact(vary={"one_die": ("one_die", exact_rules)}, policy="optimal",
                       objective=box.objective_label("shut")), ".10f",
                 glossary={"max_p_shut": "the best chance to shut the box, as an exact fraction"})]

    s.ov = ov
    return md


def _study_one_die(ctx, s) -> list[str]:
    """When to roll one die (STB-6): every position with a choice, and the rule "one die at a total of K or less".

    Reads the study so far from ``s`` (:func:`study`), adds ``one_die, one_die_rules`` to it; returns the Markdown blocks."""
    from ludolab.analysis import box as ba
    from ludolab.analysis import box_plots as plots

    rules, exact, table, opt_label = s.rules, s.exact, s.table, s.opt_label
    ctx.say("box: when to roll one die ...")
    one_die = ba.one_die_decisions(rules)
    one_die_rules = ba.one_die_total_rules(rules)
    k_best = int(one_die_rules.loc[one_die_rules["cost"].idxmin(), "max_total"])
    k_show = sorted({0, k_best - 1, k_best, k_best + 1, int(one_die_rules["max_total"].max())} & set(
        one_die_rules["max_total"]))
    md = [f"\n## When to roll one die\n",
          f"Under the `{rules.one_die}` rule the choice of one die or two arises in {len(one_die)} positions. "
          "Each rule below plays the optimal moves and rolls one die, where allowed, when the open tiles total "
          f"`max_total` or less (0: always two dice); exact. The best total is {k_best}; the table shows it, its "
          f"neighbours and the two extremes (every total from 0 to {int(one_die_rules['max_total'].max())} is in "
          "the CSV).\n",
          table(one_die_rules, "box_one_die_rules",
                exact(policy="optimal moves, dice by the rule of the row", objective="min E[score]"), ".4g",
                glossary={"max_total": "the rule: one die, where allowed, when the open tiles total this or less",
                          "mean_score": "expected final score with the rule (points)",
                          "p_shut": "chance to shut the box with the rule",
                          "cost": "points per turn above optimal play",
                          "wrong": "positions where the rule's dice count differs from the optimal one",
                          "how_often": "expected number of such positions met per turn by optimal play (for one "
                                       "position: the chance to meet it)"},
                shown=one_die_rules[one_die_rules["max_total"].isin(k_show)]),
          "\nThe chart shows, for each of those positions, how much better one die is than two (right) or two "
          "than one (left) when the rest is played optimally; the dashed line is where the rule switches.\n",
          ctx.figure(plots.fig_one_die_decisions(one_die, k_best, rules=rules), "box_one_die_decisions",
                     f"One die against two in each of the {len(one_die)} positions with a choice"),
          f"\nThe {len(one_die)} positions (CSV: `tables/box_one_die_decisions.csv`): "
          f"one die is optimal in {int((one_die['dice'] == 1).sum())}.\n"]
    ctx.table(one_die, "box_one_die_decisions", exact(policy=opt_label, objective="min E[score]"))  # CSV only

    s.one_die, s.one_die_rules = one_die, one_die_rules
    return md


def _study_policies(ctx, s) -> list[str]:
    """How much the policy matters: the catalogue, exactly, then paired Monte Carlo on the same dice.

    Reads the study so far from ``s`` (:func:`study`), adds ``pols, summ`` to it; returns the Markdown blocks."""
    from ludolab.analysis import box as ba
    from ludolab.analysis import box_plots as plots

    rules, games, exact, simulated, table = s.rules, s.games, s.exact, s.simulated, s.table
    ctx.say("box: policy comparison ...")
    pols = ba.catalogue(rules)
    cmp_df = box.compare(pols, games, ctx.seed)
    summ = ba.policy_summary(pols)
    rules_of_thumb = "; ".join(f"`{k}`: {v}" for k, v in HEURISTIC_WORDS.items())
    md = ["\n## How much the policy matters\n",
          f"Exact summary of each policy ({rules.n_tiles} tiles). The rules of thumb: {rules_of_thumb}; each of "
          "them rolls one die, when allowed, if that gives the better chance to cover the next roll.\n",
          table(summ, "box_policy_summary", exact(policies=[p.label for p in pols], targets=[5, 10])),
          f"\nPaired Monte Carlo over the same {games:,} dice sequences (common random numbers), against the "
          "exact mean.\n",
          table(cmp_df[["policy", "mean_score", "mc_mean_score", "mc_mean_score_ci_low", "mc_mean_score_ci_high",
                        "diff_vs_first", "diff_vs_first_ci_low", "diff_vs_first_ci_high"]],
                "box_policy_compare", simulated(policies=[p.label for p in pols], paired_against=pols[0].label,
                                                method="paired Monte Carlo (common random numbers)")),
          "\nThe chart draws optimal play as bars and the rules of thumb far from it as lines (a); those whose "
          "lines would lie on the optimal one are drawn as differences from it (b): below zero, the rule of "
          "thumb finishes at or below that score less often than optimal play.\n",
          ctx.figure(plots.fig_score_distributions(ba.score_distributions(pols), rules=rules),
                     "box_score_distributions", "Final score distribution by policy")]

    s.pols, s.summ = pols, summ
    return md


def _study_mc_check(ctx, s) -> list[str]:
    """The Monte Carlo check: the simulated optimal policy against its exact values.

    Reads the study so far from ``s`` (:func:`study`), adds ``opt`` to it; returns the Markdown blocks."""
    from ludolab.analysis import box_plots as plots

    rules, games, pols, simulated, table = s.rules, s.games, s.pols, s.simulated, s.table
    ctx.say("box: Monte Carlo check ...")
    opt = pols[0]
    sim = box.simulate(opt, games, ctx.seed + 1)
    ev = box.evaluate(opt)
    m, p = sim.mean(), sim.p_shut()
    chk = pd.DataFrame([
        {"quantity": "mean score", "exact": ev.mean(), "simulated": m.value, "ci_low": m.low, "ci_high": m.high,
         "inside": m.contains(ev.mean())},
        {"quantity": "P(shut)", "exact": ev.p_shut, "simulated": p.value, "ci_low": p.low, "ci_high": p.high,
         "inside": p.contains(ev.p_shut)}])
    md = ["\n### Simulation against the exact values\n",
          table(chk, "box_mc_check", simulated(policy=opt.label, objective=box.objective_label("expected-score"),
                                               **sim.provenance), ".6g"),
          ctx.figure(plots.fig_mc_distribution(ev.distribution(), sim.distribution(), sim.games, rules=rules,
                                               policy=opt.label),
                     "box_mc_distribution", "Simulated against exact score distribution")]

    s.opt = opt
    return md


def _study_thumbs(ctx, s) -> list[str]:
    """Rules a person can remember: the best rules of thumb, exactly, with their costliest mistakes and the card.

    Reads the study so far from ``s`` (:func:`study`), adds ``thumbs, thumb_words, mistakes`` to it; returns the Markdown blocks."""
    rules, exact, table = s.rules, s.exact, s.table
    ctx.say("box: rules of thumb ...")
    from ludolab.sim import box_thumb

    thumbs = box_thumb.best_rules_of_thumb(rules, "expected-score", top=5)
    from ludolab.analysis.box_card import card_data, fig_card

    card = card_data(rules, "expected-score", rule=thumbs["rule"].iloc[0], exceptions=6)
    thumb_words, mistakes = card["words"], card["exceptions"]
    shown_thumbs = thumbs[["rule", "keys", "mean_score", "p_shut", "cost"]]
    shown_mistakes = mistakes.assign(roll=mistakes["roll"].map(lambda v: "before the roll" if pd.isna(v) else v))
    md = ["\n## Rules a person can remember\n",
          f"Every rule of thumb of up to three preferences ({thumbs.attrs.get('tried', 'all'):,} rules, "
          f"{thumbs.attrs.get('distinct', len(thumbs)):,} different ways of playing), each evaluated exactly; the "
          "five with the lowest expected score. The preferences: "
          + "; ".join(f"`{k}`: {v}" for k, v in box_thumb.KEY_WORDS.items()) + ".\n",
          table(shown_thumbs, "box_rules_of_thumb",
                exact(policy="rules of thumb (lexicographic preferences)", objective="min E[score]",
                      tried=thumbs.attrs.get("tried"), distinct=thumbs.attrs.get("distinct"))),
          "\nThe best rule in words: " + rule_text(thumb_words) + " Where it goes wrong (the costliest dice "
          "choices and moves):\n",
          table(shown_mistakes, "box_rule_of_thumb_mistakes",
                exact(policy=thumbs["rule"].iloc[0], objective="min E[score]"),
                glossary={"roll": "the dice total rolled (`before the roll`: the choice of one die or two)",
                          "loss": "expected points lost each time the rule plays this instead of the best move",
                          "open": "the tiles still open"}),
          "\nThe same rule as a one-page strategy card (`ludolab box card` draws it for any rules, as PNG and "
          "PDF):\n",
          ctx.figure(fig_card(card, rules), "box_strategy_card", "Strategy card: the best rule of thumb")]

    s.thumbs, s.thumb_words, s.mistakes = thumbs, thumb_words, mistakes
    return md


def _study_skill(ctx, s) -> list[str]:
    """Luck against skill: random moves to foresight, exactly (:mod:`ludolab.sim.box_foresight`).

    Reads the study so far from ``s`` (:func:`study`), adds ``skill`` to it; returns the Markdown blocks."""
    from ludolab.analysis import box_plots as plots

    rules, exact, table = s.rules, s.exact, s.table
    ctx.say("box: luck against skill ...")
    from ludolab.sim.box_foresight import foresight_table

    skill = foresight_table(rules)
    md = ["\n## Luck against skill\n",
          "What each kind of player reaches, exactly: random moves, the best named policy, the best rule of thumb, "
          "optimal play, and a player with foresight who knows every die of the turn before it starts (an upper "
          "bound no real player can pass).\n",
          table(skill, "box_skill", exact(policy="one per row, see column policy",
                                          objective="min E[score] unless the row says otherwise"),
                glossary={"policy": "the policy the row's player follows (a name, a rule of thumb, or foresight)"}),
          ctx.figure(plots.fig_skill(skill, rules=rules), "box_skill",
                     "Chance to shut and mean score of each player, from random moves to foresight")]

    s.skill = skill
    return md


def _study_variants(ctx, s) -> list[str]:
    """Playing for the wrong scoring (STB-8): the cost of every pair of scorings.

    Reads the study so far from ``s`` (:func:`study`), adds ``matrix`` to it; returns the Markdown blocks."""
    from ludolab.analysis import box as ba
    from ludolab.analysis import box_plots as plots

    rules, exact, table = s.rules, s.exact, s.table
    ctx.say("box: scoring variants ...")
    matrix, dis = ba.variants_matrix(rules)
    by_scoring = {"score": ("optimised_for and scored_by (or one column per scoring)", SCORINGS)}
    variants_fields = {"policy": "optimal for the scoring in optimised_for",
                       "objective": "min E[score] under the scoring in optimised_for"}
    piv = matrix.pivot(index="optimised_for", columns="scored_by", values="cost_pct")
    order = list(dict.fromkeys(matrix["optimised_for"]))
    piv = piv.loc[order, order].reset_index()
    piv.columns.name = None
    md = ["\n## Playing for the wrong scoring\n",
          "The scorings (STB-8): `sum` adds the open tiles, `count` counts them, `digital` reads them as one "
          "number, `all-or-nothing` scores 0 for a shut box and 1 otherwise. Each row is the policy that "
          "minimises the expected score under one scoring; each column scores it under another.\n",
          table(piv, "box_variants_cost_pct", exact(vary=by_scoring, **variants_fields), ".3g",
                glossary={"optimised_for": "the scoring the row's policy plays for",
                          **{s: f"expected score under `{s}`, in % above the best possible under `{s}`"
                             for s in SCORINGS}}),
          ctx.figure(plots.fig_variants_matrix(matrix, rules=rules), "box_variants_matrix",
                     "Cost of playing for the wrong scoring"),
          "\nWhere the policies disagree most (weighted by how often the row's policy meets the situation):\n",
          table(dis, "box_variants_disagreements", exact(vary=by_scoring, **variants_fields), ".4g", rows=10)]

    s.matrix = matrix
    return md


def _study_targets(ctx, s) -> list[str]:
    """The chance to beat a target T (STB-10), for each one-die rule.

    Reads the study so far from ``s`` (:func:`study`), adds ``curve`` to it; returns the Markdown blocks."""
    from ludolab.analysis import box as ba
    from ludolab.analysis import box_plots as plots

    rules, exact, table = s.rules, s.exact, s.table
    ctx.say("box: chance to beat a target ...")
    curve = ba.beat_curve(rules)
    pick = curve[curve["target"].isin([5, 10, 15, 20])].pivot(index="target", columns="one_die", values="p_beat")
    pick = pick[[r for r in dict.fromkeys(curve["one_die"])]].reset_index()
    pick.columns.name = None
    md = ["\n## Chance to beat a target\n",
          "The best chance of a score strictly below T, playing for that T, for each one-die rule.\n",
          table(pick, "box_beat_targets",
                exact(vary={"one_die": ("one column per rule", ONE_DIE_RULES)},
                      policy="optimal for each target", objective="max P(score < T) for T in column target"),
                glossary={r: f"best chance of a score below `target` under the one-die rule {r} (STB-6)"
                          for r in ONE_DIE_RULES}),
          "\nThe chart shows (a) that chance against T with the default one-die rule and with two dice always, "
          "and (b) what playing for T adds over playing for the lowest expected score; the table above compares "
          "every one-die rule.\n",
          ctx.figure(plots.fig_beat_curve(curve, rules=rules, differences=False), "box_beat_curve",
                     "Chance to score below a target T, and what playing for T adds")]
    s.curve = curve
    return md


def _study_matches(ctx, s) -> list[str]:
    """One round between 2 to 6 players, exactly, and four-player matches simulated.

    Reads the study so far from ``s`` (:func:`study`), adds ``mt`` to it; returns the Markdown blocks."""
    from ludolab.analysis import box as ba
    from ludolab.analysis import box_plots as plots

    rules, opt, exact, simulated, table = s.rules, s.opt, s.exact, s.simulated, s.table
    ctx.say("box: matches ...")
    mt = ba.match_table(rules, (2, 3, 4, 5, 6))
    equilibrium = "exact equilibrium: each seat maximises its chance to win (STB-10)"
    two = mt[mt["players"] == 2].drop(columns="players")
    md = ["\n## The two-player game\n",
          "Exact equilibrium of one round: the second player knows the score to beat and plays for it; the first "
          "player plays to maximise the chance to win against that reply. A shut box wins at once.\n",
          table(two, "box_match_2p", exact(players=2, ties_win=False, policy=equilibrium)),
          f"\nWin probability by seat for 2 to 6 players (exact): the first seat wins "
          + ", ".join(f"{_pct(d['p_win'].iloc[0])} with {int(P)} players" for P, d in mt.groupby("players"))
          + f", the last {', '.join(_pct(d['p_win'].iloc[-1]) for _, d in mt.groupby('players'))}. The table shows "
          f"the {int(mt['players'].max())}-player game; every player count is in the CSV and the chart.\n",
          table(mt, "box_match_seats", exact(players=[2, 3, 4, 5, 6], ties_win=False, policy=equilibrium),
                shown=mt[mt["players"] == mt["players"].max()]),
          ctx.figure(plots.fig_seat_wins(mt, rules=rules, title="Win probability by seat, one round, best play"),
                     "box_seat_wins", "Win probability by seat")]
    n_multi = 20_000 if ctx.quick else 200_000
    rounds = box.simulate_rounds([opt] * 4, n_multi, ctx.seed + 2, rounds=4)
    elim = box.simulate_rounds([opt] * 4, n_multi, ctx.seed + 3, rounds=None, threshold=45)
    md += [f"\nFour players, each playing the min-expected-score policy, {n_multi:,} simulated games each. "
           "Four rounds, lowest total wins:\n",
           table(rounds, "box_multi_round", simulated(policy=opt.label, players=4, rounds=4)),
           "\nElimination at 45: a player whose total reaches 45 drops out; the last one left wins:\n",
           table(elim, "box_elimination", simulated(policy=opt.label, players=4, threshold=45),
                 glossary={"mean_rounds": "mean number of rounds the game lasted, until one player was left "
                                          "(the game's length, the same for every seat)"})]

    s.mt = mt
    return md


def _study_match_play(ctx, s) -> list[str]:
    """Playing for the match, solved exactly for two players (STB-O5).

    Reads the study so far from ``s`` (:func:`study`), adds ``gain, moves`` to it; returns the Markdown blocks."""
    rules, exact, table = s.rules, s.exact, s.table
    ctx.say("box: match play solved ...")
    from ludolab.sim.box_matchplay import adaptive_gain_table

    match_rounds, match_thresholds = (1, 3, 5), (() if ctx.quick else (45,))
    gain = adaptive_gain_table(rules, 2, rounds=match_rounds, thresholds=match_thresholds)
    md = ["\n### Playing for the match\n",
          "Two players, solved exactly (STB-O5): in a match, the best play on each turn depends on both running "
          "totals and the rounds left. The table sets what that is worth against playing every turn for the "
          "lowest expected score, seat by seat"
          + ("" if match_thresholds else " (elimination is solved in the full report)") + ".\n",
          table(gain, "box_match_play",
                exact(players=2, rounds=list(match_rounds), thresholds=list(match_thresholds), ties_win=False,
                      policy="adaptive (every turn for the best chance to win the match) against lowest "
                             "(every turn for the lowest expected score)"))]
    from ludolab.sim.box_matchplay import match_decisions

    leads = range(-30, 31, 6)
    moves = match_decisions(rules, rounds_left=2, leads=leads, seats=(1, 2), top=8)
    md += ["\nWhere playing for the match changes the move, with two rounds to play (this one and the last), for "
           "leads from -30 to +30 points in steps of 6; most valuable first:\n",
           table(moves, "box_match_decisions",
                 exact(players=2, rounds_left=2, leads=list(leads),
                       policy="adaptive (for the match) against lowest (for the lowest expected score)"),
                 glossary={"seat": "your seat this round (1: you play first, 2: the opponent has played)",
                           "p_meet": "the chance that your turn meets these open tiles and this roll, playing for "
                                     "the match",
                           "gain": "the chance to win the match gained by the match move, each time it is met",
                           "weighted_gain": "`p_meet` x `gain`: what the different move is worth per turn"})]

    s.gain, s.moves = gain, moves
    return md


def _study_decisions(ctx, s) -> list[str]:
    """The optimal policy: the decisions with a real choice met most often.

    Reads the study so far from ``s`` (:func:`study`); returns the Markdown blocks."""
    from ludolab.analysis import box as ba

    rules, exact, table, opt_label = s.rules, s.exact, s.table, s.opt_label
    ctx.say("box: decisions that matter ...")
    sol9 = box.solve(rules)
    md = ["\n## The optimal policy\n",
          "The optimal dice choice for every position is in \"When to roll one die\" above. For 1-9, the "
          "situations with a real choice of tiles that the optimal player meets most often:\n",
          table(ba.decision_states(sol9, 15), "box_decisions_9",
                exact(policy=opt_label, objective=box.objective_label("expected-score")),
                glossary={"p_meet": "the chance that the optimal player meets this position and then this roll "
                                    "in a turn"})]

    return md


def study(ctx) -> tuple[dict, list[str]]:
    """The Shut the Box study: every exact table and simulation of the report section, in the order they are
    made (each table's provenance lists the runs made since the previous one).

    Args:
        ctx: the :class:`~ludolab.analysis.report.ReportContext`; ``ctx.quick`` runs 100,000 games (20,000 for
            matches) instead of 2,000,000 (200,000) and solves match play for 1, 3 and 5 rounds but not
            elimination at 45; simulations use seeds ``ctx.seed`` to ``ctx.seed + 3``.

    Returns:
        ``(tables, body)``: the arguments of :func:`box_findings` by name, and the section after the findings
        as Markdown blocks (method, then one sub-section per question).
    """
    from types import SimpleNamespace

    from ludolab.analysis import box as ba
    from ludolab.analysis.results import provenance

    rules = BoxRules()
    games = 100_000 if ctx.quick else 2_000_000

    def exact(*, vary=None, **fields) -> dict:
        """Provenance of an exact table (no seed: nothing is random)."""
        return provenance("box", **ba.rules_meta(rules, **(vary or {})), method="exact", **fields)

    def simulated(method: str = "Monte Carlo", **fields) -> dict:
        """Provenance of a simulated table: seed, games and chunks come with the fields (or df.attrs)."""
        return provenance("box", **ba.rules_meta(rules), method=method, **fields)

    def table(df, name, meta, floatfmt=".4g", rows=None, glossary=None, shown=None) -> str:
        """The column definitions, then the table (``shown``: the rows shown, the CSV keeps all)."""
        return (columns_note(df if shown is None else shown, glossary) + "\n"
                + ctx.table(df, name, meta, floatfmt, rows, shown=shown))

    s = SimpleNamespace(rules=rules, games=games, exact=exact, simulated=simulated, table=table,
                        opt_label=f"optimal ({box.objective_label('expected-score')})")
    md = [f"Default rules: {rules.label()} (clauses in `seeds/shut_the_box.md`). "
          "Values marked exact come from dynamic programming over every set of open tiles; "
          f"simulated values use {games:,} games with root seed {ctx.seed} and carry 95% confidence intervals. "
          "The score is the sum of the tiles left open; lower is better.\n"]
    for part in (_study_optimal_values, _study_one_die, _study_policies, _study_mc_check, _study_thumbs,
                 _study_skill, _study_variants, _study_targets, _study_matches, _study_match_play,
                 _study_decisions):
        md += part(ctx, s)
    tables = dict(rules=rules, summary=s.summ, optimal=s.ov, curve=s.curve, seats=s.mt, variants=s.matrix,
                  match_gain=s.gain, match_moves=s.moves, thumbs=s.thumbs, thumb_words=s.thumb_words,
                  thumb_mistakes=s.mistakes, skill=s.skill, one_die=s.one_die, one_die_rules=s.one_die_rules)
    return tables, md


def report_section(ctx) -> str:
    """The Shut the Box section of ``ludolab report``: findings first, then the tables and charts behind them.

    Args:
        ctx: the :class:`~ludolab.analysis.report.ReportContext` (run sizes and seeds: :func:`study`).

    Returns:
        The section's Markdown: optimal values, the policies, rules of thumb
        (:mod:`ludolab.sim.box_thumb`, with the strategy card), luck against
        skill (:mod:`ludolab.sim.box_foresight`), scoring variants, targets,
        one-round games, match play (:mod:`ludolab.sim.box_matchplay`) and
        the policy map.  It opens with findings a player can act on
        (:func:`box_findings`, from the tables of :func:`study`, put together by
        :func:`~ludolab.analysis.findings.render_section`); every table is preceded by a line defining each of
        its columns (:func:`columns_note`) and written through ``ctx.table``
        with a sidecar that describes it: exact tables carry no seed, simulated
        ones their seed, games and chunks, tables over several rulesets their
        varying fields (:func:`~ludolab.analysis.box.rules_meta`), one-policy
        tables the policy and objective.  Published values it reproduces:
        P(shut) 466473281/6530347008 (two dice always) and
        956177159/9795520512 (a one-die rule), 1-9 tiles.
    """
    from .findings import render_section

    tables, body = study(ctx)
    return render_section("Shut the Box", box_findings(**tables), body,
                          intro="Findings from the exact tables below (default rules unless said otherwise):\n")
