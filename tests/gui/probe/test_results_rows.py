"""The probe dock's results table at a laptop's 1366x768: rows as tall as the window's tables' (QA under Xvfb:
Qt's default 30 px rows showed 3 of the demo's 6 classes after a run, the rest under the dock's scroll)."""
from __future__ import annotations

import pytest

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


@pytest.mark.parametrize("seconds", [None, 38.0, 3725.0])
def test_the_progress_bar_keeps_its_words_beside_the_rate(qtbot, window, seconds) -> None:
    # at 1366x768 the rate beside it ('140 tokens/s · estimating time left') squeezed the bar to 95 px and its
    # '25 of 120 requests' was cut (QA under Xvfb, a run until decided on serve-demo); then the rate wrapped at the
    # label's edge, 'left' alone on a second line ('63 tokens/s · 38 s' | 'left'): each phrase keeps its line
    window.resize(1366, 768)
    window.show()
    show_probe_panel(window)
    row = window.probe_panel.run_row
    row.started(120)
    row.set_running(True)
    row.progressed(25, 120, 140.0, seconds)
    qtbot.wait(20)
    bar = row.progress_bar
    assert bar.text() == "25 of 120 requests"
    assert bar.width() >= bar.fontMetrics().horizontalAdvance(bar.text()) + 16, bar.width()
    label = row.rate_label
    fm, room = label.fontMetrics(), label.contentsRect().width()
    assert all(fm.horizontalAdvance(line) <= room for line in label.text().split("\n")), (label.text(), room)
    assert label.height() >= label.sizeHint().height()  # the rate and the time left shown whole
    assert row.geometry().right() <= window.probe_panel.width()
