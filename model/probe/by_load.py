"""Speed at each concurrency level: what the analyst's own load does to the fast tier's advantage.

Per level (the `concurrency` each request recorded) and per class, and for the tier: per-stream
decode tokens/s and time to first token for fast and baseline, tokens per step and alpha, the
speedup over the baseline at that level, and the 429s met. A level where the server answered 429
is marked throttled: its speed measures the rate limit as much as the tier, and it is never read as
plain slowness (the comparison does not use it).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

from model.probe.events import BASELINE, FAST, RequestRecord
from model.probe.reported import reported_acceptance, steps_of
from model.acceptance.rates import speedup_interval
from model.probe.intervals import class_acceptance
from model.probe.speed import decode_parts, measure, speedup
from model.probe.steps import StyleReading, read_steps
from model.common.formatting import finite_or_none


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
    throttled_responses: int  # 429 answers the analysed requests met at this level, fast and baseline
    throttled: bool  # any 429 at this level, the load-keeping requests' included
    # the level's load-keeping requests (all classes, both tiers): sent, run to their end, 429s met
    extra_requests: int = 0
    extra_completed: int = 0
    extra_throttled: int = 0
    # at the report's confidence, requests as the unit (model.acceptance); None where too few requests
    alpha_interval: list[float] | None = None
    speedup_interval: list[float] | None = None
    # the fast tier's requests the vendor served at standard speed at this level, and the speedup over all its
    # requests as they came, those included (model.probe.served); speedup_measured is over the ones served fast
    downgraded: int = 0
    speedup_as_served: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def levels_of(records: Sequence[RequestRecord]) -> list[int]:
    return sorted({r.concurrency for r in records})


def level_speeds(records: Sequence[RequestRecord], style: StyleReading, k: int | None,
                 load_keeping: Mapping[str, Mapping[str, int]] | None = None,
                 confidence: float = 0.95) -> list[LevelSpeed]:
    """One row per level the records hold (fast and baseline of one class, or of the whole tier).

    ``load_keeping`` is the run header's counts per level ({"16": {"sent", "completed", "throttled"}});
    a 429 on one of those marks the level throttled as one on an analysed request does: the rate limit
    held the level's streams back all the same."""
    out = []
    for n in levels_of(records):
        extra = (load_keeping or {}).get(str(n)) or {}
        fast = [r for r in records if r.concurrency == n and r.role == FAST and r.ok]
        base = [r for r in records if r.concurrency == n and r.role == BASELINE and r.ok]
        f = measure(fast)
        b = measure(base) if base else None
        reading = read_steps(fast, style, k) if fast else None
        # llama.cpp reports draft tokens but no K: the run's K and the steps seen convert them, as for the classes
        rep, _ = reported_acceptance(fast, k, steps_of(reading)) if fast else (None, None)
        alpha = finite_or_none(rep.alpha) if rep is not None else None
        source = "reported" if alpha is not None else None
        if alpha is None and reading is not None and style.steps_visible:
            alpha, source = finite_or_none(reading.alpha), "timing"
        acc = class_acceptance(source, alpha, reading, fast, k, confidence) if reading is not None else None
        s_interval = speedup_interval(*decode_parts(fast), *decode_parts(base), confidence) if base else None
        throttled = sum(r.throttled for r in records if r.concurrency == n)
        out.append(LevelSpeed(
            concurrency=n, requests=len(fast), baseline_requests=len(base), ttft_s=finite_or_none(f.ttft_s),
            decode_tokens_per_s=finite_or_none(f.decode_tokens_per_s),
            baseline_ttft_s=finite_or_none(b.ttft_s) if b else None,
            baseline_decode_tokens_per_s=finite_or_none(b.decode_tokens_per_s) if b else None,
            mean_tokens_per_step=finite_or_none(reading.mean_tokens_per_step) if reading and style.steps_visible else None,
            alpha=alpha, speedup_measured=finite_or_none(speedup(f, b)) if b else None,
            throttled_responses=throttled, throttled=throttled + int(extra.get("throttled", 0)) > 0,
            extra_requests=int(extra.get("sent", 0)), extra_completed=int(extra.get("completed", 0)),
            extra_throttled=int(extra.get("throttled", 0)),
            alpha_interval=list(acc.interval) if acc is not None and acc.interval else None,
            speedup_interval=list(s_interval) if s_interval is not None else None))
    return out


def lowest_level(records: Sequence[RequestRecord]) -> int:
    """The quietest level probed: the speeds beside the claim (a vendor's claim is for a quiet server)."""
    levels = levels_of(records)
    return levels[0] if levels else 1
