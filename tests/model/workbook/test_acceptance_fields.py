"""The interval kept with an acceptance: typed range and measured interval fields, checked together, in the file."""
from __future__ import annotations

import json

import pytest

from model.workbook.json_file import load_workbook, save_workbook, workbook_from_dict, workbook_to_dict
from model.workbook.rows import Override, TaskClass, Workbook
from model.workbook.validation import WorkbookError, parse_field, workbook_problems
from model.workbook.json_file import load_demo


def _wb(**fields) -> Workbook:
    wb = load_demo()
    for k, v in fields.items():
        setattr(wb.classes[0], k, v)
    return wb


def test_a_typed_range_must_hold_alpha_and_give_both_ends() -> None:
    alpha = load_demo().classes[0].alpha
    assert workbook_problems(_wb(alpha_low=alpha - 0.05, alpha_high=alpha + 0.05)) == []
    assert any("give both ends" in p for p in workbook_problems(_wb(alpha_low=alpha - 0.05)))
    assert any("must hold the acceptance" in p for p in workbook_problems(_wb(alpha_low=alpha + 0.01, alpha_high=alpha + 0.05)))
    assert any("Alpha high" in p for p in workbook_problems(_wb(alpha_low=0.1, alpha_high=1.5)))


def test_range_fields_parse_like_an_alpha() -> None:
    assert parse_field(TaskClass, "alpha_low", "62%") == pytest.approx(0.62)
    assert parse_field(TaskClass, "alpha_low", "") is None
    assert parse_field(Override, "alpha_high", 0.8) == 0.8
    with pytest.raises(ValueError, match="blank or a share"):
        parse_field(TaskClass, "alpha_high", "lots")
    with pytest.raises(ValueError, match="Interval confidence"):
        parse_field(TaskClass, "alpha_confidence", 1.0)


def test_old_files_load_unchanged_and_new_fields_round_trip(tmp_path) -> None:
    old = workbook_to_dict(load_demo())
    for row in old["task_classes"] + old["overrides"]:
        for key in ("alpha_low", "alpha_high", "alpha_confidence", "alpha_requests", "alpha_steps", "alpha_method"):
            del row[key]
    del old["settings"]["confidence"]
    wb = workbook_from_dict(old)
    assert wb.settings.confidence == 0.95 and wb.classes[0].alpha_low is None and wb.overrides[0].alpha_method == ""
    c = wb.classes[0]
    c.alpha_low, c.alpha_high, c.alpha_confidence = c.alpha - 0.04, c.alpha + 0.03, 0.9
    c.alpha_requests, c.alpha_steps, c.alpha_method = 12, 640, "cluster-robust log-odds, t(G-1), requests as clusters"
    wb.overrides[0].alpha_method = "counts only: interval unknown"
    wb.settings.confidence = 0.9
    path = tmp_path / "w.json"
    save_workbook(wb, path)
    back = load_workbook(path)
    assert back.classes[0] == c and back.overrides[0].alpha_method == "counts only: interval unknown"
    assert back.settings.confidence == 0.9


def test_a_bad_confidence_setting_names_itself(tmp_path) -> None:
    data = workbook_to_dict(load_demo())
    data["settings"]["confidence"] = 1.2
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data))
    with pytest.raises(WorkbookError, match="Interval confidence"):
        load_workbook(path)


def test_applying_a_measurement_keeps_its_interval_and_drops_an_old_one() -> None:
    from dataclasses import dataclass

    from model.acceptance import Acceptance
    from model.workbook.measured_apply import apply_plan

    @dataclass
    class Measured:
        task_class: str
        alpha: float
        acceptance: Acceptance | None = None

    wb = load_demo()
    name = wb.classes[0].name
    wb.classes[0].alpha_low, wb.classes[0].alpha_high = 0.0, 1.0
    apply_plan(wb, [(name, Measured(name, 0.7, Acceptance(0.7, 0.64, 0.75, 0.95, 12, 300, "m")), False)], "n", None)
    c = wb.classes[0]
    assert (c.alpha, c.alpha_low, c.alpha_high, c.alpha_confidence, c.alpha_requests, c.alpha_steps, c.alpha_method) == (
        0.7, 0.64, 0.75, 0.95, 12, 300, "m")
    tier = wb.tiers[0].name
    apply_plan(wb, [(name, Measured(name, 0.6), False)], "n", tier)
    o = wb.override_for(tier, name)
    assert o.alpha == 0.6 and o.alpha_low is None and o.alpha_method == ""
    apply_plan(wb, [(name, Measured(name, 0.6, Acceptance(0.6, None, None, None, 3, 40, "too few requests for an interval")), False)], "n", tier)
    o = wb.override_for(tier, name)
    assert o.alpha_low is None and o.alpha_requests == 3 and o.alpha_method == "too few requests for an interval"
    assert workbook_problems(wb) == []


def test_typing_alpha_drops_a_measured_interval_and_keeps_a_typed_range_that_holds_it() -> None:
    from model.workbook.rows import drop_stale_interval

    c = TaskClass(alpha=0.7, alpha_low=0.6, alpha_high=0.8)
    drop_stale_interval(c, 0.75)
    assert (c.alpha_low, c.alpha_high) == (0.6, 0.8)
    drop_stale_interval(c, 0.85)
    assert c.alpha_low is None and c.alpha_high is None
    m = TaskClass(alpha=0.7, alpha_low=0.6, alpha_high=0.8, alpha_confidence=0.95, alpha_requests=10, alpha_method="x")
    drop_stale_interval(m, 0.72)
    assert m.alpha_low is None and m.alpha_requests == 0 and m.alpha_method == ""
