"""The import dialog's read of its files: on the dialog's own worker (gui/worker.py), with a progress bar and
Cancel, read again whenever the form changes; a reader's refusal is the dialog's message, never raised.

A mixin of ImportMetricsDialog (gui/metrics/dialog.py: it needs the dialog's form, table and message line, and
shows what was read with its _show_sources); kept apart because running a read is its own job beside the form.
"""
from __future__ import annotations

from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLineEdit, QPlainTextEdit, QProgressBar, QPushButton, QSpinBox,
                               QTableWidget)

from model.common import formatting as fmt
from model.metrics.read import parse_k_per_drafter, read_sources_steps, read_task_map
from model.metrics.result import MetricsError, SourceResult
from model.probe.run_counts import reported_counts_steps

from gui.worker import TaskRunner


class ImportReading:
    """Reading the dialog's files with the form's engine, K and class, on the worker; nothing half-read is shown."""

    sources: list[SourceResult]
    table: QTableWidget
    notes: QPlainTextEdit
    apply_button: QPushButton
    engine_combo: QComboBox
    k_spin: QSpinBox
    k_names_edit: QLineEdit
    class_combo: QComboBox
    task_map_path: str | None

    def _build_reading_row(self) -> QHBoxLayout:
        """The read on the dialog's own worker: its progress bar and Cancel, shown while it runs."""
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setFormat("Reading… %p%")
        self.cancel_button = QPushButton("Cancel reading")
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        self.runner = TaskRunner(self)
        self.runner.progressed.connect(self._on_read_progressed)
        self.runner.finished.connect(self._on_read_finished)
        self.runner.errored.connect(self._on_read_errored)
        self._again = False  # the form changed while a read ran: read again when it stops
        reading_row = QHBoxLayout()
        reading_row.addWidget(self.progress, 1)
        reading_row.addWidget(self.cancel_button)
        return reading_row

    @property
    def reading(self) -> bool:
        return self.runner.is_busy()

    def _show_reading(self, on: bool) -> None:
        self.progress.setVisible(on)
        self.cancel_button.setVisible(on)
        if on:
            self.progress.setValue(0)

    def _refresh(self) -> None:
        """Read every file again with the form's engine, K and class, on the worker; nothing half-read is shown."""
        self.sources = []
        self.table.setRowCount(0)
        self.notes.clear()
        self.apply_button.setEnabled(False)
        if self.runner.is_busy():
            self._again = True  # the running read is for the old form: stop it, then read again
            self.runner.cancel()
            return
        files = self.files()
        if not files:
            self.show_message("Add an engine's /metrics scrape(s) or console log, JSON lines, a vllm bench or "
                              "AIPerf result, a probe run file or a `specledger sample --json` result.")
            return
        engine, k = self.engine_combo.currentText(), self.k_spin.value() or None
        if self.k_names_edit.text().strip():
            try:
                k = parse_k_per_drafter(self.k_names_edit.text())  # type: ignore[assignment]
            except MetricsError as exc:
                self.show_message(fmt.printable(f"K per drafter: {exc}", 400), error=True)
                return
        task_class = self.class_combo.currentText().strip() or None
        task_map_path = self.task_map_path

        def job(cancel):  # noqa: ANN001, ANN202 - the worker's protocol: a generator that yields progress
            task_map = read_task_map(task_map_path) if task_map_path else None
            # a probe's run file is read by the probe's reader (docs/dev/layout.md#one-reader-per-file)
            return read_sources_steps(files, engine=engine, k=k, task_class=task_class, task_map=task_map,
                                      recorded=reported_counts_steps)

        self.show_message(f"Reading {len(files)} file{'s' if len(files) != 1 else ''}…")
        self._show_reading(True)
        self.runner.start("import measured acceptance", job)

    def _on_read_progressed(self, value: object) -> None:
        if isinstance(value, tuple) and len(value) == 4 and value[3]:
            self.progress.setValue(int(1000 * min(1.0, value[2] / value[3])))

    def _on_cancel_clicked(self) -> None:
        self._again = False
        self.runner.cancel()

    def _read_ended(self) -> bool:
        """A read stopped: its bar goes; True, and the files are read again, when it was for an older form."""
        self._show_reading(False)
        if not self._again:
            return False
        self._again = False
        self._refresh()
        return True

    def _on_read_errored(self, message: str) -> None:
        if self._read_ended():
            return
        if message.startswith("cancelled"):
            self.show_message("Reading cancelled; nothing was read. Add the files again, or change the form, to read "
                              "them again.", error=True)
        else:
            kind, sep, rest = message.partition(": ")
            # a reader's refusal is already one line naming the file; anything else is still said here, not raised
            text = rest if sep and kind in ("MetricsError", "FileRefused", "ReportError") else f"Could not read the files: {message}"
            self.show_message(fmt.printable(text, 600), error=True)
        self.read_done.emit()

    def _on_read_finished(self, sources: object) -> None:
        if self._read_ended():
            return
        self._show_sources(list(sources))  # type: ignore[call-overload]
        self.read_done.emit()

    def done(self, result: int) -> None:  # noqa: N802 - Qt override: no read left running behind a closed dialog
        self.runner.wait(3_000)
        super().done(result)
