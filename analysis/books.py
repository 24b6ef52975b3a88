"""Shut The Books analyses: the prediction-accuracy study, policy comparisons, scoring variants,
charts, the report section and the benchmark entries.  Clause ids refer to ``seeds/shut_the_books.md``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ludolab.sim import books as S
from ludolab.stdlib.books import SCORINGS, BooksRules

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
        fig.tight_layout()
        return
    rows = (len(handles) + ncol - 1) // ncol
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.03 + 0.04 * rows, 1, 1))

def _err(df, col):
    lo, hi = df[f"{col}_ci_low"].astype(float), df[f"{col}_ci_high"].astype(float)
    v = df[col].astype(float)
    return np.vstack([(v - lo).clip(lower=0).to_numpy(), (hi - v).clip(lower=0).to_numpy()])


def fig_by_seat(by_seat: pd.DataFrame, rules: BooksRules):
    """Share of exact forecasts and mean hand score by forecast position, one line per policy pair."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4.8))
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

    fig = Figure(figsize=(10, 4.8))
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

    fig = Figure(figsize=(7, 5))
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

    fig = Figure(figsize=(6.5, 6.5))
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
    """Scoring variants: spread between skilled and random play, and the cost of forecasting first."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, 4.2))
    ax1, ax2 = fig.subplots(1, 2)
    x = np.arange(len(var))
    ax1.bar(x, var["skill_spread_sd"], yerr=_err(var, "skill_spread_sd"), capsize=4, color="tab:blue")
    ax1.set_xticks(x, var["scoring"])
    ax1.set_ylabel("skilled minus random, in SDs of the hand score")
    ax1.set_title("how much skill pays (95% CI)")
    ax2.bar(x, var["first_minus_others"], yerr=_err(var, "first_minus_others"), capsize=4, color="tab:red")
    ax2.set_xticks(x, var["scoring"])
    ax2.set_ylabel("first forecaster minus the others (points per hand)")
    ax2.set_title("cost of forecasting first (95% CI)")
    for ax in (ax1, ax2):
        ax.axhline(0, color="black", lw=0.8)
        ax.grid(alpha=0.3, axis="y")
    fig.suptitle(f"Shut The Books, {players} players: scoring variants (heuristic policies tuned per variant)")
    fig.tight_layout()
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


def report_section(ctx) -> str:
    """The Shut The Books section of ``ludolab report``: forecast accuracy per policy, the cost of
    seat order, and which scoring variant rewards skill most; numbers with 95% CIs and charts."""
    from ludolab.analysis.results import provenance

    hands = 4_000 if ctx.quick else 40_000
    rules = BooksRules(4)
    ctx.say(f"books: accuracy study, {hands:,} deals x {len(STANDARD_CONFIGS)} policy pairs ...")
    acc = S.accuracy(rules, list(STANDARD_CONFIGS), hands, ctx.seed)
    t = accuracy_tables(acc)
    meta = provenance(GAME, **acc.provenance, configs=[list(c) for c in STANDARD_CONFIGS])
    ov, fc = t["overall"], t["first_cost"]
    best = ov.loc[ov["mean_score"].astype(float).idxmax()]
    h0 = fc.iloc[0]
    out = ["# Shut The Books", ""]
    out.append(
        f"Four players, rulebook scoring (rules: `seeds/shut_the_books.md`), {hands:,} deals, every policy pair "
        f"playing the same deals. The best pair, {label(best['forecast'], best['play'])}, forecasts exactly "
        f"(off 0) in {_pct(best['exact'])} of player-hands (95% CI {_pct(best['exact_ci_low'])} to "
        f"{_pct(best['exact_ci_high'])}), misses by one in {_pct(best['off_by_1'])}, and scores "
        f"{best['mean_score']:.2f} points per hand ({best['mean_score_ci_low']:.2f} to "
        f"{best['mean_score_ci_high']:.2f}); its forecasts are off by {best['mae']:.2f} tricks on average "
        f"(mean absolute error between tricks won and prediction cards laid).")
    out.append("")
    out.append(
        f"Seat order costs: with heuristic forecasts and play, the first forecaster scores "
        f"{h0['first_minus_others']:.2f} points per hand against the mean of the other three in the same hand "
        f"(95% CI {h0['first_minus_others_ci_low']:.2f} to {h0['first_minus_others_ci_high']:.2f}).")
    out.append("")
    out.append("Columns: `exact`, `off_by_1`, `off_by_2_plus` are shares of player-hands by off (open prediction "
               "cards left + extra tricks); `mean_score` is points per player-hand; `mae` is the mean of |tricks "
               "won - prediction cards|; `mean_off` the mean off; `mean_predictions` the mean number of "
               "prediction cards laid; `player_hands` counts one per seat and deal; `_ci_low`/`_ci_high` are "
               "95% confidence limits.")
    cols = ["forecast", "play", "player_hands", "exact", "exact_ci_low", "exact_ci_high", "off_by_1", "mean_score",
            "mean_score_ci_low", "mean_score_ci_high", "mae", "mean_predictions"]
    out.append(ctx.table(ov[cols], "books_accuracy_overall", meta))
    out.append(ctx.figure(fig_by_seat(t["by_seat"], rules), "books_accuracy_by_seat",
                          "Exact share and mean score by forecast position"))
    out.append(ctx.figure(fig_by_predictions(t["by_predictions"], rules), "books_accuracy_by_predictions",
                          "Exact share and mean score by number of prediction cards"))
    out.append(ctx.figure(fig_off_distribution(t["off_distribution"], rules), "books_off_distribution",
                          "Distribution of off"))
    ctx.table(t["by_seat"], "books_accuracy_by_seat", meta)
    ctx.table(t["by_predictions"], "books_accuracy_by_predictions", meta)
    ctx.table(t["first_cost"], "books_first_cost", meta)
    ctx.table(t["off_distribution"], "books_off_distribution", meta)
    out.append("The same figures by forecast position, by number of prediction cards, the paired cost of "
               "forecasting first and the distribution of off are in `tables/books_accuracy_by_seat.csv`, "
               "`tables/books_accuracy_by_predictions.csv`, `tables/books_first_cost.csv` and "
               "`tables/books_off_distribution.csv`.")

    rh = 60 if ctx.quick else 300
    ctx.say(f"books: rollout forecaster and its calibration, {rh:,} deals ...")
    rpol = S.forecast_policy("rollout", pool=5, worlds=2)
    mixed = ([rpol] + ["heuristic"] * (rules.players - 1), "heuristic",
             (f"{rpol.label} at position 1, heuristic after", "heuristic"))
    racc = S.accuracy(rules, [(rpol, "heuristic"), ("heuristic", "heuristic"), mixed], rh, ctx.seed)
    rov, rpair = racc.overall(), racc.paired()
    bins, summ = racc.calibration()
    rmeta = provenance(GAME, **racc.provenance, configs=[list(c) for c in racc.configs])
    r0 = rov.iloc[0]
    d = rpair.iloc[1]
    sm = summ.iloc[0]
    def verdict_of(row):
        return ("over-confident" if row["mean_stated_p_exact"] > row["observed_exact_ci_high"] else
                "under-confident" if row["mean_stated_p_exact"] < row["observed_exact_ci_low"] else
                "calibrated on average")

    verdict = verdict_of(sm)
    sm2 = summ.iloc[1]
    out.append("")
    out.append(
        f"A rollout forecaster (determinization: it samples the hidden hands consistent with what it knows and "
        f"plays candidate prediction sets out under heuristic play; {rpol.label}), with every player using it, "
        f"is exact in {_pct(r0['exact'])} of player-hands (95% CI {_pct(r0['exact_ci_low'])} to "
        f"{_pct(r0['exact_ci_high'])}) and scores {r0['mean_score']:.2f} points per hand, "
        f"{-d['diff_vs_first_config']:+.2f} points per hand against the hand-strength heuristic on the same "
        f"{rh:,} deals (95% CI {-d['diff_vs_first_config_ci_high']:+.2f} to "
        f"{-d['diff_vs_first_config_ci_low']:+.2f}). "
        f"Its own stated P(exact) averages {sm['mean_stated_p_exact']:.2f} against {sm['observed_exact']:.2f} "
        f"observed ({verdict}): Brier score {sm['brier']:.3f} (95% CI {sm['brier_ci_low']:.3f} to "
        f"{sm['brier_ci_high']:.3f}; 0 is perfect, always saying 0.5 scores 0.25). Its rollouts assume that the "
        "later players forecast, and everyone plays, by the heuristic; when that holds (it forecasts first "
        f"among heuristic players) it states {sm2['mean_stated_p_exact']:.2f} against {sm2['observed_exact']:.2f} "
        f"observed ({verdict_of(sm2)}), Brier score {sm2['brier']:.3f} (95% CI {sm2['brier_ci_low']:.3f} to "
        f"{sm2['brier_ci_high']:.3f}).")
    out.append(ctx.table(summ, "books_calibration", rmeta))
    out.append(ctx.figure(fig_reliability(bins, summ, rules), "books_reliability",
                          "Calibration of the rollout forecaster's P(exact)"))
    ctx.table(bins, "books_reliability", rmeta)
    ctx.table(rov, "books_rollout_accuracy", rmeta)
    out.append("The reliability bins and the rollout forecaster's accuracy next to the heuristic's are in "
               "`tables/books_reliability.csv` and `tables/books_rollout_accuracy.csv`.")

    vh = 2_000 if ctx.quick else 20_000
    ctx.say(f"books: scoring variants, {vh:,} deals each ...")
    var = variants(4, vh, ctx.seed, rollout_hands=30 if ctx.quick else 120)
    top = var.loc[var["skill_spread_sd"].astype(float).idxmax()]
    out.append("")
    out.append(
        "Scoring variants (the heuristic forecaster and player re-tuned to each by a coordinate search on the "
        "same deals: `tuned_bias` is the forecaster's bias, `tuned_keep_low` whether the player ducks with its "
        f"lowest losing card while prediction cards are open): skill pays most under "
        f"**{top['scoring']}** scoring, where skilled play beats random play by {top['skill_spread']:.2f} points "
        f"per hand, {top['skill_spread_sd']:.2f} standard deviations of the hand score (95% CI "
        f"{top['skill_spread_sd_ci_low']:.2f} to {top['skill_spread_sd_ci_high']:.2f}). `skill_spread` is the "
        "paired mean score difference (skilled minus random, same deals); `_sd` divides it by the standard "
        "deviation of the skilled hand score so variants with other point scales compare; "
        "`first_minus_others` is the paired cost of forecasting first; `rollout_*` are the rollout forecaster "
        "(which judges prediction sets under the variant's scoring) on "
        f"{int(var['rollout_hands'].iloc[0])} deals.")
    fewest = var.loc[var["rollout_mean_predictions"].astype(float).idxmin()]
    most = var.loc[var["rollout_mean_predictions"].astype(float).idxmax()]
    out.append("")
    out.append(f"The rollout forecaster, judging prediction sets under each variant's own scoring, lays between "
               f"{fewest['rollout_mean_predictions']:.2f} ({fewest['scoring']}) and "
               f"{most['rollout_mean_predictions']:.2f} ({most['scoring']}) prediction cards on average, against "
               f"{var['mean_predictions'].astype(float).mean():.2f} for the tuned hand-strength heuristic "
               f"(means over {int(var['rollout_hands'].iloc[0])} deals; the per-variant tables give the exact "
               "shares with their CIs).")
    vcols = ["scoring", "tuned_bias", "tuned_keep_low", "mean_predictions", "exact", "skilled_mean_score", "random_mean_score",
             "skill_spread", "skill_spread_sd", "skill_spread_sd_ci_low", "skill_spread_sd_ci_high",
             "first_minus_others", "first_minus_others_ci_low", "first_minus_others_ci_high",
             "rollout_mean_predictions", "rollout_exact", "rollout_exact_ci_low", "rollout_exact_ci_high",
             "rollout_mean_score"]
    out.append(ctx.table(var[vcols], "books_variants", provenance(GAME, hands=vh, seed=ctx.seed, players=4)))
    out.append(ctx.figure(fig_variants(var, 4), "books_variants", "Scoring variants"))
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ bench
def bench(games: int, reference_seconds: float, say) -> list[dict]:
    """Shut The Books: four-player hands with heuristic forecasts and play, kernel vs reference."""
    import time

    import numba

    from ludolab.analysis.bench import calibrate, record, time_call, with_threads
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
    t_one = with_threads(1, lambda: time_call(lambda: S.accuracy(rules, [("heuristic", "heuristic")], n, 1)))
    fp = [list(B.HEURISTIC_FORECAST_PARAMS) + [0.0] * (B.N_PARAMS - 9)] * 4
    pp = [[1.0] + [0.0] * (B.N_PARAMS - 1)] * 4
    ra = rules.as_array()

    def ref(m):
        st = [0] * B.STATE_SIZE
        for g in range(m):
            REF.play_hand(st, ra, 0, [1] * 4, fp, [1] * 4, pp, py_game_state(1, g))
            REF.hand_scores(st, 0)

    m = calibrate(ref, reference_seconds, 50)
    t0 = time.perf_counter()
    ref(m)
    t_ref = time.perf_counter() - t0
    return [record("books hands (4 players, heuristic forecast and play)", "hands", n / t_all, threads,
                   n / t_one, m / t_ref)]
