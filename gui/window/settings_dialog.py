"""Edit > Workbook settings…: title, marginal band, claim tolerance, K max, currency and the confidence of intervals
and verdicts, as one undo step.

The dialog only shows and collects text; model/validation (SETTINGS_FIELDS) decides
what is accepted, and a refused value keeps the dialog open with the reason shown.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QInputDialog, QLabel, QLineEdit,
                               QMessageBox, QVBoxLayout, QWidget)

from model.workbook.validation import CONFIDENCE_FIELD, SETTINGS_FIELDS, TITLE_FIELD, ValidationError, parse_field
from model.workbook.row_edits import convert_prices
from model.workbook.rows import Settings, Workbook

from gui.tables.cell_format import edit_text, locale_decimal
from gui.document import Document

_SPECS = {spec.name: spec for spec in SETTINGS_FIELDS + (CONFIDENCE_FIELD,)}
# why each number matters, in the analyst's terms (shown as tooltips)
_HINTS = {
    "marginal_band": "A speedup from 1.00x up to 1 + this band is 'marginal' rather than a gain.",
    "claim_tolerance": "A vendor's claim holds if the mix speedup is at least the claim x (1 - tolerance).",
    "k_max": "The largest draft length K searched when the results show the optimal K.",
    "currency": "The currency of the tiers' prices, used wherever money is shown.",
    "confidence": "The confidence of the intervals on acceptance and of the verdicts: a verdict is 'undecided' "
                  "where the interval at this confidence reaches both sides of its break-even. A measured interval "
                  "keeps the confidence it was measured at; the mix of the classes is given at this one, and a "
                  "probe run until decided decides at it.",
}


class SettingsDialog(QDialog):
    """Shows the document's current settings; OK applies them through Document.apply."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Workbook settings")
        self.document = document
        settings = document.workbook.settings
        # the workbook's name: the window title, the suggested file name and the report's header use it
        self.title_edit = QLineEdit(document.workbook.title)
        self.title_edit.setToolTip("The workbook's title: shown in the window title, suggested as the file name "
                                   "when saving, and written at the top of the Excel report.")
        self.title_edit.textEdited.connect(self._on_text_edited)
        self.marginal_edit = QLineEdit(edit_text(_SPECS["marginal_band"], settings.marginal_band, locale_decimal()))
        self.tolerance_edit = QLineEdit(edit_text(_SPECS["claim_tolerance"], settings.claim_tolerance, locale_decimal()))
        self.k_max_edit = QLineEdit(str(settings.k_max))
        self.currency_combo = QComboBox()
        self.currency_combo.addItems(list(_SPECS["currency"].choice_list()))
        self.currency_combo.setCurrentText(settings.currency)
        self.confidence_edit = QLineEdit(edit_text(_SPECS["confidence"], settings.confidence, locale_decimal()))
        self._fields: dict[str, QLineEdit | QComboBox] = {
            "marginal_band": self.marginal_edit, "claim_tolerance": self.tolerance_edit,
            "k_max": self.k_max_edit, "currency": self.currency_combo, "confidence": self.confidence_edit,
        }
        form = QFormLayout()
        form.addRow(TITLE_FIELD.label, self.title_edit)
        for name, widget in self._fields.items():
            spec = _SPECS[name]
            widget.setToolTip(f"{_HINTS[name]}\nAccepts {spec.describe()}.")
            if isinstance(widget, QLineEdit):
                widget.setPlaceholderText(spec.describe())
                widget.textEdited.connect(self._on_text_edited)
            label = f"{spec.label} (%)" if spec.kind == "percent" else spec.label
            form.addRow(label, widget)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #b00020")
        self.error_label.setVisible(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        self.setMinimumWidth(380)

    def values(self) -> dict[str, str]:
        """What the dialog holds now, as typed."""
        return {name: (w.currentText() if isinstance(w, QComboBox) else w.text()) for name, w in self._fields.items()}

    def accept(self) -> None:
        """Validate and apply; on a refused value stay open, say why and put the cursor on it."""
        parsed: dict[str, Any] = {}
        for name, text in self.values().items():
            try:
                parsed[name] = parse_field(Settings, name, text, decimal=locale_decimal())
            except ValidationError as exc:
                self._refuse(name, str(exc))
                return
        try:
            title = TITLE_FIELD.parse(self.title_edit.text())
        except ValidationError as exc:
            self.error_label.setText(f"Not applied: {TITLE_FIELD.label}: {exc}")
            self.error_label.setVisible(True)
            self.title_edit.setFocus()
            return
        current = self.document.workbook.settings
        rate: float | None = None
        priced = any(t.price_out or t.price_in for t in self.document.workbook.tiers)
        if parsed["currency"] != current.currency and priced:
            # the numbers are not converted behind the analyst's back: already in the new currency, or at a rate
            answer = self.ask_currency(current.currency, parsed["currency"])
            if answer is None:
                return  # stay open, nothing applied
            rate = answer
        if title != self.document.workbook.title or any(getattr(current, name) != value
                                                         for name, value in parsed.items()):
            def mutate(wb: Workbook) -> None:
                wb.title = title
                for name, value in parsed.items():
                    setattr(wb.settings, name, value)
                if rate is not None and rate != 1.0:
                    convert_prices(wb, rate)

            try:
                self.document.apply("Edit workbook settings", mutate)
            except ValidationError as exc:
                self._refuse("", str(exc))
                return
        super().accept()

    def ask_currency(self, old: str, new: str) -> float | None:
        """1.0: the prices are already in `new`; a rate: convert them (1 old = rate new); None: cancel.
        A test replaces it (a modal box would block it)."""
        box = QMessageBox(QMessageBox.Icon.Question, "Change the currency",
                          f"The tiers' prices are entered in {old}. Are they already in {new}, or should SpecLedger "
                          f"convert them at a rate you type?", parent=self)
        keep = box.addButton(f"Already in {new}: keep the numbers", QMessageBox.ButtonRole.AcceptRole)
        convert = box.addButton("Convert at a rate…", QMessageBox.ButtonRole.ActionRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        if box.clickedButton() is keep:
            return 1.0
        if box.clickedButton() is convert:
            rate, ok = QInputDialog.getDouble(self, "Conversion rate", f"1 {old} = ? {new}", 1.0, 1e-6, 1e6, 6)
            return rate if ok else None
        return None

    def _refuse(self, name: str, message: str) -> None:
        self.error_label.setText(f"Not applied: {message}")
        self.error_label.setVisible(True)
        widget = self._fields.get(name)
        if widget is not None:
            widget.setFocus()
            if isinstance(widget, QLineEdit):
                widget.selectAll()

    def _on_text_edited(self, _text: str) -> None:
        # the message is about the value that was refused; once the user retypes it is stale
        self.error_label.setVisible(False)
