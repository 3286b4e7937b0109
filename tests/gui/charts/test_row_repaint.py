"""The trailer chart repaints only what an edit moved, and what it repaints is what a fresh drawing shows.

An edit of one class moves one row: its bars, its break-even tick and its numbers. The chart repaints that row's
strip alone (not the plot and its axes), an edit that leaves the chart's data as it was repaints nothing, and the
pixels on screen after the partial repaint equal the chart drawn from scratch (a bar or label left unrepainted,
a broken cache, would leave the old row on screen).
"""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject, QRect
from PySide6.QtGui import QImage

from gui.charts.panel import ChartsPanel
from gui.charts.row_items import RowLabelAxis
from model.comparison import compare
from model.workbook.json_file import load_demo
from model.workbook.rows import Workbook

TURBO = 1


class PaintRegions(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.regions: list[QRect] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Paint:
            self.regions.append(event.region().boundingRect())
        return False


def _pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())[:, :image.width() * 4].copy()


def _on_screen(panel: ChartsPanel) -> np.ndarray:
    """What the window shows now: its backing store, incremental repaints included."""
    return _pixels(panel.screen().grabWindow(panel.winId()).toImage())


def _fresh(panel: ChartsPanel) -> np.ndarray:
    """The same widget drawn from scratch from its items' present state."""
    return _pixels(panel.grab().toImage())


def shown_panel(qtbot, chart_name: str = "trailer_chart"):  # noqa: ANN001, ANN201
    """A charts panel on screen, ``chart_name``'s tab shown with the demo's Turbo drawn, and ``show(workbook)``
    that draws an edited workbook and returns the chart's paint regions. One edit is made first: the first edit
    after a first drawing lays the scene out once."""
    wb = load_demo()
    panel = ChartsPanel()
    qtbot.addWidget(panel)
    panel.resize(520, 700)
    panel.show()
    qtbot.waitExposed(panel)
    chart = getattr(panel, chart_name)
    panel.tabs.setCurrentWidget(chart)
    panel.show_result(wb, compare(wb), TURBO)
    qtbot.wait(50)
    regions = PaintRegions()
    chart.viewport().installEventFilter(regions)

    def show(workbook: Workbook) -> list[QRect]:
        regions.regions.clear()
        panel.show_result(workbook, compare(workbook), TURBO)
        qtbot.wait(50)
        return list(regions.regions)

    show(_with_alpha(wb, 2, 0.74))
    return panel, wb, show


@pytest.fixture
def shown(qtbot):  # noqa: ANN001, ANN201
    return shown_panel(qtbot)


def _with_alpha(wb: Workbook, j: int, alpha: float) -> Workbook:
    edited = wb.copy()
    edited.classes[j].alpha = alpha
    return edited


def test_a_class_edit_repaints_its_row_and_the_screen_matches_a_fresh_drawing(shown) -> None:  # noqa: ANN001
    panel, wb, show = shown
    chart = panel.trailer_chart
    before = _on_screen(panel)
    regions = show(_with_alpha(wb, 2, 0.55))
    assert chart.fill_data()["extraction"][1] == pytest.approx(0.55)
    assert regions, "the edited row was not repainted"
    height = chart.viewport().height()
    assert all(r.height() < height / 4 for r in regions), regions  # one row's strip, not the plot
    after = _on_screen(panel)
    assert not np.array_equal(after, before)  # the row did change on screen
    np.testing.assert_array_equal(after, _fresh(panel))
    # and again, another row and a value that moves its bars the other way
    show(_with_alpha(_with_alpha(wb, 2, 0.55), 4, 0.9))
    np.testing.assert_array_equal(_on_screen(panel), _fresh(panel))


def test_an_edit_the_chart_does_not_show_repaints_nothing(shown) -> None:  # noqa: ANN001
    panel, wb, show = shown
    show(_with_alpha(wb, 2, 0.55))
    priced = _with_alpha(wb, 2, 0.55)
    priced.tiers[TURBO].price_out = priced.tiers[TURBO].price_out * 2 + 1  # a price: no bar, tick or number moves
    before = _on_screen(panel)
    assert show(priced) == []
    np.testing.assert_array_equal(_on_screen(panel), before)


def test_a_row_label_axis_repaints_only_labels_that_changed(qtbot) -> None:  # noqa: ANN001
    axis = RowLabelAxis("right")
    assert axis.set_rows([2.0, 1.0, 0.0], ["a", "b", "c"])
    assert not axis.set_rows([2.0, 1.0, 0.0], ["a", "b", "c"])  # the same words: nothing to repaint
    assert axis.set_rows([2.0, 1.0, 0.0], ["a", "B", "c"])
    assert axis.labels() == ["a", "B", "c"]
    assert axis.set_rows([1.0, 0.0], ["x", "y"])  # other rows: all of it
    assert axis.labels() == ["x", "y"]
