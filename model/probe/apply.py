"""A probe's result into the workbook, as one edit: alpha per (tier, class) as overrides with source
"probed" and the date, the tier's speculative flag from the verdict, the measured speedup beside the claim, the
downgraded share and the SLA's measured share (model.workbook.vendor_terms.apply_served).

Qt-free so the GUI's Apply is one Document.apply over `apply_probe` and the CLI or a test can call it alone.
An inconclusive verdict leaves the flag as the analyst set it: the stream hid the steps, it did not
show that the tier does not speculate.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

import numpy as np

from model.mechanics import arithmetic as ar
from model.probe.analysis import ClassProbe, ProbeReport
from model.probe.filler import context_label
from model.acceptance.k_check import k_mismatch
from model.workbook.load_speedups import format_speedups
from model.workbook.measured_apply import apply_plan, plan_measured
from model.workbook.rows import Tier, Workbook
from model.workbook.validation import K_LIMITS
from model.probe.quality_apply import apply_quality
from model.workbook.vendor_terms import apply_served


def at_temperature(report: ProbeReport) -> str:
    """Where the run mixed temperatures, the one its classes were read at, in words ("" for a run with one)."""
    return f" at temperature {report.classes_temperature:g}" if report.classes_left_out else ""


def probe_note(report: ProbeReport, c: ClassProbe | None = None) -> str:
    source = f", alpha {c.alpha_source}" if c is not None and c.alpha_source else ""
    return f"probed {report.date or 'today'}: {report.fast_name}, {report.stream_style}{source}{at_temperature(report)}"


def disagreeing_sources(report: ProbeReport) -> str:
    """What Apply stores where the reported and the timed alpha disagree beyond their intervals, in one sentence
    ("" where none do): the figure used, named, so nobody applies the one they did not mean to."""
    rows = [c for c in report.classes if c.sources_disagree and c.alpha is not None]
    if not rows:
        return ""
    said = "; ".join(f"{c.task_class} {c.alpha_source} {c.alpha:.1%}" + (
        f" (timing {c.alpha_timing:.1%})" if c.alpha_source == "reported" and c.alpha_timing is not None else "")
        for c in rows)
    dropped = [c.task_class for c in rows if c.alpha_source == "reported" and c.profile]
    return (f"Where the server's reported α and the timing disagree beyond their intervals, Apply stores the "
            f"α used: {said}." + (f" The per-position profile read from the stream's steps (the timing's) is not "
                                  f"stored beside it ({', '.join(dropped)})." if dropped else ""))


def as_stored(c: ClassProbe) -> ClassProbe:
    """The class as Apply stores it: where the server's reported alpha is used against a timing that disagrees
    beyond their intervals, without the profile, which comes from the stream's steps as the timing does; a
    profile beside an alpha wins (docs/design/arithmetic.md#the-alpha-beside-a-profile), so storing it would
    store the timing's figure under the reported one's name."""
    if c.sources_disagree and c.alpha_source == "reported" and c.profile:
        return replace(c, profile=None, mean_acceptance_length_interval=None)
    return c


def tier_speedup(report: ProbeReport, workbook: Workbook, claim_context: int) -> tuple[float | None, str]:
    """The measured speedup at the probed context nearest the claim's, blended over classes by the
    workbook's output tokens (time adds up: a weighted harmonic mean), equal weights when none are entered."""
    contexts = sorted({s.context for c in report.classes for s in c.by_context if s.speedup_measured is not None})
    if not contexts:
        return None, ""
    ctx = min(contexts, key=lambda x: abs((x or 0) - claim_context))
    speeds: list[float] = []
    weights: list[float] = []
    tokens = {c.name.lower(): c.tokens_out for c in workbook.classes}
    for c in report.classes:
        s = next((s.speedup_measured for s in c.by_context if s.context == ctx), None)
        if s is not None and math.isfinite(s) and s > 0:
            speeds.append(s)
            weights.append(tokens.get(c.task_class.lower(), 0.0))
    if not speeds:
        return None, ""
    w = np.asarray(weights) if sum(weights) > 0 else np.ones(len(speeds))
    return float(ar.blend_speedup(np.asarray(speeds), w)), context_label(ctx)


def level_speedup(report: ProbeReport, levels: dict[int, tuple[float, bool]], concurrency: int) -> tuple[float, str]:
    """The measured speedup at the tier's concurrency, or at the nearest level measured (the quieter on a
    tie), with a note that says which level it is."""
    n = min(levels, key=lambda m: (abs(m - concurrency), m))
    speed, throttled = levels[n]
    streams = f"{n} parallel stream{'s' if n != 1 else ''}"
    where = (f"at {streams}, the tier's load" if n == concurrency
             else f"at {streams}, the level nearest the tier's load of {concurrency}")
    mark = " (throttled: 429s)" if throttled else ""
    return speed, f"probed {report.date or 'today'} {where}{mark}, against {report.baseline_name}"


def apply_probe(workbook: Workbook, report: ProbeReport, tier: str, *, add_missing: bool = False,
                set_flag: bool = True, keep_speedup: bool = True, set_k: bool = False) -> list[str]:
    """Mutate ``workbook``; returns the classes left out (not in the workbook, or nothing measured).

    ``set_k``: where the K measured differs from the tier's, set the tier's K to it (model/acceptance/k_check.py says
    why the dock ticks it by default); otherwise the tier keeps its K and the numbers there say extrapolated."""
    i = workbook.tier_index(tier)
    if i is None:
        raise ValueError(f"no tier named {tier!r} in the workbook")
    classes: Sequence[ClassProbe] = report.classes
    measured = [as_stored(c) for c in classes if c.alpha is not None]
    todo, skipped = plan_measured(workbook, measured, add_missing)
    skipped += [f"{c.task_class} (no alpha: the stream hid the steps)" for c in classes if c.alpha is None]
    for name, c, is_new in todo:
        apply_plan(workbook, [(name, c, is_new)], probe_note(report, c), tier, source="probed")
    row = workbook.tiers[i]
    mismatch = k_mismatch(report.k_estimate, report.k_source, row.k)
    if set_k and mismatch is not None and K_LIMITS[0] <= mismatch.measured <= K_LIMITS[1]:
        row.k = mismatch.measured
        row.entered("k")  # measured, no longer a value an import made up
    if set_flag and report.verdict in ("yes", "no"):
        row.speculative = report.verdict
    apply_quality(row, report.quality, report.checks)  # the quality found stays beside the speed it measured
    # the downgraded share and the SLA's measured share, with their intervals, onto the tier's terms
    apply_served(row, report.served, report.sla)
    if keep_speedup:
        speed, where = tier_speedup(report, workbook, row.claim_context)
        if speed is not None:
            row.measured_speedup = round(speed, 4)
            row.measured_note = (f"probed {report.date or 'today'} at {where}{at_temperature(report)}, "
                                 f"against {report.baseline_name}")
            row.measured_speedup_low = row.measured_speedup_high = row.measured_speedup_confidence = None
        # a probe at several concurrencies keeps its speedup per level: the comparison reads the tier's own load
        levels = {x.concurrency: (round(x.speedup_measured, 4), x.throttled) for x in report.by_concurrency
                  if x.speedup_measured is not None and math.isfinite(x.speedup_measured) and x.speedup_measured > 0}
        intervals = {x.concurrency: (round(x.speedup_interval[0], 4), round(x.speedup_interval[1], 4))
                     for x in report.by_concurrency if x.concurrency in levels and x.speedup_interval}
        if len(levels) > 1 or any(n > 1 for n in levels):
            row.measured_by_concurrency = format_speedups(levels, intervals)
            # the speedup beside the claim is the one at the tier's load, not a pool of levels
            row.measured_speedup, row.measured_note = level_speedup(report, levels, row.concurrency)
        if row.measured_speedup is not None:
            _keep_interval(row, report, levels, intervals)
    return skipped


def _keep_interval(row: Tier, report: ProbeReport, levels: dict[int, tuple[float, bool]],
                   intervals: dict[int, tuple[float, float]]) -> None:
    """The probe's interval on the level the tier's measured speedup stands for (its load's, or the nearest), at the
    probe's confidence; a speedup blended over the workload's classes gets the level's interval scaled to it, the
    same relative width (docs/design/vendor-terms.md#judged-on-the-measured-speed). None where the probe gave none."""
    if not levels or row.measured_speedup is None:
        return
    n = min(levels, key=lambda m: (abs(m - row.concurrency), m))
    if n not in intervals or levels[n][0] <= 0 or not report.confidence:
        return
    scale = row.measured_speedup / levels[n][0]
    low, high = (round(end * scale, 4) for end in intervals[n])
    if low <= row.measured_speedup <= high:
        row.measured_speedup_low, row.measured_speedup_high = low, high
        row.measured_speedup_confidence = float(report.confidence)
