"""Row add/duplicate/delete keep names unique and references valid (no Qt)."""
from __future__ import annotations

from model.workbook.row_edits import add_row, delete_rows, duplicate_rows, unique_name
from model.workbook.validation import workbook_problems
from model.workbook.json_file import load_demo


def test_unique_name():
    assert unique_name("New tier", []) == "New tier"
    assert unique_name("New tier", ["new tier", "New tier 2"]) == "New tier 3"


def test_add_duplicate_delete_keep_the_workbook_valid():
    wb = load_demo()
    at = add_row(wb, "tiers", 2)
    assert at == 2 and wb.tiers[2].name == "New tier"
    new = duplicate_rows(wb, "tiers", [4])  # Helix Fast (row 4 after the insert) carries the override
    copy = wb.tiers[new[0]]
    assert copy.name == "Helix Fast (copy)"
    assert wb.override_for(copy.name, "creative") is not None
    assert delete_rows(wb, "tiers", [0]) == 1
    assert all(t.baseline != "Northwind Standard" for t in wb.tiers)
    duplicate_rows(wb, "classes", [0, 1])
    delete_rows(wb, "classes", [5])
    assert workbook_problems(wb) == []


def test_a_new_row_is_filled_from_the_row_above_never_invented():
    wb = load_demo()
    above = wb.tiers[1]
    above.measured_speedup, above.measured_note = 1.9, "probed: demo server"
    at = add_row(wb, "tiers", 2)
    new = wb.tiers[at]
    assert new.name == "New tier" and new.notes == "" and new.claimed_speedup is None and above.claimed_speedup
    assert new.measured_speedup is None and new.measured_note == ""
    for field in ("vendor", "speculative", "k", "cost_model", "c", "v", "gpu", "pair", "batch",
                  "claim_context", "price_out", "price_in", "baseline"):
        assert getattr(new, field) == getattr(above, field), field
    assert not any(o.tier == new.name for o in wb.overrides)  # acceptance on another draft is not this one's
    # at the top there is nothing above: the row below is the one copied
    at = add_row(wb, "classes", 0)
    first, below = wb.classes[0], wb.classes[1]
    assert (first.alpha, first.context, first.tokens_out) == (below.alpha, below.context, below.tokens_out)
    assert (first.alpha_source, first.source_note) == ("assumed", f"filled from {below.name!r}")
    assert workbook_problems(wb) == []


def test_an_empty_table_gets_the_field_defaults():
    from model.workbook.rows import TaskClass, Workbook

    wb = Workbook()
    add_row(wb, "classes", 0)
    assert wb.classes == [TaskClass()]
