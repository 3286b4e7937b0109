"""The frozen name column covers exactly the table's rows as they are shown, after the table changes size.

Opening Tools > Probe a tier… at 1350 x 720 shrinks the Tiers table; the frozen column kept its old height (its
geometry was read from the viewport before the table laid it out), so its scroll range differed from the
table's and, a tier selected, the names stood a row off the rows beside them (seen under Xvfb)."""
from __future__ import annotations

from PySide6.QtCore import Qt

from gui.probe.dock import show_probe_panel


def _names_beside_their_rows(window) -> None:
    view, frozen = window.tier_view, window.frozen_columns[0].frozen
    assert frozen.height() == view.viewport().height() + view.horizontalHeader().height()
    assert frozen.verticalScrollBar().maximum() == view.verticalScrollBar().maximum()
    assert frozen.verticalScrollBar().value() == view.verticalScrollBar().value()
    for row in range(window.tier_model.rowCount()):
        index = window.tier_model.index(row, 0)
        assert frozen.visualRect(index).top() == view.visualRect(index).top(), row


def test_the_frozen_names_stay_beside_their_rows_when_a_dock_shrinks_the_table(qtbot, window):
    window.resize(1350, 720)
    qtbot.wait(400)  # the window's start-up fit of its panes
    _names_beside_their_rows(window)
    show_probe_panel(window)
    qtbot.wait(300)
    _names_beside_their_rows(window)
    frozen = window.frozen_columns[0].frozen
    window.tier_view.setCurrentIndex(window.tier_model.index(0, 0))
    frozen.setFocus()
    for _ in range(window.tier_model.rowCount()):  # down the names to the last tier, as a user does
        qtbot.keyClick(frozen, Qt.Key.Key_Down)
    _names_beside_their_rows(window)
    assert frozen.currentIndex().row() == window.tier_model.rowCount() - 1
