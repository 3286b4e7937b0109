"""Spreadsheet files read within bounds: the stored cells of one sheet, never the region it claims.

A sheet's <dimension> can claim A1:XFD1048576 for one stray cell, and openpyxl fills every missing
row up to a stored one; both turn a 10 KB file into minutes and gigabytes. Here only the rows the
file stores are read, only the first `max_cols` columns are kept, a stored non-blank row past
`max_rows` is refused (naming it), and the zip's unpacked parts are bounded before any is parsed.

Records compress to almost nothing: 400 KB can hold millions of shared strings, cell formats or
empty rows, and openpyxl loads the first two whole before a cell is read. So the parts it loads
are counted as they stream (spreadsheet_parts.py) and the rows a sheet stores, empty ones too,
are counted as they are read; past a limit the file is refused, within seconds.
"""
from __future__ import annotations

import csv
import io
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from model.common.safe_files import (LIMIT_PRICE_LIST_CSV, LIMIT_SPREADSHEET, XLSX_PART_LIMIT, XLSX_UNPACKED_LIMIT,
                              FileRefused, open_regular, read_bytes_limited, size_text)
from model.workbook.validation import WorkbookError

from model.report.spreadsheet_parts import (MAX_PART_ELEMENTS, MAX_ROW_CELLS, MAX_SHARED_STRINGS,  # noqa: F401
                                           MAX_SHEET_CELLS, MAX_STYLE_RECORDS, PartsRefused, check_part_counts,
                                           check_sheet_counts)

# Excel's own limit for the text of one cell; anything longer did not come from a spreadsheet program
MAX_CELL_CHARS = 32_767
PRICE_LIST_ROWS = 100_000  # a vendor's price list has tens of rows; a typo'd export has millions
REPORT_ROWS = 250_000  # the Inputs sheet of the largest workbook the app handles (2,000 x 100 overrides)
MAX_COLUMNS = 64


@dataclass(frozen=True)
class CellError:
    """A cell holding a spreadsheet error (#DIV/0!, #N/A, #REF!): not a value, and never a name."""

    code: str

    def __str__(self) -> str:
        return self.code


# what Excel writes for an error, also in a CSV it saves
ERROR_CODES = frozenset({"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA",
                         "#SPILL!", "#CALC!", "#FIELD!", "#BLOCKED!", "#CONNECT!", "#BUSY!", "#UNKNOWN!"})


@dataclass
class Grid:
    """The stored cells of one sheet, 1-based like a spreadsheet; missing cells read as None."""

    title: str
    rows: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    max_row: int = 0
    formats: dict[int, tuple[str, ...]] = field(default_factory=dict)  # number formats, when asked for

    def cell(self, row: int, col: int) -> Any:
        values = self.rows.get(row)
        return values[col - 1] if values is not None and 0 < col <= len(values) else None

    def numbered_rows(self) -> list[tuple[int, tuple[Any, ...]]]:
        return sorted(self.rows.items())


def _refuse(path: Path, reason: str) -> WorkbookError:
    return WorkbookError([reason], str(path))


def _check_zip(fh: Any, path: Path, max_rows: int) -> None:
    """Refuse a zip whose parts unpack past the limits, before openpyxl inflates any of them.

    The sizes checked are the ones the zip declares; Python's zip reader stops at the declared
    size and fails the CRC, so a part cannot unpack to more than it says.
    """
    try:
        with zipfile.ZipFile(fh) as z:
            infos = z.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, OSError) as exc:
        raise _refuse(path, f"is not an Excel .xlsx file (not a readable zip: {str(exc)[:80] or exc.__class__.__name__})") from None
    total = 0
    for info in infos:
        total += info.file_size
        if info.file_size > XLSX_PART_LIMIT:
            raise _refuse(path, f"its part {info.filename[:80]} unpacks to {size_text(info.file_size)}, over the "
                                f"{size_text(XLSX_PART_LIMIT)} limit for one part of a spreadsheet; nothing was read")
    if total > XLSX_UNPACKED_LIMIT:
        raise _refuse(path, f"unpacks to {size_text(total)}, over the {size_text(XLSX_UNPACKED_LIMIT)} limit for a "
                            "spreadsheet; nothing was read")
    fh.seek(0)
    try:
        with zipfile.ZipFile(fh) as z:
            check_part_counts(z, max_rows)
    except PartsRefused as exc:
        raise _refuse(path, str(exc)) from None
    except Exception:  # noqa: BLE001 - a damaged part (bad CRC, zlib, zip): openpyxl's parse that follows names it
        pass
    fh.seek(0)
    missing = _missing_part(fh, {i.filename for i in infos})
    if missing:
        raise _refuse(path, f"is a damaged Excel file: its workbook names the part {missing[:80]}, which the file "
                            "does not hold")
    fh.seek(0)


_RELS = "xl/_rels/workbook.xml.rels"


def _missing_part(fh: Any, names: set[str]) -> str | None:
    """The first part the workbook's relationships name that the zip lacks (a styles part cut out,
    a sheet lost); openpyxl's read-only mode would go on without it and read something else."""
    if _RELS not in names:
        return None
    import posixpath
    from xml.etree import ElementTree

    try:
        with zipfile.ZipFile(fh) as z:
            root = ElementTree.fromstring(z.read(_RELS))
    except Exception:  # noqa: BLE001 - a damaged zip or XML: openpyxl's parse that follows names the damage
        return None
    for rel in root:
        target = rel.get("Target") or ""
        if rel.get("TargetMode") == "External" or not target:
            continue
        part = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join("xl", target))
        if part not in names:
            return part
    return None


def read_xlsx(path: str | os.PathLike[str], *, sheet: str | None, max_rows: int, max_cols: int = MAX_COLUMNS,
              data_only: bool = True, formats: bool = False) -> tuple[Grid, list[str]]:
    """One sheet (`sheet` by name, or the first) as a Grid, and the names of all sheets; with
    `formats`, each stored cell's number format too ("$#,##0.00": a price's currency).

    Every failure is a WorkbookError naming the file: not a regular file, too large, not an xlsx,
    a corrupt part, a row past `max_rows`, a cell longer than Excel allows.
    """
    p = Path(path)
    try:
        fh = open_regular(p, "spreadsheet", limit_bytes=LIMIT_SPREADSHEET)
    except FileRefused as exc:
        raise _refuse(p, exc.reason.replace("not a spreadsheet", "not an Excel file")) from None
    with fh:
        _check_zip(fh, p, max_rows)
        book = None
        try:
            # data_only: a cell an analyst turned into a formula is read as the value the
            # spreadsheet last computed for it
            book = _load_book(fh, data_only)
            names = list(book.sheetnames)
            if sheet is not None and sheet not in names:
                return Grid(sheet), names
            ws = book[sheet] if sheet is not None else book.worksheets[0]
            source = getattr(ws, "_get_source", None)
            if source is not None:  # count before openpyxl parses: it keeps every row it parsed
                try:
                    with source() as src:
                        check_sheet_counts(src, f"sheet {ws.title}", max_rows)
                except PartsRefused as exc:
                    raise _refuse(p, str(exc)) from None
            grid = Grid(ws.title)
            stored = 0
            for number, values, number_formats in _stored_rows(ws, max_cols, formats):
                stored += 1
                if stored > max_rows:  # 10 million empty <row/>s parse for minutes before any is past it
                    raise _refuse(p, f"sheet {ws.title}: stores more than {max_rows:,} rows, the most read from "
                                     "this kind of file (empty rows count: a sheet formatted far down stores "
                                     "them); delete the rows past the last one used; nothing was imported")
                if not any(v is not None and v != "" for v in values):
                    continue
                if number > max_rows:
                    raise _refuse(p, f"sheet {ws.title}, row {number:,}: past row {max_rows:,}, the last one read "
                                     "from this kind of file; delete the rows past it (or a stray cell there); "
                                     "nothing was imported")
                for col, v in enumerate(values, start=1):
                    if isinstance(v, str) and len(v) > MAX_CELL_CHARS:
                        raise _refuse(p, f"sheet {ws.title}, row {number:,}, column {col}: a text of {len(v):,} "
                                         f"characters, over the {MAX_CELL_CHARS:,} a spreadsheet cell can hold")
                grid.rows[number] = values
                grid.max_row = max(grid.max_row, number)
                if formats:
                    grid.formats[number] = number_formats
            return grid, names
        except WorkbookError:
            raise
        except Exception as exc:  # noqa: BLE001 - any parser failure on a hostile file is "not readable"
            # a bit-flipped zip, a missing or malformed part, bad XML: openpyxl and the XML parser
            # raise a dozen types for these; all mean the same to the user
            detail = str(exc).splitlines()[0][:100] if str(exc) else ""
            raise _refuse(p, f"is not a readable Excel .xlsx file ({exc.__class__.__name__}"
                             f"{': ' + detail if detail else ''})") from None
        finally:
            if book is not None:
                book.close()


_OOXML_ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")


def _load_book(fh: Any, data_only: bool) -> Any:
    """openpyxl's read-only workbook, its shared strings unescaped once, left to right (ooxml_text).

    openpyxl reads a shared string by deleting every 'x005F_' and leaves the other escapes in place, which
    makes a literal '_x0041_' (stored as _x005F_x0041_) and an escaped 'A' the same text; undoing the escapes
    afterwards then turned the literal into 'A'. Reading the stored text ourselves keeps the two apart."""
    from openpyxl.cell.text import Text
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.reader.strings import read_rich_text
    from openpyxl.xml.constants import SHARED_STRINGS, SHEET_MAIN_NS
    from openpyxl.xml.functions import iterparse

    class _Reader(ExcelReader):
        def read_strings(self) -> None:
            part = self.package.find(SHARED_STRINGS)
            if part is None:
                return
            with self.archive.open(part.PartName[1:]) as src:
                if self.rich_text:
                    self.shared_strings = read_rich_text(src)
                    return
                tag, strings = f"{{{SHEET_MAIN_NS}}}si", []
                for _, node in iterparse(src):
                    if node.tag == tag:
                        strings.append(ooxml_text(Text.from_tree(node).content))
                        node.clear()
                self.shared_strings = strings

    reader = _Reader(fh, read_only=True, data_only=data_only)
    reader.read()
    return reader.wb


def ooxml_text(value: Any) -> Any:
    """A stored text with the file format's escapes undone: a spreadsheet writes a carriage return (and other
    characters XML cannot hold) as _x000D_, and a literal '_x' as _x005F_x; other values unchanged."""
    if isinstance(value, str) and "_x" in value:
        return _OOXML_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), value)
    return value


def _stored_rows(ws: Any, max_cols: int,
                 formats: bool = False) -> Iterator[tuple[int, tuple[Any, ...], tuple[str, ...]]]:
    """(row number, first max_cols values, their number formats if asked) of the rows the sheet
    stores, gaps not filled in."""
    try:
        from openpyxl.cell.read_only import ReadOnlyCell
        from openpyxl.worksheet._reader import WorkSheetParser
        source = ws._get_source
    except (ImportError, AttributeError):  # another openpyxl: the public API, bounded by the row limit
        for number, row in enumerate(ws.iter_rows(max_col=max_cols, max_row=REPORT_ROWS + 1), 1):
            yield (number, tuple(CellError(str(c.value)) if getattr(c, "data_type", "") == "e" and c.value is not None
                                 else getattr(c, "value", None) for c in row),
                   tuple(str(getattr(c, "number_format", "") or "") for c in row) if formats else ())
        return
    book = ws.parent
    with source() as src:
        parser = WorkSheetParser(src, ws._shared_strings, data_only=book.data_only, epoch=book.epoch,
                                 date_formats=book._date_formats, timedelta_formats=book._timedelta_formats)
        for number, cells in parser.parse():
            values: list[Any] = [None] * max_cols
            shapes: list[str] = [""] * max_cols if formats else []
            for c in cells:
                col = c["column"]
                if 1 <= col <= max_cols:
                    # an error cell's value is its code ("#DIV/0!"), which would read as text
                    values[col - 1] = (CellError(str(c["value"])) if c.get("data_type") == "e" and c["value"] is not None
                                       else c["value"])
                    if formats:
                        shapes[col - 1] = str(ReadOnlyCell(ws, **c).number_format or "")
            while values and values[-1] is None:
                values.pop()
            yield number, tuple(values), tuple(shapes[:len(values)])


# --- CSV -----------------------------------------------------------------------------------

@dataclass
class CsvTable:
    rows: list[tuple[int, list[str]]]  # (line number where the row starts, fields)
    delimiter: str


def read_csv(path: str | os.PathLike[str], *, max_rows: int) -> CsvTable:
    """A CSV price list: fields as text, with quoted newlines kept inside their field.

    The delimiter is sniffed among , ; and tab. Refused: not a regular file, over the size limit,
    not UTF-8, a malformed row (named by line), more than `max_rows` data rows.
    """
    p = Path(path)
    try:
        data = read_bytes_limited(p, limit_bytes=LIMIT_PRICE_LIST_CSV, what="price list")
    except FileRefused as exc:
        raise _refuse(p, exc.reason) from None
    try:
        text = data.decode("utf-8-sig")  # Excel writes a BOM in "CSV UTF-8"
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise _refuse(p, f"line {line}: not UTF-8 text; save the list as \"CSV UTF-8\"") from None
    try:
        dialect: Any = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    # newline="" keeps a newline inside a quoted field as part of the field (the validator then
    # refuses it where a field is one line, and keeps it in notes)
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    rows: list[tuple[int, list[str]]] = []
    start = 1
    data_rows = 0
    try:
        for fields in reader:
            if any(f.strip() for f in fields):
                data_rows += 1
                if data_rows > max_rows + 1:  # + the header row
                    raise _refuse(p, f"line {start:,}: more than {max_rows:,} rows, the limit for a price list; "
                                     "nothing was imported")
                rows.append((start, fields))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise _refuse(p, f"line {reader.line_num}: not a readable CSV row ({exc})") from None
    return CsvTable(rows, dialect.delimiter)
