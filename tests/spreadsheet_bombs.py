"""Spreadsheet bombs, generated where a test needs them (never committed): a real .xlsx with one part
swollen by millions of tiny records that compress to almost nothing.

Each is written part by part through the zip's streaming writer, so making one costs seconds and
little memory: millions of shared strings, millions of cell styles, millions of empty rows.
"""
from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Callable, Iterator

CHUNK = 50_000  # records per write


def _records(record: bytes, n: int) -> Iterator[bytes]:
    full, rest = divmod(n, CHUNK)
    block = record * CHUNK
    for _ in range(full):
        yield block
    yield record * rest


def _rewrite(src: Path, dst: Path, part: str, swell: Callable[[bytes], Iterator[bytes]]) -> Path:
    """`src` copied to `dst` with `part` replaced by the pieces `swell` makes of its bytes."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename != part:
                zout.writestr(item, data)
                continue
            info = zipfile.ZipInfo(item.filename, item.date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            with zout.open(info, "w", force_zip64=True) as out:
                for piece in swell(data):
                    out.write(piece)
    return dst


def _first_sheet_part(src: Path, title: str | None) -> str:
    """The zip part of the sheet called `title` (the first sheet when None)."""
    with zipfile.ZipFile(src) as z:
        book = z.read("xl/workbook.xml").decode()
        rels = z.read("xl/_rels/workbook.xml.rels").decode()
    sheets = re.findall(r'<sheet [^>]*name="([^"]*)"[^>]*r:id="([^"]*)"', book)
    rid = next(r for name, r in sheets if title is None or name == title)
    target = re.search(rf'<Relationship [^>]*Id="{rid}"[^>]*Target="([^"]*)"', rels) or \
        re.search(rf'<Relationship [^>]*Target="([^"]*)"[^>]*Id="{rid}"', rels)
    assert target is not None
    path = target.group(1)
    return path.lstrip("/") if path.startswith("/") else "xl/" + path


def shared_strings(src: Path, dst: Path, n: int) -> Path:
    """`n` more one-letter shared strings (the issue's report: 7.4 million in 409 KB)."""
    with zipfile.ZipFile(src) as z:
        assert "xl/sharedStrings.xml" in z.namelist(), "the source has no shared strings part"

    def swell(data: bytes) -> Iterator[bytes]:
        head, tail = data.rsplit(b"</sst>", 1)
        head = re.sub(rb' (count|uniqueCount)="\d+"', b"", head, count=2)
        yield head
        yield from _records(b"<si><t>x</t></si>", n)
        yield b"</sst>" + tail

    return _rewrite(src, dst, "xl/sharedStrings.xml", swell)


def cell_styles(src: Path, dst: Path, n: int) -> Path:
    """`n` more cell formats in styles.xml's cellXfs (the issue's: 1.9 million)."""
    def swell(data: bytes) -> Iterator[bytes]:
        m = re.search(rb"<cellXfs[^>]*>", data)
        assert m is not None, "no cellXfs in styles.xml"
        yield data[:m.start()] + re.sub(rb' count="\d+"', b"", m.group())
        yield from _records(b'<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>', n)
        yield data[m.end():]

    return _rewrite(src, dst, "xl/styles.xml", swell)


def empty_rows(src: Path, dst: Path, n: int, sheet: str | None = None) -> Path:
    """`n` empty rows stored after the last row of the sheet (the issue's: 10 million)."""
    part = _first_sheet_part(src, sheet)

    def swell(data: bytes) -> Iterator[bytes]:
        head, tail = data.rsplit(b"</sheetData>", 1)
        yield re.sub(rb"<dimension [^>]*/>", b"", head)
        yield from _records(b"<row/>", n)
        yield b"</sheetData>" + tail

    return _rewrite(src, dst, part, swell)


def wide_row(src: Path, dst: Path, n: int, sheet: str | None = None) -> Path:
    """One more row of `n` empty cells (a row is parsed whole before its cells are looked at)."""
    part = _first_sheet_part(src, sheet)

    def swell(data: bytes) -> Iterator[bytes]:
        head, tail = data.rsplit(b"</sheetData>", 1)
        yield re.sub(rb"<dimension [^>]*/>", b"", head) + b"<row>"
        yield from _records(b"<c/>", n)
        yield b"</row></sheetData>" + tail

    return _rewrite(src, dst, part, swell)
