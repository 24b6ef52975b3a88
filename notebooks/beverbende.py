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
# # Beverbende: when should I knock, and what is a good memory worth?
#
# This notebook answers a player's questions with ludolab's own simulator, analyses and
# charts (`ludolab.sim.beverbende`, `ludolab.analysis.beverbende`). Clause ids such as
# `BVB-9` refer to the rules in `seeds/beverbende.md`.
#
# Every number is simulated: rounds are played by policies that see only what their player
# knows (BVB-13), comparisons use common random numbers (the same deals for every policy or
# threshold compared), and estimates carry 95% confidence intervals. The number of rounds
# comes from the environment variable `LUDOLAB_NOTEBOOK_GAMES` (default 200,000); the tests
# set it lower so the notebook runs fast. The findings below are printed from the computed
# values, not typed in by hand.

# %%
# %matplotlib inline
import os

import pandas as pd
from IPython.display import display

from ludolab.analysis import beverbende as A
from ludolab.stdlib.beverbende import BeverbendeRules

ROUNDS = int(os.environ.get("LUDOLAB_NOTEBOOK_GAMES", "200000"))
SWEEP = max(200, ROUNDS // 20)   # rounds per cell of the knock heatmap
SEED = 2026
pd.set_option("display.precision", 3)
pd.set_option("display.width", 160)
rules = BeverbendeRules(players=4)
print(f"Rules: {rules.players} players, {rules.n_cards}-card deck, {rules.scoring} scoring")
print(f"Monte Carlo: {ROUNDS:,} rounds per run ({SWEEP:,} per heatmap cell), root seed {SEED}")

# %% [markdown]
# ## 1. The rules in brief
#
# * **BVB-1**: 66 cards, values 0 to 9 (the 9 nine times) and 21 special cards: swap, peek,
#   draw twice.
# * **BVB-3, BVB-4**: four face-down cards each; you look once at your two outer cards.
# * **BVB-6, BVB-7**: on your turn, take the top discard (never a special card) into your
#   row unseen, or draw, look, and exchange, discard or play the special card.
# * **BVB-9**: once everyone has played, you may knock after your turn; everyone else then
#   plays once more. **BVB-10**: lowest row wins the round; specials left in a row are
#   replaced from the pile.
#
# The policies: `threshold` knocks when the row it believes it has (unknown cards counted
# as 4.5) totals at most *knock*; `expected-value` values unknown cards at the mean of the
# cards it has not seen; `random` plays any legal move.

# %% [markdown]
# ## 2. How much does play matter?

# %%
pt = A.policy_table((2, 4, 6), rounds=ROUNDS // 4, seed=SEED)
display(pt[["players", "policy", "mean_score", "mean_score_ci_low", "mean_score_ci_high", "margin",
            "p_lowest_alone", "knock_rate"]])
for P, d in pt.groupby("players"):
    r = d.set_index("policy")
    print(f"{P} players: threshold scores {r.mean_score['threshold']:.2f} a round, random "
          f"{r.mean_score['random']:.2f}, expected-value {r.mean_score['expected-value']:.2f}.")

# %% [markdown]
# ## 3. When should I knock?
#
# The heatmap puts seat 0's knock threshold against the threshold of every other seat.
# The colour is seat 0's *margin*: its round score minus the mean of the others' (points,
# lower is better). That margin, not the raw score, decides a game scored by sums: never
# knocking keeps your own score falling, but so do everybody else's.

# %%
sw = A.knock_sweep((2, 4, 6), range(2, 19, 4), range(2, 19, 4), rounds=SWEEP, seed=SEED)
A.fig_heatmap(sw)

# %%
bk = A.best_knock(sw)
display(bk)
for P, d in bk.groupby("players"):
    r = d.iloc[(d.field_knock - 10).abs().argmin()]
    print(f"{P} players, field knocking at {r.field_knock:g}: knock at {r.best_knock:g} or below "
          f"(margin {r.margin:+.2f}, 95% CI {r.margin_ci_low:+.2f} to {r.margin_ci_high:+.2f}).")

# %% [markdown]
# ## 4. What is a good memory worth?
#
# With memory loss *q* each remembered card is forgotten with chance *q* at the start of
# each of your turns (BVB-13). "one": only seat 0 forgets; "all": every seat does.

# %%
mc = A.memory_curve((0.0, 0.1, 0.25, 0.5, 1.0), 4, rounds=ROUNDS // 4, seed=SEED)
display(mc[["memory_loss", "who", "mean_score", "mean_score_ci_low", "mean_score_ci_high", "mean_turns"]])
A.fig_memory(mc)

# %%
one = mc[mc.who == "one"].set_index("memory_loss")
for q in one.index[1:]:
    print(f"Forgetting with q = {q:g} costs seat 0 {one.mean_score[q] - one.mean_score[0.0]:+.2f} points a round "
          "against opponents with perfect memory.")

# %% [markdown]
# ## 5. How much does each special card matter?

# %%
sv = A.special_values(4, rounds=ROUNDS // 4, seed=SEED)
display(sv[["special", "factor", "copies", "mean_score", "change", "change_ci_low", "change_ci_high"]])
A.fig_specials(sv)

# %%
su = A.special_use(4, rounds=ROUNDS // 4, seed=SEED)
display(su[["ignores", "mean_score", "diff_vs_first", "diff_vs_first_ci_low", "diff_vs_first_ci_high"]])
for r in su.iloc[1:].itertuples():
    print(f"Never playing {r.ignores} costs {r.diff_vs_first:+.2f} points a round "
          f"(95% CI {r.diff_vs_first_ci_low:+.2f} to {r.diff_vs_first_ci_high:+.2f}).")

# %% [markdown]
# ## 6. Scoring variants
#
# A knocker penalty (5 points unless strictly lowest) and win counting (a point per round
# won) change what a knock risks; the best own knock threshold moves with them.

# %%
var = A.variants((2, 4), range(2, 19, 4), rounds=SWEEP, seed=SEED)
display(A.best_by_variant(var))
