"""The data behind the charts (and the report's Curves sheet): speedup against acceptance and context."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from model.mechanics import arithmetic as ar
from model.mechanics.tier_costs import TierCosts
from model.workbook.rows import Tier

ALPHA_GRID = np.linspace(0.0, 1.0, 101)
CONTEXT_GRID = np.geomspace(1024.0, 131072.0, 57)  # 1K to 128K, 8 points per doubling


@dataclass
class AlphaCurve:
    tier: str
    context: float  # the curve is drawn with c and v at this context (the claim's)
    alphas: NDArray[np.float64]
    speedup: NDArray[np.float64]
    break_even_alpha: float | None  # None when it never pays at this K
    break_even_kind: str


def costs_at(tier: Tier, contexts: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """c and v of one tier at each context (typed tiers: the same at all), shaped like `contexts`."""
    ctx = np.asarray(contexts, dtype=np.float64)
    flat = ctx.reshape(1, -1)
    costs = TierCosts([tier])
    c = np.broadcast_to(costs.c(flat), flat.shape)
    v = np.broadcast_to(costs.v(np.array([[float(tier.k)]]), flat), flat.shape)
    return np.array(c).reshape(ctx.shape), np.array(v).reshape(ctx.shape)


def alpha_curve(tier: Tier, context: float | None = None, alphas: NDArray[np.float64] = ALPHA_GRID) -> AlphaCurve:
    """Speedup over acceptance for one tier at one context (default: the context of its claim)."""
    ctx = float(tier.claim_context if context is None else context)
    if tier.speculative == "no":
        return AlphaCurve(tier.name, ctx, alphas, np.ones_like(alphas), None, "n/a")
    c, v = (float(x) for x in costs_at(tier, ctx))
    be = ar.break_even(tier.k, c, v)
    kind = be.kind_name()
    return AlphaCurve(tier.name, ctx, alphas, ar.speedup(alphas, tier.k, c, v),
                      None if kind == "never" else float(be.alpha), kind)


def context_curves(tier: Tier, alphas: NDArray[np.float64], contexts: NDArray[np.float64] = CONTEXT_GRID,
                   tokens: ArrayLike | None = None) -> NDArray[np.float64]:
    """Speedup at each context (columns) for each acceptance (rows), one row per task class.

    ``tokens``: per class, E at the tier's K where its acceptance is a profile or a length (NaN where it is
    one alpha), as the comparison's acceptance grid gives it (model.acceptance.profiles; ``Comparison.own_tokens``). E
    does not depend on the context, only the step's cost does: those curves are E / (K c + v), not the i.i.d.
    curve of a summary alpha, which puts a different E on a profile that falls with position."""
    a = np.asarray(alphas, dtype=np.float64)[:, None]
    if tier.speculative == "no":
        return np.ones((a.shape[0], contexts.size))
    c, v = costs_at(tier, contexts)
    out = np.asarray(ar.speedup(a, tier.k, c[None, :], v[None, :]))
    if tokens is not None:
        e = np.asarray(tokens, dtype=np.float64)[:, None]
        out = np.where(np.isfinite(e), e / ar.stretch_cost(tier.k, c[None, :], v[None, :]), out)
    return out
