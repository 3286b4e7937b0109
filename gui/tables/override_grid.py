"""The acceptance overrides grid: tier x class, the alpha (and its range) on that tier's draft; blank is the class's.

Every change goes through Document.apply (one undo step) and the validator (model.workbook.validation), as in
workbook_table_model.py, whose WorkbookTableModel it shares.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont

from gui.tables import acceptance_text
from gui.tables.acceptance_text import PROFILE_ROLE, RANGE_HINT, SHAPE_ROLE, alpha_edit_text
from gui.tables.cell_format import locale_decimal
from gui.tables.input_models import Cell, Index, WorkbookTableModel
from model.workbook.row_edits import NOT_GIVEN
from model.workbook.measured_apply import unused_acceptance_note
from model.workbook.rows import Override, Workbook, type_acceptance
from model.workbook.alpha_text import parse_alpha_text, parse_shape_text, type_shape

_OVERRIDE_COLOUR = QColor("#1f4e9e")
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class OverrideGridModel(WorkbookTableModel):
    """Tier x class grid of acceptance on that tier's draft; blank means the class's own alpha."""

    where_key = "overrides"
    editable = True
    noticed = Signal(str)  # an accepted edit worth a word: acceptance set on a tier that runs no draft

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        ok = super().setData(index, value, role)
        if ok and index.isValid() and str(value).strip():
            self._notice_unused([index.row()])
        return ok

    def set_cells(self, cells: list[Cell], text: str, add_rows: int = 0) -> bool:
        ok = super().set_cells(cells, text, add_rows)
        if ok:
            self._notice_unused([r for r, _, value in cells if str(value).strip()])
        return ok

    def _notice_unused(self, rows: list[int]) -> None:
        wb = self.document.workbook
        note = unused_acceptance_note(wb, [wb.tiers[r].name for r in set(rows) if r < len(wb.tiers)])
        if note:
            self.noticed.emit(note)

    def _snapshot(self) -> Any:
        wb = self.document.workbook
        return (tuple(t.name for t in wb.tiers), tuple((c.name, c.alpha, c.defaulted) for c in wb.classes),
                tuple((o.tier, o.task_class, o.alpha, o.alpha_source, o.source_note, o.alpha_low, o.alpha_high)
                      for o in wb.overrides))

    def _headers_changed(self, old: Any, new: Any) -> bool:
        return old[0] != new[0] or [c[0] for c in old[1]] != [c[0] for c in new[1]]

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.document.workbook.tiers)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.document.workbook.classes)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        wb = self.document.workbook
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return wb.classes[section].name if section < len(wb.classes) else None
        return wb.tiers[section].name if section < len(wb.tiers) else None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        wb = self.document.workbook
        tier, cls = wb.tiers[index.row()], wb.classes[index.column()]
        override = wb.override_for(tier.name, cls.name)
        if role == Qt.ItemDataRole.DisplayRole:
            # blank cells show the class alpha in grey brackets so the grid reads as the alpha in use
            if override is None:  # a class's alpha nobody gave is no alpha in use (TaskClass.defaulted)
                return f"({NOT_GIVEN})" if "alpha" in cls.defaulted_fields() else f"({cls.alpha * 100:.1f}%)"
            suffix, _ = acceptance_text.class_alpha_words(override)
            return f"{override.alpha * 100:.1f}% {suffix}".rstrip()
        if role == Qt.ItemDataRole.EditRole:
            return alpha_edit_text(override, locale_decimal()) if override else ""
        if role == PROFILE_ROLE:
            return acceptance_text.profile_rates(override) if override else None
        if role == SHAPE_ROLE:
            return acceptance_text.shape_of(override) if override else ""
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT
        if role == Qt.ItemDataRole.ForegroundRole:
            plain = tier.speculative == "no"
            return QBrush(_OVERRIDE_COLOUR if override and not plain else QColor("#9a9a9a"))
        if role == Qt.ItemDataRole.FontRole and override:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole and tier.speculative == "no":
            kept = f" The {override.alpha * 100:.1f}% here is kept but not used." if override else ""
            return f"{tier.name} does not run speculative decoding (Speculative = no): no draft, no acceptance.{kept}"
        if role == Qt.ItemDataRole.ToolTipRole:
            if override:
                note = f"; {override.source_note}" if override.source_note else ""
                _, words = acceptance_text.class_alpha_words(override)
                return (f"{cls.name} on {tier.name}'s draft: alpha {override.alpha * 100:.1f}% ({override.alpha_source}{note}).\n"
                        + (f"{words}\n" if words else "")
                        + f"Clear the cell (Delete) to use the class's alpha, {cls.alpha * 100:.1f}%.\n{RANGE_HINT}")
            own = NOT_GIVEN if "alpha" in cls.defaulted_fields() else f"{cls.alpha * 100:.1f}%"
            return (f"Blank: {tier.name} uses {cls.name}'s own alpha, {own}. Type a share (0.78 or 78%) "
                    f"to override.\n{RANGE_HINT}")
        return None

    def _assign(self, wb: Workbook, row: int, col: int, text: str) -> None:
        tier, cls = wb.tiers[row], wb.classes[col]
        if text is None or not str(text).strip():
            wb.set_override(tier.name, cls.name, None)
            return
        shape = parse_shape_text(Override, text, f"{tier.name} / {cls.name}", decimal=locale_decimal())
        if shape is not None:  # a profile or a length on this tier's draft, instead of one alpha
            wb.set_override(tier.name, cls.name, shape["alpha"])
            type_shape(wb.override_for(tier.name, cls.name), shape)
            return
        alpha, typed_range = parse_alpha_text(Override, text, f"{tier.name} / {cls.name}", decimal=locale_decimal())
        old = wb.override_for(tier.name, cls.name)
        if typed_range is not None and old is not None:
            changed = abs(old.alpha - alpha) >= 1e-12
            type_acceptance(old, alpha, typed_range)  # the range as typed; an unchanged alpha keeps its source
            if changed:
                old.alpha_source, old.source_note = "assumed", ""
            return
        # retyping a measured number keeps its provenance only if the number is unchanged
        if old is not None and abs(old.alpha - alpha) < 1e-12:
            return
        ranged = dict(alpha_low=typed_range[0], alpha_high=typed_range[1]) if typed_range else {}
        wb.set_override(tier.name, cls.name, alpha, "assumed", **ranged)

