"""A tier whose prices nobody gave (Add row, paste, a price list without them) costs nothing the brief can state:
its Cost line says the prices are not given, not "$0 a month" from a new row's placeholder zeros."""
from __future__ import annotations

from model.comparison import compare
from model.comparison.brief import brief
from model.workbook.json_file import load_demo
from model.workbook.row_edits import add_row


def _entry(wb, name):
    return next(e for e in brief(wb, compare(wb)) if e.tier == name)


def test_a_new_rows_cost_line_says_its_prices_are_not_given():
    wb = load_demo()
    row = add_row(wb, "tiers", len(wb.tiers))
    wb.tiers[row].name, wb.tiers[row].vendor, wb.tiers[row].speculative = "Zephyr Fast", "Zephyr AI", "yes"
    entry = _entry(wb, "Zephyr Fast")
    assert "$0" not in entry.cost
    assert "not given" in entry.cost
    # once typed, the price is the analyst's: the cost follows it
    tier = wb.tiers[row]
    tier.price_out, tier.price_in = 12.0, 2.0
    tier.entered("price_out")
    tier.entered("price_in")
    assert "a month" in _entry(wb, "Zephyr Fast").cost and "not given" not in _entry(wb, "Zephyr Fast").cost


def test_a_tier_priced_against_a_baseline_without_prices_says_so():
    wb = load_demo()
    standard = wb.tiers[wb.tier_index("Helix Standard")]
    standard.price_out = standard.price_in = 0.0
    standard.defaulted = "price_out, price_in"
    cost = _entry(wb, "Helix Fast").cost
    assert "Helix Standard" in cost and "not given" in cost and "$0" not in cost
