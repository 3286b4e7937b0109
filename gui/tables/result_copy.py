"""What a results cell puts on the clipboard: its number, so a spreadsheet can compute with it.

The screen shows "1.85x", "€10,475" and "+37.6%"; pasted into Excel those are text. Copy gives the
number behind the cell instead (1.85230486..., 10475, 37.6%), in the form the input tables copy in
(shares as "78%", which spreadsheets read as 0.78), and keeps words as words: a verdict, "n/a",
"none at K=5" or a claim ("3.00x at 4K") are text wherever they go.
"""
from __future__ import annotations

import math
import re
from typing import Any

from PySide6.QtCore import Qt

from model.comparison import Comparison

# the role copy asks for first (then the edit text, then the display text)
COPY_ROLE = Qt.ItemDataRole.UserRole + 17

# results grid: metric -> (comparison array, how it reads)
GRID: dict[str, tuple[str, str]] = {
    "speedup": ("cells.speedup", "number"), "price_ratio": ("cells.price_ratio", "number"),
    "price_break_even": ("cells.price_break_even_alpha", "share"), "break_even": ("cells.break_even_alpha", "share"),
    "margin": ("cells.margin", "share"), "trailer_fill": ("cells.trailer_fill", "share"), "alpha": ("cells.alpha", "share"),
    "optimal_k": ("cells.optimal_k", "number"), "cost_factor": ("cells.cost_factor", "number"),
}
# per-tier summary: column header -> (comparison array, how it reads)
SUMMARY: dict[str, tuple[str, str]] = {
    "Mix speedup": ("tiers.mix_speedup", "number"), "vs baseline": ("tiers.speedup_vs_baseline", "number"),
    "Price ratio": ("tiers.price_ratio", "number"), "Value needs": ("tiers.price_break_even_alpha", "share"),
    "Runs like": ("tiers.effective_alpha", "share"), "Premium": ("tiers.premium", "share"),
    "Monthly cost": ("tiers.monthly_cost", "number"), "Cost per 1x": ("tiers.price_per_speedup", "number"),
    "FLOPs/token": ("tiers.cost_factor", "number"), "Claim needs alpha": ("claims.alpha", "share"),
    "Measured": ("probed.speedup", "number"),
    "Fair price": ("fair.factor", "number"),
}
# a shown number starts with a digit, a sign or a currency symbol; anything else is words
# (an alpha among lengths reads "α 66.2%": gui.tables.summary_model.ALPHA_MARK)
_SHOWN_NUMBER = re.compile(r"^(?:α )?[-+]?[$€£¥]?\d")


def copy_text(cmp: Comparison, field: tuple[str, str] | None, index: tuple[int, ...], shown: Any) -> str:
    """The cell's number as a spreadsheet reads it, or the shown text where the cell holds words."""
    text = "" if shown is None else str(shown)
    # "K=4 (2.10x)" is the best K: its number is the 4
    if field is None or not (_SHOWN_NUMBER.match(text) or text.startswith("K=")):
        return text
    name, kind = field
    value = float(cmp.array(name)[index])
    if not math.isfinite(value):
        return text
    # repr: the shortest text that reads back as the same float
    number = repr(value * 100 if kind == "share" else value)
    number = number[:-2] if number.endswith(".0") else number
    return f"{number}%" if kind == "share" else number
