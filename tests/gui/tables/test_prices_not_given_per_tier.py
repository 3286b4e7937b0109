"""The Per tier table of a tier whose list prices nobody typed (Add row): its monthly cost, cost per 1x, and the
premium and price ratio of any tier priced against it read "not given" with a tooltip saying whose prices to
type, not "$0" or "-100%" from the placeholder 0 (docs/design/verdicts.md#prices-nobody-gave)."""
from __future__ import annotations

from PySide6.QtCore import Qt

from gui.tables.summary_model import SUMMARY_COLUMNS
from tests.gui.tables.test_new_rows_not_given import add_tier_typed


def _cell(window, i: int, header: str, role=Qt.ItemDataRole.DisplayRole) -> str:
    col = [h for h, _, _ in SUMMARY_COLUMNS].index(header)
    return window.summary_model.index(i, col).data(role)


def test_a_new_tiers_bill_reads_not_given_and_says_whose_prices(qtbot, window):
    doc, model = window.document, window.tier_model
    n = add_tier_typed(window, ("name", "Zephyr Fast"), ("speculative", "yes"), ("k", "4"), ("c", "0.1"), ("v", "1.1"),
                       ("baseline", "Helix Standard"))
    # and the new tier becomes Northwind Turbo's baseline: a priced tier over one nobody priced
    turbo = doc.workbook.tier_index("Northwind Turbo")
    assert model.setData(model.index(turbo, model.column_of("baseline")), "Zephyr Fast")
    doc.flush()
    for header in ("Monthly cost", "Cost per 1x", "Premium", "Price ratio"):
        assert _cell(window, n, header) == "not given", header
        tip = _cell(window, n, header, Qt.ItemDataRole.ToolTipRole)
        assert "list prices of Zephyr Fast" in tip and "0 for a free tier" in tip
    assert _cell(window, turbo, "Monthly cost").startswith("$")  # its own prices were typed
    for header in ("Premium", "Price ratio"):
        assert _cell(window, turbo, header) == "not given", header
        assert "list prices of Zephyr Fast" in _cell(window, turbo, header, Qt.ItemDataRole.ToolTipRole)
    assert "prices not given" in _cell(window, turbo, "Value verdict")
    # typed, the bill follows the prices (0 typed is a free tier: $0)
    for field in ("price_out", "price_in"):
        assert model.setData(model.index(n, model.column_of(field)), "0")
    doc.flush()
    assert _cell(window, n, "Monthly cost") == "$0" and _cell(window, turbo, "Premium") != "not given"


def test_the_grids_value_cells_say_prices_not_given(qtbot, window):
    """The results grid's value verdict and price ratio of a tier priced against one nobody priced read the reason,
    and the tooltip says what to type (it read "n/a (neither tier has a price for this traffic)")."""
    doc = window.document
    helix = doc.workbook.tier_index("Helix Standard")
    doc.apply("prices", lambda wb: (setattr(wb.tiers[helix], "price_out", 0.0), setattr(wb.tiers[helix], "price_in", 0.0),
                                    setattr(wb.tiers[helix], "defaulted", "price_out, price_in")))
    doc.flush()
    i, model = doc.workbook.tier_index("Helix Fast"), window.results_model
    for metric in ("value_verdict", "price_ratio"):
        model.set_metric(metric)
        cell = model.index(i, 0)
        assert cell.data() == "prices not given", metric
        assert "baseline Helix Standard: prices not given" in cell.data(Qt.ItemDataRole.ToolTipRole)
    assert model.index(doc.workbook.tier_index("Helix Standard"), 0).data() == "n/a"  # a plain tier: none to judge
