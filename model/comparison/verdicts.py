"""Verdicts of the comparison: their codes and names, and the rules that give them from speedups and prices.

The speed verdict (gain, marginal, tax) reads a speedup against 1 and the marginal band; the value verdict (worth
the premium or not) reads the speedup over the baseline against the price ratio. Either is UNDECIDED where the
interval at the workbook's confidence reaches both sides of its line (docs/design/intervals.md#undecided-verdicts).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from model.mechanics import arithmetic as ar
from model.acceptance.interval import MIN_REQUESTS
from model.acceptance.value import COUNTS_ONLY, TOO_FEW

# UNDECIDED: the interval at the workbook's confidence reaches both sides of a break-even
# (docs/design/intervals.md#undecided-verdicts)
GAIN, MARGINAL, TAX, NOT_APPLICABLE, UNDECIDED = 0, 1, 2, 3, 4
VERDICT_NAMES = {GAIN: "gain", MARGINAL: "marginal", TAX: "tax", NOT_APPLICABLE: "n/a", UNDECIDED: "undecided"}
BREAK_EVEN_NAMES = {**ar.KIND_NAMES, -1: "n/a"}
# the value verdict: does the speed over the baseline pay for the price over the baseline?
WORTH, NOT_WORTH = 0, 1
VALUE_NAMES = {WORTH: "worth the premium", NOT_WORTH: "not worth it", NOT_APPLICABLE: "n/a", UNDECIDED: "undecided"}


# what a verdict rests on (compare --json's verdict_basis): an interval decides it (or leaves it undecided); without
# one it is the point's alone, and the reason says how far to trust it
ON_INTERVAL, ON_TOO_FEW, ON_ASSUMPTION, ON_COUNTS, ON_POINT = ("interval", "too few requests", "assumption",
                                                              "counts only", "point")
# what an interval note (or the report's Interval method cell) holds where that is why there is none; the same
# words label a verdict resting on a class measured from too few requests for an interval
TOO_FEW_KEY = TOO_FEW.split(" for an interval")[0]  # "too few requests"
TOO_FEW_LABEL = TOO_FEW_KEY
TOO_FEW_MEANING = (f"measured from fewer than {MIN_REQUESTS} distinct prompts (requests), too few for an interval: its "
                   "verdicts are the measured value's alone, not decided at the confidence; measure more to settle them")


def rests_on_too_few(note: str) -> bool:
    """A cell's interval note says it was measured, but from too few requests (prompts) for an interval."""
    return TOO_FEW_KEY in note


def verdict_basis(has_interval: bool, note: str, source: str) -> str:
    """What a cell's verdicts rest on: its interval, or (without one) the measured point of too few requests, an
    assumed value, an import's counts, or a point with no reason given."""
    if has_interval:
        return ON_INTERVAL
    if rests_on_too_few(note):
        return ON_TOO_FEW
    if source.startswith("assumed"):
        return ON_ASSUMPTION
    return ON_COUNTS if COUNTS_ONLY in note else ON_POINT


def labelled(name: str, too_few: bool) -> str:
    """A verdict's name as shown, "(too few requests)" after it where it rests on a class measured from too few
    requests for an interval: the measured point's verdict, which no interval has decided, must not read like
    one that has been ("n/a" and "undecided" need no label)."""
    return f"{name} ({TOO_FEW_LABEL})" if too_few and name not in ("n/a", "undecided") else name


def speed_verdicts(s: NDArray[np.float64], applicable: NDArray[np.bool_], band: float,
                   low: NDArray[np.float64] | None = None, high: NDArray[np.float64] | None = None) -> NDArray[np.int8]:
    v = np.where(s < 1.0, TAX, np.where(s < 1.0 + band, MARGINAL, GAIN))
    if low is not None and high is not None:
        # the verdict of either end; where they differ the interval reaches across a line: undecided
        with np.errstate(invalid="ignore"):
            v_lo = np.where(low < 1.0, TAX, np.where(low < 1.0 + band, MARGINAL, GAIN))
            v_hi = np.where(high < 1.0, TAX, np.where(high < 1.0 + band, MARGINAL, GAIN))
        v = np.where(np.isfinite(low) & np.isfinite(high) & (v_lo != v_hi), UNDECIDED, v)
    # NaN (a tier with no task classes has no mix speedup) is no verdict, not a gain
    return np.where(applicable & ~np.isnan(s), v, NOT_APPLICABLE).astype(np.int8)


def cost_ratio(cost: NDArray[np.float64], base_cost: NDArray[np.float64]) -> NDArray[np.float64]:
    """cost / base_cost, where a free baseline makes any price infinitely dear and two free tiers no ratio; none
    where either cost is NaN (prices nobody typed: docs/design/verdicts.md#prices-nobody-gave)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(base_cost > 0, cost / np.where(base_cost > 0, base_cost, 1.0),
                         np.where(cost > 0, np.inf, np.nan))
    return np.where(np.isnan(base_cost), np.nan, ratio)


def solve_price_alpha(needed: NDArray[np.float64], k: NDArray[np.float64], stretch: NDArray[np.float64],
                      applicable: NDArray[np.bool_]) -> tuple[NDArray[np.float64], NDArray[np.int8]]:
    """The acceptance at which E / stretch reaches the speedup ``needed``: the claim's solver, kinds kept."""
    return on_cells(np.broadcast_to(applicable, np.broadcast_shapes(*(np.shape(x) for x in (needed, k, stretch,
                                                                                          applicable)))),
                    ar.solve_alpha_for_tokens(*price_targets(needed, k, stretch, applicable)))


def price_targets(needed: NDArray[np.float64], k: NDArray[np.float64], stretch: NDArray[np.float64],
                  applicable: NDArray[np.bool_]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The tokens per step E must reach, and K, for the cells with a verdict (plain tiers and tiers without a
    baseline are many, and are not solved); an infinite need (free baseline) is out of reach: capped above
    K + 1, which the solver calls NEVER."""
    needed, k, stretch, applicable = np.broadcast_arrays(needed, k, stretch, applicable)
    return np.minimum(needed[applicable] * stretch[applicable], k[applicable] + 2.0), k[applicable]


def on_cells(applicable: NDArray[np.bool_], solve: ar.AlphaSolve) -> tuple[NDArray[np.float64], NDArray[np.int8]]:
    """A solve of the ``applicable`` cells laid out over all: NaN and kind -1 elsewhere."""
    alpha = np.full(applicable.shape, np.nan)
    kind = np.full(applicable.shape, -1, dtype=np.int8)
    alpha[applicable], kind[applicable] = solve.alpha, solve.kind
    return alpha, kind


def value_verdicts(speedup: NDArray[np.float64], needed: NDArray[np.float64], applicable: NDArray[np.bool_],
                   low: NDArray[np.float64] | None = None, high: NDArray[np.float64] | None = None) -> NDArray[np.int8]:
    with np.errstate(invalid="ignore"):
        worth = speedup >= needed
        # decided only when the whole interval is on one side of the price break-even
        undecided = (np.isfinite(low) & np.isfinite(high) & (low < needed) & (high >= needed)
                     if low is not None and high is not None else np.zeros(np.shape(worth), dtype=bool))
    v = np.where(undecided, UNDECIDED, np.where(worth, WORTH, NOT_WORTH))
    return np.where(applicable, v, NOT_APPLICABLE).astype(np.int8)
