"""The alpha beside a profile or a mean acceptance length is its i.i.d. summary
(docs/design/arithmetic.md#the-alpha-beside-a-profile): a contradiction is refused by the validator, and a file that
holds one loads with the summary in its place and the row's source note saying so; compare, the report and a
measurement's Apply carry the same alpha."""
from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

from model.mechanics import arithmetic as ar
from model.workbook.acceptance_fields import SUMMARY_TOLERANCE, summary_alpha
from model.workbook.json_file import load_demo, load_workbook, workbook_to_dict
from model.workbook.measured_apply import apply_plan
from model.workbook.validation import workbook_problems
from tests.excel_cases import profiled
from tests.paths import ROOT

PROFILE = (0.9, 0.6, 0.5)  # E = 1 + 0.9 + 0.54 + 0.27 = 2.71 at K = 3


def _contradicting_file(tmp_path, alpha: float = 0.3, source_note: str = "") -> str:
    """The demo as a file whose class 'code' gives a profile and, beside it, an alpha that contradicts it (what
    SpecLedger itself wrote before the rule: the fixtures' profiles beside the demo's alphas)."""
    data = workbook_to_dict(load_demo())
    code = data["task_classes"][0]
    code["profile"], code["alpha"], code["source_note"] = list(PROFILE), alpha, source_note
    path = tmp_path / "contradicting.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_contradicting_alpha_is_refused_naming_the_row_and_both_figures():
    wb = load_demo()
    wb.classes[0].profile = PROFILE
    problems = workbook_problems(wb)
    e = float(ar.profile_tokens(list(PROFILE)))
    summary = summary_alpha(PROFILE, None, None)
    said = [p for p in problems if "contradicts" in p]
    assert len(said) == 1 and said[0].startswith(f"Task class {wb.classes[0].name!r}, Alpha: ")
    assert f"{wb.classes[0].alpha * 100:.1f}%" in said[0] and f"{summary * 100:.1f}%" in said[0]
    assert f"E {e:.3g} at K = 3" in said[0]
    wb.overrides[0].profile, wb.overrides[0].alpha = (0.8, 0.6), 0.3  # an override is named by tier and class
    o = wb.overrides[0]
    assert any(p.startswith(f"Override ({o.tier!r}, {o.task_class!r}), Alpha: 30.0% contradicts its profile (E 2.28")
               for p in workbook_problems(wb))


def test_an_alpha_within_the_tolerance_is_kept_as_given():
    wb = load_demo()
    summary = summary_alpha(PROFILE, None, None)
    wb.classes[0].profile = PROFILE
    for alpha in (summary - SUMMARY_TOLERANCE * 0.9, summary + SUMMARY_TOLERANCE * 0.9, round(summary, 2)):
        wb.classes[0].alpha = alpha
        assert workbook_problems(wb) == []
    wb.classes[0].alpha = summary + SUMMARY_TOLERANCE * 1.1
    assert any("contradicts" in p for p in workbook_problems(wb))


def test_a_length_is_held_to_its_summary_too():
    wb = load_demo()
    wb.classes[1].acceptance_length, wb.classes[1].acceptance_length_k = 2.57, 3
    assert any("contradicts its mean acceptance length (E 2.57 at K = 3" in p for p in workbook_problems(wb))
    wb.classes[1].alpha = summary_alpha((), 2.57, 3)
    assert workbook_problems(wb) == []


def test_the_fixture_is_honest_and_its_old_alphas_would_be_refused():
    assert workbook_problems(profiled()) == []
    old = profiled()
    demo = load_demo()
    old.classes[0].alpha = demo.classes[0].alpha  # what the fixture held before: the demo's alpha beside the profile
    assert any(p.startswith(f"Task class {old.classes[0].name!r}, Alpha:") and "contradicts" in p
               for p in workbook_problems(old))


def test_an_old_file_loads_with_the_summary_and_says_so(tmp_path):
    wb = load_workbook(_contradicting_file(tmp_path, source_note="vendor slide, March"))
    code = wb.classes[0]
    e = float(ar.profile_tokens(list(PROFILE)))
    assert float(ar.expected_tokens(code.alpha, 3)) == pytest.approx(e, rel=1e-12)
    assert code.source_note == (f"alpha 30.0% set to {code.alpha * 100:.1f}% on loading: the profile's E {e:.3g} at "
                                "K=3 wins; vendor slide, March")
    assert workbook_problems(wb) == []


def test_a_long_source_note_keeps_within_its_limit(tmp_path):
    code = load_workbook(_contradicting_file(tmp_path, source_note="n" * 200)).classes[0]
    assert len(code.source_note) == 200 and code.source_note.startswith("alpha 30.0% set to")


def test_compare_json_no_longer_carries_the_contradicting_alpha(tmp_path):
    """The old behaviour: compare --json carried alpha 0.3 beside the profile's E at its K (2.71 here)."""
    path = _contradicting_file(tmp_path)
    r = subprocess.run([sys.executable, str(ROOT / "main.py"), "compare", path, "--json"], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    pairs = [p for p in json.loads(r.stdout)["pairs"] if p["task_class"] == "code" and p.get("profile")]
    assert pairs
    e = float(ar.profile_tokens(list(PROFILE)))
    for p in pairs:
        assert p["alpha"] != 0.3
        assert float(ar.expected_tokens(p["alpha"], 3)) == pytest.approx(e, rel=1e-9)


def test_a_measurement_applies_the_summary_and_its_range_from_the_interval_on_e():
    """A probe's alpha is a maximum-likelihood fit, another number than the summary wherever the profile is not
    flat; Apply writes the summary, and the range the summaries of E's interval ends, which hold it."""
    wb = load_demo()
    measured = SimpleNamespace(task_class=wb.classes[0].name, alpha=0.62, profile=PROFILE,
                               mean_acceptance_length_interval=(2.5, 2.9))
    apply_plan(wb, [(wb.classes[0].name, measured, False)], "probed", None)
    code = wb.classes[0]
    assert code.alpha == pytest.approx(summary_alpha(PROFILE, None, None), rel=1e-12)
    assert code.alpha_low == pytest.approx(summary_alpha((), 2.5, 3)) and code.alpha_high == pytest.approx(
        summary_alpha((), 2.9, 3))
    assert workbook_problems(wb) == []


def test_a_report_whose_alpha_contradicts_its_profile_imports_with_the_summary(tmp_path):
    """An alpha typed on a report's Inputs beside a profile it contradicts: the import takes the profile's summary and
    the row's source note says so, as a workbook file's load does."""
    openpyxl = pytest.importorskip("openpyxl")
    from model.report.export import export_report
    from model.report.importer import import_report
    from model.report.layout import CLASS_COLUMNS, INPUTS, InputsLayout, column_of

    wb = profiled()
    export_report(wb, tmp_path / "r.xlsx")
    book = openpyxl.load_workbook(tmp_path / "r.xlsx")
    saved = openpyxl.load_workbook(tmp_path / "r.xlsx", data_only=True)[INPUTS]
    ws = book[INPUTS]
    for r in range(1, ws.max_row + 1):  # openpyxl saves the profiles table's name formulas without their values
        for c in (1, 2):
            if isinstance(ws.cell(r, c).value, str) and ws.cell(r, c).value.startswith("="):
                ws.cell(r, c).value = saved.cell(r, c).value
    layout = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    ws.cell(layout.class_row(0), column_of(CLASS_COLUMNS, "alpha")).value = 0.3
    book.save(tmp_path / "edited.xlsx")
    code = import_report(tmp_path / "edited.xlsx").classes[0]
    assert code.profile == wb.classes[0].profile
    assert code.alpha == pytest.approx(summary_alpha(code.profile, None, None), rel=1e-12)
    assert code.source_note.startswith(f"alpha 30.0% set to {code.alpha * 100:.1f}% on loading: the profile's E")
