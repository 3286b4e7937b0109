"""Anthropic's Messages API (`POST {base}/messages`), as its API reference streams it: the key in `x-api-key`,
`anthropic-version` (and, for some models' fast mode, `anthropic-beta`) headers; `"speed": "fast"` in the body
asks for the fast mode. Named events whose data repeats the name in `type`: `message_start` (the message, its
usage), `content_block_start` / `content_block_delta` (text in a `text_delta`) / `content_block_stop`,
`message_delta` (stop reason, the cumulative `usage.output_tokens`), `ping`, `error` (e.g. `overloaded_error`)
and `message_stop`. `usage.speed` says the speed that served the request ("fast" or "standard").
No logprobs exist in this API, so its events never say how many tokens they hold."""
from __future__ import annotations

from typing import Any, Mapping

from model.probe.apis.dialect import ANTHROPIC_MESSAGES, Dialect, StreamError, add_text, served, take_usage
from model.probe.apis.openai_chat import error_words
from model.probe.events import RequestRecord

VERSION = "2023-06-01"  # the anthropic-version the reference documents; a --header replaces it
STOP_REASONS = {"max_tokens": "length", "end_turn": "stop", "stop_sequence": "stop"}


class AnthropicMessages(Dialect):
    name = ANTHROPIC_MESSAGES
    path = "/messages"
    what = "Messages API"
    end_event = "message_stop"
    reserved = ("model", "messages", "stream")
    shows_steps = False  # no logprobs in this API, several tokens an event

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"x-api-key": key}

    def default_headers(self) -> dict[str, str]:
        return {"anthropic-version": VERSION}

    def body(self, extra: Mapping[str, Any], model: str, messages: list[dict[str, Any]], max_tokens: int,
             logprobs: bool, seed: int = 0) -> dict[str, Any]:
        system = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
        body: dict[str, Any] = dict(extra)
        body.update({"model": model, "messages": [m for m in messages if m.get("role") != "system"],
                     "max_tokens": max_tokens, "stream": True})
        if system:
            body["system"] = system
        body.setdefault("temperature", 0)
        return body

    def read(self, record: RequestRecord, data: dict[str, Any], t: float) -> bool:
        kind = data.get("type")
        if kind == "error":
            raise StreamError(error_words(data.get("error")))
        if kind == "content_block_delta":
            delta = data.get("delta") if isinstance(data.get("delta"), dict) else {}
            if delta.get("type") == "text_delta":
                add_text(record, delta.get("text", ""), None, t)
            return False
        if kind == "message_start":
            message = data.get("message") if isinstance(data.get("message"), dict) else {}
            if record.response_id is None and isinstance(message.get("id"), str):
                record.response_id = message["id"][:200]
            self._usage(record, message.get("usage"))
        elif kind == "message_delta":
            self._usage(record, data.get("usage"))
            reason = (data.get("delta") or {}).get("stop_reason")
            if reason:
                record.finish_reason = STOP_REASONS.get(str(reason), str(reason)[:40])
        return kind == "message_stop"

    @staticmethod
    def _usage(record: RequestRecord, usage: Any) -> None:
        take_usage(record, usage, "output_tokens", "input_tokens")
        if isinstance(usage, dict):
            served(record, usage.get("speed"))

    def is_end(self, payload: str) -> bool:
        return len(payload) < 64 and "message_stop" in payload
