"""Edit > Enter a stated acceptance…: a figure a vendor stated, typed with what it means, seen converted, applied.

The analyst types the number, picks its convention from model/acceptance/conventions.py's list (each naming the
engines and versions that print it), the K and position where they matter and where it was stated; the table
shows it in every other convention, with the assumptions under it. OK assumes it for the chosen class, or only on
one tier's draft (an override), through model/workbook/assume_stated.py as one undo step. This dialog only
collects and shows (docs/reference/stated-acceptance.md).
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QDialogButtonBox, QFormLayout,
                               QHeaderView, QLabel, QLineEdit, QSpinBox, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from model.common import formatting as fmt
from model.acceptance.conventions import CONVENTIONS, Conversion, StatedError, StatedFigure, convert, from_fields
from model.workbook.assume_stated import assume_stated
from model.workbook.validation import ValidationError

from gui.document import Document
from gui.window.preset_dialog import class_and_tier_pickers, class_in_view, open_from

_COLUMNS = ("Convention", "Value", "Printed by")


class StatedDialog(QDialog):
    """Type a figure and its convention; see it converted; OK applies it through Document.apply."""

    applied = Signal(str)  # the status line: what was assumed, and that Ctrl+Z takes it back

    def __init__(self, document: Document, class_row: int = 0, tier_row: int = -1,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Enter a stated acceptance")
        self.document = document
        wb = document.workbook
        self.value_edit = QLineEdit()
        self.value_edit.setPlaceholderText("62%, 0.62 or 2.8")
        self.convention_combo = QComboBox()
        for c in CONVENTIONS:
            self.convention_combo.addItem(c.name, c.key)
            self.convention_combo.setItemData(self.convention_combo.count() - 1, f"{c.formula}. Printed by {c.printed_by}",
                                              Qt.ItemDataRole.ToolTipRole)
        self.convention_combo.setCurrentIndex(1)  # the draft acceptance rate: what "acceptance rate" most often is
        self.printed_label = QLabel()
        self.printed_label.setWordWrap(True)
        self.k_spin = QSpinBox()
        self.k_spin.setRange(0, 64)
        self.k_spin.setSpecialValueText("not stated")
        self.k_spin.setToolTip("The K (draft tokens per step) the figure was measured at; 'not stated' takes the tier's K "
                               "for an override, and leaves what needs K unconverted otherwise")
        self.position_spin = QSpinBox()
        self.position_spin.setRange(1, 64)
        self.source_edit = QLineEdit()
        self.source_edit.setPlaceholderText("where it was stated: Acme pricing slides, p. 4")
        self.source_edit.setMaxLength(200)
        self.class_combo, self.tier_check, self.tier_combo = class_and_tier_pickers(wb, class_row, tier_row)
        self.table = QTableWidget(len(CONVENTIONS), len(_COLUMNS))
        self.table.setHorizontalHeaderLabels(list(_COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.assumptions_label = QLabel()
        self.assumptions_label.setWordWrap(True)
        self.error_label = QLabel()
        self.error_label.setStyleSheet("color: #B00020")
        self.error_label.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Figure", self.value_edit)
        form.addRow("It means", self.convention_combo)
        form.addRow("", self.printed_label)
        form.addRow("K it was measured at", self.k_spin)
        form.addRow("Draft position (per-position rates)", self.position_spin)
        form.addRow("Stated where", self.source_edit)
        form.addRow("Task class", self.class_combo)
        form.addRow(self.tier_check, self.tier_combo)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        note = QLabel("A figure from a vendor's slides or paper, with what it means: the same words ('acceptance rate') "
                      "are different numbers from engine to engine. It is converted to the other conventions and assumed "
                      "for the class until it is measured on the vendor's tier.")
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addLayout(form)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.assumptions_label)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        for signal in (self.value_edit.textChanged, self.convention_combo.currentIndexChanged, self.k_spin.valueChanged,
                       self.position_spin.valueChanged, self.source_edit.textChanged, self.tier_check.toggled,
                       self.tier_combo.currentTextChanged):
            signal.connect(self._refresh)
        self.resize(760, 620)
        self._refresh()

    # --- what is typed ---------------------------------------------------------------
    def figure(self) -> StatedFigure:
        """The typed figure; StatedError naming what is wrong."""
        key = self.convention_combo.currentData()
        fields = {"value": self.value_edit.text().strip(), "convention": key, "source": self.source_edit.text()}
        if self.k_spin.value():
            fields["k"] = self.k_spin.value()
        if str(key).startswith("position"):
            fields["position"] = self.position_spin.value()
        if not fields["value"]:
            raise StatedError("type the figure as stated (62%, 0.62, 2.8)")
        return from_fields(fields)

    def _tier(self) -> str | None:
        return self.tier_combo.currentText() if self.tier_check.isChecked() and self.tier_combo.currentText() else None

    def _fallback_k(self) -> int | None:
        """The tier's K for an override, where the figure states none."""
        tier = self._tier()
        i = self.document.workbook.tier_index(tier) if tier else None
        return self.document.workbook.tiers[i].k if i is not None else None

    def _refresh(self) -> None:
        c = CONVENTIONS[self.convention_combo.currentIndex()]
        self.printed_label.setText(f"{c.formula}. Printed by {c.printed_by}.")
        self.position_spin.setEnabled(c.key.startswith("position"))
        try:
            conversion = convert(self.figure(), self._fallback_k())
        except StatedError as exc:
            self._show(None)
            self.error_label.setText(str(exc))
            self.ok_button.setEnabled(False)
            return
        self.error_label.clear()
        self._show(conversion)
        self.ok_button.setEnabled(True)

    def _show(self, conversion: Conversion | None) -> None:
        for row, c in enumerate(CONVENTIONS):
            value = conversion.values.get(c.key) if conversion else None
            if value is None:
                text = conversion.missing.get(c.key, "–") if conversion else "–"
            else:
                text = fmt.pct(value, 1) if c.is_rate else f"{value:.3f}"
            if conversion and c.key == conversion.figure.convention:
                text += "  (as stated)"
            name = c.name + (f" at position {conversion.figure.position or 1}" if conversion and c.key == "position_cumulative" else "")
            for col, cell in enumerate((name, text, c.printed_by)):
                item = QTableWidgetItem(cell)
                item.setToolTip(c.formula)
                self.table.setItem(row, col, item)
        self.assumptions_label.setText("Assumed: " + "; ".join(conversion.assumptions) if conversion and conversion.assumptions
                                       else "")

    def accept(self) -> None:
        try:
            figure = self.figure()
        except StatedError as exc:
            self.error_label.setText(str(exc))
            return
        name, tier = self.class_combo.currentText(), self._tier()
        where = f" on {tier}'s draft" if tier else ""
        text = f"Assume the stated {figure.words} for {name}{where}"
        try:
            self.document.apply(text, lambda wb: assume_stated(wb, name, figure, None, tier))
        except (ValidationError, ValueError) as exc:
            self.error_label.setText(str(exc))  # kept open: the analyst gives K or changes the figure
            return
        self.applied.emit(f"{text}. Undo with Ctrl+Z.")
        super().accept()


def show_stated_dialog(window: object) -> StatedDialog:
    """Edit > Enter a stated acceptance…: for the class and tier in view (a MainWindow, read by attribute)."""
    dialog = StatedDialog(window.document, class_in_view(window), getattr(window, "_tier_row", -1), window)  # type: ignore[attr-defined]
    open_from(window, dialog)
    return dialog
