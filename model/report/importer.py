"""Reading inputs back: a report's Inputs sheet into a Workbook (price lists: model/report/price_list.py).

Every cell goes through the one validator; errors name the sheet and cell; a
file with any problem raises before anything is returned, so nothing is ever
half-imported. A tier or class renamed on Inputs takes its references along, as
in the app, when the Notes sheet shows plainly that it was a rename (model/report/renames.py).
"""
from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

from model.mechanics.arithmetic import profile_tokens
from model.report.kept_fields import read_kept
from model.report.renames import follow_renames
from model.report.sheet_reader import MAX_COLUMNS, REPORT_ROWS, CellError, Grid, read_xlsx
from model.report.layout import (CLASSES_HEADING, INPUTS, OVERRIDES_HEADING, PROFILE_HEADERS, PROFILE_HEADERS_V1, REQUIRED_COLUMNS,
                                 SETTING_LABELS, TIERS_HEADING, TABLES, header_labels)
from model.workbook.validation import (K_LIMITS, FieldSpec, ValidationError, WorkbookError, NumberFormatError,
                                       alpha_range_problems, length_range_problems, parse_field, row_label, parse_number, shown,
                                       title_problems, workbook_problems)
from model.workbook.row_edits import typed_over_placeholders
from model.workbook.rows import Override, Settings, TaskClass, Tier, Workbook
from model.workbook.acceptance_fields import take_summary

_ROW_TYPES = {TIERS_HEADING: Tier, CLASSES_HEADING: TaskClass, OVERRIDES_HEADING: Override}
_CELL_IN_MESSAGE = re.compile(rf"sheet {re.escape(INPUTS)}, cell ([A-Z]+[0-9]+)[: ]")


def _read_inputs(path: Path, data_only: bool = True) -> Grid:
    # the profiles table's rates run K_LIMITS' 64 positions past its own columns
    width = max(MAX_COLUMNS, len(PROFILE_HEADERS) + int(K_LIMITS[1]))
    grid, names = read_xlsx(path, sheet=INPUTS, max_rows=REPORT_ROWS, max_cols=width, data_only=data_only)
    if INPUTS not in names:
        raise WorkbookError([f"has no sheet named {INPUTS!r}; is it a SpecLedger report?"], str(path))
    return grid


def import_report(path: str | os.PathLike[str]) -> Workbook:
    """The workbook held by a report's Inputs sheet (as written by export_report, possibly edited)."""
    p = Path(path)
    ws = _read_inputs(p)
    problems: list[str] = []
    settings, title = _read_settings(ws, problems)
    rows: dict[str, list[Any]] = {}
    sheet_rows: dict[str, list[int]] = {}  # the sheet row each parsed row came from
    header_rows = _find_headers(ws)
    for heading, specs in TABLES:
        if heading not in header_rows:
            problems.append(f"sheet {INPUTS}: the {heading.split(' (')[0].lower()} table's header row "
                            f"({', '.join(header_labels(specs)[:3])}, ...) was not found")
            rows[heading], sheet_rows[heading] = [], []
            continue
        rows[heading], sheet_rows[heading] = _read_table(ws, header_rows[heading],
                                                         _present(ws, header_rows[heading], heading, specs),
                                                         _ROW_TYPES[heading], problems, REQUIRED_COLUMNS[heading])
    if problems:
        raise WorkbookError(_explain_unsaved_formulas(p, problems), str(p))
    wb = Workbook(tiers=rows[TIERS_HEADING], classes=rows[CLASSES_HEADING], overrides=rows[OVERRIDES_HEADING],
                  settings=settings, title=title)
    from openpyxl.utils import get_column_letter

    tables = {"tiers": TIERS_HEADING, "classes": CLASSES_HEADING, "overrides": OVERRIDES_HEADING}
    columns = {heading: {spec.name: get_column_letter(i) for i, spec in enumerate(specs, start=1)}
               for heading, specs in TABLES}

    def place(table: str, i: int, field_name: str) -> str:
        heading = tables[table]
        return f"sheet {INPUTS}, cell {columns[heading][field_name]}{sheet_rows[heading][i]}"

    # a tier or class renamed in Excel leaves its baselines and overrides holding the old name
    follow_renames(p, wb)
    # the probe's endpoint, the measured speed and the load are not on Inputs: Notes keeps them
    read_kept(p, wb)
    for tier in wb.tiers:  # a price typed on Inputs over a placeholder nobody typed (Notes keeps the list): given
        typed_over_placeholders(tier)
    profile_problems: list[str] = []
    _read_profiles(ws, wb, profile_problems)
    if profile_problems:
        raise WorkbookError(_explain_unsaved_formulas(p, profile_problems), str(p))
    for row in wb.classes + wb.overrides:
        take_summary(row)  # an alpha that contradicts its profile or length: the summary, and the note says so
    late = workbook_problems(wb, place)
    if late:  # names that clash or point nowhere: named by the cell that holds the name or reference
        raise WorkbookError([msg if msg.startswith("sheet ") else f"sheet {INPUTS}: {msg}" for msg in late], str(p))
    return wb


def _explain_unsaved_formulas(path: Path, problems: list[str]) -> list[str]:
    """Say so where a refused cell holds a formula with no saved result (it reads as empty).

    Excel and LibreOffice save each formula's value; scripts and some converters do not.
    Only on the error path: loading the formulas too costs a second read of the file.
    """
    cells = {m.group(1) for m in map(_CELL_IN_MESSAGE.match, problems) if m}
    if not cells:
        return problems
    from openpyxl.utils.cell import coordinate_from_string, column_index_from_string

    ws = _read_inputs(path, data_only=False)

    def value(cell: str) -> Any:
        letters, row = coordinate_from_string(cell)
        return ws.cell(row, column_index_from_string(letters))

    formulas = {cell: value(cell) for cell in cells if isinstance(value(cell), str) and value(cell).startswith("=")}
    out = []
    for msg in problems:
        m = _CELL_IN_MESSAGE.match(msg)
        if m and m.group(1) in formulas:
            msg = (f"sheet {INPUTS}, cell {m.group(1)}: holds the formula {formulas[m.group(1)]} but no computed "
                   "value (the file was saved by a program that does not calculate); open and save it in "
                   "Excel or LibreOffice, then import again")
        out.append(msg)
    return out


def cell_text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _read_settings(ws: Grid, problems: list[str]) -> tuple[Settings, str]:
    found: dict[str, Any] = {}
    where: dict[str, str] = {}
    wanted = {label.lower(): key for key, label in SETTING_LABELS.items()}
    for row in range(1, min(ws.max_row, 40) + 1):
        key = wanted.get(cell_text(ws.cell(row, 1)).lower())
        if key and key not in found:
            found[key] = ws.cell(row, 2)
            where[key] = f"B{row}"
    defaults = Settings()
    values: dict[str, Any] = {}
    for key, label in SETTING_LABELS.items():
        if key not in found:
            if key not in ("title", "confidence"):  # a report older than intervals has no confidence row
                problems.append(f"sheet {INPUTS}: no {label!r} row in the settings block")
            continue
        raw = found[key]
        cell = f"sheet {INPUTS}, cell {where[key]} ({label})"
        if isinstance(raw, CellError):
            problems.append(f"{cell}: holds the spreadsheet error {raw.code}, not a value")
            continue
        if key in ("title", "currency"):
            values[key] = cell_text(raw)
            if key == "currency" and not values[key]:
                problems.append(f"{cell}: must not be empty")
            problems.extend(f"{cell}: {p.removeprefix('Title: ')}" for p in title_problems(values[key]))
            continue
        try:
            number = parse_number(raw if raw is not None else "", percent=key != "k_max")
        except ValueError as exc:
            reason = f"; {shown(raw)} {exc}" if isinstance(exc, NumberFormatError) else f" (got {shown(raw)})"
            problems.append(f"{cell}: must be a number{reason}")
            continue
        if key == "k_max":
            if abs(number - round(number)) > 1e-9 or not K_LIMITS[0] <= number <= K_LIMITS[1]:
                problems.append(f"{cell}: must be a whole number from {K_LIMITS[0]} to {K_LIMITS[1]} (got {raw!r})")
                continue
            number = int(round(number))
        elif key == "confidence" and not 0.5 <= number < 1.0:
            problems.append(f"{cell}: must be a share from 50% to below 100% (got {raw!r})")
            continue
        elif not 0.0 <= number < 1.0 or (key == "marginal_band" and number > 1.0):
            problems.append(f"{cell}: must be a share from 0% to below 100% (got {raw!r})")
            continue
        values[key] = number
    settings = Settings(
        marginal_band=values.get("marginal_band", defaults.marginal_band),
        claim_tolerance=values.get("claim_tolerance", defaults.claim_tolerance),
        k_max=values.get("k_max", defaults.k_max),
        currency=values.get("currency", defaults.currency),
        confidence=values.get("confidence", defaults.confidence),
    )
    return settings, values.get("title", "")


def _find_headers(ws: Grid) -> dict[str, int]:
    """Header rows, found by their labels so that rows an analyst inserted above do not matter."""
    targets = {heading: [lab.lower() for lab in header_labels(specs)][:REQUIRED_COLUMNS[heading]]
               for heading, specs in TABLES}
    out: dict[str, int] = {}
    width = max(len(t) for t in targets.values())
    for row, _ in ws.numbered_rows():
        cells = [cell_text(ws.cell(row, c)).lower() for c in range(1, width + 1)]
        for heading, labels in targets.items():
            if heading not in out and cells[:len(labels)] == labels:
                out[heading] = row
    return out


def _present(ws: Grid, header_row: int, heading: str, specs: tuple[FieldSpec, ...]) -> tuple[FieldSpec, ...]:
    """The table's columns this report has: the required ones, then the optional ones (the interval) for as
    long as their headers follow in order; a report older than them has none, and its rows take the defaults."""
    n = REQUIRED_COLUMNS[heading]
    while n < len(specs) and cell_text(ws.cell(header_row, n + 1)).lower() == specs[n].label.lower():
        n += 1
    return specs[:n]


def _read_table(ws: Grid, header_row: int, specs: tuple[FieldSpec, ...], row_type: type,
                problems: list[str], required: int) -> tuple[list[Any], list[int]]:
    """Rows under a header until two blank rows or the next heading (the blank row a table keeps when
    empty counts too), and the sheet row of each. A blank cell past the first `required` columns takes its field's
    default (an interval not given, a vendor's term not set)."""
    from openpyxl.utils import get_column_letter

    out = []
    at_rows: list[int] = []
    row = header_row + 1
    headings = {heading.lower() for heading, _ in TABLES}
    # a row is blank when the table's own columns are: an analyst who clears a row clears what they read, and a
    # vendor's terms or an interval left right of it do not make a row of their own
    def blank(r: int) -> bool:
        return all(cell_text(ws.cell(r, c)) == "" for c in range(1, required + 1))

    def heading(values: list[Any]) -> bool:
        return cell_text(values[0]).lower() in headings and all(cell_text(v) == "" for v in values[1:])

    while row <= ws.max_row:
        values = [ws.cell(row, c) for c in range(1, len(specs) + 1)]
        if blank(row):
            # one cleared row is how analysts delete a row in Excel: skip it. Two blank rows, or a
            # heading next, end the table (the report leaves two blank rows between tables)
            after = row + 1
            if after > ws.max_row or blank(after) or heading([ws.cell(after, c) for c in range(1, len(specs) + 1)]):
                break
            row += 1
            continue
        if heading(values):
            break  # rows added under a table ran into the next table's heading
        name = cell_text(values[0]) if row_type is not Override else f"{cell_text(values[0])}/{cell_text(values[1])}"
        if any(isinstance(v, CellError) for v in values[:2]):
            name = ""  # "#REF!" is not a name to call the row by
        parsed: dict[str, Any] = {}
        for col, (spec, raw) in enumerate(zip(specs, values), start=1):
            if col > required and cell_text(raw) == "":
                continue  # a blank in a column right of the table's own (an interval, a vendor's terms): its default
            if isinstance(raw, CellError):
                problems.append(f"sheet {INPUTS}, cell {get_column_letter(col)}{row}: {spec.label}: holds the "
                                f"spreadsheet error {raw.code}, not a value")
                continue
            try:
                parsed[spec.name] = spec.parse(raw)
            except ValidationError as exc:
                what = f"{row_type.__name__ if row_type is not TaskClass else 'Task class'} {name!r}, " if name.strip("/") else ""
                problems.append(f"sheet {INPUTS}, cell {get_column_letter(col)}{row}: {what}{spec.label}: {exc}")
        if len(parsed) + sum(1 for c, v in enumerate(values, start=1) if c > required and cell_text(v) == "") == len(specs):
            made = row_type(**parsed)
            if isinstance(made, TaskClass):  # a value typed over a placeholder on Inputs is given
                typed_over_placeholders(made)
            problems.extend(_alpha_range_at(made, specs, row))
            out.append(made)
            at_rows.append(row)
        row += 1
    return out, at_rows


def _alpha_range_at(made: Any, specs: list[FieldSpec], row: int) -> list[str]:
    """A class's or override's alpha range that does not hold its alpha, named by the cell to change as a field's
    own problem is (it named the row alone): the low end where it is missing or above the alpha, else the high."""
    if not isinstance(made, (TaskClass, Override)):
        return []
    bad = alpha_range_problems(made)
    cols = {spec.name: i for i, spec in enumerate(specs, start=1)}
    if not bad or "alpha_low" not in cols or "alpha_high" not in cols:
        return bad
    low, alpha = made.alpha_low, made.alpha
    end = "alpha_low" if low is None or (isinstance(alpha, (int, float)) and low > alpha) else "alpha_high"
    if made.alpha_high is None:
        end = "alpha_high"
    return [f"sheet {INPUTS}, cell {_letter(cols[end])}{row}: {msg}" for msg in bad]


def _length_range_at(target: TaskClass | Override, row: int, low_col: int) -> list[str]:
    """The interval on E of a profiles-table row, named by its cell as _alpha_range_at names an alpha's: the low
    end where it is missing or above the row's E, else the high end."""
    bad = length_range_problems(target)
    if not bad:
        return []
    low, high = target.acceptance_length_low, target.acceptance_length_high
    e = (float(profile_tokens(list(target.profile))) if target.profile
         else target.acceptance_length if target.acceptance_length is not None else math.nan)
    at_low = low is None or (high is not None and math.isfinite(e) and low > e)
    cell = f"{_letter(low_col if at_low else low_col + 1)}{row}"
    return [f"sheet {INPUTS}, cell {cell}: {row_label(target)}, {msg}" for msg in bad]


def _letter(col: int) -> str:
    from openpyxl.utils import get_column_letter
    return get_column_letter(col)


def _read_profiles(ws: Grid, wb: Workbook, problems: list[str]) -> None:
    """The profiles and lengths table (model/report/profiles_table.py), onto the classes and overrides it names.

    A row names its task class (and tier, for an override) by formulas over the tables above, so a rename on
    Inputs comes along. A profile is its measured rates (the positions past them are the extension's, not
    inputs); a length is the length and its K; the interval on E its two ends (a report before they were
    columns has none: the rows keep what they hold). A report older than the table has none: nothing changes.
    """
    from openpyxl.utils import get_column_letter

    header, headers = None, PROFILE_HEADERS
    for headers in (PROFILE_HEADERS, PROFILE_HEADERS_V1):
        labels = [h.lower() for h in headers]
        header = next((row for row, values in ws.numbered_rows()
                       if [cell_text(v).lower() for v in values[:len(labels)]] == labels), None)
        if header is not None:
            break
    if header is None:
        return
    first_rate = len(headers) + 1
    with_ends = headers is PROFILE_HEADERS
    row = header + 1
    seen: dict[tuple[str, str], int] = {}  # (class, tier) -> the row that gave it: a second row is refused
    while True:
        name = cell_text(ws.cell(row, 1))
        if not name and any(ws.cell(row, col) not in (None, "") for col in (3, 5)):
            # a row with a profile or a length but no name: its name is a formula with no value saved (a script
            # through openpyxl saves none), and the rows were dropped without a word
            problems.append(f"sheet {INPUTS}, row {row}: the task class's name (a formula over the tables above) has "
                            "no value saved: open and save the report in Excel or LibreOffice, then import it")
            row += 1
            continue
        if not name or name.lower().startswith("none:"):
            break
        tier = cell_text(ws.cell(row, 2))
        where = f"sheet {INPUTS}, row {row} ({name}{' on ' + tier if tier else ''})"
        target = wb.override_for(tier, name) if tier else next((c for c in wb.classes if c.name == name), None)
        if target is None:
            problems.append(f"{where}: names no {'override' if tier else 'task class'} in the tables above")
            row += 1
            continue
        row_type = Override if tier else TaskClass
        key = (name.lower(), tier.lower())
        if key in seen:
            problems.append(f"{where}: row {seen[key]} gives this {'override' if tier else 'task class'}'s profile or "
                            "length already; keep one row")
            row += 1
            continue
        seen[key] = row
        try:
            m = ws.cell(row, 5)
            length = ws.cell(row, 3)
            if length not in (None, "") and m not in (None, ""):
                # a length typed on a profile's row: the profile was dropped without a word
                raise ValidationError(f"cells C{row} and E{row} give a mean acceptance length and a profile's "
                                      "positions; give one (a profile's length is computed from its rates)")
            if length not in (None, ""):
                target.acceptance_length = parse_field(row_type, "acceptance_length", length, name)
                target.acceptance_length_k = parse_field(row_type, "acceptance_length_k", ws.cell(row, 4), name)
            else:
                count = parse_number(m)
                if not (math.isfinite(count) and count == int(count) and 1 <= count <= K_LIMITS[1]):
                    raise ValidationError(f"cell E{row}: Positions measured must be a whole number from 1 to "
                                          f"{int(K_LIMITS[1])} (got {cell_text(m)!r})")
                rates = [ws.cell(row, first_rate + k) for k in range(int(count))]
                bad = next((k for k, v in enumerate(rates) if isinstance(v, CellError)), None)
                if bad is not None:
                    raise ValidationError(f"cell {get_column_letter(first_rate + bad)}{row} holds a spreadsheet error")
                target.profile = parse_field(row_type, "profile", rates, name)
            if with_ends:
                for col, field_name in ((8, "acceptance_length_low"), (9, "acceptance_length_high")):
                    setattr(target, field_name, parse_field(row_type, field_name, ws.cell(row, col), name))
                problems.extend(_length_range_at(target, row, 8))
        except (ValidationError, ValueError) as exc:
            problems.append(f"{where}: {exc}")
        row += 1
