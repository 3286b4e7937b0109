"""An interval on a measured speedup (one tier's decode speed over another's), the request as the unit.

A tier's decode speed is a ratio of sums over its requests, R = sum(tokens_i) / sum(seconds_i) (time adds
up; model.probe.speed). Requests differ (prompt, length, the batch they met), and the tokens within one
are not independent draws, so its uncertainty is estimated as the alpha interval's is (interval.py): the
cluster-robust (sandwich) variance of a ratio estimator with requests as clusters,

    var(R) = G / (G - 1) * sum((tokens_i - R seconds_i)^2) / (sum seconds_i)^2        (CR1, G requests)

taken to the log scale, var(log R) = var(R) / R^2. The speedup S = R_fast / R_base of two independent sets
of requests has var(log S) = var(log R_fast) + var(log R_base); the interval is exp(log S +- t se) with
Student's t at the Welch-Satterthwaite degrees of freedom, so it stays positive and is skewed as a ratio's
should be. Fewer than MIN_REQUESTS requests on either side give no interval (the spread between requests
cannot be estimated). tests/model/acceptance/test_rates.py checks its coverage against known truth.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from model.acceptance.interval import MIN_REQUESTS, t_quantile

SPEEDUP_METHOD = "cluster-robust log ratio of decode speeds, Welch t, requests as clusters"


def _log_rate(tokens: ArrayLike, seconds: ArrayLike) -> tuple[float, float, int]:
    """(log R, var(log R), requests) for one tier's requests."""
    y = np.asarray(tokens, dtype=np.float64).ravel()
    x = np.asarray(seconds, dtype=np.float64).ravel()
    if y.shape != x.shape:
        raise ValueError("tokens and seconds must hold one number per request")
    keep = (x > 0) & np.isfinite(x) & np.isfinite(y) & (y >= 0)
    y, x = y[keep], x[keep]
    g = int(y.size)
    big_y, big_x = float(y.sum()), float(x.sum())
    if g < 2 or big_y <= 0 or big_x <= 0:
        return math.nan, math.nan, g
    rate = big_y / big_x
    var = g / (g - 1.0) * float(np.sum((y - rate * x) ** 2)) / big_x ** 2
    return math.log(rate), var / rate ** 2, g


def speedup_interval(fast_tokens: ArrayLike, fast_seconds: ArrayLike, base_tokens: ArrayLike,
                     base_seconds: ArrayLike, confidence: float = 0.95,
                     minimum: int = MIN_REQUESTS) -> tuple[float, float] | None:
    """The interval on (sum fast tokens / sum fast seconds) / (the baseline's), or None below ``minimum``
    requests on either side or where a speed is not positive."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be above 0 and below 1 (got {confidence})")
    lf, vf, gf = _log_rate(fast_tokens, fast_seconds)
    lb, vb, gb = _log_rate(base_tokens, base_seconds)
    if min(gf, gb) < minimum or not all(math.isfinite(v) for v in (lf, vf, lb, vb)):
        return None
    var = vf + vb
    if var <= 0:  # every request at the same speed on both sides: the point, exactly
        s = math.exp(lf - lb)
        return s, s
    df = var ** 2 / (vf ** 2 / (gf - 1) + vb ** 2 / (gb - 1))
    half = t_quantile(confidence, df) * math.sqrt(var)
    return math.exp(lf - lb - half), math.exp(lf - lb + half)
