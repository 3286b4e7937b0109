"""Intervals carried through the arithmetic: per class by end points, across classes jointly.

Per class. E(alpha, K), the speedup E / (K c + v) and the speedup over a baseline held at its own value all rise
with alpha, so the interval on alpha maps to theirs end for end
(docs/design/intervals.md#intervals-through-the-comparison); no further approximation is made there.
tests/model/acceptance/test_acceptance.py checks this against a brute-force grid.

The mix. Its speedup is M = W / sum(w_i / S_i) (time adds up). The classes are measured on different
prompts, so their sampling errors are independent, and putting every class at its worst end at once would
state a much lower confidence than the one printed. The mix's interval is the delta method on the log
scale: d log M / d log S_i = t_i, the share of the mix's time spent in class i, so
sd(log M)^2 = sum(t_i^2 sd(log S_i)^2), where each class's sd(log S_i) is read back from its interval as
(log S_i - log S_low_i) / z_i below and (log S_high_i - log S_i) / z_i above (z_i the normal quantile of that
class's confidence). Each side is combined on its own, so a skewed class interval gives a skewed mix interval,
and with a single uncertain class the mix interval equals that class's interval carried through M. Classes
without an interval contribute no uncertainty (they rest on an assumption, which the verdicts say).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from model.mechanics import arithmetic as ar
from model.acceptance.interval import z_quantile


def speedup_ends(alpha_low: ArrayLike, alpha_high: ArrayLike, k: ArrayLike, stretch: ArrayLike
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """S at both ends of the alpha interval (S rises with alpha); NaN where there is no interval."""
    return ar.expected_tokens(alpha_low, k) / np.asarray(stretch), ar.expected_tokens(alpha_high, k) / np.asarray(stretch)


def mix_interval(speedup: ArrayLike, low: ArrayLike, high: ArrayLike, weights: ArrayLike,
                 class_confidence: ArrayLike, confidence: float, axis: int = -1
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The interval of the weighted harmonic mean of ``speedup`` along ``axis`` at ``confidence``.

    ``low``/``high``/``class_confidence`` are NaN where a class has no interval; where no class along the axis
    has one, the mix has none either (NaN, NaN).
    """
    s, lo, hi, w, conf = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in
                                               (speedup, low, high, weights, class_confidence)))
    has = np.isfinite(lo) & np.isfinite(hi) & np.isfinite(conf)
    if not has.any():  # no class has an interval (every assumed acceptance): nor has the mix
        nothing = np.full(np.delete(s.shape, axis % s.ndim) if s.ndim else (), np.nan)
        return nothing, nothing.copy()
    with np.errstate(invalid="ignore", divide="ignore"):
        mix = ar.blend_speedup(s, w, axis=axis)
        time = w / s
        share = time / time.sum(axis=axis, keepdims=True)
        z_each = np.where(has, z_quantile(np.where(has, conf, 0.5)), 1.0)
        sd_lo = np.where(has, (np.log(s) - np.log(np.where(has, lo, 1.0))) / z_each, 0.0)
        sd_hi = np.where(has, (np.log(np.where(has, hi, 1.0)) - np.log(s)) / z_each, 0.0)
        z = float(z_quantile(confidence))
        mix_lo = mix * np.exp(-z * np.sqrt(np.nansum((share * sd_lo) ** 2, axis=axis)))
        mix_hi = mix * np.exp(z * np.sqrt(np.nansum((share * sd_hi) ** 2, axis=axis)))
    any_has = has.any(axis=axis)
    return np.where(any_has, mix_lo, np.nan), np.where(any_has, mix_hi, np.nan)
