"""The arithmetic of ``rulespec stats``: Wilson intervals of rates, quantiles, histograms."""
from __future__ import annotations

import math
import statistics
from typing import Optional

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal: a two-sided 95% interval


def wilson(successes: int, trials: int, z: float = Z95) -> Optional[tuple]:
    """The Wilson score interval (lo, hi) of a proportion; None when there are no trials."""
    if trials <= 0:
        return None
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(wins: int, n: int) -> dict:
    ci = wilson(wins, n)
    return {"wins": wins, "games": n, "rate": wins / n if n else None, "ci": list(ci) if ci else None}


def quantile(sorted_values: list, q: float) -> float:
    """The q-quantile by linear interpolation (statistics' 'inclusive' method)."""
    if len(sorted_values) == 1:
        return float(sorted_values[0])
    return statistics.quantiles(sorted_values, n=100, method="inclusive")[round(q * 100) - 1]


def histogram(values: list, bins: int = 20, lo: Optional[int] = None, hi: Optional[int] = None) -> list:
    """[[lo, hi, count], ...]: `bins` equal bins of whole-number width over the values, or over
    lo..hi when given (lo included, hi excluded; the last bin holds the maximum)."""
    lo = min(values) if lo is None else lo
    hi = max(values) if hi is None else hi
    width = max(1, math.ceil((hi - lo + 1) / bins))
    n = math.ceil((hi - lo + 1) / width)
    counts = [0] * n
    for v in values:
        counts[(v - lo) // width] += 1
    return [[lo + k * width, lo + (k + 1) * width, counts[k]] for k in range(n)]
