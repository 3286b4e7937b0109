"""What one streamed request recorded, raw: the run file holds these, the analysis reads only these.

Times are seconds on a monotonic clock from the moment the request was sent, so a run file
says nothing about the wall clock except its date, and two requests compare on equal terms.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

FAST, BASELINE = "fast", "baseline"


@dataclass
class StreamEvent:
    t: float  # arrival, seconds after the request was sent (monotonic clock)
    text: str  # the content delta
    n_tokens: int | None  # from the logprobs entries; None when the stream does not say
    tokens: list[str] | None = None  # the token strings from logprobs, for the identity check


@dataclass
class RequestRecord:
    label: str  # names the request in messages: "fast code #3 8K r1"
    role: str  # FAST or BASELINE
    task_class: str
    prompt_index: int
    context: int  # filler tokens in front of the prompt (0 for none)
    repeat: int
    max_tokens: int
    events: list[StreamEvent] = field(default_factory=list)
    t_headers: float | None = None
    t_done: float | None = None
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    reported: dict[str, Any] = field(default_factory=dict)  # speculation fields as the server gave them
    error: str | None = None
    retries: int = 0
    response_id: str | None = None  # the server's id for the completion, to match its own logs
    # the client's own late wake-ups while it read, [end, seconds]; None: not measured (an older run file)
    stalls: list[list[float]] | None = None
    concurrency: int = 1  # parallel streams the probe kept open on this tier while this one ran
    throttled: int = 0  # 429 answers this request met before it was served (each retried)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def content_events(self) -> list[StreamEvent]:
        return [e for e in self.events if e.text or (e.n_tokens or 0) > 0]

    @property
    def output_text(self) -> str:
        return "".join(e.text for e in self.events)

    @property
    def output_tokens(self) -> list[str] | None:
        """The token strings when every content event carried its logprobs, else None."""
        out: list[str] = []
        for e in self.content_events:
            if e.tokens is None:
                return None
            out.extend(e.tokens)
        return out

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RequestRecord":
        events = [StreamEvent(float(e["t"]), str(e.get("text", "")), e.get("n_tokens"), e.get("tokens"))
                  for e in data.get("events", [])]
        stalls = data.get("stalls")
        data = dict(data, stalls=[[float(a), float(b)] for a, b in stalls] if isinstance(stalls, list) else None)
        known = {k: data[k] for k in ("label", "role", "task_class", "prompt_index", "context", "repeat",
                                       "max_tokens", "t_headers", "t_done", "finish_reason", "usage",
                                       "reported", "error", "retries", "response_id", "stalls", "concurrency", "throttled") if k in data}
        return cls(events=events, **known)
