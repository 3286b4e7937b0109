"""The one validator: every entry point (GUI cells, CLI, JSON and Excel import) goes through it.

This module holds the checks of a row and of a whole workbook; each message names the row and the field and says
what would be accepted. The fields of each row as FieldSpecs and which a row must give are
model/workbook/row_fields.py; the checks between acceptance fields model/workbook/acceptance_checks.py; the size
limits model/workbook/size_limits.py; how one field is parsed (FieldSpec, ValidationError, the parsers of the fields
that are not a plain number or text) model/workbook/field_spec.py. All are re-exported here, so every reader
imports the one validator.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

from model.mechanics import roofline
from model.workbook.cell_values import (NumberFormatError, parse_number, bad_character, shown)  # noqa: F401  (re-exported: the one validator)
from model.workbook.field_spec import K_LIMITS, FieldSpec, ValidationError  # noqa: F401  (re-exported)
from model.workbook.rows import NOT_GIVEN_ON_NEW_CLASS, Override, Settings, TaskClass, Tier, Workbook
from model.workbook.vendor_terms import (MEASURED_TERMS_FIELDS, TERMS_FIELDS, WORKLOAD_FIELDS,  # noqa: F401  (re-exported)
                                         terms_problems)
from model.workbook.size_limits import MAX_CLASSES, MAX_PAIRS, MAX_TIERS, size_problems  # noqa: F401  (re-exported)
from model.workbook.row_fields import (  # noqa: F401  (re-exported: the one validator)
    ACCEPTANCE_FIELDS, CLASS_FIELDS, CLASS_NOT_GIVEN_FIELDS, CONFIDENCE_FIELD, ENDPOINT_FIELDS, HALF_WIDTH_FIELD,
    LENGTH_HALF_WIDTH_FIELD, LOAD_FIELDS, MAX_CONFIDENCE, MAX_COST_FIELD, OVERRIDE_FIELDS, PROFILE_FIELDS,
    REQUIRED_FIELDS, ROW_WORD, SETTINGS_FIELDS, SPECS, TIER_FIELDS, TITLE_FIELD, TREE_FIELDS, required_fields,
    row_label)
from model.workbook.acceptance_checks import (  # noqa: F401  (re-exported)
    acceptance_problems, alpha_range_problems, length_range_problems, measured_interval_problems)


_NUMBER_KINDS = ("int", "float", "percent", "optional_float", "optional_percent", "optional_int")


def parse_field(row_type: type, field_name: str, value: Any, row_name: str = "", decimal: str = ".") -> Any:
    """Validate one cell; the error names the row and field, e.g. "Tier 'Fast', K: must be ..."."""
    spec = SPECS[row_type][field_name]
    try:
        return spec.parse(value, decimal)
    except ValidationError as exc:
        where = f"{ROW_WORD[row_type]} {row_name!r}, " if row_name else ("Settings, " if row_type is Settings else "")
        raise ValidationError(f"{where}{spec.label}: {exc}") from None


def parse_settings(values: dict[str, Any], base: Settings | None = None) -> Settings:
    """`base` (default settings if None) with `values` (field name -> text or number) validated.

    Raises ValidationError for the first refused value, e.g. "Settings, K max: must be ...".
    """
    out = dataclasses.replace(base) if base is not None else Settings()
    for name, value in values.items():
        setattr(out, name, parse_field(Settings, name, value, ""))
    return out


def not_given_problems(row: TaskClass, index: int | None = None) -> list[str]:
    """A task class's not-given list names only what a class can lack: its acceptance, context and tokens."""
    unknown = [f for f in row.defaulted_fields() if f not in NOT_GIVEN_ON_NEW_CLASS]
    if not unknown:
        return []
    return [f"{row_label(row, index)}, {CLASS_NOT_GIVEN_FIELDS[0].label}: {', '.join(map(repr, unknown))} cannot be "
            f"not given; list some of {', '.join(NOT_GIVEN_ON_NEW_CLASS)}, or leave it blank"]


def check_row(row: Any, index: int | None = None) -> list[str]:
    """Every field of one row through its spec; returns messages (empty when valid)."""
    problems = []
    for name, spec in SPECS[type(row)].items():
        value = getattr(row, name)
        try:
            # a stored number must be a number already: text such as "16" parses, but would break the arithmetic
            if spec.kind in _NUMBER_KINDS and value is not None and (
                    isinstance(value, bool) or not isinstance(value, int if spec.kind in ("int", "optional_int") else (int, float))):
                raise ValidationError(f"must be {spec.describe()} (got {value!r})")
            spec.parse(value)
        except ValidationError as exc:
            problems.append(f"{row_label(row, index)}, {spec.label}: {exc}")
    if not problems and isinstance(row, (TaskClass, Override)):
        problems.extend(alpha_range_problems(row, index))
    if not problems and isinstance(row, TaskClass):
        problems.extend(not_given_problems(row, index))
    if not problems and isinstance(row, Tier):  # a vendor's terms: bands, SLA, downgrade (model/workbook/vendor_terms.py)
        problems.extend(f"{row_label(row, index)}, {p}" for p in terms_problems(row))
    return problems


# check_row's answer per row value: an edit changes one row of hundreds and every edit checks them all
# (Document.apply), 3.5 ms of a 100 x 30 workbook's frame. The key holds every attribute's type and value
# (1, 1.0 and True differ; a zero's sign and any unhashable value skip the cache) and the index the
# messages name; the presets the choices come from clear it when they change.
_ROW_PROBLEMS: dict[Any, list[str]] = {}
_ROW_PROBLEMS_PRESETS: list[Any] = [None]
_ROW_PROBLEMS_LIMIT = 20_000


def _value_key(value: Any) -> Any:
    if type(value) is float and value == 0.0:
        return float, math.copysign(1.0, value)
    if type(value) is tuple:  # a profile: its numbers' types count as well
        return tuple, tuple(map(_value_key, value))
    return type(value), value


def check_row_cached(row: Any, index: int | None = None) -> list[str]:
    """check_row, remembered for rows of the same value at the same index."""
    presets = (tuple(roofline.GPUS), tuple(roofline.PAIRS))
    if _ROW_PROBLEMS_PRESETS[0] != presets:
        _ROW_PROBLEMS.clear()
        _ROW_PROBLEMS_PRESETS[0] = presets
    key = (type(row), index, tuple(map(_value_key, vars(row).values())))
    try:
        found = _ROW_PROBLEMS.get(key)
    except TypeError:  # an unhashable value (a list a file put there): checked, never remembered
        return check_row(row, index)
    if found is None:
        if len(_ROW_PROBLEMS) >= _ROW_PROBLEMS_LIMIT:
            _ROW_PROBLEMS.clear()
        found = _ROW_PROBLEMS[key] = check_row(row, index)
    return list(found)


def title_problems(title: Any) -> list[str]:
    """A workbook's title is text (a file may hold null or a number there), checked like a text cell."""
    if not isinstance(title, str):
        return [f"Title: must be a text (got {shown(title)})"]
    try:
        TITLE_FIELD.parse(title)
    except ValidationError as exc:
        return [f"Title: {exc}"]
    return []


# (table, row index, field name) -> where that cell is in a file, e.g. "sheet Inputs, cell N16"
Place = Callable[[str, int, str], str]


def workbook_problems(wb: Workbook, place: Place | None = None) -> list[str]:
    """All that is wrong with a workbook as a whole, each message naming row and field.

    With `place`, the problems that concern several rows (names, references) say
    where in the file they are, instead of counting rows inside a table.
    """
    def at(table: str, i: int, field_name: str) -> str:
        return f"{place(table, i, field_name)}: " if place else ""

    problems = size_problems(len(wb.tiers), len(wb.classes), len(wb.overrides))
    if problems:  # checking every row of such a workbook would itself take minutes
        return problems
    for rows in (wb.tiers, wb.classes, wb.overrides):
        for i, row in enumerate(rows):
            problems.extend(check_row_cached(row, i))
    for rows, word, table in ((wb.tiers, "Tier", "tiers"), (wb.classes, "Task class", "classes")):
        seen: dict[str, int] = {}
        for i, row in enumerate(rows):
            key = row.name.strip().lower()
            if key and key in seen:
                if place:
                    problems.append(f"{at(table, i, 'name')}{word} {row.name!r}: the name is already used in "
                                    f"{place(table, seen[key], 'name').rsplit(', ', 1)[-1]}")
                else:
                    problems.append(f"{word} {row.name!r} in row {i + 1}: the name is already used in row {seen[key] + 1}")
            seen.setdefault(key, i)
    for rows in (wb.classes, wb.overrides):
        for row in rows:
            problems.extend(f"{row_label(row)}, {p}" for p in acceptance_problems(row))
    for t in wb.tiers:
        if t.tree_size is not None and t.tree_size < t.k + 1:
            problems.append(f"{row_label(t)}, {TREE_FIELDS[0].label}: a tree of depth K = {t.k} verifies at least "
                            f"K + 1 = {t.k + 1} tokens a step (got {t.tree_size})")
        problems.extend(f"{row_label(t)}, {p}" for p in measured_interval_problems(t))
    tier_names = {t.name for t in wb.tiers}
    class_names = {c.name for c in wb.classes}
    for i, t in enumerate(wb.tiers):
        if t.baseline and t.baseline not in tier_names:
            problems.append(f"{at('tiers', i, 'baseline')}Tier {t.name!r}, Baseline: no tier is named {t.baseline!r}")
        elif t.baseline == t.name and t.name:
            problems.append(f"{at('tiers', i, 'baseline')}Tier {t.name!r}, Baseline: a tier cannot be its own baseline")
    seen_pairs: set[tuple[str, str]] = set()
    for i, o in enumerate(wb.overrides):
        if o.tier not in tier_names:
            problems.append(f"{at('overrides', i, 'tier')}{row_label(o)}, Tier: no tier is named {o.tier!r}")
        if o.task_class not in class_names:
            problems.append(f"{at('overrides', i, 'task_class')}{row_label(o)}, Task class: no task class is named {o.task_class!r}")
        if (o.tier, o.task_class) in seen_pairs:
            problems.append(f"{at('overrides', i, 'tier')}{row_label(o)}: given twice")
        seen_pairs.add((o.tier, o.task_class))
    problems.extend(check_row(wb.settings))
    problems.extend(title_problems(wb.title))
    return problems


class WorkbookError(ValueError):
    """A workbook (file) that cannot be used; the message lists every problem found."""

    def __init__(self, problems: list[str], source: str = "") -> None:
        self.problems = problems
        head = f"{source}: " if source else ""
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        super().__init__(head + shown)


def check_workbook(wb: Workbook, source: str = "") -> Workbook:
    problems = workbook_problems(wb)
    if problems:
        raise WorkbookError(problems, source)
    return wb
