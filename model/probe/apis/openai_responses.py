"""The Responses API (`POST {base}/responses`), as OpenAI's API reference streams it: semantic events, each a
JSON object with its `type` (the SSE event name repeats it) and a `sequence_number`; the text in
`response.output_text.delta` (`delta`, and `logprobs`, one entry a token, where the request includes
`message.output_text.logprobs`); the stream ends with `response.completed`, or `response.incomplete` at the
token budget, whose `response` carries `usage.input_tokens` / `usage.output_tokens` and the `service_tier` that
served it; `response.failed` and `error` events report a failure. No `[DONE]`."""
from __future__ import annotations

from typing import Any, Mapping

from model.probe.apis.dialect import OPENAI_RESPONSES, Dialect, StreamError, add_text, served, take_usage
from model.probe.apis.openai_chat import error_words
from model.probe.events import RequestRecord

TERMINAL = ("response.completed", "response.incomplete")


class OpenAIResponses(Dialect):
    name = OPENAI_RESPONSES
    path = "/responses"
    what = "Responses API"
    end_event = "response.completed"
    reserved = ("model", "input", "stream")

    def body(self, extra: Mapping[str, Any], model: str, messages: list[dict[str, Any]], max_tokens: int,
             logprobs: bool, seed: int = 0) -> dict[str, Any]:
        body: dict[str, Any] = dict(extra)
        body.update({"model": model, "input": messages, "stream": True, "max_output_tokens": max_tokens})
        body.setdefault("temperature", 0)
        if logprobs:
            include = list(body.get("include") or [])
            body["include"] = include + ["message.output_text.logprobs"] * ("message.output_text.logprobs" not in include)
        return body

    def read(self, record: RequestRecord, data: dict[str, Any], t: float) -> bool:
        kind = data.get("type")
        if kind == "error":
            raise StreamError(error_words(data))
        if kind == "response.output_text.delta":
            entries = data.get("logprobs")
            tokens = [str(e.get("token", "")) for e in entries if isinstance(e, dict)] if entries else None
            add_text(record, data.get("delta", ""), tokens, t)
            return False
        response = data.get("response") if isinstance(data.get("response"), dict) else {}
        if record.response_id is None and isinstance(response.get("id"), str):
            record.response_id = response["id"][:200]
        if kind == "response.failed":
            raise StreamError(error_words(response.get("error") or "the response failed"))
        if kind in TERMINAL:
            take_usage(record, response.get("usage"), "output_tokens", "input_tokens")
            served(record, response.get("service_tier"))
            reason = (response.get("incomplete_details") or {}).get("reason")
            record.finish_reason = "length" if reason == "max_output_tokens" else str(reason or "stop")
            return True
        return False
