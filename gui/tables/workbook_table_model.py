"""The shared plumbing of every table model over a workbook: refresh on document change, bulk edits as one undo
step, and the spreadsheet-style column names the messages use.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from model.workbook.validation import ValidationError
from model.workbook.rows import Workbook

from gui.document import Document

Index = QModelIndex | QPersistentModelIndex
Cell = tuple[int, int, str]  # row, column, text as typed or pasted


def column_letter(col: int) -> str:
    """Spreadsheet-style column name, so messages can say 'cell C4' as Excel users expect."""
    out = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        out = chr(65 + rem) + out
    return out


class WorkbookTableModel(QAbstractTableModel):
    """Shared plumbing: refresh on document change, bulk edits as one undo step."""

    refused = Signal(str)
    where_key = ""  # names this table in Document.apply's `where`, for focus after undo
    editable = False  # input tables say True; computed tables stay read-only

    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self._shape = (self.rowCount(), self.columnCount())
        self._state = self._snapshot()
        document.changed.connect(self._on_document_changed)

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsEditable if self.editable and index.isValid() else base

    # Repainting a table costs far more than diffing it, so each model remembers what it
    # showed and signals only the block of cells that changed (Qt repaints just that rect).
    def _snapshot(self) -> Any:
        """What the cells show, cheap to take and to compare; None means always repaint all."""
        return None

    def _changed_block(self, old: Any, new: Any) -> tuple[int, int, int, int] | list[tuple[int, int, int, int]] | None:
        """(top, left, bottom, right) of the cells that differ (or a list of such blocks), None when nothing does."""
        if old is not None and old == new:
            return None
        return 0, 0, self.rowCount() - 1, self.columnCount() - 1

    def _headers_changed(self, old: Any, new: Any) -> bool:
        return True

    def _narrow(self, old: Any, new: Any, blocks: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
        """The parts of the changed blocks to signal (result models leave out cells that look the same)."""
        return blocks

    def _reshaped(self) -> None:
        """Rows or columns came or went (inside the reset)."""

    def refresh(self) -> None:
        """Re-read the document: a reset when the shape changed, else dataChanged on what changed."""
        shape = (self.rowCount(), self.columnCount())
        new = self._snapshot()
        old, self._state = self._state, new
        if shape != self._shape:
            # rows came or went: a reset is the honest signal; views restore their current cell
            self.beginResetModel()
            self._shape = shape
            self._reshaped()
            self.endResetModel()
            return
        if not (shape[0] and shape[1]):
            return
        block = self._changed_block(old, new)
        for top, left, bottom, right in self._narrow(old, new, [block] if isinstance(block, tuple) else block or []):
            self.dataChanged.emit(self.index(top, left), self.index(bottom, right))
        if self._headers_changed(old, new):
            self.headerDataChanged.emit(Qt.Orientation.Vertical, 0, shape[0] - 1)
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, shape[1] - 1)

    def _on_document_changed(self) -> None:
        self.refresh()

    # --- editing (subclasses provide _assign and _cell_text) -----------------
    def _assign(self, wb: Workbook, row: int, col: int, text: str) -> None:
        raise NotImplementedError

    def cleared_text(self, col: int) -> str:
        return ""

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        if str(value) == self.data(index, Qt.ItemDataRole.EditRole) and not self._confirms_made_up(index):
            return True  # re-committing the same text must not make an undo step
        label = self.headerData(index.column(), Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
        try:
            self.document.apply(f"Edit {label}", lambda wb: self._assign(wb, index.row(), index.column(), value),
                                where=(self.where_key, index.row(), index.column()))
        except ValidationError as exc:
            self.refused.emit(str(exc))
            return False
        return True

    def _confirms_made_up(self, index: Index) -> bool:
        """Whether re-committing unchanged text still makes a step; only row tables hold made-up values."""
        return False

    def set_cells(self, cells: list[Cell], text: str, add_rows: int = 0) -> bool:
        """Several cells as one undo step; refused whole, naming the first bad cell.

        With `add_rows` (tables that can grow), that many rows are appended first in the
        same step, so a paste running past the bottom edge behaves as in Excel.
        """
        if add_rows and not self.can_add_rows:
            raise ValueError(f"{type(self).__name__} cannot add rows")
        first_new = self.rowCount()
        # cells in rows still to be added are editable: only growing tables accept add_rows
        cells = [c for c in cells
                 if c[0] >= first_new or self.flags(self.index(c[0], c[1])) & Qt.ItemFlag.ItemIsEditable]
        if not cells:
            return False

        def mutate(wb: Workbook) -> None:
            todo = self._add_rows(wb, add_rows, cells) if add_rows else cells
            for row, col, value in todo:
                try:
                    self._assign(wb, row, col, value)
                except ValidationError as exc:
                    raise ValidationError(f"cell {column_letter(col)}{row + 1}: {exc}") from None

        try:
            rows, cols = [c[0] for c in cells], [c[1] for c in cells]
            # the block, so undo/redo selects all the cells it changed back, not just one
            self.document.apply(text, mutate, where=(self.where_key, min(rows), min(cols), max(rows), max(cols)))
        except ValidationError as exc:
            self.refused.emit(f"{text} refused, nothing changed. {exc}")
            return False
        if add_rows:
            # the view selects the pasted block next: it must know about the new rows by then
            self.document.flush()
        return True

    can_add_rows = False

    def _add_rows(self, wb: Workbook, count: int, cells: list[Cell]) -> list[Cell]:
        """Append `count` rows for `cells`; returns the cells still to assign."""
        raise NotImplementedError
