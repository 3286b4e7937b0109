"""Edit > Workbook settings…: one undo step, validated by model/, refusals keep the dialog open."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from gui.window.settings_dialog import SettingsDialog
from model.workbook.validation import SETTINGS_FIELDS, ValidationError, parse_settings, workbook_problems
from model.workbook.rows import Settings, Workbook


def _open(window) -> SettingsDialog:  # noqa: ANN001
    action = next(a for a in window.menuBar().actions() if a.text() == "&Edit").menu()
    next(a for a in action.actions() if a.text().startswith("Workbook &settings")).trigger()
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None and dialog.isVisible()
    return dialog


def _ok(dialog: SettingsDialog) -> None:
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()


def _retype(qtbot, edit, text: str) -> None:  # noqa: ANN001
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(edit, text)


def test_dialog_shows_the_settings_and_applies_them_as_one_undo_step(qtbot, window) -> None:
    before = window.document.workbook.settings
    steps = window.document.undo_stack.count()
    dialog = _open(window)
    assert dialog.marginal_edit.text() == f"{before.marginal_band * 100:g}%"
    assert dialog.currency_combo.currentText() == before.currency
    _retype(qtbot, dialog.marginal_edit, "10%")
    _retype(qtbot, dialog.tolerance_edit, "0.02")
    _retype(qtbot, dialog.k_max_edit, "8")
    dialog.currency_combo.setCurrentText("EUR")
    asked: list[tuple[str, str]] = []
    dialog.ask_currency = lambda old, new: asked.append((old, new)) or 1.0  # "already in EUR"
    prices = [(t.price_out, t.price_in) for t in window.document.workbook.tiers]
    _ok(dialog)
    assert not dialog.isVisible() and asked == [("USD", "EUR")]
    window.document.flush()
    assert window.document.workbook.settings == Settings(0.10, 0.02, 8, "EUR")
    assert [(t.price_out, t.price_in) for t in window.document.workbook.tiers] == prices
    assert window.document.undo_stack.count() == steps + 1
    assert window.document.comparison.currency == "EUR"
    window.undo_action.trigger()
    assert window.document.workbook.settings == before
    window.redo_action.trigger()
    assert window.document.workbook.settings.k_max == 8


def test_a_refused_value_keeps_the_dialog_open_and_says_why(qtbot, window) -> None:
    steps = window.document.undo_stack.count()
    dialog = _open(window)
    _retype(qtbot, dialog.k_max_edit, "65")
    _ok(dialog)
    assert dialog.isVisible()
    assert dialog.error_label.isVisibleTo(dialog)
    assert "K max: must be a whole number from 1 to 64 (got '65')" in dialog.error_label.text()
    assert window.document.undo_stack.count() == steps
    _retype(qtbot, dialog.k_max_edit, "12")
    assert not dialog.error_label.isVisibleTo(dialog)  # retyping clears the stale reason
    _retype(qtbot, dialog.tolerance_edit, "100%")
    _ok(dialog)
    assert dialog.isVisible() and "Claim tolerance" in dialog.error_label.text()
    _retype(qtbot, dialog.tolerance_edit, "5%")
    _ok(dialog)
    assert not dialog.isVisible()
    assert window.document.workbook.settings.k_max == 12


def test_ok_without_a_change_adds_no_undo_step(qtbot, window) -> None:
    steps = window.document.undo_stack.count()
    _ok(_open(window))
    assert window.document.undo_stack.count() == steps
    assert not window.document.dirty


def test_settings_fields_and_workbook_problems_agree() -> None:
    assert [f.name for f in SETTINGS_FIELDS] == ["marginal_band", "claim_tolerance", "k_max", "currency"]
    assert parse_settings({"marginal_band": "7.5%", "k_max": "12", "currency": "gbp"}) == Settings(0.075, 0.05, 12, "GBP")
    for values, field in (({"claim_tolerance": 1.0}, "Claim tolerance"), ({"marginal_band": "120%"}, "Marginal band"),
                          ({"k_max": 0}, "K max"), ({"currency": "Doubloons"}, "Currency")):
        with pytest.raises(ValidationError, match=f"^Settings, {field}: must be"):
            parse_settings(values)
        wb = Workbook()
        for name, value in values.items():
            setattr(wb.settings, name, value)
        assert [p for p in workbook_problems(wb) if p.startswith(f"Settings, {field}: must be")]
    wb = Workbook()
    wb.settings.k_max = "16"  # text in a stored number would break the arithmetic
    assert any(p.startswith("Settings, K max") for p in workbook_problems(wb))
    assert workbook_problems(Workbook()) == []


def test_the_title_is_editable_and_names_the_window_and_the_suggested_file(qtbot, window, tmp_path, monkeypatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    doc = window.document
    assert doc.workbook.title.startswith("SpecLedger demo")
    dialog = _open(window)
    assert dialog.title_edit.text() == doc.workbook.title
    _retype(qtbot, dialog.title_edit, "Q3 negotiation: Northwind / Helix")
    _ok(dialog)
    doc.flush()
    assert doc.workbook.title == "Q3 negotiation: Northwind / Helix" and doc.undo_stack.count() == 1
    assert window.windowTitle().startswith("Q3 negotiation: Northwind / Helix")
    # Save As suggests the title as a file name every OS takes, in the workbook's folder (never the launch folder)
    asked: list[str] = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda _parent, _caption, start, _filter: (asked.append(start), ("", ""))[1])
    window.settings.setValue("last_folder", str(tmp_path))
    window.files.save_as()
    assert asked[-1] == str(tmp_path / "Q3 negotiation - Northwind - Helix.json")
    saved = tmp_path / "deals" / "wb.json"
    saved.parent.mkdir()
    assert window.files.save_to(str(saved))
    assert window.windowTitle().startswith("wb.json — Q3 negotiation: Northwind / Helix")
    window.files.save_as()
    assert asked[-1] == str(saved.parent / "Q3 negotiation - Northwind - Helix.json")
    doc.undo_stack.undo()
    assert doc.workbook.title.startswith("SpecLedger demo")


def test_a_currency_change_converts_at_the_typed_rate_or_stays_open_on_cancel(qtbot, window) -> None:
    """Changing the currency relabelled every price without a word; now it asks."""
    doc = window.document
    turbo = doc.workbook.tiers[doc.workbook.tier_index("Northwind Turbo")]
    out, inp = turbo.price_out, turbo.price_in
    dialog = _open(window)
    dialog.currency_combo.setCurrentText("EUR")
    dialog.ask_currency = lambda old, new: None  # Cancel: nothing applied, the dialog stays
    _ok(dialog)
    assert dialog.isVisible() and doc.workbook.settings.currency == "USD"
    dialog.ask_currency = lambda old, new: 0.5  # 1 USD = 0.5 EUR
    steps = doc.undo_stack.count()
    _ok(dialog)
    doc.flush()
    turbo = doc.workbook.tiers[doc.workbook.tier_index("Northwind Turbo")]
    assert doc.workbook.settings.currency == "EUR" and (turbo.price_out, turbo.price_in) == (out * 0.5, inp * 0.5)
    assert doc.undo_stack.count() == steps + 1  # currency and prices: one step
    window.undo_action.trigger()
    doc.flush()
    turbo = doc.workbook.tiers[doc.workbook.tier_index("Northwind Turbo")]
    assert doc.workbook.settings.currency == "USD" and turbo.price_out == out
