"""How the LibreOffice recalculation tests compare a cell with SpecLedger's value: numbers to a relative tolerance,
words exactly, and NaN strictly (a number where SpecLedger has none fails, and the reverse)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import openpyxl

from model.report.export import COMPARISON_COLUMNS, COMPARISON_HEADER_ROW
from model.report.comparison_sheet import grey_word
from model.report.layout import COMPARISON
from model.workbook.rows import Workbook

REL_TOL = 1e-9
# how the report writes a number the engine does not have (NaN): blank, a dash, n/a, or a spreadsheet error
_NO_NUMBER = ("", None, "–", "n/a")
_ERROR_CODES = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")


def _no_number(got: Any) -> bool:
    return got in _NO_NUMBER or got in _ERROR_CODES


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.floating, np.integer)) and not isinstance(x, bool)


def same(got: Any, want: Any) -> float | None:
    """Relative error of a number, 0 for equal words, None when they differ. Blank text reads as None.

    NaN is strict: SpecLedger's NaN (or None) matches only a cell with no number (blank, '–', 'n/a' or an error),
    and a cell whose value is NaN, or a number where SpecLedger has none, differs (NaN compared with '>' passes)."""
    if isinstance(want, str):
        return 0.0 if (got if got is not None else "") == want else None
    if want is None or _is_number(want) and math.isnan(want):
        return 0.0 if _no_number(got) else None
    if not _is_number(got) or math.isnan(got):
        return None
    if math.isinf(want) or math.isinf(got):
        return 0.0 if got == want else None
    return abs(got - want) / max(abs(want), 1e-300) if want else abs(got)


def close(got: Any, want: Any) -> bool:
    rel = same(got, want)
    return rel is not None and rel <= REL_TOL


def all_close(got: list, want: Any) -> None:
    """Each cell against SpecLedger's value, NaN strictly (see same)."""
    bad = [(n, g, w) for n, (g, w) in enumerate(zip(got, np.ravel(want))) if not close(g, float(w))]
    assert len(got) == np.size(want) and not bad, bad[:10]


def check_all_formulas(original: Path, other: Path, expected: dict) -> tuple[int, float]:
    """Every formula cell of ``original``, its value read from ``other``, against SpecLedger's: (count, worst)."""
    formulas = openpyxl.load_workbook(original)
    values = openpyxl.load_workbook(other, data_only=True)
    count, worst, problems = 0, 0.0, []
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type != "f":
                    continue
                count += 1
                key = (ws.title, cell.coordinate)
                assert key in expected, f"{key} is a formula with no SpecLedger value to check it against"
                got, want = values[ws.title][cell.coordinate].value, expected[key]
                rel = same(got, want)
                if rel is None or rel > REL_TOL:
                    problems.append(f"{key}: got {got!r}, SpecLedger {want!r} ({cell.value})")
                else:
                    worst = max(worst, rel)
    assert not problems, "\n".join(problems[:20])
    return count, worst


def table(ws: Any, header_labels: tuple[str, str]) -> tuple[int, dict[str, int]]:
    """The row of the table whose first two headers are ``header_labels``, and its columns by header."""
    header = next(r for r in range(1, 60) if (ws.cell(r, 1).value, ws.cell(r, 2).value) == header_labels)
    return header, {ws.cell(header, col).value: col for col in range(1, ws.max_column + 1)}


def pairs(book: Any, wb: Workbook) -> Iterator[tuple[int, int, str, Callable[[str], Any]]]:
    """(tier index, class index, "tier/class", the row's value by Comparison header) for every row of the sheet."""
    ws = book[COMPARISON]
    col = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
    n_c = len(wb.classes)
    for i, tier in enumerate(wb.tiers):
        for j, cls in enumerate(wb.classes):
            row = COMPARISON_HEADER_ROW + 1 + i * n_c + j
            yield i, j, f"{tier.name}/{cls.name}", lambda name, row=row: ws.cell(row, col[name]).value


def grey(kind: int, value: float) -> float | str:
    word = grey_word(kind, value)
    return word if isinstance(word, str) else float(word)


def moved(wb: Workbook, shift: float) -> Workbook:
    """Every acceptance moved by ``shift`` (clipped to 0..1): the whole model's sensitivity, not the report's."""
    out = wb.copy()
    for row in (*out.classes, *out.overrides):
        row.alpha = min(1.0, max(0.0, row.alpha + shift))
    return out
