"""Measured acceptance into a workbook (model/measured_apply): matching, skipping, marking the source."""
from __future__ import annotations

from types import SimpleNamespace

from model.sampling.labels import pair_label, pair_note
from model.workbook.measured_apply import apply_plan, plan_measured
from model.workbook.json_file import load_demo


def _measured(name: str, alpha: float, stretches: int = 10) -> SimpleNamespace:
    # stands in for model.sampling.run.ClassResult: only these fields are read
    return SimpleNamespace(task_class=name, alpha=alpha, stretches=stretches)


def test_classes_match_by_name_ignoring_case_and_the_rest_is_listed() -> None:
    wb = load_demo()
    todo, skipped = plan_measured(wb, [_measured("CODE", 0.9), _measured("poetry", 0.3), _measured("json", float("nan"), 0)],
                                  add_missing=False)
    assert [(name, is_new) for name, _, is_new in todo] == [("code", False)]
    assert skipped == ["poetry (not in workbook)", "json (no stretches)"]
    todo, _ = plan_measured(wb, [_measured("poetry", 0.3)], add_missing=True)
    assert [(name, is_new) for name, _, is_new in todo] == [("poetry", True)]


def test_apply_sets_class_alpha_or_one_tiers_overrides_marked_measured() -> None:
    wb = load_demo()
    result = SimpleNamespace(draft="/x/demo_pair/draft", target="/x/demo_pair/target", k=4, temperature=0.0)
    assert pair_label(result) == "demo_pair/draft → demo_pair/target, K=4, T=0"
    note = pair_note(result)
    todo, _ = plan_measured(wb, [_measured("code", 0.91), _measured("poetry", 0.33)], add_missing=True)
    apply_plan(wb, todo, note, None)
    code, poetry = wb.classes[0], wb.classes[-1]
    assert (code.alpha, code.alpha_source, code.source_note) == (0.91, "measured", note)
    assert (poetry.name, poetry.alpha, poetry.alpha_source) == ("poetry", 0.33, "measured")
    tier = wb.tiers[1].name
    todo, _ = plan_measured(wb, [_measured("json", 0.7)], add_missing=False)
    apply_plan(wb, todo, note, tier)
    override = wb.override_for(tier, "json")
    assert override is not None and (override.alpha, override.alpha_source) == (0.7, "measured")
    assert wb.classes[1].alpha != 0.7  # the class's own alpha is left alone


def test_changed_block_names_the_cells_an_apply_sets():
    from types import SimpleNamespace

    from model.workbook.measured_apply import changed_block
    from model.workbook.json_file import load_demo

    wb = load_demo()
    result = SimpleNamespace(alpha=0.5)
    todo = [("prose", result, False), ("code", result, False), ("poetry", result, True)]
    assert changed_block(wb, todo, None) == ("classes", 0, 4, 6, 4)  # alpha column, code .. the new row
    row = wb.tier_index("Helix Fast")
    assert changed_block(wb, todo, "Helix Fast") == ("overrides", row, 0, row, 6)
    assert changed_block(wb, [], None) is None


def test_acceptance_on_a_tier_without_a_draft_is_said_to_be_unused():
    from model.workbook.json_file import load_demo
    from model.workbook.measured_apply import unused_acceptance_note

    wb = load_demo()
    assert wb.tiers[0].speculative == "no" and wb.tiers[1].speculative == "yes"
    note = unused_acceptance_note(wb, ["Northwind Standard"])
    assert "'Northwind Standard' does not run speculative decoding" in note and "not used" in note
    assert unused_acceptance_note(wb, ["Northwind Turbo"]) == ""
    assert unused_acceptance_note(wb, []) == ""
    both = unused_acceptance_note(wb, ["Helix Standard", "Northwind Standard", "Northwind Turbo"])
    assert "'Helix Standard', 'Northwind Standard' do not run" in both
