"""Tokens per verify step, read from how a stream arrives.

A verify step emits 1 + (accepted drafts) tokens at once. Servers show it in one of three ways:
- one event per step carrying several tokens (vLLM): the logprobs entries count them exactly;
- one event per token, the tokens of a step arriving together and steps a decode time apart
  (llama.cpp): the gaps between events fall into two clusters, and a step is a run of events
  separated by small gaps;
- re-chunked or padded by a gateway: every event the same size, or counts not given. Such a
  stream hides the steps, and the reading says so rather than guessing.
A step cut short by the token budget or by the end of the text is not a K-step observation; it
is left out of alpha (as the sampler leaves out its short stretches) but kept in the histogram.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from model import arithmetic as ar
from model.probe.events import RequestRecord

MULTI_TOKEN = "multi-token events"
PER_TOKEN_GAPS = "per-token events, steps in the gaps"
ONE_PER_STEP = "one token per event, evenly spaced"
FIXED_CHUNKS = "fixed-size chunks"
UNKNOWN_COUNTS = "token counts not given"
NO_EVENTS = "no events"

GAP_CLUSTER_RATIO = 8.0  # the facing edges of the two gap clusters differ by at least this factor
FIXED_SHARE = 0.9  # this share of events of one size > 1 reads as re-chunking
# A client that reads late (a loaded machine) takes two events in one read now and then: a few
# percent of near-zero gaps. Within-step gaps of a speculative stream are 1 - 1/E of all gaps,
# over 20% at E = 1.3; so the smaller cluster must hold this share to count as one.
MIN_CLUSTER_SHARE = 0.08


@dataclass
class StyleReading:
    style: str
    steps_visible: bool
    evidence: str
    gap_threshold_s: float | None = None


@dataclass
class StepReading:
    """The steps of a set of requests and what they say."""

    sizes: list[int] = field(default_factory=list)  # tokens per step, all steps
    full_sizes: list[int] = field(default_factory=list)  # the steps that could have held K + 1 tokens
    k_estimate: int | None = None
    histogram: list[int] = field(default_factory=list)  # steps by tokens, index 0..max (index 0 unused)

    @property
    def steps(self) -> int:
        return len(self.sizes)

    @property
    def mean_tokens_per_step(self) -> float:
        return float(np.mean(self.sizes)) if self.sizes else float("nan")

    @property
    def mean_acceptance_length(self) -> float:
        return float(np.mean(self.full_sizes)) if self.full_sizes else float("nan")

    @property
    def alpha(self) -> float:
        """Per-token alpha by model.arithmetic's maximum-likelihood rule over the full steps."""
        if not self.k_estimate or not self.full_sizes:
            return float("nan")
        accepted = np.minimum(np.asarray(self.full_sizes, dtype=np.int64) - 1, self.k_estimate)
        return ar.histogram_alpha(np.bincount(accepted, minlength=self.k_estimate + 1))


def _event_counts(record: RequestRecord) -> list[int | None]:
    return [e.n_tokens for e in record.content_events]


def _all_gaps(records: Sequence[RequestRecord]) -> np.ndarray:
    gaps = [np.diff([e.t for e in r.content_events]) for r in records if len(r.content_events) > 1]
    return np.concatenate(gaps) if gaps else np.zeros(0)


def split_gaps(gaps: np.ndarray) -> float | None:
    """The threshold between two gap clusters (within a step / between steps), or None for one cluster.

    Otsu's split of the gaps on a log scale (the one that best separates two groups); it counts as
    two clusters when the groups' medians differ by GAP_CLUSTER_RATIO or more and each holds at
    least MIN_CLUSTER_SHARE of the gaps, so events read together by chance (a busy client) stay noise.
    A loaded machine stretches some steps and leaves stragglers between the clusters; medians
    and a best split, unlike the widest jump between neighbours, do not mind them.
    """
    g = np.sort(gaps[np.isfinite(gaps)])
    if g.size < 8:
        return None
    lg = np.log10(np.maximum(g, 1e-7))
    n = lg.size
    csum = np.cumsum(lg)
    left = np.arange(1, n)
    mu0 = csum[:-1] / left
    mu1 = (csum[-1] - csum[:-1]) / (n - left)
    between = left * (n - left) * (mu0 - mu1) ** 2
    i = int(np.argmax(between))  # the split puts lg[:i + 1] low, lg[i + 1:] high
    low, high = g[:i + 1], g[i + 1:]
    if min(low.size, high.size) < max(2, MIN_CLUSTER_SHARE * n):
        return None
    if np.median(high) < GAP_CLUSTER_RATIO * max(float(np.median(low)), 1e-7):
        return None
    return float(math.sqrt(max(g[i], 1e-7) * g[i + 1]))


def detect_style(records: Sequence[RequestRecord]) -> StyleReading:
    records = [r for r in records if r.content_events]
    if not records:
        return StyleReading(NO_EVENTS, False, "no request produced any content")
    counts = [c for r in records for c in _event_counts(r)]
    events = len(counts)
    if any(c is None for c in counts):
        usage = [r.usage.get("completion_tokens") for r in records if r.usage]
        if len(usage) == len(records) and sum(int(u or 0) for u in usage) == events:
            return _per_token(records, "no logprobs, but the usage counts one token per event")
        return StyleReading(UNKNOWN_COUNTS, False,
                            f"the stream gives no per-event token counts (no logprobs) and {events} events do not "
                            "match the usage one to one, so the steps cannot be read")
    # the last event of a request may hold a remainder; the rest show the server's chunking
    body = [c for r in records for c in _event_counts(r)[:-1]] or counts
    sizes, freq = np.unique(np.asarray(body, dtype=np.int64), return_counts=True)
    mode, share = int(sizes[np.argmax(freq)]), float(freq.max() / freq.sum())
    if sizes.max() > 1:
        if mode > 1 and share >= FIXED_SHARE:
            return StyleReading(FIXED_CHUNKS, False,
                                f"{share:.0%} of {len(body)} events carry exactly {mode} tokens: the stream is "
                                "re-chunked to a fixed size, which hides the verify steps")
        return StyleReading(MULTI_TOKEN, True,
                            f"events carry 1 to {int(sizes.max())} tokens (counted from logprobs), one event per step")
    return _per_token(records, "every event carries one token")


def _per_token(records: Sequence[RequestRecord], why: str) -> StyleReading:
    gaps = _all_gaps(records)
    threshold = split_gaps(gaps)
    if threshold is None:
        median = float(np.median(gaps)) * 1e3 if gaps.size else float("nan")
        return StyleReading(ONE_PER_STEP, True,
                            f"{why}; the {gaps.size} gaps between events form one cluster (median {median:.2f} ms), "
                            "so each event is its own step")
    within = gaps[gaps < threshold]
    between = gaps[gaps >= threshold]
    return StyleReading(PER_TOKEN_GAPS, True,
                        f"{why}; the gaps split into two clusters: {within.size} within a step (median "
                        f"{np.median(within) * 1e3:.3f} ms) and {between.size} between steps (median "
                        f"{np.median(between) * 1e3:.2f} ms)", threshold)


def request_steps(record: RequestRecord, style: StyleReading) -> list[int]:
    """Tokens per step of one request, in order."""
    events = record.content_events
    if not events:
        return []
    if style.style == PER_TOKEN_GAPS and style.gap_threshold_s is not None:
        steps = [events[0].n_tokens or 1]
        for before, after in zip(events, events[1:]):
            n = after.n_tokens or 1
            if after.t - before.t < style.gap_threshold_s:
                steps[-1] += n
            else:
                steps.append(n)
        return steps
    return [e.n_tokens or 1 for e in events]


def estimate_k(sizes: Sequence[int]) -> int | None:
    """K = the largest step minus one, once that size is seen often enough not to be a merge by chance."""
    if not sizes:
        return None
    counts = np.bincount(np.asarray(sizes, dtype=np.int64))
    need = max(2, int(0.02 * len(sizes)))  # two steps read as one by a late client stay below this
    for size in range(counts.size - 1, 1, -1):
        if counts[size] >= need:
            return size - 1
    return None


def read_steps(records: Sequence[RequestRecord], style: StyleReading, k: int | None = None) -> StepReading:
    """Steps of these requests; ``k`` given (the estimate over all classes) or estimated from them."""
    per_request = [(r, request_steps(r, style)) for r in records if r.ok]
    sizes = [n for _, steps in per_request for n in steps]
    reading = StepReading(sizes=sizes)
    if not style.steps_visible or not sizes:
        return reading
    reading.k_estimate = k if k is not None else estimate_k(sizes)
    reading.histogram = [int(x) for x in np.bincount(np.asarray(sizes, dtype=np.int64))]
    if reading.k_estimate:
        for record, steps in per_request:
            reading.full_sizes.extend(full_steps(record, steps, reading.k_estimate))
    return reading


def full_steps(record: RequestRecord, steps: list[int], k: int) -> list[int]:
    """The steps that started with room for K + 1 tokens and did not end the text."""
    out: list[int] = []
    emitted = 0
    for i, n in enumerate(steps):
        last = i == len(steps) - 1
        if record.max_tokens - emitted >= k + 1 and not (last and record.finish_reason != "length"):
            out.append(n)
        emitted += n
    return out
