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


def test_a_new_tier_takes_nothing_from_the_row_above():
    """A new tier is not the row above's vendor's: its mechanics and prices are marked not given, it has no
    baseline, and compare() models nothing from it until they are typed."""
    import math

    from model.comparison import compare
    from model.comparison import NOT_APPLICABLE

    wb = load_demo()
    above = wb.tiers[1]
    assert above.baseline and above.price_out > 0 and above.speculative == "yes"
    at = add_row(wb, "tiers", 2)
    new = wb.tiers[at]
    assert new.name == "New tier" and new.vendor == "" and new.baseline == "" and new.notes == ""
    assert new.claimed_speedup is None and new.measured_speedup is None
    assert new.speculative == "unknown" and new.price_out == 0.0 == new.price_in
    assert set(new.defaulted_fields()) == {"speculative", "k", "c", "v", "gpu", "pair", "price_out", "price_in"}
    assert new.missing_mechanics() == "speculative unknown" and new.missing_prices() == "prices not given"
    assert not any(o.tier == new.name for o in wb.overrides)
    cmp = compare(wb)
    assert all(math.isnan(x) for x in cmp.cells.speedup[at]) and (cmp.cells.verdict[at] == NOT_APPLICABLE).all()
    assert math.isnan(cmp.tiers.mix_speedup[at]) and math.isnan(cmp.fair.factor[at])
    assert workbook_problems(wb) == []


def test_a_new_class_takes_nothing_from_the_row_above():
    """A new class's acceptance, context and tokens are not given (it used to copy the row above's, alpha 'assumed'),
    whether added at the top or below a row; it is valid, and Duplicate rows still copies a class."""
    from model.workbook.row_edits import duplicate_rows

    wb = load_demo()
    for at in (0, 3):
        add_row(wb, "classes", at)
        new = wb.classes[at]
        assert new.defaulted_fields() == ["alpha", "context", "tokens_out", "tokens_in"]
        assert (new.tokens_out, new.tokens_in, new.alpha_source, new.source_note) == (0.0, 0.0, "assumed", "")
        assert new.missing_acceptance() == "acceptance and context not given"
    assert workbook_problems(wb) == []
    copy_at, = duplicate_rows(wb, "classes", [1])
    copy, source = wb.classes[copy_at], wb.classes[1]
    assert (copy.alpha, copy.context, copy.tokens_out, copy.defaulted) == (source.alpha, source.context,
                                                                           source.tokens_out, "")


def test_an_empty_table_gets_the_field_defaults():
    from model.workbook.rows import TaskClass, Workbook

    wb = Workbook()
    add_row(wb, "classes", 0)
    assert wb.classes == [TaskClass(defaulted="alpha, context, tokens_out, tokens_in")]
