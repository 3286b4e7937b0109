"""How one request's output is timed: by its events' token counts where the stream gives them, else by the
usage's token count over the stream's duration; never by counting events as tokens
(docs/design/vendor-speed.md#speed-from-what-the-vendor-counts).

- "events": every content event says how many tokens it holds (logprobs), or the stream shows one token an event
  (the usage counts exactly the events, or llama.cpp's pattern: the counted events hold one token each and none
  without counts holds more than a token's text). Tokens the usage counts beyond them are silent (special
  tokens after the last content event) and fall outside the span.
- "usage": the events' token counts are not given and do not match the usage one to one (several tokens a
  chunk, as closed vendors stream). The usage's output tokens, less the first event's share of the text, are
  the tokens after the first, over the time from the first content event to the last.
- "untimed": fewer than two content events, or a zero span: no decode speed from this request.

Output speed of a request (the SLA's definition): tokens after the first over the time from the first content
to the last. End to end beside it: all output tokens over the time from sending the request to the last content.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from model.probe.events import RequestRecord

EVENTS, USAGE, UNTIMED = "events", "usage", "untimed"
# an event without logprobs reads as one token when its text is no longer than the longest counted single
# token or this many characters (model.probe.steps.TOKEN_CHARS, the same rule)
TOKEN_CHARS = 16


def usage_output_tokens(record: RequestRecord) -> int | None:
    """The usage's output tokens (completion_tokens, or output_tokens where the API names them so)."""
    usage = record.usage or {}
    for name in ("completion_tokens", "output_tokens"):
        value = usage.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
            return int(value)
    return None


def counts_given(record: RequestRecord) -> bool:
    """Whether the request's content events say how many tokens each holds, or show one token an event."""
    events = record.content_events
    counts = [e.n_tokens for e in events]
    if all(c is not None for c in counts):
        return True
    usage = usage_output_tokens(record)
    if usage is None or usage <= sum(c or 1 for c in counts):
        return True  # one token an event (no usage to say otherwise, or the usage says so)
    counted = [e for e in events if e.n_tokens is not None]
    if counted and all(e.n_tokens == 1 for e in counted):
        worth = max(TOKEN_CHARS, max(len(e.text) for e in counted))
        # llama.cpp: logprobs on some tokens only, the rest one token an event, silent ones after
        return max(len(e.text) for e in events if e.n_tokens is None) <= worth
    return False


def timed_by(record: RequestRecord) -> str:
    """How this request's output is timed: EVENTS, USAGE or UNTIMED (see the module's docstring)."""
    events = record.content_events
    if not record.ok or len(events) < 2 or events[-1].t <= events[0].t:
        return UNTIMED
    return EVENTS if counts_given(record) else USAGE


@dataclass(frozen=True)
class OutputTiming:
    how: str  # EVENTS, USAGE or UNTIMED
    decode_tokens: float  # tokens after the first content event (USAGE: estimated by the first event's text share)
    span_s: float  # first content event to the last
    tokens: int  # output tokens in all (the usage's where given)
    last_s: float | None  # the last content event, seconds after the request was sent

    @property
    def tokens_per_s(self) -> float | None:
        """Output speed: tokens after the first over the time from the first content to the last."""
        return self.decode_tokens / self.span_s if self.how != UNTIMED and self.span_s > 0 else None

    @property
    def end_to_end_tokens_per_s(self) -> float | None:
        """All output tokens over the time from sending the request to its last content."""
        return self.tokens / self.last_s if self.last_s and self.last_s > 0 and self.tokens else None


def output_timing(record: RequestRecord) -> OutputTiming:
    events = record.content_events
    how = timed_by(record)
    usage = usage_output_tokens(record)
    seen = sum(e.n_tokens or 1 for e in events)
    last = events[-1].t if events else None
    if how == UNTIMED:
        return OutputTiming(how, 0.0, 0.0, usage if usage is not None else seen, last)
    span = events[-1].t - events[0].t
    if how == EVENTS:
        # silent tokens (counted in the usage, no event: llama.cpp's special tokens) fall after the span
        shown = min(usage, seen) if usage is not None else seen
        return OutputTiming(how, float(shown - (events[0].n_tokens or 1)), span,
                            usage if usage is not None else seen, last)
    assert usage is not None
    chars = sum(len(e.text) for e in events)
    first_share = len(events[0].text) / chars if chars else 1.0 / len(events)
    return OutputTiming(how, usage * (1.0 - first_share), span, usage, last)


TIMING_WORDS = ("events: the stream's own token counts (logprobs, or one token an event); usage: the usage's output "
                "tokens over the time from the first content event to the last (several tokens an event, no counts); "
                "never events counted as tokens")


def timing_counts(records: Sequence[RequestRecord]) -> dict[str, int]:
    """How many of the completed requests were timed each way."""
    out = {EVENTS: 0, USAGE: 0, UNTIMED: 0}
    for r in records:
        if r.ok:
            out[timed_by(r)] += 1
    return out


def request_timings(records: Sequence[RequestRecord]) -> list[dict[str, object]]:
    """Per completed request: how it was timed, its output speed and end-to-end speed, and the tier its response
    named (`probe --json`'s `request_timing`)."""
    out: list[dict[str, object]] = []
    for r in records:
        if not r.ok:
            continue
        timing = output_timing(r)
        speed, e2e = timing.tokens_per_s, timing.end_to_end_tokens_per_s
        out.append({"request": r.label, "role": r.role, "timed_by": timing.how, "output_tokens": timing.tokens,
                    "tokens_per_s": round(speed, 3) if speed is not None else None,
                    "end_to_end_tokens_per_s": round(e2e, 3) if e2e is not None else None,
                    "served_tier": r.served_tier})
    return out
