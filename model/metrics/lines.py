"""A log read as a stream: only the lines that hold a marker, with their numbers, in bounded memory.

A server log is mostly other lines, and it can be far larger than memory should hold. The file is read
in 1 MB chunks; bytes.find (memory speed) finds the lines holding each marker, and only those are
decoded. Line numbers are counted incrementally, never by rescanning, and after a hit the search
resumes past that line's end, so a long line of repeated markers costs one pass, not one per marker.
A line longer than MAX_LINE is skipped and counted as cut (no log line is that long; a file that is one
is not a log). The scan pauses after every chunk, for progress and cancellation.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO, Iterator

CHUNK = 1 << 20
MAX_LINE = 1 << 20


@dataclass
class ScanStats:
    """What the scan saw besides the lines it returned: the caller's notes and refusals use these."""

    size: int = 0
    bytes_read: int = 0
    lines: int = 0
    cut: int = 0  # lines over MAX_LINE, skipped
    unterminated: int = 0  # the number of a last line without its newline (a log copied while written), else 0


def scan(fh: BinaryIO, markers: tuple[bytes, ...] | None, stats: ScanStats) -> Iterator[tuple[int, str] | None]:
    """(line number, text) of every line holding one of the markers (every line if None), in order, and None
    after each chunk read: the caller's moment to report progress (stats.bytes_read) or stop."""
    carry = b""
    first_line = 1  # number of the first line in `carry`
    skipping = False  # inside a line already counted as cut, until its newline
    while True:
        chunk = fh.read(CHUNK)
        stats.bytes_read += len(chunk)
        yield None
        if not chunk:
            break
        if skipping:
            newline = chunk.find(b"\n")
            if newline < 0:
                continue
            chunk = chunk[newline + 1:]
            first_line += 1
            skipping = False
        data = carry + chunk if carry else chunk
        end = data.rfind(b"\n") + 1
        if end == 0:
            if len(data) > MAX_LINE:
                stats.cut += 1
                carry, skipping = b"", True
            else:
                carry = data
            continue
        yield from _lines(data, end, first_line, markers, stats)
        newlines = data.count(b"\n", 0, end)
        first_line += newlines
        stats.lines += newlines
        carry = data[end:]
        if len(carry) > MAX_LINE:
            stats.cut += 1
            carry, skipping = b"", True
    if carry and not skipping:  # a last line without its newline: given as it is (a parser may find it cut)
        stats.lines += 1
        stats.unterminated = first_line
        yield from _lines(carry + b"\n", len(carry) + 1, first_line, markers, stats)


def _lines(data: bytes, end: int, first_line: int, markers: tuple[bytes, ...] | None,
           stats: ScanStats) -> Iterator[tuple[int, str]]:
    if markers is None:
        starts: list[int] = []
        pos = 0
        while pos < end:
            starts.append(pos)
            pos = data.find(b"\n", pos, end) + 1
    else:
        found: set[int] = set()
        for marker in markers:  # bytes.find runs at memory speed; after a hit, the search resumes past that line
            i = data.find(marker, 0, end)
            while i >= 0:
                start = data.rfind(b"\n", 0, i) + 1
                found.add(start)
                i = data.find(marker, data.find(b"\n", i, end) + 1, end)
                if i < 0:
                    break
        starts = sorted(found)
    counted_to, number = 0, first_line
    for start in starts:
        stop = data.find(b"\n", start, end)
        number += data.count(b"\n", counted_to, start)
        counted_to = start
        if stop - start > MAX_LINE:
            stats.cut += 1
        else:
            yield number, data[start:stop].rstrip(b"\r").decode("utf-8", "replace")
