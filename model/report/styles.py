"""Cell writing and looks for the Excel report: styles, number formats, and the one place text is written.

Imported only by the Excel modules, which the GUI imports lazily, so openpyxl
stays out of the window's start-up.
"""
from __future__ import annotations

import copy
from typing import Any

from openpyxl.formatting.rule import CellIsRule
from openpyxl.cell.cell import Cell
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.styles.cell_style import StyleArray
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.table import Table, TableStyleInfo
from openpyxl.worksheet.worksheet import Worksheet

from model.formatting import CURRENCY_SYMBOLS

PERCENT = "0.0%"
TIMES = '0.00"x"'
TIMES1 = '0.0"x"'
NUMBER = "0.000"
INTEGER = "#,##0"
SIGNED_PERCENT = "+0.0%;-0.0%;0.0%"

TITLE_FONT = Font(bold=True, size=14, color="1F3864")
HEADING_FONT = Font(bold=True, size=11, color="1F3864")
LABEL_FONT = Font(bold=True)
NOTE_FONT = Font(italic=True, color="595959")
# Values SpecLedger computed that have no closed form in a spreadsheet: grey and
# italic, so a reader knows they will not follow an edited input.
COMPUTED_FONT = Font(italic=True, color="595959")
COMPUTED_FILL = PatternFill("solid", fgColor="E7E6E6")
INPUT_FILL = PatternFill("solid", fgColor="FFF9E5")  # the cells an analyst is invited to edit
WRAP = Alignment(wrap_text=True, vertical="top")
RIGHT = Alignment(horizontal="right")
CENTRE = Alignment(horizontal="center")
INDENT = Alignment(horizontal="left", indent=1)  # text right after a right-aligned number column

VERDICT_FILLS = {
    "gain": (PatternFill("solid", fgColor="C6EFCE"), Font(color="006100")),
    "marginal": (PatternFill("solid", fgColor="FFEB9C"), Font(color="9C5700")),
    "tax": (PatternFill("solid", fgColor="FFC7CE"), Font(color="9C0006")),
}

# A user's text starting with one of these would be a formula (or a DDE/@ function
# in some spreadsheets) if typed; it must stay inert text in the file.
FORMULA_LEADS = ("=", "+", "-", "@")


def money_format(currency: str, decimals: int = 0) -> str:
    body = "#,##0" + ("." + "0" * decimals if decimals else "")
    symbol = CURRENCY_SYMBOLS.get(currency)
    if symbol:
        return f'"{symbol}"{body}'
    # the code is user text: keep it to letters so it cannot break the format string
    code = "".join(ch for ch in currency if ch.isalnum())[:8]
    return f'{body} "{code}"' if code else body


def put_text(ws: Worksheet, row: int, col: int, text: Any, **style: Any) -> Any:
    """Write text that is text: never read as a formula, whatever it starts with.

    openpyxl turns any string starting with '=' into a formula, so the data type
    is set after the value; quotePrefix keeps Excel from re-reading it as a
    formula when the analyst edits the cell.
    """
    cell = ws.cell(row=row, column=col)
    value = "" if text is None else str(text)
    cell.value = value
    cell.data_type = "s"
    _style(cell, None, style, quote=value.startswith(FORMULA_LEADS))
    return cell


def _cell(ws: Worksheet, row: int, col: int) -> Any:
    """The cell at (row, col), made directly when it is new.

    ws.cell() checks the coordinates and looks the cell up twice on every call;
    with a hundred thousand cells in a large report that bookkeeping was a tenth
    of the build time. Rows and columns here come from the report's own layout.
    """
    cells = ws._cells
    cell = cells.get((row, col))
    if cell is None:
        cell = cells[(row, col)] = Cell(ws, row=row, column=col)
        if row > ws._current_row:
            ws._current_row = row
    return cell


def put_value(ws: Worksheet, row: int, col: int, value: float | int | None, number_format: str | None = None,
              computed: bool = False, **style: Any) -> Any:
    """A number (None leaves the cell blank); computed=True marks it as SpecLedger's, not a formula."""
    cell = _cell(ws, row, col)
    if type(value) in (float, int):  # the common case, without openpyxl's type dispatch
        cell._value = value
        cell.data_type = "n"
    else:
        cell.value = value
    if computed:
        style = {"font": COMPUTED_FONT, "fill": COMPUTED_FILL, **style}
    _style(cell, number_format, style)
    return cell


def put_formula(ws: Worksheet, row: int, col: int, formula: str, number_format: str | None = None, **style: Any) -> Any:
    """A formula of SpecLedger's making (never containing user text)."""
    assert formula.startswith("=")
    cell = _cell(ws, row, col)
    # set as openpyxl's value setter would, minus its scan for control characters:
    # the report's formulas are ASCII it built itself (user text never enters one)
    cell._value = formula
    cell.data_type = "f"
    _style(cell, number_format, style)
    return cell


def _style(cell: Any, number_format: str | None, style: dict[str, Any], quote: bool = False) -> None:
    """Apply a look, reusing the style array of the first cell that had it.

    Setting font, fill and format one attribute at a time makes openpyxl hash and
    look up each style object for every cell, which dominated the export time of
    large reports; a finished style array is just copied instead.
    """
    if not number_format and not style and not quote:
        return
    cache = cell.parent.parent.__dict__.setdefault("_specledger_styles", {})
    key = (number_format, quote, *style, *map(id, style.values()))
    known = cache.get(key)
    if known is not None:
        cell._style = StyleArray(known[0])  # a copy: a later edit of one cell's look must not restyle others
        return
    if number_format:
        cell.number_format = number_format
    if quote:
        cell.quotePrefix = True
    for name, value in style.items():
        if value is not None:
            setattr(cell, name, value)
    cache[key] = (copy.copy(cell._style), list(style.values()))  # keeps the objects alive, so their ids stay theirs


HEADER_LEFT = Alignment(wrap_text=True, vertical="bottom")
HEADER_RIGHT = Alignment(wrap_text=True, vertical="bottom", horizontal="right")
HEADER_CENTRE = Alignment(wrap_text=True, vertical="bottom", horizontal="center")


def put_header_row(ws: Worksheet, row: int, labels: list[str], first_col: int = 1,
                   text_columns: set[str] | None = None, centred: set[str] | None = None) -> None:
    """Headers over numbers sit right, like the numbers; over text (all, if no set is given) left."""
    for i, label in enumerate(labels):
        if text_columns is None or label in text_columns:
            look = HEADER_LEFT
        elif centred and label in centred:
            look = HEADER_CENTRE
        else:
            look = HEADER_RIGHT
        put_text(ws, row, first_col + i, label, font=LABEL_FONT, alignment=look)


def add_table(ws: Worksheet, name: str, first_row: int, last_row: int, n_cols: int, first_col: int = 1) -> None:
    """An Excel table (filters, banding) over a header row and its data rows.

    A table needs at least one data row, so an empty list keeps one blank row.
    """
    last_row = max(last_row, first_row + 1)
    ref = f"{get_column_letter(first_col)}{first_row}:{get_column_letter(first_col + n_cols - 1)}{last_row}"
    table = Table(displayName=name, ref=ref)
    table.tableStyleInfo = TableStyleInfo(name="TableStyleLight9", showRowStripes=True, showColumnStripes=False)
    ws.add_table(table)


def colour_verdicts(ws: Worksheet, cell_range: str) -> None:
    """Conditional formatting, so a verdict that changes after an edit changes colour too."""
    for word, (fill, font) in VERDICT_FILLS.items():
        ws.conditional_formatting.add(cell_range, CellIsRule(operator="equal", formula=[f'"{word}"'], fill=fill, font=font))


def colour_verdicts_words(ws: Worksheet, cell_range: str) -> None:
    """yes in the gain colours, no in the tax colours (for "claim holds")."""
    for word, look in (("yes", "gain"), ("no", "tax")):
        fill, font = VERDICT_FILLS[look]
        ws.conditional_formatting.add(cell_range, CellIsRule(operator="equal", formula=[f'"{word}"'], fill=fill, font=font))


def set_widths(ws: Worksheet, widths: dict[int, float]) -> None:
    for col, width in widths.items():
        ws.column_dimensions[get_column_letter(col)].width = width


def fit_widths(ws: Worksheet, columns: dict[int, list[Any]], minimum: float = 8, maximum: float = 40) -> None:
    """Widths from the longest text shown in each column (numbers count as 10 characters)."""
    for col, values in columns.items():
        longest = max((len(str(v)) if isinstance(v, str) else 10 for v in values), default=8)
        ws.column_dimensions[get_column_letter(col)].width = max(minimum, min(maximum, longest + 2))


def landscape(ws: Worksheet) -> None:
    """Print (and PDF) one page wide, so the report reads on paper too."""
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
