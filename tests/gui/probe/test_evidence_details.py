"""The probe dock's evidence, after a run against a llama.cpp-style server: one lead line (the stream's style and
what its steps showed) and a 'details' link for the rest; the whole paragraph (logprobs, silent tokens, steps
left out, K from the draft counts) took 12 lines of the narrow dock above the table."""
from __future__ import annotations

from html import escape

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("uvicorn")

from gui.probe.verdict_text import DETAILS, LESS  # noqa: E402
from tests.gui.probe.test_probe_panel import RUN_TIMEOUT_MS, panel  # noqa: E402,F401  (its fixture)
from tests.probe_servers import serving  # noqa: E402


@pytest.fixture(scope="module")
def server():
    yield from serving("llamacpp")


def test_the_evidence_leads_with_one_line_and_shows_the_rest_on_demand(qtbot, panel):  # noqa: F811
    panel.endpoint.baseline_combo.setCurrentIndex(0)  # the tier alone: the evidence is about its stream
    panel.run_form.tokens_spin.setValue(64)  # steps enough for a verdict, and the whole paragraph behind it
    with qtbot.waitSignal(panel.runner.finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
    evidence = panel.report.evidence
    # the paragraph this is about: several sentences (1,300 characters at 48 tokens on the demo prompts)
    assert len(evidence) > 300 and evidence.count(". ") >= 3, evidence
    label = panel.verdict_label
    short = label.text()
    assert DETAILS in short and evidence not in short
    lead = short.split("<br>", 1)[1].split("<a ", 1)[0]
    # one line's worth at the dock's width, not the 12
    assert len(lead) < 200 and lead.strip() and evidence.startswith(lead.strip().split(" K about")[0][:40])
    label.linkActivated.emit(DETAILS)
    assert LESS in label.text() and escape(evidence) in label.text()  # the details: all of it
    label.linkActivated.emit(LESS)
    assert label.text() == short
