"""The c and v a roofline tier actually uses, for the Tiers table: the typed c and v sit unused there.

A roofline tier's c and v depend on context, so each task class runs at its own; the cell shows
their range over the classes (one number when they agree) and the tooltip lists each class's value
and the value at the claim's context. Only text is made here; the numbers are the comparison's.
"""
from __future__ import annotations

import math

import numpy as np

from model.common import formatting as fmt
from model.comparison import Comparison
from model.curves.speedup import costs_at
from model.workbook.rows import Tier, Workbook

COST_FIELDS = ("c", "v")


def uses_roofline(tier: Tier) -> bool:
    return tier.cost_model == "roofline" and tier.speculative != "no"


def _text(x: float, name: str) -> str:
    # v sits just above 1 at small batch: three decimals show its change, where three digits hide it
    return fmt.fixed(x, 3) if name == "v" else fmt.number(x)


def _range_text(values: np.ndarray, name: str) -> str:
    values = values[~np.isnan(values)]
    if values.size == 0:
        return ""
    lo, hi = _text(float(values.min()), name), _text(float(values.max()), name)
    return lo if lo == hi else f"{lo}–{hi}"


def used_text(cmp: Comparison, tiers: list[Tier], row: int, name: str) -> str:
    """The cell: the range over the classes' contexts, or the value at the claim's context without classes."""
    tier = tiers[row]
    if cmp.class_names and row < len(cmp.tier_names):
        return _range_text(np.asarray(getattr(cmp.cells, name)[row], dtype=np.float64), name)
    c, v = costs_at(tier, [tier.claim_context])
    return _text(float((c if name == "c" else v)[0]), name)


def used_tooltip(cmp: Comparison, wb: Workbook, row: int, name: str) -> str:
    tier = wb.tiers[row]
    contexts = {c.name: c.context for c in wb.classes}
    what = "c (draft pass / target step)" if name == "c" else f"v (verify pass over K + 1 = {tier.k + 1} tokens / target step)"
    lines = [f"Tier {tier.name!r}: {what} from the roofline model ({tier.gpu}, {tier.pair}, batch {tier.batch}), "
             "so it depends on the context length. Used per task class:"]
    values = getattr(cmp.cells, name)[row] if row < len(cmp.tier_names) else []
    for j, cls in enumerate(cmp.class_names):
        x = float(values[j])
        if not math.isnan(x):
            lines.append(f"  {cls} ({fmt.context(contexts.get(cls))}): {_text(x, name)}")
    c, v = costs_at(tier, [tier.claim_context])
    at_claim = float((c if name == "c" else v)[0])
    lines.append(f"At the claim's context ({fmt.context(tier.claim_context)}): {_text(at_claim, name)}")
    typed = getattr(tier, name)
    lines.append(f"The typed {name} = {typed:g} is kept for Cost model = typed and is not used now; "
                 "an edit here changes that typed value.")
    return "\n".join(lines)


def used_snapshot(cmp: Comparison, tiers: list[Tier]) -> np.ndarray:
    """Per tier, the lowest and highest c and v over the classes (NaN where the cells show typed values): a class's
    context edit changes them without touching the tier row. Numbers, not the cells' texts: equal numbers make
    equal texts, and formatting 400 numbers an edit at 100 tiers cost more than the rest of the table's refresh."""
    out = np.full((len(tiers), 4), np.nan)
    rows = [i for i, t in enumerate(tiers) if uses_roofline(t) and i < len(cmp.tier_names)]
    if rows and cmp.class_names:
        for at, name in enumerate(COST_FIELDS):
            values = np.asarray(getattr(cmp.cells, name), dtype=np.float64)[rows]
            shown = ~np.isnan(values)
            out[rows, 2 * at] = np.where(shown, values, np.inf).min(axis=1)
            out[rows, 2 * at + 1] = np.where(shown, values, -np.inf).max(axis=1)
    return out


def used_changed(old: np.ndarray, new: np.ndarray) -> list[int]:
    """The tiers whose used c or v moved between two snapshots (NaN equals NaN)."""
    if old.shape != new.shape:
        return list(range(len(new)))
    differ = (old != new) & ~(np.isnan(old) & np.isnan(new))
    return [int(i) for i in np.flatnonzero(differ.any(axis=1))]
