"""The tiers table's model: a roofline tier's c and v cells show the values it uses."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from model.workbook.validation import TERMS_FIELDS, TIER_FIELDS
from model.workbook.rows import Tier

from gui.tables import used_costs
from gui.tables.workbook_table_model import Index
from gui.tables.row_table_model import RowTableModel
from gui.document import Document


class TierTableModel(RowTableModel):
    """Tiers; a roofline tier's c and v cells show the values it uses, not the typed ones it ignores."""

    def __init__(self, document: Document) -> None:
        # the vendor's terms (cached and long-context prices, downgraded share, SLA) right of the tier's own columns
        super().__init__(document, Tier, TIER_FIELDS + TERMS_FIELDS, "tiers", "Tier")

    def _snapshot(self) -> Any:
        rows, settings = super()._snapshot()
        return rows, settings, used_costs.used_snapshot(self.document.comparison, rows)

    def _changed_block(self, old: Any, new: Any) -> tuple[int, int, int, int] | list[tuple[int, int, int, int]] | None:
        block = super()._changed_block(old[:2], new[:2])
        used = used_costs.used_changed(old[2], new[2])
        if not used:
            return block
        # a class's context moves only the c and v a roofline tier uses: those cells, not the whole rows
        cols = [self.column_of(name) for name in used_costs.COST_FIELDS]
        return [*([block] if isinstance(block, tuple) else []), (min(used), min(cols), max(used), max(cols))]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in self.roles:
            return None
        if index.isValid() and self.specs[index.column()].name in used_costs.COST_FIELDS:
            tiers = self.rows()
            if used_costs.uses_roofline(tiers[index.row()]):
                name = self.specs[index.column()].name
                if role == Qt.ItemDataRole.DisplayRole:
                    return used_costs.used_text(self.document.comparison, tiers, index.row(), name)
                if role == Qt.ItemDataRole.ToolTipRole:
                    return used_costs.used_tooltip(self.document.comparison, self.document.workbook, index.row(), name)
                if role == Qt.ItemDataRole.FontRole:
                    font = QFont()
                    font.setItalic(True)  # computed, not typed
                    return font
                if role == Qt.ItemDataRole.ForegroundRole:
                    return None  # used numbers read as numbers, not greyed
        return super().data(index, role)
