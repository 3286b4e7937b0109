"""A tier's measured speedups over its baseline per concurrency level, kept as one short text.

"1: 2.31, 4: 1.85, 16: 0.97*": parallel streams, then the speedup measured at that level; a
trailing * marks a level the server throttled (429s), whose speed says more about the rate limit
than about the tier. Text, so the workbook file, the report's Notes and a table cell hold it as
they hold a note; the validator turns a file's object ({"4": 1.85}) or a list of the probe's
`by_concurrency` rows into the same text.
"""
from __future__ import annotations

import math
import re
from typing import Any

MAX_LEVEL = 4096
MAX_LEVELS = 64
_ITEM = re.compile(r"^\s*(\d+)\s*:\s*([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)\s*(\*?)\s*$")


class LoadSpeedupError(ValueError):
    """Text that is not "level: speedup" pairs; the message says what is expected."""


EXPECTED = 'pairs "streams: speedup" such as "1: 2.31, 16: 0.97" (a * after a throttled level)'


def parse_speedups(value: Any) -> dict[int, tuple[float, bool]]:
    """{concurrency: (speedup over the baseline, throttled)} from the text, an object or the probe's rows."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    items: list[tuple[Any, Any, Any]] = []
    if isinstance(value, str):
        if len(value) > 2000:
            raise LoadSpeedupError(f"is longer than 2000 characters ({len(value):,})")
        for part in value.split(","):
            m = _ITEM.match(part)
            if not m:
                raise LoadSpeedupError(f"must be {EXPECTED} (got {part.strip()[:40]!r})")
            items.append((m.group(1), m.group(2), m.group(3) == "*"))
    elif isinstance(value, dict):
        items = [(k, v, False) for k, v in value.items()]
    elif isinstance(value, list):
        for row in value:
            if not isinstance(row, dict):
                raise LoadSpeedupError(f"must be {EXPECTED}")
            items.append((row.get("concurrency"), row.get("speedup_measured"), bool(row.get("throttled"))))
    else:
        raise LoadSpeedupError(f"must be {EXPECTED}")
    out: dict[int, tuple[float, bool]] = {}
    for level, speed, throttled in items:
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
        out[n] = (s, bool(throttled))
    if len(out) > MAX_LEVELS:
        raise LoadSpeedupError(f"at most {MAX_LEVELS} levels (got {len(out)})")
    return dict(sorted(out.items()))


def format_speedups(levels: dict[int, tuple[float, bool]]) -> str:
    return ", ".join(f"{n}: {s:.4g}{'*' if t else ''}" for n, (s, t) in sorted(levels.items()))


def speedup_at(levels: dict[int, tuple[float, bool]], concurrency: int) -> tuple[float, bool] | None:
    """The level measured at exactly this concurrency; another level is not this load, so no guess."""
    return levels.get(int(concurrency))
