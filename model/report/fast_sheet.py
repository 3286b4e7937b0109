"""The Excel report's worksheet class: XlsxWriter's Worksheet with a shorter path for the report's common cells.

Kept apart from the formats and the cell writer (styles.py) because it is about XlsxWriter's XML, not about
the report's looks: styles.SheetWriter creates every sheet with it.
"""
from __future__ import annotations

from typing import Any

from xlsxwriter.utility import xl_col_to_name
from xlsxwriter.worksheet import CellFormulaTuple, CellNumberTuple, Worksheet


class ReportSheet(Worksheet):
    """A worksheet that writes the report's own formulas and numbers by the shortest path, to the same XML.

    A 100 x 30 report has some 70,000 formula cells, and XlsxWriter's general
    path spends most of the export on checks that never fire for them:
    - it scans every formula with some thirty regular expressions to add the
      _xlfn. prefix to newer functions, and once more for dynamic-array
      functions; the report uses none of either, and no {array} formula;
    - writing each cell's XML, it tests the cell's type by class name, then
      escapes the cell reference and the style number as attributes (an int
      raising TypeError inside the escape each time);
    - writing the rows, it probes every column of the sheet's width in every
      row for a cell.
    A test checks that the report's formulas would pass both scans unchanged,
    and that the sheets' XML is byte for byte what plain XlsxWriter writes.
    Anything off the common path (no format, a boolean or error result) goes
    through XlsxWriter's own code.
    """

    def _prepare_formula(self, formula: str, expand_future_functions: bool = False) -> str:
        return formula[1:] if formula.startswith("=") else formula

    def _write_formula(self, row: int, col: int, formula: str, cell_format: Any = None, value: Any = 0) -> int:
        if self._check_dimensions(row, col):
            return -1
        self.table[row][col] = CellFormulaTuple(formula[1:] if formula.startswith("=") else formula, cell_format, value)
        return 0

    def _write_rows(self) -> None:
        """XlsxWriter's loop over the rows, taking each row's cells in column order rather than probing every
        column of the sheet's width, and writing the common cells (a formula or a number with a format) here:
        a row's cells are joined and written at once, each cell's reference from its row number and its
        column's letters worked out once, each format's index asked once."""
        self._calculate_spans()
        table, row_info, comments, spans, write = self.table, self.row_info, self.comments, self.row_spans, self.fh.write
        fallback = super()._write_cell
        letters: dict[int, str] = {}
        styles: dict[int, str] = {}  # id(format) -> its index, as the attribute's text
        parts: list[str] = []

        def aside(row_num: int, col_num: int, cell: Any) -> None:
            """A cell off the common path, written by XlsxWriter after what is gathered before it."""
            if parts:
                write("".join(parts))
                parts.clear()
            fallback(row_num, col_num, cell)

        for row_num in range(self.dim_rowmin, self.dim_rowmax + 1):
            cells = table[row_num]
            if not cells:
                if row_num in row_info or row_num in comments:
                    self._write_empty_row(row_num, spans.get(row_num // 16), row_info.get(row_num))
                continue
            self._write_row(row_num, spans.get(row_num // 16), row_info.get(row_num))
            number = str(row_num + 1)
            for col_num in sorted(cells):
                cell = cells[col_num]
                kind, fmt = type(cell), cell.format
                if fmt is None or (kind is not CellFormulaTuple and kind is not CellNumberTuple):
                    aside(row_num, col_num, cell)
                    continue
                letter = letters.get(col_num)
                if letter is None:
                    letter = letters[col_num] = xl_col_to_name(col_num)
                style = styles.get(id(fmt))
                if style is None:
                    style = styles[id(fmt)] = str(fmt._get_xf_index())
                if kind is CellNumberTuple:
                    parts.append(f'<c r="{letter}{number}" s="{style}"><v>{cell.number:.16G}</v></c>')
                    continue
                value, text = cell.value, ""
                if isinstance(value, str):
                    if value in _ERROR_CODES:
                        aside(row_num, col_num, cell)
                        continue
                    if value:
                        text = ' t="str"'
                        value = _escape_text(value)
                elif isinstance(value, bool) or not isinstance(value, (int, float)):
                    aside(row_num, col_num, cell)
                    continue
                parts.append(f'<c r="{letter}{number}" s="{style}"{text}><f>{_escape_text(cell.formula)}</f>'
                             f'<v>{value}</v></c>')
            parts.append("</row>")
            write("".join(parts))
            parts.clear()


_ERROR_CODES = frozenset(("#DIV/0!", "#N/A", "#NAME?", "#NULL!", "#NUM!", "#REF!", "#VALUE!"))


def _escape_text(text: str) -> str:
    """XML text content as XlsxWriter escapes it (quotes stay: Excel writes them bare)."""
    if "&" in text or "<" in text or ">" in text:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text
