"""Shut The Books analyses: the prediction-accuracy study, policy comparisons, scoring variants,
charts, the report section and the benchmark entries.  Clause ids refer to ``seeds/shut_the_books.md``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ludolab.sim import books as S
from ludolab.stdlib.books import SCORINGS, BooksRules

from .findings import all_agree, differs, doubling_verdict

GAME = "books"
#: The policy pairs of the standard comparison: (forecast, play).
STANDARD_CONFIGS = (("heuristic", "heuristic"), ("heuristic", "random"), ("zero", "heuristic"),
                    ("random", "random"))


def label(f, p) -> str:
    return f"forecast {f} / play {p}"


def accuracy_tables(acc: S.Accuracy) -> dict:
    """The study's tables: ``overall``, ``by_seat``, ``by_predictions``, ``off_distribution``,
    ``first_cost`` and ``paired`` (see :class:`ludolab.sim.books.Accuracy`)."""
    return {"overall": acc.overall(), "by_seat": acc.by_seat(), "by_predictions": acc.by_predictions(),
            "off_distribution": acc.off_distribution(), "first_cost": acc.first_cost(), "paired": acc.paired()}


# ------------------------------------------------------------------ charts
def _legend_below(fig, ax, ncol=2):
    """One legend under the axes of ``fig`` (from ``ax``'s artists), clear of the data."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize=8, frameon=False)

def _err(df, col):
    lo, hi = df[f"{col}_ci_low"].astype(float), df[f"{col}_ci_high"].astype(float)
    v = df[col].astype(float)
    return np.vstack([(v - lo).clip(lower=0).to_numpy(), (hi - v).clip(lower=0).to_numpy()])


def fig_by_seat(by_seat: pd.DataFrame, rules: BooksRules):
    """Share of exact forecasts and mean hand score by forecast position, one line per policy pair."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4.8), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    for (f, p), d in by_seat.groupby(["forecast", "play"], sort=False):
        ax1.errorbar(d["position"], d["exact"], yerr=_err(d, "exact"), marker="o", capsize=3, label=label(f, p))
        ax2.errorbar(d["position"], d["mean_score"], yerr=_err(d, "mean_score"), marker="o", capsize=3,
                     label=label(f, p))
    ax1.set_xlabel("forecast position (1 = forecasts first)")
    ax1.set_ylabel("share of hands forecast exactly")
    ax2.set_xlabel("forecast position (1 = forecasts first)")
    ax2.set_ylabel("mean hand score (points)")
    for ax in (ax1, ax2):
        ax.set_xticks(sorted(by_seat["position"].unique()))
        ax.grid(alpha=0.3)
    fig.suptitle(f"Shut The Books, {rules.players} players, {rules.scoring} scoring: accuracy by seat (95% CI)")
    _legend_below(fig, ax2)
    return fig


def fig_by_predictions(by_k: pd.DataFrame, rules: BooksRules):
    """Share exact and mean hand score by number of prediction cards laid."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4.8), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    for (f, p), d in by_k.groupby(["forecast", "play"], sort=False):
        if d["predictions"].nunique() < 2:
            continue
        ax1.errorbar(d["predictions"], d["exact"], yerr=_err(d, "exact"), marker="o", capsize=3, label=label(f, p))
        ax2.errorbar(d["predictions"], d["mean_score"], yerr=_err(d, "mean_score"), marker="o", capsize=3,
                     label=label(f, p))
    ax1.set_xlabel("prediction cards laid")
    ax1.set_ylabel("share of hands forecast exactly")
    ax2.set_xlabel("prediction cards laid")
    ax2.set_ylabel("mean hand score (points)")
    for ax in (ax1, ax2):
        ax.set_xticks(range(6))
        ax.grid(alpha=0.3)
    fig.suptitle(f"Shut The Books, {rules.players} players, {rules.scoring} scoring: "
                 "accuracy by number of prediction cards (95% CI)")
    _legend_below(fig, ax2)
    return fig


def fig_off_distribution(off: pd.DataFrame, rules: BooksRules):
    """Distribution of off (open prediction cards + extra tricks) per policy pair."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 5), layout="constrained")
    ax = fig.subplots()
    groups = list(off.groupby(["forecast", "play"], sort=False))
    w = 0.8 / max(len(groups), 1)
    for i, ((f, p), d) in enumerate(groups):
        d = d[d["off"] <= 10]
        ax.bar(d["off"] + (i - (len(groups) - 1) / 2) * w, d["share"], width=w, label=label(f, p))
    ax.set_xlabel("off = open prediction cards + extra tricks (tricks)")
    ax.set_ylabel("share of player-hands")
    ax.set_xticks(range(11))
    ax.grid(alpha=0.3, axis="y")
    ax.set_title(f"Shut The Books, {rules.players} players: how far forecasts miss")
    _legend_below(fig, ax)
    return fig


def fig_reliability(bins: pd.DataFrame, summary: pd.DataFrame, rules: BooksRules):
    """Reliability chart: stated P(exact) against the observed share of exact forecasts (95% CI)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.5, 6.5), layout="constrained")
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], color="grey", ls="--", lw=1, label="perfect calibration")
    for (f, p), d in bins.groupby(["forecast", "play"], sort=False):
        sm = summary[(summary["forecast"] == f) & (summary["play"] == p)]
        brier = f", Brier {sm['brier'].iloc[0]:.3f}" if len(sm) else ""
        ax.errorbar(d["mean_stated_p_exact"], d["observed_exact"], yerr=_err(d, "observed_exact"), marker="o",
                    capsize=3, label=f"{label(f, p)}{brier}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("forecaster's stated P(exact)")
    ax.set_ylabel("observed share of exact hands")
    ax.grid(alpha=0.3)
    ax.set_title(f"Shut The Books, {rules.players} players: calibration of P(exact) (95% CI)")
    _legend_below(fig, ax, ncol=1)
    return fig


def fig_variants(var: pd.DataFrame, players: int):
    """Scoring variants on one scale: how much skill pays and what forecasting first costs, both in standard
    deviations of the skilled hand score under that scoring (its points differ in size between scorings:
    exact-only pays 10 + tricks), so the bars compare across scorings."""
    from matplotlib.figure import Figure

    sd = var["skill_spread"].astype(float) / var["skill_spread_sd"].astype(float)  # the hand score's SD
    first = var["first_minus_others"].astype(float) / sd
    first_err = np.vstack([(var["first_minus_others"] - var["first_minus_others_ci_low"]).astype(float) / sd,
                           (var["first_minus_others_ci_high"] - var["first_minus_others"]).astype(float) / sd])
    fig = Figure(figsize=(10, 4.2), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    x = np.arange(len(var))
    ax1.bar(x, var["skill_spread_sd"], yerr=_err(var, "skill_spread_sd"), capsize=4, color="tab:blue")
    ax1.set_xticks(x, var["scoring"])
    ax1.set_ylabel("skilled minus random, in SDs of the hand score")
    ax1.set_title("how much skill pays (95% CI)")
    ax2.bar(x, first, yerr=first_err, capsize=4, color="tab:red")
    ax2.set_xticks(x, var["scoring"])
    ax2.set_ylabel("first forecaster minus the others, in SDs")
    ax2.set_title("cost of forecasting first (95% CI)")
    for ax in (ax1, ax2):
        ax.axhline(0, color="black", lw=0.8)
        ax.grid(alpha=0.3, axis="y")
    fig.suptitle(f"Shut The Books, {players} players: scoring variants (heuristic policies tuned per variant)")
    return fig


# ------------------------------------------------------------------ scoring variants
BIAS_GRID = (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5)


def tune_forecast_bias(rules: BooksRules, hands: int, seed: int, play="heuristic", grid=BIAS_GRID):
    """Re-tune the heuristic forecaster to a scoring: the bias (tricks added to its estimate)
    with the best mean hand score on the same deals.  Returns (best Policy, DataFrame of the grid)."""
    base = list(S.forecast_policy("heuristic").params[:9])
    pols = []
    for b in grid:
        p = list(base)
        p[8] = b
        pols.append(S.forecast_policy("heuristic", p))
    acc = S.accuracy(rules, [(p, play) for p in pols], hands, seed)
    ov = acc.overall()
    ov.insert(0, "bias", list(grid))
    best = int(ov["mean_score"].astype(float).idxmax())
    return pols[best], ov


def tune_play(rules: BooksRules, forecast, hands: int, seed: int):
    """Re-tune the heuristic player to a scoring: its parameter (duck with the lowest or the highest
    losing card while prediction cards are open) with the best mean hand score on the same deals,
    every seat playing it.  Returns (best Policy, DataFrame of the choices)."""
    pols = [S.play_policy("heuristic", keep_low=k) for k in (True, False)]
    acc = S.accuracy(rules, [(forecast, p) for p in pols], hands, seed)
    ov = acc.overall()
    ov.insert(0, "keep_low", [True, False])
    best = int(ov["mean_score"].astype(float).idxmax())
    return pols[best], ov


def tune_policies(rules: BooksRules, hands: int, seed: int, rounds: int = 3):
    """Coordinate search on common random numbers: the forecaster's bias with the player fixed, then
    the player's parameter with the forecaster fixed, until neither changes (at most ``rounds``).
    Returns (forecast Policy, play Policy)."""
    play = S.play_policy("heuristic")
    fpol, _ = tune_forecast_bias(rules, hands, seed, play=play)
    for _ in range(rounds):
        new_play, _ = tune_play(rules, fpol, hands, seed)
        if new_play.params == play.params:
            break
        play = new_play
        new_f, _ = tune_forecast_bias(rules, hands, seed, play=play)
        if new_f.params == fpol.params:
            break
        fpol = new_f
    return fpol, play


def variants(players: int = 4, hands: int = 20_000, seed: int = 0, tune_hands: int | None = None,
             scorings=SCORINGS, rollout_hands: int = 0) -> pd.DataFrame:
    """Compare scoring variants (STK-8), each with the heuristic forecaster and player re-tuned to it.

    For each scoring: the tuned bias and play parameter (:func:`tune_policies`), mean prediction cards, exact share, mean hand
    score of skilled (tuned heuristic forecast and play) and random play (random
    forecast and play) on the same deals, their difference in points and in standard
    deviations of the skilled hand score (so variants with other point scales compare),
    and the paired cost of forecasting first.  With ``rollout_hands`` > 0, also the rollout
    forecaster (which judges its candidate sets under the variant's own scoring, so it re-tunes
    itself) on that many deals: its mean prediction cards, exact share and mean hand score.

    Raises:
        LudolabError: bad counts or players.
    """
    rows = []
    for sc in scorings:
        rules = BooksRules(players, scoring=sc)
        pol, play = tune_policies(rules, tune_hands or max(hands // 4, 200), seed + 1)
        acc = S.accuracy(rules, [(pol, play), ("random", "random")], hands, seed)
        ov = acc.overall()
        pr = acc.paired()
        fc = acc.first_cost()
        P = players
        o = acc.acc[0, :P].sum(axis=(0, 1))
        from ludolab.sim import books_kernels as K

        n = o[K.ST_N]
        sd = float(np.sqrt(max(o[K.ST_SCORE2] / n - (o[K.ST_SCORE] / n) ** 2, 1e-12)))
        d = -pr.loc[1, "diff_vs_first_config"]
        dlo, dhi = -pr.loc[1, "diff_vs_first_config_ci_high"], -pr.loc[1, "diff_vs_first_config_ci_low"]
        rows.append({"scoring": sc, "tuned_bias": pol.params[8], "tuned_keep_low": bool(play.params[0] > 0.5),
                     "mean_predictions": ov.loc[0, "mean_predictions"],
                     "exact": ov.loc[0, "exact"], "exact_ci_low": ov.loc[0, "exact_ci_low"],
                     "exact_ci_high": ov.loc[0, "exact_ci_high"],
                     "skilled_mean_score": ov.loc[0, "mean_score"], "random_mean_score": ov.loc[1, "mean_score"],
                     "skill_spread": d, "skill_spread_ci_low": dlo, "skill_spread_ci_high": dhi,
                     "skill_spread_sd": d / sd, "skill_spread_sd_ci_low": dlo / sd,
                     "skill_spread_sd_ci_high": dhi / sd,
                     "first_minus_others": fc.loc[0, "first_minus_others"],
                     "first_minus_others_ci_low": fc.loc[0, "first_minus_others_ci_low"],
                     "first_minus_others_ci_high": fc.loc[0, "first_minus_others_ci_high"],
                     "hands": hands})
        if rollout_hands > 0:
            rp = S.forecast_policy("rollout", pool=5, worlds=2)
            ro = S.accuracy(rules, [(rp, "heuristic")], rollout_hands, seed + 2).overall().iloc[0]
            rows[-1].update({"rollout_mean_predictions": ro["mean_predictions"], "rollout_exact": ro["exact"],
                             "rollout_exact_ci_low": ro["exact_ci_low"], "rollout_exact_ci_high": ro["exact_ci_high"],
                             "rollout_mean_score": ro["mean_score"], "rollout_hands": rollout_hands})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ report
def _pct(x):
    return f"{100 * x:.1f}%"


#: Plain-language definitions of the columns the section's tables show (``_ci_low``/``_ci_high``
#: columns are covered by one shared definition, given only when the table shows such columns).
COLUMN_DEFS = {
    "forecast": "how the forecasts were made (`heuristic`: as many cards as the hand's estimated strength; "
                "`zero`: never lays a prediction card; `random`: a random number of random cards; "
                "`rollout(...)`: the rollout forecaster below)",
    "play": "how the cards were played (`heuristic`: wins a trick with a card that closes one of its open "
            "prediction cards, and loses it on purpose when winning would only add an extra trick; `random`: "
            "any legal card; `rollout(N worlds)`: each legal card played out with heuristic play on N sampled "
            "deals consistent with what the player has seen, the best mean score chosen)",
    "player_hands": "how many player-hands were counted (one per seat and deal)",
    "exact": "share of player-hands with off 0 (the forecast came out exactly)",
    "off_by_1": "share of player-hands with off 1",
    "mean_score": "mean points per player-hand",
    "mae": "mean of |tricks won - prediction cards laid|, in tricks",
    "mean_predictions": "mean number of prediction cards laid per player-hand",
    "forecasts": "how many forecasts of the rollout forecaster were counted (one per seat using it and deal)",
    "mean_stated_p_exact": "the rollout forecaster's own estimate, before play, of the chance that its "
                           "forecast comes out exact, averaged over its forecasts",
    "observed_exact": "share of those forecasts that did come out exact",
    "brier": "Brier score: mean of (stated chance - outcome)^2, outcome 1 if exact and 0 if not; 0 is "
             "perfect, always stating 0.5 scores 0.25",
    "scoring": "the scoring rule (STK-8): `rulebook` (off 0: 4, off 1: 2, off k >= 2: -k), `exact-only` "
               "(off 0: 10 + tricks won, else 0), `linear` (4 - 2 x off)",
    "tuned_bias": "tricks the re-tuned heuristic forecaster adds to its hand-strength estimate before choosing "
                  "how many cards to lay (negative: it lays fewer cards than the raw estimate)",
    "tuned_keep_low": "`True` if the re-tuned heuristic player, when it loses a trick on purpose while it "
                      "still has open prediction cards, does so with its lowest losing card (`False`: its "
                      "highest)",
    "skilled_mean_score": "mean points per player-hand with the re-tuned heuristic forecaster and player "
                          "(`mean_predictions` and `exact` are theirs too)",
    "random_mean_score": "mean points per player-hand with random forecasts and random play, same deals",
    "skill_spread": "paired mean score difference, skilled minus random, same deals (points per hand)",
    "skill_spread_sd": "`skill_spread` divided by the standard deviation of the skilled hand score, so "
                       "scorings with other point scales compare",
    "first_minus_others": "paired cost of forecasting first: the first forecaster's points minus the mean "
                          "of the other players' points in the same hand (negative: forecasting first costs)",
    "rollout_mean_predictions": "mean prediction cards laid by the rollout forecaster (judging prediction "
                                "sets under this scoring), every seat using it, heuristic play",
    "rollout_exact": "its share of exact forecasts",
    "rollout_mean_score": "its mean points per player-hand",
    "policy": "what the one player does, as forecast/play (`zero`: lays no prediction card)",
    "what": "the same in words",
    "mean_per_hand": "the one player's mean points per hand",
    "diff_per_hand": "its points minus those of the count (heuristic/heuristic) in the same seat on the same "
                     "deals, per hand (paired)",
    "share_changed": "share of games, deal by seat, in which it changes the seat's points",
    "win_share": "share of its pairings with each other player at the table that it wins (ties half; 0.5 is "
                 "even)",
    "verdict": "better, worse, equally good or cannot tell yet, against the count in the same seat (baseline: "
               "the count's own row)",
    "games": "games played, each once per seat",
    "hands": "hands per game (one per player, each forecasting first once)",
}
_CI_DEF = "`_ci_low`/`_ci_high` are the 95% confidence limits of the column they extend"


def _base_column(c: str) -> str:
    for suf in ("_ci_low", "_ci_high"):
        if c.endswith(suf):
            return c[: -len(suf)]
    return c


def columns_line(cols) -> str:
    """The "Columns:" line that defines every column of ``cols`` (and nothing else), in table order."""
    parts, seen, ci = [], set(), False
    for c in cols:
        b = _base_column(c)
        if b != c:
            ci = True
        if c == b and b not in seen:
            seen.add(b)
            parts.append(f"`{b}`: {COLUMN_DEFS[b]}")
    if ci:
        parts.append(_CI_DEF)
    return "Columns: " + "; ".join(parts) + "."


def _shown(ctx, df, name, meta) -> str:
    """A table preceded by its "Columns:" line, for the columns the report shows of it
    (:func:`ludolab.analysis.report.table_layout`: CIs in brackets, constant columns stated once, at most
    eight columns, the CSV keeping every one)."""
    from .report import table_layout

    lay = table_layout(df)
    note = lay.note()
    return columns_line(lay.shown) + (" " + note if note else "") + "\n\n" + ctx.table(df, name, meta)


#: How a finding says that two estimates from different deals differ beyond noise.
NOISE = "the 95% CI of their difference excludes 0"


def _ci(lo, hi, fmt="{:.2f}") -> str:
    from .report import ci_bound

    return f"95% CI {ci_bound(lo, fmt.format(lo))} to {ci_bound(hi, fmt.format(hi))}"


def _sign_text(lo, hi, more="more", less="less") -> str:
    """Whether a paired difference with 95% CI (lo, hi) is clearly positive, negative or neither."""
    if lo > 0:
        return f"clearly {more}"
    if hi < 0:
        return f"clearly {less}"
    return "not clearly different, the CI includes 0"


def _paired_words(diff: float, lo: float, hi: float) -> str:
    """The shared comparison word (:func:`ludolab.analysis.findings.compare`, ``books_points``) for a paired
    score difference A - B with 95% CI (lo, hi), higher being better, in words for the findings."""
    from .findings import compare, tolerance_text

    v = compare(diff, min(lo, diff), max(hi, diff), "books_points", lower_is_better=False)
    return {"better": "better, the CI excludes 0", "worse": "worse, the CI excludes 0",
            "equally good": f"equally good: the CI includes 0 and is within {tolerance_text('books_points')}",
            "cannot tell yet": f"cannot tell yet: the CI includes 0 and its half-width is "
                               f"{tolerance_text('books_points')} or more"}[v]


def _card_value(params, colour_red: bool, number: int, n_max: int) -> float:
    """Trick value of one card under the hand-strength forecaster's parameters (the count of
    ``sim/books_kernels._strength``): a red card ``trump_base + trump_rank * x``, another card
    ``high_value * (x - high_cut) / (1 - high_cut)`` above ``high_cut`` and 0 below, x = number / n_max."""
    x = number / n_max
    if colour_red:
        return params[0] + params[1] * x
    v = (x - params[3]) / (1.0 - params[3])
    return params[2] * v if v > 0 else 0.0


def hand_strength_finding(params=None, n_max: int = 15, tuned_bias=None):
    """The hand-strength estimate in words a player can apply at the table, and which cards to lay (STK-4,
    STK-6), from the heuristic forecaster's parameters.

    Args:
        params: :data:`ludolab.stdlib.books.HEURISTIC_FORECAST_PARAMS` (default) or a tuned copy.
        n_max: the highest number in play (15 with four players).
        tuned_bias: the bias the re-tuning found (tricks), or ``None``.

    Returns:
        a ``definition`` :class:`~ludolab.analysis.findings.Finding` quoting the card values it uses.
    """
    from ludolab.stdlib.books import HEURISTIC_FORECAST_PARAMS

    from .findings import Finding, Quote

    p = list(HEURISTIC_FORECAST_PARAMS if params is None else params)
    cut = int(np.floor(p[3] * n_max)) + 1  # the lowest number a non-red card counts from
    r_hi, r_mid = _card_value(p, True, n_max, n_max), _card_value(p, True, 8, n_max)
    h_hi, h_13 = _card_value(p, False, n_max, n_max), _card_value(p, False, 13, n_max)
    bias = p[8] if tuned_bias is None else float(tuned_bias)
    text = (f"Count your tricks: a red (trump) card is worth about {p[1]:.2f} x its number / {n_max} of a trick "
            f"(R{n_max} {r_hi:.2f}, R8 {r_mid:.2f}); a blue, yellow or purple card counts only from {cut} up, "
            f"rising to {h_hi:.2f} for a {n_max} ({h_13:.2f} for a 13); add {p[4]:.2f} for each other colour you hold "
            f"at most one card of while you hold red; take off {p[5]:.2f} for each prediction card the earlier "
            f"players laid beyond {p[6]:g} each; shrink the count by {p[7]:.0%} of the share of the hand left "
            f"unplayed (a hand lasts {n_max} tricks minus the most cards anyone lays, STK-7: with 3 laid, by "
            f"{p[7] * 3 / n_max:.0%}); then {'add' if bias >= 0 else 'take off'} "
            f"{abs(bias):.1f} of a trick"
            + (" (what re-tuning to the scoring found)" if tuned_bias is not None else "")
            + ". Lay as many prediction cards as that count comes to, counting only the cards left in hand. Which "
            "cards: those worth least as winners that share a colour or a number with your strong cards, since a "
            "trick won with a card of the same colour or number closes a prediction card (STK-6). This is the "
            "project's hand-strength heuristic; the next findings measure it.")
    return Finding("definition", "How to forecast: the hand-strength count.", text,
                   {"red_top": Quote(r_hi, "HEURISTIC_FORECAST_PARAMS", "trump_rank"),
                    "high_top": Quote(h_hi, "HEURISTIC_FORECAST_PARAMS", "high_value"),
                    "cut": Quote(cut, "HEURISTIC_FORECAST_PARAMS", "high_cut"),
                    "bias": Quote(bias, "books_variants" if tuned_bias is not None else "HEURISTIC_FORECAST_PARAMS",
                                  "tuned_bias" if tuned_bias is not None else "bias")})


def _rollout_finding(rollout: pd.DataFrame, rollout_paired: pd.DataFrame, variants: pd.DataFrame, deals: int):
    """How many cards to lay: the rollout forecaster against the hand-strength heuristic on the same deals
    (``books_rollout_accuracy``; ``books_rollout_paired`` is the rollout study's paired frame, quoted in the
    text, not shown as a table) and the biases re-tuning finds (``books_variants``). The means over the
    scorings it quotes are not in a table (no CI on them either)."""
    from .findings import Finding, Quote

    r0, rh0 = rollout.iloc[0], rollout.iloc[1]
    d = rollout_paired.iloc[1]
    gain, glo, ghi = -d["diff_vs_first_config"], -d["diff_vs_first_config_ci_high"], -d["diff_vs_first_config_ci_low"]
    tb = variants["tuned_bias"].astype(float)
    rdeals = int(variants["rollout_hands"].iloc[0])
    fewer = float(r0["mean_predictions"]) < float(rh0["mean_predictions"])
    if tb.min() == tb.max():
        bias_txt = f"a bias of {tb.min():+.1f} tricks under every scoring"
    else:
        bias_txt = f"a bias of {tb.min():+.1f} to {tb.max():+.1f} tricks"
    bias_txt += (", i.e. it too does best laying fewer cards than its raw estimate" if tb.max() < 0 else
                 ", i.e. it does best laying more cards than its raw estimate" if tb.min() > 0 else "")
    from .findings import compare

    verdict = compare(gain, min(glo, gain), max(ghi, gain), "books_points", lower_is_better=False)
    if verdict == "better":  # the forecaster that lays fewer (or more) cards scores more: advice
        title = ("Lay fewer cards than your hand's strength suggests." if fewer else
                 "Lay at least as many cards as your hand's strength suggests.")
    elif verdict == "worse":
        title = ("Laying fewer cards than your hand's strength suggests does not pay." if fewer else
                 "Laying as many cards as the rollout forecaster does not pay.")
    else:  # the comparison does not tell them apart: say what differs, advise nothing
        title = ("The rollout forecaster lays fewer cards than the hand-strength count; whether that pays is "
                 f"{'not clear yet' if verdict == 'cannot tell yet' else 'within the tolerance'}." if fewer else
                 "The rollout forecaster lays at least as many cards as the hand-strength count; whether that pays "
                 f"is {'not clear yet' if verdict == 'cannot tell yet' else 'within the tolerance'}.")
    text = ("The rollout forecaster (which plays "
            f"candidate forecasts out before choosing) lays {r0['mean_predictions']:.2f} prediction cards per hand "
            f"against {rh0['mean_predictions']:.2f} for the hand-strength heuristic on the same {deals:,} deals, and "
            f"scores {gain:+.2f} points per hand against it ({_ci(glo, ghi, '{:+.2f}')}: "
            f"{_paired_words(gain, glo, ghi)}). Re-tuning the heuristic to each scoring gives it "
            f"{bias_txt} (the last step of the count above); it then lays "
            f"{variants['mean_predictions'].astype(float).mean():.2f} cards on average, the "
            f"rollout forecaster {variants['rollout_mean_predictions'].astype(float).mean():.2f} "
            f"(over {rdeals} deals per scoring; no CI on these means).")
    t = "books_rollout_accuracy"
    return Finding("estimate", title, text,
                   {"rollout_cards": Quote(r0["mean_predictions"], t, "mean_predictions", str(r0["forecast"])),
                    "heuristic_cards": Quote(rh0["mean_predictions"], t, "mean_predictions", str(rh0["forecast"])),
                    "minus_gain": Quote(d["diff_vs_first_config"], "books_rollout_paired", "diff_vs_first_config"),
                    "bias_low": Quote(tb.min(), "books_variants", "tuned_bias"),
                    "bias_high": Quote(tb.max(), "books_variants", "tuned_bias")})


def _predictions_finding(by_predictions: pd.DataFrame):
    """Whether more prediction cards make an exact forecast rarer, heuristic forecasts and play, from
    ``books_accuracy_by_predictions`` (the hands with one card against the most common count)."""
    from .findings import Finding, Quote

    bp = by_predictions
    bp = bp[(bp["forecast"] == "heuristic") & (bp["play"] == "heuristic")].set_index("predictions")
    k_few = 1 if 1 in bp.index else int(bp.index.min())
    k_many = int(bp["share_of_hands"].astype(float).idxmax())
    if k_many <= k_few:
        k_many = int(bp.index.max())
    rarer = float(bp.loc[k_many, "exact"]) < float(bp.loc[k_few, "exact"])
    title = ("More prediction cards make an exact forecast rarer." if rarer else
             "More prediction cards do not make an exact forecast rarer.")
    text = (f"With heuristic forecasts and play, "
            f"hands with {k_few} prediction card{'s' if k_few != 1 else ''} come out exact in "
            f"{_pct(bp.loc[k_few, 'exact'])} of cases "
            f"({_ci(bp.loc[k_few, 'exact_ci_low'], bp.loc[k_few, 'exact_ci_high'], '{:.1%}')}), "
            f"hands with {k_many} in {_pct(bp.loc[k_many, 'exact'])} "
            f"({_ci(bp.loc[k_many, 'exact_ci_low'], bp.loc[k_many, 'exact_ci_high'], '{:.1%}')}), and score "
            f"{bp.loc[k_few, 'mean_score']:.2f} against {bp.loc[k_many, 'mean_score']:.2f} points per hand (the "
            "heuristic lays more cards with stronger hands, so this compares hands as dealt, not a rule "
            "for one hand).")
    t = "books_accuracy_by_predictions"
    return Finding("estimate", title, text,
                   {f"{c}_{k}": Quote(bp.loc[k, c], t, c, str(k)) for k in (k_few, k_many)
                    for c in ("exact", "mean_score")})


def _pair_rows(overall: pd.DataFrame):
    """The rows of ``books_accuracy_overall`` for heuristic forecasts with heuristic and with random play, and
    for no forecast (zero) with heuristic play."""
    def row(f, p):
        return overall[(overall["forecast"] == f) & (overall["play"] == p)].iloc[0]

    return row("heuristic", "heuristic"), row("heuristic", "random"), row("zero", "heuristic")


#: The one-seat study (:func:`one_seat`): ``(policy pair of the step game, what a player does)``, the field first.
ONE_SEAT = (("heuristic/heuristic", "forecast by the hand-strength count, play heuristically (the field)"),
            ("zero/heuristic", "lay no prediction card and lose every trick you can"),
            ("heuristic/random", "forecast by the count, play any legal card"),
            ("rollout/heuristic", "forecast with the rollout forecaster at the step game's small budget (pool 3, "
                                  "1 world), play heuristically"))


def one_seat(rules: BooksRules, deals: int = 300, seed: int = 0, contenders=ONE_SEAT) -> pd.DataFrame:
    """Each policy pair of ``contenders`` in one seat, the first pair in every other seat, on duplicate deals:
    whole games of one hand per player (STK-9), so every seat forecasts first once, and the seats rotated
    (:func:`ludolab.sim.ladder.ladder` over the step game).

    Args:
        rules: the ruleset; ``deals`` >= 2 games, each played once per seat per contender.
        contenders: ``(forecast/play name of the step game, what it does)``, the field first.

    Returns:
        one row per contender: ``policy``, ``what``, ``mean_per_hand`` (its points per hand),
        ``diff_per_hand`` with ``diff_per_hand_ci_low/high`` (its points minus the field policy's in the same
        seat on the same deals, per hand, paired 95% CI), ``share_changed`` (games, deal by seat, whose points it
        changes), ``win_share`` (pairs at the table won, ties half), ``verdict``
        (:func:`ludolab.analysis.findings.compare` on ``books_points``, higher is better; ``baseline`` on the
        first row), ``games``, ``hands`` (per game).

    Raises:
        KeyError: a name that is not a policy pair of the step game; ValueError: fewer than 2 deals.
    """
    from ludolab.sim import ladder as L
    from ludolab.sim.step import RulesCase

    from .findings import one_seat as seat_rows

    named = S.step_policies(rules)
    hands = rules.players
    case = RulesCase("one seat", rules.game_array(), rules.players, (named[contenders[0][0]],) * rules.players,
                     named=named)
    cons = [L.Contender(n, "named", named[n]) for n, _ in contenders]
    rows = seat_rows(S.step_game(), case, cons, deals, seed, "books_points", scale=hands)
    return pd.DataFrame([{"policy": name, "what": what, "mean_per_hand": r["mean"], "diff_per_hand": r["diff"],
                          "diff_per_hand_ci_low": r["ci_low"], "diff_per_hand_ci_high": r["ci_high"],
                          "share_changed": r["share_changed"], "win_share": r["win_share"], "verdict": r["verdict"],
                          "games": int(deals), "hands": hands} for (name, what), r in zip(contenders, rows)])


def _one_seat_finding(seat: pd.DataFrame, overall: pd.DataFrame):
    """How many cards to lay against a table that forecasts by the count: :func:`one_seat` (table
    ``books_one_seat``), with the self-play rows of ``books_accuracy_overall`` to say what happens when every
    player does the same."""
    from .findings import Finding, Quote, one_seat_clause

    t = "books_one_seat"
    rows = seat.set_index("policy")
    hh, _, zh = _pair_rows(overall)
    def one(name, r):
        return one_seat_clause(r.what, r.diff_per_hand, r.diff_per_hand_ci_low, r.diff_per_hand_ci_high, r.verdict,
                               r.share_changed, "points per hand", "points")
    others = rows.iloc[1:]
    zero = rows.loc["zero/heuristic"]
    title = ("Against players who lay by the count, lay fewer cards." if zero.verdict == "better" else
             "Do lay cards." if zero.verdict == "worse" else "Laying no card: no clear answer.")
    text = (f"One player against three who forecast by the hand-strength count and play heuristically "
            f"({int(seat.games.iloc[0]):,} games of {int(seat.hands.iloc[0])} hands, seats rotated); its points minus "
            "those of the count in the same seat: " + "; ".join(one(n, r) for n, r in others.iterrows()) + ". "
            f"Laying nothing works only while others take the tricks: when every player lays nothing, each scores "
            f"{zh['mean_score']:.2f} points per hand against {hh['mean_score']:.2f} when every player uses the count.")
    quotes = {f"diff_{i}": Quote(r.diff_per_hand, t, "diff_per_hand", n) for i, (n, r) in enumerate(others.iterrows())}
    quotes.update({f"changed_{i}": Quote(r.share_changed, t, "share_changed", n)
                   for i, (n, r) in enumerate(others.iterrows())})
    quotes.update({"zero_all": Quote(zh["mean_score"], "books_accuracy_overall", "mean_score", "zero / heuristic"),
                   "count_all": Quote(hh["mean_score"], "books_accuracy_overall", "mean_score",
                                      "heuristic / heuristic")})
    return Finding("rule", title, text, quotes)


def _play_finding(overall: pd.DataFrame):
    """Careful play matters: heuristic forecasts with heuristic and with random play in every seat, rows of
    ``books_accuracy_overall`` on the same deals."""
    from .findings import Finding, Quote

    hh, hr, _ = _pair_rows(overall)
    t = "books_accuracy_overall"
    play = (f"The same heuristic forecasts score {hh['mean_score']:.2f} "
            f"points per hand with heuristic play and {hr['mean_score']:.2f} "
            f"({_ci(hr['mean_score_ci_low'], hr['mean_score_ci_high'])}) with random play: win a trick with a card "
            "that closes one of your open prediction cards, and lose it on purpose when winning would only add an "
            "extra trick.")
    hq = Quote(hh["mean_score"], t, "mean_score", "heuristic / heuristic")
    return Finding("estimate", "Careful play matters.", play,
                   {"heuristic": hq, "random_play": Quote(hr["mean_score"], t, "mean_score", "heuristic / random")})


def _first_cost_finding(first_cost: pd.DataFrame):
    """What forecasting first costs, heuristic forecasts and play (the first row of ``books_first_cost``)."""
    from .findings import Finding, Quote

    h0 = first_cost.iloc[0]
    text = (f"With heuristic forecasts and play, the first forecaster scores "
            f"{h0['first_minus_others']:.2f} points per hand against the mean of the other three in the same hand "
            f"({_ci(h0['first_minus_others_ci_low'], h0['first_minus_others_ci_high'])}); later forecasters see the "
            "earlier prediction cards. Over a game every player forecasts first once, so it evens out.")
    return Finding("estimate", "Forecasting first costs points.", text,
                   {"cost": Quote(h0["first_minus_others"], "books_first_cost", "first_minus_others")})


def _top_variants(variants: pd.DataFrame):
    """The two scorings of ``books_variants`` where skill pays most (in standard deviations), and whether the
    first is clearly ahead (the 95% CI of their difference excludes 0)."""
    order = variants["skill_spread_sd"].astype(float).sort_values(ascending=False).index
    top, second = variants.loc[order[0]], variants.loc[order[1]]
    clear = differs(*(top[f"skill_spread_sd{x}"] for x in ("", "_ci_low", "_ci_high")),
                    *(second[f"skill_spread_sd{x}"] for x in ("", "_ci_low", "_ci_high")))
    return top, second, clear


def _designer_finding(variants: pd.DataFrame):
    """For designers: which scoring rewards skill most (``books_variants``)."""
    from .findings import Finding, Quote

    top, second, top_clear = _top_variants(variants)
    text = (f"Skilled play beats random play by "
            f"{top['skill_spread_sd']:.2f} standard deviations of the hand score "
            f"({_ci(top['skill_spread_sd_ci_low'], top['skill_spread_sd_ci_high'])}) against "
            f"{second['skill_spread_sd']:.2f} "
            f"({_ci(second['skill_spread_sd_ci_low'], second['skill_spread_sd_ci_high'])}) "
            f"under {second['scoring']}"
            + (f"; {NOISE}." if top_clear else
               "; the 95% CI of their difference includes 0, so the two reward skill about equally."))
    t = "books_variants"
    return Finding("estimate", f"For designers: {top['scoring']} scoring rewards skill most.", text,
                   {"top": Quote(top["skill_spread_sd"], t, "skill_spread_sd", str(top["scoring"])),
                    "second": Quote(second["skill_spread_sd"], t, "skill_spread_sd", str(second["scoring"]))})


def _confidence_finding(calibration: pd.DataFrame):
    """The rollout forecaster's stated chance of an exact forecast against what it gets, among heuristic
    players (second row of ``books_calibration``) and when every player uses it (first row)."""
    from .findings import Finding, Quote

    sm, s1 = calibration.iloc[0], calibration.iloc[1]
    text = (f"Among heuristic players "
            f"it states a {s1['mean_stated_p_exact']:.2f} chance of an exact forecast and gets "
            f"{s1['observed_exact']:.2f} ({_ci(s1['observed_exact_ci_low'], s1['observed_exact_ci_high'])}); "
            f"when every player uses it, it states {sm['mean_stated_p_exact']:.2f} and gets "
            f"{sm['observed_exact']:.2f} ({_ci(sm['observed_exact_ci_low'], sm['observed_exact_ci_high'])}).")
    t = "books_calibration"
    return Finding("estimate", "The rollout forecaster's confidence is only as good as its assumptions.", text,
                   {f"{c}_{i}": Quote(r[c], t, c, str(i)) for i, r in ((0, sm), (1, s1))
                    for c in ("mean_stated_p_exact", "observed_exact")})


def section_findings(*, overall: pd.DataFrame, by_predictions: pd.DataFrame, first_cost: pd.DataFrame,
                     rollout: pd.DataFrame, rollout_paired: pd.DataFrame, calibration: pd.DataFrame,
                     variants: pd.DataFrame, rollout_deals: int, seat_study: pd.DataFrame,
                     deep: dict | None = None) -> list:
    """The findings of the Shut The Books section, a pure function of its tables, most useful first.

    Args:
        overall, by_predictions, first_cost: :func:`accuracy_tables` of the main study (``overall``: rows for
            heuristic forecasts with heuristic and random play and for zero forecasts with heuristic play).
        rollout, rollout_paired, calibration: the rollout study (:meth:`~ludolab.sim.books.Accuracy.overall`,
            ``paired`` and the calibration summary; the rollout forecaster everywhere first, the heuristic
            second), played on ``rollout_deals`` deals.
        variants: :func:`variants` (one row per scoring, with the re-tuned heuristic and the rollout columns).
        seat_study: :func:`one_seat` (the field's pair first, ``zero/heuristic`` among the others).
        deep: the stored deep run of strong play when it is shown (``overall``, ``paired``, ``plan``), else None.

    Returns:
        :class:`~ludolab.analysis.findings.Finding` objects quoting the tables ``books_accuracy_overall``,
        ``books_accuracy_by_predictions``, ``books_first_cost``, ``books_rollout_accuracy``,
        ``books_rollout_paired``, ``books_calibration`` and ``books_variants`` (the count itself quotes
        the forecaster's parameters).
    """
    tb = variants["tuned_bias"].astype(float)
    strong = [_strong_play_finding(**deep)] if deep else []
    return [*strong, hand_strength_finding(tuned_bias=float(tb.iloc[0]) if tb.min() == tb.max() else None),
            _rollout_finding(rollout, rollout_paired, variants, rollout_deals),
            _one_seat_finding(seat_study, overall), _predictions_finding(by_predictions), _play_finding(overall),
            _first_cost_finding(first_cost), _designer_finding(variants), _confidence_finding(calibration)]


STUDY_COLUMNS = ["forecast", "play", "player_hands", "exact", "exact_ci_low", "exact_ci_high", "off_by_1",
                 "mean_score", "mean_score_ci_low", "mean_score_ci_high", "mae", "mean_predictions"]


def _study_accuracy(ctx, s) -> None:
    """The main accuracy study: every standard policy pair on the same deals; its charts and CSV-only tables."""
    from ludolab.analysis.results import provenance

    ctx.say(f"books: accuracy study, {s.hands:,} deals x {len(STANDARD_CONFIGS)} policy pairs ...")
    acc = S.accuracy(s.rules, list(STANDARD_CONFIGS), s.hands, ctx.seed)
    t = accuracy_tables(acc)
    s.meta = provenance(GAME, **acc.provenance, configs=[list(c) for c in STANDARD_CONFIGS])
    s.tables.update(overall=t["overall"], by_predictions=t["by_predictions"], first_cost=t["first_cost"])
    s.acc_figs = [ctx.figure(fig_by_seat(t["by_seat"], s.rules), "books_accuracy_by_seat",
                             "Exact share and mean score by forecast position"),
                  ctx.figure(fig_by_predictions(t["by_predictions"], s.rules), "books_accuracy_by_predictions",
                             "Exact share and mean score by number of prediction cards"),
                  ctx.figure(fig_off_distribution(t["off_distribution"], s.rules), "books_off_distribution",
                             "How far forecasts miss (off) for each policy pair")]
    for name, table in (("by_seat", "books_accuracy_by_seat"), ("by_predictions", "books_accuracy_by_predictions"),
                        ("first_cost", "books_first_cost"), ("off_distribution", "books_off_distribution")):
        ctx.table(t[name], table, s.meta)


def _study_rollout(ctx, s) -> None:
    """The rollout forecaster against the heuristic on the same deals, and its calibration."""
    from ludolab.analysis.results import provenance

    rh = s.tables["rollout_deals"] = 60 if ctx.quick else 300
    ctx.say(f"books: rollout forecaster and its calibration, {rh:,} deals ...")
    s.rpol = rpol = S.forecast_policy("rollout", pool=5, worlds=2)
    mixed = ([rpol] + ["heuristic"] * (s.rules.players - 1), "heuristic",
             (f"{rpol.label} at position 1, heuristic after", "heuristic"))
    racc = S.accuracy(s.rules, [(rpol, "heuristic"), ("heuristic", "heuristic"), mixed], rh, ctx.seed)
    rov, rpair = racc.overall(), racc.paired()
    bins, summ = racc.calibration()
    s.tables.update(rollout=rov, rollout_paired=rpair, calibration=summ)
    rmeta = provenance(GAME, **racc.provenance, configs=[list(c) for c in racc.configs])
    # the main accuracy table includes the strongest players the project has, on the deals it can afford:
    # rollout forecasts with rollout play (every seat), and the rollout forecaster with heuristic play
    pool, worlds, play_worlds, sd = (6, 4, 16, 40) if ctx.quick else (8, 16, 64, 100)
    s.strong = {"pool": pool, "worlds": worlds, "play_worlds": play_worlds, "deals": sd}
    ctx.say(f"books: rollout forecasts with rollout play, {sd:,} deals ...")
    sf = S.forecast_policy("rollout", pool=pool, worlds=worlds)
    sacc = S.accuracy(s.rules, [(sf, S.play_policy("rollout", worlds=play_worlds))], sd, ctx.seed + 3)
    srow = sacc.overall().iloc[[0]][STUDY_COLUMNS].assign(play=f"rollout({play_worlds} worlds)")
    main = pd.concat([srow, rov.iloc[[0]][STUDY_COLUMNS], s.tables["overall"][STUDY_COLUMNS]], ignore_index=True)
    s.acc_table = _shown(ctx, main, "books_accuracy_overall",
                         {**s.meta, "rollout_row": {"deals": rh, "seed": ctx.seed, "configs": [list(racc.configs[0])]},
                          "strong_row": {"deals": sd, "seed": ctx.seed + 3, "configs": [list(sacc.configs[0])]}})
    s.cal_table = _shown(ctx, summ, "books_calibration", rmeta)
    s.cal_fig = ctx.figure(fig_reliability(bins, summ, s.rules), "books_reliability",
                           "Calibration of the rollout forecaster's P(exact)")
    ctx.table(bins, "books_reliability", rmeta)
    ctx.table(rov, "books_rollout_accuracy", rmeta)
    ctx.table(rpair, "books_rollout_paired", rmeta)


#: a doubling of every budget that gains less than this (points per player-hand, its 95% CI below it)
#: leaves strong play where it stops improving
SATURATION_TOLERANCE = 0.1


def _study_deep(ctx, s) -> None:
    """Strong play on many deals: the stored deep run ``books_strong_accuracy`` (:mod:`ludolab.analysis.deep`),
    shown when its summary is current (adds ``s.deep``, and ``s.deep_table`` when shown)."""
    from . import deep

    ctx.say("books: the stored deep run of strong play (checking its canary) ...")
    st = s.deep = deep.stored("books_strong_accuracy", getattr(ctx, "deep_dir", None))
    if st.status != "ok":
        return
    t = st.tables()
    summ = st.summary
    meta = deep.table_meta(st)
    shown = t["overall"][[c for c in STUDY_COLUMNS if c in t["overall"].columns]]
    s.deep_table = _shown(ctx, shown, "books_deep_accuracy", meta)
    for name in ("paired", "by_seat", "by_predictions"):
        ctx.table(t[name], f"books_deep_{name}", meta)
    s.tables["deep"] = {"overall": t["overall"], "paired": t["paired"], "plan": summ["plan"]}


def deep_text(overall, paired, plan: dict) -> list[str]:
    """The deep run's comparisons in words, every number read from its tables: strong play (the first
    config) against the heuristic pair (the last) and against the doubled budget (the second), each a paired
    95% CI on the same deals.

    Args:
        overall, paired: the deep run's :meth:`~ludolab.sim.books.Accuracy.overall` and ``paired`` frames;
        plan: its plan (``configs`` with pool, worlds and play worlds).
    """
    c0, c1 = plan["configs"][0], plan["configs"][1]
    o0, o1, oh = overall.iloc[0], overall.iloc[1], overall.iloc[-1]
    dh, dd = paired.iloc[-1], paired.iloc[1]
    gain, glo, ghi = -dh["diff_vs_first_config"], -dh["diff_vs_first_config_ci_high"], -dh["diff_vs_first_config_ci_low"]
    words = _sign_text(glo, ghi)
    first = (f"Rollout forecasts with rollout play in every seat (each forecast weighing {c0['pool']} candidate "
             f"cards on {c0['worlds']} sampled deals, each card chosen by playing out {c0['play_worlds']} sampled "
             f"deals) forecast exactly in {_pct(o0['exact'])} of player-hands "
             f"({_ci(o0['exact_ci_low'], o0['exact_ci_high'], '{:.1%}')}), against {_pct(oh['exact'])} for "
             f"{label(oh['forecast'], oh['play'])} on the same deals, and score {o0['mean_score']:.2f} points per "
             f"hand against {oh['mean_score']:.2f}: {gain:+.2f} points per player-hand, paired "
             f"{_ci(glo, ghi, '{:+.2f}')}, {words}. So the heuristics' accuracy is not the game's: strong play "
             f"changes the exact share by {100 * (o0['exact'] - oh['exact']):+.1f} points of percentage.")
    d, lo, hi = dd["diff_vs_first_config"], dd["diff_vs_first_config_ci_low"], dd["diff_vs_first_config_ci_high"]
    verdict = {"stopped": f"one doubling gains less than {SATURATION_TOLERANCE} points per hand (its CI lies "
                          f"within ±{SATURATION_TOLERANCE}): play has stopped improving at the smaller budget, by "
                          "that tolerance",
               "improving": "the doubling still gains: play has not stopped improving at the smaller budget",
               "worse": "the doubling loses points, the CI excludes 0",
               "not settled": f"the CI includes 0 but reaches beyond ±{SATURATION_TOLERANCE} points, so whether "
                              "play has stopped improving is not settled by these deals"
               }[doubling_verdict(lo, hi, SATURATION_TOLERANCE)]
    second = (f"Doubling the sampled deals ({c1['worlds']} per forecast, {c1['play_worlds']} per card; the pool of "
              f"{c1['pool']} candidate cards kept) "
              f"changes the score by {d:+.2f} points per player-hand (paired {_ci(lo, hi, '{:+.2f}')}) and the "
              f"exact share to {_pct(o1['exact'])}: {verdict}.")
    return [first, second]


def _strong_play_finding(overall: pd.DataFrame, paired: pd.DataFrame, plan: dict):
    """How accurate forecasts can be: strong play against the heuristic pair on the deep run's deals
    (``books_deep_accuracy``, ``books_deep_paired``), worded by :func:`deep_text`."""
    from .findings import Finding, Quote

    o0, oh = overall.iloc[0], overall.iloc[-1]
    d = paired.iloc[-1]
    lo, hi = -d["diff_vs_first_config_ci_high"], -d["diff_vs_first_config_ci_low"]
    title = (f"Strong play forecasts exactly in {_pct(o0['exact'])} of player-hands, against {_pct(oh['exact'])} "
             "for the heuristics on the same deals." if lo > 0 else
             f"Strong play forecasts exactly in {_pct(o0['exact'])} of player-hands; on points it is not told apart "
             "from the heuristics yet.")
    t = "books_deep_accuracy"
    return Finding("estimate", title, " ".join(deep_text(overall, paired, plan)) + " (stored deep run; see "
                   "\"Strong play on many deals\".)",
                   {"strong_exact": Quote(o0["exact"], t, "exact", str(o0["forecast"])),
                    "heuristic_exact": Quote(oh["exact"], t, "exact", str(oh["forecast"])),
                    "minus_gain": Quote(d["diff_vs_first_config"], "books_deep_paired", "diff_vs_first_config"),
                    "doubling": Quote(paired.iloc[1]["diff_vs_first_config"], "books_deep_paired",
                                      "diff_vs_first_config")})


def _body_deep(s) -> list[str]:
    """Strong play on many deals: the stored deep run, or why it is not shown."""
    st = s.deep
    from . import deep

    head = ["## Strong play on many deals (stored deep run)", ""]
    if st.status != "ok":
        return head + [deep.not_shown_text(st), ""]
    summ = st.summary
    plan, t = summ["plan"], st.tables()
    intro = (deep.stored_intro(st, f"{plan['players']} players, {plan['scoring']} scoring, {plan['deals']:,} deals, "
                                   f"seed {plan['seed']}, {plan['chunks']} chunks",
                               f"{plan['canary_deals']} deals of its own with the same policies")
             + " Its provenance (plan, budgets, the SHA-256 of each kernel "
             "source file) is in `tables/books_deep_accuracy.meta.json`; the paired differences, and the figures "
             "by forecast position and by number of prediction cards, are in `tables/books_deep_paired.csv`, "
             "`tables/books_deep_by_seat.csv` and `tables/books_deep_by_predictions.csv`.")
    return head + [intro, "", *deep_text(t["overall"], t["paired"], plan), "", s.deep_table, ""]


def _study_one_seat(ctx, s) -> None:
    """One player against three who use the count: :func:`one_seat` (adds ``seat_study``)."""
    from ludolab.analysis.results import provenance

    g = 60 if ctx.quick else 300
    ctx.say(f"books: one player against a table of counters, {g:,} games ...")
    seat = s.tables["seat_study"] = one_seat(s.rules, g, ctx.seed + 4)
    shown = seat.drop(columns=["what"])
    s.seat_table = _shown(ctx, shown, "books_one_seat",
                          provenance(GAME, rules=s.rules.as_dict(), seed=ctx.seed + 4, games=g))


def _body_one_seat(s) -> list[str]:
    """One player against a table of counters: what each way of forecasting and playing is worth in one seat."""
    seat = s.tables["seat_study"]
    return ["## One player against a table of counters", "",
            f"One seat plays each way below, the other three forecast by the hand-strength count and play "
            f"heuristically, over {int(seat.games.iloc[0]):,} games of {int(seat.hands.iloc[0])} hands (every player "
            "forecasts first once), each game played once with the one player in each seat; its points are paired "
            "with those of the count in the same seat on the same deals: "
            + "; ".join(f"`{r.policy}`: {r.what}" for r in seat.itertuples()) + ".", "",
            s.seat_table, ""]


def _study_variants(ctx, s) -> None:
    """Every scoring variant with the heuristic re-tuned to it, and the rollout forecaster under each."""
    from ludolab.analysis.results import provenance

    vh = 2_000 if ctx.quick else 20_000
    ctx.say(f"books: scoring variants, {vh:,} deals each ...")
    var = s.tables["variants"] = variants(4, vh, ctx.seed, rollout_hands=30 if ctx.quick else 120)
    vcols = ["scoring", "tuned_bias", "tuned_keep_low", "mean_predictions", "exact", "skilled_mean_score",
             "random_mean_score", "skill_spread", "skill_spread_sd", "skill_spread_sd_ci_low",
             "skill_spread_sd_ci_high", "first_minus_others", "first_minus_others_ci_low",
             "first_minus_others_ci_high", "rollout_mean_predictions", "rollout_exact", "rollout_exact_ci_low",
             "rollout_exact_ci_high", "rollout_mean_score"]
    s.var_table = _shown(ctx, var[vcols], "books_variants", provenance(GAME, hands=vh, seed=ctx.seed, players=4))
    s.var_fig = ctx.figure(fig_variants(var, 4), "books_variants",
                           "What skill pays and what forecasting first costs under each scoring, in standard "
                           "deviations of the hand score")


def _body_accuracy(s) -> list[str]:
    """How often do forecasts come out exact: the best pair of heuristics, the accuracy table and its chart."""
    ov = s.tables["overall"]
    best = ov.loc[ov["mean_score"].astype(float).idxmax()]
    return ["## How often do forecasts come out exact?", "",
            f"The best pair of heuristics, {label(best['forecast'], best['play'])}, forecasts exactly (off 0) in "
            f"{_pct(best['exact'])} of player-hands (95% CI {_pct(best['exact_ci_low'])} to "
            f"{_pct(best['exact_ci_high'])}), misses by one in {_pct(best['off_by_1'])}, and scores "
            f"{best['mean_score']:.2f} points per hand ({_ci(best['mean_score_ci_low'], best['mean_score_ci_high'])}); "
            f"its forecasts are off by {best['mae']:.2f} tricks on average in absolute terms (`mae`).",
            f"The first two rows are the strongest players this build runs itself, each on its own deals: rollout "
            f"forecasts with rollout play in every seat (the forecaster weighing the {s.strong['pool']} candidate "
            f"cards on {s.strong['worlds']} sampled deals, each card chosen by playing out {s.strong['play_worlds']} "
            f"sampled deals; {s.strong['deals']:,} deals), then the rollout forecaster with heuristic play (see \"Does "
            f"searching ahead forecast better?\"; {s.tables['rollout_deals']:,} deals). They are slow, so their "
            "`player_hands` are fewer and their CIs wider; strong play at larger budgets on many more deals is "
            "the stored deep run of the next section, \"Strong play on many deals\".", "",
            s.acc_table, *s.acc_figs[1:],
            "The same figures by forecast position and by number of prediction cards, and the distribution "
            "of off, are in `tables/books_accuracy_by_seat.csv`, `tables/books_accuracy_by_predictions.csv` "
            "and `tables/books_off_distribution.csv`.", ""]


def _body_first_cost(s) -> list[str]:
    """What forecasting first costs, in the main study and in the variants table on other deals."""
    h0 = s.tables["first_cost"].iloc[0]
    vfc = _rulebook_row(s.tables["variants"])
    seat_agree = not differs(*(h0[f"first_minus_others{x}"] for x in ("", "_ci_low", "_ci_high")),
                             *(vfc[f"first_minus_others{x}"] for x in ("", "_ci_low", "_ci_high")))
    return ["## What does forecasting first cost?", "",
            f"Seat order costs: with heuristic forecasts and play, the first forecaster scores "
            f"{h0['first_minus_others']:.2f} points per hand against the mean of the other three in the same hand "
            f"({_ci(h0['first_minus_others_ci_low'], h0['first_minus_others_ci_high'])}); the paired costs for every "
            "policy pair are in `tables/books_first_cost.csv`. The variants table below gives "
            f"{vfc['first_minus_others']:.2f} ({_ci(vfc['first_minus_others_ci_low'], vfc['first_minus_others_ci_high'])}) "
            f"under {vfc['scoring']} scoring for the re-tuned heuristic on other deals; "
            + ("the 95% CI of the difference includes 0." if seat_agree else
               f"{NOISE}: the re-tuned heuristic pays "
               f"{'less' if vfc['first_minus_others'] > h0['first_minus_others'] else 'more'} for forecasting first."),
            "", s.acc_figs[0]]


def _body_search(s) -> list[str]:
    """Does searching ahead forecast better: the rollout forecaster's accuracy and calibration."""
    r0 = s.tables["rollout"].iloc[0]
    d = s.tables["rollout_paired"].iloc[1]
    gain, glo, ghi = -d["diff_vs_first_config"], -d["diff_vs_first_config_ci_high"], -d["diff_vs_first_config_ci_low"]
    summ = s.tables["calibration"]
    sm, sm2 = summ.iloc[0], summ.iloc[1]
    return ["## Does searching ahead forecast better?", "",
            f"A rollout forecaster (it samples the hidden hands consistent with what it knows and plays candidate "
            f"prediction sets out under heuristic play; {s.rpol.label}), with every player using it, is exact in "
            f"{_pct(r0['exact'])} of player-hands (95% CI {_pct(r0['exact_ci_low'])} to {_pct(r0['exact_ci_high'])}) "
            f"and scores {r0['mean_score']:.2f} points per hand, {gain:+.2f} points per hand against the "
            f"hand-strength heuristic on the same {s.tables['rollout_deals']:,} deals ({_ci(glo, ghi, '{:+.2f}')}). "
            f"Its own stated P(exact) averages {sm['mean_stated_p_exact']:.2f} against {sm['observed_exact']:.2f} "
            f"observed ({_calibration_verdict(sm)}): Brier score {sm['brier']:.3f} "
            f"({_ci(sm['brier_ci_low'], sm['brier_ci_high'], '{:.3f}')}). "
            "Its rollouts assume that the later players forecast, and everyone plays, by the heuristic; when that "
            f"holds (it forecasts first among heuristic players) it states {sm2['mean_stated_p_exact']:.2f} against "
            f"{sm2['observed_exact']:.2f} observed ({_calibration_verdict(sm2)}), Brier score {sm2['brier']:.3f} "
            f"({_ci(sm2['brier_ci_low'], sm2['brier_ci_high'], '{:.3f}')}).", "",
            s.cal_table, s.cal_fig,
            "The reliability bins, the rollout forecaster's accuracy next to the heuristic's, and their paired "
            "differences on the same deals (which the findings quote) are in `tables/books_reliability.csv`, "
            "`tables/books_rollout_accuracy.csv` and `tables/books_rollout_paired.csv`.", ""]


def _rulebook_row(var: pd.DataFrame):
    rb = var[var["scoring"] == "rulebook"]
    return rb.iloc[0] if len(rb) else var.iloc[0]


def _body_variants(s) -> list[str]:
    """Which scoring rewards skill most, and the rollout forecaster under each scoring."""
    var, r0 = s.tables["variants"], s.tables["rollout"].iloc[0]
    top, second, top_clear = _top_variants(var)
    rbv = _rulebook_row(var)
    rdeals = int(var["rollout_hands"].iloc[0])
    rexact_agree = not differs(r0["exact"], r0["exact_ci_low"], r0["exact_ci_high"], rbv["rollout_exact"],
                               rbv["rollout_exact_ci_low"], rbv["rollout_exact_ci_high"])
    rollout_variants_agree = all_agree((r["scoring"], r["rollout_exact"], r["rollout_exact_ci_low"],
                                        r["rollout_exact_ci_high"]) for _, r in var.iterrows())
    fewest = var.loc[var["rollout_mean_predictions"].astype(float).idxmin()]
    most = var.loc[var["rollout_mean_predictions"].astype(float).idxmax()]
    return ["## Which scoring rewards skill most?", "",
            "Each scoring variant is played with the heuristic forecaster and player re-tuned to it (a coordinate "
            f"search on the same deals); skill pays most under **{top['scoring']}** scoring, where skilled play beats "
            f"random play by {top['skill_spread']:.2f} points per hand, {top['skill_spread_sd']:.2f} standard "
            f"deviations of the hand score ({_ci(top['skill_spread_sd_ci_low'], top['skill_spread_sd_ci_high'])}); "
            f"next is {second['scoring']} with {second['skill_spread_sd']:.2f} "
            f"({_ci(second['skill_spread_sd_ci_low'], second['skill_spread_sd_ci_high'])})"
            + (", clearly less." if top_clear else ", a difference within the noise (its 95% CI includes 0)."), "",
            f"The rollout forecaster, judging prediction sets under each variant's own scoring, lays between "
            f"{fewest['rollout_mean_predictions']:.2f} ({fewest['scoring']}) and {most['rollout_mean_predictions']:.2f} "
            f"({most['scoring']}) prediction cards on average over {rdeals} deals per scoring"
            + ("; no two of its exact shares under the variants differ beyond noise (each pair's 95% CI of the "
               "difference includes 0)." if rollout_variants_agree else "; at least two of its exact shares under the "
               "variants differ beyond noise.")
            + f" Its rulebook row ({_pct(rbv['rollout_exact'])} exact, "
            f"{_ci(rbv['rollout_exact_ci_low'], rbv['rollout_exact_ci_high'], '{:.1%}')}) comes from other, fewer "
            f"deals than the {_pct(r0['exact'])} above; "
            + ("the 95% CI of the difference includes 0." if rexact_agree else f"{NOISE}."), "",
            s.var_table, s.var_fig]


def study(ctx) -> tuple[dict, list[str]]:
    """The Shut The Books study: the accuracy study, the rollout forecaster and the scoring variants, each
    table and chart written as it is made (its provenance lists the runs since the previous one).

    Args:
        ctx: the :class:`~ludolab.analysis.report.ReportContext` (``ctx.quick``: 4,000 deals for the main
            study, 60 for the rollout forecaster and 2,000 per scoring variant, instead of 40,000, 300 and
            20,000; seed ``ctx.seed``).

    Returns:
        ``(tables, body)``: the arguments of :func:`section_findings` by name, and the sub-sections after the
        findings as one Markdown block.
    """
    from types import SimpleNamespace

    s = SimpleNamespace(hands=4_000 if ctx.quick else 40_000, rules=BooksRules(4), tables={})
    for part in (_study_accuracy, _study_rollout, _study_deep, _study_one_seat, _study_variants):
        part(ctx, s)
    lines = (_body_accuracy(s) + _body_deep(s) + _body_one_seat(s) + _body_first_cost(s) + _body_search(s)
             + _body_variants(s))
    return s.tables, ["\n".join(lines) + "\n"]


def report_section(ctx) -> str:
    """The Shut The Books section of ``ludolab report``: what a player or designer should know first,
    then one sub-heading per question (forecast accuracy, the cost of forecasting first, the rollout
    forecaster and its calibration, which scoring variant rewards skill most); numbers with 95% CIs,
    every table's columns defined right before it, and charts.

    The study (:func:`study`) makes the tables, :func:`section_findings` reads them, and
    :func:`~ludolab.analysis.findings.render_section` puts the section together."""
    from .findings import render_section

    tables, body = study(ctx)
    off = (f"Four players, rulebook scoring unless said otherwise (rules: `seeds/shut_the_books.md`), "
           f"{4_000 if ctx.quick else 40_000:,} deals "
           "for the main study, every policy pair playing the same deals. A player's **off** is how far their "
           "forecast missed: the prediction cards they laid that were never closed, plus the tricks they won that "
           "closed none (extra tricks). Off 0 means the forecast came out exactly; rulebook scoring pays 4 points "
           "for off 0, 2 for off 1 and -off for anything worse. A *player-hand* is one player's result in one deal.\n")
    return render_section("Shut The Books", section_findings(**tables), body, before=(off,))


def _calibration_verdict(row) -> str:
    return ("over-confident" if row["mean_stated_p_exact"] > row["observed_exact_ci_high"] else
            "under-confident" if row["mean_stated_p_exact"] < row["observed_exact_ci_low"] else
            "calibrated on average")


# ------------------------------------------------------------------ bench
def bench(games: int, reference_seconds: float, say) -> list[dict]:
    """Shut The Books: four-player hands with heuristic forecasts and play, kernel vs reference."""
    import numba

    from ludolab.analysis.bench import calibrate, record, time_call, time_pair
    from ludolab.sim import books_reference as REF
    from ludolab.sim.rng import py_game_state
    from ludolab.stdlib import books as B

    rules = BooksRules(4)
    threads = numba.get_num_threads()
    n = max(10_000, min(int(games), 2_000_000))
    say("warming the Shut The Books kernels ...")
    S.accuracy(rules, [("heuristic", "heuristic")], 1000, 1)
    say(f"books hands: {n:,} four-player hands ...")
    t_all = time_call(lambda: S.accuracy(rules, [("heuristic", "heuristic")], n, 1))
    fp = [list(B.HEURISTIC_FORECAST_PARAMS) + [0.0] * (B.N_PARAMS - 9)] * 4
    pp = [[1.0] + [0.0] * (B.N_PARAMS - 1)] * 4
    ra = rules.as_array()

    def ref(m):
        st = [0] * B.STATE_SIZE
        for g in range(m):
            REF.play_hand(st, ra, 0, [1] * 4, fp, [1] * 4, pp, py_game_state(1, g))
            REF.hand_scores(st, 0)

    m = calibrate(ref, reference_seconds, 50)
    say(f"one thread and the reference ({m:,} hands), in turn ...")
    t_one, t_ref = time_pair(lambda: S.accuracy(rules, [("heuristic", "heuristic")], n, 1), lambda: ref(m),
                             threads=1)
    return [record("books hands (4 players, heuristic forecast and play)", "hands", n / t_all, threads,
                   n / t_one, m / t_ref)]
