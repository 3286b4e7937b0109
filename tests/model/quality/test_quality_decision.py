"""A tier the probe found lossy, or worse on checked tasks, carries that beside its speed and value verdicts: the
workbook file, compare's text and JSON, the brief (never recommended without the line) and the Excel Summary."""
from __future__ import annotations

from model.comparison import compare
from model.comparison.brief import brief, brief_records
from model.comparison.records import pair_records, tier_records
from model.probe.quality_apply import apply_quality, quality_of_report
from model.quality.verdict import QualityVerdict
from model.workbook.json_file import load_demo, workbook_from_dict, workbook_to_dict

LOSSY_AT_08 = QualityVerdict(0.8, "logprob score", "why", 4594, 96, 5.1, 1e-6, "lossy", 1.16, 0.95)
WORSE_CHECKS = {"margin_points": 2.0, "classes": [
    {"task_class": "json", "verdict": "worse", "difference": -0.25, "low": -0.4, "high": -0.1, "margin_points": 2.0},
    {"task_class": "code", "verdict": "same", "difference": 0.0, "low": -0.01, "high": 0.01, "margin_points": 2.0}]}
SENTENCE = "lenient sampling found at temperature 0.8 (p < 0.001): outputs differ from the standard tier's model"


def test_the_verdict_is_the_worst_found_and_says_so():
    assert quality_of_report(LOSSY_AT_08, None) == ("lossy", SENTENCE)
    verdict, note = quality_of_report(None, WORSE_CHECKS)
    assert verdict == "worse" and note == "worse on checked tasks: json -25 points (-40 to -10)"
    verdict, note = quality_of_report(LOSSY_AT_08, WORSE_CHECKS)
    assert verdict == "lossy" and note.startswith(SENTENCE) and "json -25 points" in note
    assert quality_of_report(None, None) is None


def _lossy_demo():
    wb = load_demo()
    i = wb.tier_index("Orbital Rapid")
    apply_quality(wb.tiers[i], LOSSY_AT_08, None)
    return wb, i


def test_a_lossy_tier_keeps_its_quality_through_the_workbook_file_and_compare():
    wb, i = _lossy_demo()
    wb = workbook_from_dict(workbook_to_dict(wb))
    assert (wb.tiers[i].quality_verdict, wb.tiers[i].quality_note) == ("lossy", SENTENCE)
    cmp = compare(wb)
    tier = next(r for r in tier_records(cmp) if r["tier"] == "Orbital Rapid")
    assert tier["quality_verdict"] == "lossy" and tier["quality_note"] == SENTENCE
    assert {r["quality_verdict"] for r in pair_records(cmp) if r["tier"] == "Orbital Rapid"} == {"lossy"}
    assert all(r["quality_verdict"] is None for r in tier_records(cmp) if r["tier"] != "Orbital Rapid")
    from commands.calc_compare import comparison_text
    assert f"Orbital Rapid: {SENTENCE}." in comparison_text(cmp)


def test_a_lossy_tier_is_never_recommended_without_its_quality_line():
    wb, i = _lossy_demo()
    cmp = compare(wb)
    [orbital] = [b for b in brief(wb, cmp) if b.tier == "Orbital Rapid"]
    assert orbital.recommendation.startswith("take it")  # the speed and value verdicts are unchanged
    assert ("Quality", SENTENCE + ".") in orbital.lines and f"Quality: {SENTENCE}." in orbital.why
    record = next(r for r in brief_records(wb, cmp) if r["tier"] == "Orbital Rapid")
    assert record["quality"] == SENTENCE + "."
    assert all(label != "Quality" for b in brief(wb, cmp) if b.tier != "Orbital Rapid" for label, _ in b.lines)


def test_the_excel_summary_prints_the_quality_line(tmp_path):
    from openpyxl import load_workbook

    from model.report.export import export_report
    wb, _ = _lossy_demo()
    path = tmp_path / "r.xlsx"
    export_report(wb, path)
    cells = [str(c.value) for row in load_workbook(path)["Summary"].iter_rows() for c in row if c.value]
    assert f"Quality: {SENTENCE}." in cells
