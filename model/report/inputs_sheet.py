"""The report's Inputs sheet: settings and the three input tables, laid out for editing in Excel.

Every formula elsewhere in the report points at these cells, so an analyst who
changes an acceptance or a price here sees the Summary and Comparison follow.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from model.report import styles as st
from model.report.layout import (CLASSES_HEADING, INPUTS, OVERRIDES_HEADING, SETTING_LABELS, SETTING_ROWS,
                           SETTINGS_TITLE_ROW, TIERS_HEADING, InputsLayout, column_of, header_labels)
from model.workbook.validation import CLASS_FIELDS, OVERRIDE_FIELDS, TIER_FIELDS, FieldSpec
from model.workbook.rows import Workbook

# how each numeric input reads; text and choice fields are written as text
_FORMATS = {
    "k": "0", "c": st.NUMBER, "v": st.NUMBER, "batch": "0", "claimed_speedup": st.TIMES1,
    "claim_context": st.INTEGER, "tokens_out": st.INTEGER, "tokens_in": st.INTEGER,
    "context": st.INTEGER, "alpha": st.PERCENT,
}
# The three tables share columns; each table's last column (notes) spills over
# the empty cells to its right on screen (wrapping would need row heights that
# LibreOffice does not grow by itself).
_WIDTHS = {1: 26, 2: 18, 3: 14, 4: 9, 5: 12, 6: 14, 7: 14, 8: 12, 9: 18, 10: 7, 11: 10, 12: 10,
           13: 11, 14: 11, 15: 22, 16: 48}



@dataclass(frozen=True)
class InputRefs:
    """Absolute references into Inputs that the report's formulas use."""

    layout: InputsLayout
    override_rows: dict[tuple[str, str], int]

    def tier(self, i: int, field: str) -> str:
        return _ref(column_of(TIER_FIELDS, field), self.layout.tier_row(i))

    def cls(self, j: int, field: str) -> str:
        return _ref(column_of(CLASS_FIELDS, field), self.layout.class_row(j))

    def override_alpha(self, tier: str, cls: str) -> str | None:
        row = self.override_rows.get((tier, cls))
        return None if row is None else _ref(column_of(OVERRIDE_FIELDS, "alpha"), row)

    def class_column(self, field: str) -> str:
        """The whole column of one class field, e.g. every class's monthly output tokens."""
        col = get_column_letter(column_of(CLASS_FIELDS, field))
        n = max(self.layout.n_classes, 1)
        return f"{INPUTS}!${col}${self.layout.class_row(0)}:${col}${self.layout.class_row(n - 1)}"

    def setting(self, key: str) -> str:
        return _ref(2, SETTING_ROWS[key])


def _ref(col: int, row: int) -> str:
    return f"{INPUTS}!${get_column_letter(col)}${row}"


def write_inputs(ws: Worksheet, wb: Workbook) -> InputRefs:
    layout = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    st.put_text(ws, 1, 1, "Inputs", font=st.TITLE_FONT)
    st.put_text(ws, 2, 1, "Edit the shaded cells; the Summary, Comparison and Curves sheets follow. "
                "File > Import from Excel in SpecLedger reads this sheet back (also rows you add right under a "
                "table); import and export again to bring added rows into the report.", font=st.NOTE_FONT)
    st.put_text(ws, SETTINGS_TITLE_ROW, 1, "Settings", font=st.HEADING_FONT)
    s = wb.settings
    values: dict[str, Any] = {"title": wb.title, "currency": s.currency, "marginal_band": s.marginal_band,
                              "claim_tolerance": s.claim_tolerance, "k_max": s.k_max}
    formats = {"marginal_band": st.PERCENT, "claim_tolerance": st.PERCENT, "k_max": "0"}
    for key, label in SETTING_LABELS.items():
        row = SETTING_ROWS[key]
        st.put_text(ws, row, 1, label, font=st.LABEL_FONT)
        if key in ("title", "currency"):
            st.put_text(ws, row, 2, values[key], fill=st.INPUT_FILL)
        else:
            st.put_value(ws, row, 2, values[key], formats[key], fill=st.INPUT_FILL)

    price = st.money_format(s.currency, 2)
    number_formats = {**_FORMATS, "price_out": price, "price_in": price}
    _table(ws, layout.tier_header, TIERS_HEADING, TIER_FIELDS, wb.tiers, "Tiers", number_formats)
    _table(ws, layout.class_header, CLASSES_HEADING, CLASS_FIELDS, wb.classes, "TaskClasses", number_formats)
    _table(ws, layout.override_header, OVERRIDES_HEADING, OVERRIDE_FIELDS, wb.overrides, "Overrides", number_formats)
    _choice_lists(ws, layout)

    st.set_widths(ws, _WIDTHS)
    ws.freeze_panes = "B1"  # three stacked tables share no header row; the name column stays in view
    st.landscape(ws)
    override_rows = {(o.tier, o.task_class): layout.override_row(m) for m, o in enumerate(wb.overrides)}
    return InputRefs(layout, override_rows)


def _table(ws: Worksheet, header_row: int, heading: str, specs: tuple[FieldSpec, ...], rows: list[Any], name: str,
           number_formats: dict[str, str]) -> None:
    st.put_text(ws, header_row - 1, 1, heading, font=st.HEADING_FONT)
    st.put_header_row(ws, header_row, header_labels(specs),
                      text_columns={sp.label for sp in specs if sp.kind in ("text", "choice")})
    for i, row in enumerate(rows):
        r = header_row + 1 + i
        for col, spec in enumerate(specs, start=1):
            value = getattr(row, spec.name)
            if spec.kind in ("text", "choice"):
                st.put_text(ws, r, col, value, fill=st.INPUT_FILL, alignment=st.INDENT)
            else:
                st.put_value(ws, r, col, value, number_formats.get(spec.name), fill=st.INPUT_FILL)
    st.add_table(ws, name, header_row, header_row + len(rows), len(specs))
    ws.row_dimensions[header_row].height = 30


def _choice_lists(ws: Worksheet, layout: InputsLayout) -> None:
    """Drop-down lists for the choice columns, so an edit in Excel stays importable."""
    blocks = ((TIER_FIELDS, layout.tier_header, layout.n_tiers),
              (CLASS_FIELDS, layout.class_header, layout.n_classes),
              (OVERRIDE_FIELDS, layout.override_header, layout.n_overrides))
    for specs, header, n in blocks:
        for col, spec in enumerate(specs, start=1):
            if spec.kind != "choice":
                continue
            listed = ",".join(spec.choice_list())
            if len(listed) > 250 or '"' in listed:  # Excel's limit for an inline list
                continue
            letter = get_column_letter(col)
            dv = DataValidation(type="list", formula1=f'"{listed}"', allow_blank=False, showErrorMessage=True,
                                errorTitle=spec.label, error=f"{spec.label} must be {spec.describe()}")
            dv.add(f"{letter}{header + 1}:{letter}{header + max(n, 1)}")
            ws.add_data_validation(dv)
    for row in range(1, 3):
        ws.cell(row, 1).alignment = Alignment(wrap_text=False)
