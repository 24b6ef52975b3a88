"""Confidence intervals for Monte Carlo estimates (95% by default).

Means use the normal approximation with the sample standard deviation;
proportions use the Wilson score interval (Wilson 1927), which stays inside
[0, 1] and behaves at p near 0; paired differences use the standard error of
the per-game difference (common random numbers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its confidence interval ``[low, high]`` and standard error."""

    value: float
    low: float
    high: float
    se: float

    def contains(self, x: float) -> bool:
        return self.low <= x <= self.high

    def as_dict(self, prefix: str) -> dict:
        return {prefix: self.value, f"{prefix}_ci_low": self.low, f"{prefix}_ci_high": self.high}


def mean_ci(n: int, total: float, total_sq: float, z: float = Z95,
            bounds: tuple[float, float] | None = None) -> Estimate:
    """Mean and CI from the count, the sum and the sum of squares of a sample.

    Args:
        bounds: the range the quantity can take; the interval is clipped to it.

    Returns:
        The estimate; with a single observation the interval is unknown (NaN).

    Raises:
        ValueError: if n < 1.
    """
    if n < 1:
        raise ValueError("a mean needs at least one observation")
    m = total / n
    if n == 1:
        return Estimate(m, math.nan, math.nan, math.nan)
    var = max(total_sq / n - m * m, 0.0) * n / (n - 1)
    se = math.sqrt(var / n)
    low, high = m - z * se, m + z * se
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return Estimate(m, low, high, se)


def wilson_ci(successes: int, n: int, z: float = Z95) -> Estimate:
    """Proportion ``successes / n`` with its Wilson score interval.

    Raises:
        ValueError: if n < 1 or successes is outside 0..n.
    """
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n and n >= 1, got {successes}/{n}")
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Estimate(p, low, high, math.sqrt(p * (1 - p) / n))


def paired_diff_ci(n: int, sum_d: float, sum_d2: float, z: float = Z95,
                   bounds: tuple[float, float] | None = None) -> Estimate:
    """Mean of paired differences (common random numbers) with its CI.

    Args:
        n: number of paired games; sum_d: sum over games of (x_b - x_a);
        sum_d2: sum of squares of those differences; bounds: the range a
            difference can take (the interval is clipped to it).

    Returns:
        The mean difference; the CI is NaN for a single game.

    Raises:
        ValueError: if n < 1.
    """
    return mean_ci(n, sum_d, sum_d2, z, bounds)


def paired_from_moments(n: int, sums: "np.ndarray", a: int, b: int,
                        bounds: tuple[float, float] | None = None) -> Estimate:
    """Paired difference x_b - x_a from a moment matrix.

    Args:
        sums: float (k, k + 1): ``sums[i, j]`` = sum of x_i * x_j over games,
            ``sums[i, k]`` = sum of x_i (what the paired kernels accumulate).
        a, b: the two policies (rows).
    """
    k = sums.shape[0]
    return paired_diff_ci(n, float(sums[b, k] - sums[a, k]),
                          float(sums[b, b] - 2 * sums[a, b] + sums[a, a]), bounds=bounds)
