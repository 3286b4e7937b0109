"""What the server reports about its own speculation, per class, read by model.engine_reports.

Each request's raw fields (kept as given in the run file) go through `speculation_from_response`,
which knows every engine's names and conventions; the class's requests are added up with `combine`,
and the counts give per-token alpha (the ML rule on the histogram where the engine gives one).
A field an engine filled with something unreadable is left out and said, never guessed at.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from model.engine_reports import ReportError, SpecCounts, combine, speculation_from_response
from model.probe.events import RequestRecord
from model.probe.merges import Group
from model.probe.steps import silent_tokens, usage_tokens
from model import formatting as fmt

K_MAX = 64
K_MATCH = 0.02  # the predicted draft tokens must match the server's to this share (or one token)


def response_body(record: RequestRecord) -> dict[str, Any]:
    """The parts of a streamed response that engines put their figures in, as one response body."""
    body: dict[str, Any] = {k: v for k, v in record.reported.items() if k not in ("headers", "completion_tokens_details")}
    if "completion_tokens_details" in record.reported:
        body["usage"] = {"completion_tokens_details": record.reported["completion_tokens_details"]}
    return body


def reported_acceptance(records: Sequence[RequestRecord]) -> tuple[SpecCounts | None, str | None]:
    """The counts summed over the requests that carried them (None if none did), and a problem in words."""
    parts: list[SpecCounts] = []
    problem = None
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
        return combine(parts), problem
    except ReportError as exc:
        return None, str(exc)


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


def _predicted_drafts(requests: Sequence[tuple[RequestRecord, list[Group], float]], k: int, first_drafts: bool) -> int:
    """Draft tokens if every step drafted a full K where the token budget left room for K + 1 tokens
    (an engine drafts at most what the budget leaves room for, minus its own token)."""
    total = 0
    for record, groups, _ in requests:
        emitted = 0
        for i, g in enumerate(groups):
            if i or first_drafts:
                total += max(min(k, record.max_tokens - emitted - 1), 0)
            emitted += g.size
    return total


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
            tokens = usage_tokens(record)
            steps = int(round(tokens - counts.accepted)) if tokens is not None and counts.accepted is not None else None
            drafting.append((record, gs, float(counts.draft_tokens), steps if steps and steps > 0 else None))
    if not drafting:
        return None
    counted = [(d, n) for _, _, d, n in drafting if n is not None]
    mean = sum(d for d, _ in counted) / sum(n for _, n in counted) if counted else None
    seen = [(r, gs, d) for r, gs, d, n in drafting
            if gs and n == len(gs) and not silent_tokens(r) and not any(g.suspect for g in gs)]
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
