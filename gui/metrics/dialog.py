"""The import dialog: choose files, engine, K and task class; see every source in the three conventions; apply.

Reading is model.metrics.read.read_sources_steps (a log can be hundreds of MB, streamed), run on the dialog's own
gui/worker.py runner with a progress bar and Cancel (gui/metrics/reading.py); any reader error is shown in the
dialog, never raised; what a source's row and notes say is gui/metrics/source_text.py; applying is
model.workbook.measured_apply in one Document.apply, source "imported", note `imported: <engine> <file> <date>` per
source.
"""
from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDialog, QFileDialog, QFormLayout, QHBoxLayout,
                               QHeaderView, QLabel, QListWidget, QPlainTextEdit, QPushButton,
                               QLineEdit, QSpinBox,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from model.common import formatting as fmt
from model.metrics.read import ENGINES, applicable, is_metrics_path, missing_k, missing_k_files, source_note
from model.metrics.result import MetricsError, SourceResult, k_mismatch_lines
from model.workbook.measured_apply import apply_plan, changed_block, plan_measured

from gui.document import Document
from gui.metrics.reading import ImportReading
from gui.metrics.source_text import COLUMNS, notes_for, row_cells
from gui.tier_choice import chosen_tier, names_gone_tier, refill_tiers

FILE_FILTER = ("Engine metrics and logs (*.prom *.txt *.log *.out *.jsonl *.json *.metrics);;All files (*)")
_ERROR_STYLE = "QLabel { background: #fdecea; color: #8a1c12; border: 1px solid #f5c2bd; padding: 6px; }"
_INFO_STYLE = "QLabel { color: #333; padding: 2px; }"


class ImportMetricsDialog(ImportReading, QDialog):
    """Shows what the files hold before anything changes; Apply is the only edit, and it is one undo step."""

    applied = Signal(str)  # the status line
    read_done = Signal()  # a read of the files ended: shown, refused or cancelled

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.sources: list[SourceResult] = []
        self.setWindowTitle("Import measured acceptance")
        self.resize(980, 560)
        files_row = self._build_files_row()
        form = self._build_form()
        self._build_results()
        reading_row = self._build_reading_row()
        apply_row = self._build_apply_row()
        layout = QVBoxLayout(self)
        layout.addLayout(files_row)
        layout.addLayout(form)
        layout.addWidget(self.message_label)
        layout.addLayout(reading_row)
        self._show_reading(False)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.notes)
        layout.addLayout(apply_row)
        # no button of this dialog is Enter's: Enter typing a class (or a K) opened 'Add files…', the dialog's
        # first button, as its default; Apply stays a deliberate click (Escape still closes)
        for button in self.findChildren(QPushButton):
            button.setAutoDefault(False)
        self.target_combo.currentIndexChanged.connect(self._update_apply)
        self._fill_targets()
        self._refresh()
        document.changed.connect(self._fill_targets)
        document.replaced.connect(self._on_document_replaced)

    def _build_files_row(self) -> QHBoxLayout:
        """The files to read, in order, with Add files… and Clear beside them."""
        self.file_list = QListWidget()
        self.file_list.setMaximumHeight(90)
        self.file_list.setToolTip("Two Prometheus scrapes of one server, in the order taken, give the run between them")
        add_button = QPushButton("Add files…")
        add_button.clicked.connect(self._on_add_clicked)
        clear_button = QPushButton("Clear")
        clear_button.clicked.connect(self._on_clear_clicked)
        files_row = QHBoxLayout()
        files_row.addWidget(self.file_list, 1)
        buttons = QVBoxLayout()
        buttons.addWidget(add_button)
        buttons.addWidget(clear_button)
        buttons.addStretch(1)
        files_row.addLayout(buttons)
        return files_row

    def _build_form(self) -> QFormLayout:
        """How to read them: the engine, K (one, or per drafter) and the task class (or a task map); any change
        reads the files again."""
        self.engine_combo = QComboBox()
        self.engine_combo.addItems(ENGINES)
        self.k_spin = QSpinBox()
        self.k_spin.setRange(0, 64)
        self.k_spin.setSpecialValueText("from the file")
        self.k_spin.setToolTip("Draft tokens per step, where the file does not say (TensorRT-LLM, llama.cpp, ...)")
        self.k_names_edit = QLineEdit()
        self.k_names_edit.setPlaceholderText("draft-mtp=2, ngram-simple=64")
        self.k_names_edit.setToolTip("A log with several drafters: each one's K by its name (the Model column); "
                                     "used instead of K above where typed")
        self.k_names_edit.editingFinished.connect(self._on_form_changed)
        self.class_combo = QComboBox()
        self.class_combo.setEditable(True)
        self.class_combo.setToolTip("Task class for sources that name none")
        self.task_map_path: str | None = None
        self.task_map_button = QPushButton("Task map…")
        self.task_map_button.setToolTip("llama.cpp logs: a file of task ids and task classes (JSON {\"42\": \"code\"} "
                                        "or lines '42,code'); each request then goes to its class")
        self.task_map_button.clicked.connect(self._on_task_map_clicked)
        for widget in (self.engine_combo, self.class_combo):
            widget.currentTextChanged.connect(self._on_form_changed)
        self.k_spin.valueChanged.connect(self._on_form_changed)
        form = QFormLayout()
        form.addRow("Engine", self.engine_combo)
        form.addRow("K (draft tokens per step)", self.k_spin)
        form.addRow("K per drafter", self.k_names_edit)
        class_row = QHBoxLayout()
        class_row.addWidget(self.class_combo, 1)
        class_row.addWidget(self.task_map_button)
        form.addRow("Task class", class_row)
        return form

    def _build_results(self) -> None:
        """What was read: a row per source, the selected rows' notes, and the dialog's one message line."""
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemSelectionChanged.connect(self._on_selection_changed)
        self.notes = QPlainTextEdit()
        self.notes.setReadOnly(True)
        self.notes.setMaximumHeight(140)
        self.message_label = QLabel()
        self.message_label.setWordWrap(True)
        self.message_label.setVisible(False)

    def _build_apply_row(self) -> QHBoxLayout:
        """Where to apply (the classes' α, or a tier's overrides), whether to add classes, Apply and Close."""
        self.target_combo = QComboBox()
        self.add_missing_check = QCheckBox("Add classes the workbook lacks")
        self.apply_button = QPushButton("Apply")
        self.apply_button.clicked.connect(self._on_apply_clicked)
        close_button = QPushButton("Close")
        close_button.clicked.connect(self.reject)
        apply_row = QHBoxLayout()
        apply_row.addWidget(QLabel("Apply to"))
        apply_row.addWidget(self.target_combo, 1)
        apply_row.addWidget(self.add_missing_check)
        apply_row.addWidget(self.apply_button)
        apply_row.addWidget(close_button)
        return apply_row

    # --- what the dialog shows -----------------------------------------------------
    def files(self) -> list[str]:
        return [self.file_list.item(i).text() for i in range(self.file_list.count())]

    def add_files(self, paths: Sequence[str]) -> None:
        for path in paths:
            if path and path not in self.files():
                self.file_list.addItem(path)
        self._refresh()

    def show_message(self, text: str, error: bool = False) -> None:
        self.message_label.setStyleSheet(_ERROR_STYLE if error else _INFO_STYLE)
        self.message_label.setText(text)
        self.message_label.setVisible(bool(text))

    def _fill_targets(self) -> None:
        wb = self.document.workbook
        # by the tier's identity: a rename while the dialog is open keeps its tier, a delete says so
        refill_tiers(self.target_combo, wb.tiers, [("Task classes' α (all tiers without an override)", None)],
                     label=lambda t: f"Overrides of tier “{t.name}”",
                     gone="Overrides of a tier no longer in the workbook")
        self._update_apply()
        current = self.class_combo.currentText()
        self.class_combo.blockSignals(True)
        self.class_combo.clear()
        self.class_combo.addItem("")
        self.class_combo.addItems([c.name for c in wb.classes])
        self.class_combo.setCurrentText(current)
        self.class_combo.blockSignals(False)

    def _show_sources(self, sources: list[SourceResult]) -> None:
        self.sources = sources
        for row, source in enumerate(sources):
            self._show_row(row, source)
        unknown = missing_k(sources)
        if unknown:
            self.show_message(f"K is not in {fmt.printable(missing_k_files(unknown, names_only=True), 400)}: "
                              "its figures are shown in its own convention; enter K (draft tokens per step) to get α.", error=True)
            self.k_spin.setFocus()
        else:
            self.show_message(f"{len(sources)} source{'s' if len(sources) != 1 else ''} read. Select a row for its notes.")
        self._update_apply()
        if sources:
            self.table.selectRow(0)

    def _show_row(self, row: int, source: SourceResult) -> None:
        cells = row_cells(source)
        self.table.insertRow(row)
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if col >= 4:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, col, item)
        self.table.item(row, 0).setToolTip(source.file)

    # --- slots -----------------------------------------------------------------------
    def _on_add_clicked(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Import measured acceptance", "", FILE_FILTER)
        self.add_files(paths)

    def set_task_map(self, path: str | None) -> None:
        """The task-id map for llama.cpp logs (None: one class for the whole log); the files are read again."""
        self.task_map_path = path or None
        self.task_map_button.setText(f"Task map: {fmt.printable(Path(path).name, 40)}" if path else "Task map…")
        self._refresh()

    def _on_task_map_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Task ids and task classes", "",
                                              "Task maps (*.json *.csv *.txt *.tsv);;All files (*)")
        if path:
            self.set_task_map(path)

    def _on_clear_clicked(self) -> None:
        self.file_list.clear()
        self._refresh()

    def _on_form_changed(self) -> None:
        self._refresh()

    def _on_selection_changed(self) -> None:
        rows = {index.row() for index in self.table.selectedIndexes()}
        self.notes.setPlainText("\n\n".join(notes_for(self.sources[r]) for r in sorted(rows) if r < len(self.sources)))

    def _update_apply(self, *_args: object) -> None:
        gone = names_gone_tier(self.target_combo, self.document.workbook)
        self.apply_button.setEnabled(not gone and any(s.task_class and s.alpha_applied is not None
                                                      for s in self.sources))
        self.apply_button.setToolTip("The chosen tier is no longer in the workbook: choose another, or undo the "
                                     "delete" if gone else "")

    def _on_document_replaced(self) -> None:
        """Another workbook: its tiers and classes are not the ones these readings were matched to."""
        self.file_list.clear()
        self.target_combo.setCurrentIndex(0)
        self._fill_targets()
        self._refresh()
        self.show_message("Another workbook was opened: add the files again to import into it.")

    def _on_apply_clicked(self) -> None:
        if names_gone_tier(self.target_combo, self.document.workbook):
            self.show_message("Not applied: the chosen tier is no longer in the workbook.", error=True)
            return
        tier = chosen_tier(self.target_combo, self.document.workbook)
        self.apply(tier.name if tier is not None else None, self.add_missing_check.isChecked())

    def apply(self, tier: str | None = None, add_missing: bool = False) -> bool:
        """Apply every source that has a class and an α, as one undo step; False (and a message) if nothing changed."""
        try:
            chosen = applicable(self.sources)
        except MetricsError as exc:
            self.show_message(fmt.printable(str(exc), 600), error=True)
            return False
        todo, skipped = plan_measured(self.document.workbook, chosen, add_missing)
        if not todo:
            reason = fmt.printable(", ".join(skipped), 600) or "no source has a task class and an α"
            self.show_message(f"Nothing applied: {reason}.", error=True)
            return False
        today = date.today()

        def mutate(wb) -> None:  # noqa: ANN001
            for item in todo:  # each source keeps its own note: engine, file, date
                apply_plan(wb, [item], source_note(item[1], today), tier, source="imported")

        where = f" to tier {tier}" if tier else ""
        try:
            self.document.apply(f"Import measured acceptance{where} ({fmt.count(len(todo), 'class', 'classes')})", mutate,
                                where=changed_block(self.document.workbook, todo, tier))
        except ValueError as exc:
            self.show_message(f"Not applied, the workbook is unchanged: {exc}", error=True)
            return False
        # what was applied: a per-position profile decides the results where the source measured one, not the α
        profiles = sum(1 for _name, c, _new in todo if getattr(c, "profile", None))
        shape = "" if not profiles else (" (as a per-position profile)" if profiles == len(todo)
                                         else f" ({profiles} as a per-position profile)")
        text = (f"Imported measured acceptance into {fmt.count(len(todo), 'class', 'classes')}{where}{shape}."
                + (f" Skipped: {fmt.printable(', '.join(skipped), 600)}." if skipped else ""))
        wb = self.document.workbook  # where a tier uses it at another K than measured: said, as import-metrics does
        k_words = k_mismatch_lines([c for _n, c, _new in todo], [wb.tiers[wb.tier_index(tier)]] if tier else wb.tiers)
        self.show_message(text + "".join(f" {fmt.printable(line, 400)}." for line in k_words))
        self.applied.emit(text + " Undo with Ctrl+Z.")
        return True


def open_import_dialog(parent: QWidget, document: Document, paths: Sequence[str] = (),
                       status: Callable[[str], None] | None = None) -> ImportMetricsDialog:
    dialog = ImportMetricsDialog(document, parent)
    if status is not None:
        dialog.applied.connect(status)
    dialog.add_files(list(paths))
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog


def is_metrics_drop(path: str) -> bool:
    return is_metrics_path(path)

