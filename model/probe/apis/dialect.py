"""What an API dialect gives the streaming client: where to send, how the key goes, the body, one event read.

A dialect's `read` takes one SSE payload's JSON and fills the record: content events (text, and the token count
where the API says it), the usage (its output tokens also as `completion_tokens`, its input tokens as
`prompt_tokens`, so every reader counts them one way), the finish reason, the response id and the tier the
response says served it (`served_tier`). It returns True at the stream's terminal event and raises StreamError
(one line, no request label: the client adds it) for an error the server sends inside the stream.
"""
from __future__ import annotations

from typing import Any, Mapping

from model.probe.events import RequestRecord, StreamEvent
from model.probe.guard import usage_problems
from model.workbook.field_spec import ENDPOINT_APIS

API_NAMES = ENDPOINT_APIS  # the workbook's list: a tier's endpoint is checked against the same names
OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC_MESSAGES = API_NAMES
DEFAULT_API = OPENAI_CHAT


class StreamError(ValueError):
    """An error the server reported inside a stream; str() is what it said, on one line."""


class Dialect:
    name = ""
    path = ""  # appended to the base URL
    what = ""  # the endpoint in words, for a 404
    end_event = ""  # the terminal event, for "the stream ended without ..."
    reserved: tuple[str, ...] = ()  # body fields the probe sets itself
    shows_steps = True  # whether its stream can show the verify steps (logprobs exist in the API)

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"authorization": f"Bearer {key}"}

    def default_headers(self) -> dict[str, str]:
        return {}

    def body(self, extra: Mapping[str, Any], model: str, messages: list[dict[str, Any]], max_tokens: int,
             logprobs: bool, seed: int = 0) -> dict[str, Any]:
        raise NotImplementedError

    def read(self, record: RequestRecord, data: dict[str, Any], t: float) -> bool:
        raise NotImplementedError

    def is_end(self, payload: str) -> bool:
        """A cheap look at a raw payload: the terminal event, after which nothing needs reading."""
        return False


def add_text(record: RequestRecord, text: Any, tokens: list[str] | None, t: float) -> None:
    if not isinstance(text, str):
        raise ValueError("a text delta is not a string")
    if text or tokens:
        record.events.append(StreamEvent(t, text, len(tokens) if tokens is not None else None, tokens))


def take_usage(record: RequestRecord, usage: Any, output: str, prompt: str) -> None:
    """Merge a usage object into the record (later counts win), its counts also under the chat names; impossible
    counts are dropped by name (model.probe.guard), as for chat completions."""
    if not isinstance(usage, dict):
        return
    merged = dict(record.usage or {})
    merged.update(usage)
    for theirs, ours in ((output, "completion_tokens"), (prompt, "prompt_tokens")):
        if theirs in usage:
            merged[ours] = usage[theirs]
    refused = usage_problems(merged)
    for item in refused:
        name = item.split(" = ")[0].split(".", 1)[1]
        merged.pop(name, None)
        merged.pop({"completion_tokens": output, "prompt_tokens": prompt}.get(name, name), None)
    if refused:
        record.reported.setdefault("refused_fields", []).extend(refused)
    record.usage = merged


def served(record: RequestRecord, value: Any) -> None:
    """The tier the response names (OpenAI's service_tier, Anthropic's usage.speed), kept as text."""
    if isinstance(value, str) and value:
        record.served_tier = value[:40]
