"""The probe dock's results table at a laptop's 1366x768: rows as tall as the window's tables' (QA under Xvfb:
Qt's default 30 px rows showed 3 of the demo's 6 classes after a run, the rest under the dock's scroll)."""
from __future__ import annotations

from gui.probe.dock import show_probe_panel
from tests.model.probe.test_apply import _report


def test_the_results_rows_are_as_tall_as_the_windows_tables(qtbot, window) -> None:
    window.resize(1366, 768)
    show_probe_panel(window)
    panel = window.probe_panel
    names = [c.name for c in window.document.workbook.classes]
    panel.results_model.set_report(_report("yes", {n: 0.7 for n in names}))
    qtbot.wait(20)
    assert panel.results_model.rowCount() == 6
    assert panel.table.rowHeight(0) == window.class_view.rowHeight(0) < 30
