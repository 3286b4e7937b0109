"""Edit > Enter a stated acceptance…: a vendor's figure typed with its convention, shown converted, applied, undone."""
from __future__ import annotations

import pytest

from gui.window.stated_dialog import StatedDialog, show_stated_dialog
from model.acceptance.conventions import CONVENTIONS


def _choose(dialog: StatedDialog, key: str) -> None:
    dialog.convention_combo.setCurrentIndex([c.key for c in CONVENTIONS].index(key))


def _cell(dialog: StatedDialog, key: str) -> str:
    return dialog.table.item([c.key for c in CONVENTIONS].index(key), 1).text()


def test_the_menu_offers_it_beside_the_published_acceptance(window) -> None:
    edit = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    texts = [a.text() for a in edit.actions()]
    i = texts.index("Assume a &published acceptance…")
    assert texts[i + 1] == "Enter a s&tated acceptance…"


def test_a_stated_rate_is_converted_applied_to_the_class_and_undone(qtbot, window) -> None:
    doc = window.document
    j = doc.workbook.class_index("json")
    window.input_tabs.setCurrentWidget(window.class_view)
    window.class_view.setCurrentIndex(window.class_model.index(j, 0))
    before = doc.workbook.classes[j].alpha
    dialog = show_stated_dialog(window)
    qtbot.addWidget(dialog)
    assert dialog.class_combo.currentText() == "json" and not dialog.ok_button.isEnabled()  # nothing typed yet
    # SGLang 0.5.x's "accept rate 62%" at K = 3 is E / (K + 1): E = 2.48, draft acceptance rate 1.48 / 3 = 49.3%
    _choose(dialog, "rate_with_bonus")
    assert "SGLang 0.5.x" in dialog.printed_label.text()
    dialog.value_edit.setText("62%")
    assert "needs K" in _cell(dialog, "length")  # no K yet: what needs one says so
    dialog.k_spin.setValue(3)
    dialog.source_edit.setText("Acme slides p. 4")
    assert _cell(dialog, "length") == "2.480" and _cell(dialog, "draft_rate") == "49.3%"
    assert _cell(dialog, "rate_with_bonus") == "62.0%  (as stated)" and "every draft K = 3 long" in dialog.assumptions_label.text()
    dialog.accept()
    row = doc.workbook.classes[j]
    assert (row.acceptance_length, row.acceptance_length_k, row.alpha_source) == (pytest.approx(2.48), 3, "assumed")
    assert row.source_note.startswith("stated: 62% accepted including the bonus / (steps x (K + 1)) at K = 3, Acme slides")
    assert "Assume the stated" in doc.undo_stack.undoText()
    doc.undo_stack.undo()
    assert doc.workbook.classes[j].acceptance_length is None and doc.workbook.classes[j].alpha == before


def test_an_override_takes_the_tiers_k_and_a_bad_figure_keeps_the_dialog_open(qtbot, window) -> None:
    doc = window.document
    fast = next(i for i, t in enumerate(doc.workbook.tiers) if t.speculative != "no")
    tier = doc.workbook.tiers[fast]
    dialog = StatedDialog(doc, doc.workbook.class_index("prose"), fast, window)
    qtbot.addWidget(dialog)
    _choose(dialog, "length")
    dialog.value_edit.setText(str(tier.k + 2))  # more than K + 1 tokens a step: cannot occur
    dialog.tier_check.setChecked(True)
    assert not dialog.ok_button.isEnabled() and f"cannot occur at K = {tier.k}" in dialog.error_label.text()
    dialog.value_edit.setText("2.5")
    assert dialog.ok_button.isEnabled()
    dialog.accept()
    o = doc.workbook.override_for(tier.name, "prose")
    assert o is not None and (o.acceptance_length, o.acceptance_length_k) == (2.5, tier.k)
    assert f"K = {tier.k} (not stated)" in o.source_note
