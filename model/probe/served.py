"""Which tier served each request, and how often the vendor downgraded (docs/design/vendor-speed.md#the-served-tier).

A vendor may serve a request asked for at fast speed at standard speed and bill it so; OpenAI names the tier that
served it in `service_tier` ("priority" or "fast" against "default"), Anthropic in `usage.speed` ("fast" against
"standard"). Each request of the fast tier is "fast", "standard" (downgraded) or "unknown" (the response names
none). The downgraded share d = standard / (fast + standard), with its Wilson score interval; the speed on the
requests served fast is the tier's, and the speed over all of them as they came is the one a workload sees.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from model.probe.by_load import LevelSpeed
from model.probe.binomial import wilson
from model.probe.events import RequestRecord
from model.probe.speed import measure, speedup
from model.common import formatting as fmt

FAST, STANDARD, UNKNOWN = "fast", "standard", "unknown"
FAST_NAMES = ("priority", "fast")  # the names the vendors give their fast tier in a response
METHOD = "Wilson score"


def requested_tier(endpoint: Mapping[str, Any] | None) -> str | None:
    """The fast tier the endpoint's body asks for: its service_tier, or Anthropic's speed."""
    body = (endpoint or {}).get("extra_body") or {}
    value = body.get("service_tier") or body.get("speed") if isinstance(body, Mapping) else None
    return str(value)[:40] if value else None


def served_as(record: RequestRecord, requested: str | None) -> str:
    """FAST where the response names a fast tier; STANDARD where it names another though the request asked for a
    fast one (a downgrade); UNKNOWN otherwise: no name, or no fast tier asked for (OpenAI names "default" on every
    request that did not ask, which says nothing of a downgrade)."""
    name = (record.served_tier or "").lower()
    if not name:
        return UNKNOWN
    if name in FAST_NAMES:
        return FAST
    return STANDARD if requested is not None and requested.lower() in FAST_NAMES else UNKNOWN


def served_fast(records: Sequence[RequestRecord], requested: str | None) -> list[RequestRecord]:
    """The requests not downgraded (served fast, or the response names no tier)."""
    return [r for r in records if served_as(r, requested) != STANDARD]


def served_summary(records: Sequence[RequestRecord], requested: str | None,
                   confidence: float = 0.95) -> dict[str, Any]:
    """`probe --json`'s `served`, over the fast tier's completed requests."""
    kinds = [served_as(r, requested) for r in records if r.ok]
    fast, standard, unknown = (kinds.count(k) for k in (FAST, STANDARD, UNKNOWN))
    named = fast + standard
    interval = wilson(standard, named, confidence)
    return {"requested": requested, "fast": fast, "standard": standard, "unknown": unknown,
            "downgraded_share": standard / named if named else None,
            "downgraded_interval": list(interval) if interval else None,
            "interval_method": METHOD if interval else None, "confidence": confidence}


def add_as_served(levels: Sequence[LevelSpeed], every_fast: Sequence[RequestRecord],
                  baseline: Sequence[RequestRecord], requested: str | None) -> None:
    """Each level's speedup over all the fast tier's requests as they came, downgraded ones included."""
    for level in levels:
        mine = [r for r in every_fast if r.concurrency == level.concurrency and r.ok]
        base = [r for r in baseline if r.concurrency == level.concurrency and r.ok]
        level.downgraded = sum(served_as(r, requested) == STANDARD for r in mine)
        if base and mine:
            s = speedup(measure(mine), measure(base))
            level.speedup_as_served = float(s) if math.isfinite(s) else None


def served_note(summary: Mapping[str, Any]) -> str:
    """The note on the downgraded requests, or "" where none were."""
    if not summary.get("standard"):
        return ""
    named = summary["fast"] + summary["standard"]
    lo, hi = summary["downgraded_interval"]
    return (f"{summary['standard']} of {fmt.count(named, 'fast request')} naming their tier were served at standard "
            f"speed ({summary['downgraded_share']:.0%}, {lo:.0%}-{hi:.0%} at {summary['confidence']:.0%}): left out "
            "of the speed, the steps and alpha; the speedup as served counts them")
