"""The Measure panel's K takes the one range the validator gives K everywhere."""
from __future__ import annotations

from gui.document import Document
from gui.sampling.panel import SamplingPanel
from model.workbook.json_file import load_demo
from model.workbook.validation import K_LIMITS


def test_the_panels_k_range_is_the_validators(qtbot) -> None:
    panel = SamplingPanel(Document(load_demo()))
    qtbot.addWidget(panel)
    assert (panel.k_spin.minimum(), panel.k_spin.maximum()) == K_LIMITS
