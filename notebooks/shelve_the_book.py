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
# # Shelve the Book: which draft and placement strategy wins, and what does each scoring rule do?
#
# This notebook answers a designer's and a player's questions with ludolab's own engine,
# policies, tables and charts (`ludolab.sim.shelf`, `ludolab.analysis.shelf`). Clause ids such
# as `SHB-8` refer to the rules in `seeds/shelve_the_book.md`.
#
# **The deck is assumed.** The publisher lists no deck, so the default deck `assumed-90`
# (6 fields x 5 colours x 3 cards, accession numbers 1-90, real scholars' surnames, drawn once
# with a fixed seed) stands in for it. Every number below depends on that assumption; the last
# section measures how much.
#
# All figures are Monte Carlo estimates with 95% confidence intervals; policies and scoring
# variants are compared on the same deals (common random numbers). The budget comes from the
# environment variable `LUDOLAB_NOTEBOOK_GAMES` (default 100,000; the tests set it lower), split
# over the studies below. No number in the text is typed in by hand: each finding is printed from
# the values computed here.

# %%
# %matplotlib inline
import json
import os

import pandas as pd
from IPython.display import display

from ludolab.analysis import shelf as A
from ludolab.sim import shelf as S
from ludolab.stdlib.shelf import ShelfRules, assumed_deck, parse_tableau

BUDGET = int(os.environ.get("LUDOLAB_NOTEBOOK_GAMES", "100000"))
N_POLICY = max(200, BUDGET // 20)
N_VARIANT = max(50, BUDGET // 100)
N_DECK = max(40, BUDGET // 200)
SEED = 2026
pd.set_option("display.precision", 3)
pd.set_option("display.width", 180)

deck = assumed_deck()
rules = ShelfRules(players=4)
print(rules.label())
print(f"deals: {N_POLICY:,} for the policy study, {N_VARIANT:,} per scoring variant, {N_DECK:,} per deck; seed {SEED}")

# %% [markdown]
# ## Scoring: the rulebook's worked example (SHB-13)
#
# A tableau built to hold exactly the combinations the rulebook lists: the top shelf scores
# 5 + 1 + 1 + 1, the middle 5 + 2 + 2 and the bottom 5 + 5 + 1.

# %%
from importlib import resources

example = json.loads(resources.files("ludolab.stdlib").joinpath("data", "shelf_worked_example.json").read_text())
sc = S.score_tableau(parse_tableau(example))
display(pd.DataFrame(sc.combinations))
print(f"total {sc.total} points")

# %% [markdown]
# ## Which policy wins?
#
# Three policies, each playing every seat, on the same deals: `random` (a uniformly random legal
# choice), `greedy` (the largest immediate score gain over every offer card and place; it draws
# two blind when no offer card gains a point) and `potential` (greedy on score plus a value for
# partial runs of 2-4 books that still have an open place at an end).

# %%
df, res = A.policy_table(rules, A.DEFAULT_POLICIES, N_POLICY, SEED)
display(df)
best = df.loc[df["mean_score"].idxmax()]
rnd = df.loc[df["policy"] == "random"].iloc[0]
print(f"Best policy: {best['policy']}, {best['mean_score']:.2f} points per player "
      f"(95% CI {best['mean_score_ci_low']:.2f}-{best['mean_score_ci_high']:.2f}); random play scores "
      f"{rnd['mean_score']:.2f}. On the same deals skill is worth {best['diff_vs_first']:.2f} points "
      f"(CI {best['diff_vs_first_ci_low']:.2f}-{best['diff_vs_first_ci_high']:.2f}).")

# %%
A.fig_score_distribution(res, deck.label)

# %%
A.fig_points_sources(df, f"Where the points come from (4 players, standard scoring)\n{deck.label}")

# %% [markdown]
# Head to head: one `potential` player against three `greedy` players, and against three random ones.

# %%
h2h = pd.DataFrame([A.head_to_head(rules, "potential", "greedy", N_POLICY, SEED + 1),
                    A.head_to_head(rules, "potential", "random", N_POLICY, SEED + 1)])
display(h2h)
print(f"Against greedy players, one potential player wins {h2h['hero_win_share'][0]:.3f} of the games "
      f"(CI {h2h['hero_win_share_ci_low'][0]:.3f}-{h2h['hero_win_share_ci_high'][0]:.3f}; a fair share is 0.25).")

# %% [markdown]
# ## The value of going first, and the offer against the blind draw
#
# The player with the lowest hand card starts (SHB-3). `position` 1 starts.

# %%
pos = A.position_table(res, 2)
display(pos)
print(f"Starting player's win share with four potential players: {pos['win_share'][0]:.3f} "
      f"(CI {pos['win_share_ci_low'][0]:.3f}-{pos['win_share_ci_high'][0]:.3f}).")
o = df.loc[df["policy"] == "potential"].iloc[0]
print(f"In hindsight, the best offer card beat the two real top cards of the pile in "
      f"{100 * o['p_offer_better']:.1f}% of turns and lost in {100 * o['p_draw_better']:.1f}% (immediate points only).")

# %% [markdown]
# What is the blind draw worth? The potential policy as it is, never drawing blind, and drawing blind
# whenever the pile allows, each in every seat on the same deals.

# %%
dw = A.draw_option_table(rules, N_POLICY, SEED + 6)
display(dw)
print(f"Never drawing blind costs {-dw['diff_vs_potential'][1]:.2f} points per player "
      f"(CI {-dw['diff_vs_potential_ci_high'][1]:.2f}-{-dw['diff_vs_potential_ci_low'][1]:.2f}); "
      f"always drawing blind costs {-dw['diff_vs_potential'][2]:.2f}.")

# %% [markdown]
# ## What each scoring rule does (SHB-11)
#
# `spread_sd` is the gain of potential over random play on the same deals, in standard deviations of
# a random player's score, so variants with bigger numbers compare fairly.

# %%
dv = A.variant_table(4, "potential", N_VARIANT, SEED + 2)
display(dv)
w = dv.loc[dv["spread_sd"].idxmax()]
print(f"Skill matters most under '{w['variant']}' ({w['rule']}): spread {w['spread_sd']:.2f} SD.")

# %%
A.fig_ci_bars(dv, "variant", "spread_sd", f"Skill spread (potential - random) by scoring variant\n{deck.label}",
              "spread (SD of a random player's score)")

# %%
A.fig_points_sources(dv, "Share of the potential policy's points by kind, per variant", "variant", "share_",
                     "share of points")

# %% [markdown]
# ## How much the deck matters
#
# Generated 90-card decks that change one thing at a time: the field-colour correlation, the number of
# fields or colours, the range of accession numbers.

# %%
dd = A.deck_table(4, "potential", N_DECK, SEED + 3)
display(dd)
lo = dd.loc[dd["edge"].idxmin()]
hi = dd.loc[dd["edge"].idxmax()]
print(f"The edge of potential over random play ranges from {lo['edge']:.2f} points ({lo['deck']}) to "
      f"{hi['edge']:.2f} ({hi['deck']}).")

# %%
A.fig_ci_bars(dd, "deck", "skilled_win_share", "Win share of one potential player against three greedy ones",
              "win share (ties shared)", fair=0.25)
