"""The interval on a probed class's alpha: each distinct prompt is one unit (model.acceptance says why).

Timing alpha: each request's full steps (read whole, with room for K + 1 tokens) give its accepted drafts and
trials, into the cluster interval. Reported alpha: each response's own counts (engines.reports) go to
model.acceptance.alpha_interval_from_reports. Either way the requests of one prompt (its repeats, its sends at
several concurrency levels, the load levels' cycled prompts, two lines of the prompt file with the same text) are
summed into one cluster, keyed by the prompt's text (its digest, RequestRecord.prompt_key): repeats of a prompt
are correlated, and only distinct prompts carry the spread between prompts. A run file from before the digest was
kept falls back on the prompt's index in its plan. Fewer than 5 distinct prompts give no interval.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from model.acceptance import Acceptance, alpha_interval, alpha_interval_from_reports, per_request_counts
from model.engines.reports import ReportError
from model.engines.responses import speculation_from_response
from model.probe.events import RequestRecord
from model.probe.merges import Group
from model.probe.reported import counts_at_k, response_body, steps_of, text_only
from model.common.formatting import pct
from model.probe.steps import StepReading, full_steps


def timing_acceptance(reading: StepReading, k: int, confidence: float) -> Acceptance:
    per_request = [[min(n - 1, k) for n in full_steps(record, groups, k)] for record, groups in reading.groups]
    acc, trials, steps = per_request_counts(per_request, k)
    return alpha_interval(acc, trials, confidence, steps, clusters=[prompt_key(r) for r, _ in reading.groups])


def prompt_key(record: RequestRecord) -> tuple[str, str | int]:
    """The cluster a request belongs to: its prompt, by its text where the record keeps the digest (the index in
    the plan is not the prompt: a file may say one prompt twice, and each --until-decided round numbers its own)."""
    return record.task_class, record.prompt_key if record.prompt_key is not None else record.prompt_index


def distinct_prompts(records: Sequence[RequestRecord]) -> int:
    return len({prompt_key(r) for r in records})


def reported_acceptance_interval(records: Sequence[RequestRecord], k: int | None, point: float,
                                 confidence: float, groups: Mapping[int, list[Group]] | None = None) -> Acceptance:
    """Over each response's own counts, read at the run's K as the point was (model.probe.reported.counts_at_k)."""
    parts, keys = [], []
    for r in text_only(records):  # as the point was read (model.probe.reported.past_the_text)
        try:
            # one record at a time, so each part keeps its prompt
            got = (counts_at_k([r], k, groups) if k is not None
                   else [c] if (c := speculation_from_response(response_body(r), r.reported.get("headers"))) else [])
        except ReportError:
            continue  # said by reported_acceptance already; the request is left out of the interval too
        parts += got
        keys += [prompt_key(r)] * len(got)
    return alpha_interval_from_reports(parts, k, point, confidence, clusters=keys)


def class_acceptance(source: str | None, alpha: float | None, reading: StepReading, records: Sequence[RequestRecord],
                     k: int | None, confidence: float) -> Acceptance | None:
    """The class's alpha with its interval, by the source its alpha came from; None without an alpha."""
    if alpha is None:
        return None
    if source == "timing" and k:
        out = timing_acceptance(reading, k, confidence)
        return Acceptance(alpha, out.low, out.high, out.confidence, out.requests, out.steps, out.method)
    return reported_acceptance_interval(records, k, alpha, confidence, steps_of(reading))


def sources_disagree(reported: Acceptance | None, timing: Acceptance | None) -> str | None:
    """Words where the server's reported alpha and the one timed from the stream cannot both be right: their
    intervals do not overlap (two readings of the same requests). None where they agree, or where either has
    no interval to judge by (too few prompts): then nothing says the gap is more than chance."""
    if reported is None or timing is None or not reported.interval or not timing.interval:
        return None
    (r_lo, r_hi), (t_lo, t_hi) = reported.interval, timing.interval
    if r_lo <= t_hi and t_lo <= r_hi:
        return None
    conf = f"{reported.confidence:.0%} " if reported.confidence else ""
    return (f"reported {pct(reported.point)} ({pct(r_lo)}–{pct(r_hi)}) and timing {pct(timing.point)} "
            f"({pct(t_lo)}–{pct(t_hi)}) disagree beyond their {conf}intervals: one of the two readings is off "
            "(the server's counts, or steps merged or split in the stream)")
