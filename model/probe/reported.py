"""What the server reports about its own speculation, per class, read by model.engine_reports.

Each request's raw fields (kept as given in the run file) go through `speculation_from_response`,
which knows every engine's names and conventions; the class's requests are added up with `combine`,
and the counts give per-token alpha (the ML rule on the histogram where the engine gives one).
A field an engine filled with something unreadable is left out and said, never guessed at.
"""
from __future__ import annotations

from typing import Any, Sequence

from model.engine_reports import ReportError, SpecCounts, combine, speculation_from_response
from model.probe.events import RequestRecord


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
