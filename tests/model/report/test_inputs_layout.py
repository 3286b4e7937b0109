"""The Inputs sheet read on screen: no text cut by its neighbour, no header broken inside a word, no empty
table's machinery (its printed pages are held by test_excel_pages)."""
from __future__ import annotations

import io
import re

import pytest

openpyxl = pytest.importorskip("openpyxl")

from model.report.export import build_report  # noqa: E402
from model.report.layout import INPUTS, PROFILES_HEADING, TABLES  # noqa: E402
from model.report.styles import DEFAULT_WIDTH, wrapped_lines  # noqa: E402
from tests.excel_cases import demo, profiled  # noqa: E402

LONG = ("measured by the probe on 2026-11-30 against the vendor's staging endpoint, 64 requests of the "
        "customer-support prompt set; the vendor says their draft was retrained since")


def _inputs(wb):  # noqa: ANN001, ANN202
    return openpyxl.load_workbook(io.BytesIO(build_report(wb)[0]))[INPUTS]


def _widths(ws) -> dict[int, float]:  # noqa: ANN001
    """Column widths by column number (a <col> element may span several columns)."""
    out: dict[int, float] = {}
    for dim in ws.column_dimensions.values():
        if dim.width and dim.min:
            out.update({c: dim.width for c in range(dim.min, dim.max + 1)})
    return out


def test_long_source_notes_and_methods_wrap_in_rows_tall_enough():
    """A class's and an override's source note (and an interval's method) ran into the next cell and were cut
    there, on screen and on paper: they wrap inside their column and the row grows to hold their lines."""
    wb = demo()
    wb.classes[0].source_note = LONG
    wb.classes[1].alpha_method = "cluster-robust log-odds on the fill (E - 1) / K, t(G-1), requests as clusters"
    wb.overrides[0].source_note = LONG + "\nsecond paragraph on its own line"
    ws = _inputs(wb)
    widths = _widths(ws)
    seen = 0
    for row in ws.iter_rows():
        for cell in row:
            if cell.value in (LONG, wb.classes[1].alpha_method, wb.overrides[0].source_note):
                seen += 1
                width = widths.get(cell.column, DEFAULT_WIDTH)
                lines = wrapped_lines(cell.value, width - 2)
                assert lines > 1 and cell.alignment.wrap_text, (cell.coordinate, width)
                assert (ws.row_dimensions[cell.row].height or 15) >= 15 * lines, (cell.coordinate, lines)
    assert seen == 3


def test_every_header_on_inputs_breaks_between_words():
    """'Rates at export (checksum)' sat in an 8-wide column and printed as '(checksu / m)': every word of every
    header (a hyphen may end a line) is at most as long as its column is wide, and its row holds its lines."""
    ws = _inputs(profiled())
    widths = _widths(ws)
    headers = {PROFILES_HEADING: None, **{heading: None for heading, _ in TABLES}}
    header_rows = [c.row + 1 for row in ws.iter_rows(max_col=1) for c in row if c.value in headers]
    assert len(header_rows) == 4
    checked = 0
    for r in header_rows:
        for cell in ws[r]:
            if not isinstance(cell.value, str) or not cell.value:
                continue
            checked += 1
            width = widths.get(cell.column, DEFAULT_WIDTH)
            long = [w for w in re.split(r"\s+|(?<=-)", cell.value) if len(w) > width]
            assert not long, (cell.coordinate, cell.value, width)
            assert (ws.row_dimensions[r].height or 15) >= 15 * wrapped_lines(cell.value, width), cell.value
    assert checked > 40


def test_an_empty_profiles_table_writes_no_headers():
    """With no profile or length anywhere the table's header row (some 25 helper columns past the tables above)
    printed a page of headers over nothing: only its heading and one line saying there is none remain."""
    ws = _inputs(demo())
    assert ws.max_column <= max(len(specs) for _, specs in TABLES)
    heading = next(c.row for row in ws.iter_rows(max_col=1) for c in row if c.value == PROFILES_HEADING)
    below = [ws.cell(r, c).value for r in range(heading + 1, ws.max_row + 1) for c in range(1, ws.max_column + 1)]
    said = [v for v in below if v not in (None, "")]
    assert len(said) == 1 and said[0].startswith("None:"), said


def test_the_profiles_tables_export_columns_print_as_numbers_read():
    """The checksum of a profile's rates printed with nine decimals ('28.826719819'): four, like the rates'
    neighbours; the value itself keeps its digits (the 'changed' test rounds to nine)."""
    ws = _inputs(profiled())
    head = next(c for row in ws.iter_rows() for c in row if c.value == "Rates at export (checksum)")
    below = [ws.cell(r, head.column) for r in range(head.row + 1, ws.max_row + 1)
             if isinstance(ws.cell(r, head.column).value, float)]
    assert below and all(c.number_format == "0.0000" for c in below)
    assert any(round(c.value, 4) != c.value for c in below)


def test_comparison_names_are_not_cut():
    """'summarisation #3' printed as 'summarisation #' in the Comparison's 13-wide class column (12 x 30 report,
    LibreOffice PDF page 10): the Tier and Task class columns are as wide as their longest name needs."""
    from model.report.layout import COMPARISON
    from tests.bench.workbooks import large_workbook
    wb = large_workbook(12, 30)
    ws = openpyxl.load_workbook(io.BytesIO(build_report(wb)[0]))[COMPARISON]
    widths = _widths(ws)
    for col, names in ((1, [t.name for t in wb.tiers]), (2, [c.name for c in wb.classes])):
        longest = max(names, key=len)
        assert len(longest) <= 1.1 * (widths[col] - 1), (longest, widths[col])
