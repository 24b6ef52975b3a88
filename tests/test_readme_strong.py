"""The README's words on Shelve the Book's scoring variants and decks under strong play quote the deep runs kept
with ludolab (``analysis/stored``): every figure is the stored table's, rounded as the README writes it, with the
ordering the table gives (nothing is played here)."""

from pathlib import Path

import pandas as pd
from ludolab.analysis import deep as D

README = Path(__file__).resolve().parents[1] / "README.md"


def _readme() -> str:
    return " ".join(README.read_text().split())  # the prose wraps anywhere: compare with single spaces


def _skill(name: str) -> pd.DataFrame:
    st = D.stored(name)
    assert st.status == "ok", st.why
    return st.tables()["skill"]


def _ci(r, k: str) -> str:
    return f"{r[k]:.2f}, 95% CI {r[k + '_ci_low']:.2f} to {r[k + '_ci_high']:.2f}"


def test_the_readme_quotes_the_stored_scoring_variants_run():
    sk = _skill("shelf_strong_variants")
    name = sk["variant"].str.removesuffix(" scoring")
    claims = []
    for which, words in (("strong", "with the search"), ("heuristic", "with `potential`")):
        k = f"spread_sd_{which}"
        top, low = sk.loc[sk[k].idxmax()], sk.loc[sk[k].idxmin()]
        claims += [f"widest under {name[top.name]} scoring {words} ({_ci(top, k)}",
                   f"narrowest under {name[low.name]} scoring {words} ({_ci(low, k)})"]
    g = sk.sort_values("gain")
    claims.append(f"{g.iloc[0]['gain']:+.2f} points a player ({name[g.index[0]]} scoring) to "
                  f"{g.iloc[-1]['gain']:+.2f} ({name[g.index[-1]]} scoring) more than `potential`")
    order = sk.sort_values("spread_sd_strong", ascending=False)
    top, runner = order.iloc[0], order.iloc[1]
    assert runner["spread_sd_strong_ci_high"] >= top["spread_sd_strong_ci_low"], "the runner-up is not told apart"
    claims.append(f"{name[runner.name]} scoring at {runner['spread_sd_strong']:.2f} is not told apart from it")
    assert (sk["gain_ci_low"] > 0).all(), "the search widens the spread under every scoring"
    claims.append("widens skill's spread under every scoring (paired CIs above 0)")
    text = _readme()
    assert [c for c in claims if c not in text] == []


def test_the_readme_quotes_the_stored_decks_run():
    sk = _skill("shelf_strong_decks")
    claims = []
    for which, words in (("strong", "under the search"), ("heuristic", "under `potential`")):
        k = f"spread_{which}"
        lo, hi = sk.loc[sk[k].idxmin()], sk.loc[sk[k].idxmax()]
        claims.append(f"from {lo[k]:.2f} ({lo['deck']}) to {hi[k]:.2f} ({hi['deck']}) points a player {words}")
    tops = {sk.loc[sk[k].idxmax(), "deck"] for k in ("spread_strong", "spread_heuristic", "gain")}
    assert tops == {"corr 1"}, "the deck tying every field to its colour rewards skill most, and the search gains most"
    claims.append(f"there the search gains most over `potential` ({sk['gain'].max():+.2f} points a player)")
    text = _readme()
    assert [c for c in claims if c not in text] == []
