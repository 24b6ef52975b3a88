"""Hypothesis strategies shared by the Shut the Box tests."""

from hypothesis import strategies as st

from ludolab.stdlib.box import MOVE_STYLES, ONE_DIE_RULES, SCORINGS, BoxRules


@st.composite
def rulesets(draw, max_tiles: int = 7):
    """Random valid rulesets (STB-1, STB-4..STB-8) with 2..max_tiles tiles."""
    tiles = draw(st.lists(st.integers(1, 12), min_size=2, max_size=max_tiles, unique=True))
    moves = draw(st.sampled_from(MOVE_STYLES))
    k = None if moves == "thai" else draw(st.sampled_from([None, 1, 2, 3]))
    return BoxRules(tiles=tiles, one_die=draw(st.sampled_from(ONE_DIE_RULES)), moves=moves,
                    max_tiles_per_move=k, score=draw(st.sampled_from(SCORINGS)))
