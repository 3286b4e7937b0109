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
