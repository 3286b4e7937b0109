"""Spreadsheet bombs within the stated size limits: count limits checked as the parts stream.

The issue's files: a 409 KB report with 7.4 million shared strings (imported in 259 s, 755 MB), one
with 1.9 million cell styles (121 s, 1.64 GB), 10 million empty rows (refused after 150 s). Each is
generated here (tests/spreadsheet_bombs.py) and must be refused in one line within the fuzz bounds
(tests/fuzz/bounds.py: 10 s, resident memory grown by at most 300 MB, watched while it runs).
"""
from __future__ import annotations

from pathlib import Path

import pytest

openpyxl = pytest.importorskip("openpyxl")

from model.report import sheet_reader  # noqa: E402
from model.report.export import export_report  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.report.price_list import read_price_list  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from model.workbook.validation import WorkbookError  # noqa: E402
from tests import spreadsheet_bombs as bombs  # noqa: E402
from tests.fuzz.bounds import bounded  # noqa: E402


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bombs") / "report.xlsx"
    export_report(load_demo(), path)
    return path


def _list(path: Path, rows: list[list[object]], error_at: tuple[int, int, str] | None = None) -> Path:
    """A price list as Excel writes it (shared strings; an error cell saved as t="e" with its code)."""
    import xlsxwriter

    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Prices")
    for r, row in enumerate(rows):
        sheet.write_row(r, 0, row)
    if error_at is not None:
        sheet.write_formula(error_at[0], error_at[1], "=1/0", None, error_at[2])
    book.close()
    return path


@pytest.fixture(scope="module")
def price_list(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _list(tmp_path_factory.mktemp("bombs") / "list.xlsx",
                 [["Tier", "Price out /1M", "Notes"], ["A", 1.5, "from the vendor"]])


def _refused(read, words: str) -> str:
    with bounded():
        with pytest.raises(WorkbookError) as info:
            read()
    text = str(info.value)
    assert "\n" not in text and words in text, text
    return text


def test_millions_of_shared_strings_are_refused_as_they_stream(report: Path, price_list: Path, tmp_path: Path) -> None:
    bomb = bombs.shared_strings(report, tmp_path / "strings.xlsx", 7_400_000)
    assert bomb.stat().st_size < 600_000
    text = _refused(lambda: import_report(bomb), f"more than {sheet_reader.MAX_SHARED_STRINGS:,} shared strings")
    assert "xl/sharedStrings.xml" in text and "nothing was read" in text
    bomb = bombs.shared_strings(price_list, tmp_path / "list_strings.xlsx", 7_400_000)
    _refused(lambda: read_price_list(bomb, "tiers"), "shared strings")


def test_millions_of_cell_styles_are_refused_as_they_stream(report: Path, price_list: Path, tmp_path: Path) -> None:
    bomb = bombs.cell_styles(report, tmp_path / "styles.xlsx", 1_900_000)
    _refused(lambda: import_report(bomb), f"more than {sheet_reader.MAX_STYLE_RECORDS:,} cell formats")
    bomb = bombs.cell_styles(price_list, tmp_path / "list_styles.xlsx", 1_900_000)
    _refused(lambda: read_price_list(bomb, "tiers"), "cell formats")


def test_ten_million_empty_rows_are_refused_at_the_row_limit(report: Path, price_list: Path, tmp_path: Path) -> None:
    bomb = bombs.empty_rows(report, tmp_path / "rows.xlsx", 10_000_000, sheet="Inputs")
    _refused(lambda: import_report(bomb), f"past row {sheet_reader.REPORT_ROWS:,}, the last one read")
    bomb = bombs.empty_rows(price_list, tmp_path / "list_rows.xlsx", 10_000_000)
    _refused(lambda: read_price_list(bomb, "tiers"), f"past row {sheet_reader.PRICE_LIST_ROWS + 1:,}")


def test_a_report_under_the_limits_still_imports(report: Path, tmp_path: Path) -> None:
    many = bombs.shared_strings(report, tmp_path / "some.xlsx", 1_000)
    with bounded():
        wb = import_report(many)
    assert [t.name for t in wb.tiers] == [t.name for t in load_demo().tiers]


def test_an_error_cell_is_not_a_tier_name(tmp_path: Path) -> None:
    path = _list(tmp_path / "errors.xlsx", [["Tier", "Price out /1M"], ["A", 1.5], ["", 2.0]], (2, 0, "#DIV/0!"))
    text = _refused(lambda: read_price_list(path, "tiers"), "sheet Prices, cell A3")
    assert "the spreadsheet error #DIV/0!" in text
    path = _list(tmp_path / "price.xlsx", [["Tier", "Price out /1M"], ["A", 1.5], ["B", ""]], (2, 1, "#N/A"))
    assert "the spreadsheet error #N/A" in _refused(lambda: read_price_list(path, "tiers"), "cell B3")
    csv = tmp_path / "errors.csv"
    csv.write_text("Tier,Price out /1M\nA,1.5\n#N/A,2\n")
    assert "the spreadsheet error #N/A" in _refused(lambda: read_price_list(csv, "tiers"), "cell A3")
