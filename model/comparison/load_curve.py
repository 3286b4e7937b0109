"""The data of the "speedup against concurrency" chart for one tier.

Three things on one axis of parallel streams, each what it is:
- the speedups a probe measured over the baseline at each concurrency (the tier's
  measured_by_concurrency), throttled levels apart, with their intervals where the probe gave them;
- the vendor's claim, at concurrency 1 (a claim is made on a quiet server) unless the tier's
  claim_concurrency says the vendor stated another;
- for a roofline tier, the roofline's mix speedup against the *server's* batch: the batch an engine
  verifies together, which the analyst cannot see (other customers share it). Drawn beside the
  measured points it lets the analyst read off what batch the vendor's server behaves like; it is not
  a prediction of the analyst's own concurrency.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from model.mechanics import arithmetic as ar
from model.mechanics import roofline
from model.workbook.load_speedups import LoadSpeedupError, parse_speedup_intervals, parse_speedups
from model.workbook.rows import Workbook

BATCH_GRID = np.unique(np.round(np.geomspace(1, 256, 41)))  # 1 .. 256 server batch, even on a log axis


@dataclass
class LoadCurve:
    concurrency: int  # the analyst's load (the tier's field)
    levels: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))  # measured concurrencies
    measured: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))  # speedup over the baseline
    throttled: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    low: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))  # the interval's ends; NaN: none
    high: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    claim: float | None = None  # the vendor's claimed speedup
    claim_concurrency: int = 1  # where the claim was measured: 1 (a quiet server) unless the vendor says
    batches: NDArray[np.float64] = field(default_factory=lambda: BATCH_GRID.copy())
    roofline: NDArray[np.float64] | None = None  # the roofline's mix speedup at each server batch
    price_ratio: float | None = None  # worth the premium above this speedup over the baseline
    note: str = ""  # why a part is missing, in words


def load_curve(wb: Workbook, alpha: NDArray[np.float64], price_ratio: float | None, i: int) -> LoadCurve:
    """Tier i's curve; ``alpha`` is its acceptance per class (the comparison's row, overrides applied)."""
    tier = wb.tiers[i]
    out = LoadCurve(int(tier.concurrency))
    try:
        levels = parse_speedups(tier.measured_by_concurrency)
        intervals = parse_speedup_intervals(tier.measured_by_concurrency)
    except LoadSpeedupError:
        levels, intervals = {}, {}
    out.levels = np.array(list(levels), dtype=np.float64)
    out.measured = np.array([s for s, _ in levels.values()], dtype=np.float64)
    out.throttled = np.array([t for _, t in levels.values()], dtype=bool)
    out.low = np.array([intervals.get(n, (math.nan, math.nan))[0] for n in levels], dtype=np.float64)
    out.high = np.array([intervals.get(n, (math.nan, math.nan))[1] for n in levels], dtype=np.float64)
    out.price_ratio = price_ratio if price_ratio is not None and math.isfinite(price_ratio) else None
    notes = []
    if not levels:
        notes.append("nothing measured by concurrency yet: probe with Concurrency 1,4,16")
    if tier.speculative == "no":
        notes.append("not speculative")
        out.note = "; ".join(notes)
        return out
    out.claim = tier.claimed_speedup
    out.claim_concurrency = int(tier.claim_concurrency)
    pair, gpu = roofline.PAIRS.get(tier.pair), roofline.GPUS.get(tier.gpu)
    if tier.cost_model != "roofline" or pair is None or gpu is None or not wb.classes:
        notes.append("typed c and v: no roofline line (cost model roofline draws it)")
    elif any(c.not_described() for c in wb.classes):  # the mix waits for a class nobody filled in
        notes.append("no roofline line: a task class is not filled in (its acceptance, context or tokens)")
    else:
        contexts = np.array([c.context for c in wb.classes], dtype=np.float64)[None, :]
        c, v = roofline.cost_ratios(pair, gpu, float(tier.k), contexts, out.batches[:, None])
        s = ar.speedup(np.asarray(alpha, dtype=np.float64)[None, :], float(tier.k), c, v)
        tokens = np.array([c.tokens_out for c in wb.classes], dtype=np.float64)
        weights = tokens if tokens.sum() > 0 else np.ones(len(wb.classes))
        out.roofline = ar.blend_speedup(s, weights[None, :])
    out.note = "; ".join(notes)
    return out
