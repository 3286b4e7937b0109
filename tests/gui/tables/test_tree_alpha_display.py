"""A tree tier's classes given as one alpha: the grid shows no speedup and says why; the trailer says so too."""
from __future__ import annotations

from PySide6.QtCore import Qt


def test_a_tree_tier_shows_why_an_alpha_class_has_no_speedup(qtbot, window) -> None:
    doc = window.document
    i = 1  # Northwind Turbo, K = 5

    def treeify(wb):
        wb.tiers[i].tree_size = 24
    doc.apply("tree", treeify)
    model = window.results_model
    index = model.index(i, doc.workbook.class_index("code"))
    assert model.data(index) == "–"
    tip = model.data(index, Qt.ItemDataRole.ToolTipRole)
    assert "drafts a tree" in tip and "a length or a profile" in tip and "Assume a published acceptance" in tip
    window.charts.show_result(doc.workbook, doc.comparison, i)
    window.charts.flush()
    assert window.charts.trailer_chart.row_labels()[0] == "α 0.80 · a tree needs a length"
    # undone: the chain's numbers again
    doc.undo_stack.undo()
    assert model.data(index) != "–"
