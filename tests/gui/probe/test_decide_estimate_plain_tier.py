"""The probe dock's 'to decide' line for a tier without a verdict to decide (it does not run speculative
decoding): one plain sentence, not 'code not decidable · json not decidable · …' for every class, which read as
if probing more would help. Seen choosing Northwind Standard in the dock under Xvfb."""
from __future__ import annotations

import pytest

pytest.importorskip("httpx")

from gui.document import Document  # noqa: E402
from gui.probe.panel import ProbePanel  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402


def test_a_plain_tier_has_nothing_to_decide(qtbot):
    panel = ProbePanel(Document(load_demo()))
    qtbot.addWidget(panel)
    panel.endpoint.tier_combo.setCurrentIndex(panel.endpoint.tier_combo.findText("Northwind Standard"))
    panel.update_estimate()
    text = panel.estimate_label.text()
    assert "not decidable" not in text
    assert "Northwind Standard does not run speculative decoding" in text
    # a speculative tier still gets its per-class requests
    panel.endpoint.tier_combo.setCurrentIndex(panel.endpoint.tier_combo.findText("Northwind Turbo"))
    panel.update_estimate()
    assert "code ~" in panel.estimate_label.text()
