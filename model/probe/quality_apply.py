"""What Apply sets on a tier from a probe's quality test and task checks (docs/design/quality.md): one verdict and
the sentence the comparison, the report and the brief print beside the tier's speed and value verdicts.

The verdict is the worst found: "lossy" (the test at the temperature rejects), then "worse" (a class's checks are
worse on the fast tier by more than the margin), then "undecided", then "lossless"; a run with neither a test at a
temperature nor checks leaves the tier's quality as it was.
"""
from __future__ import annotations

from typing import Any

from model.quality.verdict import LOSSLESS as TEST_LOSSLESS
from model.quality.verdict import LOSSY as TEST_LOSSY
from model.quality.verdict import QualityVerdict
from model.workbook.quality_fields import LOSSLESS, LOSSY, UNDECIDED, WORSE
from model.workbook.rows import Tier


def _p(p_value: float) -> str:
    return "p < 0.001" if p_value < 0.001 else f"p = {p_value:.3f}"


def test_sentence(q: QualityVerdict) -> str:
    """The quality test's finding as the brief says it."""
    if q.verdict == TEST_LOSSY:
        return (f"lenient sampling found at temperature {q.temperature:g} ({_p(q.p_value)}): outputs differ from the "
                "standard tier's model")
    if q.verdict == TEST_LOSSLESS:
        return f"samples as the standard tier's model at temperature {q.temperature:g} ({q.detectable_words()})"
    more = f"; about {q.more_requests} more requests would decide" if q.more_requests else ""
    return f"undecided at temperature {q.temperature:g} ({q.detectable_words()}){more}"


def quality_of_report(quality: QualityVerdict | None, checks: dict[str, Any] | None) -> tuple[str, str] | None:
    """(verdict, note) for the tier, or None when the run had neither a quality test nor checks."""
    if quality is None and not checks:
        return None
    verdicts, notes = [], []
    if quality is not None:
        verdicts.append({TEST_LOSSY: LOSSY, TEST_LOSSLESS: LOSSLESS}.get(quality.verdict, UNDECIDED))
        notes.append(test_sentence(quality))
    classes = (checks or {}).get("classes") or []
    worse = [c for c in classes if c.get("verdict") == "worse"]
    if worse:
        verdicts.append(WORSE)
        notes.append("worse on checked tasks: " + "; ".join(
            f"{c['task_class']} {100 * c['difference']:+.0f} points ({100 * c['low']:+.0f} to {100 * c['high']:+.0f})"
            for c in worse))
    elif classes:
        undecided = [c["task_class"] for c in classes if c.get("verdict") in ("undecided", None)]
        verdicts.append(UNDECIDED if undecided else LOSSLESS)
        notes.append(f"checked tasks undecided at a {classes[0]['margin_points']:g}-point margin: "
                     + ", ".join(undecided) if undecided else "checked tasks as good as the standard tier's")
    # answers the token budget cut before their check could pass were judged by no rate: say so beside the verdict
    cut = [f"{c['task_class']} {c['cut']} of {c['answers']}" for c in classes if c.get("cut")]
    if cut:
        notes.append("answers cut at max tokens, too short to judge: " + ", ".join(cut))
    order = (LOSSY, WORSE, UNDECIDED, LOSSLESS)
    return min(verdicts, key=order.index), "; ".join(notes)


def apply_quality(tier: Tier, quality: QualityVerdict | None, checks: dict[str, Any] | None) -> None:
    found = quality_of_report(quality, checks)
    if found is not None:
        tier.quality_verdict, tier.quality_note = found
