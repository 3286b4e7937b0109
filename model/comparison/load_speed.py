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

import numpy as np

from model.common import formatting as fmt
from model.comparison.verdicts import NOT_APPLICABLE, VALUE_NAMES, value_verdicts
from model.workbook.load_speedups import LoadSpeedupError, parse_speedups

MEASURED, THROTTLED, NONE = "measured", "throttled", "none"


@dataclass(frozen=True)
class LoadSpeed:
    concurrency: int
    speedup: float | None  # over the baseline, measured at exactly `concurrency`; None when not usable
    source: str  # MEASURED, THROTTLED (measured but not used) or NONE
    price_ratio: float | None
    # the value verdict at this load (model.comparison.verdicts' WORTH / NOT_WORTH), NOT_APPLICABLE without a usable
    # speedup or a price ratio
    verdict: int
    levels: dict[int, tuple[float, bool]] = field(default_factory=dict)  # every level the probe kept

    @property
    def value(self) -> str:
        """The verdict's name ("worth the premium", "not worth it"), "" where there is none."""
        return "" if self.verdict == NOT_APPLICABLE else VALUE_NAMES[self.verdict]

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


def load_speed(concurrency: int, by_concurrency: str, price_ratio: float | None, speculative: bool) -> LoadSpeed:
    """A tier's speedup measured at its own concurrency (from its ``measured_by_concurrency`` text) and the value
    verdict it gives against the tier's price ratio (None without a baseline)."""
    try:
        levels = parse_speedups(by_concurrency)
    except LoadSpeedupError:  # a validated workbook never holds one; a stray one measures nothing
        levels = {}
    at = levels.get(concurrency)
    if at is None:
        return LoadSpeed(concurrency, None, NONE, price_ratio, NOT_APPLICABLE, levels)
    speed, throttled = at
    if throttled:
        return LoadSpeed(concurrency, None, THROTTLED, price_ratio, NOT_APPLICABLE, levels)
    verdict = NOT_APPLICABLE
    if price_ratio is not None and speculative:
        verdict = int(value_verdicts(np.float64(speed), np.float64(price_ratio), np.bool_(True)))
    return LoadSpeed(concurrency, speed, MEASURED, price_ratio, verdict, levels)
