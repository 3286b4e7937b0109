"""What a draft step and a verify pass cost each tier, relative to one target decode step: c(L) and v(K, L).

Typed tiers give c and v as typed; roofline tiers compute them from their GPU and model-pair presets at each
context length (docs/design/arithmetic.md#context-length-and-batch). A tree draft (``tree_size``) verifies that
many tokens a step and drafts over the tree's width per depth level.
"""
from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np
from numpy.typing import NDArray

from model.mechanics import roofline


class CostInputs(Protocol):
    """The fields of a tier row (model.workbook.rows.Tier) that its costs read; mechanics sits below the
    workbook, which uses its formulas, so it names the fields instead of importing the row."""
    k: int
    cost_model: str
    c: float
    v: float
    gpu: str
    pair: str
    batch: int
    tree_size: int | None


class TierCosts:
    """c(L) and v(k, L) for a list of tiers, typed or roofline, as (tiers x contexts) arrays."""

    def __init__(self, tiers: Sequence[CostInputs]) -> None:
        self.roof = np.array([t.cost_model == "roofline" for t in tiers], dtype=bool)[:, None]
        self.typed_c = np.array([t.c for t in tiers], dtype=np.float64)[:, None]
        self.typed_v = np.array([t.v for t in tiers], dtype=np.float64)[:, None]
        self.batch = np.array([t.batch for t in tiers], dtype=np.float64)[:, None]
        # a tree draft verifies tree_size tokens a step and drafts over its width per depth level (K = depth)
        self.tree = np.array([np.nan if t.tree_size is None else float(t.tree_size) for t in tiers], dtype=np.float64)[:, None]
        self.depth = np.array([t.k for t in tiers], dtype=np.float64)[:, None]
        pairs = [roofline.PAIRS.get(t.pair) for t in tiers]
        gpus = [roofline.GPUS.get(t.gpu) for t in tiers]
        # typed tiers never read their preset; any stand-in keeps the arrays rectangular
        default_pair, default_gpu = next(iter(roofline.PAIRS.values())), next(iter(roofline.GPUS.values()))
        pairs = [p or default_pair for p in pairs]
        gpus = [g or default_gpu for g in gpus]
        self.draft = roofline.StackedShapes([p.draft for p in pairs], gpus)
        self.target = roofline.StackedShapes([p.target for p in pairs], gpus)
        self.c_flops = np.where(self.roof[:, 0], [roofline.flops_ratio(p) for p in pairs], self.typed_c[:, 0])[:, None]

    def rows(self, index: list[int]) -> "TierCosts":
        """These tiers' costs alone, as TierCosts([tiers[i] for i in index]) would give them, without reading the
        presets again (a block of the comparison's cells: model/comparison/cells.py)."""
        out = object.__new__(TierCosts)
        for name, value in vars(self).items():
            setattr(out, name, _rows(value, index))
        return out

    def c(self, context: NDArray[np.float64]) -> NDArray[np.float64]:
        if not self.roof.any():
            return np.broadcast_to(self.typed_c, np.broadcast(self.typed_c, context).shape)
        step = self.target.time(1.0, context, self.batch)
        width = np.where(np.isnan(self.tree), 1.0, np.maximum(1.0, (self.tree - 1.0) / self.depth))
        return np.where(self.roof, self.draft.time(width, context, self.batch) / step, self.typed_c)

    def v(self, k: NDArray[np.float64], context: NDArray[np.float64]) -> NDArray[np.float64]:
        if not self.roof.any():
            return np.broadcast_to(self.typed_v, np.broadcast(self.typed_v, k, context).shape)
        step = self.target.time(1.0, context, self.batch)
        verified = np.where(np.isnan(self.tree), k + 1.0, np.maximum(self.tree, k + 1.0))
        return np.where(self.roof, self.target.time(verified, context, self.batch) / step, self.typed_v)


def _rows(value: object, index: list[int]) -> object:
    """Rows ``index`` of an array, or of every array an object (roofline.StackedShapes) holds."""
    if isinstance(value, np.ndarray):
        return value[index]
    out = object.__new__(type(value))
    for name, part in vars(value).items():
        setattr(out, name, part[index])
    return out
