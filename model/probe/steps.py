"""Tokens per verify step, read from how a stream arrives.

A verify step emits 1 + (accepted drafts) tokens at once. Servers show it in one of three ways:
- one event per step carrying several tokens (vLLM): the logprobs entries count them exactly;
- one event per token, the tokens of a step arriving together and steps a decode time apart
  (llama.cpp): the gaps between events fall into two clusters, and a step is a run of events
  separated by small gaps;
- re-chunked or padded by a gateway: every event the same size, or counts not given. Such a
  stream hides the steps, and the reading says so rather than guessing.
llama.cpp gives logprobs only on some events (none on a verify step's tokens): an
event without them, in a stream whose counted events all carry one token and whose text never
holds more than a token's worth, is read as one token, and the evidence says so. Tokens that
produced no content event (special tokens: usage.completion_tokens above the tokens seen) are not
steps the client saw: they are counted and reported, and the request's last visible step, which
they may have cut short, is left out of alpha.
A step cut short by the token budget or by the end of the text is not a K-step observation; it
is left out of alpha (as the sampler leaves out its short stretches) but kept in the histogram.
A late reader merges steps (model.probe.merges): such groups are left out, and a run with too many
says its timing is unreliable rather than give K and alpha. A step the server sent in two parts a
small fraction of a decode time apart is joined back (merges.join_splits).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from model.mechanics import arithmetic as ar
from model.probe import merges
from model.probe.events import RequestRecord
from model.probe.merges import Group
from model.probe.output_timing import counts_given
from model.common import formatting as fmt

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
# an event without logprobs reads as one token only when its text is no longer than the longest
# single token seen, or than this many characters (a token of spaces in code runs to a dozen or so)
TOKEN_CHARS = 16


@dataclass
class StyleReading:
    style: str
    steps_visible: bool
    evidence: str
    gap_threshold_s: float | None = None
    inferred: str = ""  # how token counts the stream did not give were read, said in the evidence


@dataclass
class StepReading:
    """The steps of a set of requests and what they say."""

    sizes: list[int] = field(default_factory=list)  # tokens per step, all steps
    full_sizes: list[int] = field(default_factory=list)  # the steps that could have held K + 1 tokens
    k_estimate: int | None = None
    histogram: list[int] = field(default_factory=list)  # steps by tokens, index 0..max (index 0 unused)
    groups: list[tuple[RequestRecord, list[Group]]] = field(default_factory=list)  # per request, as read
    silent_tokens: int = 0  # counted in the usage but sent in no content event
    silent_requests: int = 0
    merged_note: str = ""  # how many steps were left out as merged, and why
    unreliable: bool = False  # too many merged: no K, no alpha from timing
    material_note: str = ""  # a material share left out, the reading still standing (merges.MATERIAL_SHARE)
    joined: int = 0  # groups joined to the one before: a step the server sent in two parts (merges.join_splits)

    @property
    def left_out(self) -> int:
        return sum(1 for _, gs in self.groups for g in gs if g.suspect)

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
        """Per-token alpha by model.mechanics.arithmetic's maximum-likelihood rule over the full steps."""
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
    The gaps within a step can form two clusters of their own: a real llama.cpp server writes each token of a
    step in its own send, ~1 ms apart on a loaded machine, and tokens that left in one TCP segment share one
    kernel stamp (0 apart), while its steps are ~200 ms apart. Otsu's best split then falls between the 0s and
    the rest, four decades apart on a log scale, and read every per-token send as a step. Steps are the top
    cluster, so the split is tried again above the one found (each side still holding its share of all the
    gaps) and the highest that stands is the one between steps.
    """
    g = np.sort(gaps[np.isfinite(gaps)])
    if g.size < 8:
        return None
    n = g.size
    found = None
    low_end = 0  # g[low_end:] is searched: above the last split that stood
    while g.size - low_end >= 2 * max(2, MIN_CLUSTER_SHARE * n):
        cut = _otsu(g[low_end:], n)
        if cut is None:
            break
        i = low_end + cut
        found = float(math.sqrt(max(g[i], 1e-7) * g[i + 1]))
        low_end = i + 1
    return found


def _otsu(g: np.ndarray, n: int) -> int | None:
    """Otsu's split of sorted gaps ``g`` on a log scale: the last index of the low group, or None where the two
    groups' medians are less than GAP_CLUSTER_RATIO apart or either holds less than MIN_CLUSTER_SHARE of ``n``."""
    lg = np.log10(np.maximum(g, 1e-7))
    m = lg.size
    csum = np.cumsum(lg)
    left = np.arange(1, m)
    mu0 = csum[:-1] / left
    mu1 = (csum[-1] - csum[:-1]) / (m - left)
    between = left * (m - left) * (mu0 - mu1) ** 2
    i = int(np.argmax(between))  # the split puts lg[:i + 1] low, lg[i + 1:] high
    low, high = g[:i + 1], g[i + 1:]
    if min(low.size, high.size) < max(2, MIN_CLUSTER_SHARE * n):
        return None
    if np.median(high) < GAP_CLUSTER_RATIO * max(float(np.median(low)), 1e-7):
        return None
    return i


def detect_style(records: Sequence[RequestRecord]) -> StyleReading:
    records = [r for r in records if r.content_events]
    if not records:
        return StyleReading(NO_EVENTS, False, "no request produced any content")
    counts = [c for r in records for c in _event_counts(r)]
    events = len(counts)
    if any(c is None for c in counts):
        return _partial_counts(records, counts)
    # the last event of a request may hold a remainder; the rest show the server's chunking
    body = [c for r in records for c in _event_counts(r)[:-1]] or counts
    sizes, freq = np.unique(np.asarray(body, dtype=np.int64), return_counts=True)
    mode, share = int(sizes[np.argmax(freq)]), float(freq.max() / freq.sum())
    if sizes.max() > 1:
        if mode > 1 and share >= FIXED_SHARE:
            return StyleReading(FIXED_CHUNKS, False,
                                f"{share:.0%} of {fmt.count(len(body), 'event')} carry exactly {mode} tokens: the stream is "
                                "re-chunked to a fixed size, which hides the verify steps")
        return StyleReading(MULTI_TOKEN, True,
                            f"events carry 1 to {int(sizes.max())} tokens (counted from logprobs), one event per step")
    return _per_token(records, "every event carries one token")


def _partial_counts(records: Sequence[RequestRecord], counts: list[int | None]) -> StyleReading:
    """Some or all events carry no logprobs: one token each where the rest of the stream shows it."""
    events = len(counts)
    bare = [e for r in records for e in r.content_events if e.n_tokens is None]
    counted = [e for r in records for e in r.content_events if e.n_tokens is not None]
    if counted and all(e.n_tokens == 1 for e in counted):
        worth = max(TOKEN_CHARS, max(len(e.text) for e in counted))
        longest = max(len(e.text) for e in bare)
        over = [r.label for r in records if usage_tokens(r) is not None and len(r.content_events) > usage_tokens(r)]
        if longest <= worth and not over:
            why = (f"{len(bare)} of {fmt.count(events, 'event')} carry no logprobs (llama.cpp gives none for a verify "
                   f"step's tokens); the {len(counted)} that do carry one token each and none without "
                   f"holds more text than a token ({longest} characters at most, {worth} allowed), so each is read "
                   "as one token")
            reading = _per_token(records, why)
            reading.inferred = why
            return reading
        why = (f"{fmt.count(len(over), 'request')} {'shows' if len(over) == 1 else 'show'} more events than "
               "their usage counts tokens" if over else
               f"an event without logprobs holds {longest} characters, more than a token's worth ({worth})")
        return StyleReading(UNKNOWN_COUNTS, False, f"{len(bare)} of {fmt.count(events, 'event')} carry no logprobs and {why}, "
                                                   "so the steps cannot be read")
    if not counted:
        usage = [usage_tokens(r) for r in records]
        if all(u is not None for u in usage) and sum(usage) == events:
            return _per_token(records, "no logprobs, but the usage counts one token per event")
        return StyleReading(UNKNOWN_COUNTS, False,
                            f"the stream gives no per-event token counts (no logprobs) and its {fmt.count(events, 'event')} do not "
                            "match the usage one to one, so the steps cannot be read")
    return StyleReading(UNKNOWN_COUNTS, False,
                        f"{len(bare)} of {fmt.count(events, 'event')} carry no logprobs while others carry several tokens, so "
                        "the uncounted ones cannot be read")


def usage_tokens(record: RequestRecord) -> int | None:
    """usage.completion_tokens when the server gave a whole, non-negative number."""
    value = (record.usage or {}).get("completion_tokens")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return None
    return int(value)


def silent_tokens(record: RequestRecord) -> int:
    """Tokens the usage counts beyond the content events' tokens (no content event of their own); none where the
    events' counts are not known (several tokens a chunk: the usage times the stream, model.probe.output_timing)."""
    usage = usage_tokens(record)
    if usage is not None and not counts_given(record):
        return 0
    seen = sum(e.n_tokens or 1 for e in record.content_events)
    return max(usage - seen, 0) if usage is not None else 0


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


def request_groups(record: RequestRecord, style: StyleReading) -> list[Group]:
    """The steps of one request as read, in order, with the arrival of each one's first event."""
    events = record.content_events
    if not events:
        return []
    if style.style == PER_TOKEN_GAPS and style.gap_threshold_s is not None:
        groups = [Group(events[0].n_tokens or 1, events[0].t)]
        for before, after in zip(events, events[1:]):
            n = after.n_tokens or 1
            if after.t - before.t < style.gap_threshold_s:
                groups[-1].size += n
            else:
                groups.append(Group(n, after.t))
        return groups
    return [Group(e.n_tokens or 1, e.t) for e in events]


def request_steps(record: RequestRecord, style: StyleReading) -> list[int]:
    """Tokens per step of one request, in order."""
    return [g.size for g in request_groups(record, style)]


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


def read_steps(records: Sequence[RequestRecord], style: StyleReading, k: int | None = None,
               judge: bool = True) -> StepReading:
    """Steps of these requests; ``k`` given (the estimate over all classes) or estimated from them.

    In a stream grouped by its gaps, the groups a late read may have merged are left out of the
    sizes, K and alpha (model.probe.merges); too many of them make the reading unreliable (``judge``:
    a class's reading leaves that to the run's).
    """
    per_request = [(r, request_groups(r, style)) for r in records if r.ok]
    reading = StepReading(groups=per_request)
    reading.silent_tokens = sum(silent_tokens(r) for r, _ in per_request)
    reading.silent_requests = sum(1 for r, _ in per_request if silent_tokens(r))
    if style.style == PER_TOKEN_GAPS:
        run_decode = merges.decode_time([gs for _, gs in per_request])
        for r, gs in per_request:
            merges.flag_by_timing(gs, r.stalls, run_decode, r.clock == "kernel", r.t_first_payload)
            reading.joined += merges.join_splits(gs, run_decode)
    clean = [g.size for _, gs in per_request for g in gs if not g.suspect]
    reading.sizes = clean
    if not style.steps_visible or not clean:
        return reading
    reading.k_estimate = k if k is not None else estimate_k(clean)
    if style.style == PER_TOKEN_GAPS and reading.k_estimate:
        for _, gs in per_request:
            merges.flag_by_size(gs, reading.k_estimate)
        reading.sizes = [g.size for _, gs in per_request for g in gs if not g.suspect]
    reading.merged_note = merges.describe([gs for _, gs in per_request])
    reading.unreliable = judge and merges.unreliable([gs for _, gs in per_request])
    if judge and not reading.unreliable:
        reading.material_note = merges.material_note([gs for _, gs in per_request])
    reading.histogram = [int(x) for x in np.bincount(np.asarray(reading.sizes, dtype=np.int64))]
    if reading.unreliable:  # no K and no alpha from this timing: say so instead (analysis)
        reading.k_estimate = None
        return reading
    if reading.k_estimate:
        for record, gs in per_request:
            reading.full_sizes.extend(full_steps(record, gs, reading.k_estimate))
    return reading


def full_steps(record: RequestRecord, steps: Sequence[Group | int], k: int, skip: int = 0) -> list[int]:
    """The steps that started with room for K + 1 tokens, did not end the text and were read whole.

    A request with silent tokens may have had its last visible step cut short by them: left out too.
    The first ``skip`` steps are left out, their tokens still counted against the budget.
    """
    out: list[int] = []
    emitted = 0
    cut_by_silence = silent_tokens(record) > 0
    for i, step in enumerate(steps):
        group = step if isinstance(step, Group) else Group(int(step), 0.0)
        last = i == len(steps) - 1
        ends_text = last and (record.finish_reason != "length" or cut_by_silence)
        if i >= skip and record.max_tokens - emitted >= k + 1 and not ends_text and not group.suspect:
            out.append(group.size)
        emitted += group.size
    return out
