"""The probe dock's 'to decide' line: before a run, per class, the requests expected to decide its value verdict
(or reach the half-width) and what they cost at the tier's prices, in the workbook's currency.

Only shows: the numbers are model.probe.decide_plan.needs_before_run's, the same as `specledger probe` prints.
"""
from __future__ import annotations

import math
from html import escape
from typing import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from gui.probe.run_form import RunForm
from model.common import formatting as fmt
from model.probe.apis.registry import dialect_for
from model.probe.decide_plan import ClassNeed, needs_before_run
from model.probe.endpoint import Endpoint
from model.probe.plan import SHORT_PRICE_BASIS, ProbeSettings, estimate, tier_prices
from model.probe.sla import sla_plan_words
from model.probe.prompt_file import load_probe_prompts
from model.probe.prompt_supply import ShortOfPrompts, short_of_prompts
from model.workbook.rows import Tier, Workbook


def _short(n: ClassNeed, currency: str) -> str:
    if not n.in_workbook:
        return f"{escape(n.task_class)} not in the workbook"
    if n.decided:  # by the interval the workbook holds (an applied probe): nothing to send, nothing to pay
        return f"{escape(n.task_class)} decided"
    if not math.isfinite(n.need.extra):
        # an expectation from the workbook's acceptance, not a finding: a class said 'not decidable within the cap'
        # was decided after 5 requests once the run measured an acceptance far from the break-even. The cap is
        # the one reason the analyst can act on here (raise it); the tooltip has the rest
        if "cap of" in n.need.basis:
            return f"{escape(n.task_class)} past the cap if its acceptance is the workbook's"
        if "on the break-even" in n.need.basis:
            return f"{escape(n.task_class)} undecided if its acceptance is the workbook's"
        return f"{escape(n.task_class)} not decidable"
    cost = f" {fmt.cost(n.cost, currency)}" if n.cost is not None else ""
    return f"{escape(n.task_class)} ~{n.need.extra:.0f}{cost}"


UNAPPLIED = "From the workbook as it stands: Apply the probe shown to count from what it measured."


class DecideEstimate(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent, wordWrap=True)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setStyleSheet("QLabel { color: #333; padding: 2px; }")

    def update_for(self, tier: Tier | None, form: RunForm, wb: Workbook, unapplied: bool = False, api: str = "",
                   sla: tuple[float, float] | None = None, hidden_seen: bool = False) -> None:
        """Estimate for ``tier`` and what ``form`` would send, from ``wb``; or say why there is no estimate.
        ``unapplied``: a probe of the tier is shown and not applied, so the estimate says it reads the workbook
        (after a run it said 'code ~15' under 'code decided after 5 requests'). ``api``: the endpoint's API, and
        ``hidden_seen``: a probe of the tier found its stream hides the steps; either way no acceptance can be
        decided, and the estimate gives the requests the SLA ``sla`` (threshold, share) needs instead."""
        if tier is None:
            self.show_none("no tier chosen")
            return
        if tier.speculative == "no":  # no speed or value verdict to decide: say so once, not per class
            self.show_none(f"{tier.name} does not run speculative decoding (a probe still tells whether it does)")
            return
        try:
            # nothing is sent: the endpoint does not matter here, the prompts, tokens and the tier's prices do
            settings = ProbeSettings(fast=Endpoint("", tier.name), prompts=load_probe_prompts(form.prompts_path()),
                                     contexts=form.contexts() or (0,), max_tokens=form.tokens_spin.value(),
                                     fast_name=tier.name, fast_prices=tier_prices(tier))
            until = form.decide_check.isChecked()
            max_requests = form.max_requests_spin.value() if until else None
            if hidden_seen or not dialect_for(api or None).shows_steps:
                self.show_speed_only(api, sla, estimate(settings).requests, wb.settings.confidence, hidden_seen)
                return
            needs = needs_before_run(wb, tier.name, settings, wb.settings.confidence,
                                     form.half_width() if until else None, max_requests,
                                     length_half_width=form.length_half_width() if until else None)
        except (ValueError, OSError) as exc:
            self.show_none(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            return
        self.show_needs(needs, wb.settings.currency, wb.settings.confidence, max_requests,
                        short_of_prompts(needs, settings.prompts))
        if unapplied:
            self.setText(self.text() + f"<br><span style='color:#777'>{UNAPPLIED}</span>")

    def show_needs(self, needs: list[ClassNeed], currency: str, confidence: float, max_requests: int | None,
                   short: Sequence[ShortOfPrompts] = ()) -> None:
        """The classes' requests and costs, then on one line the classes their prompt file cannot supply
        (coloured: a repeated prompt adds no unit); the tooltip has each class's whole reasoning."""
        how = f"until decided, at most {max_requests} a class" if max_requests else "in one run"
        # the classes a run would send to: one already decided costs nothing and is not in the sum
        counted = [n for n in needs if not n.decided]
        total = [n.cost for n in counted if n.cost is not None]
        tail = (f"; in all {fmt.cost(sum(total), currency)} ({SHORT_PRICE_BASIS})"
                if total and len(total) == len(counted) else "")
        # one line for every class short of prompts, its full words in the tooltip: a line per class pushed what
        # is below down by two lines each
        warn = ("<br><span style='color:#a05a00'>Too few distinct prompts: " + " · ".join(
            f"{escape(s.task_class)} ~{s.expected} expected, {s.distinct} in the file" for s in short)
            + ": add prompts or expect undecided</span>") if short else ""
        self.setText(f"<b>Requests to decide at {confidence:.0%}</b> ({how}): "
                     + " · ".join(_short(n, currency) for n in needs) + tail + warn)
        self.setToolTip("\n".join([n.words(currency) for n in needs] + [s.words() for s in short]))

    def show_speed_only(self, api: str, sla: tuple[float, float] | None, fast_requests: int, confidence: float,
                        seen: bool) -> None:
        """No acceptance to decide through this API: what a run judges instead, and the SLA's requests for a met
        (as the CLI says before a run, model.probe.sla.sla_plan_words)."""
        how = ("the last probe's stream showed no steps (no logprobs, several tokens an event)" if seen
               else f"the {api} API shows no steps (no logprobs, several tokens an event)")
        said = (f"<b>Acceptance cannot be read through this API</b>: {escape(how, quote=False)}; a run judges the tier's speed, "
                "the requests served at standard speed and the SLA.")
        sla_words = sla_plan_words(*sla, fast_requests, confidence) if sla else "No SLA given to judge."
        self.setText(f"{said}<br>{escape(sla_words, quote=False)}.")
        self.setToolTip("")

    def show_none(self, why: str) -> None:
        self.setText(f"<span style='color:#777'>No estimate of what deciding would take: {escape(why)}</span>")
        self.setToolTip("")
