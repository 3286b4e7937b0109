"""Measured acceptance into the workbook: match classes by name, label the source, set alpha or overrides.

Qt-free (it only edits a Workbook), so it lives in model/: every Apply action (a sampling run,
a probe, imported engine metrics) is one `Document.apply(text, mutate)` over these functions,
and they are tested alone. A measurement is anything with a `task_class` name and an `alpha`;
NaN or out-of-range alpha means the class had nothing to measure.
"""
from __future__ import annotations

from typing import Any, Protocol, Sequence, TypeVar

from model.acceptance import Acceptance

from model.workbook.acceptance_fields import summary_fields
from model.workbook.rows import NOT_GIVEN_ON_NEW_CLASS, TaskClass, Workbook
from model.workbook.validation import CLASS_FIELDS


class MeasuredClass(Protocol):
    @property
    def task_class(self) -> str: ...
    @property
    def alpha(self) -> float: ...


M = TypeVar("M", bound=MeasuredClass)


def plan_measured(workbook: Workbook, classes: Sequence[M], add_missing: bool
                  ) -> tuple[list[tuple[str, M, bool]], list[str]]:
    """Match measured classes to workbook classes by name, ignoring case.

    Returns (workbook name, result, is new) for each class to set, and the names left
    out: not in the workbook (unless add_missing) or without any stretch to measure.
    """
    by_lower = {c.name.lower(): c.name for c in workbook.classes}
    todo: list[tuple[str, M, bool]] = []
    skipped: list[str] = []
    for c in classes:
        if not 0.0 <= c.alpha <= 1.0 or not getattr(c, "stretches", 1):  # NaN fails the range test too
            skipped.append(f"{c.task_class} (no stretches)")
        elif c.task_class.lower() in by_lower:
            todo.append((by_lower[c.task_class.lower()], c, False))
        elif add_missing:
            todo.append((c.task_class, c, True))
        else:
            skipped.append(f"{c.task_class} (not in workbook)")
    return todo, skipped


def interval_fields(c: MeasuredClass) -> dict[str, Any]:
    """The interval fields a measurement sets: its Acceptance's (attribute ``acceptance``), else none at all,
    so an older interval or typed range never outlives the value it was about."""
    acc = getattr(c, "acceptance", None)
    if isinstance(acc, Acceptance):
        return acc.row_fields()
    return {"alpha_low": None, "alpha_high": None, "alpha_confidence": None, "alpha_requests": 0,
            "alpha_steps": 0, "alpha_method": "", "alpha_prompts": None}


def shape_fields(c: MeasuredClass) -> dict[str, Any]:
    """The profile or length a measurement carries (attributes of those names), else none: a measured alpha
    alone must not leave an older profile deciding E
    (docs/design/arithmetic.md#profiles-and-mean-acceptance-lengths)."""
    profile = tuple(float(x) for x in (getattr(c, "profile", None) or ()))
    length, length_k = getattr(c, "acceptance_length", None), getattr(c, "acceptance_length_k", None)
    # the interval on E at the K measured, where the measurement made one (a probe's: model/probe/profile.py)
    ends = getattr(c, "mean_acceptance_length_interval", None)
    low, high = (float(ends[0]), float(ends[1])) if ends and (profile or length is not None) else (None, None)
    if profile:
        return {"profile": profile, "acceptance_length": None, "acceptance_length_k": None,
                "acceptance_length_low": low, "acceptance_length_high": high}
    if length is not None and length_k is not None:
        return {"profile": (), "acceptance_length": float(length), "acceptance_length_k": int(length_k),
                "acceptance_length_low": low, "acceptance_length_high": high}
    return {"profile": (), "acceptance_length": None, "acceptance_length_k": None,
            "acceptance_length_low": None, "acceptance_length_high": None}


def apply_plan(workbook: Workbook, todo: Sequence[tuple[str, MeasuredClass, bool]], note: str,
               tier: str | None, source: str = "measured") -> None:
    """Set each class's alpha (tier None) or that tier's overrides, marked with the source and the note,
    with the interval and the profile or length the measurement carries."""
    for name, c, is_new in todo:
        if is_new:  # a measurement gives a new class its acceptance, not its context or its traffic
            workbook.classes.append(TaskClass(name=name, alpha=float(c.alpha), alpha_source=source,
                                              source_note=note, defaulted=", ".join(
                                                  f for f in NOT_GIVEN_ON_NEW_CLASS if f != "alpha")))
        interval = {**interval_fields(c), **shape_fields(c)}
        alpha = float(c.alpha)
        if interval["profile"] or interval["acceptance_length"] is not None:
            # the profile or the length is the measurement: the alpha beside it is its summary, not the measurement's
            # own alpha, a maximum-likelihood fit that differs wherever the profile is not flat
            # (docs/design/arithmetic.md#the-alpha-beside-a-profile)
            summary = summary_fields(interval["profile"], interval["acceptance_length"],
                                     interval["acceptance_length_k"], interval["acceptance_length_low"],
                                     interval["acceptance_length_high"])
            alpha = summary.pop("alpha")
            interval.update(summary)
        if tier is None:
            row = workbook.classes[workbook.class_index(name)]  # type: ignore[index]
            row.alpha, row.alpha_source, row.source_note = alpha, source, note
            row.entered("alpha")
            for key, value in interval.items():
                setattr(row, key, value)
        else:
            workbook.set_override(tier, name, alpha, source, note, **interval)


def unused_acceptance_note(workbook: Workbook, tiers: Sequence[str]) -> str:
    """Why acceptance set on these tiers' drafts changes no number, or "" when it is used.

    A tier with Speculative = no runs no draft: its overrides are kept (it may be a mistake in
    that column) but feed nothing, and whoever sets them is told so rather than left to wonder.
    """
    plain = sorted({name for name in tiers if (i := workbook.tier_index(name)) is not None
                    and workbook.tiers[i].speculative == "no"})
    if not plain:
        return ""
    names = ", ".join(repr(n) for n in plain)
    verb = "does" if len(plain) == 1 else "do"
    return (f"{names} {verb} not run speculative decoding (Speculative = no), so acceptance on "
            f"{'its' if len(plain) == 1 else 'their'} draft is kept but not used: it changes no result "
            "until Speculative is yes or unknown.")


def changed_block(workbook: Workbook, todo: Sequence[tuple[str, MeasuredClass, bool]], tier: str | None
                  ) -> tuple[str, int, int, int, int] | None:
    """Where apply_plan(workbook, todo, ...) changes the inputs, as (table, top, left, bottom, right).

    The table is "classes" (rows, alpha column) or "overrides" (the tier's row, class columns),
    so undo and redo can show the cells that the measured acceptance changed.
    """
    names = [c.name for c in workbook.classes]
    new = [name for name, _, is_new in todo if is_new]
    positions = [names.index(name) for name, _, is_new in todo if not is_new]
    positions += range(len(names), len(names) + len(new))
    if not positions:
        return None
    if tier is None:
        alpha_col = next(i for i, spec in enumerate(CLASS_FIELDS) if spec.name == "alpha")
        return "classes", min(positions), alpha_col, max(positions), alpha_col
    row = workbook.tier_index(tier)
    if row is None:
        return None
    return "overrides", row, min(positions), row, max(positions)
