"""Adding, duplicating and deleting workbook rows so names stay unique and references stay valid.

Pure functions on a Workbook (the GUI calls them inside one undoable step).

A new tier (Edit > Add row, or a paste running past the last row) takes only what the analyst gives it:
its mechanics and prices are marked not given (Tier.defaulted, as a price list's missing columns are), so
no speed, verdict or fair price comes from a value nobody typed, and it has no baseline (the row above may
be another vendor's). A new task class likewise: its acceptance, context and tokens are marked not given
(TaskClass.defaulted), so it has no speed, and no tier has a mix or a verdict over the classes, until they are
typed (docs/design/verdicts.md#a-class-nobody-described). Copying a row is its own command, Duplicate rows.
"""
from __future__ import annotations

import copy

from model.workbook.rows import (INTERVAL_FIELDS, NOT_GIVEN_ON_NEW_CLASS, NOT_GIVEN_ON_NEW_TIER, SHAPE_FIELDS, TaskClass,
                                Tier, Workbook)


# the validator's limit on any text field: a generated name must pass it too
NAME_LIMIT = 200


def unique_name(base: str, taken: list[str], suffix: str = "") -> str:
    """`base` + `suffix`, numbered if taken ("X (copy) 2"), with `base` cut so the whole fits NAME_LIMIT."""
    lowered = {t.strip().lower() for t in taken}
    n = 1
    while True:
        tail = suffix + (f" {n}" if n > 1 else "")
        name = base[:NAME_LIMIT - len(tail)].rstrip() + tail
        if name.lower() not in lowered:
            return name
        n += 1


# what a field nobody gave reads as in the tables (the value beneath is only a placeholder)
NOT_GIVEN = "not given"
# said wherever a row is added (status bar, help), so the policy has one wording
NEW_TIER_POLICY = ("its mechanics and prices not given (no speed or verdict until you type them) and no baseline; "
                   "Duplicate rows (Ctrl+D) copies a tier")
NEW_CLASS_POLICY = ("its acceptance, context and tokens not given (no speed on it, and no tier's mix or verdict, "
                    "until you type them); Duplicate rows (Ctrl+D) copies a class")


def new_tier(name: str) -> Tier:
    """A tier nobody has described yet: every mechanic and price marked not given, speculative unknown."""
    return Tier(name=name, speculative="unknown", defaulted=", ".join(NOT_GIVEN_ON_NEW_TIER))


def new_class(name: str) -> TaskClass:
    """A task class nobody has described yet: its acceptance, context and tokens marked not given, no traffic."""
    return TaskClass(name=name, defaulted=", ".join(NOT_GIVEN_ON_NEW_CLASS))


# what a class nobody described holds in each field it lacks (the field defaults: a new row, a list's missing column)
PLACEHOLDER_CLASS = TaskClass()


# a tier's list prices nobody typed hold 0 (docs/design/verdicts.md#prices-nobody-gave)
PLACEHOLDER_TIER, _TIER_PRICES = Tier(), ("price_out", "price_in")


def typed_over_placeholders(row: TaskClass | Tier) -> None:
    """A class (or a tier's price) read back from a spreadsheet: a field still listed as not given whose value is no
    longer its placeholder was typed there, so it is given (the report's Inputs shows such a cell's number again)."""
    fields, placeholder = ((NOT_GIVEN_ON_NEW_CLASS, PLACEHOLDER_CLASS) if isinstance(row, TaskClass)
                           else (_TIER_PRICES, PLACEHOLDER_TIER))
    for name in row.defaulted_fields():
        if name in fields and getattr(row, name) != getattr(placeholder, name):
            row.entered(name)


def rows_of(wb: Workbook, kind: str) -> list[Tier] | list[TaskClass]:
    """The workbook's list of `kind` rows: "tiers" or "classes"."""
    if kind not in ("tiers", "classes"):
        raise ValueError(f"unknown row kind {kind!r}")
    return wb.tiers if kind == "tiers" else wb.classes


def new_row(wb: Workbook, kind: str, at: int, taken: list[str] | None = None) -> Tier | TaskClass:
    """The row Add row would insert at `at` (the module's docstring says what it holds), with a new name.

    `taken` adds names the new row must not take (rows a paste is about to add).
    """
    rows = rows_of(wb, kind)
    base = Tier.name if kind == "tiers" else TaskClass.name  # the fields' default names, "New tier" / "New class"
    name = unique_name(base, [r.name for r in rows] + list(taken or []))
    return new_tier(name) if kind == "tiers" else new_class(name)


def add_row(wb: Workbook, kind: str, at: int) -> int:
    """Insert a new row (see new_row) at position `at` (clamped); returns its index."""
    rows = rows_of(wb, kind)
    at = max(0, min(at, len(rows)))
    rows.insert(at, new_row(wb, kind, at))  # type: ignore[arg-type]
    return at


def duplicate_rows(wb: Workbook, kind: str, indexes: list[int]) -> list[int]:
    """Copy rows (with their overrides) right after the last of them; returns the new indexes."""
    rows = rows_of(wb, kind)
    indexes = sorted(i for i in set(indexes) if 0 <= i < len(rows))
    if not indexes:
        return []
    at = indexes[-1] + 1
    new_indexes = []
    for offset, i in enumerate(indexes):
        row = copy.deepcopy(rows[i])
        if isinstance(row, Tier):
            row.renew_identity()
        row.name = unique_name(rows[i].name, [r.name for r in rows], " (copy)")
        rows.insert(at + offset, row)  # type: ignore[arg-type]
        new_indexes.append(at + offset)
        for o in list(wb.overrides):
            interval = {f: getattr(o, f) for f in INTERVAL_FIELDS + SHAPE_FIELDS}
            if kind == "tiers" and o.tier == rows[i].name:
                wb.set_override(row.name, o.task_class, o.alpha, o.alpha_source, o.source_note, **interval)
            elif kind == "classes" and o.task_class == rows[i].name:
                wb.set_override(o.tier, row.name, o.alpha, o.alpha_source, o.source_note, **interval)
    return new_indexes


def delete_rows(wb: Workbook, kind: str, indexes: list[int]) -> int:
    """Remove rows, their overrides, and baselines naming a removed tier; returns how many went."""
    rows = rows_of(wb, kind)
    doomed = {i for i in indexes if 0 <= i < len(rows)}
    names = {rows[i].name for i in doomed}
    rows[:] = [r for i, r in enumerate(rows) if i not in doomed]  # type: ignore[index]
    if kind == "tiers":
        wb.overrides = [o for o in wb.overrides if o.tier not in names]
        for t in wb.tiers:
            if t.baseline in names:
                t.baseline = ""
    else:
        wb.overrides = [o for o in wb.overrides if o.task_class not in names]
    return len(doomed)


def convert_prices(wb: Workbook, rate: float) -> int:
    """Every tier's prices times `rate` (one unit of the old currency in the new one), each through the
    validator; returns how many tiers had a price. Raises ValidationError, changing nothing, on a refused one."""
    import math

    from model.workbook.validation import ValidationError, parse_field

    if not math.isfinite(rate) or rate <= 0:
        raise ValidationError(f"the rate must be a number above 0 (got {rate!r})")
    new = [(t, {f: parse_field(Tier, f, round(getattr(t, f) * rate, 6), t.name) for f in ("price_out", "price_in")})
           for t in wb.tiers]
    for tier, prices in new:  # only once every price has passed: nothing half-converted
        for name, value in prices.items():
            setattr(tier, name, value)
    return sum(1 for t in wb.tiers if t.price_out or t.price_in)
