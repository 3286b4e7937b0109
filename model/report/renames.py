"""Renames made on a report's Inputs sheet, followed on import the way the app follows them.

Renaming a tier or task class in Excel leaves the baselines and overrides that named it holding
the old name (they are typed text, not formulas). The Notes sheet keeps the names as exported, one
row per Inputs row in the same order, so a row whose name changed to one that is new, while its
old name is gone, is a rename: references that still hold the old name are moved to the new one,
as Workbook.rename_tier / rename_class do in the app. Anything less clear (rows added or deleted,
names swapped or reused, a Notes sheet missing or not as exported) is left alone, and the
validation that follows refuses what points nowhere, as it did before.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from model.report.layout import NOTES
from model.report.sheet_reader import REPORT_ROWS, Grid, read_xlsx
from model.workbook.rows import Workbook
from model.workbook.validation import WorkbookError

# the column-A labels write_notes puts above its "as exported" tier and task-class tables
TIER_TABLE_LABEL = "Tier"
CLASS_TABLE_LABEL = "Task class"


def follow_renames(path: Path, wb: Workbook) -> None:
    """Move the references in `wb` (just read from the report at `path`) that hold a renamed name."""
    if not _points_nowhere(wb):
        return  # a rename left behind is always a reference to a name no row has: spare the second read
    exported = _exported_names(path)
    if exported is None:
        return
    tiers, classes = exported
    # both maps are worked out before either is applied, from the names as read
    tier_renames = _renames(tiers, [t.name for t in wb.tiers]) if tiers is not None else {}
    class_renames = _renames(classes, [c.name for c in wb.classes]) if classes is not None else {}
    for old, new in tier_renames.items():
        wb.rename_tier(old, new)
    for old, new in class_renames.items():
        wb.rename_class(old, new)


def _points_nowhere(wb: Workbook) -> bool:
    tier_names = {t.name for t in wb.tiers}
    class_names = {c.name for c in wb.classes}
    return (any(t.baseline and t.baseline not in tier_names for t in wb.tiers)
            or any(o.tier not in tier_names or o.task_class not in class_names for o in wb.overrides))


def _renames(exported: list[str], imported: list[str]) -> dict[str, str]:
    """old name -> new name for the rows renamed in the file; none at all if any changed row is unclear.

    Rows are matched by position, so a different row count means rows were added or deleted and
    no position can be trusted. Names are compared ignoring case, as the app keeps them unique:
    a changed row whose old name still names another row, or whose new name named another row at
    export, was swapped, sorted or reused, and which row a reference meant would be a guess.
    """
    if len(exported) != len(imported):
        return {}
    then = Counter(name.lower() for name in exported)
    now = Counter(name.lower() for name in imported)
    out: dict[str, str] = {}
    for old, new in zip(exported, imported):
        if old == new:
            continue
        same = old.lower() == new.lower()  # a change of case only: the row itself is the one match
        if now[old.lower()] > same or then[new.lower()] > same or now[new.lower()] > 1:
            return {}
        out[old] = new
    return out


def _exported_names(path: Path) -> tuple[list[str] | None, list[str] | None] | None:
    """(tier names, task class names) as the Notes sheet holds them; None for what is missing or not
    as the export writes it (a report from an older version, a hand-made file)."""
    try:
        # column A only: names and labels are all the rename needs, whatever columns Notes grows
        grid, names = read_xlsx(path, sheet=NOTES, max_rows=REPORT_ROWS, max_cols=1, data_only=True)
    except WorkbookError:
        return None  # Inputs read fine; a Notes sheet past the limits only means no renames are followed
    if NOTES not in names:
        return None
    tiers = _names_under(grid, TIER_TABLE_LABEL, 1)
    classes = _names_under(grid, CLASS_TABLE_LABEL, tiers[1] if tiers else 1)
    return (tiers[0] if tiers else None), (classes[0] if classes else None)


def _names_under(grid: Grid, label: str, start: int) -> tuple[list[str], int] | None:
    """The names in column A under the first `label` row at or after `start` (down to the first
    blank row), and the row after them; None when there is no such table or a cell is not a name."""
    header = next((row for row, values in grid.numbered_rows() if row >= start and values[:1] == (label,)), None)
    if header is None:
        return None
    names: list[str] = []
    row = header + 1
    while (value := grid.cell(row, 1)) not in (None, ""):
        if not isinstance(value, str) or not value.strip():
            return None
        names.append(value)
        row += 1
    if len({name.lower() for name in names}) != len(names):
        return None  # the export's names are unique; these were not written by it
    return names, row
