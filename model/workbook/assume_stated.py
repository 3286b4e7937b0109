"""A figure a vendor stated (slides, a PDF), typed with its convention, assumed for a task class or one tier's draft.

model.acceptance.conventions converts it; here it becomes the row's acceptance in one edit, as a preset does
(model/workbook/assume_preset.py): a figure that means alpha (per-token, or a per-position rate under i.i.d.) sets
alpha; one that means tokens per step or a rate of drafted tokens sets the mean acceptance length at its K, with
alpha beside it as that length's i.i.d. summary. Source "assumed"; the note records what was stated, in its own
convention, where, and what the conversion assumed. Any interval the row held goes (it belonged to another
measurement). Qt-free: the window's dialog and `import-metrics --stated` are both one call to it.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from model.acceptance.conventions import Conversion, StatedError, StatedFigure, convert
from model.workbook.assume_preset import NO_INTERVAL
from model.workbook.rows import Override, TaskClass, Workbook

_ALPHA_CONVENTIONS = ("alpha", "any_position", "position_conditional", "position_cumulative")


def stated_fields(figure: StatedFigure, k: int | None = None) -> tuple[dict[str, Any], Conversion]:
    """The row fields that assume ``figure`` (at its K, else ``k``), and its conversion; StatedError where it cannot
    be applied (a rate of drafted tokens or a length with no K to take it at)."""
    conversion = convert(figure, k)
    at = figure.k if figure.k is not None else k
    fields: dict[str, Any] = {"alpha_source": "assumed", "source_note": _note(figure, at), "profile": ()}
    if figure.convention in _ALPHA_CONVENTIONS:
        if conversion.alpha is None:
            raise StatedError(f"{figure.words}: no alpha without K")
        fields.update(alpha=float(conversion.alpha), acceptance_length=None, acceptance_length_k=None)
    else:
        if at is None or conversion.length is None or conversion.alpha is None:
            raise StatedError(f"{figure.words}: needs K (the draft tokens per step it was measured at) to apply")
        fields.update(alpha=float(conversion.alpha), acceptance_length=float(conversion.length), acceptance_length_k=int(at))
    return fields, conversion


def _note(figure: StatedFigure, at: int | None) -> str:
    """'stated: <figure in its convention>, <where>; assumed <what the conversion took>', within a note's 200 characters
    (the full assumptions are in the conversion the window and the command show)."""
    alpha_like = figure.convention in _ALPHA_CONVENTIONS
    tags = [f"K = {at} (not stated)"] if at is not None and figure.k is None and not alpha_like else []
    if figure.convention in ("draft_rate", "rate_with_bonus"):
        tags.append("every draft K long")
    if figure.convention != "alpha":
        tags.append("i.i.d. alpha")
    plain = replace(figure, source="")
    source = f", {figure.source[:60]}" if figure.source else ""
    note = f"stated: {plain.words}{source}" + (f"; assumed {', '.join(tags)}" if tags else "")
    return note[:200]


def assume_stated(workbook: Workbook, task_class: str, figure: StatedFigure, k: int | None = None,
                  tier: str | None = None) -> TaskClass | Override:
    """Set the stated figure on the class (``tier`` None) or as that tier's override on it; returns the row set.
    ValueError (StatedError) naming what is wrong: no such class or tier, no K for a figure that needs one."""
    j = workbook.class_index(task_class)
    if j is None:
        raise ValueError(f"no task class named {task_class!r} in the workbook")
    if tier is not None and workbook.tier_index(tier) is None:
        raise ValueError(f"no tier named {tier!r} in the workbook")
    if tier is not None and k is None and figure.k is None and figure.convention not in _ALPHA_CONVENTIONS:
        k = workbook.tiers[workbook.tier_index(tier)].k  # type: ignore[index]
    fields, _ = stated_fields(figure, k)
    fields.update(NO_INTERVAL)
    if tier is None:
        row = workbook.classes[j]
        for name, value in fields.items():
            setattr(row, name, value)
        row.entered("alpha")  # its acceptance is given now (TaskClass.defaulted)
        return row
    name = workbook.classes[j].name
    alpha, source, note = fields.pop("alpha"), fields.pop("alpha_source"), fields.pop("source_note")
    workbook.set_override(tier, name, alpha, source, note, **fields)
    found = workbook.override_for(tier, name)
    assert found is not None
    return found
