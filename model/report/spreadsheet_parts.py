"""The records of a spreadsheet's parts counted as they stream, before openpyxl loads any of them.

openpyxl reads the shared strings and the styles whole when it opens a file, even read-only: a
409 KB report with 7.4 million shared strings took 259 s and 755 MB, one with 1.9 million cell
formats 121 s and 1.64 GB. Here every XML part that opening loads (all but the sheets, charts and
drawings, which are read row by row or not at all) is parsed with expat, a chunk at a time,
counting its records; past a limit the file is refused at once, having held one chunk. A part
with a DTD (an XML entity bomb) is refused too: no spreadsheet program writes one.
"""
from __future__ import annotations

import posixpath
import zipfile
from xml.parsers import expat

MAX_SHARED_STRINGS = 250_000  # as many as REPORT_ROWS: a different text in every row of the largest Inputs
MAX_STYLE_RECORDS = 64_000  # Excel's own limit on the cell formats of a workbook
MAX_PART_ELEMENTS = 4_000_000  # all the elements of the parts opening loads (rich-text strings have several each)
_CHUNK = 64 * 1024

# records whose count is bounded: local tag -> (limit, what they are)
_RECORDS = {
    "si": (MAX_SHARED_STRINGS, "shared strings"),
    "xf": (MAX_STYLE_RECORDS, "cell formats"),
    "font": (MAX_STYLE_RECORDS, "fonts"),
    "fill": (MAX_STYLE_RECORDS, "fills"),
    "border": (MAX_STYLE_RECORDS, "borders"),
    "numFmt": (MAX_STYLE_RECORDS, "number formats"),
    "dxf": (MAX_STYLE_RECORDS, "differential formats"),
    "cellStyle": (MAX_STYLE_RECORDS, "cell styles"),
}
# parts read lazily (a sheet: row by row, bounded by the row limit) or never by the import
_NOT_LOADED = ("worksheet+xml", "chartsheet+xml", "drawing+xml", "chart+xml", "vmlDrawing", "table+xml",
               "comments+xml", "pivotTable+xml", "pivotCacheRecords+xml")
_CONTENT_TYPES = "[Content_Types].xml"


class PartsRefused(ValueError):
    """A part holds more records than the limits; the message names the part and the limit."""


def _content_types(z: zipfile.ZipFile, budget: list[int]) -> tuple[dict[str, str], dict[str, str]]:
    """(extension -> type, part name -> type) from [Content_Types].xml, itself counted."""
    defaults: dict[str, str] = {}
    overrides: dict[str, str] = {}

    def start(tag: str, attrs: dict[str, str]) -> None:
        local = tag.rsplit("}", 1)[-1]
        if local == "Default" and "Extension" in attrs:
            defaults[attrs["Extension"].lower()] = attrs.get("ContentType", "")
        elif local == "Override" and "PartName" in attrs:
            overrides[attrs["PartName"].lstrip("/")] = attrs.get("ContentType", "")

    if _CONTENT_TYPES in z.namelist():
        _scan(z, _CONTENT_TYPES, budget, start)
    return defaults, overrides


def _sheet_titles(z: zipfile.ZipFile, budget: list[int]) -> dict[str, str]:
    """Part name -> sheet title, from the workbook and its relationships (each counted), for messages."""
    sheets: dict[str, str] = {}  # relationship id -> title
    targets: dict[str, str] = {}  # relationship id -> part

    def sheet(tag: str, attrs: dict[str, str]) -> None:
        if tag.rsplit("}", 1)[-1] == "sheet":
            rid = next((v for k, v in attrs.items() if k.rsplit("}", 1)[-1] == "id"), None)
            if rid and "name" in attrs:
                sheets[rid] = attrs["name"][:80]

    def rel(tag: str, attrs: dict[str, str]) -> None:
        if tag.rsplit("}", 1)[-1] == "Relationship" and "Id" in attrs and attrs.get("Target"):
            target = attrs["Target"]
            targets[attrs["Id"]] = (target.lstrip("/") if target.startswith("/")
                                    else posixpath.normpath(posixpath.join("xl", target)))

    names = set(z.namelist())
    for part, handler in (("xl/workbook.xml", sheet), ("xl/_rels/workbook.xml.rels", rel)):
        if part in names:
            _scan(z, part, budget, handler)
    return {targets[rid]: title for rid, title in sheets.items() if rid in targets}


def check_part_counts(z: zipfile.ZipFile, max_rows: int) -> None:
    """Raise PartsRefused naming the first part over a count limit; silent for a part that is not
    well-formed XML (openpyxl's parse names that damage). A sheet is counted as far as opening the
    file parses it, against `max_rows`."""
    budget = [MAX_PART_ELEMENTS]
    defaults, overrides = _content_types(z, budget)
    titles: dict[str, str] | None = None
    for info in z.infolist():
        name = info.filename
        if name == _CONTENT_TYPES or info.is_dir():
            continue
        kind = overrides.get(name) or defaults.get(posixpath.splitext(name)[1].lstrip(".").lower(), "")
        if "worksheet+xml" in kind:
            titles = titles if titles is not None else _sheet_titles(z, budget)
            where = f"sheet {titles[name]}" if name in titles else f"its part {name[:80]}"
            with z.open(name) as fh:
                check_sheet_counts(fh, where, max_rows, until_dimension=True)
            continue
        if not (kind.endswith("xml") or name.endswith((".xml", ".rels"))) or any(k in kind for k in _NOT_LOADED):
            continue
        counts = dict.fromkeys(_RECORDS, 0)

        def start(tag: str, attrs: dict[str, str], name: str = name, counts: dict[str, int] = counts) -> None:
            local = tag.rsplit("}", 1)[-1]
            if local in counts:
                counts[local] += 1
                limit, what = _RECORDS[local]
                if counts[local] > limit:
                    raise PartsRefused(f"its part {name[:80]} holds more than {limit:,} {what}, the most a "
                                       "spreadsheet read here may hold; nothing was read")

        _scan(z, name, budget, start)


def _scan(z: zipfile.ZipFile, name: str, budget: list[int], on_start) -> None:  # noqa: ANN001
    """Feed part `name` to expat a chunk at a time, calling on_start per element; the shared
    `budget` of elements runs down across parts."""
    parser = expat.ParserCreate(namespace_separator="}")

    def start(tag: str, attrs: dict[str, str]) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            raise PartsRefused(f"its parts hold more than {MAX_PART_ELEMENTS:,} XML elements in the parts read on "
                               f"opening it (at {name[:80]}), the most a spreadsheet read here may hold; nothing was read")
        on_start(tag, attrs)

    def doctype(*_args: object) -> None:
        raise PartsRefused(f"its part {name[:80]} declares a DTD, which no spreadsheet program writes (an XML "
                           "entity bomb); nothing was read")

    parser.StartElementHandler = start
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = doctype
    try:
        with z.open(name) as fh:
            while chunk := fh.read(_CHUNK):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
    except expat.ExpatError:
        return


MAX_SHEET_CELLS = 2_000_000  # cells a sheet stores, blank ones too: the largest Inputs has about 1 million
MAX_SHEET_ELEMENTS = 8_000_000  # everything in the sheet's XML (values, formulas, merged cells, validations)
MAX_ROW_CELLS = 16_384  # Excel's last column, XFD: openpyxl parses a row whole before its cells are looked at


class _Dimension(Exception):
    """The sheet states its size: opening it reads no further."""


def check_sheet_counts(source, where: str, max_rows: int,  # noqa: ANN001  (a binary file object)
                       until_dimension: bool = False) -> None:
    """Raise PartsRefused when the sheet XML in `source` stores more than `max_rows` rows (empty ones
    too), a row of more than MAX_ROW_CELLS cells, or more than MAX_SHEET_CELLS cells in all; one
    chunk is held at a time, and the count stops at the first limit passed.

    `until_dimension`: count only what opening the file parses. openpyxl reads each sheet on opening
    until its <dimension>; a sheet without one is parsed whole, so it is counted whole."""
    parser = expat.ParserCreate(namespace_separator="}")
    rows = cells = in_row = elements = 0

    def refuse(what: str) -> None:
        raise PartsRefused(f"{where}: stores more than {what}, the most read from this kind of file; "
                           "nothing was imported")

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal rows, cells, in_row, elements
        elements += 1
        if elements > MAX_SHEET_ELEMENTS:
            refuse(f"{MAX_SHEET_ELEMENTS:,} XML elements")
        local = tag.rsplit("}", 1)[-1]
        if local == "dimension" and until_dimension:
            raise _Dimension
        if local == "row":
            rows += 1
            in_row = 0
            if rows > max_rows:
                number = attrs.get("r", "")
                number = max(int(number) if number.isdigit() and len(number) < 10 else 0, rows)
                raise PartsRefused(f"{where}, row {number:,}: past row {max_rows:,}, the last one read from this "
                                   "kind of file (stored empty rows count too: a sheet formatted far down stores "
                                   "them); delete the rows past it; nothing was imported")
        elif local == "c":
            cells += 1
            in_row += 1
            if in_row > MAX_ROW_CELLS:
                refuse(f"{MAX_ROW_CELLS:,} cells in row {rows:,} (Excel's last column is XFD)")
            if cells > MAX_SHEET_CELLS:
                refuse(f"{MAX_SHEET_CELLS:,} cells, blank ones too")

    def doctype(*_args: object) -> None:
        raise PartsRefused(f"{where}: declares a DTD, which no spreadsheet program writes (an XML entity "
                           "bomb); nothing was imported")

    parser.StartElementHandler = start
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = doctype
    try:
        while chunk := source.read(_CHUNK):
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except (expat.ExpatError, _Dimension):
        return
