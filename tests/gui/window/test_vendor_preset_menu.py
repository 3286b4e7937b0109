"""Edit > Add a vendor's fast mode… adds a preset's two tiers as one undo step and says when its prices were read."""
from __future__ import annotations

from gui.window.vendor_preset_dialog import preset_label, show_vendor_preset_dialog
from model.workbook.vendor_presets import load_vendor_presets


def test_choosing_a_preset_adds_its_tiers_dated_and_undoably(qtbot, window):
    n = len(window.document.workbook.tiers)
    preset = load_vendor_presets()[0]
    dialog = show_vendor_preset_dialog(window)
    assert preset_label(preset) in [dialog.comboBoxItems()[i] for i in range(len(dialog.comboBoxItems()))]
    dialog.textValueSelected.emit(preset_label(preset))
    tiers = window.document.workbook.tiers
    assert len(tiers) == n + 2 and tiers[-1].baseline == tiers[-2].name
    assert preset.as_of in tiers[-1].price_source
    message = window.statusBar().currentMessage()
    assert f"as read {preset.as_of}" in message and "not current" in message
    window.document.undo_stack.undo()
    assert len(window.document.workbook.tiers) == n
    dialog.reject()
