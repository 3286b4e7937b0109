"""The per-position acceptance profile a probe's steps imply
(docs/design/arithmetic.md#profiles-and-mean-acceptance-lengths).

A verify step that emitted n tokens accepted draft positions 1..n-1 and rejected position n, unless it was
full (n = K + 1: every position accepted, nothing rejected). So position i was reached by every step with
n >= i and accepted by every step with n >= i + 1, and its conditional rate p_i is the one over the other.
Only the steps the alpha reads are counted (model.probe.steps.full_steps): read whole, with room for K + 1
tokens, not the end of the text, and not suspect of being two steps merged by a late read
(model.probe.merges). A merge the filters missed would show as a step too big (left out) or as one
step accepting what were two steps' tokens; a run with too many suspect groups gives no K, so no profile.

Each request's first step is left out too: on a real server (llama.cpp, vLLM) the first token comes from the
prompt pass, alone, not from a verify step, and counting it would read as a rejection at position 1 in every
request (about 1% of a request's steps, all at one position). Where the first step is a real verify step
(serve-demo) it is one sample less, not a bias.

A position reached by fewer than MIN_REACHED steps ends the profile there: its rate would be a coin's
throw, and the comparison extends a shorter profile by its stated rule and labels what it extrapolated.
The counts of every position are kept beside the rates, so the reader sees what each rate rests on.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from model.acceptance import Acceptance
from model.acceptance.interval import length_interval
from model.probe.merges import Group
from model.probe.events import RequestRecord
from model.probe.steps import full_steps

MIN_REACHED = 10


@dataclass(frozen=True)
class StepProfile:
    """The steps' verdict per draft position: reached[i - 1] steps got to position i, accepted[i - 1] took it."""

    k: int
    reached: tuple[int, ...]
    accepted: tuple[int, ...]
    steps: int
    requests: int

    @property
    def rates(self) -> list[float | None]:
        """The conditional rate at every position 1..K (None where no step got that far)."""
        return [a / n if n else None for a, n in zip(self.accepted, self.reached)]

    @property
    def profile(self) -> tuple[float, ...]:
        """The rates of positions 1.. up to the first one reached by fewer than MIN_REACHED steps."""
        out = []
        for a, n in zip(self.accepted, self.reached):
            if n < MIN_REACHED:
                break
            out.append(a / n)
        return tuple(out)

    @property
    def mean_acceptance_length(self) -> float:
        """E at K over the counted steps: 1 + the accepted drafts per step (bonus token included)."""
        return 1.0 + sum(self.accepted) / self.steps if self.steps else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "positions": len(self.profile), "reached": list(self.reached),
                "accepted": list(self.accepted), "steps": self.steps, "requests": self.requests,
                "min_reached": MIN_REACHED}


def per_request_accepted(groups: Sequence[tuple[RequestRecord, Sequence[Group]]], k: int) -> list[list[int]]:
    """Accepted drafts (0..K) of each request's counted steps: full steps, its first step left out."""
    return [[min(n - 1, k) for n in full_steps(record, gs, k, skip=1)] for record, gs in groups if len(gs) > 1]


def step_profile(groups: Sequence[tuple[RequestRecord, Sequence[Group]]], k: int | None) -> StepProfile | None:
    """The profile of these requests' steps at K, or None without a K or without a counted step."""
    if not k:
        return None
    per_request = [a for a in per_request_accepted(groups, k) if a]
    accepted = np.concatenate([np.asarray(a, dtype=np.int64) for a in per_request]) if per_request else np.zeros(0, np.int64)
    if not accepted.size:
        return None
    hist = np.bincount(accepted, minlength=k + 1)[: k + 1]
    at_least = np.cumsum(hist[::-1])[::-1]  # at_least[i] = steps that accepted i drafts or more
    return StepProfile(k, tuple(int(x) for x in at_least[:-1]), tuple(int(x) for x in at_least[1:]),
                       int(accepted.size), len(per_request))


def profile_length_interval(groups: Sequence[tuple[RequestRecord, Sequence[Group]]], profile: StepProfile,
                            confidence: float) -> Acceptance | None:
    """The interval on E over the profile's positions (its own E: positions past them count as not reached),
    from the same steps as step_profile, the request as the unit (model.acceptance.interval.length_interval)."""
    m = len(profile.profile)
    if not m:
        return None
    per_request = [[min(a, m) for a in request] for request in per_request_accepted(groups, profile.k) if request]
    return length_interval([sum(a) for a in per_request], [len(a) for a in per_request], m, confidence)
