"""A log read as a stream: only the lines that a marker pattern finds, with their numbers, in bounded memory.

A server log is mostly other lines, and it can be far larger than memory should hold. The file is read
in 1 MB chunks; a compiled bytes pattern (C speed) finds the lines worth parsing, and only those are
decoded. Line numbers are counted incrementally, never by rescanning, and after a match the search
resumes past that line's end, so a long line of repeated markers costs one pass, not one per marker.
A line longer than MAX_LINE is skipped and counted as cut (no log line is that long; a file that is one
is not a log). The scan pauses after every chunk, for progress and cancellation.
"""
from __future__ import annotations

import re
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


def scan(fh: BinaryIO, marker: re.Pattern[bytes] | None, stats: ScanStats) -> Iterator[tuple[int, str] | None]:
    """(line number, text) of every line holding a marker match (every line if `marker` is None), and None
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
        yield from _lines(data, end, first_line, marker, stats)
        newlines = data.count(b"\n", 0, end)
        first_line += newlines
        stats.lines += newlines
        carry = data[end:]
        if len(carry) > MAX_LINE:
            stats.cut += 1
            carry, skipping = b"", True
    if carry and not skipping:  # a last line without its newline: given as it is (a parser may find it cut)
        stats.lines += 1
        yield from _lines(carry + b"\n", len(carry) + 1, first_line, marker, stats)


def _lines(data: bytes, end: int, first_line: int, marker: re.Pattern[bytes] | None,
           stats: ScanStats) -> Iterator[tuple[int, str]]:
    pos, counted_to, number = 0, 0, first_line
    while pos < end:
        if marker is None:
            start = pos
        else:
            m = marker.search(data, pos, end)
            if m is None:
                return
            start = data.rfind(b"\n", pos, m.start()) + 1
            start = max(start, pos)
        stop = data.find(b"\n", start, end)
        number += data.count(b"\n", counted_to, start)
        counted_to = start
        if stop - start > MAX_LINE:
            stats.cut += 1
        else:
            yield number, data[start:stop].rstrip(b"\r").decode("utf-8", "replace")
        pos = stop + 1
