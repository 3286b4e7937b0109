"""A server that streams the way closed vendors document their fast modes: the probe's target for them.

`create_vendor_app(generate, ...)` builds a Starlette app with up to three endpoints (``apis``; serve-demo's
style serves its own API only, and any other path is a 404 in that vendor's error shape, as a real vendor answers
a wrong `--api`), each written from its vendor's public API reference:
- `POST /v1/chat/completions`: Chat Completions as a closed vendor streams it: several tokens a chunk, no
  logprobs (asked for or not), `service_tier` on every chunk, the usage chunk at the end;
- `POST /v1/responses`: the Responses API's semantic events (`response.output_text.delta`, ending in
  `response.completed` or, at the token budget, `response.incomplete`, with usage and `service_tier`);
- `POST /v1/messages`: Anthropic's Messages API (`x-api-key`, `anthropic-version`; named events from
  `message_start` to `message_stop`, `usage.output_tokens` in `message_delta`, `usage.speed`).

The fast tier is asked for in the body as each vendor has it (`service_tier` "priority" or "fast"; Anthropic's
`"speed": "fast"`); every model name is the same model at either speed. What streams is known exactly, so the
tests hold the probe to it (``VendorTruth``):
- a request served fast streams ``fast_tokens_per_s`` tokens a second, one served standard ``standard_tokens_per_s``;
- ``downgrade_share`` of the requests asked fast are served standard and say so (service_tier "default",
  usage.speed "standard"), as a vendor under a traffic ramp does;
- ``slow_share`` of the requests served fast stream at ``slow_tokens_per_s`` instead (below a speed SLA).
Draws are from a seeded generator, so a run is repeatable. A chunk holds the tokens made ready within one
``flush_s`` (a vendor's gateway flushes on a timer), sent when its last token is ready: a faster stream sends
more tokens a chunk, so counting chunks as tokens makes every tier look alike. Each chunk waits its tokens' time
after the chunk before it was actually sent, so a late chunk (a loaded machine) is never followed by a burst
that catches up: no stretch of a stream is faster than its rate.
"""
from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable

from model.probe.demo_server import Generation

VENDOR_STYLES = ("openai-chat-chunks", "openai-responses", "anthropic")
STYLE_API = {"openai-chat-chunks": "openai-chat", "openai-responses": "openai-responses", "anthropic": "anthropic"}
LATE_S = 0.002  # a chunk later than this moves the rest of the schedule (a sleep's usual overshoot does not)
FAST_TIER_NAMES = ("priority", "fast")  # service_tier values that ask for (and name) the fast tier


@dataclass
class Served:
    """How one request was served: the tier it asked for, the one it got, the rate it streamed at."""

    id: str
    api: str
    requested_fast: bool
    served_fast: bool
    tokens_per_s: float
    tokens: int
    slow: bool = False


@dataclass
class VendorTruth:
    served: list[Served] = field(default_factory=list)


@dataclass(frozen=True)
class Pace:
    fast_tokens_per_s: float = 100.0
    standard_tokens_per_s: float = 40.0
    downgrade_share: float = 0.0
    slow_share: float = 0.0
    slow_tokens_per_s: float = 20.0
    first_token_s: float = 0.05
    flush_s: float = 0.05
    seed: int = 0


def _chunks(tokens: list[str], rate: float, flush_s: float) -> list[list[str]]:
    """The tokens grouped by the flush interval their ready time falls in (token i is ready at i / rate)."""
    out: list[list[str]] = []
    last = -1
    for i, t in enumerate(tokens):
        slot = int(i / rate / flush_s) if flush_s > 0 else i
        if slot != last:
            out.append([])
            last = slot
        out[-1].append(t)
    return out


async def _paced(chunks: list[list[str]], rate: float, first_at: float) -> AsyncIterator[str]:
    """Each chunk's text when its last token is ready: the first chunk's at ``first_at`` plus its tokens after the
    first, each later one its tokens' time after the chunk before it was actually sent (never a catch-up burst)."""
    due = first_at - 1.0 / rate
    for chunk in chunks:
        due += len(chunk) / rate
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        late = time.perf_counter() - due
        if late > LATE_S:  # the next chunk's time counts from now: no burst to catch up
            due += late
        yield "".join(chunk)


def _sse(data: dict[str, Any], event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def create_vendor_app(generate: Callable[[str, int], Generation], pace: Pace = Pace(), *,
                      api_key: str | None = None, max_tokens_cap: int = 256,
                      truth: VendorTruth | None = None, apis: tuple[str, ...] = tuple(STYLE_API.values())) -> Any:
    """The ASGI app serving ``apis`` (of STYLE_API's values); ``api_key`` set makes each endpoint refuse another key
    the way its vendor sends it."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    vendor = _Vendor(generate, pace, api_key, max_tokens_cap, truth if truth is not None else VendorTruth())

    def route(path: str, api: str, events: Callable[[_Vendor, dict[str, Any], Served, Generation], AsyncIterator[str]],
              ) -> Route:
        """A POST endpoint: the request checked and served as ``api`` (start), then its events streamed."""
        async def handler(request: Request) -> Response:
            started = await vendor.start(request, api)
            if isinstance(started, Response):
                return started
            return StreamingResponse(events(vendor, *started), media_type="text/event-stream",
                                     headers={"cache-control": "no-cache"})
        return Route(path, handler, methods=["POST"])

    async def not_found(request: Request, exc: Exception) -> Response:
        """Another API's path (a wrong `--api`), or any other: the 404 the style's own vendor answers."""
        if apis == ("anthropic",):
            return _error(404, f"Not found: {request.method} {request.url.path}", "not_found_error", True)
        return _error(404, f"Invalid URL ({request.method} {request.url.path})", "invalid_request_error")

    endpoints = {"openai-chat": ("/v1/chat/completions", _chat_events),
                 "openai-responses": ("/v1/responses", _responses_events),
                 "anthropic": ("/v1/messages", _messages_events)}
    app = Starlette(routes=[route(endpoints[api][0], api, endpoints[api][1]) for api in apis],
                    exception_handlers={404: not_found, 405: not_found})
    app.state.truth = vendor.record
    return app


def _error(status: int, message: str, kind: str, anthropic: bool = False) -> Any:
    """An error response in the vendor's shape: Anthropic's {"type": "error", "error"}, OpenAI's {"error"}."""
    from starlette.responses import JSONResponse

    body = ({"type": "error", "error": {"type": kind, "message": message}} if anthropic
            else {"error": {"message": message, "type": kind}})
    return JSONResponse(body, status_code=status)


class _Vendor:
    """What every endpoint shares: the generator, the pace, the key, the record of how each request was served, and
    the seeded draws (under one lock, so a run is repeatable)."""

    def __init__(self, generate: Callable[[str, int], Generation], pace: Pace, api_key: str | None,
                 max_tokens_cap: int, record: VendorTruth) -> None:
        self.generate, self.pace, self.api_key, self.max_tokens_cap = generate, pace, api_key, max_tokens_cap
        self.record = record
        self.rng = random.Random(pace.seed)
        self.lock = asyncio.Lock()

    async def start(self, request: Any, api: str) -> tuple[dict[str, Any], Served, Generation] | Any:
        """The request checked as ``api``'s vendor checks it (an error response where it fails), generated, and
        served fast, downgraded or slow as the pace draws; recorded in the truth."""
        anthropic = api == "anthropic"
        if self.api_key is not None:
            given = (request.headers.get("x-api-key") if anthropic
                     else request.headers.get("authorization", "").removeprefix("Bearer "))
            if given != self.api_key:
                return _error(401, "invalid x-api-key" if anthropic else "invalid API key", "authentication_error",
                              anthropic)
        if anthropic and not request.headers.get("anthropic-version"):
            return _error(400, "anthropic-version header is required", "invalid_request_error", True)
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            return _error(400, "the body is not JSON", "invalid_request_error", anthropic)
        if not isinstance(body, dict):
            return _error(400, "the body is not a JSON object", "invalid_request_error", anthropic)
        prompt = _prompt(body, api)
        if prompt is None:
            return _error(400, "no text prompt in the request", "invalid_request_error", anthropic)
        limit = body.get("max_output_tokens" if api == "openai-responses" else "max_tokens") or 64
        if not isinstance(limit, int) or not 1 <= limit <= self.max_tokens_cap:
            return _error(400, f"the token limit must be an integer from 1 to {self.max_tokens_cap}",
                          "invalid_request_error", anthropic)
        asked = (body.get("speed") == "fast" if anthropic else body.get("service_tier") in FAST_TIER_NAMES)
        return (body, *await self._serve(api, prompt, limit, asked))

    async def _serve(self, api: str, prompt: str, limit: int, asked: bool) -> tuple[Served, Generation]:
        pace = self.pace
        async with self.lock:
            gen = await asyncio.get_running_loop().run_in_executor(None, self.generate, prompt, limit)
            downgraded = asked and self.rng.random() < pace.downgrade_share
            slow = asked and not downgraded and self.rng.random() < pace.slow_share
        fast = asked and not downgraded
        rate = (pace.slow_tokens_per_s if slow else pace.fast_tokens_per_s) if fast else pace.standard_tokens_per_s
        tokens = [t for s in gen.steps for t in s.tokens if t]
        served = Served(uuid.uuid4().hex, api, asked, fast, rate, len(tokens), slow)
        self.record.served.append(served)
        return served, gen

    def texts(self, gen: Generation, served: Served) -> AsyncIterator[str]:
        """The response's text a chunk at a time, paced from now (the stream's start)."""
        tokens = [t for s in gen.steps for t in s.tokens if t]
        first_at = time.perf_counter() + self.pace.first_token_s
        return _paced(_chunks(tokens, served.tokens_per_s, self.pace.flush_s), served.tokens_per_s, first_at)


async def _chat_events(vendor: _Vendor, body: dict[str, Any], served: Served, gen: Generation) -> AsyncIterator[str]:
    """Chat Completions as a closed vendor streams it: the role chunk, several tokens a chunk, the finish chunk, the
    usage chunk where stream_options asks for it, [DONE]."""
    head = {"id": f"chatcmpl-{served.id}", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": str(body.get("model")), "service_tier": _tier_name(body, served), "system_fingerprint": None}

    def chunk(delta: dict[str, Any] | None, finish: str | None = None, usage: dict[str, Any] | None = None) -> str:
        data: dict[str, Any] = {**head, "choices": [] if delta is None else
                                [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        if usage is not None:
            data["usage"] = usage
        return _sse(data)

    texts = vendor.texts(gen, served)
    yield chunk({"role": "assistant", "content": "", "refusal": None})
    async for text in texts:
        yield chunk({"content": text})
    yield chunk({}, "length" if gen.finish_reason == "length" else "stop")
    if (body.get("stream_options") or {}).get("include_usage"):
        yield chunk(None, usage={"prompt_tokens": gen.prompt_tokens, "completion_tokens": served.tokens,
                                 "total_tokens": gen.prompt_tokens + served.tokens})
    yield "data: [DONE]\n\n"


def _response_object(body: dict[str, Any], served: Served, status: str, usage: dict[str, Any] | None = None,
                     text: str = "") -> dict[str, Any]:
    """The Responses API's response object as its created, in_progress, completed and incomplete events carry it."""
    item = f"msg_{served.id}"
    out: dict[str, Any] = {"id": f"resp_{served.id}", "object": "response", "created_at": int(time.time()),
                           "status": status, "model": str(body.get("model")),
                           "service_tier": _tier_name(body, served) if usage else "auto",
                           "max_output_tokens": body.get("max_output_tokens"), "usage": usage,
                           "output": [] if not usage else [
                               {"id": item, "type": "message", "status": "completed", "role": "assistant",
                                "content": [{"type": "output_text", "text": text, "annotations": []}]}]}
    if status == "incomplete":
        out["incomplete_details"] = {"reason": "max_output_tokens"}
    return out


async def _responses_events(vendor: _Vendor, body: dict[str, Any], served: Served, gen: Generation,
                            ) -> AsyncIterator[str]:
    """The Responses API's semantic events, numbered, ending in response.completed or (at the token budget)
    response.incomplete."""
    item = f"msg_{served.id}"
    seq = iter(range(10**9))

    def event(kind: str, **fields: Any) -> str:
        return _sse({"type": kind, "sequence_number": next(seq), **fields}, kind)

    texts = vendor.texts(gen, served)
    yield event("response.created", response=_response_object(body, served, "in_progress"))
    yield event("response.in_progress", response=_response_object(body, served, "in_progress"))
    yield event("response.output_item.added", output_index=0,
                item={"id": item, "type": "message", "status": "in_progress", "role": "assistant", "content": []})
    yield event("response.content_part.added", item_id=item, output_index=0, content_index=0,
                part={"type": "output_text", "text": "", "annotations": []})
    whole = []
    async for text in texts:
        whole.append(text)
        yield event("response.output_text.delta", item_id=item, output_index=0, content_index=0, delta=text,
                    logprobs=[])
    text = "".join(whole)
    yield event("response.output_text.done", item_id=item, output_index=0, content_index=0, text=text)
    yield event("response.content_part.done", item_id=item, output_index=0, content_index=0,
                part={"type": "output_text", "text": text, "annotations": []})
    usage = {"input_tokens": gen.prompt_tokens, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": served.tokens, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": gen.prompt_tokens + served.tokens}
    status = "incomplete" if gen.finish_reason == "length" else "completed"
    yield event(f"response.{status}", response=_response_object(body, served, status, usage, text))


async def _messages_events(vendor: _Vendor, body: dict[str, Any], served: Served, gen: Generation,
                           ) -> AsyncIterator[str]:
    """Anthropic's Messages stream: message_start to message_stop, usage.speed saying the speed served."""
    speed = "fast" if served.served_fast else "standard"
    texts = vendor.texts(gen, served)
    yield _sse({"type": "message_start", "message": {
        "id": f"msg_{served.id}", "type": "message", "role": "assistant", "content": [], "model": str(body.get("model")),
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": gen.prompt_tokens, "output_tokens": 1, "speed": speed}}}, "message_start")
    yield _sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
               "content_block_start")
    yield _sse({"type": "ping"}, "ping")
    async for text in texts:
        yield _sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
                   "content_block_delta")
    yield _sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
    stop = "max_tokens" if gen.finish_reason == "length" else "end_turn"
    yield _sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": served.tokens, "speed": speed}}, "message_delta")
    yield _sse({"type": "message_stop"}, "message_stop")


def _tier_name(body: dict[str, Any], served: Served) -> str:
    """The service_tier a response names: the fast tier by the name it was asked for, else "default"."""
    asked = body.get("service_tier")
    return str(asked) if served.served_fast and asked in FAST_TIER_NAMES else "default"


def _prompt(body: dict[str, Any], api: str) -> str | None:
    """The request's text: chat and Anthropic `messages` (Anthropic's `system` beside them), Responses `input`."""
    items = body.get("input") if api == "openai-responses" else body.get("messages")
    if isinstance(items, str):
        return items
    if not isinstance(items, list) or not items:
        return None
    parts = [str(body["system"])] if api == "anthropic" and isinstance(body.get("system"), str) else []
    for m in items:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list):  # content blocks: their text parts
            content = "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
        if not isinstance(content, str):
            return None
        parts.append(content)
    return "\n".join(parts)
