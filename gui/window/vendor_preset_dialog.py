"""Edit > Add a vendor's fast mode…: a vendor's fast tier and the standard tier it is priced against, from the
presets (model/workbook/vendor_presets.py), added as one undo step; every field stays editable in the tables.

The list says when each preset's prices were read, and so does the status line after: they are never current.
"""
from __future__ import annotations

from PySide6.QtWidgets import QInputDialog

from model.workbook.validation import ValidationError
from model.workbook.vendor_presets import VendorPreset, add_preset, load_vendor_presets


def preset_label(preset: VendorPreset) -> str:
    return f"{preset.name} (list prices as read {preset.as_of})"


def add_vendor_preset(window: object, preset: VendorPreset) -> str:
    """Add ``preset`` to the window's workbook as one undoable step; the status line's words."""
    added: list[str] = []

    def mutate(wb) -> None:  # noqa: ANN001
        added[:] = add_preset(wb, preset)

    try:
        window.document.apply(f"Add {preset.name}", mutate)  # type: ignore[attr-defined]
    except ValidationError as exc:
        return f"{preset.name} not added: {exc}"
    return (f"Added {' and '.join(added)}: {preset.tiers[0].price_source}. {preset.about}. Edit any field in the "
            "Tiers table; probe the fast tier to measure its speed, downgrades and SLA.")


def show_vendor_preset_dialog(window: object) -> QInputDialog:
    """A non-blocking list of the presets; choosing one adds it and says so in the status bar."""
    presets = load_vendor_presets()
    labels = [preset_label(p) for p in presets]
    dialog = QInputDialog(window)  # type: ignore[arg-type]
    dialog.setWindowTitle("Add a vendor's fast mode")
    dialog.setLabelText("A vendor's fast tier and its standard tier, with list prices as read on a date (not "
                        "current: check them against the vendor's page):")
    dialog.setComboBoxItems(labels)
    dialog.setComboBoxEditable(False)

    def chosen(label: str) -> None:
        words = add_vendor_preset(window, presets[labels.index(label)])
        show = getattr(window, "show_message", None)
        if show is not None:
            show(words)

    dialog.textValueSelected.connect(chosen)
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    return dialog
