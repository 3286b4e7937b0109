"""Combo boxes that name a tier by its identity, not its name or row.

A measurement belongs to the tier it was taken on. Keyed by name, a combo fell back to its first row when
that tier was renamed, and Apply then wrote the measurement onto another tier; keyed by `Tier.identity`
it follows the tier through renames, row moves and undo, and says so when the tier is gone.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtWidgets import QComboBox

from model.workbook.rows import Tier, Workbook


def refill_tiers(combo: QComboBox, tiers: Sequence[Tier], extra: Sequence[tuple[str, object]] = (),
                 label: Callable[[Tier], str] = lambda t: t.name, gone: str | None = None) -> None:
    """Items `extra` then one per tier (data: its identity), keeping the chosen tier wherever it moved.

    A chosen tier that is gone leaves the first item chosen, or, given `gone`, an item of that text
    standing for it (chosen_tier gives None for it, and undoing the delete brings the tier back).
    No signal is emitted either way.
    """
    chosen = combo.currentData()
    combo.blockSignals(True)
    combo.clear()
    for text, data in extra:
        combo.addItem(text, data)
    for tier in tiers:
        combo.addItem(label(tier), tier.identity)
    index = combo.findData(chosen) if chosen is not None else -1
    if index < 0 and gone is not None and isinstance(chosen, int):
        combo.addItem(gone, chosen)
        index = combo.count() - 1
    combo.setCurrentIndex(max(0, index) if combo.count() else -1)
    combo.blockSignals(False)


def names_gone_tier(combo: QComboBox, workbook: Workbook) -> bool:
    """True when the combo's choice is a tier that is no longer in `workbook`."""
    data = combo.currentData()
    return isinstance(data, int) and workbook.tier_with_identity(data) is None


def choose_tier(combo: QComboBox, tier: Tier | None) -> None:
    """Choose `tier` (by identity) if the combo lists it."""
    if tier is not None:
        index = combo.findData(tier.identity)
        if index >= 0:
            combo.setCurrentIndex(index)


def chosen_tier(combo: QComboBox, workbook: Workbook) -> Tier | None:
    """The tier the combo names now, or None for an extra item or an empty combo."""
    data = combo.currentData()
    return workbook.tier_with_identity(data) if isinstance(data, int) else None
