"""The "vs concurrency" chart draws model.comparison.load_curve for the selected tier (#25)."""
from __future__ import annotations

import numpy as np
import pytest

from gui.charts.panel import ChartsPanel
from model.comparison import compare
from model.comparison.load_curve import load_curve
from model.workbook.json_file import load_demo

TURBO, HELIX_FAST = 1, 3


@pytest.fixture
def panel(qtbot):
    widget = ChartsPanel()
    qtbot.addWidget(widget)
    widget.resize(520, 460)
    widget.show()
    return widget


def test_the_chart_shows_measured_points_the_claim_and_the_roofline_by_batch(panel):
    wb = load_demo()
    wb.tiers[TURBO].concurrency = 16
    wb.tiers[TURBO].measured_by_concurrency = "1: 2.4, 4: 2.1, 16: 1.3, 64: 0.8*"
    cmp = compare(wb)
    panel.tabs.setCurrentWidget(panel.load_chart)
    panel.show_result(wb, cmp, TURBO)
    chart = panel.load_chart
    x, y = chart.measured_points()
    assert list(x) == [1, 4, 16] and list(y) == [2.4, 2.1, 1.3]  # the throttled level is drawn apart
    assert chart.claim_point() == (1.0, wb.tiers[TURBO].claimed_speedup)
    bx, by = chart.roofline_line()
    expected = load_curve(wb, cmp.cells.alpha[TURBO], float(cmp.tiers.price_ratio[TURBO]), TURBO)
    assert np.array_equal(bx, expected.batches) and np.allclose(by, expected.roofline)
    assert "Northwind Turbo" in chart.title_label.text
    wb.tiers[TURBO].claim_concurrency = 8
    panel.show_result(wb, cmp, TURBO)
    assert chart.claim_point() == (8.0, wb.tiers[TURBO].claimed_speedup)
    panel.show_result(wb, cmp, HELIX_FAST)
    assert chart.roofline_line() is None and chart.measured_points() is None


def test_a_levels_interval_is_drawn_as_an_error_bar(panel):
    wb = load_demo()
    wb.tiers[TURBO].measured_by_concurrency = "1: 2.4 [2.1-2.7], 4: 2.1, 16: 1.3 [1.0-1.5], 64: 0.8* [0.6-1.1]"
    cmp = compare(wb)
    panel.tabs.setCurrentWidget(panel.load_chart)
    panel.show_result(wb, cmp, TURBO)
    chart = panel.load_chart
    x, low, high = chart.interval_bars()  # the throttled level is not used, its interval not drawn
    assert list(x) == [1, 16] and list(low) == [2.1, 1.0] and list(high) == [2.7, 1.5]
    bars = chart._bars.opts  # drawn at log10 of the level (the plot's x is log), from low to high
    assert np.allclose(bars["x"], np.log10([1, 16])) and np.allclose(bars["y"] - bars["bottom"], low)
    assert np.allclose(bars["y"] + bars["top"], high)
    panel.show_result(wb, cmp, HELIX_FAST)
    assert chart.interval_bars() is None


def test_the_note_wraps_within_the_plot(panel, qtbot):
    # a typed tier with nothing measured has two notes; on one line they ran past the pane's right edge
    wb = load_demo()
    cmp = compare(wb)
    panel.resize(460, 600)
    panel.tabs.setCurrentWidget(panel.load_chart)
    panel.show_result(wb, cmp, HELIX_FAST)
    qtbot.wait(20)
    chart = panel.load_chart
    note = chart._note.mapRectToParent(chart._note.boundingRect())
    assert chart._note.isVisible() and 0 <= note.left() and note.right() <= chart.plot.vb.width()
