"""Where the server's reported alpha and the timing disagree beyond their intervals, the dock's row says so and
Apply says which figure it stores (before, Apply stored the reported 36.7% beside a timing 24.8% with no caution)."""
from __future__ import annotations

from PySide6.QtCore import Qt

from gui.document import Document
from gui.probe.panel import ProbePanel
from model.workbook.json_file import load_demo
from tests.model.probe.test_apply import _report

WORDS = "reported 36.7% (33.0–40.0%) and timing 24.8% (20.0–29.0%) disagree beyond their 95% intervals"


def test_the_row_and_apply_say_which_figure_is_stored(qtbot) -> None:
    doc = Document(load_demo())
    panel = ProbePanel(doc)
    qtbot.addWidget(panel)
    report = _report("yes", {"creative": 0.367, "code": 0.8})
    creative = report.classes[0]
    creative.alpha_source, creative.alpha_reported, creative.alpha_timing = "reported", 0.367, 0.248
    creative.sources_disagree = WORDS
    panel.report, panel.report_tier = report, doc.workbook.tiers[1].identity
    panel.results_model.set_report(report)
    panel._update_apply()
    model = panel.results_model
    source = model.index(0, 4)
    assert source.data() == "reported ⚠" and model.index(1, 4).data() == "timing"
    tip = model.index(0, 2).data(Qt.ItemDataRole.ToolTipRole)
    assert WORDS in tip and "stored by Apply, is the reported one" in tip
    label = panel.apply_row.apply_label.text()
    assert "creative reported 36.7% (timing 24.8%)" in label
    panel.apply_row.apply_button.click()
    assert "creative reported 36.7% (timing 24.8%)" in panel.message_label.text()
    o = doc.workbook.override_for(doc.workbook.tiers[1].name, "creative")
    assert o is not None and o.alpha == 0.367
