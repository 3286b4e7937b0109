"""Reaching a grid by keyboard keeps the tier the charts follow (QA under Xvfb at 1366x768).

A view of tiers by row with no current cell took Qt's default, row 0, as soon as it got focus without a click
(the Acceptance tab shown, Tab from the tables): the charts and Edit > Assume a published acceptance… switched to
the first tier, Northwind Standard, which drafts nothing, though nobody had chosen it.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt


@pytest.mark.parametrize("name", ["override_view", "results_view", "summary_view"])
def test_tabbing_into_a_grid_keeps_the_selected_tier(qtbot, window, name: str) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    window.tier_view.setCurrentIndex(window.tier_model.index(3, 0))  # Helix Fast
    assert window._tier_row == 3
    title = window.charts.trailer_chart.title_label.text
    assert "Helix Fast" in title
    view = getattr(window, name)
    if name == "override_view":
        window.input_tabs.setCurrentWidget(view)
    view.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(view.hasFocus, timeout=3000)
    assert window._tier_row == 3 and view.currentIndex().row() == 3
    assert window.charts.trailer_chart.title_label.text == title
    # the keys then move from there, as from a clicked cell
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert window._tier_row == 4
