"""After Apply, the probe dock follows the document: the estimate counts only the classes the applied probe left
undecided (it counted every class afresh), a run until decided sends only those, and Ctrl+Z / Ctrl+Y of the
apply change what the dock says (it kept saying 'Applied the probe' after the undo)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("uvicorn")

from tests.gui.probe.test_probe_panel import RUN_TIMEOUT_MS, panel, server  # noqa: E402,F401  (its fixtures)
from gui.probe.decide_estimate import UNAPPLIED  # noqa: E402
from tests.gui.probe.test_until_decided_live import until_decided_on_code  # noqa: E402


@pytest.fixture
def decided(qtbot, panel, tmp_path, server):  # noqa: F811
    # code, 8 short prompts of 24 tokens: the demo pair's acceptance on them is far from Northwind Turbo's price
    # break-even: decided at the first look, 5 requests, on E at the tier's K (the steps imply a profile, which
    # Apply keeps); on alpha it took a second look (of the first 5, four read alike and one differs)
    until_decided_on_code(panel, tmp_path, server)
    panel.run_form.tokens_spin.setValue(24)
    with qtbot.waitSignal(panel.runner.finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
    [c] = panel.decided.classes
    assert c.stopped == "decided", c
    # all it meant to send was sent, against the one cap said before the run: 'done after 5 of at most 8 requests'
    # (not '5 of 8 requests' beside 'done', read as cut short, nor '5 of 5', a third plan)
    bar = panel.run_row.progress_bar
    assert (bar.value(), bar.maximum()) == (5, 8) and panel.run_row.rate_label.text() == ""  # "done" in the bar alone
    assert bar.text() == "done after 5 of at most 8 requests", bar.text()
    assert "code value verdict decided (" in panel.message_label.text() and "after 5 requests" in panel.message_label.text()
    # before the apply the workbook's code is the demo's assumed alpha: the estimate counts it
    qtbot.waitUntil(lambda: "until decided" in panel.estimate_label.text(), timeout=5000)
    assert "code decided" not in panel.estimate_label.text() and "code " in panel.estimate_label.text()
    return panel


def test_after_apply_the_estimate_and_the_run_leave_out_what_the_probe_decided(qtbot, decided):
    panel, doc = decided, decided.document
    with qtbot.waitSignal(doc.changed, timeout=5000):
        qtbot.mouseClick(panel.apply_row.apply_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "code decided" in panel.estimate_label.text(), timeout=5000)
    text = panel.estimate_label.text()
    assert "code ~" not in text and "code not" not in text and "in all" not in text
    assert "decided by the workbook's interval over 5 requests" in panel.estimate_label.toolTip()
    # nothing left to decide: the run sends nothing and says why
    asked: list[str] = []
    panel.confirm = lambda q: asked.append(q) or True
    qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
    assert not asked and not panel.runner.is_busy()
    assert "Nothing to send: the workbook's intervals already decide code" in panel.message_label.text()


def test_undo_and_redo_of_apply_change_what_the_dock_says(qtbot, decided):
    panel, doc = decided, decided.document
    # the probe shown is not applied: the estimate says it reads the workbook (it said 'code ~15' under 'code
    # decided after 5 requests' with nothing to tell the two apart)
    qtbot.waitUntil(lambda: UNAPPLIED in panel.estimate_label.text(), timeout=5000)
    with qtbot.waitSignal(doc.changed, timeout=5000):
        qtbot.mouseClick(panel.apply_row.apply_button, Qt.MouseButton.LeftButton)
    assert panel.message_label.text().startswith("Applied the probe to tier Northwind Turbo.")
    with qtbot.waitSignal(doc.changed, timeout=5000):
        doc.undo_stack.undo()
    said = panel.message_label.text()
    assert "Applied the probe" not in said and "Undid the apply to tier Northwind Turbo" in said
    assert "Apply is available again" in said and panel.apply_row.apply_button.isEnabled()
    qtbot.waitUntil(lambda: UNAPPLIED in panel.estimate_label.text(), timeout=5000)
    qtbot.waitUntil(lambda: "code decided" not in panel.estimate_label.text(), timeout=5000)  # the estimate follows
    with qtbot.waitSignal(doc.changed, timeout=5000):
        doc.undo_stack.redo()
    assert panel.message_label.text().startswith("Applied the probe to tier Northwind Turbo.")
    # the estimate is redrawn after the document settles: under load 'code decided' showed before the unapplied
    # line went (full suite, 2 cores shared)
    qtbot.waitUntil(lambda: "code decided" in panel.estimate_label.text()
                    and UNAPPLIED not in panel.estimate_label.text(), timeout=5000)
    # a second Apply changes nothing: no undo step, and no word that it applied
    count = doc.undo_stack.count()
    qtbot.mouseClick(panel.apply_row.apply_button, Qt.MouseButton.LeftButton)
    assert doc.undo_stack.count() == count and "nothing changed" in panel.message_label.text()
    # an edit after an undo drops the apply from the stack: the words stay 'undone'
    with qtbot.waitSignal(doc.changed, timeout=5000):
        doc.undo_stack.undo()
    doc.apply("currency", lambda wb: setattr(wb.settings, "currency", "EUR"))
    doc.flush()
    assert "Undid the apply" in panel.message_label.text()


def test_a_class_out_of_prompts_is_said_undecided_in_short():
    from gui.probe.verdict_text import decided_words
    from model.probe.until_decided import PROMPTS_USED_UP, ClassDecision, UntilDecidedRun

    run = UntilDecidedRun(classes=[ClassDecision("extraction", 0.7, stopped=PROMPTS_USED_UP, requests=8),
                                   ClassDecision("code", 0.72, decided=True, side="above", stopped="decided",
                                                 requests=1)], cost=None)
    assert decided_words(run, "USD") == ("Until decided: extraction undecided after 8 requests: every prompt of the "
                                         "class sent (add prompts); code decided (at or above its break-even, 72.0%) "
                                         "after 1 request.")
    # which verdict was decided, and where the grid shows it (it showed the speed verdict, 'undecided', beside
    # 'prose decided': the run had decided the value verdict)
    said = decided_words(run, "USD", priced={"code"})
    assert "code value verdict decided (at or above its price break-even, 72.0%) after 1 request" in said
    assert said.endswith("pick Value verdict above it to see the one decided.")
