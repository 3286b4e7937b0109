"""Speed at each concurrency level: what the analyst's own load does to the fast tier's advantage.

Per level (the `concurrency` each request recorded) and per class, and for the tier: per-stream
decode tokens/s and time to first token for fast and baseline, tokens per step and alpha, the
speedup over the baseline at that level, and the 429s met. A level where the server answered 429
is marked throttled: its speed measures the rate limit as much as the tier, and it is never read as
plain slowness (the comparison does not use it).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Sequence

from model.probe.events import BASELINE, FAST, RequestRecord
from model.probe.reported import reported_acceptance
from model.probe.speed import measure, speedup
from model.probe.steps import StyleReading, read_steps


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


@dataclass
class LevelSpeed:
    concurrency: int
    requests: int
    baseline_requests: int
    ttft_s: float | None
    decode_tokens_per_s: float | None  # per stream
    baseline_ttft_s: float | None
    baseline_decode_tokens_per_s: float | None
    mean_tokens_per_step: float | None
    alpha: float | None
    speedup_measured: float | None
    throttled_responses: int  # 429 answers met at this level, fast and baseline
    throttled: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def levels_of(records: Sequence[RequestRecord]) -> list[int]:
    return sorted({r.concurrency for r in records})


def level_speeds(records: Sequence[RequestRecord], style: StyleReading, k: int | None) -> list[LevelSpeed]:
    """One row per level the records hold (fast and baseline of one class, or of the whole tier)."""
    out = []
    for n in levels_of(records):
        fast = [r for r in records if r.concurrency == n and r.role == FAST and r.ok]
        base = [r for r in records if r.concurrency == n and r.role == BASELINE and r.ok]
        f = measure(fast)
        b = measure(base) if base else None
        reading = read_steps(fast, style, k) if fast else None
        rep, _ = reported_acceptance(fast) if fast else (None, None)
        alpha = _num(rep.alpha) if rep is not None else None
        if alpha is None and reading is not None and style.steps_visible:
            alpha = _num(reading.alpha)
        throttled = sum(r.throttled for r in records if r.concurrency == n)
        out.append(LevelSpeed(
            concurrency=n, requests=len(fast), baseline_requests=len(base), ttft_s=_num(f.ttft_s),
            decode_tokens_per_s=_num(f.decode_tokens_per_s),
            baseline_ttft_s=_num(b.ttft_s) if b else None,
            baseline_decode_tokens_per_s=_num(b.decode_tokens_per_s) if b else None,
            mean_tokens_per_step=_num(reading.mean_tokens_per_step) if reading and style.steps_visible else None,
            alpha=alpha, speedup_measured=_num(speedup(f, b)) if b else None,
            throttled_responses=throttled, throttled=throttled > 0))
    return out


def lowest_level(records: Sequence[RequestRecord]) -> int:
    """The quietest level probed: the speeds beside the claim (a vendor's claim is for a quiet server)."""
    levels = levels_of(records)
    return levels[0] if levels else 1
