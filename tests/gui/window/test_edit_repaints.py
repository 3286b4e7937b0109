"""After an edit typed into the window, what is on screen is what a fresh drawing shows: the tables and the
charts repaint only what changed (gui/tables/shown_cells.py, gui/charts/row_items.py, curve_layer.py), and a
cell, bar or label they left out would stay on screen with its old value."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QWidget


def _pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())[
        :, :image.width() * 4].copy()


def _screen_matches_fresh(window, widget: QWidget) -> bool:  # noqa: ANN001
    """The widget's part of the window as painted (its backing store) equals the same part of the window drawn
    from scratch (the whole window, so hatch patterns keep the window's origin)."""
    at = widget.mapTo(window, QPoint(0, 0))

    def part(image: QImage) -> np.ndarray:
        return _pixels(image)[at.y():at.y() + widget.height(), at.x() * 4:(at.x() + widget.width()) * 4]

    return np.array_equal(part(window.screen().grabWindow(window.winId()).toImage()), part(window.grab().toImage()))


def _type(qtbot, window, model, row: int, field: str, text: str) -> None:  # noqa: ANN001
    assert model.setData(model.index(row, model.column_of(field)), text)
    window.document.flush()
    qtbot.wait(60)


@pytest.mark.parametrize("tab", ["trailer_chart", "alpha_chart", "context_chart", "load_chart", "position_chart"])
def test_typed_edits_leave_the_screen_as_a_fresh_drawing(qtbot, window, tab: str) -> None:  # noqa: ANN001
    window.charts.tabs.setCurrentWidget(getattr(window.charts, tab))
    window.tier_view.setCurrentIndex(window.tier_model.index(1, 0))  # Northwind Turbo
    qtbot.wait(60)
    _type(qtbot, window, window.class_model, 2, "alpha", "74%")  # the first edit lays the charts out once
    # the cells (a header or a frozen column over it draws its own highlight states), and the chart
    views = (window.results_view.viewport(), window.summary_view.viewport(), window.charts.current_chart().viewport())
    before_text = window.results_model.data(window.results_model.index(1, 2))
    before_fill = window.charts.trailer_chart.fill_data()["extraction"]
    _type(qtbot, window, window.class_model, 2, "alpha", "55%")
    # the numbers follow the edit ...
    assert window.results_model.data(window.results_model.index(1, 2)) != before_text
    assert window.charts.trailer_chart.fill_data()["extraction"][1] == pytest.approx(0.55) != before_fill[1]
    # ... and so does the screen, everywhere
    for view in views:
        assert _screen_matches_fresh(window, view), view
    _type(qtbot, window, window.tier_model, 1, "k", "7")  # the shown tier's K: a new trailer frame
    assert window.charts.trailer_chart.fill_data()["extraction"][2] == 7
    for view in views:
        assert _screen_matches_fresh(window, view), view
