"""probe --until-decided: requests in rounds to the classes still undecided, each stopped as soon as it is decided.

A class is decided when its interval on alpha lies wholly on one side of the alpha it is judged against (the
price break-even on this tier, or the break-even without a baseline; the caller gives it), or, with a target
half-width, once its interval is that narrow. A class the workbook holds as a profile or a length (a probe's
Apply leaves profiles) is judged against a length instead (model.acceptance.sequential.LengthThreshold: the
price break-even length, else E* = K c + v): its interval on E, from the profile the round's steps imply
(model.probe.profile) carried to the tier's K as the comparison carries it, requests as the unit, at the same
looks and the same spent confidence. So is an alpha class from the first look whose steps imply a profile: Apply
keeps that profile, and the class must be decided on what the workbook will hold (judge_look). Rounds follow model.acceptance.sequential's fixed schedule of
looks (5, 6, ..., 10, then about 10% more requests per class at each look, up to --max-requests), each look's
interval at the confidence its group-sequential boundary gives (the design and its measured error are in
model.acceptance.sequential's docstring): a class is decided wrongly at most 1 - confidence of the
time under this optional stopping. --half-width stops a class on the interval it is judged by: alpha's (a
proportion), or for a profile or length class E's at the tier's K (tokens per verify step). Only the
fast tier is sent (acceptance is the fast tier's); the class's prompts are sent in file order, each once: the
interval clusters by prompt (model.acceptance), so a repeat cannot narrow it, and a class whose distinct prompts
are all sent stops, saying so (PROMPTS_USED_UP), rather than cycling them: give it more prompts. --max-cost stops before a round whose estimated cost would pass the cap. Each request in the run file
carries its round; the header carries the schedule.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Generator, Mapping

import httpx

from model.mechanics import arithmetic as ar
from model.acceptance.interval import LENGTH_METHOD
from model.acceptance.sequential import (METHOD, OPEN, LengthThreshold, length_acceptance, look_confidences,
                                         look_schedule, side_at_look)
from model.comparison import compare
from model.probe.analysis import analyse
from model.probe.client import Limits
from model.probe.endpoint import ApiKey
from model.probe.events import FAST, RequestRecord
from model.probe.plan import CHARS_PER_TOKEN, ProbeSettings, estimate
from model.common.cancel import CancelCheck
from model.probe.run import ProbeProgress, ProbeRun, run_header, run_probe
from model.probe.run_file import RunWriter
from model.probe.speed import request_tokens
from model.workbook.rows import Workbook
from model.common import formatting as fmt


@dataclass(frozen=True)
class DecideSettings:
    confidence: float = 0.95
    max_requests: int = 40  # per class
    max_cost: float | None = None  # currency, at the tier's prices
    half_width: float | None = None  # stop an alpha class once its interval is this narrow (0.03: 3 points a side)
    # stop a profile or length class once its interval on E at the tier's K is this narrow, in tokens per verify
    # step (probe --half-width sets both; the two units differ, so a setting in one is not read in the other)
    length_half_width: float | None = None


@dataclass
class ClassDecision:
    task_class: str
    threshold: float | None  # the alpha (or, unit "length", the E) it is judged against; None: only a half-width
    # "length": a profile or length class, judged on E at K against a break-even length; an alpha class turns
    # "length" at the first look whose steps imply a profile, which Apply will keep (judge_look)
    unit: str = "alpha"
    k: int | None = None  # the tier's K a length threshold is stated at
    decided: bool = False
    side: str = OPEN  # above / below the threshold, or open
    requests: int = 0
    tokens: int = 0  # output tokens received
    rounds: int = 0
    alpha: float | None = None
    alpha_interval: list[float] | None = None
    length: float | None = None  # E at the tier's K (unit "length")
    length_interval: list[float] | None = None
    stopped: str = ""  # decided, half-width reached, max requests, max cost, PROMPTS_USED_UP, no alpha, cancelled, error


    def threshold_words(self) -> str:
        if self.unit == "length":
            return f"{self.threshold:.2f} tokens per step at K {self.k}"
        return fmt.pct(self.threshold, 1)


@dataclass
class UntilDecidedRun:
    classes: list[ClassDecision] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    records: list[RequestRecord] = field(default_factory=list)
    looks: list[int] = field(default_factory=list)
    look_confidences: list[float] = field(default_factory=list)  # each look's interval's confidence
    confidence: float = 0.95
    cost: float | None = 0.0  # None without prices
    error: str | None = None
    cancelled: bool = False
    # where the server billed past what was asked, or the cost passed --max-cost: said, never passed silently
    cost_notes: list[str] = field(default_factory=list)
    header: dict[str, Any] = field(default_factory=dict)
    # the round being sent: its requests join `records` when it ends; until then a live view reads them here
    in_round: ProbeRun | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"confidence": self.confidence, "looks": self.looks, "look_confidences": self.look_confidences,
                "method": METHOD,
                "total_cost": self.cost, "total_tokens": sum(c.tokens for c in self.classes),
                "rounds": self.rounds, "error": self.error, "cancelled": self.cancelled, "cost_notes": self.cost_notes,
                "classes": [dataclasses.asdict(c) for c in self.classes]}


Threshold = float | LengthThreshold | None


def class_thresholds(wb: Workbook, tier: str) -> dict[str, Threshold]:
    """Per class of the workbook: the alpha a probe of ``tier`` decides against, the price break-even alpha on it
    (else, without a baseline, the break-even alpha); 0 where any alpha pays, just above 1 where none does; None
    where the tier does not run speculative decoding. A class held as a profile or a length breaks even at a
    length (its alpha is NaN there): a LengthThreshold, the price break-even length, else K c + v."""
    return priced_thresholds(wb, tier)[0]


def priced_thresholds(wb: Workbook, tier: str) -> tuple[dict[str, Threshold], set[str]]:
    """class_thresholds, and the classes whose threshold is the price break-even (the others' is the speed one):
    the words before a run say which."""
    cmp = compare(wb)
    i = cmp.tier_names.index(tier)
    is_alpha = cmp.cells.acceptance.is_alpha
    out: dict[str, Threshold] = {}
    priced: set[str] = set()
    for j, name in enumerate(cmp.class_names):
        kind, alpha = int(cmp.cells.price_break_even_kind[i, j]), float(cmp.cells.price_break_even_alpha[i, j])
        length = float(cmp.cells.price_break_even_length[i, j])
        if kind == -1:
            kind, alpha = int(cmp.cells.break_even_kind[i, j]), float(cmp.cells.break_even_alpha[i, j])
            length = float(cmp.cells.break_even_length[i, j])
        else:
            priced.add(name)
        if is_alpha is not None and not is_alpha[i, j]:
            out[name] = LengthThreshold(length, int(cmp.tiers.k[i])) if kind != -1 and math.isfinite(length) else None
            continue
        out[name] = {-1: None, ar.ALWAYS: 0.0, ar.NEVER: 1.0 + 1e-9}.get(kind, alpha if math.isfinite(alpha) else None)
    return out, priced


def thresholds_for(wb: Workbook, tier: str, classes: list[str]) -> dict[str, Threshold]:
    """class_thresholds for the probed classes, matched to the workbook's by name ignoring case."""
    by_lower = {k.lower(): v for k, v in class_thresholds(wb, tier).items()}
    return {name: by_lower.get(name.lower()) for name in classes}


def _cost(record: RequestRecord, settings: ProbeSettings) -> float | None:
    """What the request cost at the tier's prices, from the tokens the server reports (what it bills), the
    plan's input estimate where it reports none."""
    prices = settings.fast_prices
    if prices is None:
        return None
    usage = record.usage or {}
    t_in = usage.get("prompt_tokens")
    if not isinstance(t_in, int) or isinstance(t_in, bool):
        prompt = next((p for p in settings.prompts if p.key == record.prompt_key), None)
        t_in = (int(math.ceil(prompt.chars / CHARS_PER_TOKEN)) if prompt is not None else 0) + record.context
    return prices.cost(t_in, request_tokens(record))


def _overrun(record: RequestRecord) -> str | None:
    """The request's words where the server billed more output than was asked (its cost counts all the same)."""
    billed = request_tokens(record)
    if billed > record.max_tokens:
        return (f"{record.label}: the server reports {billed:,} output tokens where at most {record.max_tokens:,} "
                "were asked; the cost counts what it reports")
    return None


def _past_cap(out: UntilDecidedRun, run: ProbeRun, settings: ProbeSettings, decide: DecideSettings) -> bool:
    """Whether the requests done so far (the rounds before, and this one's) cost the cap or more."""
    if decide.max_cost is None or out.cost is None:
        return False
    spent = out.cost
    for record in run.records:
        cost = _cost(record, settings)
        if cost is None:
            return False
        spent += cost
    return spent >= decide.max_cost


PROMPTS_USED_UP = ("every prompt of the class sent: repeating one cannot narrow the interval "
                   "(prompts are its units); give the class more prompts")


def run_until_decided(settings: ProbeSettings, keys: Mapping[str, ApiKey | None], thresholds: Mapping[str, Threshold],
                      decide: DecideSettings, run_path: str | Path | None = None, cancel: CancelCheck = None,
                      limits: Limits = Limits(), transport: httpx.AsyncBaseTransport | None = None,
                      into: UntilDecidedRun | None = None) -> Generator[ProbeProgress, None, UntilDecidedRun]:
    """Send rounds until every class is decided or capped; yields ProbeProgress, returns UntilDecidedRun."""
    settings.check()
    out = into if into is not None else UntilDecidedRun()
    by_class = _start(out, settings, thresholds, decide)
    writer = RunWriter(run_path, out.header) if run_path else None
    # the most it can send: a class stops at its last look or once each of its distinct prompts is sent (the demo's
    # 8 prompts a class at a cap of 40 counted to 240 where at most 48 go)
    total = sum(min(len(by_class[c.task_class]), out.looks[-1] if out.looks else 0) for c in out.classes)
    try:
        for number, look in enumerate(out.looks, start=1):
            for c in out.classes:
                if not c.stopped and c.requests >= len(by_class[c.task_class]):
                    c.stopped = PROMPTS_USED_UP
            open_classes = [c for c in out.classes if not c.stopped]
            todo = [p for c in open_classes for p in by_class[c.task_class][c.requests:look]]
            if not todo:
                break
            sub = dataclasses.replace(settings, prompts=todo, baseline=None, repeats=1, contexts=settings.contexts[:1],
                                      concurrency=(1,))
            planned = estimate(sub).cost
            if (decide.max_cost is not None and out.cost is not None and planned is not None
                    and out.cost + planned > decide.max_cost):
                for c in open_classes:
                    c.stopped = "max cost"
                break
            run = out.in_round = ProbeRun()
            capped = yield from _round(out, run, settings, decide,
                                       lambda: run_probe(sub, keys, None, cancel, limits, transport, run),
                                       (number, look, total))
            _keep_round(out, run, settings, writer, number)
            _stop_at_cost(out, open_classes, capped, decide)
            _judge_round(out, run, open_classes, settings, decide, (number, look))
            if capped:
                break
            if run.cancelled or run.error:
                out.cancelled, out.error = run.cancelled, run.error
                for c in out.classes:
                    if not c.stopped:
                        c.stopped = "cancelled" if run.cancelled else "error"
                break
        for c in out.classes:
            if not c.stopped:
                c.stopped = "no alpha" if c.alpha is None else "max requests"
    finally:
        if writer:
            writer.close()
    return out


def _start(out: UntilDecidedRun, settings: ProbeSettings, thresholds: Mapping[str, Threshold],
           decide: DecideSettings) -> dict[str, list]:
    """The run's looks, their confidences, a decision per class and the run file's header; the class's distinct
    prompts, in file order (a text twice in the file is one prompt: sent once, one unit)."""
    by_class: dict[str, list] = {}
    first: dict[tuple[str, str], Any] = {}
    for p in settings.prompts:
        first.setdefault((p.task_class, p.key), p)
    for p in first.values():
        by_class.setdefault(p.task_class, []).append(p)
    out.looks = look_schedule(decide.max_requests)
    out.look_confidences = look_confidences(decide.confidence, out.looks)
    out.confidence = decide.confidence
    out.cost = 0.0 if settings.fast_prices is not None else None
    out.classes = [_decision(name, thresholds.get(name)) for name in by_class]
    for c in out.classes:
        if c.threshold is None and decide.half_width is None:  # (a length class always has a threshold)
            c.stopped = "no break-even to decide against"
    out.header = {**run_header(dataclasses.replace(settings, baseline=None)),
                  "until_decided": {"looks": out.looks, "look_confidences": out.look_confidences, "method": METHOD,
                                    "confidence": decide.confidence, "max_requests": decide.max_requests,
                                    "max_cost": decide.max_cost, "half_width": decide.half_width,
                                    "length_half_width": decide.length_half_width,
                                    "thresholds": {n: _threshold_json(t) for n, t in thresholds.items()}}}
    return by_class


def _round(out: UntilDecidedRun, run: ProbeRun, settings: ProbeSettings, decide: DecideSettings,
           start: Callable[[], Generator[ProbeProgress, None, ProbeRun]], where: tuple[int, int, int],
           ) -> Generator[ProbeProgress, None, bool]:
    """One round sent (``start`` begins it), its progress counted from the rounds before; True where it stopped
    at the cost cap mid-round (the requests left are not sent)."""
    number, look, total = where
    done_before = sum(c.requests for c in out.classes)
    gen = start()
    try:
        while True:
            p = next(gen)
            if _past_cap(out, run, settings, decide):
                gen.close()
                return True
            if p.requests_done == 0 and done_before:
                continue  # a round starting: no news, and its rate of 0 tok/s would read as a stall
            yield ProbeProgress(done_before + p.requests_done, total, p.tokens_per_second, None,
                                p.elapsed_seconds, f"round {number} (look at {fmt.count(look, 'request')} a class)")
    except StopIteration:
        return False


def _keep_round(out: UntilDecidedRun, run: ProbeRun, settings: ProbeSettings, writer: RunWriter | None,
                number: int) -> None:
    """The round's requests joined to the run (and its file, with their round), counted per class and costed."""
    state = {c.task_class: c for c in out.classes}
    for record in run.records:
        out.records.append(record)
        if writer:
            writer.add(record, round=number)
        c = state[record.task_class]
        c.requests += 1
        c.tokens += request_tokens(record)
        cost = _cost(record, settings)
        out.cost = None if cost is None or out.cost is None else out.cost + cost
        overran = _overrun(record)
        if overran:
            out.cost_notes.append(overran)


def _stop_at_cost(out: UntilDecidedRun, open_classes: list[ClassDecision], capped: bool,
                  decide: DecideSettings) -> None:
    if capped or (decide.max_cost is not None and out.cost is not None and out.cost >= decide.max_cost):
        for c in open_classes:
            c.stopped = "max cost"
        if out.cost is not None and decide.max_cost is not None and out.cost > decide.max_cost:
            out.cost_notes.append(f"the cost reached {out.cost:.4g} against --max-cost {decide.max_cost:.4g}: "
                                  "the server billed more than the plan expected; the run stopped there")


def _judge_round(out: UntilDecidedRun, run: ProbeRun, open_classes: list[ClassDecision], settings: ProbeSettings,
                 decide: DecideSettings, where: tuple[int, int]) -> None:
    """The look: every request so far analysed at the look's confidence, each open class judged on it."""
    number, look = where
    report = analyse([r for r in out.records if r.role == FAST], out.header, out.look_confidences[number - 1])
    found = {cp.task_class: cp for cp in report.classes}
    decided_now = []
    for c in open_classes:
        c.rounds = number
        cp = found.get(c.task_class)
        if cp is None or cp.alpha is None:
            continue
        judge_look(c, cp, settings.tier_k or report.k_estimate, out.look_confidences[number - 1], decide)
        if c.decided:
            decided_now.append(c.task_class)
    out.rounds.append({"round": number, "look": look, "requests": len(run.records),
                       "decided": decided_now, "cost": out.cost})


def judge_look(c: ClassDecision, cp: Any, tier_k: int | None, confidence: float, decide: DecideSettings) -> None:
    """Judge class ``c`` at one look on ``cp`` (the look's ClassProbe), on what Apply will keep.

    Apply writes a profile wherever the steps imply one (model.workbook.measured_apply), and the workbook then
    judges that class on E at the tier's K, its interval over the requests with a counted step (a request whose
    only full step is its first one counts for alpha, not for the profile: model.probe.profile). So an alpha class
    whose look carries a profile is judged on E from then on, against the same break-even stated in tokens per
    step, E(alpha*, K): a class decided here stays decided after Apply, and one whose E rests on too few requests
    for an interval stays open rather than being called on an alpha Apply does not keep."""
    acc = cp.acceptance
    c.alpha, c.alpha_interval = cp.alpha, list(acc.interval) if acc.interval else None
    if c.unit == "alpha" and cp.profile and tier_k and c.threshold is not None:
        c.unit, c.k, c.threshold = "length", int(tier_k), break_even_length_of(c.threshold, int(tier_k))
    judged = acc
    if c.unit == "length":
        judged = _length_at_k(cp, c.k or 1, confidence)
        c.length = judged.point if judged is not None else None
        c.length_interval = list(judged.interval) if judged is not None and judged.interval else None
    # the half-width is read on what the class is judged by: E (tokens per step) for a length class
    gauge, target = (judged, decide.length_half_width) if c.unit == "length" else (acc, decide.half_width)
    if target is not None and gauge is not None and gauge.has_interval and gauge.half_width <= target:
        c.decided, c.stopped = True, "half-width reached"
    elif c.threshold is not None and judged is not None and (
            s := side_at_look(judged, c.threshold, (1.0, (c.k or 1) + 1.0) if c.unit == "length"
                              else (0.0, 1.0))) != OPEN:
        c.decided, c.side, c.stopped = True, s, "decided"


def break_even_length_of(alpha: float, k: int) -> float:
    """The break-even alpha at K as the tokens per verify step it gives, E(alpha*, K): speed depends on E alone, so
    this is the break-even length (Comparison.cells.break_even_length). 0 (any alpha pays) is E = 1; above 1 (none
    does) stays above any E, K + 1."""
    if alpha > 1.0:
        return k + 1.0 + 1e-9
    return float(ar.expected_tokens(alpha, k))


def _decision(name: str, threshold: Threshold) -> ClassDecision:
    if isinstance(threshold, LengthThreshold):
        return ClassDecision(name, threshold.length, "length", threshold.k)
    return ClassDecision(name, threshold)


def _threshold_json(t: Threshold) -> float | dict[str, Any] | None:
    return {"length": t.length, "k": t.k} if isinstance(t, LengthThreshold) else t


def _length_at_k(cp: Any, k: int, confidence: float):
    """E at the tier's K from the profile this look's steps imply, its interval carried there as the comparison
    carries a profile's (None without a profile: no K, or too few steps at position 1)."""
    if not cp.profile:
        return None
    low, high = cp.mean_acceptance_length_interval or (None, None)
    row = SimpleNamespace(profile=tuple(cp.profile), acceptance_length_low=low, acceptance_length_high=high,
                          alpha_confidence=confidence, alpha_requests=cp.requests, alpha_steps=cp.steps,
                          alpha_method=LENGTH_METHOD)
    # the prompts' skewness behind E over the profile's positions, for side_at_look at the tier's K
    return dataclasses.replace(length_acceptance(row, k, confidence), skew=cp.length_skew)
