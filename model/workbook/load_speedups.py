"""A tier's measured speedups over its baseline per concurrency level, kept as one short text.

"1: 2.31, 4: 1.85, 16: 0.97*": parallel streams, then the speedup measured at that level; a
trailing * marks a level the server throttled (429s), whose speed says more about the rate limit
than about the tier. A level may carry its interval after it, "4: 1.85 [1.62-2.11]" (the probe's
`speedup_interval`, requests as the unit), which the speedup-against-concurrency chart draws as an
error bar. Text, so the workbook file, the report's Notes and a table cell hold it as
they hold a note; the validator turns a file's object ({"4": 1.85}) or a list of the probe's
`by_concurrency` rows into the same text.
"""
from __future__ import annotations

import math
import re
from typing import Any

MAX_LEVEL = 4096
MAX_LEVELS = 64
_NUM = r"([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)"
_ITEM = re.compile(rf"^\s*(\d+)\s*:\s*{_NUM}\s*(\*?)\s*(?:\[\s*{_NUM}\s*[-–]\s*{_NUM}\s*\])?\s*$")


class LoadSpeedupError(ValueError):
    """Text that is not "level: speedup" pairs; the message says what is expected."""


EXPECTED = ('pairs "streams: speedup" such as "1: 2.31, 16: 0.97" (a * after a throttled level, '
            'an interval after it in brackets: "4: 1.85 [1.62-2.11]")')

Interval = tuple[float, float]


def parse_speedups(value: Any) -> dict[int, tuple[float, bool]]:
    """{concurrency: (speedup over the baseline, throttled)} from the text, an object or the probe's rows."""
    return {n: (s, t) for n, (s, t, _) in _parse(value).items()}


def parse_speedup_intervals(value: Any) -> dict[int, Interval]:
    """{concurrency: (low, high)} for the levels that carry an interval."""
    return {n: i for n, (_, _, i) in _parse(value).items() if i is not None}


def _parse(value: Any) -> dict[int, tuple[float, bool, Interval | None]]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    items: list[tuple[Any, Any, Any, Any]] = []
    if isinstance(value, str):
        if len(value) > 2000:
            raise LoadSpeedupError(f"is longer than 2000 characters ({len(value):,})")
        for part in value.split(","):
            m = _ITEM.match(part)
            if not m:
                raise LoadSpeedupError(f"must be {EXPECTED} (got {part.strip()[:40]!r})")
            interval = (m.group(4), m.group(5)) if m.group(4) is not None else None
            items.append((m.group(1), m.group(2), m.group(3) == "*", interval))
    elif isinstance(value, dict):
        items = [(k, v, False, None) for k, v in value.items()]
    elif isinstance(value, list):
        for row in value:
            if not isinstance(row, dict):
                raise LoadSpeedupError(f"must be {EXPECTED}")
            items.append((row.get("concurrency"), row.get("speedup_measured"), bool(row.get("throttled")),
                          row.get("speedup_interval")))
    else:
        raise LoadSpeedupError(f"must be {EXPECTED}")
    out: dict[int, tuple[float, bool, Interval | None]] = {}
    for level, speed, throttled, interval in items:
        try:
            n = int(str(level))
            s = float(speed)
        except (TypeError, ValueError):
            raise LoadSpeedupError(f"must be {EXPECTED} (got {str(level)[:20]}: {str(speed)[:20]})") from None
        if not 1 <= n <= MAX_LEVEL:
            raise LoadSpeedupError(f"a concurrency must be from 1 to {MAX_LEVEL} (got {n})")
        if not (math.isfinite(s) and 0 < s <= 1000):
            raise LoadSpeedupError(f"a speedup must be above 0 and at most 1000 (got {speed!r} at {n})")
        if n in out:
            raise LoadSpeedupError(f"concurrency {n} is given twice")
        out[n] = (s, bool(throttled), _interval(interval, s, n))
    if len(out) > MAX_LEVELS:
        raise LoadSpeedupError(f"at most {MAX_LEVELS} levels (got {len(out)})")
    return dict(sorted(out.items()))


def _interval(value: Any, speed: float, level: int) -> Interval | None:
    if value is None:
        return None
    try:
        low, high = (float(x) for x in value)
    except (TypeError, ValueError):
        raise LoadSpeedupError(f"the interval at {level} must be two numbers, low and high") from None
    if not (math.isfinite(low) and math.isfinite(high) and 0 < low <= speed <= high <= 1000):
        raise LoadSpeedupError(f"the interval at {level} must hold its speedup {speed:g} and lie above 0 "
                               f"(got {low:g}-{high:g})")
    return low, high


def format_speedups(levels: dict[int, tuple[float, bool]], intervals: dict[int, Interval] | None = None) -> str:
    intervals = intervals or {}
    return ", ".join(f"{n}: {s:.4g}{'*' if t else ''}"
                     + (f" [{intervals[n][0]:.4g}-{intervals[n][1]:.4g}]" if n in intervals else "")
                     for n, (s, t) in sorted(levels.items()))


def speedup_at(levels: dict[int, tuple[float, bool]], concurrency: int) -> tuple[float, bool] | None:
    """The level measured at exactly this concurrency; another level is not this load, so no guess."""
    return levels.get(int(concurrency))
