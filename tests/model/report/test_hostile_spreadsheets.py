"""Odd and hostile spreadsheets and CSV files: read within bounds or refused in one line naming the
file and the place; never a hang, a scan of a million empty rows, or a number read wrong."""
from __future__ import annotations

import os
import shutil
import threading
import zipfile
from pathlib import Path

import pytest

from model.report import sheet_reader
from model.report.export import export_report
from model.report.importer import import_report
from model.report.price_list import read_price_list
from model.workbook.json_file import load_demo
from model.workbook.validation import WorkbookError

openpyxl = pytest.importorskip("openpyxl")


def _xlsx(path: Path, rows: list[list[object]], extra: dict[str, object] | None = None) -> Path:
    book = openpyxl.Workbook()
    ws = book.active
    for r in rows:
        ws.append(r)
    for cell, value in (extra or {}).items():
        ws[cell] = value
    book.save(path)
    return path


def import_rows(path: Path, kind: str, **kwargs: object) -> list:
    return read_price_list(path, kind, **kwargs).new_rows()


def _count_stored_rows(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    seen: list[int] = []
    real = sheet_reader._stored_rows

    def counting(ws, max_cols, formats=False):
        for item in real(ws, max_cols, formats):
            seen.append(item[0])
            yield item

    monkeypatch.setattr(sheet_reader, "_stored_rows", counting)
    return seen


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and "Traceback" not in text
    return text


# --- bounded regions ------------------------------------------------------------------------

def test_a_stray_cell_at_xfd1048576_is_not_a_million_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = _xlsx(tmp_path / "list.xlsx", [["Tier", "Price out /1M"], ["A", 1.5]], {"XFD1048576": "stray"})
    seen = _count_stored_rows(monkeypatch)
    rows = import_rows(f, "tiers")
    assert [(t.name, t.price_out) for t in rows] == [("A", 1.5)]
    # only the three stored rows were visited (openpyxl's own iteration fills in 1,048,573 empty ones)
    assert seen == [1, 2, 1048576]


def test_a_stray_cell_at_a1048576_is_refused_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = _xlsx(tmp_path / "list.xlsx", [["Tier", "Price out /1M"], ["A", 1.5]], {"A1048576": "stray"})
    seen = _count_stored_rows(monkeypatch)
    with pytest.raises(WorkbookError) as info:
        import_rows(f, "tiers")
    assert "sheet Sheet, row 1,048,576: past row 100,001, the last one read" in _one_line(info.value)
    assert len(seen) == 3


def test_a_report_with_a_stray_cell_far_out_still_imports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = tmp_path / "r.xlsx"
    export_report(load_demo(), report)
    book = openpyxl.load_workbook(report)
    book["Inputs"]["XFD1048576"] = "stray"
    book.save(report)
    seen = _count_stored_rows(monkeypatch)
    wb = import_report(report)
    assert [t.name for t in wb.tiers] == [t.name for t in load_demo().tiers]
    assert len(seen) < 200


def test_a_price_list_past_the_row_limit_stops_with_a_message(tmp_path: Path) -> None:
    f = _xlsx(tmp_path / "junk.xlsx", [["Tier", "K"]] + [[f"junk {i}", 4] for i in range(60)])
    with pytest.raises(WorkbookError, match=r"sheet Sheet, row 52: past row 51, the last one read"):
        import_rows(f, "tiers", max_rows=50)
    assert len(import_rows(f, "tiers", max_rows=60)) == 60


def test_a_csv_of_millions_of_rows_stops_at_the_limit(tmp_path: Path) -> None:
    f = tmp_path / "big.csv"
    with f.open("w") as fh:  # 3M rows, 15 MB: the issue's file
        fh.write("Tier,K\n")
        fh.writelines(f"t{i},4\n" for i in range(3_000_000))
    with pytest.raises(WorkbookError) as info:
        import_rows(f, "tiers")
    assert "line 100,002: more than 100,000 rows, the limit for a price list" in _one_line(info.value)


def test_a_huge_string_inside_a_small_zip_is_refused_before_it_is_unpacked(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # the issue's file: 444 KB on disk, one 400 MB string inside. Scaled down with the limit: the
    # same check, on sizes the test machine can afford
    monkeypatch.setattr(sheet_reader, "XLSX_PART_LIMIT", 1024 * 1024)
    src = _xlsx(tmp_path / "src.xlsx", [["Tier", "Notes"], ["A", "short"]])
    bomb = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"short", b"x" * (2 * 1024 * 1024))
            zout.writestr(item, data)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(WorkbookError, match=r"its part xl/worksheets/sheet1.xml unpacks to 2.0 MB, over the 1 MB "
                                            r"limit for one part of a spreadsheet; nothing was read"):
        import_rows(bomb, "tiers")


def test_a_cell_longer_than_excel_allows_is_refused(tmp_path: Path) -> None:
    # openpyxl cuts a long text when it writes; other programs do not
    src = _xlsx(tmp_path / "src.xlsx", [["Tier", "Notes"], ["A", "short"]])
    f = _rewrite(src, tmp_path / "long.xlsx", lambda name, data: data.replace(b"short", b"y" * 40_000))
    with pytest.raises(WorkbookError, match=r"row 2, column 2: a text of 40,000 characters, over the 32,767"):
        import_rows(f, "tiers")


# --- corrupt files ----------------------------------------------------------------------------

def _rewrite(src: Path, dst: Path, change) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = change(item.filename, zin.read(item))
            if data is not None:
                zout.writestr(item, data)
    return dst


@pytest.mark.parametrize("damage", ["bitflip", "truncated", "no_styles", "bad_xml", "no_sheet", "not_zip", "empty"])
def test_a_corrupt_xlsx_is_one_line_naming_the_file(tmp_path: Path, damage: str) -> None:
    src = _xlsx(tmp_path / "src.xlsx", [["Tier", "K"], ["A", 4]])
    bad = tmp_path / "bad.xlsx"
    if damage == "bitflip":
        data = bytearray(src.read_bytes())
        for i in range(200, len(data) - 200, 97):
            data[i] ^= 0x55
        bad.write_bytes(bytes(data))
    elif damage == "truncated":
        bad.write_bytes(src.read_bytes()[: src.stat().st_size // 2])
    elif damage == "no_styles":
        _rewrite(src, bad, lambda name, data: None if name == "xl/styles.xml" else data)
    elif damage == "bad_xml":
        _rewrite(src, bad, lambda name, data: data[:-40] if name == "xl/worksheets/sheet1.xml" else data)
    elif damage == "no_sheet":
        _rewrite(src, bad, lambda name, data: None if name == "xl/worksheets/sheet1.xml" else data)
    elif damage == "not_zip":
        bad.write_text("Tier,K\nA,4\n")
    else:
        bad.write_bytes(b"")
    for read in (lambda: import_rows(bad, "tiers"), lambda: import_report(bad)):
        with pytest.raises(WorkbookError) as info:
            read()
        assert _one_line(info.value).startswith(f"{bad}: ")
    if damage == "no_styles":
        assert "names the part xl/styles.xml, which the file does not hold" in str(info.value)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("name", ["list.csv", "list.xlsx", "report.xlsx"])
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, name: str) -> None:
    fifo = tmp_path / name
    os.mkfifo(fifo)
    out: dict[str, BaseException] = {}

    def run() -> None:
        try:
            (import_report if name == "report.xlsx" else lambda p: import_rows(p, "tiers"))(fifo)
        except BaseException as exc:  # noqa: BLE001
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "the import blocked on a FIFO"
    assert isinstance(out.get("error"), WorkbookError)
    assert "is a FIFO (named pipe)" in _one_line(out["error"])


# --- CSV ------------------------------------------------------------------------------------

def test_the_issues_eu_price_list_reads_decimal_commas(tmp_path: Path) -> None:
    f = tmp_path / "eu.csv"
    f.write_text("Tier;Price out /1M;c (draft/target)\nA;12,50;0,1\n")
    [tier] = import_rows(f, "tiers")
    assert (tier.price_out, tier.c) == (12.5, 0.1)


def test_a_comma_separated_list_with_decimal_commas_is_refused_not_multiplied(tmp_path: Path) -> None:
    f = tmp_path / "us.csv"
    f.write_text('Tier,Price out /1M,K\nA,"2,50",4\nB,"1,500",4\n')
    with pytest.raises(WorkbookError, match=r"cell B2: 'A', Price out /1M: must be a number .*'2,50' has a decimal comma"):
        import_rows(f, "tiers")
    f.write_text('Tier,Price out /1M,K\nB,"1,500",4\n')
    assert import_rows(f, "tiers")[0].price_out == 1500.0
    with pytest.raises(WorkbookError, match="ambiguous"):
        import_rows(f, "tiers", decimal=",")


def test_ambiguous_thousands_in_a_semicolon_list_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "eu.csv"
    f.write_text("Tier;Price out /1M\nA;1.500\n")
    with pytest.raises(WorkbookError, match=r"'1.500' is ambiguous"):
        import_rows(f, "tiers")


def test_a_quoted_newline_is_kept_in_notes_and_refused_in_a_name(tmp_path: Path) -> None:
    f = tmp_path / "notes.csv"
    f.write_text('Tier,K,Notes\nA,4,"first line\nsecond line"\nB,5,plain\n')
    rows = import_rows(f, "tiers")
    assert [(t.name, t.k, t.notes) for t in rows] == [("A", 4, "first line\nsecond line"), ("B", 5, "plain")]
    f.write_text('Tier,K\n"two\nlines",4\n')
    with pytest.raises(WorkbookError) as info:
        import_rows(f, "tiers")
    assert "cell A2: 'two\\nlines', Tier: contains a control character (U+000A, line break)" in _one_line(info.value)


def test_a_field_past_the_csv_limit_is_one_line_naming_the_line(tmp_path: Path) -> None:
    f = tmp_path / "wide.csv"
    f.write_text("Tier,Notes\nA,ok\nB," + "z" * 200_000 + "\n")
    with pytest.raises(WorkbookError) as info:
        import_rows(f, "tiers")
    assert "line 3: not a readable CSV row (field larger than field limit" in _one_line(info.value)


def test_a_csv_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    f = tmp_path / "latin1.csv"
    f.write_bytes("Tier,Vendor\nA,Soci\u00e9t\u00e9\n".encode("latin-1"))
    with pytest.raises(WorkbookError, match=r"line 2: not UTF-8 text"):
        import_rows(f, "tiers")


def test_the_workbook_file_limit_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from model.workbook import json_file
    monkeypatch.setattr(json_file, "LIMIT_WORKBOOK_JSON", 100)
    f = tmp_path / "wb.json"
    shutil.copy(json_file.DEMO_WORKBOOK, f)
    with pytest.raises(WorkbookError, match=r"wb.json: is [0-9,]+ bytes, over the 100 bytes limit for a workbook file"):
        json_file.load_workbook(f)
