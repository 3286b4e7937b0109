"""What the server reports about its own speculation, per class, read by model.engines.reports.

Each request's raw fields (kept as given in the run file) go through `speculation_from_response`,
which knows every engine's names and conventions; the class's requests are added up with `combine`,
and the counts give per-token alpha (the ML rule on the histogram where the engine gives one).
A field an engine filled with something unreadable is left out and said, never guessed at.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from model.engines.reports import ReportError, SpecCounts, combine, with_k
from model.engines.responses import speculation_from_response
from model.probe.events import RequestRecord
from model.probe.merges import Group, seen_whole
from model.probe.steps import silent_tokens, usage_tokens
from model.common import formatting as fmt

K_MAX = 64
STEPS_SEEN_NOTE = ("draft tokens and accepted drafts from the server, no K or step count (llama.cpp's timings): the "
                   "steps the client saw whole give the drafting steps and, where the token budget's drafts add up to "
                   "the server's, the rejections; a request not seen whole counts draft tokens / K steps")
K_MATCH = 0.02  # the predicted draft tokens must match the server's to this share (or one token)


# the end-of-text token itself may be silent (an end-of-turn marker counts in the usage, sends no text)
SILENT_END = 1


def held_back(record: RequestRecord) -> int:
    """The most tokens the stream's characters can hide: a character of n UTF-8 bytes may have been split over
    n tokens, the first n - 1 sending nothing (llama.cpp's server holds a token that ends mid-character back and
    sends its text with the next one's: docs/reference/engine-formats.md#what-a-real-llama-server-sends)."""
    return sum(len(ch.encode("utf-8", "surrogatepass")) - 1 for e in record.content_events for ch in e.text)


def past_the_text(record: RequestRecord) -> bool:
    """The server's counts cover tokens after the end of the text: silent tokens beyond the end-of-text token
    on a request that ran on to its token budget (a model running on after its end marker: serve-demo's
    `--silent-tokens`).

    The drafts of that tail (the draft predicting the target's filler) are no part of the class's text, and
    nothing in the response says how many of the server's draft tokens and accepted drafts they took: the
    request's reported counts are left out (the timing reading already keeps the silent tokens out).

    A request that stopped ran on past nothing: its silent tokens are its end-of-text token and tokens inside
    its text. Those inside the text are characters split over tokens (held_back); only silent tokens beyond
    the end token and all a request's characters could hide are a tail."""
    return record.finish_reason == "length" and silent_tokens(record) > SILENT_END + held_back(record)


def text_only(records: Sequence[RequestRecord]) -> list[RequestRecord]:
    """The requests whose reported counts are about their text alone (see past_the_text)."""
    return [r for r in records if not past_the_text(r)]


def response_body(record: RequestRecord) -> dict[str, Any]:
    """The parts of a streamed response that engines put their figures in, as one response body."""
    body: dict[str, Any] = {k: v for k, v in record.reported.items() if k not in ("headers", "completion_tokens_details")}
    if "completion_tokens_details" in record.reported:
        body["usage"] = {"completion_tokens_details": record.reported["completion_tokens_details"]}
    return body


def seen_steps(record: RequestRecord, counts: SpecCounts, groups: Sequence[Group] | None,
               k: int) -> tuple[SpecCounts, bool] | None:
    """Draft and accepted tokens with no step count (llama.cpp's timings) completed by the steps the client saw
    whole, and whether the first step drafted (llama.cpp's first token is the prompt pass's; serve-demo drafts
    from the first step); None where it did not see them whole.

    Read as they were, SpecCounts takes draft tokens / K for the drafting steps, too few where drafts were cut
    short (near the token budget), so E and alpha came out high. Every step emits one target token, so the
    server's steps are its tokens less its accepted drafts. Seen whole, each step's accepted drafts are its
    tokens less one and the token budget says what it drafted (step_drafts, the first step drafting or not, as
    the counts fit): the drafting steps and their histogram, and where those drafts add up to the server's its
    rejections exactly (a step accepting fewer than it drafted); SpecCounts' rejection_range bounds them
    otherwise."""
    steps = server_steps(record, counts)
    if steps is None or not groups or len(groups) != steps or silent_tokens(record) or not seen_whole(groups):
        return None
    drafted_total = float(counts.draft_tokens or 0.0)
    took = [g.size - 1 for g in groups]
    plans = sorted(((step_drafts(record, groups, k, first), first) for first in (False, True)),
                   key=lambda plan: abs(sum(plan[0]) - drafted_total))
    for drafted, first in plans:
        own = [(a, d) for a, d in zip(took, drafted) if d > 0]
        if any(a for a, d in zip(took, drafted) if d == 0) or any(a > d for a, d in own) \
                or sum(a for a, _ in own) != counts.accepted:
            continue  # tokens where this plan drafted none, or more accepted than drafted: not how it ran
        hist = [0.0] * (k + 1)
        for a, _ in own:
            hist[a] += 1.0
        exact = sum(d for _, d in own) == drafted_total
        return replace(counts, drafts=float(len(own)), histogram=tuple(hist),
                       rejections=float(sum(a < d for a, d in own)) if exact else None), first
    return None


def server_steps(record: RequestRecord, counts: SpecCounts) -> int | None:
    """The server's verify steps where it gives draft tokens but no step count: its tokens less its accepted
    drafts (each step emits one token of the target's own); None where that cannot be had."""
    tokens, accepted = usage_tokens(record), counts.accepted
    if counts.drafts is not None or counts.draft_tokens is None or tokens is None or accepted is None:
        return None
    steps = int(round(tokens - accepted))
    return steps if steps >= 1 else None


def counts_at_k(records: Sequence[RequestRecord], k: int,
                groups: Mapping[int, list[Group]] | None = None) -> list[SpecCounts]:
    """Each readable response's counts, a source that gives no K read at the run's K, with its drafting steps
    from the client's view where it saw them whole (seen_steps). A request it did not see whole (steps merged by
    a late read, silent tokens) keeps the source's own reading, draft tokens / K steps: nothing tells which of
    its steps drafted (the prompt pass, the last near the budget), and a guess read alpha further off."""
    out = []
    for r in text_only(records):
        try:
            counts = speculation_from_response(response_body(r), r.reported.get("headers"))
        except ReportError:
            continue  # reported_acceptance says so
        if counts is None:
            continue
        if counts.k is None:
            counts = with_k(counts, k)
            seen = seen_steps(r, counts, (groups or {}).get(id(r)), k)
            # drafts given either way, so the class's requests add up to one step count
            counts = (replace(seen[0], convention_note=STEPS_SEEN_NOTE) if seen is not None
                      else replace(counts, drafts=counts.steps))
        out.append(counts)
    return out


def steps_of(reading: Any) -> dict[int, list[Group]]:
    """A StepReading's steps per request, keyed as counts_at_k looks them up (None: no reading, no steps)."""
    return {id(record): gs for record, gs in reading.groups} if reading is not None else {}


def reported_acceptance(records: Sequence[RequestRecord], k: int | None = None,
                        groups: Mapping[int, list[Group]] | None = None) -> tuple[SpecCounts | None, str | None]:
    """The counts summed over the requests that carried them (None if none did), and a problem in words.
    With `k` (the run's) and the client's steps per request (`groups`, keyed by id of the record), a source
    that gives no K is read at it (counts_at_k). A request whose counts run past its text (past_the_text) is
    left out."""
    parts: list[SpecCounts] = []
    problem = None
    records = text_only(records)
    for r in records:
        try:
            counts = speculation_from_response(response_body(r), r.reported.get("headers"))
        except ReportError as exc:
            problem = f"{r.label}: {exc}"
            continue
        if counts is not None:
            parts.append(counts)
    if not parts:
        return None, problem
    try:
        total = combine(parts)
    except ReportError as exc:
        return None, str(exc)
    if k is not None and total.k is None:
        try:  # llama.cpp reports draft tokens but no K: the run's K and the steps seen convert them
            total = combine(counts_at_k(records, k, groups))
        except ReportError as exc:
            problem = str(exc)  # kept without K: its draft acceptance rate still stands
    return total, problem


def convention(counts: SpecCounts) -> str:
    """The engine's own figures and convention, beside the per-token alpha they convert to."""
    own = ", ".join(f"{k} {v}" for k, v in counts.engine_values.items())
    parts = [f"{counts.engine}"]
    if counts.draft_acceptance_rate is not None:
        parts.append(f"draft acceptance rate {counts.draft_acceptance_rate:.3f}")
    if counts.mean_acceptance_length is not None:
        parts.append(f"mean acceptance length {counts.mean_acceptance_length:.2f} (bonus token counted)")
    if counts.alpha is not None:
        parts.append(f"per-token alpha {counts.alpha:.3f} at K={counts.k}")
    text = "; ".join(parts)
    if own:
        text += f" (engine's own: {own})"
    return text + (f". {counts.convention_note}" if counts.convention_note else "")


@dataclass(frozen=True)
class ServerK:
    """K from the server's draft tokens and the steps the client saw, or why it cannot be had."""

    k: int | None
    mean_drafts: float | None  # draft tokens / steps seen
    text: str


def step_drafts(record: RequestRecord, groups: Sequence[Group], k: int, first_drafts: bool) -> list[int]:
    """Each step's draft tokens if it drafted a full K where the token budget left room for K + 1 tokens
    (an engine drafts at most what the budget leaves room for, minus its own token)."""
    out, emitted = [], 0
    for i, g in enumerate(groups):
        out.append(max(min(k, record.max_tokens - emitted - 1), 0) if i or first_drafts else 0)
        emitted += g.size
    return out


def _predicted_drafts(requests: Sequence[tuple[RequestRecord, list[Group], float]], k: int, first_drafts: bool) -> int:
    return sum(sum(step_drafts(record, groups, k, first_drafts)) for record, groups, _ in requests)


def k_from_server(groups: Sequence[tuple[RequestRecord, list[Group]]]) -> ServerK | None:
    """Where the server reports draft tokens but no K (llama.cpp's timings.draft_n): K = draft tokens over
    drafting steps. Every step emits one token of the target's own, so a request's steps are its tokens
    minus its accepted drafts (usage.completion_tokens - draft_n_accepted, silent tokens included); the
    requests whose steps the client saw, all of them, one by one, say where each step began, and so how
    many drafts the token budget left room for. None when no request reports draft tokens without a K."""
    drafting: list[tuple[RequestRecord, list[Group], float, int | None]] = []
    for record, gs in groups:
        try:
            counts = speculation_from_response(response_body(record), record.reported.get("headers"))
        except ReportError:
            continue
        if counts is not None and counts.k is None and counts.draft_tokens is not None and counts.draft_tokens > 0:
            drafting.append((record, gs, float(counts.draft_tokens), server_steps(record, counts)))
    if not drafting:
        return None
    counted = [(d, n) for _, _, d, n in drafting if n is not None]
    mean = sum(d for d, _ in counted) / sum(n for _, n in counted) if counted else None
    seen = [(r, gs, d) for r, gs, d, n in drafting
            if gs and n == len(gs) and not silent_tokens(r) and seen_whole(gs)]
    if seen:
        drafted = sum(d for _, _, d in seen)
        miss, k, first = min(((abs(_predicted_drafts(seen, k, first) - drafted), k, first)
                              for k in range(1, K_MAX + 1) for first in (True, False)))
        if miss <= max(1.0, K_MATCH * drafted):
            how = "every step" if first else "every step after the first (which the prompt pass emits)"
            return ServerK(k, mean, f"K = {k}: the server's {drafted:g} draft tokens over the "
                                    f"{fmt.count(sum(len(gs) for _, gs, _ in seen), 'step')} the client saw whole in "
                                    f"{fmt.count(len(seen), 'request')} match {how} drafting K where the token budget "
                                    "left room")
    if mean is None:
        return ServerK(None, None, "the server reports draft tokens but no K, and no usage to count its steps by, "
                                   "so the number of drafting steps is missing")
    return ServerK(None, mean, f"the server's draft tokens over its steps (tokens minus accepted drafts) give "
                               f"{mean:.2f} drafts per step" + ("" if seen else ", and the client saw no request's "
                               "steps whole to place them") + "; drafts vary in length (near the token budget, the "
                               "prompt pass, llama.cpp's --draft-p-min), so K is at least "
                               f"{math.ceil(mean - 1e-9)}")
