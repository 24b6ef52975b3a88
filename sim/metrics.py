"""Generic main metrics for sequential stopping (``--precision``).

A :class:`~ludolab.sim.runner.RunSpec` names its main metric as
``metric="module:function"`` with ``metric_args``; the runner calls
``function(acc, games, *metric_args)`` on the accumulator summed over chunks
and the number of games, and reads the 95% confidence half-width from the
:class:`~ludolab.sim.stats.Estimate` (or ``(value, half_width)``) it returns.
These functions know nothing of any game: the face says where in its
accumulator the metric lives.
"""

from __future__ import annotations

import math

import numpy as np

from .stats import Estimate, mean_ci, wilson_ci


def proportion(acc, games: int, index) -> Estimate:
    """Share of games counted at ``acc[index]`` (Wilson interval; fractional counts rounded)."""
    k = float(np.asarray(acc)[tuple(np.atleast_1d(index))])
    return wilson_ci(int(round(min(max(k, 0.0), games))), int(games))


def mean(acc, games: int, sum_index, sumsq_index, scale: float = 1.0) -> Estimate:
    """Mean of a per-game quantity from its sum and sum of squares at two places of ``acc``."""
    a = np.asarray(acc, dtype=np.float64)
    s = float(a[tuple(np.atleast_1d(sum_index))]) * scale
    s2 = float(a[tuple(np.atleast_1d(sumsq_index))]) * scale * scale
    return mean_ci(int(games), s, s2)


def weighted_mean(acc, games: int, values) -> Estimate:
    """Mean of ``values[k]`` when ``acc[k]`` counts the games that ended in outcome ``k``."""
    c = np.asarray(acc, dtype=np.float64).ravel()
    v = np.asarray(values, dtype=np.float64).ravel()
    return mean_ci(int(games), float(c @ v), float(c @ (v * v)))


def half_width(est) -> tuple[float, float]:
    """``(value, half_width)`` of an Estimate or of a ``(value, half_width)`` pair (NaN when unknown)."""
    if isinstance(est, Estimate):
        hw = (est.high - est.low) / 2 if not (math.isnan(est.low) or math.isnan(est.high)) else math.nan
        return float(est.value), float(hw)
    value, hw = est
    return float(value), float(hw)
