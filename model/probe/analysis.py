"""From the recorded requests to what the analyst reads: verdict, alpha per class, speed, identity.

Works on a live run and on a run file alike (`--from-run`): it reads only RequestRecords.
Alpha per class: the server's own figure where it reports one (labelled with its convention and
converted to per-token alpha), else the timing estimate; both are kept side by side, with the
engine's draft acceptance rate in its own convention even where no K turns it into an alpha.
K: from the timing; else from the server's draft tokens over the steps the client saw (llama.cpp
reports no K); else as the server reports it. A run whose steps were too often merged by a late
read gives neither K nor alpha from timing, and says the machine was busy.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from model.acceptance import Acceptance
from model.probe.by_load import LevelSpeed, level_speeds, lowest_level
from model.probe.events import BASELINE, FAST, RequestRecord
from model.probe.filler import context_label
from model.probe.identity import Identity, compare_outputs
from model.probe.intervals import class_acceptance, distinct_prompts, sources_disagree
from model.probe.check_records import checks_of
from model.probe.quality_records import quality_of
from model.quality.check_stats import MARGIN_POINTS
from model.quality.verdict import QualityVerdict
from model.acceptance.k_check import KMismatch, k_mismatch
from model.probe.merges import BUSY, SPLIT, left_out_share
from model.probe.profile import profile_length_interval, step_profile
from model.probe.reported import convention, reported_acceptance, steps_of
from model.probe.run_k import settled_k
from model.probe.speed import measure, speedup
from model.probe.speed_verdict import speed_only
from model.probe.output_timing import TIMING_WORDS, request_timings, timing_counts
from model.probe.served import add_as_served, requested_tier, served_fast, served_note, served_summary
from model.probe.sla import judge_sla
from model.probe.steps import StepReading, StyleReading, detect_style, read_steps
from model.probe.verdict import decide
from model.common import formatting as fmt
from model.common.formatting import finite_or_none


@dataclass
class ContextSpeed:
    context: int
    requests: int
    ttft_s: float | None
    decode_tokens_per_s: float | None
    baseline_ttft_s: float | None = None
    baseline_decode_tokens_per_s: float | None = None
    speedup_measured: float | None = None


@dataclass
class ClassProbe:
    task_class: str
    requests: int
    alpha: float | None
    alpha_source: str | None  # "reported" or "timing"; None when neither exists
    alpha_reported: float | None
    alpha_timing: float | None
    reported_convention: str | None
    mean_tokens_per_step: float | None
    mean_acceptance_length: float | None
    tokens_per_step_histogram: list[int]
    steps: int
    ttft_s: float | None
    decode_tokens_per_s: float | None
    speedup_measured: dict[str, float | None] | None  # per context label, with a baseline
    by_context: list[ContextSpeed] = field(default_factory=list)
    reported_draft_acceptance_rate: float | None = None  # accepted / drafted, the engine's own convention
    steps_left_out: int = 0  # read merged by a late client, not counted
    by_concurrency: list[LevelSpeed] = field(default_factory=list)
    # the interval on alpha, distinct prompts as the unit (model/probe/intervals.py); null with the reason otherwise
    alpha_interval: list[float] | None = None
    interval_note: str | None = None
    interval_method: str | None = None
    interval_confidence: float | None = None
    prompts: int = 0  # distinct prompts among the requests: the interval's units (repeats of one are one)
    # the per-position profile the steps imply (model/probe/profile.py): conditional rates from position 1, the
    # counts each rests on, and the interval on E at the profile's K; applied with the alpha (measured_apply)
    profile: list[float] | None = None
    profile_counts: dict[str, Any] | None = None
    mean_acceptance_length_interval: list[float] | None = None
    # the prompts' skewness behind the interval on alpha and the one on E (Acceptance.skew): a run until decided
    # reads them; not shown, not in the JSON
    alpha_skew: float | None = None
    length_skew: float | None = None
    # where the reported and the timed alpha's intervals do not overlap: the two figures in words (intervals.py);
    # the alpha used (and applied) is still the reported one, and Apply says so
    sources_disagree: str | None = None
    # the one temperature the class's alpha, profile and speedup were read at (the run's, where it mixes a greedy
    # pass with samples: docs/design/quality.md#one-temperature-per-class)
    temperature: float = 0.0

    @property
    def acceptance(self) -> Acceptance:
        """What applying this class keeps in the workbook: alpha with its interval, or why there is none."""
        lo, hi = self.alpha_interval or (None, None)
        # the interval's units are the distinct prompts (its width rests on them), the requests their sends
        return Acceptance(float(self.alpha) if self.alpha is not None else math.nan, lo, hi,
                          self.interval_confidence if lo is not None else None, self.prompts or self.requests,
                          self.steps, self.interval_method or self.interval_note or "", sent=self.requests,
                          skew=self.alpha_skew)

    @property
    def stretches(self) -> int:
        """For measured_apply: a class without an alpha has nothing to apply."""
        return max(self.steps, 1) if self.alpha is not None else 0


@dataclass
class ProbeReport:
    verdict: str
    evidence: str
    p_value: float | None
    stream_style: str
    k_estimate: int | None
    fast_name: str
    baseline_name: str | None
    baseline_mean_tokens_per_step: float | None
    classes: list[ClassProbe]
    identity: Identity | None
    requests: int
    failed: list[str]
    date: str = ""
    k_source: str = ""  # "timing", "server" (draft tokens over steps seen) or "reported"
    notes: list[str] = field(default_factory=list)  # what the reading left out or could not do, in words
    timing_unreliable: bool = False
    # steps the client read on the fast tier and how many the reading left out, each request's first read with the
    # stream's opening not counted (merges.left_out_share); steps_caution says so when the share is material
    # (merges.MATERIAL_SHARE) though the timing still stands (not timing_unreliable)
    steps_read: int = 0
    steps_left_out: int = 0
    steps_caution: str = ""
    silent_tokens: int = 0
    by_concurrency: list[LevelSpeed] = field(default_factory=list)  # the tier's speed per level (by_load)
    confidence: float = 0.95  # of every class's alpha_interval
    # the K measured against the probed tier's K in the workbook (the run header's tier_k): None when they agree
    k_mismatch: KMismatch | None = None
    # how the requests' output was timed: {"events": n, "usage": m, "untimed": u} (model.probe.output_timing)
    timing: dict[str, int] = field(default_factory=dict)
    # the tier each fast request's response named, and the downgraded share (model.probe.served); the SLA judged
    # over the requests served fast (model.probe.sla), None without one
    served: dict[str, Any] | None = None
    sla: dict[str, Any] | None = None
    request_timing: list[dict[str, Any]] = field(default_factory=list)  # per request (output_timing.request_timings)
    quality: QualityVerdict | None = None  # the test at the run's temperature; None for a greedy run
    checks: dict[str, Any] | None = None  # task checks per class and tier (model.probe.check_records); None: none
    # the temperature every class was read at, and the requests at other temperatures it left out (the greedy pass
    # a run at a temperature sends for the identity check); 0 left out: the run has one temperature
    classes_temperature: float = 0.0
    classes_left_out: int = 0

    @property
    def profile_positions(self) -> int:
        """The most per-position rates any class's profile measured (0: no class has a profile)."""
        return max((len(c.profile or ()) for c in self.classes), default=0)

    @property
    def steps_left_out_share(self) -> float | None:
        return self.steps_left_out / self.steps_read if self.steps_read else None

    @property
    def many_steps_left_out(self) -> bool:
        return bool(self.steps_caution)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "verdict": self.verdict, "evidence": self.evidence, "p_value": self.p_value,
            "stream_style": self.stream_style, "k_estimate": self.k_estimate, "tier": self.fast_name,
            "baseline": self.baseline_name, "baseline_mean_tokens_per_step": self.baseline_mean_tokens_per_step,
            "requests": self.requests, "failed": self.failed, "date": self.date, "k_source": self.k_source,
            "confidence": self.confidence,
            "k_mismatch": self.k_mismatch.to_dict() if self.k_mismatch is not None else None,
            "notes": self.notes, "timing_unreliable": self.timing_unreliable, "silent_tokens": self.silent_tokens,
            "steps_read": self.steps_read, "steps_left_out": self.steps_left_out,
            "steps_left_out_share": self.steps_left_out_share, "many_steps_left_out": self.many_steps_left_out,
            "steps_caution": self.steps_caution or None, "timing": dict(self.timing, definition=TIMING_WORDS),
            "classes_temperature": self.classes_temperature, "classes_left_out": self.classes_left_out,
            "classes": []}
        for c in self.classes:
            row = {k: v for k, v in c.__dict__.items() if k not in _NOT_IN_JSON}
            row["by_context"] = [dict(s.__dict__, context_label=context_label(s.context)) for s in c.by_context]
            row["by_concurrency"] = [s.to_dict() for s in c.by_concurrency]
            out["classes"].append(row)
        out["identity"] = self.identity.to_dict() if self.identity is not None else None
        out["quality"] = self.quality.to_dict() if self.quality is not None else None
        out["checks"] = self.checks
        out["by_concurrency"] = [s.to_dict() for s in self.by_concurrency]
        out["served"], out["sla"], out["request_timing"] = self.served, self.sla, self.request_timing
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, allow_nan=False)


_NOT_IN_JSON = ("by_context", "by_concurrency", "alpha_skew", "length_skew")  # the first two are added below


def _class_order(records: Sequence[RequestRecord]) -> list[str]:
    seen: dict[str, None] = {}
    for r in records:
        seen.setdefault(r.task_class, None)
    return list(seen)


def _temperature(r: RequestRecord) -> float:
    return float(r.temperature or 0.0)


def read_temperature(records: Sequence[RequestRecord], header: dict[str, Any]) -> float:
    """The one temperature the classes are read at: the run's (the product's, what the traffic runs at) where its
    requests were sent at it, else the highest sent; a greedy run's is 0."""
    sent = {_temperature(r) for r in records}
    wanted = float(header.get("temperature") or 0.0)
    return wanted if wanted in sent or not sent else max(sent)


def analyse(records: Sequence[RequestRecord], header: dict[str, Any] | None = None,
            confidence: float = 0.95) -> ProbeReport:
    header = header or {}
    requested = requested_tier(header.get("fast"))
    every_fast = [r for r in records if r.role == FAST and r.ok]
    # the requests the vendor downgraded are no evidence of the fast tier's speed or steps (model.probe.served)
    fast = served_fast(every_fast, requested)
    base = [r for r in records if r.role == BASELINE and r.ok]
    served = served_summary(every_fast, requested, confidence)
    style = detect_style(fast)
    steps = read_steps(fast, style)
    base_steps: StepReading | None = None
    if base:
        base_steps = read_steps(base, detect_style(base))
    verdict = decide(style, steps, base_steps)
    notes = _reading_notes(style, steps, served)
    timing_ok = style.steps_visible and not steps.unreliable
    k, k_source = settled_k(steps, timing_ok, fast, notes)
    left_out, read = left_out_share([gs for _, gs in steps.groups])
    load_keeping = header.get("load_keeping") if isinstance(header.get("load_keeping"), dict) else None
    # speeds per context at the quietest level; by_concurrency has the rest
    run = _RunReading(style, steps, timing_ok, k, confidence, sorted({r.context for r in fast}), lowest_level(records),
                      load_keeping, bool(base))
    # a run at a temperature also sends a greedy pass (the identity check's): pooling both would give an alpha and a
    # speedup at no temperature the traffic runs at, so each class is read at the run's one temperature
    t_read = read_temperature(fast + base, header)
    other_temperature = sum(1 for r in fast + base if _temperature(r) != t_read)
    classes, failed_reports = _classes(run, fast, base, t_read)
    for r in records:  # usage numbers no server can mean, dropped from that request (model.probe.guard)
        failed_reports.extend(f"{r.label}: refused {f}" for f in r.reported.get("refused_fields") or [])
    mismatch = k_mismatch(k, k_source, header.get("tier_k"),  # its own line and field, not a note
                          max((len(c.profile or ()) for c in classes), default=0))
    levels = level_speeds(fast + base, style, k, load_keeping, confidence)
    add_as_served(levels, every_fast, base, requested)
    terms = header.get("sla") if isinstance(header.get("sla"), dict) else None
    sla = judge_sla(fast, float(terms["threshold_tokens_per_s"]), float(terms["promised_share"]), confidence) \
        if terms else None
    verdict = speed_only(style, levels, confidence) or verdict
    evidence = verdict.evidence + "".join(f" {n[0].upper()}{n[1:]}." for n in notes)
    return ProbeReport(
        verdict=verdict.verdict, evidence=evidence, p_value=verdict.p_value, stream_style=style.style,
        k_estimate=k, fast_name=str(header.get("fast_name") or "fast tier"),
        baseline_name=header.get("baseline_name") if base else None,
        baseline_mean_tokens_per_step=finite_or_none(base_steps.mean_tokens_per_step) if base_steps else None,
        classes=classes, identity=compare_outputs(records) if base else None, requests=len(records),
        failed=[r.error for r in records if r.error] + failed_reports, date=str(header.get("date", "")),
        k_source=k_source, notes=notes, timing_unreliable=bool(style.steps_visible and steps.unreliable),
        steps_read=read, steps_left_out=left_out, steps_caution=steps.material_note,
        silent_tokens=steps.silent_tokens, by_concurrency=levels, timing=timing_counts(records), served=served,
        request_timing=request_timings(records),
        sla=sla,
        confidence=confidence, k_mismatch=mismatch, classes_temperature=t_read, classes_left_out=other_temperature,
        quality=quality_of(records, float(header.get("temperature") or 0), confidence),
        checks=checks_of(records, header, confidence, float(header.get("check_margin_points") or MARGIN_POINTS)))


def _reading_notes(style: StyleReading, steps: StepReading, served: dict[str, Any]) -> list[str]:
    """What the analyst is told about how the stream was read: the style inferred, downgraded requests, silent
    tokens, steps merged or joined, a machine too busy for the timing."""
    notes: list[str] = [style.inferred] if style.inferred else []
    if served_note(served):
        notes.append(served_note(served))
    if steps.silent_tokens:
        notes.append(f"{fmt.count(steps.silent_tokens, 'token')} in {fmt.count(steps.silent_requests, 'request')} produced no content event "
                     "(the usage counts more tokens than the stream showed: special tokens such as an end-of-turn "
                     "marker); they are kept out of the steps, and each such request's last visible step out of alpha")
    if steps.merged_note:
        notes.append(steps.merged_note)
    if steps.joined:
        notes.append(f"{steps.joined} steps arrived in two parts under {SPLIT:g} decode times apart (the server paused "
                     "inside a step) and were read as one")
    if style.steps_visible and steps.unreliable:
        notes.append(f"{BUSY} ({steps.left_out} of {fmt.count(sum(len(g) for _, g in steps.groups), 'step')} read merged); "
                     "no K and no alpha from timing")
    return notes


@dataclass(frozen=True)
class _RunReading:
    """What every class of a run is read with."""
    style: StyleReading
    steps: StepReading
    timing_ok: bool  # unreliable is the run's call: a class's few dozen steps are too few to judge the machine by
    k: int | None
    confidence: float
    contexts: list[int]
    quiet: int  # the quietest concurrency level
    load_keeping: dict[str, Any] | None
    with_baseline: bool


def _classes(run: _RunReading, fast: list[RequestRecord], base: list[RequestRecord], t_read: float,
             ) -> tuple[list[ClassProbe], list[str]]:
    """Each class read at the run's one temperature; the reported counts that could not be read, said."""
    classes, failed_reports = [], []
    for name in _class_order(fast):
        mine = [r for r in fast if r.task_class == name and _temperature(r) == t_read]
        theirs = [r for r in base if r.task_class == name and _temperature(r) == t_read]
        if mine:
            probe, problem = _class_probe(run, name, mine, theirs, t_read)
            classes.append(probe)
            if problem:
                failed_reports.append(problem if problem.startswith(tuple(r.label for r in mine)) else f"{name}: {problem}")
    return classes, failed_reports


def _by_context(run: _RunReading, mine: list[RequestRecord], theirs: list[RequestRecord]) -> list[ContextSpeed]:
    by_context = []
    for ctx in run.contexts:
        f = measure([r for r in mine if r.context == ctx and r.concurrency == run.quiet])
        row = ContextSpeed(ctx, f.requests, finite_or_none(f.ttft_s), finite_or_none(f.decode_tokens_per_s))
        if theirs:
            b = measure([r for r in theirs if r.context == ctx and r.concurrency == run.quiet])
            row.baseline_ttft_s, row.baseline_decode_tokens_per_s = finite_or_none(b.ttft_s), finite_or_none(b.decode_tokens_per_s)
            row.speedup_measured = finite_or_none(speedup(f, b))
        by_context.append(row)
    return by_context


def _class_probe(run: _RunReading, name: str, mine: list[RequestRecord], theirs: list[RequestRecord],
                 t_read: float) -> tuple[ClassProbe, str | None]:
    """One class: alpha (the server's where it reports one, else the timing's) with its interval, the speeds by
    context and by level, the profile; and what was wrong with its reported counts, if anything."""
    k, confidence, class_timing = run.k, run.confidence, run.timing_ok
    reading = read_steps(mine, run.style, run.steps.k_estimate if run.timing_ok else None, judge=False)
    # llama.cpp reports draft tokens but no K: the K found above and the steps seen convert them
    rep, problem = reported_acceptance(mine, k, steps_of(reading))
    a_timing = finite_or_none(reading.alpha) if class_timing else None
    a_rep = finite_or_none(rep.alpha) if rep is not None else None
    alpha, source = (a_rep, "reported") if a_rep is not None else (a_timing, "timing" if a_timing is not None else None)
    by_context = _by_context(run, mine, theirs)
    overall = measure([r for r in mine if r.concurrency == run.quiet])
    acc = class_acceptance(source, alpha, reading, mine, k, confidence)
    both = a_rep is not None and a_timing is not None and bool(k)
    disagree = sources_disagree(acc, class_acceptance("timing", a_timing, reading, mine, k, confidence)) \
        if both else None
    shape = step_profile(reading.groups, k) if class_timing and alpha is not None else None
    e_acc = profile_length_interval(reading.groups, shape, confidence) if shape is not None else None
    return ClassProbe(
        task_class=name, requests=len(mine), alpha=alpha, alpha_source=source, alpha_reported=a_rep,
        alpha_timing=a_timing, reported_convention=convention(rep) if rep is not None else None,
        mean_tokens_per_step=finite_or_none(reading.mean_tokens_per_step) if class_timing else None,
        mean_acceptance_length=finite_or_none(reading.mean_acceptance_length) if class_timing else None,
        tokens_per_step_histogram=reading.histogram, steps=reading.steps if class_timing else 0,
        ttft_s=finite_or_none(overall.ttft_s), decode_tokens_per_s=finite_or_none(overall.decode_tokens_per_s),
        speedup_measured={context_label(s.context): s.speedup_measured for s in by_context} if run.with_baseline else None,
        by_context=by_context, by_concurrency=level_speeds(mine + theirs, run.style, k, run.load_keeping, confidence),
        reported_draft_acceptance_rate=finite_or_none(rep.draft_acceptance_rate) if rep is not None else None,
        steps_left_out=reading.left_out,
        alpha_interval=list(acc.interval) if acc is not None and acc.interval else None,
        interval_note=(acc.note or None) if acc is not None else "no alpha",
        interval_method=acc.method or None if acc is not None else None,
        interval_confidence=confidence if acc is not None and acc.interval else None,
        prompts=distinct_prompts(mine),
        profile=list(shape.profile) or None if shape is not None else None,
        profile_counts=shape.to_dict() if shape is not None else None,
        mean_acceptance_length_interval=list(e_acc.interval) if e_acc is not None and e_acc.interval else None,
        alpha_skew=acc.skew if acc is not None else None, length_skew=e_acc.skew if e_acc is not None else None,
        sources_disagree=disagree, temperature=t_read), problem
