"""The probe dock at a laptop's 1366 x 768: Run stays where it is while the estimate's words change height (it
jumped 28 px down when 'Run until decided' added the classes short of prompts), and a K mismatch takes one short
line of the footer, its whole story in the tooltip (it took 5 lines and left the results table its header)."""
from __future__ import annotations

import pytest

pytest.importorskip("httpx")

from gui.probe.dock import show_probe_panel  # noqa: E402
from model.acceptance.k_check import KMismatch  # noqa: E402


@pytest.fixture
def panel(qtbot, window):
    window.resize(1366, 768)
    show_probe_panel(window)
    panel = window.probe_panel
    qtbot.waitUntil(lambda: "Requests to decide" in panel.estimate_label.text(), timeout=5000)
    qtbot.wait(50)
    return panel


def test_run_does_not_move_when_the_estimate_changes_height(qtbot, panel):
    button, label = panel.run_row.run_button, panel.estimate_label
    y, height = button.mapTo(panel, button.rect().topLeft()).y(), label.height()
    before = label.text()
    panel.run_form.decide_check.setChecked(True)  # until decided: more requests, and classes short of prompts
    qtbot.waitUntil(lambda: label.text() != before and "until decided" in label.text(), timeout=5000)
    qtbot.waitUntil(lambda: label.height() != height, timeout=3000)  # the words did change height
    assert button.mapTo(panel, button.rect().topLeft()).y() == y
    panel.run_form.decide_check.setChecked(False)
    qtbot.waitUntil(lambda: label.text() == before, timeout=5000)
    qtbot.wait(50)
    assert button.mapTo(panel, button.rect().topLeft()).y() == y


def test_the_classes_short_of_prompts_take_one_line(qtbot, panel):
    panel.run_form.decide_check.setChecked(True)
    qtbot.waitUntil(lambda: "until decided" in panel.estimate_label.text(), timeout=5000)
    text = panel.estimate_label.text()
    assert text.count("<br>") == 1 and "code ~" in text.split("<br>")[1] and "summarisation ~" in text.split("<br>")[1]


@pytest.mark.parametrize("size", [(1366, 768), (1600, 1000)])
def test_a_k_mismatch_takes_one_short_line_of_the_footer(qtbot, panel, size):
    panel.window().resize(*size)
    row = panel.apply_row
    row.update_for(True, True, "Northwind Turbo", False)
    qtbot.wait(50)
    checks_at = row.flag_check.mapTo(row, row.flag_check.rect().topLeft()).y()  # below the footer's words
    row.update_for(True, True, "Northwind Turbo", False, KMismatch(4, "timing", 5, 4, "profile"))
    qtbot.waitUntil(lambda: row.flag_check.mapTo(row, row.flag_check.rect().topLeft()).y() != checks_at, timeout=3000)
    line = row.fontMetrics().lineSpacing()
    # the mismatch adds one line to the words above the check boxes (5 lines before)
    grown = row.flag_check.mapTo(row, row.flag_check.rect().topLeft()).y() - checks_at
    assert grown < 2 * line, (grown, line)
    assert "K mismatch: measured 4, the tier has 5" in row.k_label.text()
    assert not row.k_check.isChecked()  # Apply changes K only where the analyst ticks it
    row.k_check.setChecked(True)
    assert "from the steps' timing" in row.k_label.toolTip() and "Apply sets the tier's K from 5 to 4" in row.k_label.toolTip()
    row.k_check.setChecked(False)
    assert "kept at 5, numbers extrapolated" in row.k_label.text() and "labelled extrapolated" in row.k_label.toolTip()
    qtbot.wait(50)
    assert row.flag_check.mapTo(row, row.flag_check.rect().topLeft()).y() - checks_at == grown


@pytest.mark.parametrize("size", [(1366, 768), (1600, 1000)])
def test_the_results_table_keeps_its_rows_in_sight_under_long_words(qtbot, panel, size):
    # after a run until decided the outcome (6 lines) and the verdict (5) squeezed the table to one row of six;
    # the table keeps room for its rows and the dock scrolls instead
    from types import SimpleNamespace

    from model.probe.analysis import ClassProbe

    panel.window().resize(*size)
    rows = [ClassProbe(name, 5, 0.8, "reported", 0.8, None, None, 2.5, 3.0, [], 40, 0.1, 500.0, None)
            for name in ("code", "json", "extraction", "summarisation", "prose", "creative")]
    panel.results_model.set_report(SimpleNamespace(classes=rows))
    panel.show_message("Until decided: " + "; ".join(f"{r.task_class} decided (at or above 72.1%) after 5 requests"
                                                     for r in rows) + "; cost $0.0348.")
    panel.verdict_label.setText("<b>Runs speculative decoding: yes</b> " + "evidence " * 60)
    qtbot.wait(100)
    view = panel.table
    # the least the dock's layout may squeeze it to (under X at 1366x768 it squeezed it to that: one row shown)
    least = max(view.minimumHeight(), view.minimumSizeHint().height())
    chrome = view.height() - view.viewport().height()  # header, scroll bar, frame
    assert (least - chrome) // view.verticalHeader().defaultSectionSize() >= 6, (least, chrome)
    assert view.viewport().height() // view.verticalHeader().defaultSectionSize() >= 6


def test_the_first_hint_names_what_against_takes(panel):
    # Against lists the workbook's tiers: 'against demo-standard' named a model no tier in the list is called
    text = panel.verdict_label.text()
    assert "model demo-fast" in text and "Against (none), or a tier whose saved endpoint is model demo-standard" in text


def test_the_dock_keeps_its_width_whatever_apply_names(qtbot, panel):
    # 'Apply to <tier>' sized the button to the name: a long one widened the dock 46 px at 1366 x 768, and it
    # never narrowed again, so the dock changed width between runs
    dock, row = panel.window()._probe_dock, panel.apply_row
    width, button = dock.width(), row.apply_button.width()
    seen = []
    for name, speed_only in (("Orbital Standard Long N", False), ("NT", False), ("Apex", True), (None, False)):
        row.update_for(True, True, name, False, speed_only=speed_only)
        qtbot.wait(50)
        seen.append((name, dock.width(), row.apply_button.width(), row.apply_button.text()))
    assert {(w, b) for _, w, b, _ in seen} == {(width, button)}, seen
    # a short name is still on the button; a long one is said in the words above it
    assert seen[1][3] == "Apply to NT" and "Orbital Standard Long N" not in seen[0][3]
