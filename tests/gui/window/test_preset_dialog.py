"""Edit > Assume a published acceptance…: a preset for a class (or one tier's draft), its source shown, undoable."""
from __future__ import annotations

from gui.window.preset_dialog import PresetDialog, show_preset_dialog
from model.comparison.records import pair_records
from model.acceptance.presets import PRESETS


def _pick(dialog: PresetDialog, text: str) -> None:
    dialog.filter_edit.setText(text)
    assert dialog.table.rowCount() == 1, text


def test_a_preset_is_assumed_for_the_class_in_view_and_undone(qtbot, window) -> None:
    doc = window.document
    j = doc.workbook.class_index("json")
    window.input_tabs.setCurrentWidget(window.class_view)
    window.class_view.setCurrentIndex(window.class_model.index(j, 0))
    before = doc.workbook.classes[j].alpha
    dialog = show_preset_dialog(window)
    qtbot.addWidget(dialog)
    assert dialog.table.rowCount() == len(PRESETS) and dialog.class_combo.currentText() == "json"
    _pick(dialog, "eagle-3 maverick")
    assert "lmsys/sglang-EAGLE3-Llama-4-Maverick" in dialog.source_label.text() and not dialog.k_spin.isEnabled()
    dialog.accept()
    row = doc.workbook.classes[j]
    assert (row.acceptance_length, row.acceptance_length_k, row.alpha_source) == (2.45, 3, "assumed")
    assert "HF card" in row.source_note
    rec = next(r for r in pair_records(doc.comparison) if r["task_class"] == "json" and r["acceptance_kind"] != "alpha")
    assert rec["mean_acceptance_length"] is not None
    assert "Assume EAGLE-3" in doc.undo_stack.undoText()
    doc.undo_stack.undo()
    assert doc.workbook.classes[j].acceptance_length is None and doc.workbook.classes[j].alpha == before


def test_a_source_without_k_takes_the_k_given_and_an_impossible_one_keeps_the_dialog_open(qtbot, window) -> None:
    doc = window.document
    dialog = PresetDialog(doc, doc.workbook.class_index("prose"), 1, window)
    qtbot.addWidget(dialog)
    tier = doc.workbook.tiers[1].name
    _pick(dialog, "eagle-2 vicuna-7b 3090")  # 4.36 tokens a step, no K stated
    assert dialog.k_spin.isEnabled() and "states no K" in dialog.source_label.text()
    dialog.k_spin.setValue(2)  # at most K + 1 = 3 tokens a step: refused, nothing changed
    steps = doc.undo_stack.count()
    dialog.accept()
    assert "cannot occur at K = 2" in dialog.error_label.text() and doc.undo_stack.count() == steps
    dialog.k_spin.setValue(5)
    dialog.tier_check.setChecked(True)
    assert dialog.tier_combo.currentText() == tier
    dialog.accept()
    o = doc.workbook.override_for(tier, "prose")
    assert o is not None and (o.acceptance_length, o.acceptance_length_k) == (4.36, 5)
    assert "K not stated by the source, taken as 5" in o.source_note
    assert doc.workbook.classes[doc.workbook.class_index("prose")].acceptance_length is None


def test_a_filter_matching_nothing_disables_ok(qtbot, window) -> None:
    dialog = PresetDialog(window.document, 0, -1, window)
    qtbot.addWidget(dialog)
    dialog.filter_edit.setText("no such method")
    assert dialog.table.rowCount() == 0 and not dialog.ok_button.isEnabled()
    assert "No preset matches" in dialog.source_label.text()


def test_applying_a_preset_says_so_in_the_status_bar(qtbot, window) -> None:
    # QA at 1366x768: OK changed the class and closed the dialog with no word in the status bar (every other edit
    # from a dialog says what it changed and that Ctrl+Z takes it back)
    window.statusBar().clearMessage()
    dialog = show_preset_dialog(window)
    qtbot.addWidget(dialog)
    _pick(dialog, "eagle-3 maverick")
    dialog.accept()
    message = window.statusBar().currentMessage()
    assert message.startswith("Assume EAGLE-3") and "Undo with Ctrl+Z" in message, message
    assert message.split(". Undo")[0] == window.document.undo_stack.undoText()


def test_the_k_offered_is_the_k_of_the_tier_the_dialog_names(qtbot, window) -> None:
    # the selected tier row was a tier that drafts nothing (Northwind Standard, K 4): the combo named the first
    # speculative tier (Northwind Turbo, K 5) but the K offered was the other tier's 4
    wb = window.document.workbook
    dialog = PresetDialog(window.document, 0, 0, window)
    qtbot.addWidget(dialog)
    assert wb.tiers[0].speculative == "no"
    shown = dialog.tier_combo.currentText()
    assert dialog.k_spin.value() == wb.tiers[wb.tier_index(shown)].k == 5
    other = next(t for t in wb.tiers if t.speculative != "no" and t.k not in (5,))
    dialog.tier_combo.setCurrentText(other.name)
    assert dialog.k_spin.value() == other.k
