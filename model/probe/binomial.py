"""Intervals on a share of requests (docs/design/vendor-speed.md#the-served-tier, #the-sla).

- `wilson`: the Wilson score interval, two-sided at the confidence (the downgraded share).
- `exact_bounds`: Clopper-Pearson, each end a one-sided bound at the confidence (the SLA's share: "met" needs
  the low end at or above the promise, so at 95% it is shown met with 95% confidence, and with no request below
  q = 0.99 needs ln(0.05)/ln(0.99) ~ 299 requests).
- `requests_needed`: the fewest requests, with a given number below, whose low end reaches the promise.
"""
from __future__ import annotations

import math


def wilson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    if n <= 0:
        return None
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + confidence / 2))
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def exact_bounds(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Clopper-Pearson ends, each a one-sided bound at ``confidence``."""
    if n <= 0:
        return None
    from scipy.stats import beta

    tail = 1.0 - confidence
    low = 0.0 if successes == 0 else float(beta.ppf(tail, successes, n - successes + 1))
    high = 1.0 if successes == n else float(beta.ppf(confidence, successes + 1, n - successes))
    return low, high


def requests_needed(share: float, confidence: float = 0.95, below: int = 0, cap: int = 10**7) -> int | None:
    """The fewest requests n such that n - ``below`` of them above the line shows ``share`` met (the exact low
    end at or above it); None past ``cap``."""
    if not 0.0 < share < 1.0:
        return None

    def low(n: int) -> float:
        bounds = exact_bounds(n - below, n, confidence)
        return bounds[0] if bounds else 0.0

    lo, hi = below + 1, below + 2
    while low(hi) < share:
        lo, hi = hi, hi * 2
        if hi > cap:
            return None
    while lo < hi:  # the low end grows with n at a fixed count below
        mid = (lo + hi) // 2
        if low(mid) >= share:
            hi = mid
        else:
            lo = mid + 1
    return lo
