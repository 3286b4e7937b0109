"""A tier judged on its measured speed: mechanics nobody gave, a probe's speedup over the baseline measured.

A closed vendor never says how its fast mode runs (K, c, v), so the model has nothing to compute its speed from;
the probe's tokens per second over the baseline's is then the only speed there will be. Such a tier's mix on the
requests served fast is that measured speedup times its baseline's own mix, with the probe's interval carried to
the workbook's confidence; everything the comparison derives from the mix (as served, over the baseline, the
value verdict, the fair price) follows from it, and nothing modelled from the mechanics (per-class speedups,
break-even acceptances, the guarantee) is made up (docs/design/vendor-terms.md#judged-on-the-measured-speed).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from model.acceptance.interval import z_quantile
from model.workbook.rows import Tier

Array = NDArray[np.float64]


def judged_on_measured(tiers: list[Tier], made_up: NDArray[np.bool_], base: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Per tier: its mechanics are not given, a measured speedup is, and it has a baseline with a mix of its own to
    measure against (a measured speedup is over the baseline's speed)."""
    out = np.zeros(len(tiers), dtype=bool)
    for i, t in enumerate(tiers):
        b = int(base[i])
        out[i] = (bool(made_up[i]) and t.speculative != "no" and t.measured_speedup is not None
                  and t.measured_speedup > 0 and b >= 0 and not made_up[b])
    return out


def measured_ends(tiers: list[Tier], confidence: float) -> tuple[Array, Array, Array]:
    """Per tier the measured speedup and its interval's ends at the workbook's ``confidence`` (NaN ends where the
    probe gave none). The probe's ends, at its own confidence, are carried on the log scale: each end's distance
    from the point scales with the normal quantiles, z(workbook) / z(probe)."""
    m = np.array([np.nan if t.measured_speedup is None else t.measured_speedup for t in tiers], dtype=np.float64)
    lo, hi = np.full(len(tiers), np.nan), np.full(len(tiers), np.nan)
    z_to = float(z_quantile(confidence))
    for i, t in enumerate(tiers):
        if t.measured_speedup_low is None or t.measured_speedup_high is None or not m[i] > 0:
            continue
        z_from = float(z_quantile(t.measured_speedup_confidence or confidence))
        scale = z_to / z_from if z_from > 0 else 1.0
        if t.measured_speedup_low > 0:
            lo[i] = m[i] * (t.measured_speedup_low / m[i]) ** scale
        hi[i] = m[i] * (t.measured_speedup_high / m[i]) ** scale
    return m, lo, hi


def mix_from_measured(judged: NDArray[np.bool_], tiers: list[Tier], confidence: float, base: NDArray[np.int64],
                      mix: Array, low: Array, high: Array) -> tuple[Array, Array, Array]:
    """The mix on the requests served fast and its ends, the judged tiers' from their measured speedup over the
    baseline (times the baseline's own mix on its requests served fast), the others' as modelled."""
    if not judged.any():
        return mix, low, high
    m, m_lo, m_hi = measured_ends(tiers, confidence)
    at_base = mix[np.maximum(base, 0)]
    return (np.where(judged, m * at_base, mix), np.where(judged, m_lo * at_base, low),
            np.where(judged, m_hi * at_base, high))
