"""The task classes table's model: the alpha cell shows and takes a profile, a length or a range beside the alpha."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from model.workbook.alpha_text import parse_alpha_text, parse_shape_text, type_shape
from model.workbook.validation import CLASS_FIELDS, WORKLOAD_FIELDS
from model.workbook.rows import TaskClass, Workbook, drop_acceptance_shape, drop_stale_interval, type_acceptance

from gui.tables import acceptance_text
from gui.tables.acceptance_text import PROFILE_ROLE, RANGE_HINT, SHAPE_ROLE, alpha_edit_text
from gui.tables.cell_format import locale_decimal
from gui.tables.workbook_table_model import Index
from gui.tables.row_table_model import RowTableModel
from gui.document import Document


class ClassTableModel(RowTableModel):
    roles = RowTableModel.roles | {PROFILE_ROLE, SHAPE_ROLE}

    def __init__(self, document: Document) -> None:
        super().__init__(document, TaskClass, CLASS_FIELDS + WORKLOAD_FIELDS, "classes", "Task class")

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        text = super().headerData(section, orientation, role)
        if (role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal
                and self.specs[section].name == "alpha"):
            return f"{text}\n{RANGE_HINT}"
        return text

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        shown = super().data(index, role)
        if not index.isValid() or self.specs[index.column()].name != "alpha":
            return shown
        row = self.rows()[index.row()]
        if role == Qt.ItemDataRole.EditRole:
            return alpha_edit_text(row, locale_decimal())
        if role == PROFILE_ROLE:
            return acceptance_text.profile_rates(row)
        if role == SHAPE_ROLE:
            return acceptance_text.shape_of(row)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            # the profile, length or range beside the alpha: it decides the results (or their certainty)
            suffix, note = acceptance_text.class_alpha_words(row)
            if role == Qt.ItemDataRole.ToolTipRole:
                return f"{shown}\n{note}\n{RANGE_HINT}" if note else f"{shown}\n{RANGE_HINT}"
            if suffix:
                return f"{shown} {suffix}"
        return shown

    def _assign(self, wb: Workbook, row: int, col: int, text: str) -> None:
        if self.specs[col].name != "alpha":
            super()._assign(wb, row, col, text)
            return
        target = wb.classes[row]
        shape = parse_shape_text(TaskClass, text, target.name, decimal=locale_decimal())
        target.entered("alpha")  # whichever way it is typed (a refused text raises above and changes nothing)
        if shape is not None:  # a profile or a length typed in the alpha cell: it stands instead of one alpha
            type_shape(target, shape)
            return
        alpha, typed_range = parse_alpha_text(TaskClass, text, target.name, decimal=locale_decimal())
        if typed_range is not None:
            type_acceptance(target, alpha, typed_range)
            return
        # a bare alpha: a measured interval goes with the measured value, a typed range stays while it holds
        drop_stale_interval(target, alpha)
        if alpha != target.alpha:
            drop_acceptance_shape(target)  # the alpha typed is the acceptance now, not the profile beside it
        target.alpha = alpha
