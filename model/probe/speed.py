"""Speed as the analyst pays for it: time to first token and decode tokens/s, fast against baseline.

Decode speed counts the tokens after the first event over the time from the first event to the
last, summed over requests (time adds up; an average of rates would weigh short answers too much).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from model.probe.events import RequestRecord


@dataclass(frozen=True)
class Speed:
    requests: int
    ttft_s: float  # median
    decode_tokens_per_s: float
    output_tokens: int


def request_tokens(record: RequestRecord) -> int:
    """Output tokens: the usage when given, else the logprobs counts, else one per event."""
    if record.usage and isinstance(record.usage.get("completion_tokens"), int):
        return int(record.usage["completion_tokens"])
    return sum(e.n_tokens or 1 for e in record.content_events)


def decode_parts(records: Sequence[RequestRecord]) -> tuple[np.ndarray, np.ndarray]:
    """Per request with more than one event: the decode tokens (after the first event) and the seconds they
    took (first event to last). Their sums make the decode speed; per request, its interval."""
    tokens, seconds = [], []
    for r in records:
        events = r.content_events
        if not (r.ok and len(events) > 1):
            continue
        span = events[-1].t - events[0].t
        # silent tokens (counted in the usage, no event: llama.cpp's special tokens) fall after the span
        seen = min(request_tokens(r), sum(e.n_tokens or 1 for e in events))
        if span > 0:
            tokens.append(seen - (events[0].n_tokens or 1))
            seconds.append(span)
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
