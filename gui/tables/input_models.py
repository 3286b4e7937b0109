"""Editable table models over the workbook's inputs: tiers and task classes (the overrides grid: override_grid.py).

Every change goes through Document.apply, so it is one undo step; every value
goes through model/validation, so a refused value leaves the workbook as it
was and `refused` carries the reason for the status bar.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont

from model.workbook import row_edits
from model.workbook.row_edits import NOT_GIVEN
from model.workbook.alpha_text import parse_alpha_text, parse_shape_text, type_shape
from model.workbook.validation import (CLASS_FIELDS, TERMS_FIELDS, TIER_FIELDS, WORKLOAD_FIELDS, FieldSpec,
                                       ValidationError, parse_field)
from model.workbook.vendor_terms import drop_stale_measurement
from model.workbook.rows import (NotGiven, TaskClass, Tier, Workbook, drop_acceptance_shape, drop_stale_interval,
                                 type_acceptance)

from gui.tables import acceptance_text, used_costs
from gui.tables.shown_cells import row_edit_columns
from gui.tables.acceptance_text import PROFILE_ROLE, RANGE_HINT, SHAPE_ROLE, alpha_edit_text
from gui.tables.cell_format import NUMERIC_KINDS, cleared_text, display_text, edit_text, locale_decimal
from gui.document import Document

Index = QModelIndex | QPersistentModelIndex
Cell = tuple[int, int, str]  # row, column, text as typed or pasted

_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
# the roles a row table answers: Qt asks each cell it paints or measures for nine (decoration, background, check
# state, size...); the others are answered before the row is looked at (half the window's start-up column fit)
_ROLES = frozenset(int(role) for role in (
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, Qt.ItemDataRole.TextAlignmentRole,
    Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.FontRole))


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


class RowTableModel(WorkbookTableModel):
    """One row per dataclass in a workbook list, one column per FieldSpec."""

    editable = True

    def __init__(self, document: Document, row_type: type, specs: tuple[FieldSpec, ...], attr: str, word: str) -> None:
        self.row_type, self.specs, self.attr, self.word = row_type, specs, attr, word
        self.where_key = attr
        super().__init__(document)

    def rows(self, wb: Workbook | None = None) -> list[Any]:
        return getattr(wb or self.document.workbook, self.attr)

    def _confirms_made_up(self, index: Index) -> bool:
        """Typing over a value an import made up confirms it, even unchanged: one step, and the tier is complete."""
        rows = self.rows(self.document.workbook)
        row = rows[index.row()] if index.row() < len(rows) else None
        return row is not None and self._not_given(row, self.specs[index.column()])

    def _snapshot(self) -> Any:
        # the rows themselves: the document never mutates a workbook in place, so old rows stay as shown
        wb = self.document.workbook
        return list(getattr(wb, self.attr)), wb.settings

    def _changed_block(self, old: Any, new: Any) -> tuple[int, int, int, int] | None:
        (old_rows, old_settings), (new_rows, new_settings) = old, new
        if old_settings != new_settings:
            return 0, 0, len(new_rows) - 1, len(self.specs) - 1
        return row_edit_columns(old_rows, new_rows, [spec.name for spec in self.specs])

    def _headers_changed(self, old: Any, new: Any) -> bool:
        return False  # row numbers and field labels never change

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows())

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.specs)

    def column_of(self, field_name: str) -> int:
        return next(i for i, s in enumerate(self.specs) if s.name == field_name)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Vertical:
            return str(section + 1) if role == Qt.ItemDataRole.DisplayRole else None
        spec = self.specs[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return spec.label
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{spec.label}: {spec.describe()}"
        return None

    roles = _ROLES

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in self.roles or not index.isValid():
            return None
        spec = self.specs[index.column()]
        row = self.rows()[index.row()]
        value = getattr(row, spec.name)
        if role == Qt.ItemDataRole.DisplayRole:
            if self._not_given(row, spec):  # a placeholder nobody typed reads as one, never as a number
                return NOT_GIVEN
            return display_text(spec, value, self.document.workbook.settings.currency)
        if role == Qt.ItemDataRole.EditRole:
            return edit_text(spec, value, locale_decimal())
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT if spec.kind in NUMERIC_KINDS else _LEFT
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, spec, value)
        if role == Qt.ItemDataRole.ForegroundRole and (self._greyed(row, spec) or self._not_given(row, spec)):
            return QBrush(QColor("#9a9a9a"))
        if role == Qt.ItemDataRole.FontRole and self._not_given(row, spec):
            font = QFont()
            font.setItalic(True)
            return font
        return None

    @staticmethod
    def _not_given(row: Any, spec: FieldSpec) -> bool:
        """A placeholder nobody typed (Tier.defaulted, TaskClass.defaulted); a class's source goes with its alpha."""
        if not isinstance(row, NotGiven):
            return False
        made_up = row.defaulted_fields()
        return spec.name in made_up or (spec.name == "alpha_source" and isinstance(row, TaskClass) and "alpha" in made_up)

    def _tooltip(self, row: Any, spec: FieldSpec, value: Any) -> str:
        if self._not_given(row, spec):
            return (f"{self.word} {row.name!r}, {spec.label}: not given (a new row, or a list without this column). "
                    "No speed, verdict or price is modelled from it until you type it; the editor starts from "
                    f"{display_text(spec, value) or '(blank)'}.\nAccepts {spec.describe()}.")
        text = f"{self.word} {row.name!r}, {spec.label}: {display_text(spec, value) or '(blank)'}\nAccepts {spec.describe()}."
        if self._greyed(row, spec):
            text += "\nNot used by this row's settings (see Cost model / Speculative)."
        return text

    def _greyed(self, row: Any, spec: FieldSpec) -> bool:
        """Cells the computation ignores for this row; greyed so nobody tunes a dead number."""
        if not isinstance(row, Tier):
            return False
        if row.speculative == "no" and spec.name in ("k", "cost_model", "c", "v", "gpu", "pair", "batch", "claimed_speedup", "claim_context"):
            return True
        if row.cost_model == "roofline" and spec.name in ("c", "v"):
            return True
        return row.cost_model == "typed" and spec.name in ("gpu", "pair", "batch")

    def cleared_text(self, col: int) -> str:
        return cleared_text(self.specs[col], self.row_type)

    can_add_rows = True

    def _add_rows(self, wb: Workbook, count: int, cells: list[Cell]) -> list[Cell]:
        rows = self.rows(wb)
        first_new = len(rows)
        name_col = self.column_of("name")
        # a blank pasted name gets a default, as if the name column had not been pasted
        pasted_names = {r: v for r, c, v in cells if c == name_col and r >= first_new and str(v).strip()}
        kind = "tiers" if self.row_type is Tier else "classes"
        for r in range(first_new, first_new + count):
            # filled from the row above, as Add row does (model/workbook/row_edits.py says why)
            row = row_edits.new_row(wb, kind, first_new, taken=list(pasted_names.values()))
            if r in pasted_names:
                # a new row takes its pasted name directly: renaming a placeholder could clash
                # with another new row's placeholder and refuse a paste that is fine
                try:
                    row.name = parse_field(self.row_type, "name", pasted_names[r])
                except ValidationError as exc:
                    raise ValidationError(f"cell {column_letter(name_col)}{r + 1}: {exc}") from None
                for i, other in enumerate(rows):
                    if other.name.strip().lower() == row.name.lower():
                        raise ValidationError(f"cell {column_letter(name_col)}{r + 1}: {self.word} {row.name!r}: "
                                              f"the name is already used in row {i + 1}")
            rows.append(row)
        return [c for c in cells if not (c[1] == name_col and c[0] >= first_new)]

    def _assign(self, wb: Workbook, row: int, col: int, text: str) -> None:
        rows = self.rows(wb)
        target = rows[row]
        spec = self.specs[col]
        value = parse_field(self.row_type, spec.name, text, target.name, decimal=locale_decimal())
        if spec.name == "name":
            if value == target.name:
                return
            for i, other in enumerate(rows):
                if i != row and other.name.strip().lower() == value.lower():
                    raise ValidationError(f"{self.word} {target.name!r}, {spec.label}: {value!r} is already the name of row {i + 1}")
            # renames go through the workbook so baselines and overrides follow the new name
            (wb.rename_tier if self.row_type is Tier else wb.rename_class)(target.name, value)
            return
        if spec.name == "baseline" and value:
            names = [t.name for t in wb.tiers]
            match = next((n for n in names if n.lower() == value.lower()), None)
            if match is None:
                raise ValidationError(f"Tier {target.name!r}, Baseline: no tier is named {value!r}")
            if match == target.name:
                raise ValidationError(f"Tier {target.name!r}, Baseline: a tier cannot be its own baseline")
            value = match
        if spec.name == "alpha" and isinstance(target, TaskClass):
            drop_stale_interval(target, value)
            if value != target.alpha:
                drop_acceptance_shape(target)  # the alpha typed is the acceptance now, not the profile beside it
        if isinstance(target, Tier):
            drop_stale_measurement(target, spec.name, value)  # a measured SLA or downgrade was about the old value
        setattr(target, spec.name, value)
        if isinstance(target, NotGiven):
            target.entered(spec.name)  # a value the analyst typed is no longer one nobody gave


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


class ClassTableModel(RowTableModel):
    roles = _ROLES | {PROFILE_ROLE, SHAPE_ROLE}

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
