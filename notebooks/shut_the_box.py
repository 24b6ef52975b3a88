# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Shut the Box: how should I play, and how much does it matter?
#
# This notebook answers a player's questions with ludolab's own solver, simulator,
# tables and charts (`ludolab.sim.box`, `ludolab.analysis.box`,
# `ludolab.analysis.box_plots`). Clause ids such as `STB-6` refer to the rules in
# `seeds/shut_the_box.md`.
#
# Values called *exact* come from dynamic programming over every set of open tiles.
# *Simulated* values come from Monte Carlo games and carry 95% confidence intervals. The
# number of simulated games comes from the environment variable `LUDOLAB_NOTEBOOK_GAMES`
# (default one million). The tests set it lower so the notebook runs fast. No number in the
# text below is typed in by hand: every finding is printed from the values the notebook
# computes.

# %%
# %matplotlib inline
import os

import pandas as pd
from IPython.display import display

from ludolab.analysis import box as ba
from ludolab.analysis import box_plots as plots
from ludolab.sim import box
from ludolab.stdlib.box import BoxRules

GAMES = int(os.environ.get("LUDOLAB_NOTEBOOK_GAMES", "1000000"))
SEED = 2026
pd.set_option("display.precision", 4)
pd.set_option("display.width", 160)

rules = BoxRules()
print(f"Rules: {rules.label()}")
print(f"Monte Carlo: {GAMES:,} games per run, root seed {SEED}")

# %% [markdown]
# ## 1. The rules in brief
#
# * **STB-1, STB-2**: the box holds tiles 1 to 9, and you roll two six-sided dice.
# * **STB-3, STB-4**: after each roll you cover any group of open tiles that adds up to the
#   total rolled, for example 8, or 1+7, or 3+5, or 1+2+5. Covered tiles stay covered.
# * **STB-6**: the one-die rule. By default (`789-optional`), once 7, 8 and 9 are all
#   covered you may roll a single die instead of two. The other variants are `never`,
#   `789-forced`, `le6-optional` and `le6-forced` (one die when the open tiles total 6 or
#   less), and `always-optional`.
# * **STB-7**: the turn ends when the roll cannot be covered, or when every tile is covered
#   (you have *shut the box*).
# * **STB-8**: the score is the sum of the open tiles ("Golf"), and lower is better. The
#   variants are `count`, `digital` and `all-or-nothing`. A shut box scores 0.
# * **STB-9, STB-10**: with several players, the lowest score wins and a shut box wins at
#   once. To beat a posted score you must finish strictly below it.
# * **STB-O1 to STB-O4**: the analysis can aim for the lowest expected score, the best
#   chance to shut, or the best chance to beat a target. The adversarial versions play as
#   badly as possible and bound how much your choices matter.

# %% [markdown]
# ## 2. What optimal play is worth, under each one-die rule
#
# For each one-die rule (STB-6) and each box size (STB-1), the table gives the best expected
# score (STB-O1) and the best chance to shut (STB-O2). The adversarial columns (STB-O4) give
# the worst you could do with the same dice.

# %%
ov = ba.optimal_values((9, 10, 12))
ov

# %%
ov9 = ov[ov["tiles"] == 9].set_index("one_die")
default = ov9.loc[rules.one_die]
p_shut_exact = box.solve(rules, "shut", exact=True).start_value_exact
print(f"With tiles 1-9 and the default rule ({rules.one_die}), optimal play gives an expected score of "
      f"{default['min_expected_score']:.3f}. Playing only to shut, you shut {default['max_p_shut']:.2%} of the time "
      f"(exactly {p_shut_exact.numerator}/{p_shut_exact.denominator}).")
print(f"The worst play with the same rule expects {default['max_expected_score']:.3f}, so your decisions are worth "
      f"{default['max_expected_score'] - default['min_expected_score']:.2f} points per turn between the best and "
      "the worst play.")
never = ov9.loc["never"]
print(f"Being allowed one die ({rules.one_die} instead of never) lowers the best expected score by "
      f"{never['min_expected_score'] - default['min_expected_score']:.3f} and raises the chance to shut from "
      f"{never['max_p_shut']:.2%} to {default['max_p_shut']:.2%}.")
best_rule = ov9["min_expected_score"].idxmin()
worst_rule = ov9["min_expected_score"].idxmax()
print(f"Among the one-die rules, the lowest optimal expected score is with {best_rule} "
      f"({ov9.loc[best_rule, 'min_expected_score']:.3f}), and the highest is with {worst_rule} "
      f"({ov9.loc[worst_rule, 'min_expected_score']:.3f})."
      + (" Being forced to roll one die costs more than never having the choice."
         if ov9.loc[worst_rule, "min_expected_score"] > never["min_expected_score"] else ""))

# %% [markdown]
# ## 3. What each rule of thumb costs against optimal play
#
# The catalogue holds the optimal policy for the lowest expected score and five simple
# policies. `greedy-high` covers the highest tiles it can. `fewest-tiles` and `most-tiles`
# cover as few or as many tiles as possible. `most-options` leaves the position where the
# next roll is most likely to be coverable. `random` picks any legal move. The heuristics
# take one die when that gives the better chance to cover the next roll. First come the
# exact summaries (mean, standard deviation, chance to shut, and chance to score below 5
# and below 10).

# %%
pols = ba.catalogue(rules)
summary = ba.policy_summary(pols)
summary

# %%
plots.fig_score_distributions(ba.score_distributions(pols[:5]))

# %% [markdown]
# Next, a paired Monte Carlo comparison (`sim.box.compare`). Every policy plays the same dice
# sequences (common random numbers), so the extra score against the optimal policy,
# `diff_vs_first`, has a tight 95% CI. The `exact_diff` column gives the exact difference
# for comparison.

# %%
cmp = box.compare(pols, GAMES, SEED)
cmp["exact_diff"] = cmp["mean_score"] - cmp["mean_score"].iloc[0]
cmp["exact_in_ci"] = (cmp["diff_vs_first_ci_low"] <= cmp["exact_diff"]) & (cmp["exact_diff"] <= cmp["diff_vs_first_ci_high"])
cmp[["policy", "mean_score", "p_shut", "mc_mean_score", "mc_mean_score_ci_low", "mc_mean_score_ci_high",
     "exact_diff", "diff_vs_first", "diff_vs_first_ci_low", "diff_vs_first_ci_high", "exact_in_ci"]]

# %%
heur = cmp.iloc[1:].sort_values("exact_diff")
opt_mean = cmp["mean_score"].iloc[0]
for r in heur.itertuples():
    print(f"{r.policy:>13}: +{r.exact_diff:.3f} points per turn exactly ({100 * r.exact_diff / opt_mean:.1f}% worse), "
          f"simulated +{r.diff_vs_first:.3f} [95% CI {r.diff_vs_first_ci_low:.3f}, {r.diff_vs_first_ci_high:.3f}]")
best_heur = heur.iloc[0]
print(f"\nThe best rule of thumb, {best_heur['policy']}, costs only {best_heur['exact_diff']:.3f} points per turn, "
      f"while covering as many tiles as possible (most-tiles) costs {cmp.set_index('policy').loc['most-tiles', 'exact_diff']:.2f}.")
n_in = int(cmp["exact_in_ci"].iloc[1:].sum())
missed = cmp.loc[~cmp["exact_in_ci"], "policy"].tolist()
print(f"{n_in} of {len(cmp) - 1} paired 95% CIs contain the exact difference"
      + (f" (missed: {', '.join(missed)})" if missed else "")
      + ". With 95% intervals, about 1 in 20 misses by chance.")

# %% [markdown]
# ## 4. The moves that matter
#
# `decision_states` lists the positions with a real choice (more than one legal move) that an
# optimal player meets most often. The opening roll comes first, because it is met every turn.

# %%
sol = box.solve(rules)
dec = ba.decision_states(sol, None)
dec.head(12)

# %%
opening = dec[dec["open"] == dec["open"].iloc[0]]
single = opening[opening["cover"] == opening["roll"]]
split = opening[opening["cover"] != opening["roll"]]
print("On the opening roll, the optimal move for each total is: "
      + "; ".join(f"{r.roll} -> cover {r.cover}" for r in opening.itertuples()) + ".")
print(f"For totals {', '.join(single['roll'])}, it covers the single tile of that number. For totals "
      f"{', '.join(split['roll'])}, it covers {'; '.join(split['cover'])}"
      + (": each time it takes the 9, with the one small tile that makes up the rest."
         if split["cover"].str.split(",").map(lambda tiles: "9" in tiles).all() else "."))

# %% [markdown]
# Some positions matter more than others. Below, each decision is compared with the best rule
# of thumb from section 3. A row is shown only where that heuristic would move differently.
# `p_meet` is the chance that an optimal player meets the position and the roll in a turn.
# `loss` is the exact expected score given up by the heuristic's move there. Their product,
# `points_per_turn`, is exactly what that one mistake costs per turn to a player who plays
# every other move optimally. The list is ranked by it. In the few end-game positions where
# the heuristic would roll a different number of dice, the row shows what it would cover after
# the optimal player's roll.

# %%
heur_pol = next(p for p in pols if p.info.get("policy") == best_heur["policy"])
oc = rules.outcomes


def heuristic_gap(row):
    s = rules.mask_of(int(t) for t in row.open.split(","))
    o = next(k for k in range(oc.n) if oc.label[k] == row.roll and oc.dice[k] == sol.dice[s])
    m_opt, m_h = int(sol.move[s, o]), int(heur_pol.move[s, o])
    return pd.Series({"heuristic_cover": rules.format_state(m_h),
                      "loss": float(sol.value[s ^ m_h] - sol.value[s ^ m_opt])})


gaps = pd.concat([dec, dec.apply(heuristic_gap, axis=1)], axis=1)
gaps = gaps[gaps["loss"] > 1e-12].assign(points_per_turn=lambda d: d["p_meet"] * d["loss"])
gaps = gaps.sort_values("points_per_turn", ascending=False).reset_index(drop=True)
gaps.head(10)

# %%
top = gaps.iloc[0]
print(f"The costliest disagreement with {best_heur['policy']}: open {top['open']}, roll {top['roll']}. Cover "
      f"{top['cover']}, not {top['heuristic_cover']}. The wrong move costs {top['loss']:.3f} points when it happens, "
      f"and the position and roll come up with probability {top['p_meet']:.3f}.")
print(f"{best_heur['policy']} disagrees with optimal play in {len(gaps)} of the {len(dec)} position-and-roll pairs "
      f"with a choice. The top 10 make up {gaps['points_per_turn'].head(10).sum():.3f} of the "
      f"{gaps['points_per_turn'].sum():.3f} points summed over all of them.")
print(f"That sum counts each mistake on its own, at the optimal player's visit rates. It is not the heuristic's total "
      f"cost ({best_heur['exact_diff']:.3f} points, section 3), because one mistake changes which positions come next.")

# %% [markdown]
# ### Advice at the table: open 1, 2, 3, 4 and 5, and you roll a 7
#
# The legal moves are 3+4, 2+5 and 1+2+4. `advise` scores the position each one leaves. The
# first table plays to shut the box (STB-O2). The second plays for the lowest expected score
# (STB-O1).

# %%
adv_shut = box.advise(rules, [1, 2, 3, 4, 5], 7, objective="shut")
adv_mean = box.advise(rules, [1, 2, 3, 4, 5], 7)
display(adv_shut, adv_mean)
a, b = adv_shut.iloc[0], adv_shut.iloc[1]
print(f"Playing to shut: cover {a['cover']} (leaves {a['tiles_left']}, P(shut) {a['value']:.4f}) rather than "
      f"{b['cover']} (leaves {b['tiles_left']}, P(shut) {b['value']:.4f}), a gain of "
      f"{100 * (a['value'] - b['value']):.2f} percentage points in the chance to shut.")
print(f"Playing for the score, the best move is also {adv_mean.iloc[0]['cover']}: expected score "
      f"{adv_mean.iloc[0]['value']:.3f} against {adv_mean.iloc[1]['value']:.3f} for {adv_mean.iloc[1]['cover']}.")

# %% [markdown]
# ## 5. One die or two?
#
# Once the 7, 8 and 9 are covered, the default rule lets you roll one die (STB-6). With
# `roll=None`, `advise` compares the two choices before you roll. The table below gives the
# advice for a few end-game positions under both objectives.

# %%
positions = [[1, 2, 3, 4, 5, 6], [5, 6], [4, 5], [3, 4], [1, 6], [2, 4], [1, 5], [1, 2, 4], [1, 2, 3], [6]]
rows = []
for tiles in positions:
    row = {"open": ",".join(map(str, tiles))}
    for objective, tag in (("expected-score", "score"), ("shut", "shut")):
        adv = box.advise(rules, tiles, None, objective=objective).set_index("dice")["value"]
        row[f"{tag}: 1 die"] = adv.get(1)
        row[f"{tag}: 2 dice"] = adv.get(2)
        row[f"{tag}: best"] = int(adv.idxmin() if objective == "expected-score" else adv.idxmax())
    rows.append(row)
dice_advice = pd.DataFrame(rows)
dice_advice

# %%
one_score = dice_advice.loc[dice_advice["score: best"] == 1, "open"].tolist()
two_score = dice_advice.loc[dice_advice["score: best"] == 2, "open"].tolist()
differ = dice_advice[dice_advice["score: best"] != dice_advice["shut: best"]]
print(f"For the lowest expected score, roll one die with open {'; '.join(one_score)}, "
      f"and two dice with open {'; '.join(two_score)}.")
DICE = {1: "1 die", 2: "2 dice"}
for _, r in differ.iterrows():
    sb, hb = r["score: best"], r["shut: best"]
    print(f"With open {r['open']} the objective changes the answer. For the score, roll {DICE[sb]} "
          f"(expected {r[f'score: {DICE[sb]}']:.3f} against {r[f'score: {DICE[3 - sb]}']:.3f}). "
          f"To shut, roll {DICE[hb]} (P(shut) {r[f'shut: {DICE[hb]}']:.3f} against {r[f'shut: {DICE[3 - hb]}']:.3f}).")
if differ.empty:
    print("Among these positions, both objectives agree on the number of dice.")

# %% [markdown]
# ## 6. Playing to beat a target
#
# When another player has posted a score, or you chase a personal best, what counts is the
# chance to finish strictly below the target T (STB-10, STB-O3). The chart shows that chance
# against T, playing for that T, for every one-die rule.

# %%
curve = ba.beat_curve(rules)
plots.fig_beat_curve(curve)

# %%
cur = curve[curve["one_die"] == rules.one_die].assign(gain=lambda d: d["p_beat"] - d["p_beat_min_mean"])
show = cur[cur["target"].isin([3, 5, 8, 10, 15, 20])][["target", "p_beat", "p_beat_min_mean", "gain"]]
display(show.reset_index(drop=True))
peak = cur.loc[cur["gain"].idxmax()]
print(f"Playing for the target rather than for the lowest average helps most at T = {int(peak['target'])}: "
      f"{peak['p_beat']:.2%} against {peak['p_beat_min_mean']:.2%} (+{100 * peak['gain']:.2f} percentage points).")
t10 = cur.set_index("target").loc[10]
print(f"To beat a 10 you succeed {t10['p_beat']:.2%} of the time at best. Playing for the average instead gives "
      f"{t10['p_beat_min_mean']:.2%}.")

# %% [markdown]
# ## 7. Which scoring are you playing?
#
# The scorings of STB-8 call for different play. For each pair, the matrix gives the cost of
# optimising for one scoring (row) while being scored by another (column), in % above the
# best possible expected score for the column. The table below the chart lists the
# disagreements that cost the most, weighted by how often the row's policy meets them.

# %%
matrix, disagreements = ba.variants_matrix(rules)
plots.fig_variants_matrix(matrix)

# %%
disagreements.head(8)

# %%
off = matrix[matrix["optimised_for"] != matrix["scored_by"]].sort_values("cost_pct")
lo, hi = off.iloc[0], off.iloc[-1]
sum_row = matrix[(matrix["optimised_for"] == "sum") & (matrix["scored_by"] != "sum")]
print(f"The cheapest mismatch: play for {lo['optimised_for']} when scored by {lo['scored_by']} "
      f"(+{lo['cost_pct']:.2f}%). The dearest: play for {hi['optimised_for']} when scored by "
      f"{hi['scored_by']} (+{hi['cost_pct']:.1f}%).")
print("Playing the usual sum (Golf) policy costs " + ", ".join(
    f"{r.cost_pct:.1f}% under {r.scored_by}" for r in sum_row.itertuples()) + ".")

# %% [markdown]
# ## 8. Two players (and more): does the seat matter?
#
# `match_table` solves one round exactly (STB-9). Each seat knows the best score so far and
# plays to maximise its chance of winning, given that later seats do the same. The last seat
# plays to beat the posted score. A shut box wins at once, so later seats may not play at all.

# %%
mt = ba.match_table(rules, (2, 3, 4))
display(mt)
plots.fig_seat_wins(mt)

# %%
two = mt[mt["players"] == 2].set_index("seat")
edge = two.loc[1, "p_win"] - two.loc[2, "p_win"]
print(f"Two players: the first seat wins {two.loc[1, 'p_win']:.2%} of the time and the second {two.loc[2, 'p_win']:.2%}. "
      f"They tie {two.loc[1, 'p_tie']:.2%} of the time.")
print(f"The {'first' if edge > 0 else 'second'} seat has the edge, by {100 * abs(edge):.2f} percentage points.")
print(f"The second player knows the score to beat, but gets to play only with probability {two.loc[2, 'p_play']:.2%}: "
      f"otherwise the first player has shut the box and won (STB-9). When the second player does play, they play to "
      f"beat that score rather than for the average, and their expected score is {two.loc[2, 'expected_score']:.2f} "
      f"(first seat {two.loc[1, 'expected_score']:.2f}).")
for n_players, seats in mt.groupby("players"):
    print(f"{n_players} players: P(win) by seat " + ", ".join(f"{v:.3f}" for v in seats["p_win"]))

# %% [markdown]
# ## 9. Does the simulation agree with the exact values?
#
# Here the optimal policy plays simulated turns (a separate seed from section 3). The exact
# mean score and chance to shut should fall inside the 95% confidence intervals of the
# simulation, as they will about 19 times in 20.

# %%
opt = pols[0]
ev = box.evaluate(opt)
sim = box.simulate(opt, GAMES, SEED + 1)
m, p = sim.mean(), sim.p_shut()
check = pd.DataFrame([
    {"quantity": "mean score", "exact": ev.mean(), "simulated": m.value, "ci_low": m.low, "ci_high": m.high,
     "inside": m.contains(ev.mean())},
    {"quantity": "P(shut)", "exact": ev.p_shut, "simulated": p.value, "ci_low": p.low, "ci_high": p.high,
     "inside": p.contains(ev.p_shut)},
])
display(check)
for r in check.itertuples():
    print(f"{r.quantity}: exact {r.exact:.4f}, simulated {r.simulated:.4f} over {sim.games:,} games "
          f"[95% CI {r.ci_low:.4f}, {r.ci_high:.4f}]: the exact value is {'inside' if r.inside else 'OUTSIDE'} the interval.")

# %%
plots.fig_mc_distribution(ev.distribution(), sim.distribution(), sim.games)

# %% [markdown]
# ## Summary for the player

# %%
print(f"1. Play well and you expect {default['min_expected_score']:.2f} points and shut {ev.p_shut:.2%} of the time "
      f"(playing to shut raises that to {default['max_p_shut']:.2%}).")
print(f"2. The best simple rule ({best_heur['policy']}) costs {best_heur['exact_diff']:.2f} points per turn. "
      f"Careless play (random) costs {cmp.set_index('policy').loc['random', 'exact_diff']:.1f}, "
      f"and most-tiles {cmp.set_index('policy').loc['most-tiles', 'exact_diff']:.1f}.")
print(f"3. The costliest single mistake of {best_heur['policy']}: with open {top['open']} and a roll of {top['roll']}, "
      f"cover {top['cover']}, not {top['heuristic_cover']}. "
      f"With 1-5 open and a 7, playing to shut, cover {a['cover']}.")
print(f"4. In the end game, one die is best for the score with open {'; '.join(one_score)}.")
print(f"5. Against a posted score, play for it. That raises the chance to beat it by up to "
      f"{100 * peak['gain']:.1f} percentage points (at T = {int(peak['target'])}).")
print(f"6. Two players: seat {1 if edge > 0 else 2} has an edge of {100 * abs(edge):.1f} percentage points in the "
      "chance to win.")
