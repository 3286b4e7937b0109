"""The probe panel's runs: Run asks, then sends on the shared TaskRunner; progress, the live table, Cancel, and
the verdict and table once the run ends (or a cancel stops it, keeping the requests that completed).

A mixin of ProbePanel (gui/probe/panel.py: it needs the panel's forms, run row, table, labels and runner, and keeps
the run's state there); kept apart because driving a run is its own job beside the forms and Apply.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel

from gui.document import Document
from gui.probe.results import ProbeResultsModel
from gui.probe.run_form import RunForm
from gui.probe.run_request import NothingToSend, decide_run, decide_settings
from gui.probe.run_row import RunRow
from gui.probe.undo_words import AppliedStep
from gui.probe.verdict_text import decided_words, verdict_html
from gui.worker import TaskRunner, worded_error
from model.acceptance.interval import t_quantile
from model.common import formatting as fmt
from model.probe.analysis import ProbeReport, analyse
from model.probe.endpoint import resolve_api_key
from model.probe.events import BASELINE, FAST
from model.probe.filler import context_label
from model.probe.load import estimate_levels, run_any
from model.probe.plan import ProbeSettings, estimate
from model.probe.prompt_supply import distinct_by_class
from model.probe.run import ProbeProgress, ProbeRun
from model.probe.run_file import open_run_folder, record_k, record_sla
from model.probe.sla import breaking_requests, sla_plan_words
from model.probe.speed_verdict import SPEED_VERDICTS
from model.probe.until_decided import (DecideSettings, Threshold, UntilDecidedRun, priced_thresholds,
                                      run_until_decided)

TASK_LABEL = "Probing a tier"


def _load_interval_maths() -> None:
    """On the worker, before the first request: the intervals' Student t (scipy.stats, imported on first use).
    The live table's first analysis imported it on the GUI thread, which then took no keys nor paints for
    2.5-3.8 s (tests/bench/bench_gui_lag_probe.py: a 10 ms timer 3780 ms late, the first run only)."""
    t_quantile(0.95, 30.0)


class ProbeRunning:
    """Run, progress, Cancel and a run's end, for ProbePanel."""

    document: Document
    runner: TaskRunner
    run_form: RunForm
    run_row: RunRow
    results_model: ProbeResultsModel
    verdict_label: QLabel
    report: ProbeReport | None
    report_tier: int | None
    decided: UntilDecidedRun | None
    confirm: Callable[[str], bool]
    run_folder: Path
    _run_tier: int | None
    _partial: ProbeRun | None
    _run_path: Path | None
    _last_live: float
    _deciding: UntilDecidedRun | None
    _running: bool
    _step: AppliedStep | None
    _estimate_timer: QTimer

    def _set_running(self, running: bool) -> None:
        self._running = running
        self.run_row.set_running(running)
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
        if self.run_form.decide_check.isChecked():
            try:
                plan = decide_run(self._tier(), self.run_form, self.document.workbook, settings)
            except ValueError as exc:
                self.show_message(str(exc), error=not isinstance(exc, NothingToSend))
                return
            settings, decide, thresholds, question = plan.settings, plan.decide, plan.thresholds, plan.question
        else:
            question = f"Probe {settings.fast.describe()} at {where}: {est.describe(currency)}."
        if settings.sla is not None:  # 20 requests cannot show 99%: said before anything is sent
            question += "\n\n" + sla_plan_words(*settings.sla, est.requests // (2 if settings.baseline else 1),
                                                self.document.workbook.settings.confidence,
                                                settings.max_tokens) + "."
        if not self.confirm(question):
            self.show_message("Nothing sent.")
            return
        tier = self._tier()
        self._run_tier = tier.identity if tier is not None else None
        open_run_folder(self.run_folder)
        run_path = self._run_path = self.run_folder / f"probe-{datetime.now():%Y%m%d-%H%M%S}.run.jsonl"
        partial = self._partial = ProbeRun()  # filled by the worker; read here if a cancel stops it
        self._deciding = None

        self._last_live = 0.0
        planned = est.requests
        if decide is not None:
            # the loop fills the same list of records, so a cancel shows what completed either way
            decided = self._deciding = UntilDecidedRun(records=partial.records)
            # a class stops once each of its distinct prompts is sent (a repeat adds no unit): 8 prompts of six
            # classes at a cap of 40 are at most 48 requests, not 240
            planned = sum(min(n, decide.max_requests) for n in distinct_by_class(settings.prompts).values())

            def job(cancel: threading.Event) -> Generator[ProbeProgress, None, Any]:
                _load_interval_maths()
                return run_until_decided(settings, keys, thresholds, decide, run_path, cancel, into=decided)
        else:
            def job(cancel: threading.Event) -> Generator[ProbeProgress, None, Any]:
                _load_interval_maths()
                return run_any(settings, keys, run_path, cancel, into=partial)

        if not self.runner.start(TASK_LABEL, job):
            self.show_message("Another long task is running; wait for it or cancel it first.", error=True)
            return
        # a new run: the previous verdict and table are not this run's, and Apply must not offer them
        self.report, self.report_tier, self._step = None, None, None
        self.results_model.set_report(None)
        self.verdict_label.setText(f"<b>Probing…</b> {fmt.count(est.requests, 'request')} planned." if decide is None
                                   else f"<b>Probing until decided…</b> at most {fmt.count(planned, 'request')}.")
        self._set_running(True)
        self.run_row.started(planned, at_most=decide is not None)
        self.show_message(f"Raw run: {run_path}")
        self.status_message.emit(f"{TASK_LABEL}…")

    def _decide_settings(self, settings: ProbeSettings) -> tuple[DecideSettings, dict[str, Threshold]]:
        return decide_settings(self._tier(), self.run_form, self.document.workbook, settings)

    def _show_live(self) -> None:
        """The intervals so far, at most once a second: they narrow as requests complete."""
        partial = self._partial
        now = time.monotonic()
        if partial is None or now - self._last_live < 1.0:
            return
        self._last_live = now
        records = list(partial.records)  # appended by the worker; a copy is a consistent snapshot
        sending = self._deciding.in_round if self._deciding is not None else None
        if sending is not None:  # until decided: a round's requests join `records` only when the round ends
            have = {id(r) for r in records}
            records += [r for r in list(sending.records) if id(r) not in have]
        if records:
            self.results_model.set_report(analyse(records, {}, self.document.workbook.settings.confidence))

    def _on_cancel_clicked(self) -> None:
        if self._running:
            self.runner.cancel()
            self.run_row.cancelling()

    def _on_run_progressed(self, event: object) -> None:
        if not self._running or not isinstance(event, ProbeProgress):
            return
        self.run_row.progressed(event.requests_done, event.requests_total, event.tokens_per_second,
                                event.seconds_left)
        if event.requests_done:
            self._show_live()

    def _show(self, run: ProbeRun, note: str = "", error: bool = False) -> None:
        self.report = analyse(run.records, run.header, self.document.workbook.settings.confidence)
        # the run file keeps the K settled on, so import-metrics on it needs no --k
        record_k(self._run_path, self.report.k_estimate, self.report.k_source)
        if self.report.sla is not None:  # and every request below the SLA's line, by name
            record_sla(self._run_path, self.report.sla,
                       breaking_requests(run.records, run.header, self.report.sla["threshold_tokens_per_s"]))
        self._run_path = None
        self.report_tier = self._run_tier
        self.results_model.set_report(self.report)
        self.verdict_label.setText(verdict_html(self.report))  # the evidence's lead; its details on a click
        self._estimate_timer.start()  # now beside a probe not applied yet
        if note:
            self.show_message(note, error=error)
        self._set_running(False)

    def _on_run_finished(self, result: object, all_sent: bool = False) -> None:
        if isinstance(result, UntilDecidedRun) and self._running:
            self.decided = result
            run = ProbeRun(records=result.records, error=result.error, cancelled=result.cancelled,
                           header=result.header)
            self._on_run_finished(run, all_sent=not result.cancelled)
            self.show_message(decided_words(result, self.document.workbook.settings.currency, self._priced()))
            return
        if not self._running or not isinstance(result, ProbeRun):
            return
        self.run_row.finished(len(result.records), stopped=bool(result.error), all_sent=all_sent)
        if result.error:
            self._show(result, f"{result.error}. The {_completed(len(result.records))} shown.", True)
        else:
            self._show(result, f"Raw run: {result.run_path}")
        said = (f"{self.report.verdict} than its baseline" if self.report.verdict in SPEED_VERDICTS
                else f"speculative {self.report.verdict}")
        self.status_message.emit(f"Probed {result.header.get('fast_name')}: {said}")

    def _on_run_errored(self, message: str) -> None:
        if not self._running:
            return
        partial = self._partial
        if message.lower().startswith("cancelled"):
            self.run_row.cancelled(len(partial.records) if partial is not None else 0)
            if partial is not None and partial.records:
                self._show(partial, f"Cancelled; the {_completed(len(partial.records))} shown.")
            else:
                self._set_running(False)
                self.show_message("Cancelled before any request completed.")
            return
        self.run_row.errored()
        self._set_running(False)
        self.show_message(worded_error(message), error=True)

    def _priced(self) -> set[str]:
        """The classes a run until decided judged against the price break-even (their value verdict)."""
        name = self.document.workbook.tier_with_identity(self._run_tier)
        return priced_thresholds(self.document.workbook, name.name)[1] if name is not None else set()


def _completed(n: int) -> str:
    return f"{fmt.count(n, 'request')} that completed {'is' if n == 1 else 'are'}"
