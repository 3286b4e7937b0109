"""What compare() reads whole rows of is kept in the window's PairCache while its inputs are as they were
(PairCache.kept): each class's traffic priced on each tier survives an acceptance edit and is priced again when a
price changes, and the result is a full comparison's to the bit either way."""
from __future__ import annotations

from model.comparison import PairCache, compare
from model.workbook.json_file import load_demo


def test_an_acceptance_edit_keeps_the_priced_traffic_and_a_price_edit_prices_it_again() -> None:
    wb = load_demo()
    cache = PairCache()
    first = compare(wb, cache)
    edited = wb.copy()
    edited.classes[1].alpha = 0.515 if edited.classes[1].alpha != 0.515 else 0.525
    second = compare(edited, cache)
    assert second.cells.class_cost is first.cells.class_cost
    priced = edited.copy()
    priced.tiers[2].price_out += 1.0
    third = compare(priced, cache)
    assert third.cells.class_cost is not second.cells.class_cost
    for cmp, book in ((second, edited), (third, priced)):
        full = compare(book)
        assert cmp.cells.class_cost.tobytes() == full.cells.class_cost.tobytes()
        assert cmp.tiers.monthly_cost.tobytes() == full.tiers.monthly_cost.tobytes()
    assert not third.cells.class_cost.flags.writeable  # shared by the comparisons made while it is kept
