"""What one streamed request recorded, raw: the run file holds these, the analysis reads only these.

Times are seconds on a monotonic clock from the moment the request was sent, so a run file
says nothing about the wall clock except its date, and two requests compare on equal terms.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

FAST, BASELINE = "fast", "baseline"


@dataclass
class StreamEvent:
    t: float  # arrival, seconds after the request was sent (monotonic clock)
    text: str  # the content delta
    n_tokens: int | None  # from the logprobs entries; None when the stream does not say
    tokens: list[str] | None = None  # the token strings from logprobs, for the identity check
    # at a temperature above 0, per token: the top tokens' log-probabilities as the stream gave them, and the chosen
    # token's index among them (-1: not among them); None when the stream gave no top_logprobs (the quality test's)
    top: list[list[float]] | None = None
    ranks: list[int] | None = None


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
    # the prompt's text digest (ProbePrompt.key): the interval's unit; None in a run file from before it was kept
    prompt_key: str | None = None
    # what the events' times are: "kernel", when each chunk's bytes reached the machine (SO_TIMESTAMPNS), however
    # late the reader got to them; "loop", when the event loop was handed them; None: not said (an older run file)
    clock: str | None = None
    # when the stream's first payload arrived (often a chunk with the role and no content, before the first token)
    t_first_payload: float | None = None
    # the tier the response says served it (OpenAI's service_tier, Anthropic's usage.speed); None where it says none
    served_tier: str | None = None
    temperature: float | None = None  # what the request asked for; None: 0 (a run file from before it was kept)

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
        """A record from a run file line; a damaged one raises ValueError naming the field."""
        for name, kinds in _FIELD_TYPES.items():
            if name in data and data[name] is not None and not _is(data[name], kinds):
                raise ValueError(f"field {name!r} should be {_KIND_WORDS[kinds]}, not {type(data[name]).__name__}")
        for name in ("label", "role", "task_class", "max_tokens"):
            if name not in data:
                raise ValueError(f"field {name!r} is missing")
        raw_events = data.get("events") or []
        if not isinstance(raw_events, list):
            raise ValueError("field 'events' should be a list")
        events = []
        for i, e in enumerate(raw_events):
            if not isinstance(e, dict) or not _is(e.get("t"), (int, float)) or not math.isfinite(e["t"]):
                raise ValueError(f"events[{i}] should be an object with a number 't'")
            n, tokens = e.get("n_tokens"), e.get("tokens")
            if not isinstance(e.get("text", ""), str) or not (n is None or _is(n, (int,))) or not (
                    tokens is None or (isinstance(tokens, list) and all(isinstance(x, str) for x in tokens))):
                raise ValueError(f"events[{i}]: 'text' should be text, 'n_tokens' a whole number, 'tokens' a list of text")
            events.append(StreamEvent(float(e["t"]), e.get("text", ""), n, tokens, *_top_and_ranks(e, i)))
        stalls = data.get("stalls")
        if stalls is not None and not (isinstance(stalls, list) and all(
                isinstance(x, list) and len(x) == 2 and all(_is(v, (int, float)) for v in x) for x in stalls)):
            raise ValueError("field 'stalls' should be a list of [end, seconds] pairs")
        data = dict(data, stalls=[[float(a), float(b)] for a, b in stalls] if stalls is not None else None)
        known = {k: data[k] for k in ("label", "role", "task_class", "prompt_index", "context", "repeat",
                                       "max_tokens", "t_headers", "t_done", "finish_reason", "usage",
                                       "reported", "error", "retries", "response_id", "stalls", "concurrency", "throttled",
                                       "prompt_key", "clock", "t_first_payload", "served_tier", "temperature")
                 if k in data}
        if known.get("reported") is None:
            known["reported"] = {}
        return cls(events=events, **known)


def _top_and_ranks(e: dict[str, Any], i: int) -> tuple[list[list[float]] | None, list[int] | None]:
    top, ranks = e.get("top"), e.get("ranks")
    if top is None and ranks is None:
        return None, None
    if not (isinstance(top, list) and isinstance(ranks, list) and len(top) == len(ranks)
            and all(isinstance(row, list) and all(_is(v, (int, float)) and math.isfinite(v) for v in row) for row in top)
            and all(_is(r, (int,)) for r in ranks)):
        raise ValueError(f"events[{i}]: 'top' should be lists of numbers and 'ranks' whole numbers, one each a token")
    return [[float(v) for v in row] for row in top], list(ranks)


def _is(value: Any, kinds: tuple[type, ...]) -> bool:
    return isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool))


_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "label": (str,), "role": (str,), "task_class": (str,), "prompt_index": (int,), "context": (int,), "repeat": (int,),
    "max_tokens": (int,), "t_headers": (int, float), "t_done": (int, float), "finish_reason": (str,),
    "usage": (dict,), "reported": (dict,), "error": (str,), "retries": (int,), "response_id": (str,),
    "concurrency": (int,), "throttled": (bool, int), "prompt_key": (str,), "clock": (str,),
    "t_first_payload": (int, float), "served_tier": (str,), "temperature": (int, float)}
_KIND_WORDS = {(str,): "text", (int,): "a whole number", (int, float): "a number", (dict,): "an object",
               (bool, int): "true or false"}
