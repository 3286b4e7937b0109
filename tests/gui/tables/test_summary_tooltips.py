"""The per-tier summary's tooltips say what 'undecided' means, and the value verdict at the tier's own load."""
from __future__ import annotations

from PySide6.QtCore import Qt

from gui.tables.summary_model import SUMMARY_COLUMNS


def _tip(window, row: int, column: str) -> str:
    model = window.summary_model
    return model.data(model.index(row, [c[0] for c in SUMMARY_COLUMNS].index(column)), Qt.ItemDataRole.ToolTipRole)


def test_the_value_verdict_tooltip_gives_the_verdict_at_the_tiers_load(window):
    def probed_at_load(wb) -> None:
        turbo = wb.tiers[wb.tier_index("Northwind Turbo")]
        turbo.concurrency, turbo.measured_by_concurrency = 4, "1: 1.62, 4: 1.41, 16: 0.97*"

    i = window.document.workbook.tier_index("Northwind Turbo")
    assert "parallel streams" not in _tip(window, i, "Value verdict")  # nothing measured at a load yet
    window.document.apply("probed", probed_at_load)
    window.document.flush()
    tip = _tip(window, i, "Value verdict")
    assert "At its load, 4 parallel streams, measured 1.41x over the baseline" in tip
    assert "undecided where the interval" in tip and "undecided" in _tip(window, i, "Speed verdict")
