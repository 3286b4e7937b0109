"""What the probe dock says when Run cannot start, at a laptop's 1366x768 (QA under Xvfb): the message came out
below the visible part of the scrolled dock, so the click had no visible answer; and Run until decided was refused
for a baseline without an endpoint, though it sends the tier alone."""
from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QScrollArea

from gui.probe.dock import show_probe_panel


def _area(panel) -> QScrollArea:  # noqa: ANN001
    area = panel.parentWidget()
    while not isinstance(area, QScrollArea):
        area = area.parentWidget()
    return area


def test_a_message_from_run_is_scrolled_into_sight(qtbot, window) -> None:
    # under Xvfb at 1366x768 the form above the message was taller than here offscreen (the estimate's prompt
    # warnings, the X fonts): a shorter window puts the message below the dock's fold the same way
    window.resize(1366, 600)
    show_probe_panel(window)
    panel = window.probe_panel
    panel.run_form.decide_check.setChecked(True)  # the estimate grows: Run and its message move down
    qtbot.wait(400)
    panel.endpoint.url_edit.setText("")
    area = _area(panel)
    area.verticalScrollBar().setValue(0)
    qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
    label = panel.message_label
    assert label.isVisible() and label.text()

    def in_sight() -> bool:
        top = label.mapTo(area.viewport(), QPoint(0, 0)).y()
        return top >= 0 and top + label.height() <= area.viewport().height()

    qtbot.waitUntil(in_sight, timeout=2000)


def test_run_until_decided_needs_no_baseline_endpoint(qtbot, window) -> None:
    show_probe_panel(window)
    panel = window.probe_panel
    panel.endpoint.url_edit.setText("http://127.0.0.1:9/v1")
    panel.endpoint.model_edit.setText("demo-fast")
    base = panel.endpoint.baseline_combo
    assert base.currentText() == "Northwind Standard"  # the tier's baseline, no endpoint saved to it
    asked: list[str] = []
    panel.confirm = lambda text: asked.append(text) or False  # nothing is sent
    panel.run_form.decide_check.setChecked(True)
    qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
    assert asked and "until each class is decided" in asked[0], panel.message_label.text()
    assert panel.message_label.text() == "Nothing sent."
    # a fixed run does compare with the baseline: there the missing endpoint is still said
    panel.run_form.decide_check.setChecked(False)
    qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
    assert "has no endpoint" in panel.message_label.text() and len(asked) == 1
