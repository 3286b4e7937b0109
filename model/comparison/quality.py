"""A tier's quality beside its speed and value verdicts (docs/design/quality.md): the verdict and sentence Apply set
from a probe (model/workbook/quality_fields.py), carried into the Comparison for `compare`, the report, the window's
summary and the brief. A lossy tier, or one worse on a class's checks, always shows its sentence."""
from __future__ import annotations

from model.comparison.result import Comparison
from model.workbook.quality_fields import FLAGGED
from model.workbook.rows import Tier


def quality_fields(tiers: list[Tier]) -> dict[str, object]:
    return {"quality_verdict": [t.quality_verdict for t in tiers], "quality_note": [t.quality_note for t in tiers]}


def quality_verdict(cmp: Comparison, i: int) -> str:
    return cmp.probed.quality_verdict[i] if cmp.probed.quality_verdict else ""


def quality_note(cmp: Comparison, i: int) -> str:
    return cmp.probed.quality_note[i] if cmp.probed.quality_note else ""


def flagged(cmp: Comparison, i: int) -> bool:
    """Lossy, or worse on a class's checks: the decision must say so wherever it recommends the tier."""
    return quality_verdict(cmp, i) in FLAGGED


def quality_line(cmp: Comparison, i: int) -> str:
    """'Quality: lenient sampling found at temperature 0.8 (p < 0.001): outputs differ ...', or "" when not probed."""
    note = quality_note(cmp, i)
    if not note:
        return f"Quality: {quality_verdict(cmp, i)}." if quality_verdict(cmp, i) else ""
    return f"Quality: {note}."
