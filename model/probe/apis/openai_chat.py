"""Chat Completions (`POST {base}/chat/completions`), as OpenAI's API reference streams it: `data:` chunks with
`choices[].delta.content`, logprobs where asked for (their count is an event's exact token count), the usage in
a last chunk (`stream_options.include_usage`), `service_tier` naming the tier that served the request, `[DONE]`."""
from __future__ import annotations

from typing import Any, Mapping

from model.probe.apis.dialect import OPENAI_CHAT, Dialect, StreamError, served
from model.probe.events import RequestRecord, StreamEvent
from model.probe.guard import usage_problems
from model.probe.top_logprobs import top_and_ranks

# response fields where engines put their own speculation figures (kept raw, read by `reported`)
REPORTED_FIELDS = ("metrics", "meta_info", "timings", "request_perf_metrics")


class OpenAIChat(Dialect):
    name = OPENAI_CHAT
    path = "/chat/completions"
    what = "chat completions"
    end_event = "[DONE]"
    reserved = ("model", "messages", "stream")

    def body(self, extra: Mapping[str, Any], model: str, messages: list[dict[str, Any]], max_tokens: int,
             logprobs: bool, seed: int = 0) -> dict[str, Any]:
        return request_body_fields(extra, model, messages, max_tokens, logprobs, seed)

    def read(self, record: RequestRecord, data: dict[str, Any], t: float) -> bool:
        if "error" in data:
            raise StreamError(error_words(data["error"]))
        read_chat_chunk(record, data, t)
        served(record, data.get("service_tier"))
        return False

    def is_end(self, payload: str) -> bool:
        return len(payload) < 16 and payload.strip() == "[DONE]"


def error_words(error: Any) -> str:
    """An error object as one line: its type or code, then its message."""
    if isinstance(error, dict):
        kind = error.get("type") or error.get("code") or ""
        message = error.get("message") or ""
        text = f"{kind}: {message}" if kind and message else str(kind or message or error)
    else:
        text = str(error)
    text = " ".join(text.split())
    return text[:200] if text else "an error with no message"


def request_body_fields(extra: Mapping[str, Any], model: str, messages: list[dict[str, Any]], max_tokens: int,
                        logprobs: bool, seed: int = 0) -> dict[str, Any]:
    """Chat Completions: temperature 0, a fixed seed, logprobs (their count is an event's exact token count), usage
    at the end."""
    body: dict[str, Any] = dict(extra)
    body.update({"model": model, "messages": messages, "stream": True, "max_tokens": max_tokens,
                 "stream_options": {"include_usage": True}})
    body.setdefault("temperature", 0)
    body.setdefault("seed", seed)
    if logprobs:
        body["logprobs"] = True
    return body


def read_chat_chunk(record: RequestRecord, data: dict[str, Any], t: float) -> None:
    if record.response_id is None and isinstance(data.get("id"), str):
        record.response_id = data["id"][:200]
    for name in REPORTED_FIELDS:
        if name in data:
            record.reported[name] = data[name]
    if isinstance(data.get("usage"), dict):
        record.usage = dict(data["usage"])
        refused = usage_problems(record.usage)
        if refused:  # impossible counts: the field is dropped for this request, and said
            record.reported.setdefault("refused_fields", []).extend(refused)
            for item in refused:
                record.usage.pop(item.split(" = ")[0].split(".", 1)[1], None)
        details = data["usage"].get("completion_tokens_details")
        if isinstance(details, dict):
            record.reported["completion_tokens_details"] = details
    for choice in data.get("choices") or []:
        if not isinstance(choice, dict):
            raise ValueError("a choice is not an object")
        delta = choice.get("delta") or {}
        text = delta.get("content") or ""
        if not isinstance(text, str):
            raise ValueError("delta.content is not a string")
        entries = (choice.get("logprobs") or {}).get("content")
        tokens = [str(e.get("token", "")) for e in entries] if isinstance(entries, list) else None
        # at a temperature, the top logprobs the quality test reads (model/probe/top_logprobs.py)
        top, ranks = top_and_ranks(entries) if tokens and (record.temperature or 0) > 0 else (None, None)
        if text or tokens:
            record.events.append(StreamEvent(t, text, len(tokens) if tokens is not None else None, tokens, top, ranks))
        if choice.get("finish_reason"):
            record.finish_reason = str(choice["finish_reason"])
