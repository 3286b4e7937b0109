"""A published acceptance length assumed for a task class (or for one tier's draft on it), as one edit.

The preset's length at its K (model.acceptance.presets.preset_fields) replaces the row's acceptance: the
alpha beside it becomes the length's i.i.d. summary, source "assumed" with the preset's citation in the
note, and every interval the row held goes, since an interval belongs to the measurement it came from.
Qt-free, so the window's preset picker is one Document.apply over it and a test can call it alone.
"""
from __future__ import annotations

from model.acceptance.presets import Preset, preset_fields
from model.workbook.acceptance_fields import summary_alpha
from model.workbook.rows import Override, TaskClass, Workbook

NO_INTERVAL = {"alpha_low": None, "alpha_high": None, "alpha_confidence": None, "alpha_requests": 0,
                "alpha_steps": 0, "alpha_method": "", "alpha_prompts": None, "acceptance_length_low": None, "acceptance_length_high": None}


def assume_preset(workbook: Workbook, task_class: str, preset: Preset, k: int | None = None,
                  tier: str | None = None) -> TaskClass | Override:
    """Set ``preset`` on the class (``tier`` None) or as that tier's override on it; returns the row set.

    ``k`` is the K at which the length is taken where the source states none (a tree's depth); refused
    (ValueError) where it is missing or the length cannot occur at it.
    """
    j = workbook.class_index(task_class)
    if j is None:
        raise ValueError(f"no task class named {task_class!r} in the workbook")
    fields = {**preset_fields(preset, k), **NO_INTERVAL}
    alpha = summary_alpha((), fields["acceptance_length"], fields["acceptance_length_k"])
    if tier is None:
        row = workbook.classes[j]
        row.alpha = alpha
        for name, value in fields.items():
            setattr(row, name, value)
        row.entered("alpha")  # its acceptance is given now (TaskClass.defaulted)
        return row
    if workbook.tier_index(tier) is None:
        raise ValueError(f"no tier named {tier!r} in the workbook")
    name = workbook.classes[j].name
    source, note = fields.pop("alpha_source"), fields.pop("source_note")
    workbook.set_override(tier, name, alpha, source, note, **fields)
    found = workbook.override_for(tier, name)
    assert found is not None
    return found
