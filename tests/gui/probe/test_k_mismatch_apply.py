"""The probe dock says when the K measured is not the probed tier's K, and Apply says (and does) what it does
about it: sets the tier's K to the K measured (ticked), or keeps it and says which numbers are extrapolated."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("uvicorn")

from tests.gui.probe.test_probe_panel import RUN_TIMEOUT_MS, panel, server  # noqa: E402,F401  (its fixtures)


@pytest.fixture
def turbo(panel):  # noqa: F811  (test_probe_panel's panel on its vLLM-style demo server, which drafts K = 4)
    url = panel.endpoint.url_edit.text()
    combo = panel.endpoint.tier_combo
    combo.setCurrentIndex(combo.findText("Northwind Turbo"))  # K = 5 in the workbook
    panel.endpoint.url_edit.setText(url)
    panel.endpoint.model_edit.setText("demo-fast")
    panel.endpoint.baseline_combo.setCurrentIndex(0)  # (none)
    panel.run_form.tokens_spin.setValue(24)
    panel.run_form.repeats_spin.setValue(2)
    return panel


def test_a_k_mismatch_is_said_and_apply_sets_the_tiers_k_or_keeps_it_saying_so(qtbot, turbo):
    panel = turbo
    with qtbot.waitSignal(panel.runner.finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
    report, row = panel.report, panel.apply_row
    assert report.k_estimate == 4 and report.k_mismatch is not None and report.k_mismatch.tier == 5
    # never ticked for the analyst: Apply keeps the workbook's K unless the analyst chooses the measured one
    assert not row.k_check.isHidden() and not row.k_check.isChecked()
    assert "kept at 5" in row.k_label.text() and "keeps the tier's K = 5" in row.k_label.toolTip()
    row.k_check.setChecked(True)
    # one short line, the whole story in its tooltip (5 lines of the footer at 1366x768 before)
    assert "K mismatch: measured 4, the tier has 5; Apply sets it to 4" in row.k_label.text()
    assert "from 5 to 4" in row.k_label.toolTip() and "K mismatch: the probe measured K = 4" in row.k_label.toolTip()
    row.k_check.setChecked(False)
    doc = panel.document
    i = doc.workbook.tier_index("Northwind Turbo")
    qtbot.mouseClick(row.apply_button, Qt.MouseButton.LeftButton)
    assert doc.workbook.tiers[i].k == 5
    doc.undo_stack.undo()
    row.k_check.setChecked(True)
    with qtbot.waitSignal(doc.changed, timeout=5000):  # the document coalesces its change signal
        qtbot.mouseClick(row.apply_button, Qt.MouseButton.LeftButton)
    assert doc.workbook.tiers[i].k == 4
    # the tier's K now agrees: no mismatch, no box
    assert row.k_check.isHidden() and row.k_label.isHidden()
    with qtbot.waitSignal(doc.changed, timeout=5000):
        doc.undo_stack.undo()  # one undo step: the K goes back with the acceptance
    assert doc.workbook.tiers[i].k == 5 and not row.k_check.isHidden()
