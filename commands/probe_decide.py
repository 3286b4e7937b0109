"""probe's certainty part: what deciding each class would cost before a run, and --until-decided.

The thresholds come from the workbook's comparison: a class is judged against its price break-even alpha on the
probed tier (the value verdict), or its break-even alpha where the tier has no baseline (the speed verdict).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
from pathlib import Path
from typing import Any, TextIO

from model.probe.apis import until_decided_refusal
from model.common import formatting as fmt
from model.acceptance.sequential import METHOD
from model.common.cancel import run_to_end
from model.probe.decide_plan import leave_out_decided, needs_before_run
from model.probe.plan import ProbeSettings
from model.probe.prompt_supply import short_of_prompts
from model.probe.until_decided import (DecideSettings, LengthThreshold, UntilDecidedRun, Threshold, run_until_decided,
                                      thresholds_for)
from model.workbook.json_file import load_workbook
from model.workbook.rows import Workbook
from model.workbook.validation import HALF_WIDTH_FIELD, LENGTH_HALF_WIDTH_FIELD, MAX_COST_FIELD, ValidationError


def add_decide_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--until-decided", action="store_true",
                        help="send rounds to the classes still undecided (the fast tier only) and stop each once its "
                             "interval clears its price break-even (or --half-width); needs a workbook tier")
    parser.add_argument("--max-requests", type=int, default=40, help="with --until-decided: per class (default 40)")
    parser.add_argument("--max-cost", type=max_cost_arg, help="with --until-decided: stop before passing this cost")
    parser.add_argument("--half-width", type=half_width_arg,
                        help="stop a class once its interval is this narrow: on alpha for an alpha class (0.03 is 3 "
                             "points either side); for a class the workbook holds as a profile or a length, on E in "
                             "tokens per verify step at the tier's K (e.g. 0.1)")


def max_cost_arg(text: str) -> float | None:
    """argparse type for --max-cost: the dock's Max cost field, through the one validator."""
    try:
        return MAX_COST_FIELD.parse(text)
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def half_width_arg(text: str) -> float | None:
    """argparse type for --half-width, one value read in each class's unit: the dock's Half-width (alpha: 0.03 or
    3%, below 0.5) or else its E ± (tokens per step, 0.001 to 32), through the one validator; it took any
    positive number (1e-9, a target no run reaches) and refused '3%'."""
    try:
        return HALF_WIDTH_FIELD.parse(text)
    except ValidationError:
        pass
    try:
        return LENGTH_HALF_WIDTH_FIELD.parse(text)
    except ValidationError:
        raise argparse.ArgumentTypeError(
            f"must be {HALF_WIDTH_FIELD.describe()} on alpha, or {LENGTH_HALF_WIDTH_FIELD.describe().removeprefix('blank or ')}"
            f" tokens per step on E (got {text!r})") from None


def check_decide_arguments(args: argparse.Namespace) -> None:
    if not getattr(args, "until_decided", False):
        return
    # a run until decided sends one stream at a time at the first context, and sends: what it would ignore is refused
    if getattr(args, "from_run", None) is not None:
        raise ValueError("--until-decided sends requests, --from-run re-analyses a run and sends nothing: give one")
    if getattr(args, "concurrency", None) and [x.strip() for x in args.concurrency.split(",") if x.strip()] != ["1"]:
        raise ValueError(f"--until-decided runs one stream at a time; --concurrency {args.concurrency} would be ignored "
                         "(probe the load levels in a run without --until-decided)")
    if len([c for c in str(getattr(args, "contexts", "0")).split(",") if c.strip()]) > 1:
        raise ValueError(f"--until-decided probes one context; --contexts {args.contexts} names more (give one)")
    refusal = until_decided_refusal(getattr(args, "api", None))
    if refusal:
        raise ValueError(f"--until-decided: {refusal}")
    if not 5 <= args.max_requests <= 10_000:
        raise ValueError("--max-requests must be from 5 to 10000 (an interval needs 5 requests)")
    if args.workbook is None and args.half_width is None:
        raise ValueError("--until-decided needs a workbook tier (its prices give each class's break-even) or --half-width")


def check_half_width(half_width: float | None, thresholds: dict[str, Threshold]) -> None:
    """--half-width is read in each class's unit; a value only E can mean (0.5 or more: alpha's is below 0.5)
    is refused for the classes judged on alpha, naming them, rather than applied there (a half-width of 2 on
    alpha reads 'decided' after five requests whatever the interval)."""
    if half_width is None:
        return
    try:
        HALF_WIDTH_FIELD.parse(repr(half_width))
        return  # a share: alpha reads it, and E reads it in tokens per step
    except ValidationError:
        pass
    on_alpha = [name for name, t in thresholds.items() if not isinstance(t, LengthThreshold)]
    if on_alpha:
        raise ValueError(f"--half-width {half_width:g} is in tokens per step of E, which only a class held as a profile "
                         f"or a length is judged on; {', '.join(on_alpha)} "
                         f"{'is' if len(on_alpha) == 1 else 'are'} judged on alpha, whose half-width is below 0.5 "
                         "(0.03 is 3 points either side)")


def need_lines(wb: Workbook, tier: str, settings: ProbeSettings, currency: str, confidence: float,
               half_width: float | None, max_requests: int | None) -> list[str]:
    """Before a run: per class, the requests expected to decide it (or reach the half-width) and their cost."""
    needs = needs_before_run(wb, tier, settings, confidence, half_width, max_requests, length_half_width=half_width)
    how = (f"in a run until decided (at most {fmt.count(max_requests, 'request')} a class; {METHOD})" if max_requests
           else "in one run")
    # a repeated prompt adds no unit to the interval: more requests than distinct prompts will not decide a class
    short = [f"  {s.words()}" for s in short_of_prompts(needs, settings.prompts)]
    return [f"to decide at {confidence:.0%}, {how}:"] + [f"  {n.words(currency)}" for n in needs] + short


def leave_out_decided_classes(wb: Workbook, settings: ProbeSettings, confidence: float, half_width: float | None,
                              max_requests: int) -> tuple[ProbeSettings, list[str]]:
    """The run until decided without the classes the workbook's intervals decide already (the estimate's lines
    say 'nothing to send' for them), and those classes' names."""
    needs = needs_before_run(wb, settings.fast_name, settings, confidence, half_width, max_requests,
                             length_half_width=half_width)
    kept, done = leave_out_decided(needs, settings.prompts)
    return dataclasses.replace(settings, prompts=kept), done


def decide_thresholds(args: argparse.Namespace, settings: ProbeSettings) -> dict[str, Threshold]:
    """Each probed class's threshold (none without a workbook: judged on alpha's half-width), --half-width checked
    against the unit each class is judged in."""
    classes = [p.task_class for p in settings.prompts]
    thresholds: dict[str, Threshold] = dict.fromkeys(classes)
    if args.workbook is not None:
        thresholds = thresholds_for(load_workbook(args.workbook), settings.fast_name, classes)
    check_half_width(args.half_width, thresholds)
    return thresholds


def run_decide(args: argparse.Namespace, settings: ProbeSettings, keys: dict, run_path: Path | None, show: Any,
               out: TextIO) -> tuple[UntilDecidedRun, int]:
    thresholds = decide_thresholds(args, settings)
    # one flag, read in the unit each class is judged in: alpha, or E's tokens per step for a profile or length
    decide = DecideSettings(args.confidence, args.max_requests, args.max_cost, args.half_width, args.half_width)
    run = run_to_end(run_until_decided(settings, keys, thresholds, decide, run_path), show)
    return run, 1 if run.error else 0


def decide_text(run: UntilDecidedRun, currency: str) -> str:
    confs = run.look_confidences or [run.confidence]
    lines = [f"until decided at {run.confidence:.0%} ({fmt.count(len(run.looks), 'look')} at {_looks_text(run.looks)} requests a "
             f"class, each look's interval at {min(confs):.2%} to {max(confs):.2%}):"]
    for c in run.classes:
        lo, hi = c.alpha_interval or (None, None)
        # in alpha's own unit: '87.4% (0.796–0.924)' mixed a percentage with shares
        interval = fmt.pct_interval(c.alpha, lo, hi, 1)
        if c.unit == "length":
            interval += (f", E {c.length:.2f}" if c.length is not None else "") + (
                f" ({c.length_interval[0]:.2f}–{c.length_interval[1]:.2f})" if c.length_interval else "")
        verdict = {"above": "at or above", "below": "below"}.get(c.side, "")
        what = (f"decided: {verdict} {c.threshold_words()}" if c.stopped == "decided"
                else c.stopped)
        lines.append(f"  {c.task_class}: alpha {interval}; {what} after {fmt.count(c.requests, 'request')}, "
                     f"{c.tokens:,} tokens")
    cost = "unknown (no prices)" if run.cost is None else fmt.cost(run.cost, currency)
    lines.append(f"total: {fmt.count(sum(c.requests for c in run.classes), 'request')}, {sum(c.tokens for c in run.classes):,} "
                 f"tokens, cost {cost}")
    lines += [f"  {note}" for note in run.cost_notes[:5]]
    if len(run.cost_notes) > 5:
        lines.append(f"  ... and {len(run.cost_notes) - 5} more")
    return "\n".join(lines)


def _looks_text(looks: list[int]) -> str:
    return ", ".join(map(str, looks)) if len(looks) <= 8 else f"{', '.join(map(str, looks[:6]))}, ..., {looks[-1]}"


def write_json(path: Path, run: UntilDecidedRun, report: dict[str, Any]) -> None:
    from model.common.safe_files import atomic_write

    text = json.dumps({**report, "until_decided": run.to_dict()}, indent=2, allow_nan=False) + "\n"
    atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
