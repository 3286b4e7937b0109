"""The probe dock's run row and Apply button as a new analyst read them at 1366 x 768 against serve-demo: 'done'
twice at the end of a run (in the bar and beside it), the rate's '63 tokens/s · 38 s' with 'left' wrapped alone
onto a second line, and after renaming the probed tier the button read 'Apply probed acceptance' (another action,
it seemed) instead of 'Apply to <tier>'."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("uvicorn")

from gui.probe.dock import show_probe_panel  # noqa: E402
from tests.gui.probe.test_probe_panel import RUN_TIMEOUT_MS, panel, server  # noqa: E402,F401  (its fixtures)


def _shown_whole(label) -> bool:
    """Every line of the label's text fits its width: none is wrapped at the label's edge."""
    fm, room = label.fontMetrics(), label.contentsRect().width()
    return all(fm.horizontalAdvance(line) <= room for line in label.text().split("\n"))


def test_a_run_ends_saying_done_once_and_apply_names_the_renamed_tier(qtbot, panel):  # noqa: F811
    with qtbot.waitSignal(panel.runner.finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
    said = panel.run_row.progress_bar.text() + " " + panel.run_row.rate_label.text()
    assert said.count("done") == 1, said
    button = panel.apply_row.apply_button
    tier = panel.endpoint.tier_combo.currentText()
    assert button.text().startswith(f"Apply to {tier[:9]}"), button.text()
    long_name = f"{tier} Old Contract Edition"
    panel.document.apply("rename", lambda wb: wb.rename_tier(tier, long_name))
    qtbot.waitUntil(lambda: "Old Contract" in panel.apply_row.apply_label.text(), timeout=3000)
    # the same action, on the same tier: its name on the button, cut to the button's one width, whole in the tooltip
    assert button.text().startswith(f"Apply to {tier[:9]}"), button.text()
    assert long_name in button.toolTip()
    assert button.fontMetrics().horizontalAdvance(button.text()) <= button.width()


def test_a_run_until_decided_says_done_in_the_bar_alone(qtbot, panel):  # noqa: F811
    row = panel.run_row
    row.started(48, at_most=True)
    row.finished(34, stopped=False)
    assert row.progress_bar.text() == "done after 34 of at most 48 requests" and row.rate_label.text() == ""
    row.started(48)
    row.finished(20, stopped=True)
    assert "stopped after" in row.progress_bar.text() and "done" not in row.rate_label.text()


@pytest.mark.parametrize("seconds", [38.0, None, 3725.0])
def test_the_rate_and_the_time_left_each_keep_one_line_at_1366(qtbot, window, seconds):
    window.resize(1366, 768)
    window.show()
    show_probe_panel(window)
    row = window.probe_panel.run_row
    row.started(96)
    row.set_running(True)
    row.progressed(30, 96, 63.0, seconds)
    qtbot.wait(50)
    label = row.rate_label
    assert _shown_whole(label), (label.text(), label.contentsRect().width())
    assert label.height() >= label.sizeHint().height()
    bar = row.progress_bar  # the bar keeps room for its words beside it
    assert bar.width() >= bar.fontMetrics().horizontalAdvance(bar.text()) + 16, bar.width()
    assert row.geometry().right() <= window.probe_panel.width()
