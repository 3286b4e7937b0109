"""Tiers added by Add row or a paste take only what was typed: their mechanics and prices read "not given", they
have no baseline, and no speedup, verdict, fair price or recommendation is made from a value nobody typed, in
the grid, its tooltip and legend, the charts and the brief. Duplicate rows stays the way to copy a tier."""
from __future__ import annotations

import math

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtGui import QGuiApplication

from model.comparison.brief import brief
from model.comparison import NOT_APPLICABLE

ZEPHYR = ["Zephyr Fast", "Zephyr Turbo", "Zephyr Lite"]


def _paste(qtbot, view, text: str, row: int, col: int) -> None:
    QGuiApplication.clipboard().setText(text)
    view.setFocus()
    m = view.model()
    view.setCurrentIndex(m.index(row, col))
    view.selectionModel().select(QItemSelection(m.index(row, col), m.index(row, col)),
                                 QItemSelectionModel.SelectionFlag.ClearAndSelect)
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)


def test_pasted_tiers_get_no_mechanics_prices_or_baseline_from_the_row_above(qtbot, window):
    doc, view = window.document, window.tier_view
    n = len(doc.workbook.tiers)
    above = doc.workbook.tiers[-1]
    assert above.baseline and above.k and above.price_out > 0  # what the old rule copied into the new rows
    window.input_tabs.setCurrentWidget(view)
    view.setCurrentIndex(window.tier_model.index(n - 1, 0))
    window.add_row()
    _paste(qtbot, view, "".join(f"{name}\tZephyr\tyes\n" for name in ZEPHYR), n, 0)
    doc.flush()
    tiers = doc.workbook.tiers
    assert [t.name for t in tiers[n:]] == ZEPHYR
    cmp = doc.comparison
    k_col, price_col = window.tier_model.column_of("k"), window.tier_model.column_of("price_out")
    for i in range(n, n + 3):
        t = tiers[i]
        assert t.baseline == "" and t.vendor == "Zephyr" and t.speculative == "yes"
        assert t.missing_mechanics() == "incomplete: needs K, c and v" and t.missing_prices()
        # the table says so instead of showing the placeholder
        assert window.tier_model.index(i, k_col).data() == "not given"
        assert window.tier_model.index(i, price_col).data() == "not given"
        assert all(math.isnan(x) for x in cmp.cells.speedup[i]) and (cmp.cells.verdict[i] == NOT_APPLICABLE).all()
        assert math.isnan(cmp.fair.factor[i]) and (cmp.cells.value_verdict[i] == NOT_APPLICABLE).all()
        for j in range(len(cmp.class_names)):
            index = window.results_model.index(i, j)
            assert index.data() == "–", index.data()
            tip = index.data(Qt.ItemDataRole.ToolTipRole)
            assert "Best K" not in tip and "no speedup" in tip
    # the colour the grid gives them is in the legend
    assert "not given" in window.legend.text()
    # the brief recommends nothing on them
    for b in brief(doc.workbook, cmp):
        if b.tier in ZEPHYR:
            assert not b.recommendation.lower().startswith("take"), b
    # the vs-alpha chart draws no curve for them
    from model.curves.chart_data import alpha_curves
    assert not set(alpha_curves(tiers).tier_names) & set(ZEPHYR)


def add_tier_typed(window, *typed: tuple[str, str]) -> int:
    """Add row below the last tier, then type `typed` (field, text) into it as the analyst would; its index."""
    doc, model = window.document, window.tier_model
    n = len(doc.workbook.tiers)
    window.tier_view.setCurrentIndex(model.index(n - 1, 0))
    window.add_row()
    doc.flush()
    for field, text in typed:
        assert model.setData(model.index(n, model.column_of(field)), text)
    doc.flush()
    return n


def test_typing_the_mechanics_and_prices_brings_the_verdicts_back(qtbot, window):
    doc, model = window.document, window.tier_model
    n = add_tier_typed(window, ("speculative", "yes"), ("k", "4"), ("c", "0.1"), ("v", "1.1"))
    cmp = doc.comparison
    assert not cmp.made_up(n) and all(math.isfinite(x) for x in cmp.cells.speedup[n])
    # a baseline typed with the prices still not given: the speed stands, the value is withheld and says why
    assert model.setData(model.index(n, model.column_of("baseline")), doc.workbook.tiers[0].name)
    doc.flush()
    cmp = doc.comparison
    assert cmp.value_withheld(n) == "its prices not given" and math.isnan(cmp.fair.factor[n])
    for field in ("price_out", "price_in"):
        assert model.setData(model.index(n, model.column_of(field)), "3")
    doc.flush()
    assert doc.comparison.value_withheld(n) == "" and math.isfinite(doc.comparison.fair.factor[n])


def test_duplicate_rows_still_copies_a_tier(qtbot, window):
    doc, view = window.document, window.tier_view
    src = doc.workbook.tiers[1]
    window.input_tabs.setCurrentWidget(view)
    view.setCurrentIndex(window.tier_model.index(1, 0))
    view.selectionModel().select(window.tier_model.index(1, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect)
    window.duplicate_rows()
    doc.flush()
    copy = doc.workbook.tiers[2]
    assert copy.name == f"{src.name} (copy)" and (copy.k, copy.c, copy.baseline) == (src.k, src.c, src.baseline)
    assert copy.defaulted == "" and not doc.comparison.made_up(2)


def test_the_per_tier_verdict_of_a_new_tier_reads_whole(qtbot, window):
    """'speculative unkno…' in the Per tier table after an Add row: the column refits when such a tier appears."""
    doc = window.document
    window.tier_view.setCurrentIndex(window.tier_model.index(len(doc.workbook.tiers) - 1, 0))
    window.add_row()
    doc.flush()
    view, model = window.summary_view, window.summary_model
    i = len(doc.workbook.tiers) - 1
    col = next(c for c in range(model.columnCount()) if model.headerData(c, Qt.Orientation.Horizontal) == "Speed verdict")
    text = model.index(i, col).data()
    assert text == "speculative unknown"
    assert view.columnWidth(col) >= view.fontMetrics().horizontalAdvance(text) + 6
