"""Tools > Probe a tier…: measure a tier through its API from the window, and apply what it found.

The probe itself is `model.probe.run.run_probe`, a cancellable generator; this panel edits the tier's
endpoint (saved to the tier as one undo step), says what a run will send and cost and asks, drives the
run on the shared TaskRunner with progress and cancel, shows the verdict and a table per class, and
turns Apply into one undo step (`model.probe.apply.apply_probe`). A cancelled run keeps and shows the
requests that completed. The API key is read on Run from the named env var or keyring, never shown.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import QStandardPaths, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFileDialog, QFormLayout, QGroupBox,
                               QHBoxLayout, QHeaderView, QLabel, QLineEdit, QMessageBox, QProgressBar,
                               QPushButton, QSpinBox, QTableView, QToolButton, QVBoxLayout, QWidget)

from gui.document import Document
from gui.probe.results import ProbeResultsModel
from gui.tier_choice import chosen_tier, refill_tiers
from gui.worker import TaskRunner, worded_error
from model import formatting as fmt
from model.probe.analysis import ProbeReport, analyse
from model.probe.apply import apply_probe
from model.probe.endpoint import Endpoint, check_endpoint, parse_extra_body, resolve_api_key
from model.probe.events import BASELINE, FAST
from model.probe.filler import context_label, parse_context
from model.probe.plan import Prices, ProbeSettings, estimate
from model.probe.prompt_file import load_probe_prompts
from model.probe.load import estimate_levels, parse_levels, run_any
from model.probe.run import ProbeProgress, ProbeRun
from model.probe.until_decided import DecideSettings, UntilDecidedRun, run_until_decided, thresholds_for
from model.workbook.validation import parse_field
from model.workbook.rows import Tier

TASK_LABEL = "Probing a tier"
DEMO_PROMPTS = Path(__file__).resolve().parents[2] / "resources" / "prompts" / "demo.jsonl"
_ERROR_STYLE = "QLabel { background: #fdecea; color: #8a1c12; border: 1px solid #f5c2bd; padding: 6px; }"
_INFO_STYLE = "QLabel { color: #333; padding: 2px; }"
ENDPOINT_EDITS = ("endpoint_url", "endpoint_model", "api_key_env", "keyring_service", "keyring_user", "extra_body")


def _seconds(s: float | None) -> str:
    if s is None:
        return "estimating time left"
    s = max(0, round(s))
    return f"{s} s left" if s < 60 else f"{s // 60} min {s % 60:02d} s left"


class ProbePanel(QWidget):
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
        self._last_live = 0.0  # when the table last showed the intervals of a run still going
        self.decided: UntilDecidedRun | None = None  # the last run-until-decided's per-class outcome
        self._running = False
        # asked before sending; a test replaces it
        self.confirm: Callable[[str], bool] = self._ask
        self.run_folder = Path(QStandardPaths.writableLocation(
            QStandardPaths.StandardLocation.AppLocalDataLocation) or ".") / "probe-runs"
        self._build()
        self.runner.progressed.connect(self._on_run_progressed)
        self.runner.finished.connect(self._on_run_finished)
        self.runner.errored.connect(self._on_run_errored)
        self.document.changed.connect(self._on_document_changed)
        self.document.replaced.connect(self._on_document_replaced)
        self._on_document_changed()

    # --- construction ----------------------------------------------------------
    def _build(self) -> None:
        self.tier_combo = QComboBox(toolTip="The tier to probe")
        self.tier_combo.currentIndexChanged.connect(self._on_tier_changed)
        self.baseline_combo = QComboBox(toolTip="The tier to compare with (speedup, identity); none to skip")
        self.url_edit = QLineEdit(placeholderText="https://api.vendor.example/v1")
        self.model_edit = QLineEdit(placeholderText="model name")
        self.key_env_edit = QLineEdit(placeholderText="VENDOR_API_KEY", toolTip="Name of the environment "
                                      "variable that holds the key (never the key itself)")
        self.keyring_service_edit = QLineEdit(placeholderText="keyring service")
        self.keyring_user_edit = QLineEdit(placeholderText="user")
        self.extra_edit = QLineEdit(placeholderText='{"service_tier": "priority"}', toolTip="Extra request fields")
        self.save_endpoint_button = QPushButton("Save endpoint to tier")
        self.save_endpoint_button.clicked.connect(self._on_save_endpoint_clicked)
        keyring = QHBoxLayout()
        keyring.addWidget(self.keyring_service_edit, 1)
        keyring.addWidget(self.keyring_user_edit, 1)
        endpoint = QGroupBox("Endpoint (OpenAI-compatible chat completions)")
        form = QFormLayout(endpoint)
        form.addRow("Tier", self.tier_combo)
        form.addRow("Base URL", self.url_edit)
        form.addRow("Model", self.model_edit)
        form.addRow("API key env var", self.key_env_edit)
        form.addRow("or keyring", keyring)
        form.addRow("Extra fields", self.extra_edit)
        # the load the analyst runs: saved to the tier with the endpoint; the comparison judges the tier there
        self.load_spin = QSpinBox(minimum=1, maximum=4096, value=1,
                                  toolTip="Parallel streams you will run on this tier (a batch job's workers). "
                                          "Saved with the endpoint; the comparison uses the speedup measured at "
                                          "this concurrency where a probe measured one")
        self.claim_load_spin = QSpinBox(minimum=1, maximum=4096, value=1,
                                        toolTip="The parallel streams the vendor's claim was measured at, where "
                                                "the vendor says (a claim is usually for one stream on a quiet server)")
        load_row = QHBoxLayout()
        load_row.addWidget(self.load_spin)
        load_row.addWidget(QLabel("streams; the claim at"))
        load_row.addWidget(self.claim_load_spin)
        load_row.addWidget(QLabel("streams"))
        load_row.addStretch(1)
        form.addRow("Your load", load_row)
        form.addRow("", self.save_endpoint_button)
        form.addRow("Against", self.baseline_combo)

        self.prompts_edit = QLineEdit(str(DEMO_PROMPTS))
        browse = QToolButton(text="…", toolTip="Browse")
        browse.clicked.connect(self._on_prompts_browse_clicked)
        prompts_row = QHBoxLayout()
        prompts_row.addWidget(self.prompts_edit, 1)
        prompts_row.addWidget(browse)
        self.contexts_edit = QLineEdit("0", toolTip="Filler before each prompt, e.g. 1K,8K,32K (0: the prompt alone)")
        self.contexts_edit.setMaximumWidth(120)
        self.tokens_spin = QSpinBox(minimum=2, maximum=4096, value=64, toolTip="Output tokens per request")
        self.repeats_spin = QSpinBox(minimum=1, maximum=100, value=1)
        self.levels_edit = QLineEdit("1", toolTip="Parallel streams per level, one level at a time, e.g. 1,4,16: "
                                     "fast and baseline at each level")
        run_form = QFormLayout()
        run_form.addRow("Prompts (JSONL)", prompts_row)
        knobs = QHBoxLayout()
        for text, w in (("Contexts", self.contexts_edit), ("Max tokens", self.tokens_spin),
                        ("Repeats", self.repeats_spin)):
            knobs.addWidget(QLabel(text))
            knobs.addWidget(w)
        run_form.addRow(knobs)
        levels_row = QHBoxLayout()
        levels_row.addWidget(QLabel("Concurrency"))
        levels_row.addWidget(self.levels_edit, 1)
        levels_row.addWidget(QLabel("parallel streams per level, e.g. 1,4,16"))
        run_form.addRow(levels_row)
        # until decided: rounds to the classes still undecided against their price break-even (the workbook's)
        self.decide_check = QCheckBox("Run until decided", toolTip="Send rounds of requests (this tier only) to the "
                                      "classes whose acceptance interval still reaches across their price break-even, "
                                      "and stop each once it does not (or at the caps)")
        self.max_requests_spin = QSpinBox(minimum=5, maximum=10000, value=40, suffix=" a class",
                                          toolTip="Most requests per class")
        self.max_cost_edit = QLineEdit(placeholderText="no cap", toolTip="Stop before a round would pass this cost "
                                       "(at the tier's prices)")
        self.max_cost_edit.setMaximumWidth(90)
        decide_row = QHBoxLayout()
        decide_row.addWidget(self.decide_check)
        for text, w in (("Max requests", self.max_requests_spin), ("Max cost", self.max_cost_edit)):
            decide_row.addWidget(QLabel(text))
            decide_row.addWidget(w)
        decide_row.addStretch(1)
        run_form.addRow(decide_row)

        self.run_button = QPushButton("Run")
        self.run_button.clicked.connect(self._on_run_clicked)
        self.cancel_button = QPushButton("Cancel", enabled=False)
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        self.progress_bar = QProgressBar(textVisible=True)
        self._set_progress_idle("no run yet")
        self.rate_label = QLabel("")
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.cancel_button)
        run_row.addWidget(self.progress_bar, 1)
        run_row.addWidget(self.rate_label)

        self.message_label = QLabel("", wordWrap=True, visible=False)
        self.message_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict_label = QLabel("<b>No probe yet.</b> Try it on <tt>specledger serve-demo</tt>: base URL "
                                    "http://127.0.0.1:8000/v1, model demo-fast, against demo-standard.", wordWrap=True)
        self.verdict_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.results_model = ProbeResultsModel(self)
        self.table = QTableView()
        self.table.setModel(self.results_model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)

        self.flag_check = QCheckBox("Set the tier's Speculative from the verdict", checked=True)
        self.speedup_check = QCheckBox("Keep the measured speedup beside the claim", checked=True)
        self.apply_button = QPushButton("Apply probed acceptance", enabled=False)
        self.apply_button.setToolTip("One undoable step: α per class as the tier's overrides (source probed), "
                                     "the speculative flag, the measured speedup")
        self.apply_button.clicked.connect(self._on_apply_clicked)
        # which tier Apply writes to, or why it cannot: the report's tier, never the combo's current row
        self.apply_label = QLabel("", wordWrap=True)
        # stacked, so the dock still fits beside the tables on a 1366 px screen
        checks = QVBoxLayout()
        checks.addWidget(self.flag_check)
        checks.addWidget(self.speedup_check)
        apply_row = QHBoxLayout()
        apply_row.addLayout(checks, 1)
        apply_row.addWidget(self.apply_button)

        layout = QVBoxLayout(self)
        layout.addWidget(endpoint)
        layout.addLayout(run_form)
        layout.addLayout(run_row)
        layout.addWidget(self.message_label)
        layout.addWidget(self.verdict_label)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.apply_label)
        layout.addLayout(apply_row)

    # --- the form -----------------------------------------------------------------
    def show_message(self, text: str, error: bool = False) -> None:
        self.message_label.setStyleSheet(_ERROR_STYLE if error else _INFO_STYLE)
        self.message_label.setText(text)
        self.message_label.setVisible(bool(text))

    def _tier(self) -> Tier | None:
        return chosen_tier(self.tier_combo, self.document.workbook)

    def report_tier_name(self) -> str | None:
        """The name, now, of the tier the shown report measured; None when no report or the tier is gone."""
        tier = self.document.workbook.tier_with_identity(self.report_tier)
        return None if tier is None else tier.name

    def _on_document_changed(self) -> None:
        tiers = self.document.workbook.tiers
        # by identity: a rename or a row move keeps the chosen tiers (by name, a rename fell back to row 1)
        refill_tiers(self.tier_combo, tiers)
        refill_tiers(self.baseline_combo, tiers, [("(none)", None)])
        if not self.url_edit.text() and not self.model_edit.text():
            self._on_tier_changed()
        self._update_apply()

    def _on_document_replaced(self) -> None:
        """Another workbook: nothing measured on the old one, and none of its endpoints, may stay."""
        self.report, self.report_tier, self._partial = None, None, None
        self.results_model.set_report(None)
        self.verdict_label.setText("<b>No probe yet</b> on this workbook.")
        for edit in self._endpoint_edits():
            edit.clear()
        self.show_message("")
        if not self._running:
            self._set_progress_idle("no run yet")
            self.rate_label.setText("")
        self._on_document_changed()

    def _update_apply(self) -> None:
        name = self.report_tier_name()
        if self.report is None:
            self.apply_label.setText("")
        elif self.report_tier is None:
            self.apply_label.setText("This probe ran without a tier of this workbook; nothing to apply it to.")
        elif name is None:
            self.apply_label.setText("<span style='color:#8a1c12'>The probed tier is no longer in the workbook "
                                     "(deleted, or another file opened): Apply is off. Undo the delete to "
                                     "apply it.</span>")
        else:
            self.apply_label.setText(f"Apply writes to the probed tier <b>{escape(name)}</b>.")
        self.apply_button.setEnabled(not self._running and self.report is not None and name is not None)
        self.apply_button.setText(f"Apply to {name}" if name is not None and len(name) <= 24
                                  else "Apply probed acceptance")

    def _set_progress_idle(self, words: str) -> None:
        # no run in progress: words, not a count ("0 of 1 requests" read as a plan of one request)
        self.progress_bar.setRange(0, 1)
        self.progress_bar.setValue(0)
        self.progress_bar.setFormat(words)

    def _on_tier_changed(self, *_args: object) -> None:
        tier = self._tier()
        if tier is None:
            return
        for name, edit in zip(ENDPOINT_EDITS, self._endpoint_edits()):
            edit.setText(getattr(tier, name))
        self.load_spin.setValue(tier.concurrency)
        self.claim_load_spin.setValue(tier.claim_concurrency)
        self.levels_edit.setText("1" if tier.concurrency == 1 else f"1,{tier.concurrency}")
        base = self.document.workbook.tiers[i] if (i := self.document.workbook.tier_index(tier.baseline)) is not None \
            else None
        self.baseline_combo.setCurrentIndex(max(0, self.baseline_combo.findData(base.identity)) if base else 0)

    def _endpoint_edits(self) -> tuple[QLineEdit, ...]:
        return (self.url_edit, self.model_edit, self.key_env_edit, self.keyring_service_edit, self.keyring_user_edit,
                self.extra_edit)

    def _on_save_endpoint_clicked(self) -> None:
        tier = self._tier()
        if tier is None:
            return
        try:  # the one validator, as a typed cell would be
            values = {name: parse_field(Tier, name, edit.text(), tier.name)
                      for name, edit in zip(ENDPOINT_EDITS, self._endpoint_edits())}
            values["concurrency"] = parse_field(Tier, "concurrency", self.load_spin.value(), tier.name)
            values["claim_concurrency"] = parse_field(Tier, "claim_concurrency", self.claim_load_spin.value(), tier.name)
        except ValueError as exc:
            self.show_message(f"Not saved: {exc}", error=True)
            return
        name = tier.name

        def mutate(wb: Any) -> None:
            row = wb.tiers[wb.tier_index(name)]
            for field, value in values.items():
                setattr(row, field, value)
        self.document.apply(f"Set the endpoint of tier {name}", mutate)
        self.show_message(f"Saved the endpoint to tier {name}. Undo with Ctrl+Z.")

    def _on_prompts_browse_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Prompt set", self.prompts_edit.text(),
                                              "Prompt sets (*.jsonl);;All files (*)")
        if path:
            self.prompts_edit.setText(path)

    def settings(self) -> ProbeSettings:
        """The run the form describes; ValueError (one line) when it cannot be sent."""
        tier = self._tier()
        fast = Endpoint(self.url_edit.text().strip(), self.model_edit.text().strip(), self.key_env_edit.text().strip(),
                        self.keyring_service_edit.text().strip(), self.keyring_user_edit.text().strip(),
                        parse_extra_body(self.extra_edit.text()))
        check_endpoint(fast)
        wb = self.document.workbook
        base_tier = None
        baseline = None
        base_tier = chosen_tier(self.baseline_combo, wb)
        if base_tier is not None:
            from model.probe.endpoint import tier_endpoint
            baseline = tier_endpoint(base_tier)
            if baseline is None:
                raise ValueError(f"the baseline tier {base_tier.name!r} has no endpoint; save one to it first, "
                                 "or choose (none)")
            check_endpoint(baseline)
        contexts = tuple(dict.fromkeys(parse_context(c) for c in self.contexts_edit.text().split(",") if c.strip()))
        settings = ProbeSettings(
            fast=fast, baseline=baseline, prompts=load_probe_prompts(self.prompts_edit.text().strip()),
            contexts=contexts or (0,), repeats=self.repeats_spin.value(), max_tokens=self.tokens_spin.value(),
            fast_name=tier.name if tier else fast.model, baseline_name=base_tier.name if base_tier else "",
            fast_prices=Prices(tier.price_in, tier.price_out) if tier else None,
            baseline_prices=Prices(base_tier.price_in, base_tier.price_out) if base_tier else None,
            prompts_path=self.prompts_edit.text().strip(), concurrency=parse_levels(self.levels_edit.text()))
        settings.check()
        return settings

    def _ask(self, text: str) -> bool:
        answer = QMessageBox.question(self, "Probe a tier", text + "\n\nSend these requests?")
        return answer == QMessageBox.StandardButton.Yes

    # --- running -----------------------------------------------------------------
    def _set_running(self, running: bool) -> None:
        self._running = running
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self._update_apply()

    def _on_run_clicked(self) -> None:
        try:
            settings = self.settings()
            keys = {FAST: resolve_api_key(settings.fast)}
            if settings.baseline is not None:
                keys[BASELINE] = resolve_api_key(settings.baseline)
        except (ValueError, OSError) as exc:
            self.show_message(str(exc), error=True)
            return
        est = estimate(settings) if settings.concurrency == (1,) else estimate_levels(settings)
        where = ", ".join(context_label(c) for c in settings.contexts)
        currency = self.document.workbook.settings.currency
        decide = None
        if self.decide_check.isChecked():
            try:
                decide, thresholds = self._decide_settings(settings)
            except ValueError as exc:
                self.show_message(str(exc), error=True)
                return
            question = (f"Probe {settings.fast.describe()} until each class is decided at "
                        f"{decide.confidence:.0%}: at most {decide.max_requests} requests a class"
                        + (f", at most {decide.max_cost:g} {currency}" if decide.max_cost is not None else "") + ".")
        else:
            question = f"Probe {settings.fast.describe()} at {where}: {est.describe(currency)}."
        if not self.confirm(question):
            self.show_message("Nothing sent.")
            return
        tier = self._tier()
        self._run_tier = tier.identity if tier is not None else None
        self.run_folder.mkdir(parents=True, exist_ok=True)
        run_path = self.run_folder / f"probe-{datetime.now():%Y%m%d-%H%M%S}.run.jsonl"
        partial = self._partial = ProbeRun()  # filled by the worker; read here if a cancel stops it

        self._last_live = 0.0
        if decide is not None:
            # the loop fills the same list of records, so a cancel shows what completed either way
            decided = UntilDecidedRun(records=partial.records)

            def job(cancel: threading.Event) -> Generator[ProbeProgress, None, Any]:
                return run_until_decided(settings, keys, thresholds, decide, run_path, cancel, into=decided)
        else:
            def job(cancel: threading.Event) -> Generator[ProbeProgress, None, Any]:
                return run_any(settings, keys, run_path, cancel, into=partial)

        if not self.runner.start(TASK_LABEL, job):
            self.show_message("Another long task is running; wait for it or cancel it first.", error=True)
            return
        # a new run: the previous verdict and table are not this run's, and Apply must not offer them
        self.report, self.report_tier = None, None
        self.results_model.set_report(None)
        self.verdict_label.setText(f"<b>Probing…</b> {fmt.count(est.requests, 'request')} planned.")
        self._set_running(True)
        self.progress_bar.setFormat("%v of %m requests")
        self.progress_bar.setRange(0, max(1, est.requests))
        self.progress_bar.setValue(0)
        self.rate_label.setText("starting…")
        self.show_message(f"Raw run: {run_path}")
        self.status_message.emit(f"{TASK_LABEL}…")

    def _decide_settings(self, settings: ProbeSettings) -> tuple[DecideSettings, dict[str, float | None]]:
        tier = self._tier()
        if tier is None:
            raise ValueError("Run until decided needs the probed tier in the workbook: its prices give each class's "
                             "price break-even")
        text = self.max_cost_edit.text().strip()
        try:
            cap = float(text.replace(",", ".")) if text else None
        except ValueError:
            raise ValueError(f"Max cost must be a number or blank (got {text!r})") from None
        if cap is not None and not cap >= 0:
            raise ValueError("Max cost must be 0 or more")
        wb = self.document.workbook
        thresholds = thresholds_for(wb, tier.name, [p.task_class for p in settings.prompts])
        return DecideSettings(wb.settings.confidence, self.max_requests_spin.value(), cap), thresholds

    def _show_live(self) -> None:
        """The intervals so far, at most once a second: they narrow as requests complete."""
        partial = self._partial
        now = time.monotonic()
        if partial is None or now - self._last_live < 1.0:
            return
        self._last_live = now
        records = list(partial.records)  # appended by the worker; a copy is a consistent snapshot
        if records:
            self.results_model.set_report(analyse(records, {}, self.document.workbook.settings.confidence))

    def _on_cancel_clicked(self) -> None:
        if self._running:
            self.runner.cancel()
            self.rate_label.setText("cancelling…")
            self.cancel_button.setEnabled(False)

    def _on_run_progressed(self, event: object) -> None:
        if not self._running or not hasattr(event, "requests_total"):
            return
        self.progress_bar.setRange(0, max(1, event.requests_total))  # type: ignore[attr-defined]
        self.progress_bar.setValue(event.requests_done)  # type: ignore[attr-defined]
        if event.requests_done:  # type: ignore[attr-defined]
            self.rate_label.setText(f"{event.tokens_per_second:,.0f} tokens/s · "  # type: ignore[attr-defined]
                                    f"{_seconds(event.seconds_left)}")  # type: ignore[attr-defined]
            self._show_live()

    def _show(self, run: ProbeRun, note: str = "", error: bool = False) -> None:
        self.report = analyse(run.records, run.header, self.document.workbook.settings.confidence)
        self.report_tier = self._run_tier
        self.results_model.set_report(self.report)
        r = self.report
        k = f", K about {r.k_estimate}" if r.k_estimate else ""
        identity = ""
        if r.identity is not None and r.identity.compared:
            identity = (f"<br>Identity at temperature 0: {r.identity.share:.0%} of {r.identity.compared} prompts "
                        f"token-identical to {r.baseline_name}.")
        levels = ""
        if any(x.concurrency > 1 for x in r.by_concurrency):
            levels = "<br>Speedup over the baseline by parallel streams: " + ", ".join(
                f"{x.concurrency}: " + ("–" if x.speedup_measured is None else f"{x.speedup_measured:.2f}x")
                + (" (throttled: 429s)" if x.throttled else "") for x in r.by_concurrency) + "."
        self.verdict_label.setText(f"<b>Runs speculative decoding: {r.verdict}</b> ({r.stream_style}{k})<br>"
                                   f"{r.evidence}{identity}{levels}")
        if note:
            self.show_message(note, error=error)
        self._set_running(False)

    def _on_run_finished(self, result: object) -> None:
        if isinstance(result, UntilDecidedRun) and self._running:
            self.decided = result
            run = ProbeRun(records=result.records, error=result.error, cancelled=result.cancelled,
                           header=result.header)
            self._on_run_finished(run)
            cost = "" if result.cost is None else f"; cost {result.cost:,.4f} {self.document.workbook.settings.currency}"
            words = "; ".join(f"{c.task_class} " + (f"decided ({'at or above' if c.side == 'above' else 'below'} "
                                                     f"{fmt.pct(c.threshold)})" if c.stopped == "decided" else c.stopped)
                              + f" after {c.requests}" for c in result.classes)
            self.show_message(f"Until decided: {words} requests{cost}.")
            return
        if not self._running or not isinstance(result, ProbeRun):
            return
        self.progress_bar.setRange(0, max(1, self.progress_bar.maximum()))
        self.progress_bar.setValue(len(result.records))
        self.rate_label.setText("done")
        if result.error:  # the bar says the run stopped, not that it is a sixth done
            self.progress_bar.setFormat("stopped after %v of %m requests")
            self._show(result, f"{result.error}. The {fmt.count(len(result.records), 'request')} that completed {'is' if len(result.records) == 1 else 'are'} shown.", True)
        else:
            self._show(result, f"Raw run: {result.run_path}")
        self.status_message.emit(f"Probed {result.header.get('fast_name')}: speculative {self.report.verdict}")

    def _on_run_errored(self, message: str) -> None:
        if not self._running:
            return
        self.progress_bar.setRange(0, 1)
        self.progress_bar.setValue(0)
        self.rate_label.setText("")
        partial = self._partial
        if message.lower().startswith("cancelled"):
            if partial is not None and partial.records:
                self._show(partial, f"Cancelled; the {fmt.count(len(partial.records), 'request')} that completed {'is' if len(partial.records) == 1 else 'are'} shown.")
            else:
                self._set_running(False)
                self.show_message("Cancelled before any request completed.")
            return
        self._set_running(False)
        self.show_message(worded_error(message), error=True)

    def _on_apply_clicked(self) -> None:
        report, tier = self.report, self.report_tier_name()
        if report is None or tier is None:
            self.show_message("Nothing to apply: the probed tier is not in this workbook.", error=True)
            return
        skipped: list[str] = []
        flag, speed = self.flag_check.isChecked(), self.speedup_check.isChecked()

        def mutate(wb: Any) -> None:
            skipped[:] = apply_probe(wb, report, tier, set_flag=flag, keep_speedup=speed)
        try:
            self.document.apply(f"Apply probed acceptance to tier {tier}", mutate)
        except ValueError as exc:
            self.show_message(f"Not applied, the workbook is unchanged: {exc}", error=True)
            return
        text = f"Applied the probe to tier {tier}."
        if skipped:
            text += f" Skipped: {', '.join(skipped)}."
        self.show_message(text)
        self.status_message.emit(text + " Undo with Ctrl+Z.")
