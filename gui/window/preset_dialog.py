"""Edit > Assume a published acceptance…: a published mean acceptance length for a class, one undo step.

The list is model/acceptance/presets.py's, each row as its source prints it (method, model, benchmark,
setting, tokens per step, K where stated); the selected preset's source is shown in full. The length is
assumed for the chosen class, or only on one tier's draft (an override); a source that states no K (a tree's
depth) takes the K given here. model/workbook/assume_preset.py makes the edit; this dialog only collects.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout,
                               QHeaderView, QLabel, QLineEdit, QSpinBox, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from model.acceptance.presets import PRESETS, Preset, find
from model.workbook.assume_preset import assume_preset
from model.workbook.validation import K_LIMITS, ValidationError

from gui.document import Document

_COLUMNS = ("Method", "Model", "Benchmark", "Setting", "AL", "K")


class PresetDialog(QDialog):
    """Pick a preset and a class (and optionally a tier); OK applies it through Document.apply."""

    applied = Signal(str)  # the status line: what was assumed, and that Ctrl+Z takes it back

    def __init__(self, document: Document, class_row: int = 0, tier_row: int = -1,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Assume a published acceptance")
        self.document = document
        wb = document.workbook
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("filter: eagle vicuna-7b, medusa a100, …")
        self.filter_edit.textChanged.connect(self._on_filter_changed)
        self.table = QTableWidget(0, len(_COLUMNS))
        self.table.setHorizontalHeaderLabels(list(_COLUMNS))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemSelectionChanged.connect(self._on_preset_changed)
        self.source_label = QLabel()
        self.source_label.setWordWrap(True)
        self.source_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.class_combo, self.tier_check, self.tier_combo = class_and_tier_pickers(wb, class_row, tier_row)
        self.k_spin = QSpinBox()
        self.k_spin.setRange(int(K_LIMITS[0]), int(K_LIMITS[1]))
        # the K offered is the K of the tier the combo names (a tier that drafts nothing has none to offer)
        self.k_spin.setValue(4)
        self._on_tier_changed(self.tier_combo.currentText())
        self.tier_combo.currentTextChanged.connect(self._on_tier_changed)
        self.k_spin.setToolTip("The K (draft tokens, a tree's depth) the length is taken at where the source states none")
        self.error_label = QLabel()
        self.error_label.setStyleSheet("color: #B00020")
        self.error_label.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Task class", self.class_combo)
        form.addRow(self.tier_check, self.tier_combo)
        form.addRow("K (where the source states none)", self.k_spin)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        layout = QVBoxLayout(self)
        note = QLabel("Published mean acceptance lengths (tokens per verify step, bonus token included), each as its "
                      "source prints it. Someone else's model pair and prompts: an assumption for the class until it "
                      "is measured on the vendor's tier.")
        note.setWordWrap(True)
        layout.addWidget(note)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.source_label)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        self._shown: list[Preset] = []
        self._fill(list(PRESETS))
        self.resize(760, 560)

    def _on_tier_changed(self, name: str) -> None:
        i = self.document.workbook.tier_index(name)
        if i is not None:
            self.k_spin.setValue(self.document.workbook.tiers[i].k)

    def _fill(self, presets: list[Preset]) -> None:
        self._shown = presets
        self.table.setRowCount(len(presets))
        for r, p in enumerate(presets):
            for c, text in enumerate((p.method, p.model, p.benchmark, p.setting, f"{p.length:.2f}",
                                      "–" if p.k is None else str(p.k))):
                item = QTableWidgetItem(text)
                item.setToolTip(p.source)
                if c >= 4:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        if presets:
            self.table.selectRow(0)
        self._on_preset_changed()

    def _on_filter_changed(self, text: str) -> None:
        self._fill(find(text) if text.strip() else list(PRESETS))

    def selected(self) -> Preset | None:
        rows = self.table.selectionModel().selectedRows()
        return self._shown[rows[0].row()] if rows and rows[0].row() < len(self._shown) else None

    def _on_preset_changed(self) -> None:
        p = self.selected()
        self.ok_button.setEnabled(p is not None)
        self.error_label.clear()
        if p is None:
            self.source_label.setText("No preset matches the filter.")
            return
        self.k_spin.setEnabled(p.k is None)
        self.source_label.setText(f"<b>{p.name}</b>: {p.length:.2f} tokens per step"
                                  + (f" at K = {p.k}" if p.k is not None else " (the source states no K)")
                                  + f".<br>Source: {p.source}")

    def accept(self) -> None:
        p = self.selected()
        if p is None:
            return
        name = self.class_combo.currentText()
        tier = self.tier_combo.currentText() if self.tier_check.isChecked() else None
        k = None if p.k is not None else self.k_spin.value()
        where = f" on {tier}'s draft" if tier else ""
        text = f"Assume {p.method} ({p.length:g} tokens a step, {p.benchmark}) for {name}{where}"
        try:
            self.document.apply(text, lambda wb: assume_preset(wb, name, p, k, tier))
        except (ValidationError, ValueError) as exc:
            self.error_label.setText(str(exc))  # kept open: the analyst changes K or the preset
            return
        self.applied.emit(f"{text}. Undo with Ctrl+Z.")
        super().accept()


def class_and_tier_pickers(wb: Any, class_row: int, tier_row: int) -> tuple[QComboBox, QCheckBox, QComboBox]:
    """The class to assume for (the one in view first), and "only on this tier's draft" with the speculative tiers
    (the one in view first), off until ticked."""
    class_combo = QComboBox()
    class_combo.addItems([c.name for c in wb.classes])
    class_combo.setCurrentIndex(max(0, min(class_row, len(wb.classes) - 1)))
    speculative = [t for t in wb.tiers if t.speculative != "no"]
    tier_check = QCheckBox("only on this tier's draft:")
    tier_combo = QComboBox()
    tier_combo.addItems([t.name for t in speculative])
    if 0 <= tier_row < len(wb.tiers) and wb.tiers[tier_row].speculative != "no":
        tier_combo.setCurrentText(wb.tiers[tier_row].name)
    tier_combo.setEnabled(False)
    tier_check.toggled.connect(tier_combo.setEnabled)
    tier_check.setEnabled(bool(speculative))
    return class_combo, tier_check, tier_combo


def show_preset_dialog(window: object) -> PresetDialog:
    """Edit > Assume a published acceptance…: for the class and tier in view (a MainWindow, read by attribute)."""
    dialog = PresetDialog(window.document, class_in_view(window), getattr(window, "_tier_row", -1), window)  # type: ignore[attr-defined]
    return open_from(window, dialog)


def class_in_view(window: object) -> int:
    """The class row the window has in view: the class table's current row, or the results' or overrides' column."""
    views = [getattr(window, "class_view", None), getattr(window, "results_view", None),
             getattr(window, "override_view", None)]
    for view in views:
        index = view.currentIndex() if view is not None else None
        if index is not None and index.isValid():
            return index.row() if view is views[0] else index.column()
    return 0


def open_from(window: object, dialog: QDialog) -> QDialog:
    """Open an acceptance dialog window-modal (no nested event loop); its `applied` text goes to the status bar, as
    every other edit from a dialog does."""
    show_message = getattr(window, "show_message", None)
    if show_message is not None:
        dialog.applied.connect(show_message)  # type: ignore[attr-defined]
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    return dialog
