"""Measure acceptance on a real draft/target pair and apply it to the workbook, from the window.

The run itself is `model.sampling.run.run_sampling`, a cancellable generator; this panel
only collects its arguments, drives it through a TaskRunner on a worker thread, shows
progress and results, and turns "Apply measured acceptance" into one undo step.
"""
from __future__ import annotations

import html
import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QItemSelection, QSettings, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QFileDialog, QHBoxLayout, QHeaderView, QLabel,
                               QProgressBar, QPushButton, QSplitter, QTableView, QVBoxLayout, QWidget)

from model.common import formatting as fmt
from model.sampling.labels import pair_label, pair_note
from model.workbook.measured_apply import apply_plan, changed_block, plan_measured, unused_acceptance_note

from gui.document import Document
from gui.sampling.apply_row import SamplingApplyRow
from gui.sampling.form import RunParams, load_params, save_params, start_sampling
from gui.sampling.pair_form import PairForm
from gui.sampling.results import AcceptanceHistogram, SamplingResultsModel
from gui.worker import TaskRunner, worded_error

if TYPE_CHECKING:  # model.sampling.run is imported on the worker thread, with the models
    from model.sampling.run import SamplingProgress, SamplingResult

TASK_LABEL = "Measuring acceptance"
# the model side's own error types; their messages already name the file and line, so the
# class name in front only adds noise. Anything else keeps its type: it is unexpected.
_ERROR_STYLE = "QLabel { background: #fdecea; color: #8a1c12; border: 1px solid #f5c2bd; padding: 6px; }"
_INFO_STYLE = "QLabel { color: #333; padding: 2px; }"


def duration_words(seconds: float | None) -> str:
    if seconds is None:
        return "estimating time left"
    seconds = max(0, round(seconds))
    return f"{seconds} s left" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s left"


def _ray_words(result: SamplingResult) -> str:
    """A Ray run's line under the heading: where it ran and what it retried; nothing for a local run."""
    info = result.ray
    if not info:
        return ""
    return (f"On Ray ({html.escape(str(info['address']))}): {fmt.count(len(info['workers']), 'worker')} on "
            f"{fmt.count(len(info['nodes']), 'node')}, {fmt.count(info['retried_prompts'], 'prompt')} retried<br>")


class SamplingPanel(QWidget):
    provider_changed = Signal(str)  # the execution provider in words, for the status bar
    status_message = Signal(str)

    def __init__(self, document: Document, parent: QWidget | None = None, runner: TaskRunner | None = None,
                 settings: QSettings | None = None) -> None:
        super().__init__(parent)
        self.document = document
        # share the window's runner when given, so one long job runs at a time and close waits for it
        self.runner = runner if runner is not None else TaskRunner(self)
        self.job_factory: Callable[[RunParams, threading.Event], Generator[Any, None, Any]] = start_sampling
        self.result: SamplingResult | None = None
        self._running = False
        # a Ray run's latest way to build its result over the prompts done: what a cancel keeps
        self._partial: Callable[[], SamplingResult] | None = None
        self._build()
        # the form is remembered between sessions in the window's settings, when it has them
        self._settings = settings
        if settings is not None:
            self.set_params(load_params(settings, self.params()))
            self.form.connect_changes(self._on_form_changed)
        self.runner.progressed.connect(self._on_run_progressed)
        self.runner.finished.connect(self._on_run_finished)
        self.runner.errored.connect(self._on_run_errored)
        self.document.changed.connect(self._on_document_changed)
        self.document.replaced.connect(self._on_document_replaced)
        self._on_document_changed()

    # --- construction ----------------------------------------------------------
    def _build(self) -> None:
        self.form = PairForm()
        f = self.form  # its fields, by the names the panel has always had
        self.draft_edit, self.target_edit, self.prompts_edit = f.draft_edit, f.target_edit, f.prompts_edit
        self.k_spin, self.tokens_spin, self.temperature_spin = f.k_spin, f.tokens_spin, f.temperature_spin
        self.seed_spin, self.provider_combo = f.seed_spin, f.provider_combo
        self.ray_check, self.ray_address_edit = f.ray_check, f.ray_address_edit

        self.run_button = QPushButton("Run")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self._on_run_clicked)
        self.cancel_button = QPushButton("Cancel", enabled=False)
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        self.progress_bar = QProgressBar(textVisible=True)
        self._set_progress_idle("no run yet")
        self.rate_label = QLabel("")
        run_row = QHBoxLayout()
        for w in (self.run_button, self.cancel_button):
            run_row.addWidget(w)
        run_row.addWidget(self.progress_bar, 1)
        run_row.addWidget(self.rate_label)

        self.message_label = QLabel("", wordWrap=True, visible=False)
        self.message_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.heading_label = QLabel("<b>No measurement yet.</b> Run the demo pair, or pick your own "
                                    "Optimum ONNX export.", wordWrap=True)

        self.results_model = SamplingResultsModel(self)
        self.table = QTableView()
        self.table.setModel(self.results_model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)  # six classes fit
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        copy = QAction("Copy table", self.table, shortcut=QKeySequence.StandardKey.Copy)
        copy.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)  # the window's Ctrl+C stays the sheets'
        copy.triggered.connect(self._on_copy_triggered)
        save = QAction("Save full result as JSON…", self.table)  # per-prompt tokens, for an audit
        save.triggered.connect(self._on_save_json_triggered)
        self.table.addActions([copy, save])
        self.histogram = AcceptanceHistogram()
        self.histogram.setMinimumHeight(180)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.histogram)
        split.setSizes([220, 260])

        self.apply_row = SamplingApplyRow()
        self.apply_target_combo = self.apply_row.apply_target_combo
        self.add_missing_check = self.apply_row.add_missing_check
        self.apply_button = self.apply_row.apply_button
        self.apply_target_combo.currentIndexChanged.connect(self._update_apply)
        self.apply_button.clicked.connect(self._on_apply_clicked)

        layout = QVBoxLayout(self)
        layout.addWidget(self.form)
        layout.addLayout(run_row)
        layout.addWidget(self.message_label)
        layout.addWidget(self.heading_label)
        layout.addWidget(split, 1)
        layout.addWidget(self.apply_row)

    def take_footer(self) -> QWidget:
        """The apply row, out of the panel's own layout, for a dock to keep in sight below the scrolled form."""
        self.layout().removeWidget(self.apply_row)
        return self.apply_row

    # --- reading the form --------------------------------------------------------
    def params(self) -> RunParams:
        return self.form.params()

    def set_params(self, params: RunParams) -> None:
        self.form.set_params(params)

    def _on_form_changed(self, *_args: object) -> None:
        if self._settings is not None:
            save_params(self._settings, self.params())

    def is_running(self) -> bool:
        return self._running

    def show_message(self, text: str, error: bool = False) -> None:
        self.message_label.setStyleSheet(_ERROR_STYLE if error else _INFO_STYLE)
        self.message_label.setText(text)
        self.message_label.setVisible(bool(text))

    def _set_running(self, running: bool) -> None:
        self._running = running
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self._update_apply()

    def _update_apply(self, *_args: object) -> None:
        self.apply_row.update_for(self.document.workbook, not self._running and self.result is not None)

    def _set_progress_idle(self, words: str) -> None:
        # no run in progress: words, not a count ("0 of 1 prompts" read as a run of one prompt)
        self.progress_bar.setRange(0, 1)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat(words)

    # --- slots: running --------------------------------------------------------------
    def _on_run_clicked(self) -> None:
        params = self.params()
        blank = [label for label, value in (("draft folder", params.draft_dir), ("target folder", params.target_dir),
                                            ("prompt file", params.prompts_path)) if not value]
        if blank:
            self.show_message(f"Choose a {', '.join(blank)} first.", error=True)
            return
        factory = self.job_factory
        if not self.runner.start(TASK_LABEL, lambda cancel: factory(params, cancel)):
            self.show_message("Another long task is running; wait for it or cancel it first.", error=True)
            return
        self._set_running(True)
        self._partial = None
        self.progress_bar.setFormat("%v of %m prompts")
        self.progress_bar.setRange(0, 0)  # busy until the first count arrives (model loading)
        self.rate_label.setText("starting Ray…" if params.ray else "loading models…")
        self.show_message("")
        self.status_message.emit(f"{TASK_LABEL}…")

    def _on_cancel_clicked(self) -> None:
        if self._running:
            self.runner.cancel()
            self.rate_label.setText("cancelling…")
            self.cancel_button.setEnabled(False)

    def _on_run_progressed(self, event: object) -> None:
        if not self._running or not hasattr(event, "prompts_total"):
            return
        progress: SamplingProgress = event  # type: ignore[assignment]
        if progress.partial is not None:
            self._partial = progress.partial
        self.progress_bar.setRange(0, max(1, progress.prompts_total))
        self.progress_bar.setValue(progress.prompts_done)
        workers = "" if progress.workers_alive is None else f" · {progress.workers_alive} workers alive"
        if progress.prompts_done == 0:
            self.rate_label.setText(progress.message or "starting…")
        else:
            self.rate_label.setText(f"{progress.tokens_per_second:,.0f} tokens/s{workers} · "
                                    f"{duration_words(progress.seconds_left)}")

    def _on_run_finished(self, result: object) -> None:
        if not self._running:
            return  # another panel's or the window's job on a shared runner
        self.result = result  # type: ignore[assignment]
        self._set_running(False)
        self.rate_label.setText(f"done in {self.result.wall_seconds:.1f} s")
        n = len(self.result.prompts)
        self.progress_bar.setRange(0, max(1, n))
        self.progress_bar.setValue(max(1, n))
        self.progress_bar.setFormat(f"{n} of {fmt.count(n, 'prompt')}")
        self._show_result(self.result)
        self.provider_changed.emit(self.result.provider)
        self.status_message.emit(f"Measured acceptance for {fmt.count(len(self.result.classes), 'task class', 'task classes')} "
                                 f"on {self.result.provider}")

    def _on_run_errored(self, message: str) -> None:
        if not self._running:
            return
        self._set_running(False)
        cancelled = message.lower().startswith("cancelled")
        self._set_progress_idle("cancelled" if cancelled else "not run")
        self.rate_label.setText("")
        partial = self._partial() if cancelled and self._partial is not None else None
        if partial is not None and partial.prompts:
            self.result = partial
            self._show_result(partial)
            self.apply_button.setEnabled(True)
            self.show_message(f"Cancelled. The {len(partial.prompts)} prompts measured before the cancel are kept "
                              "and shown.")
            self.status_message.emit("Measurement cancelled; the prompts done are kept")
        elif cancelled:
            kept = " The previous results are still shown." if self.result is not None else ""
            self.show_message(f"Cancelled.{kept}")
            self.status_message.emit("Measurement cancelled")
        else:
            text = worded_error(message)
            self.show_message(f"The measurement could not run: {text}", error=True)
            self.status_message.emit(f"Measurement failed: {text}")

    # --- results ---------------------------------------------------------------------
    def _show_result(self, result: SamplingResult) -> None:
        self.heading_label.setText(
            f"<b>{pair_label(result)}</b>, seed {result.seed}, {len(result.prompts)} prompts, "
            f"{result.max_new_tokens} new tokens each · provider: {result.provider}<br>{_ray_words(result)}"
            "<span style='color:#555'>The acceptance α is the measurement. Measured speed on small models is "
            "mostly timing noise (spread over prompts in brackets); the predicted speedup is what α implies.</span>")
        failed = (result.ray or {}).get("failed_prompts", [])
        if failed:  # the rest of the run stands; these are named so they can be run again
            self.show_message(f"{len(failed)} prompts failed on every attempt and are left out: "
                              + "; ".join(failed[:3]) + (" …" if len(failed) > 3 else ""), error=True)
        self.results_model.set_results(result.classes)
        self._on_document_changed()
        if result.classes:
            self.table.selectRow(0)
        else:
            self.histogram.clear_result()

    def _on_selection_changed(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        rows = self.table.selectionModel().selectedRows()
        chosen = self.results_model.row_result(rows[0].row()) if rows else None
        if chosen is not None and self.result is not None:
            self.histogram.show_result(chosen, self.result.k)

    def _on_document_changed(self) -> None:
        wb = self.document.workbook
        self.results_model.set_workbook_alphas({c.name.lower(): (c.alpha, c.alpha_source) for c in wb.classes})
        self.apply_row.refill(wb)
        self._update_apply()

    def _on_document_replaced(self) -> None:
        """Another workbook: the last result and the chosen tier belong to the old one."""
        self.result = None
        self.results_model.set_results([])
        self.histogram.clear_result()
        self.heading_label.setText("<b>No measurement yet</b> on this workbook.")
        self.show_message("")
        if not self._running:
            self._set_progress_idle("no run yet")
            self.rate_label.setText("")
        self.apply_target_combo.setCurrentIndex(0)
        self._on_document_changed()

    def chosen_target(self) -> str | None:
        """The name, now, of the tier the Apply-to box names (None: the classes' α, or a tier gone)."""
        return self.apply_row.chosen_target(self.document.workbook)

    def apply_measured(self, tier: str | None = None, add_missing: bool | None = None) -> list[str]:
        """Apply the last result as one undo step; returns the names it skipped. Also the button's action."""
        if self.result is None:
            return []
        if tier is not None and self.document.workbook.tier_index(tier) is None:
            self.show_message(f"No tier named {tier!r} in the workbook.", error=True)
            return []
        add = self.add_missing_check.isChecked() if add_missing is None else add_missing
        todo, skipped = plan_measured(self.document.workbook, self.result.classes, add)
        if not todo:
            self.show_message("Nothing applied: " + (", ".join(skipped) or "no measured classes") + ".", error=True)
            return skipped
        note = pair_note(self.result)
        where = f" to tier {tier}" if tier else ""
        try:
            self.document.apply(f"Apply measured acceptance{where} ({fmt.count(len(todo), 'class', 'classes')})",
                                lambda wb: apply_plan(wb, todo, note, tier),
                                where=changed_block(self.document.workbook, todo, tier))
        except ValueError as exc:  # the document's validator refused it; nothing changed
            self.show_message(f"Not applied, the workbook is unchanged: {exc}", error=True)
            return skipped
        added = [name for name, _, is_new in todo if is_new]
        parts = [f"Applied measured α to {fmt.count(len(todo), 'class', 'classes')}{where}, from {pair_label(self.result)}."]
        if added:
            parts.append(f"Added: {', '.join(added)}.")
        if skipped:
            parts.append(f"Skipped: {', '.join(skipped)}.")
        unused = unused_acceptance_note(self.document.workbook, [tier] if tier else [])
        if unused:
            parts.append(unused)
        self.show_message(" ".join(parts), error=False)
        self.status_message.emit(parts[0] + (f" {unused}" if unused else "") + " Undo with Ctrl+Z.")
        return skipped

    def _on_copy_triggered(self) -> None:
        QApplication.clipboard().setText(self.results_model.as_tsv())
        self.status_message.emit("Copied the measured acceptance table")

    def _on_save_json_triggered(self) -> None:
        if self.result is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save sampling result", "sampling.json", "JSON (*.json)")
        if path:
            self.save_json(path)

    def save_json(self, path: str) -> None:
        try:
            Path(path).write_text(self.result.to_json(), encoding="utf-8")  # type: ignore[union-attr]
        except OSError as exc:
            self.show_message(f"Could not save {path}: {exc.strerror or exc}", error=True)
            return
        self.status_message.emit(f"Saved the sampling result to {path}")

    def _on_apply_clicked(self) -> None:
        if self.apply_row.target_gone(self.document.workbook):
            self.show_message("Not applied: the chosen tier is no longer in the workbook.", error=True)
            return
        self.apply_measured(self.chosen_target())
