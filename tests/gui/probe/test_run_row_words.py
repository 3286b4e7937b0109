"""The probe dock's run row and Apply button as a new analyst read them at 1366 x 768 against serve-demo: 'done'
twice at the end of a run (in the bar and beside it), and after renaming the probed tier the button read 'Apply
probed acceptance' (another action, it seemed) instead of 'Apply to <tier>'. The rate's wrap: test_results_rows."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("uvicorn")

from tests.gui.probe.test_probe_panel import RUN_TIMEOUT_MS, panel, server  # noqa: E402,F401  (its fixtures)


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
