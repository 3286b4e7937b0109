"""Results copy out as numbers a spreadsheet computes with; words (verdicts, n/a, claims) stay words."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from gui.tables.spreadsheet_view import parse_tsv


def _copy(view, top, left, bottom, right) -> list[list[str]]:  # noqa: ANN001
    view.select_block(top, left, bottom, right)
    view.copy_selection()
    return parse_tsv(QGuiApplication.clipboard().text())


def test_the_results_grid_copies_the_numbers_behind_the_cells(qtbot, window) -> None:
    cmp = window.document.comparison
    rows = _copy(window.results_view, 0, 0, 1, 1)
    assert window.results_model.data(window.results_model.index(1, 0)).endswith("x")  # shown as 1.85x
    assert float(rows[1][0]) == cmp.cells.speedup[1, 0]  # copied in full, as a number
    assert float(rows[0][0]) == 1.0
    window.metric_combo.setCurrentIndex(window.metric_combo.findData("trailer_fill"))
    rows = _copy(window.results_view, 1, 0, 1, 0)
    assert rows[0][0].endswith("%") and abs(float(rows[0][0][:-1]) / 100 - cmp.cells.trailer_fill[1, 0]) < 1e-12
    window.metric_combo.setCurrentIndex(window.metric_combo.findData("optimal_k"))
    assert _copy(window.results_view, 1, 0, 1, 0)[0][0] == str(int(cmp.cells.optimal_k[1, 0]))
    assert _copy(window.results_view, 0, 0, 0, 0)[0][0] == "n/a"  # a plain tier has no best K: words stay


def test_the_summary_copies_money_as_numbers_and_verdicts_as_words(qtbot, window) -> None:
    model, cmp = window.summary_model, window.document.comparison
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    rows = _copy(window.summary_view, 1, 0, 1, model.columnCount() - 1)[0]
    cell = dict(zip(headers, rows))
    assert model.data(model.index(1, headers.index("Monthly cost"))).startswith("$")
    assert float(cell["Monthly cost"]) == cmp.tiers.monthly_cost[1]
    assert cell["Premium"].endswith("%") and abs(float(cell["Premium"][:-1]) / 100 - cmp.tiers.premium[1]) < 1e-12
    assert cell["Speed verdict"] == model.data(model.index(1, headers.index("Speed verdict")))
    assert cell["Claim"] == model.data(model.index(1, headers.index("Claim")))  # "3.00x at 4K" is words



