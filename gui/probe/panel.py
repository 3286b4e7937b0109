"""Tools > Probe a tier…: measure a tier through its API from the window, and apply what it found.

The probe itself is `model.probe.run.run_probe`, a cancellable generator; this panel puts together the dock's parts
(gui/probe/endpoint_form.py: tier, endpoint, load, baseline; run_form.py: prompts, contexts, levels, until decided;
run_row.py: Run, Cancel, progress; results.py: the table per class; apply_row.py: Apply; run_request.py: what Run
sends; running.py: a run from Run to its end; undo_words.py: its words on Apply and Save kept true through undo and
redo), saves the tier's endpoint as one undo step, says what a run will send and cost and asks, drives the run on
the shared TaskRunner with progress and cancel, shows the verdict and the table, and turns Apply into one undo step
(`model.probe.apply.apply_probe`). A cancelled run keeps and shows the requests that completed. The API key is read
on Run from the named env var or keyring, never shown.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths, Qt, QTimer, Signal
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QMessageBox, QTableView, QVBoxLayout, QWidget

from gui.docks import bring_into_view
from gui.document import Document
from gui.probe.apply_row import ApplyRow
from gui.probe.decide_estimate import DecideEstimate
from gui.probe.endpoint_form import EndpointForm
from model.probe.speed_verdict import steps_hidden
from model.workbook.vendor_terms import drop_stale_measurement
from gui.probe.results import ProbeResultsModel
from gui.probe.run_form import RunForm
from gui.probe.run_request import form_settings
from gui.probe.run_row import RunRow
from gui.probe.running import ProbeRunning
from gui.probe.undo_words import TIER, AppliedStep
from gui.probe.verdict_text import DETAILS, LESS, verdict_html
from gui.tier_choice import chosen_tier, refill_tiers
from gui.worker import TaskRunner
from model.probe.analysis import ProbeReport
from model.probe.apply import apply_probe, disagreeing_sources
from model.acceptance.k_check import k_mismatch
from model.probe.plan import ProbeSettings
from model.probe.run import ProbeRun
from model.probe.run_file import run_folder
from model.probe.until_decided import UntilDecidedRun
from model.workbook.rows import Tier

_ERROR_STYLE = "QLabel { background: #fdecea; color: #8a1c12; border: 1px solid #f5c2bd; padding: 6px; }"
_INFO_STYLE = "QLabel { color: #333; padding: 2px; }"
_TABLE_ROWS_SHOWN = 8  # rows of the results table kept in sight; more scroll in the table


class ProbePanel(ProbeRunning, QWidget):
    status_message = Signal(str)

    def __init__(self, document: Document, parent: QWidget | None = None, runner: TaskRunner | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.runner = runner if runner is not None else TaskRunner(self)
        self.report: ProbeReport | None = None
        # the tier the shown report measured (Tier.identity): Apply writes there, whatever the combo says now
        self.report_tier: int | None = None
        self._run_tier: int | None = None
        self._partial: ProbeRun | None = None  # what the worker had when a cancel stopped it
        self._run_path: Path | None = None  # the running probe's run file, given its K once analysed
        self._last_live = 0.0  # when the table last showed the intervals of a run still going
        self.decided: UntilDecidedRun | None = None  # the last run-until-decided's per-class outcome
        self._deciding: UntilDecidedRun | None = None  # the one running, read by the live table
        self._running = False
        # the last edit the dock made (Apply, Save endpoint): its words follow the window's undo and redo
        self._step: AppliedStep | None = None
        self._shown_step = ""  # the step's words as last shown: updated in place while still on screen
        # asked before sending; a test replaces it
        self.confirm: Callable[[str], bool] = self._ask
        # the generic data folder: Qt's per-application one names the organisation and the app, both SpecLedger
        self.run_folder = run_folder(QStandardPaths.writableLocation(
            QStandardPaths.StandardLocation.GenericDataLocation) or ".")
        self._build()
        self.runner.progressed.connect(self._on_run_progressed)
        self.runner.finished.connect(self._on_run_finished)
        self.runner.errored.connect(self._on_run_errored)
        self.document.changed.connect(self._on_document_changed)
        self.document.replaced.connect(self._on_document_replaced)
        self._on_document_changed()

    def _build(self) -> None:
        self.endpoint = EndpointForm()
        self.endpoint.tier_combo.currentIndexChanged.connect(self._on_tier_changed)
        self.endpoint.save_endpoint_button.clicked.connect(self._on_save_endpoint_clicked)
        self.run_form = RunForm()
        # what deciding each class would take, re-estimated a moment after the form or the workbook changes
        self.estimate_label = DecideEstimate()
        self._estimate_timer = QTimer(self, singleShot=True, interval=300)
        self._estimate_timer.timeout.connect(self.update_estimate)
        self.run_form.changed.connect(self._estimate_timer.start)
        self.run_form.refused.connect(lambda text: self.show_message(text, error=True))
        self.endpoint.tier_combo.currentIndexChanged.connect(self._estimate_timer.start)
        self.endpoint.api_combo.currentIndexChanged.connect(self._estimate_timer.start)
        self.endpoint.sla_edit.textChanged.connect(self._estimate_timer.start)
        self.run_row = RunRow()
        self.run_row.run_button.clicked.connect(self._on_run_clicked)
        self.run_row.cancel_button.clicked.connect(self._on_cancel_clicked)
        self.message_label = QLabel("", wordWrap=True, visible=False)
        self.message_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Against lists tiers, not models: demo-standard is reached through a tier whose endpoint names it
        self.verdict_label = QLabel("<b>No probe yet.</b> Try it on <tt>specledger serve-demo</tt>: base URL "
                                    "http://127.0.0.1:8000/v1, model demo-fast; Against (none), or a tier whose "
                                    "saved endpoint is model demo-standard.", wordWrap=True)
        self.verdict_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                                   | Qt.TextInteractionFlag.LinksAccessibleByMouse
                                                   | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.verdict_label.linkActivated.connect(self._on_verdict_link)
        self.results_model = ProbeResultsModel(self)
        self.table = QTableView()
        self.table.setModel(self.results_model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        # rows as tall as the window's tables' (Qt's default 30 px showed 3 of the demo's 6 classes at 1366x768)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        # tall enough for its rows: the words above it (the until-decided outcome, the verdict) squeezed it to one
        # row of six in the scrolled dock at 1366x768 and 1600x1000; the dock scrolls instead
        self.results_model.modelReset.connect(self._fit_table)
        self.apply_row = ApplyRow()
        self.apply_row.apply_button.clicked.connect(self._on_apply_clicked)

        layout = QVBoxLayout(self)
        layout.addWidget(self.endpoint)
        layout.addWidget(self.run_form)
        # Run right under the form that sets the run, above the estimate: the estimate's height follows its words
        # (classes, costs, warnings) and moved the button down under the pointer as it changed
        layout.addWidget(self.run_row)
        layout.addWidget(self.estimate_label)
        layout.addWidget(self.message_label)
        layout.addWidget(self.verdict_label)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.apply_row)

    def _fit_table(self) -> None:
        rows = min(self.results_model.rowCount(), _TABLE_ROWS_SHOWN)
        header = self.table.horizontalHeader().sizeHint().height()
        scroll = self.table.horizontalScrollBar().sizeHint().height()
        self.table.setMinimumHeight(header + scroll + self.table.verticalHeader().defaultSectionSize() * max(rows, 1)
                                    + 2 * self.table.frameWidth())

    def take_footer(self) -> QWidget:
        """The apply row, out of the panel's own layout, for a dock to keep in sight below the scrolled form."""
        self.layout().removeWidget(self.apply_row)
        return self.apply_row

    # --- the form -----------------------------------------------------------------
    def show_message(self, text: str, error: bool = False) -> None:
        self.message_label.setStyleSheet(_ERROR_STYLE if error else _INFO_STYLE)
        self.message_label.setText(text)
        self.message_label.setVisible(bool(text))
        if text:
            bring_into_view(self.message_label)

    def _tier(self) -> Tier | None:
        return chosen_tier(self.endpoint.tier_combo, self.document.workbook)

    def report_tier_name(self) -> str | None:
        """The name, now, of the tier the shown report measured; None when no report or the tier is gone."""
        tier = self.document.workbook.tier_with_identity(self.report_tier)
        return None if tier is None else tier.name

    def _on_document_changed(self) -> None:
        tiers = self.document.workbook.tiers
        # by identity: a rename or a row move keeps the chosen tiers (by name, a rename fell back to row 1)
        refill_tiers(self.endpoint.tier_combo, tiers)
        # a baseline deleted stays named as gone (no baseline is probed while it is), so undoing the delete brings
        # it back; falling to "(none)" lost the choice for good once the endpoint was typed (the form no longer
        # refills from the tier)
        refill_tiers(self.endpoint.baseline_combo, tiers, [("(none)", None)], gone=AGAINST_GONE)
        if not self.endpoint.url_edit.text() and not self.endpoint.model_edit.text():
            self._on_tier_changed()
        self._update_apply()
        self._follow_undo()
        self._estimate_timer.start()

    def update_estimate(self) -> None:
        """Per class: the requests expected to decide it and their cost, as the CLI says (decide_estimate.py)."""
        tier = self._tier()
        applied = self._step is not None and self._step.kind == "apply" and self._step.in_effect
        # a probe of this tier shown but not applied: the estimate reads the workbook, not what the probe measured
        unapplied = (self.report is not None and not self._running and not applied and tier is not None
                     and tier.identity == self.report_tier)
        try:
            sla = self.endpoint.sla()
        except ValueError:  # a half-typed SLA: said where it is saved or run, not here
            sla = None
        # a probe of this tier whose stream hid the steps (openai chunks without logprobs): no acceptance to decide
        seen = (self.report is not None and tier is not None and tier.identity == self.report_tier
                and steps_hidden(self.report.evidence))
        self.estimate_label.update_for(tier, self.run_form, self.document.workbook, unapplied,
                                       self.endpoint.api_combo.currentText(), sla, seen)

    def _on_document_replaced(self) -> None:
        """Another workbook: nothing measured on the old one, and none of its endpoints, may stay."""
        self.report, self.report_tier, self._partial, self._step = None, None, None, None
        self.results_model.set_report(None)
        self.verdict_label.setText("<b>No probe yet</b> on this workbook.")
        self.endpoint.clear()
        self.show_message("")
        if not self._running:
            self.run_row.set_idle("no run yet")
            self.run_row.rate_label.setText("")
        self._on_document_changed()

    def _update_apply(self) -> None:
        tier, r = self.document.workbook.tier_with_identity(self.report_tier), self.report
        mismatch = k_mismatch(r.k_estimate, r.k_source, tier.k, r.profile_positions) if r and tier else None
        self.apply_row.update_for(r is not None, self.report_tier is not None, self.report_tier_name(),
                                  self._running, mismatch, disagreeing_sources(r) if r is not None else "",
                                  speed_only=r is not None and steps_hidden(r.evidence))

    def _on_tier_changed(self, *_args: object) -> None:
        tier = self._tier()
        if tier is None:
            return
        self.endpoint.fill(tier, self.document.workbook)
        self.run_form.show_levels_for(tier.concurrency)

    def _on_save_endpoint_clicked(self) -> None:
        tier = self._tier()
        if tier is None:
            return
        try:  # the one validator, as a typed cell would be
            values = self.endpoint.parsed(tier.name)
        except ValueError as exc:
            self.show_message(f"Not saved: {exc}", error=True)
            return
        name = tier.name

        def mutate(wb: Any) -> None:
            row = wb.tiers[wb.tier_index(name)]
            for field, value in values.items():
                drop_stale_measurement(row, field, value)  # a new SLA drops the share measured against the old
                setattr(row, field, value)
        if not self.document.apply(f"Set the endpoint of tier {name}", mutate):
            self.show_message(f"Tier {name} already has this endpoint; nothing changed.")
            return
        self._step = AppliedStep.last_of(
            self.document.undo_stack, f"Saved the endpoint to tier {name}. Undo with Ctrl+Z.",
            f"Undid saving the endpoint of tier {name}: the tier has its earlier endpoint again; the form keeps "
            "what was typed (Save endpoint to tier saves it again).")
        self.show_message(self._step.words())

    def settings(self) -> ProbeSettings:
        """The run the form describes; ValueError (one line) when it cannot be sent."""
        return form_settings(self._tier(), self.endpoint, self.run_form, self.document.workbook)

    def _ask(self, text: str) -> bool:
        answer = QMessageBox.question(self, "Probe a tier", text + "\n\nSend these requests?")
        return answer == QMessageBox.StandardButton.Yes

    def _on_verdict_link(self, link: str) -> None:
        """The evidence's details opened or closed (verdict_text.DETAILS / LESS)."""
        if self.report is not None and link in (DETAILS, LESS):
            self.verdict_label.setText(verdict_html(self.report, details=link == DETAILS))

    def _on_apply_clicked(self) -> None:
        report, tier = self.report, self.report_tier_name()
        if report is None or tier is None:
            self.show_message("Nothing to apply: the probed tier is not in this workbook.", error=True)
            return
        skipped: list[str] = []
        flag, speed = self.apply_row.flag_check.isChecked(), self.apply_row.speedup_check.isChecked()
        set_k = self.apply_row.set_k

        def mutate(wb: Any) -> None:
            skipped[:] = apply_probe(wb, report, tier, set_flag=flag, keep_speedup=speed, set_k=set_k)
        try:
            changed = self.document.apply(f"Apply probed acceptance to tier {tier}", mutate)
        except ValueError as exc:
            self.show_message(f"Not applied, the workbook is unchanged: {exc}", error=True)
            return
        if not changed:  # a second click, or values already there: no undo step, and nothing to say was applied
            self.show_message(f"Tier {tier} already holds what this probe measured; nothing changed.")
            return
        text = f"Applied the probe to tier {TIER}."
        if disagreeing_sources(report):
            text += " " + disagreeing_sources(report)
        if skipped:
            text += f" Skipped: {', '.join(skipped)}."
        # the tier named as it is called now: after renames the name it had may be another tier's
        self._step = AppliedStep.last_of(self.document.undo_stack, text + " Undo with Ctrl+Z.",
                                         f"Undid the apply to tier {TIER}: the tier is as it was before it. "
                                         "Apply is available again (Ctrl+Y redoes it).", "apply",
                                         tier=lambda: self.report_tier_name() or f"{tier} (since deleted)")
        self.show_message(self._step.words())
        self._shown_step = self._step.words()
        self.status_message.emit(text.replace(TIER, tier) + " Undo with Ctrl+Z.")

    def _follow_undo(self) -> None:
        """After Ctrl+Z / Ctrl+Y (or a rename): the words about the dock's last edit say whether it is in effect
        now, naming the tier as it is called now."""
        if self._step is None:
            return
        shown = self.message_label.text()
        if self._step.follow(self.document.undo_stack) or shown != self._step.words() and shown == self._shown_step:
            self.show_message(self._step.words())
        self._shown_step = self._step.words()


AGAINST_GONE = "(a deleted tier: none probed)"

