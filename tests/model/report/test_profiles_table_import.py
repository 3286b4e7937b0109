"""The profiles table on import: a 56-64-position profile comes back whole; a cell that would drop a rate, a
profile or a row silently is refused naming it."""
from __future__ import annotations

import pytest

openpyxl = pytest.importorskip("openpyxl")

from model.report.export import export_report  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.report.layout import INPUTS  # noqa: E402
from model.workbook.validation import WorkbookError  # noqa: E402
from tests.excel_cases import profiled, summarised  # noqa: E402


@pytest.mark.parametrize("positions", [55, 56, 60, 64])
def test_a_long_profile_comes_back_whole(tmp_path, positions):
    wb = profiled()
    wb.classes[0].profile = tuple(round(0.95 - 0.01 * (i % 40), 2) for i in range(positions))
    wb.classes[0].acceptance_length_low = wb.classes[0].acceptance_length_high = None
    summarised(wb.classes[0])
    export_report(wb, tmp_path / "r.xlsx")
    back = import_report(tmp_path / "r.xlsx")
    assert back.classes[0].profile == wb.classes[0].profile


def _edit_profiles(tmp_path, edit) -> str:
    """The exported report with its profiles table edited by ``edit(ws, rows)`` (rows: the table's data rows);
    the names' saved values kept, as openpyxl saves formulas without them."""
    export_report(profiled(), tmp_path / "r.xlsx")
    book = openpyxl.load_workbook(tmp_path / "r.xlsx")
    saved = openpyxl.load_workbook(tmp_path / "r.xlsx", data_only=True)[INPUTS]
    ws = book[INPUTS]
    header = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 5).value == "Positions measured")
    rows = [r for r in range(header + 1, ws.max_row + 1) if saved.cell(r, 1).value]
    for r in rows:
        for c in (1, 2):
            ws.cell(r, c).value = saved.cell(r, c).value
    edit(ws, rows)
    book.save(tmp_path / "edited.xlsx")
    return str(tmp_path / "edited.xlsx")


def _profile_row(ws, rows):
    return next(r for r in rows if ws.cell(r, 5).value and not ws.cell(r, 2).value)


# what is typed on a profile's row (column: value), and the words naming the cells ({r}: the row)
_ROW_EDITS = {
    "positions measured 2.5": ({5: 2.5}, "cell E{r}: Positions measured must be a whole number"),
    "a length on a profile's row": ({3: 2.5, 4: 3}, "cells C{r} and E{r} give a mean acceptance length and"),
}


@pytest.mark.parametrize("case", sorted(_ROW_EDITS))
def test_a_profile_row_that_would_drop_something_is_refused(tmp_path, case):
    cells, words = _ROW_EDITS[case]

    def edit(ws, rows):
        edit.row = _profile_row(ws, rows)
        for col, value in cells.items():
            ws.cell(edit.row, col).value = value
    path = _edit_profiles(tmp_path, edit)
    with pytest.raises(WorkbookError, match=words.format(r=edit.row)):
        import_report(path)


def test_a_duplicated_row_is_refused_not_the_later_kept(tmp_path):
    def edit(ws, rows):
        first = _profile_row(ws, rows)
        last = max(rows) + 1
        for c in range(1, ws.max_column + 1):
            ws.cell(last, c).value = ws.cell(first, c).value
        ws.cell(last, 10).value = 0.5  # a different first rate: which one would win was not said
        edit.rows = first, last
    path = _edit_profiles(tmp_path, edit)
    with pytest.raises(WorkbookError, match=rf"row {edit.rows[0]} gives this task class's profile or length already"):
        import_report(path)
