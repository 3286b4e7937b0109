"""The speedup at the analyst's own load: a probe's measurement at the tier's concurrency, in the verdict.

A vendor's claim is for a quiet server. Speculative decoding pays while the server is memory-bound and
fades as its batch grows (the verify pass costs K + 1 tokens of compute per stream), so the number that
decides a batch job is the speedup measured at the parallel streams the analyst will run. Where a
probe measured one at exactly the tier's `concurrency`, the value verdict at that load uses it (speedup
over the baseline against the tier's price ratio) and the words say so; a level the server throttled
(429s) is not used: its speed measured the rate limit. Another level is never stood in for this one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from model.common import formatting as fmt
from model.workbook.load_speedups import LoadSpeedupError, parse_speedups

# `cmp` below is a model.comparison.result.Comparison; not imported (comparison imports this module)

WORTH_AT_LOAD, NOT_WORTH_AT_LOAD = "worth the premium", "not worth it"
MEASURED, THROTTLED, NONE = "measured", "throttled", "none"


@dataclass(frozen=True)
class LoadSpeed:
    concurrency: int
    speedup: float | None  # over the baseline, measured at exactly `concurrency`; None when not usable
    source: str  # MEASURED, THROTTLED (measured but not used) or NONE
    price_ratio: float | None
    value: str  # WORTH_AT_LOAD / NOT_WORTH_AT_LOAD, "" without a usable speedup or a price ratio
    levels: dict[int, tuple[float, bool]] = field(default_factory=dict)  # every level the probe kept

    def record(self) -> dict[str, Any]:
        return {"concurrency": self.concurrency, "speedup_at_concurrency": self.speedup,
                "speedup_at_concurrency_source": self.source,
                "value_verdict_at_concurrency": self.value or None,
                "measured_by_concurrency": [{"concurrency": n, "speedup_measured": s, "throttled": t}
                                            for n, (s, t) in self.levels.items()]}

    def words(self) -> str:
        """One sentence for the tier; '' when it runs one stream and nothing was measured by level."""
        streams = f"{self.concurrency} parallel stream{'s' if self.concurrency != 1 else ''}"
        others = ", ".join(f"{n}: {fmt.times(s)}{' (throttled)' if t else ''}" for n, (s, t) in self.levels.items()
                           if n != self.concurrency)
        also = f" (by concurrency {others})" if others else ""
        if self.source == MEASURED and self.speedup is not None:
            text = f"at its load, {streams}, measured {fmt.times(self.speedup)} over the baseline"
            if self.value and self.price_ratio is not None:
                text += f" for a {fmt.times(self.price_ratio)} price: {self.value} at this load"
            return text + also + "; the verdict at this load uses the measured speed."
        if self.source == THROTTLED:
            return (f"at its load, {streams}, the probe was throttled (429s): its speed there measured the rate "
                    f"limit, not the tier, and is not used{also}.")
        if self.levels or self.concurrency > 1:
            return (f"runs at {streams}; no speedup was measured at that load{also}: the modelled speedup "
                    "stands, and it is for the server's batch, which may differ.")
        return ""


def load_speed(cmp: Any, i: int) -> LoadSpeed:
    concurrency = int(cmp.concurrency[i]) if cmp.concurrency is not None and len(cmp.concurrency) > i else 1
    text = cmp.measured_by_concurrency[i] if len(cmp.measured_by_concurrency) > i else ""
    try:
        levels = parse_speedups(text)
    except LoadSpeedupError:  # a validated workbook never holds one; a stray one measures nothing
        levels = {}
    ratio = fmt.finite_or_none(cmp.mix_price_ratio[i]) if int(cmp.baseline_index[i]) >= 0 else None
    at = levels.get(concurrency)
    if at is None:
        return LoadSpeed(concurrency, None, NONE, ratio, "", levels)
    speed, throttled = at
    if throttled:
        return LoadSpeed(concurrency, None, THROTTLED, ratio, "", levels)
    value = "" if ratio is None or not cmp.speculative[i] else (WORTH_AT_LOAD if speed >= ratio else NOT_WORTH_AT_LOAD)
    return LoadSpeed(concurrency, speed, MEASURED, ratio, value, levels)

