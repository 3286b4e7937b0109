"""Tier fields that are not on the Inputs sheet, kept on Notes so that export then import loses none of them.

A tier's probe endpoint (URL, model, the *name* of its key's environment variable or keyring entry, extra
request fields), its measured speedup and note, and its load are edited in the app, not in Excel; without
this block an import dropped them. They are written beside the drop-down lists (machinery: not printed),
one row per tier in Inputs' order under the tier's name as exported, and read back through the one
validator. A row finds its tier by that name, or by position when the tiers were only renamed.
Which fields: every tier field the validator knows that the Inputs table does not hold.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from model.report import styles as st
from model.report.layout import NOTES, TIER_COLUMNS
from model.report.sheet_reader import REPORT_ROWS, read_xlsx
from model.workbook.rows import Tier, Workbook
from model.workbook.validation import SPECS, FieldSpec, ValidationError, WorkbookError, parse_field

TITLE = "Kept for the round trip: tier fields edited in the app, not on Inputs (probe endpoint, measured speed, load)"
NAME_HEADER = "Tier as exported"


def kept_specs() -> list[FieldSpec]:
    on_inputs = {spec.name for spec in TIER_COLUMNS}
    return [spec for name, spec in SPECS[Tier].items() if name not in on_inputs]


def write_kept(sheet: st.SheetWriter, wb: Workbook, row: int, col: int) -> None:
    """The block with its title at (row, col); nothing here is a formula other sheets read."""
    specs = kept_specs()
    sheet.text(row, col, TITLE, st.HEADING)
    sheet.text(row + 1, col, NAME_HEADER, st.LABEL)
    for n, spec in enumerate(specs, start=1):
        sheet.text(row + 1, col + n, spec.label, st.LABEL)
    for i, tier in enumerate(wb.tiers):
        r = row + 2 + i
        sheet.text(r, col, tier.name)
        for n, spec in enumerate(specs, start=1):
            value = getattr(tier, spec.name)
            if isinstance(value, str):
                sheet.text(r, col + n, value)
            elif value is not None:
                sheet.number(r, col + n, value)
    sheet.widths({col: 22, **{col + n: 16 for n in range(1, len(specs) + 1)}})


def read_kept(path: Path, wb: Workbook) -> None:
    """Set the kept fields of `wb`'s tiers (just read from Inputs) from the report's Notes block, if it has one.

    A report without the block (an older export, a hand-made file) leaves the fields at their defaults. A
    value the validator refuses raises a WorkbookError naming the cell.
    """
    try:
        grid, names = read_xlsx(path, sheet=NOTES, max_rows=REPORT_ROWS, data_only=True)
    except WorkbookError:
        return  # Inputs read fine; a Notes sheet past the limits only means nothing is kept
    if NOTES not in names:
        return
    found = next(((r, c) for r, values in grid.numbered_rows() for c, v in enumerate(values, start=1) if v == TITLE),
                 None)
    if found is None:
        return
    top, col = found
    labels = {grid.cell(top + 1, col + n): col + n for n in range(1, len(SPECS[Tier]) + 2)}
    columns = {spec.name: labels[spec.label] for spec in kept_specs() if spec.label in labels}
    rows: list[tuple[int, str]] = []
    r = top + 2
    while isinstance(name := grid.cell(r, col), str) and name:
        rows.append((r, name))
        r += 1
    by_name = {t.name: t for t in wb.tiers}
    # renamed on Inputs only (same count, every row's name gone or still there): by position
    by_position = len(rows) == len(wb.tiers)
    problems: list[str] = []
    for n, (r, name) in enumerate(rows):
        tier = by_name.get(name) or (wb.tiers[n] if by_position and wb.tiers[n].name not in _names(rows) else None)
        if tier is None:
            continue  # the tier was deleted on Inputs: its kept fields go with it
        for field, c in columns.items():
            value: Any = grid.cell(r, c)
            try:
                setattr(tier, field, parse_field(Tier, field, "" if value is None else value, tier.name))
            except ValidationError as exc:
                problems.append(f"sheet {NOTES}, cell {st.col_name(c)}{r}: {exc}")
    if problems:
        raise WorkbookError(problems, str(path))


def _names(rows: list[tuple[int, str]]) -> set[str]:
    return {name for _, name in rows}
