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
# # Shut The Books: how many cards should I lay, and which?
#
# This notebook answers a player's questions with ludolab's own engine, policies, tables and
# charts (`ludolab.sim.books`, `ludolab.analysis.books`). Clause ids such as `STK-6` refer to
# the rules in `seeds/shut_the_books.md`.
#
# Every figure comes from Monte Carlo hands and carries a 95% confidence interval. The number
# of simulated hands comes from the environment variable `LUDOLAB_NOTEBOOK_GAMES` (default
# 200,000); the tests set it lower so the notebook runs fast. No number in the text is typed
# in by hand: every finding is printed from the values computed here.

# %%
# %matplotlib inline
import os

import pandas as pd
from IPython.display import display

from ludolab.analysis import books as A
from ludolab.sim import books as S
from ludolab.stdlib.books import BooksRules

GAMES = int(os.environ.get("LUDOLAB_NOTEBOOK_GAMES", "200000"))
HANDS = max(500, GAMES // 4)
SEED = 2026
pd.set_option("display.precision", 3)
pd.set_option("display.width", 160)
rules = BooksRules(4)
print(f"Rules: {rules.describe()}")
print(f"Monte Carlo: {HANDS:,} deals per study, root seed {SEED}")

# %% [markdown]
# ## 1. The rules in brief
#
# * **STK-1, STK-3**: four colours numbered 1 to 15 (1 to 12 with three players); red is
#   trump; every card is dealt.
# * **STK-4**: from the starting player clockwise, each player lays 0 to 5 cards of their hand
#   face up. Each prediction card promises one trick won with a card of its colour or number.
# * **STK-5**: follow the colour led if you can; the highest red wins, else the highest card
#   of the colour led.
# * **STK-6**: the winning card closes one matching open prediction card of its winner (the
#   winner chooses which); a red card that won while its player was void in the colour led
#   also counts as that colour. A trick that closes nothing is an extra trick.
# * **STK-7**: the hand ends when someone runs out of cards, so laying many prediction cards
#   shortens the hand for everyone.
# * **STK-8**: off = open prediction cards + extra tricks; off 0 scores 4, off 1 scores 2,
#   off k scores -k.

# %% [markdown]
# ## 2. How accurate can forecasts be?
#
# Four policy pairs play the same deals (common random numbers): the hand-strength forecaster
# with heuristic card play, the same forecaster with random play, laying nothing, and random
# everything.

# %%
acc = S.accuracy(rules, list(A.STANDARD_CONFIGS), HANDS, SEED)
t = A.accuracy_tables(acc)
ov = t["overall"]
display(ov[["forecast", "play", "exact", "exact_ci_low", "exact_ci_high", "off_by_1", "mean_score",
            "mean_score_ci_low", "mean_score_ci_high", "mae", "mean_predictions"]])
best = ov.loc[ov["mean_score"].idxmax()]
print(f"Best pair: {A.label(best['forecast'], best['play'])}: exact in {best['exact']:.1%} of player-hands "
      f"(95% CI {best['exact_ci_low']:.1%} to {best['exact_ci_high']:.1%}), "
      f"{best['mean_score']:.2f} points per hand.")

# %%
A.fig_by_seat(t["by_seat"], rules)

# %%
A.fig_off_distribution(t["off_distribution"], rules)

# %% [markdown]
# ## 3. How many cards? Accuracy by number of prediction cards
#
# For the hand-strength forecaster: how often a forecast of k cards comes out exact, and what
# it scores. Few cards are easier to hit; many cards shorten the hand (STK-7).

# %%
byk = t["by_predictions"]
h = byk[(byk["forecast"] == "heuristic") & (byk["play"] == "heuristic")]
display(h[["predictions", "share_of_hands", "exact", "exact_ci_low", "exact_ci_high", "mean_score",
           "mean_score_ci_low", "mean_score_ci_high"]])
A.fig_by_predictions(byk, rules)

# %% [markdown]
# ## 4. Which cards? Advice for one hand
#
# The rollout forecaster samples the hidden hands consistent with what the player knows (their
# hand, the prediction cards laid before) and plays each candidate prediction set out under
# heuristic play for everyone. Here is its advice for one hand, forecasting first and last.

# %%
hand = "R15 R9 B10 B3 B7 Y1 Y5 Y12 P2 P4 P8 P11 P13 R2 B14"
small = GAMES < 100000
kw = dict(pool=5 if small else 8, worlds=4 if small else 32, half_width=0.5 if small else 0.1, seed=SEED)
first = S.advise(rules, hand, 1, [], **kw)
last = S.advise(rules, hand, 4, ["P12 Y3", "", "R14 B15 Y15"], **kw)
for name, df in (("first", first), ("last", last)):
    b = df.iloc[0]
    print(f"Forecasting {name}: lay {' '.join(b['lay']) or 'nothing'}: expected {b['expected_score']:.2f} points "
          f"(95% CI {b['expected_score_ci_low']:.2f} to {b['expected_score_ci_high']:.2f}), "
          f"P(exact) {b['p_exact']:.2f}")
display(first.head(6)[["lay", "cards", "worlds", "expected_score", "expected_score_ci_low",
                       "expected_score_ci_high", "p_exact", "p_off_by_1"]])

# %%
from matplotlib.figure import Figure

fig = Figure(figsize=(7, 4))
ax = fig.subplots()
for name, df in (("forecasting first", first), ("forecasting last", last)):
    fin = df[df["final"]] if df["final"].any() else df
    per_k = fin.sort_values("expected_score", ascending=False).groupby("cards").head(1).sort_values("cards")
    ax.errorbar(per_k["cards"], per_k["expected_score"],
                yerr=[per_k["expected_score"] - per_k["expected_score_ci_low"],
                      per_k["expected_score_ci_high"] - per_k["expected_score"]], marker="o", capsize=3, label=name)
ax.set_xlabel("prediction cards laid (best set of that size)")
ax.set_ylabel("expected hand score (points)")
ax.set_title("Shut The Books, 4 players, rulebook scoring: one hand's best set by size (95% CI)")
ax.legend()
ax.grid(alpha=0.3)
fig

# %% [markdown]
# ## 5. Does the forecaster know how sure it is?
#
# The rollout forecaster states P(exact) for the set it lays. A reliability chart compares
# those statements with what happens when everyone forecasts and plays this way.

# %%
cal_hands = max(40, GAMES // 2000)
cacc = S.accuracy(rules, [(S.forecast_policy("rollout", pool=5, worlds=2), "heuristic")], cal_hands, SEED)
bins, summ = cacc.calibration()
display(summ)
print(f"Brier score {summ['brier'].iloc[0]:.3f} (95% CI {summ['brier_ci_low'].iloc[0]:.3f} to "
      f"{summ['brier_ci_high'].iloc[0]:.3f}); stated P(exact) {summ['mean_stated_p_exact'].iloc[0]:.2f} on average, "
      f"observed {summ['observed_exact'].iloc[0]:.2f}.")
A.fig_reliability(bins, summ, rules)

# %% [markdown]
# ## 6. Seat order and scoring variants
#
# The first forecaster knows least. The paired cost (first forecaster minus the mean of the
# others in the same hand), and the scoring variants with the forecaster and the player re-tuned to each.

# %%
display(t["first_cost"])
var = A.variants(4, max(200, HANDS // 4), SEED)
display(var[["scoring", "tuned_bias", "tuned_keep_low", "mean_predictions", "exact", "skill_spread", "skill_spread_sd",
             "first_minus_others"]])
A.fig_variants(var, 4)
