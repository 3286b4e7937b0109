"""The acceptance of one class (or one class on one tier's draft) as a value: point, interval, provenance.

``kind`` says what the number is. Today it is always ALPHA, the per-token acceptance
(docs/design/arithmetic.md#notation); a per-position profile or a mean acceptance length can be added as kinds
of their own (docs/design/arithmetic.md#profiles-and-mean-acceptance-lengths) without changing what the
comparison reads: it asks for the point and the interval ends.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

ALPHA = "alpha"  # per-token acceptance, i.i.d. model
LENGTH = "length"  # a mean acceptance length at a stated K (model/acceptance/profiles.py)
PROFILE = "profile"  # conditional acceptance per draft position (model/acceptance/profiles.py)
KINDS = (ALPHA, LENGTH, PROFILE)

# why a measured or typed acceptance has no interval; said in place of one, never a guess
TOO_FEW = "too few requests for an interval"
COUNTS_ONLY = "counts only: interval unknown"
NO_INTERVAL_ASSUMED = "assumed, no range given"
TYPED_RANGE = "typed range"


def _finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


@dataclass(frozen=True)
class Acceptance:
    """One acceptance: ``point`` with an optional interval [low, high] at ``confidence``.

    ``requests`` and ``steps`` count what it was measured from (0 when typed or unknown): ``requests`` the
    interval's units (distinct prompts where the requests name theirs: model.acceptance.units), what its width
    rests on; ``sent`` the requests behind them, repeats included, where the units are prompts (None: each
    request was its own unit). ``method`` names how the interval was made, or says why there is none
    (TOO_FEW, COUNTS_ONLY, ...).
    """

    point: float
    low: float | None = None
    high: float | None = None
    confidence: float | None = None
    requests: int = 0
    steps: int = 0
    method: str = ""
    kind: str = ALPHA
    sent: int | None = None
    # the sample skewness of the units' residuals the interval was made from (None: not measured here); a run
    # until decided reads it (model.acceptance.sequential.side_at_look), nothing shows or keeps it
    skew: float | None = field(default=None, compare=False)

    @property
    def has_interval(self) -> bool:
        return _finite(self.low) and _finite(self.high)

    @property
    def interval(self) -> tuple[float, float] | None:
        return (float(self.low), float(self.high)) if self.has_interval else None  # type: ignore[arg-type]

    @property
    def half_width(self) -> float:
        return 0.5 * (float(self.high) - float(self.low)) if self.has_interval else math.nan  # type: ignore[arg-type]

    @property
    def note(self) -> str:
        """Why there is no interval ("" when there is one)."""
        return "" if self.has_interval else (self.method or NO_INTERVAL_ASSUMED)

    def to_dict(self) -> dict[str, Any]:
        """The JSON fields every measuring command prints per class."""
        return {"alpha_interval": list(self.interval) if self.has_interval else None,
                "interval_note": self.note or None, "confidence": self.confidence,
                "requests": self.requests, "steps": self.steps, "interval_method": self.method or None}

    def row_fields(self) -> dict[str, Any]:
        """The workbook fields (task class or override) that keep this acceptance's interval."""
        return {"alpha_low": self.low if self.has_interval else None,
                "alpha_high": self.high if self.has_interval else None,
                "alpha_confidence": self.confidence if self.has_interval else None,
                "alpha_requests": int(self.sent if self.sent is not None else self.requests),
                "alpha_steps": int(self.steps), "alpha_method": self.method, "alpha_prompts": self.prompts}

    @property
    def prompts(self) -> int | None:
        """The distinct prompts the interval rests on; None where they are not known (typed, an older file, or
        each request its own unit because the source names no prompt)."""
        return int(self.requests) if self.sent is not None else None


def acceptance_of(row: Any, default_confidence: float) -> Acceptance:
    """The acceptance a task class or override row holds (read by field names: no workbook import).

    A range typed without a confidence (a vendor's stated range, the analyst's doubt) is read at the
    workbook's confidence, so it combines with measured intervals in the mix.
    """
    low, high = getattr(row, "alpha_low", None), getattr(row, "alpha_high", None)
    conf = getattr(row, "alpha_confidence", None)
    method = getattr(row, "alpha_method", "") or ""
    sent = int(getattr(row, "alpha_requests", 0) or 0)
    prompts = getattr(row, "alpha_prompts", None)  # the units; an older file has none: each request was one
    units, sent_or_none = (int(prompts), sent) if prompts is not None else (sent, None)
    steps = int(getattr(row, "alpha_steps", 0) or 0)
    if _finite(low) and _finite(high):
        return Acceptance(float(row.alpha), float(low), float(high), conf if conf is not None else default_confidence,
                          units, steps, method or TYPED_RANGE, sent=sent_or_none)
    if not method and getattr(row, "alpha_source", "assumed") == "assumed":
        method = NO_INTERVAL_ASSUMED
    return Acceptance(float(row.alpha), None, None, None, units, steps, method, sent=sent_or_none)
