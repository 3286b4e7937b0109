"""Deciding with as few requests as the data allow, without the error rate creeping up (DESIGN.md section 7).

Looking at an interval after every round and stopping as soon as it clears the break-even inflates the error
rate of a fixed-sample interval: each look is another chance for a chance excursion to look decided. The
method here is alpha-spending over a fixed schedule of looks: the looks are fixed before any data are seen
(MIN_REQUESTS requests, then doubling, up to the cap: 5, 10, 20, 40, ...), and the error the confidence allows,
1 - confidence, is spent in equal parts across them (Bonferroni), so the interval at each look is made at
1 - (1 - confidence) / L. Whatever the data do, the chance that any look's interval misses the truth is at most
the sum of the parts, 1 - confidence: a class stopped at a look is wrong at most that often. It is
conservative (the looks are correlated), which costs requests, not correctness; tests/bench/bench_intervals.py
measures both.

``requests_to_decide`` says, before sending, how many more requests a class is expected to need: from its
measured interval (the half-width shrinks as 1 / sqrt(requests)) or, with nothing measured, from the class's
current alpha with an assumed spread between prompts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from model.acceptance.interval import MIN_REQUESTS, z_quantile
from model.acceptance.value import Acceptance

ABOVE, BELOW, OPEN = "above", "below", "open"
ASSUMED_SPREAD = 0.10  # sd of alpha between prompts of one class, when nothing is measured yet


def look_schedule(max_requests: int, first: int = MIN_REQUESTS) -> list[int]:
    """Requests per class at each look: first, doubling, and the cap as the last look."""
    if max_requests < first:
        return [max_requests] if max_requests > 0 else []
    looks = [first]
    while looks[-1] * 2 < max_requests:
        looks.append(looks[-1] * 2)
    if looks[-1] != max_requests:
        looks.append(max_requests)
    return looks


def look_confidence(confidence: float, looks: int) -> float:
    """The confidence of each look's interval, the error spent equally over the looks."""
    return 1.0 - (1.0 - confidence) / max(looks, 1)


def side(acc: Acceptance, threshold: float) -> str:
    """ABOVE or BELOW where the whole interval lies on one side of ``threshold`` (alpha >= threshold is ABOVE,
    as a verdict reads it), OPEN where it reaches both sides or there is no interval."""
    if not acc.has_interval:
        return OPEN
    if float(acc.low) >= threshold:  # type: ignore[arg-type]
        return ABOVE
    if float(acc.high) < threshold:  # type: ignore[arg-type]
        return BELOW
    return OPEN


@dataclass(frozen=True)
class Need:
    """Requests a class is expected to need beyond those it has, and why (from data or assumed)."""

    extra: float  # math.inf where it cannot be decided (the point sits on the threshold)
    basis: str


def requests_to_decide(acc: Acceptance | None, alpha: float, threshold: float | None, confidence: float,
                       half_width: float | None = None, trials_per_request: float = 60.0) -> Need:
    """Expected further requests for the interval at ``confidence`` to clear ``threshold`` (or, with
    ``half_width``, to be that narrow): n * (h / margin)^2 - n from a measured interval of h at n requests."""
    have = acc.requests if acc is not None else 0
    if half_width is not None:
        margin = half_width
    elif threshold is None or not math.isfinite(threshold):
        return Need(math.inf, "no break-even to decide against")
    else:
        margin = abs(alpha - threshold)
    if margin <= 0:
        return Need(math.inf, "the acceptance sits on the break-even")
    z = float(z_quantile(confidence))
    if acc is not None and acc.has_interval and acc.confidence:
        h = acc.half_width * z / float(z_quantile(acc.confidence))
        need = have * (h / margin) ** 2
        basis = f"from the interval over {have} requests"
    else:
        sd = math.sqrt(ASSUMED_SPREAD ** 2 + alpha * (1.0 - alpha) / max(trials_per_request, 1.0))
        need = (z * sd / margin) ** 2
        basis = f"assumed spread {ASSUMED_SPREAD:.2f} between prompts"
    need = max(need, float(MIN_REQUESTS))
    return Need(max(0.0, math.ceil(need - have)), basis)
