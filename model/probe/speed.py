"""Speed as the analyst pays for it: time to first token and decode tokens/s, fast against baseline.

Decode speed counts the tokens after the first event over the time from the first event to the
last, summed over requests (time adds up; an average of rates would weigh short answers too much). Each
request's tokens are its events' counts, or the usage's where the stream does not count them
(model.probe.output_timing says which, per request).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from model.probe.events import RequestRecord
from model.probe.output_timing import UNTIMED, output_timing, usage_output_tokens


@dataclass(frozen=True)
class Speed:
    requests: int
    ttft_s: float  # median
    decode_tokens_per_s: float
    output_tokens: int


def request_tokens(record: RequestRecord) -> int:
    """Output tokens: the usage when given, else the logprobs counts, else one per event."""
    usage = usage_output_tokens(record)
    return usage if usage is not None else sum(e.n_tokens or 1 for e in record.content_events)


def decode_parts(records: Sequence[RequestRecord]) -> tuple[np.ndarray, np.ndarray]:
    """Per request with more than one event: the decode tokens (after the first event) and the seconds they
    took (first event to last), counted as model.probe.output_timing says. Their sums make the decode speed;
    per request, its interval."""
    tokens, seconds = [], []
    for r in records:
        timing = output_timing(r)
        if timing.how != UNTIMED:
            tokens.append(timing.decode_tokens)
            seconds.append(timing.span_s)
    return np.asarray(tokens, dtype=np.float64), np.asarray(seconds, dtype=np.float64)


def measure(records: Sequence[RequestRecord]) -> Speed:
    ok = [r for r in records if r.ok and r.content_events]
    ttft = [r.content_events[0].t for r in ok]
    tokens, seconds = decode_parts(ok)
    time = float(seconds.sum())
    return Speed(len(ok), float(np.median(ttft)) if ttft else math.nan,
                 float(tokens.sum()) / time if time > 0 else math.nan, sum(request_tokens(r) for r in ok))


def speedup(fast: Speed, baseline: Speed) -> float:
    if not (baseline.decode_tokens_per_s > 0 and math.isfinite(fast.decode_tokens_per_s)):
        return math.nan
    return fast.decode_tokens_per_s / baseline.decode_tokens_per_s
