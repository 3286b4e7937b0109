"""What Run sends, from the dock's forms: the probe's settings, and for a run until decided its settings, the
classes' thresholds, the classes left out (already decided by the workbook) and the question asked before sending.

Only reads the forms and the workbook; ProbePanel asks, starts the run and shows what comes back.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from gui.probe.endpoint_form import EndpointForm
from gui.probe.run_form import RunForm
from gui.tier_choice import chosen_tier
from model.common import formatting as fmt
from model.probe.apis import until_decided_refusal
from model.probe.decide_plan import leave_out_decided, needs_before_run
from model.probe.endpoint import check_endpoint, tier_endpoint
from model.probe.load import parse_levels
from model.probe.plan import ProbeSettings, tier_prices
from model.probe.prompt_file import load_probe_prompts
from model.probe.until_decided import DecideSettings, Threshold, thresholds_for
from model.workbook.rows import Tier, Workbook


def form_settings(tier: Tier | None, endpoint: EndpointForm, form: RunForm, wb: Workbook) -> ProbeSettings:
    """The run the forms describe; ValueError (one line) when it cannot be sent."""
    fast = endpoint.endpoint()
    check_endpoint(fast)
    baseline = None
    # until decided sends the tier alone: a baseline without an endpoint must not stop it
    base_tier = None if form.decide_check.isChecked() else chosen_tier(endpoint.baseline_combo, wb)
    if base_tier is not None:
        baseline = tier_endpoint(base_tier)
        if baseline is None:
            raise ValueError(f"the baseline tier {base_tier.name!r} has no endpoint; save one to it first, "
                             "or choose (none)")
        check_endpoint(baseline)
    settings = ProbeSettings(
        fast=fast, baseline=baseline, prompts=load_probe_prompts(form.prompts_path()),
        contexts=form.contexts() or (0,), repeats=form.repeats_spin.value(), max_tokens=form.tokens_spin.value(),
        fast_name=tier.name if tier else fast.model, baseline_name=base_tier.name if base_tier else "",
        fast_prices=tier_prices(tier), baseline_prices=tier_prices(base_tier),
        prompts_path=form.prompts_path(), concurrency=parse_levels(form.levels_edit.text()),
        tier_k=tier.k if tier else None, sla=endpoint.sla(), temperature=form.temperature_spin.value())
    if form.decide_check.isChecked() and settings.temperature > 0:
        raise ValueError("Run until decided samples at temperature 0: the quality test has no stopping rule of its "
                         "own; set Temperature to 0, or untick Run until decided")
    settings.check()
    return settings


def decide_settings(tier: Tier | None, form: RunForm, wb: Workbook,
                    settings: ProbeSettings) -> tuple[DecideSettings, dict[str, Threshold]]:
    """The caps and targets the form sets, and each probed class's threshold on ``tier`` (ValueError without one)."""
    if tier is None:
        raise ValueError("Run until decided needs the probed tier in the workbook: its prices give each class's "
                         "price break-even")
    thresholds = thresholds_for(wb, tier.name, [p.task_class for p in settings.prompts])
    return DecideSettings(wb.settings.confidence, form.max_requests_spin.value(), form.max_cost(),
                          form.half_width(), form.length_half_width()), thresholds


class NothingToSend(ValueError):
    """Every probed class is decided already: not an error, the answer."""


@dataclass(frozen=True)
class DecideRun:
    settings: ProbeSettings  # the prompts of the classes still undecided only
    decide: DecideSettings
    thresholds: dict[str, Threshold]
    left_out: list[str]  # classes the workbook's intervals decide already: not sent
    question: str


def decide_run(tier: Tier | None, form: RunForm, wb: Workbook, settings: ProbeSettings) -> DecideRun:
    """A run until decided of what the forms say. A class the workbook's interval already decides (an applied
    probe) is left out: the estimate says 'decided' and counts nothing for it, and the run spends what the
    estimate says. NothingToSend, in words, when there is nothing to send; ValueError on a bad form."""
    refusal = until_decided_refusal(settings.fast.api)
    if refusal:
        raise ValueError(f"Untick Run until decided: {refusal}.")
    decide, thresholds = decide_settings(tier, form, wb, settings)
    kept, done = leave_out_decided(needs_before_run(
        wb, settings.fast_name, settings, decide.confidence, decide.half_width, decide.max_requests,
        length_half_width=decide.length_half_width), settings.prompts)
    if not kept:
        raise NothingToSend(f"Nothing to send: the workbook's intervals already decide {', '.join(done)}. "
                         "Untick Run until decided to measure them again.")
    settings = dataclasses.replace(settings, prompts=kept)
    currency = wb.settings.currency
    question = (f"Probe {settings.fast.describe()} until each class is decided at "
                f"{decide.confidence:.0%}: at most {decide.max_requests} requests a class"
                + (f", at most {fmt.cost(decide.max_cost, currency)}" if decide.max_cost is not None else "")
                + (f", or to a half-width of {decide.half_width:g}" if decide.half_width is not None else "")
                + (f", or E to ±{decide.length_half_width:g} tokens/step"
                   if decide.length_half_width is not None else "") + "."
                + (f" Not sent, already decided by the workbook: {', '.join(done)}." if done else "")
                + " Only the tier is probed: its speed over the baseline and the value verdict use the baseline's "
                  "speed as the workbook has it (not measured in this run).")
    return DecideRun(settings, decide, thresholds, done, question)
