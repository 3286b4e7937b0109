"""Chart data that model/curves/speedup.py gives one tier at a time, here for every tier at once.

The speedup-versus-acceptance chart draws a curve per speculative tier on every edit;
calling ``curves.alpha_curve`` per tier builds a cost model per tier, which is too slow
for a workbook of a hundred tiers. These functions do the same arithmetic in one pass.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from model.mechanics import arithmetic as ar
from model.mechanics.tier_costs import TierCosts
from model.curves.speedup import ALPHA_GRID
from model.workbook.rows import Tier


@dataclass
class AlphaCurves:
    """Speedup over acceptance for the speculative tiers, each at its claim's context."""

    tier_index: NDArray[np.int64]  # row of each curve in the workbook's tier list
    tier_names: list[str]
    alphas: NDArray[np.float64]
    speedup: NDArray[np.float64]  # (curves x alphas)
    context: NDArray[np.float64]  # per curve: the context c and v were taken at
    break_even_alpha: NDArray[np.float64]  # per curve; NaN where it never pays at K
    break_even_kind: NDArray[np.int8]  # ar.ALWAYS / ROOT / NEVER


def alpha_curves(tiers: list[Tier], alphas: NDArray[np.float64] = ALPHA_GRID) -> AlphaCurves:
    """The same numbers as ``curves.alpha_curve`` for each speculative chain tier whose mechanics are given,
    vectorised. A tree draft (``tree_size``) has no curve over a per-token alpha: its acceptance is a length or a
    per-depth profile (comparison.TREE_NEEDS_LENGTH)."""
    index = np.array([i for i, t in enumerate(tiers) if t.speculative != "no" and t.tree_size is None
                      and not t.missing_mechanics()], dtype=np.int64)  # none from mechanics nobody gave
    spec = [tiers[i] for i in index]
    a = np.asarray(alphas, dtype=np.float64)
    if not spec:
        empty = np.zeros(0)
        return AlphaCurves(index, [], a, np.zeros((0, a.size)), empty, empty, np.zeros(0, dtype=np.int8))
    costs = TierCosts(spec)
    ctx = np.array([t.claim_context for t in spec], dtype=np.float64)[:, None]
    k = np.array([t.k for t in spec], dtype=np.float64)[:, None]
    c = np.broadcast_to(np.asarray(costs.c(ctx), dtype=np.float64), k.shape)
    v = np.broadcast_to(np.asarray(costs.v(k, ctx), dtype=np.float64), k.shape)
    be = ar.break_even(k[:, 0], c[:, 0], v[:, 0])
    return AlphaCurves(
        tier_index=index, tier_names=[t.name for t in spec], alphas=a,
        speedup=np.asarray(ar.speedup(a[None, :], k, c, v), dtype=np.float64),
        context=ctx[:, 0], break_even_alpha=np.asarray(be.alpha, dtype=np.float64),
        break_even_kind=np.asarray(be.kind, dtype=np.int8),
    )


def break_even_fill(break_even_alpha: ArrayLike, k: ArrayLike,
                    break_even_length: ArrayLike | None = None) -> NDArray[np.float64]:
    """The trailer fill a class needs to break even: F(alpha*, K); NaN where alpha* is NaN.

    This is the seed's "the break-even is the trailer's fill" as a mark on each trailer. A class given as a
    profile or a length has no alpha*: where ``break_even_length`` (E* = K c + v) is given, its fill
    (E* - 1) / K stands in, the same mark in the unit that holds for any acceptance.
    """
    a = np.asarray(break_even_alpha, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        fill = np.where(np.isnan(a), np.nan, ar.trailer_fill(np.nan_to_num(a), k))
        if break_even_length is not None:
            length = np.asarray(break_even_length, dtype=np.float64)
            fill = np.where(np.isnan(fill), (length - 1.0) / np.asarray(k, dtype=np.float64), fill)
    return fill
