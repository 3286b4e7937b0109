"""A table model with one row per dataclass in a workbook list and one column per FieldSpec; every value goes
through model/workbook/validation.py, so a refused value leaves the workbook as it was.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont

from model.workbook import row_edits
from model.workbook.row_edits import NOT_GIVEN
from model.workbook.validation import FieldSpec, ValidationError, parse_field
from model.workbook.vendor_terms import drop_stale_measurement
from model.workbook.rows import NotGiven, TaskClass, Tier, Workbook, drop_acceptance_shape, drop_stale_interval

from gui.tables.shown_cells import row_edit_columns
from gui.tables.cell_format import NUMERIC_KINDS, cleared_text, display_text, edit_text, locale_decimal
from gui.tables.workbook_table_model import Cell, Index, WorkbookTableModel, column_letter
from gui.document import Document

_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
# the roles a row table answers: Qt asks each cell it paints or measures for nine (decoration, background, check
# state, size...); the others are answered before the row is looked at (half the window's start-up column fit)
_ROLES = frozenset(int(role) for role in (
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, Qt.ItemDataRole.TextAlignmentRole,
    Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.FontRole))



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
