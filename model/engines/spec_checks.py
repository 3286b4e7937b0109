"""Whether an engine's speculation counts can be true, before anything is converted from them.

Counts read from files and servers are checked here first, so an impossible count is refused naming its
field rather than turned into an acceptance: K is 1..64 everywhere in SpecLedger, a count is a
finite non-negative number a server can keep (below 2^53), more cannot be accepted than was drafted, a
cumulative per-position count cannot exceed the steps or rise along the stretch, and a histogram must
agree with the counts given beside it.

Core module: the standard library only (model.engines.reports' SpecCounts is checked by its attributes).
"""
from __future__ import annotations

import math
from typing import Protocol

MAX_K = 64  # draft tokens per step, as everywhere in SpecLedger
MAX_COUNT = float(2**53)  # past this a float no longer holds a whole count exactly: no real counter is there


class Counts(Protocol):
    k: int | None
    drafts: float | None
    draft_tokens: float | None
    accepted_tokens: float | None
    per_position_accepted: tuple[float, ...] | None
    histogram: tuple[float, ...] | None
    histogram_partial: bool
    rejections: float | None


def count_problem(c: Counts) -> str | None:
    """The first impossible figure in `c`, in words naming its field; None when the counts can be true.

    Checked on every source before any conversion, so an impossible count is refused rather than turned
    into an alpha: non-finite, negative or past 2^53; K outside 1..64; more accepted than drafted; a
    per-position count above the steps (a rate above 1); a histogram whose steps or accepted tokens
    disagree with the counts given beside it.
    """
    scalars = {"drafts (verify steps)": c.drafts, "draft tokens": c.draft_tokens, "accepted tokens": c.accepted_tokens,
               "rejecting steps": c.rejections}
    for name, value in scalars.items():
        if value is not None and not (math.isfinite(value) and 0 <= value <= MAX_COUNT):
            return f"{name}: {value!r} is not a count (negative, NaN, infinite or past 2^53)"
    for name, vector in (("per-position accepted", c.per_position_accepted), ("histogram", c.histogram)):
        for i, value in enumerate(vector or ()):
            if not (math.isfinite(value) and 0 <= value <= MAX_COUNT):
                return f"{name}[{i}]: {value!r} is not a count (negative, NaN, infinite or past 2^53)"
    if c.k is not None and not 1 <= c.k <= MAX_K:
        return f"K = {c.k} draft tokens per step is outside 1..{MAX_K}"
    for name, vector in (("per-position accepted", c.per_position_accepted), ("histogram", c.histogram)):
        if vector is not None and len(vector) > MAX_K + 1:
            return f"{name}: {len(vector)} entries, more than K can be (1..{MAX_K})"
    slack = 1e-6
    if c.accepted_tokens is not None and c.draft_tokens is not None and c.accepted_tokens > c.draft_tokens * (1 + slack) + slack:
        return f"accepted tokens: {c.accepted_tokens:g} accepted of {c.draft_tokens:g} drafted is more than were drafted"
    steps = c.drafts
    if steps is not None and c.per_position_accepted is not None:
        for i, value in enumerate(c.per_position_accepted):
            if value > steps * (1 + 1e-3) + 0.5:
                return (f"per-position accepted[{i}]: {value:g} of {steps:g} steps is a rate of {value / steps if steps else math.inf:.3g}, "
                        "above 1")
    pos = c.per_position_accepted or ()
    for i in range(1, len(pos)):
        if pos[i] > pos[i - 1] * (1 + 1e-6) + 0.5:
            return (f"per-position accepted[{i}]: {pos[i]:g} steps reached draft {i + 1} but only {pos[i - 1]:g} "
                    f"reached draft {i}; the counts are cumulative and cannot rise along the stretch")
    if c.histogram is not None and not c.histogram_partial:
        hist_steps = float(sum(c.histogram))
        hist_accepted = float(sum(j * n for j, n in enumerate(c.histogram)))
        if steps is not None and abs(hist_steps - steps) > max(0.5, 1e-6 * steps):
            return f"histogram: its counts sum to {hist_steps:g} steps, but the source counts {steps:g} verify steps"
        if c.accepted_tokens is not None and abs(hist_accepted - c.accepted_tokens) > max(0.5, 1e-6 * c.accepted_tokens):
            return (f"histogram: it implies {hist_accepted:g} accepted tokens, but the source counts "
                    f"{c.accepted_tokens:g}")
        if c.k is not None and len(c.histogram) > c.k + 1:
            return f"histogram: {len(c.histogram)} entries, more than K + 1 = {c.k + 1}"
    if c.rejections is not None and steps is not None and c.rejections > steps * (1 + 1e-6) + 0.5:
        return f"rejecting steps: {c.rejections:g} of {steps:g} verify steps rejected a draft, more than there were steps"
    if steps and c.accepted_tokens is not None and c.k and c.accepted_tokens > steps * c.k * (1 + slack) + slack:
        return (f"accepted tokens: {c.accepted_tokens:g} over {steps:g} steps is more than K = {c.k} a step")
    return _disagreement(c)


# Engines print their rates and lengths rounded (2 decimals, or percent to 1-2 decimals): a figure beside the counts
# may miss them by that much, never by more
_RATE_SLACK = 0.006
_LENGTH_SLACK = 0.011
# the engine's own printed figures, by the name the readers keep them under: (convention, scale to a fraction)
_STATED_LENGTHS = ("Mean acceptance length", "mean acceptance length", "Acceptance length",
                   "spec_decode_acceptance_length")
_STATED_RATES = {"Draft acceptance rate (%)": 100.0, "Acceptance rate (%)": 100.0, "spec_decode_acceptance_rate": 100.0,
                 "draft acceptance": 1.0}


def _disagreement(c: Counts) -> str | None:
    """Figures of one source that contradict each other: per-position counts against the accepted total, draft
    tokens against drafts x K, and the engine's own printed length and rate against its counts. Either figure may
    be the wrong one, so neither is used: the message names both (docs/reference/engine-formats.md#figures-that-contradict-each-other)."""
    steps, pos, accepted = c.drafts, c.per_position_accepted, c.accepted_tokens
    if pos and accepted is not None and steps:
        implied = float(sum(pos))
        # each printed rate is off by its rounding at most; a count from it by that share of the steps
        if abs(implied - accepted) > _RATE_SLACK * steps * len(pos) + 1.0:
            return (f"per-position rates: they add up to {implied:.6g} accepted tokens ({implied / steps:.3g} a draft), "
                    f"but the accepted tokens given are {accepted:g}; the figures contradict each other")
    if steps and c.k and c.draft_tokens is not None and c.draft_tokens > steps * c.k * 1.01 + 1.0:
        return (f"draft tokens: {c.draft_tokens:g} over {steps:.6g} drafts is {c.draft_tokens / steps:.3g} a draft, "
                f"more than K = {c.k} (the per-position block or K given is short of the drafts)")
    stated = getattr(c, "engine_values", None) or {}
    if steps and accepted is not None:
        length = 1.0 + accepted / steps
        for name in _STATED_LENGTHS:
            value = stated.get(name)
            if _number(value) and abs(value - length) > _LENGTH_SLACK + 0.005 * length:
                return (f"{name}: printed {value:g}, but the counts give {length:.4g} "
                        f"(1 + {accepted:g} accepted / {steps:.6g} drafts); the figures contradict each other")
    drafted = c.draft_tokens if c.draft_tokens else (steps * c.k if steps and c.k else None)
    if drafted and accepted is not None:
        rate = accepted / drafted
        for name, scale in _STATED_RATES.items():
            value = stated.get(name)
            if _number(value) and abs(value / scale - rate) > _RATE_SLACK:
                return (f"{name}: printed {value:g}, but the counts give {rate * scale:.4g} "
                        f"({accepted:g} accepted / {drafted:.6g} drafted); the figures contradict each other")
    return None


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
