"""The mouse wheel over the probe dock scrolls the dock; it never changes a box the pointer happens to be over.

Under Xvfb at 1366 x 768, scrolling the dock back up with the wheel while the pointer passed over Against set it
to "(none)" (a combo box takes the wheel, and focus with it, by default): the next run had no baseline, with
nothing said. A box changes on the wheel only once clicked into (it has the focus)."""
from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollArea

from gui.probe.dock import show_probe_panel


def _wheel(widget, up: bool = True) -> None:
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, 120 if up else -120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def _scroll_area(widget) -> QScrollArea:
    while not isinstance(widget, QScrollArea):
        widget = widget.parentWidget()
    return widget


def test_the_wheel_over_against_scrolls_the_dock_and_keeps_the_baseline(qtbot, window):
    window.resize(1350, 720)
    qtbot.wait(300)
    window.tier_view.setCurrentIndex(window.tier_model.index(3, 0))  # Helix Fast: Against Helix Standard
    show_probe_panel(window)
    qtbot.wait(300)
    panel = window.probe_panel
    against, tokens = panel.endpoint.baseline_combo, panel.run_form.tokens_spin
    chosen, asked = against.currentText(), tokens.value()
    assert chosen == "Helix Standard"
    bar = _scroll_area(against).verticalScrollBar()
    assert bar.maximum() > 0  # the form is taller than the dock at 1350 x 720
    bar.setValue(bar.maximum())
    for _ in range(3):
        _wheel(against)
        _wheel(tokens)
    assert against.currentText() == chosen and tokens.value() == asked
    assert bar.value() < bar.maximum()  # the wheel went to the dock instead
    # clicked into, a box takes the wheel as before
    against.setFocus()
    _wheel(against, up=False)
    assert against.currentText() != chosen
