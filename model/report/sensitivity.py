"""The report's sensitivity: every speedup again with the acceptance moved by each of ALPHA_SHIFTS.

An alpha moves by the shift (clipped to 0..1). A per-position profile or a mean acceptance length has no one
alpha to move, so every conditional rate moves by the shift instead, clipped the same way: the profile's rates
extended to the tier's K by the stated rule (model/acceptance/profiles.py), or the flat i.i.d. alpha that
carries a length. A flat profile gives E(alpha + shift, K) exactly, so the two agree where they meet. The
Comparison sheet writes the same as live formulas over the Inputs' profiles table (``shifted_tokens_formula``),
and the Sensitivity sheet mixes them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.mechanics import arithmetic as ar
from model.comparison import Comparison
from model.report.layout import ALPHA_SHIFTS
from model.report.profiles_table import ProfileRow
from model.workbook.rows import Workbook

# what the shift columns move, said on the Comparison and Sensitivity sheets
SHIFT_MEANING = ("an alpha moves by the points; a profile or a length moves every conditional rate p1..pK by them "
                 "(a length: its flat i.i.d. alpha), clipped to 0%..100%")


@dataclass(frozen=True)
class Shifted:
    """The comparison's speedups with every acceptance moved by one shift: what the sensitivity sheet shows."""

    speedup: np.ndarray  # tiers x classes
    mix_speedup: np.ndarray  # per tier
    price_per_speedup: np.ndarray  # per tier


def sensitivity(wb: Workbook, cmp: Comparison) -> list[Shifted]:
    """Speedups and mixes with every class's and override's acceptance moved by each of ALPHA_SHIFTS (clipped
    to 0..1), by the core's arithmetic on the comparison's own K, c and v (the optimal-K search is not needed)."""
    k = cmp.tiers.k[:, None]
    spec = cmp.tiers.speculative[:, None]
    tokens_out = np.array([c.tokens_out for c in wb.classes], dtype=np.float64)
    weights = tokens_out if tokens_out.sum() > 0 else np.ones(len(wb.classes))
    stretch = ar.stretch_cost(k, np.where(spec, cmp.cells.c, 1.0), np.where(spec, cmp.cells.v, 1.0))
    grid = cmp.cells.acceptance
    out = []
    for shift in ALPHA_SHIFTS:
        tokens = ar.expected_tokens(np.clip(cmp.cells.alpha + shift, 0.0, 1.0), k)
        if grid is not None and grid.any_beyond_alpha:
            moved = grid.shifted_tokens(cmp.tiers.k, shift)
            tokens = np.where(np.isnan(moved), tokens, moved)
        speedup = np.where(spec, tokens / stretch, 1.0)
        mix = ar.blend_speedup(speedup, weights[None, :]) if len(wb.classes) else np.full(len(wb.tiers), np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            out.append(Shifted(speedup, mix, cmp.tiers.monthly_cost / mix))
    return out


def shifted_tokens_formula(shape: ProfileRow, k: str, shift: str) -> str:
    """E at the K in cell ``k`` with every rate of a profiles-table row moved by ``shift`` ("-0.2"), clipped: a
    running product written from the inside out, 1 + q1 (1 + q2 (1 + ...)), each level counted where K reaches it."""
    inner = "0"
    for n in range(shape.width, 0, -1):
        q = f"MIN(1,MAX(0,{shape.rate(n)}{shift}))"
        inner = f"{q}*(1+{inner})" if n == 1 else f"IF({k}>={n},{q}*(1+{inner}),0)"
    return f"1+{inner}"
