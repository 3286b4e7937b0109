"""Workbook schema 2: acceptance profiles and lengths on classes and overrides, tree drafts on tiers."""
from __future__ import annotations

import json

import pytest

from model.mechanics import arithmetic as ar
from model.workbook import json_file as wf
from model.workbook.rows import TaskClass
from model.workbook.validation import WorkbookError, parse_field

TIER = {"name": "Fast", "speculative": "yes", "k": 3, "cost_model": "typed", "c": 0.1, "v": 1.0,
        "price_out": 2.0, "price_in": 0.5}
CLASS = {"name": "code", "tokens_out": 1e6, "tokens_in": 0.0, "context": 4096}


def _book(classes: list[dict], tiers: list[dict] | None = None, overrides: list[dict] | None = None,
          version: int = 2) -> dict:
    return {"format": "specledger-workbook", "schema_version": version, "tiers": tiers or [TIER],
            "task_classes": classes, "overrides": overrides or []}


def test_a_version_1_file_loads_unchanged_and_saves_as_the_current_version(tmp_path):
    v1 = _book([dict(CLASS, alpha=0.8)], overrides=[{"tier": "Fast", "task_class": "code", "alpha": 0.7}], version=1)
    wb = wf.workbook_from_dict(v1)
    c, o, t = wb.classes[0], wb.overrides[0], wb.tiers[0]
    assert (c.alpha, c.profile, c.acceptance_length, c.acceptance_length_k) == (0.8, (), None, None)
    assert (o.alpha, o.profile, o.acceptance_length) == (0.7, (), None) and t.tree_size is None
    demo = wf.load_demo()  # the demo file is version 1
    assert json.loads(wf.DEMO_WORKBOOK.read_text())["schema_version"] == 1
    assert all(cl.profile == () and cl.acceptance_length is None for cl in demo.classes)
    wf.save_workbook(wb, tmp_path / "v2.json")
    saved = json.loads((tmp_path / "v2.json").read_text())
    assert saved["schema_version"] == wf.SCHEMA_VERSION and saved["task_classes"][0]["profile"] == []
    assert wf.load_workbook(tmp_path / "v2.json") == wb


def test_profiles_lengths_and_trees_round_trip(tmp_path):
    conditional = [0.77, 0.45 / 0.77, 0.24 / 0.45]  # vLLM's n-gram example, cumulative 0.77, 0.45, 0.24
    data = _book([dict(CLASS, profile=conditional),
                  dict(CLASS, name="prose", acceptance_length=2.46, acceptance_length_k=3),
                  dict(CLASS, name="json", alpha=0.9, profile=[0.95, 0.9])],
                 tiers=[dict(TIER, tree_size=16)],
                 overrides=[{"tier": "Fast", "task_class": "prose", "profile": "77% 58% 53%"}])
    wb = wf.workbook_from_dict(data)
    code, prose, js = wb.classes
    assert code.profile == pytest.approx(conditional) and prose.acceptance_length == 2.46
    # a profile or a length without alpha: alpha is the i.i.d. summary with the same E at the measured K
    assert float(ar.expected_tokens(code.alpha, 3)) == pytest.approx(2.46, rel=1e-12)
    assert prose.alpha == pytest.approx(code.alpha, rel=1e-12)
    # given beside the profile but 3.4 points off its summary: the profile wins, and the note says so
    assert float(ar.expected_tokens(js.alpha, 2)) == pytest.approx(1 + 0.95 + 0.95 * 0.9, rel=1e-12)
    assert js.source_note.startswith("alpha 90.0% set to 93.4% on loading")
    assert wb.overrides[0].profile == (0.77, 0.58, 0.53) and wb.tiers[0].tree_size == 16
    wf.save_workbook(wb, tmp_path / "wb.json")
    assert wf.load_workbook(tmp_path / "wb.json") == wb


@pytest.mark.parametrize("fields,message", [
    ({"acceptance_length": 2.46}, "acceptance_length_k: missing"),
    ({"acceptance_length": 4.5, "acceptance_length_k": 3}, "at most K + 1 = 4"),
    ({"alpha": 0.5, "acceptance_length_k": 3}, "given without a mean acceptance length"),
    ({"profile": [0.9], "acceptance_length": 1.9, "acceptance_length_k": 1}, "not both"),
    ({"profile": [0.5, 1.2]}, "position 2 must be a share from 0 to 1"),
    ({"profile": [0.5, True]}, "position 2 must be a share"),
    ({"profile": [0.5] * 65}, "1 to 64 positions"),
    ({"profile": {"a": 1}}, "must be blank or the acceptance at each draft position"),
    ({"profile": []}, "alpha: missing"),  # an empty profile stands for nothing
    ({"acceptance_length": 0.5, "acceptance_length_k": 3}, "acceptance_length: must be blank or a number from 1 to 65"),
])
def test_bad_acceptance_fields_are_refused_naming_the_field(fields, message):
    with pytest.raises(WorkbookError) as err:
        wf.workbook_from_dict(_book([dict(CLASS, **fields)]))
    assert message in str(err.value)
    if "profile" in fields and fields["profile"]:
        assert "alpha: missing" not in str(err.value)  # the refused profile is the problem, not a second one


def test_tree_size_is_at_least_k_plus_one():
    with pytest.raises(WorkbookError, match="verifies at least K \\+ 1 = 4 tokens"):
        wf.workbook_from_dict(_book([dict(CLASS, alpha=0.8)], tiers=[dict(TIER, tree_size=3)]))
    with pytest.raises(WorkbookError, match="tree_size: must be blank or a whole number from 2 to 4096"):
        wf.workbook_from_dict(_book([dict(CLASS, alpha=0.8)], tiers=[dict(TIER, tree_size=1.5)]))
    assert wf.workbook_from_dict(_book([dict(CLASS, alpha=0.8)], tiers=[dict(TIER, tree_size=4)])).tiers[0].tree_size == 4


@pytest.mark.parametrize("typed,expected", [
    ("0.77, 0.58, 0.53", (0.77, 0.58, 0.53)), ("77% 58% 53%", (0.77, 0.58, 0.53)), ("[0.9; 0.8]", (0.9, 0.8)),
    ("", ()), (None, ()),
])
def test_a_profile_typed_as_text(typed, expected):
    assert parse_field(TaskClass, "profile", typed) == pytest.approx(expected)


def test_the_reference_names_the_schema_2_fields():
    from pathlib import Path

    section = (Path(__file__).resolve().parents[3] / "docs" / "reference" / "workbook-file.md").read_text(encoding="utf-8")
    import re

    assert re.search(rf"`schema_version(: |` ){wf.SCHEMA_VERSION}\b", section)
    for name in ("profile", "acceptance_length", "acceptance_length_k", "tree_size"):
        assert f"`{name}`" in section


def test_a_measurement_applies_its_profile_or_length_and_clears_an_older_one():
    from types import SimpleNamespace

    from model.workbook.acceptance_fields import summary_alpha
    from model.workbook.measured_apply import apply_plan
    from model.workbook.rows import Override, Workbook

    wb = Workbook(classes=[TaskClass("code", alpha=0.5, profile=(0.9, 0.8))],
                  overrides=[Override("Fast", "code", 0.5, profile=(0.7,))])
    with_profile = SimpleNamespace(task_class="code", alpha=0.68, profile=(0.77, 0.58, 0.53))
    apply_plan(wb, [("code", with_profile, False)], "sampled", None)
    # the profile is the measurement: the alpha beside it is its summary, not the measurement's own 0.68
    assert wb.classes[0].profile == (0.77, 0.58, 0.53)
    assert wb.classes[0].alpha == pytest.approx(summary_alpha((0.77, 0.58, 0.53), None, None), rel=1e-12)
    with_length = SimpleNamespace(task_class="code", alpha=0.7, acceptance_length=2.5, acceptance_length_k=3)
    apply_plan(wb, [("code", with_length, False)], "scraped", "Fast")
    o = wb.override_for("Fast", "code")
    assert o is not None and o.profile == () and (o.acceptance_length, o.acceptance_length_k) == (2.5, 3)
    assert float(ar.expected_tokens(o.alpha, 3)) == pytest.approx(2.5, rel=1e-12)
    alpha_only = SimpleNamespace(task_class="code", alpha=0.6)
    apply_plan(wb, [("code", alpha_only, False)], "probed", None)
    assert wb.classes[0].profile == () and wb.classes[0].acceptance_length is None and wb.classes[0].alpha == 0.6


def test_the_report_carries_profiles_rather_than_leaving_them_out():
    """The report computes E from the profile (a table on Inputs), not from the alpha beside it; Notes no longer
    says it leaves profiles out. LibreOffice's agreement: tests/model/report/test_excel_recalc.py."""
    import io

    import openpyxl

    from model.comparison import compare
    from model.report.export import build_report

    wb = wf.load_demo()
    wb.classes[0].profile = (0.95, 0.9, 0.5)
    data, expected = build_report(wb, "demo.json")
    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True)
    text = " ".join(str(v) for row in book["Notes"].iter_rows(max_row=12, values_only=True) for v in row if v)
    assert "does not carry acceptance profiles" not in text
    cmp = compare(wb)
    tokens = sorted(v for (sheet, _), v in expected.items() if sheet == "Comparison" and isinstance(v, float)
                    and abs(v - cmp.cells.tokens_per_stretch[1, 0]) < 1e-12)
    assert tokens, "the profile's E is not in the report"
