"""Hypothesis strategies shared by the Shut the Box tests."""

from hypothesis import strategies as st

from ludolab.stdlib.box import MOVE_STYLES, ONE_DIE_RULES, SCORINGS, BoxRules

FAMILY = ("sum-le-{k}-optional", "sum-le-{k}-forced", "sum-lt-{k}-optional", "sum-lt-{k}-forced",
          "max-le-{k}-optional", "max-le-{k}-forced", "only-1-optional", "only-1-forced")


@st.composite
def rulesets(draw, max_tiles: int = 7):
    """Random valid rulesets (STB-1, STB-2, STB-4..STB-8) with 1..max_tiles tiles numbered 1..20,
    dice 2d6 (most often), 3d6, 2d4 or 1d8, and any one-die rule of the family (STB-6)."""
    tiles = draw(st.lists(st.integers(1, 20), min_size=1, max_size=max_tiles, unique=True))
    dice = draw(st.sampled_from(["2d6", "2d6", "2d6", "3d6", "2d4", "1d8"]))
    moves = draw(st.sampled_from(MOVE_STYLES)) if dice.startswith("2d") else "subset"
    k = None if moves == "thai" else draw(st.sampled_from([None, 1, 2, 3]))
    if dice.startswith("1d"):
        one_die = "never"
    else:
        one_die = draw(st.sampled_from(ONE_DIE_RULES + FAMILY)).format(k=draw(st.integers(0, 12)))
    return BoxRules(tiles=tiles, one_die=one_die, moves=moves, max_tiles_per_move=k,
                    score=draw(st.sampled_from(SCORINGS)), dice=dice)
