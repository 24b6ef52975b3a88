"""Foresight (STB-O5, seeds/shut_the_box.md): the numba kernel against its pure-Python twin.

The kernel runs the same search over knowledge sets as the reference, in the same order, so the
chance to shut, the mean score and the number of memoised knowledge sets all agree; so does the
point where the memo outgrows ``max_sets``.  Every ruleset here is small (the reference takes
well under a second on each).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from ludolab.sim.box_foresight import ForesightError, foresight
from ludolab.stdlib.box import BoxRules
from ludolab.stdlib.errors import UnknownNameError

RULESETS = [
    BoxRules(tiles=3),                                              # STB-6: one die once 7, 8, 9 are shut
    BoxRules(tiles=4, one_die="always-optional"),
    BoxRules(tiles=5, one_die="never"),                             # two dice always
    BoxRules(tiles=6, one_die="le6-forced", score="count"),
    BoxRules(tiles=5, moves="thai", one_die="never"),               # STB-5: thai moves
    BoxRules(tiles=7, one_die="789-forced", score="digital"),
    BoxRules(tiles=8, one_die="le6-optional", max_tiles_per_move=2),
    BoxRules(tiles=9, one_die="never"),
    BoxRules(tiles=5, dice="1d6", one_die="never"),                 # STB-2: one die only
    BoxRules(tiles=4, dice="3d6"),                                  # three dice a full roll
    BoxRules(tiles=(2, 4, 6), one_die="always-optional", score="all-or-nothing"),
]


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.label())
def test_kernel_equals_reference(rules):
    # STB-O5: the same search, the same figures (to the last bit in practice; 1e-12 asked)
    kernel = foresight(rules)
    ref = foresight(rules, engine="reference")
    assert kernel.p_shut == pytest.approx(ref.p_shut, abs=1e-12)
    assert kernel.mean_score == pytest.approx(ref.mean_score, abs=1e-12)
    assert kernel.knowledge_sets == ref.knowledge_sets
    assert isinstance(kernel.p_shut, float) and isinstance(kernel.mean_score, float)


def test_kernel_equals_the_exact_fractions():
    # STB-O5: tiles 1 and 2, two dice always: only a 3 shuts (2/36), as the exact search says
    rules = BoxRules(tiles=(1, 2), one_die="never")
    exact = foresight(rules, exact=True)
    assert exact.p_shut == Fraction(2, 36)
    kernel = foresight(rules)
    assert kernel.p_shut == pytest.approx(float(exact.p_shut), abs=1e-15)
    assert kernel.mean_score == pytest.approx(float(exact.mean_score), abs=1e-15)
    assert foresight(rules, exact=True, engine="kernel") == exact  # exact is always the reference


def test_overflow_at_the_same_limit_as_the_reference():
    # STB-O5: the memo limit stops both engines at the same point, with the same error
    rules = BoxRules(tiles=5)
    n = foresight(rules).knowledge_sets
    for max_sets in (0, 1, 50, n - 3, n - 1, n, n + 1):
        outcomes = []
        for engine in ("kernel", "reference"):
            try:
                outcomes.append(foresight(rules, max_sets=max_sets, engine=engine).knowledge_sets)
            except ForesightError as exc:
                outcomes.append(str(exc))
        assert outcomes[0] == outcomes[1], max_sets
    assert foresight(rules, max_sets=n).knowledge_sets == n
    with pytest.raises(ForesightError, match=f"more than {n - 3:,} knowledge sets"):
        foresight(rules, max_sets=n - 3)


def test_unknown_engine():
    with pytest.raises(UnknownNameError, match="engine 'numba'.*kernel, reference"):
        foresight(BoxRules(tiles=3), engine="numba")
