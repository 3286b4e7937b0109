"""An OpenAI-compatible chat-completions server to probe: the demo and the tests' target.

`create_app(models)` builds a Starlette app; each model name maps to an injected `Generate`
(prompt text, max tokens -> the steps it emitted) and a stream style, so this module needs no
model of its own (serve-demo wires the demo ONNX pair's speculative and target-only loops in).
Styles:
- "vllm":      one event per verify step, carrying all its tokens (logprobs: one entry each);
- "per-token": one event per token, the tokens of a step sent back to back, steps apart;
- "chunked":   the tokens re-cut into fixed-size chunks sent at an even pace, hiding the steps;
- "plain":     one event per token of a generator that emits one token per step;
- "llamacpp":  llama.cpp's server (tools/server, OpenAI chat endpoint): one event per token, the
               tokens of a step back to back; logprobs only on tokens no verify step emitted (the
               response's first token, from the prompt pass, and a step that drafted nothing: its
               server sets no probs on a verify step's tokens); a role chunk with null content first; the final
               chunks a finish chunk with an empty delta, then the usage chunk carrying llama.cpp's
               `timings` (cache_n, prompt_*, predicted_*, and draft_n / draft_n_accepted when it
               drafted), and no K, no step count.
A token whose text is "" is silent: it counts in usage.completion_tokens but sends no content
event, as llama.cpp's end-of-turn token does (its server stops there); serve-demo's llamacpp style sends
its end token so, and --silent-tokens makes the end and a run-on tail after it silent in any style.
Each step is paced to `min_step_s` (0: to the time the demo pair took): the pair computes a step in about a
millisecond, which on loopback would drown in scheduling noise, and it computes every step before streaming,
so on a loaded machine its own step times are the machine's noise, not the step's: they would make the
steps' times vary several-fold, which no engine's steps do.
With `include_usage`, the last chunk has the usage and, for a speculative model, vLLM-style
per-request counts in `metrics.speculative_decoding` (with the histogram of full-K steps apart).
A model with a `sample` function samples at a request's temperature above 0 (and its seed), and its tokens
carry the log-probabilities of the distribution it reports (`LoggedToken`): the chosen token's and the request's
`top_logprobs` most likely; at temperature 0, or on a model without one, every model is greedy and reports
logprob 0 with no top entries, there only so a client can count tokens.
`/metrics` is a Prometheus page with vLLM's counter names. Requests are generated one at a time;
with a `batch` rule (model.probe.batching) concurrent streams of a model step together, one step
serving every active stream, its time growing with the batch by the rule.
"""
from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Mapping

from model.probe.batching import BatchClock, PrefillRule, batched_events
# the answer's types and shape; serve-demo and the tests take these (and LoopbackServer) from here
from model.probe.demo_stream import (MAX_TOP_LOGPROBS, DemoModel, Event, Generate, Generation,  # noqa: F401
                                     LoggedToken, SampleGenerate, Sampling, Step, chunk, groups, llamacpp_timings,
                                     spec_counts, tick_groups)
from model.probe.loopback import LoopbackServer  # noqa: F401

STYLES = ("vllm", "per-token", "chunked", "plain", "llamacpp")


def _sampling(body: dict[str, Any]) -> Sampling | str:
    """The request's sampling fields, or what is wrong with them. No temperature: greedy (the demo's default)."""
    temperature, seed, top = body.get("temperature", 0), body.get("seed", 0), body.get("top_logprobs", 0)
    if temperature is None:
        temperature = 0
    if not isinstance(temperature, (int, float)) or isinstance(temperature, bool) or not 0 <= temperature <= 2:
        return "temperature must be a number from 0 to 2"
    if seed is None:
        seed = 0
    if not isinstance(seed, int) or isinstance(seed, bool):
        return "seed must be an integer"
    if top is None:
        top = 0
    if not isinstance(top, int) or isinstance(top, bool) or not 0 <= top <= MAX_TOP_LOGPROBS:
        return f"top_logprobs must be an integer from 0 to {MAX_TOP_LOGPROBS}"
    return Sampling(float(temperature), seed, top)




def _error(status: int, message: str, kind: str) -> Any:
    from starlette.responses import JSONResponse
    return JSONResponse({"error": {"message": message, "type": kind}}, status_code=status)


def _prompt_text(messages: Any) -> str | None:
    if not isinstance(messages, list) or not messages:
        return None
    parts = []
    for m in messages:
        if not isinstance(m, dict) or not isinstance(m.get("content"), str):
            return None
        parts.append(m["content"])
    return "\n".join(parts)


def create_app(models: Mapping[str, DemoModel], *, min_step_s: float = 0.01, chunk_tokens: int = 4,
               api_key: str | None = None, max_tokens_cap: int = 256, batch: Any = None,
               prefill_tokens_per_s: float = 10_000.0) -> Any:
    """The ASGI app; ``api_key`` set makes it refuse other bearer tokens with 401 (for the tests).

    Every request's first token waits a simulated prefill (model.probe.batching.PrefillRule: a step,
    min_step_s or the batch rule's, plus the prompt's tokens at ``prefill_tokens_per_s``).

    ``batch`` (a model.probe.batching.BatchRule) serves concurrent streams of a model in one batch
    whose step time follows the rule (see batching); None paces each stream on its own.
    """
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    for name, m in models.items():
        if m.style not in STYLES:
            raise ValueError(f"model {name}: style {m.style!r} is not one of {', '.join(STYLES)}")
    server = _DemoServer(models, min_step_s, chunk_tokens, api_key, max_tokens_cap, batch, prefill_tokens_per_s)

    async def list_models(request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": n, "object": "model", "owned_by": "specledger-demo"}
                                                        for n in models]})

    async def metrics(request: Request) -> Response:
        return Response(generate_latest(server.counters.registry), media_type=CONTENT_TYPE_LATEST)

    app = Starlette(routes=[Route("/v1/chat/completions", server.chat, methods=["POST"]),
                            Route("/v1/models", list_models, methods=["GET"]),
                            Route("/metrics", metrics, methods=["GET"])])
    app.state.models = models
    app.state.clocks = server.clocks  # the batches' own tick times, for the tests and the benchmark
    return app


class _Counters:
    """vLLM's spec-decode counters on the app's own /metrics page (per app: two test servers in one process keep
    their own counts)."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter

        self.registry = CollectorRegistry()
        labels = ["model_name"]
        self.drafts = Counter("vllm:spec_decode_num_drafts", "Verify steps with K drafts", labels, registry=self.registry)
        self.draft_tokens = Counter("vllm:spec_decode_num_draft_tokens", "Draft tokens proposed", labels,
                                    registry=self.registry)
        self.accepted = Counter("vllm:spec_decode_num_accepted_tokens", "Draft tokens accepted", labels,
                                registry=self.registry)
        self.per_pos = Counter("vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted drafts at each position",
                               labels + ["position"], registry=self.registry)

    def add(self, name: str, gen: Generation, counts: dict[str, Any]) -> None:
        self.drafts.labels(name).inc(counts["num_spec_steps"])
        self.draft_tokens.labels(name).inc(counts["num_draft_tokens"])
        self.accepted.labels(name).inc(counts["num_accepted_draft_tokens"])
        # position i counts the steps whose draft i was accepted (and so every draft before it)
        for i in range(gen.k):
            self.per_pos.labels(name, str(i)).inc(sum(1 for s in gen.steps if s.drafted and s.accepted > i))


@dataclass
class _Asked:
    """A chat request as read: the model asked for, the prompt's text, the token budget, the sampling."""
    body: dict[str, Any]
    name: str
    model: DemoModel
    prompt: str
    max_tokens: int
    sampling: Sampling


class _DemoServer:
    """What the chat endpoint shares between requests: the models, the pace, the counters, one lock (requests are
    generated one at a time), the batches' clocks and the answers kept for them."""

    def __init__(self, models: Mapping[str, DemoModel], min_step_s: float, chunk_tokens: int, api_key: str | None,
                 max_tokens_cap: int, batch: Any, prefill_tokens_per_s: float) -> None:
        self.models, self.min_step_s, self.chunk_tokens = models, min_step_s, chunk_tokens
        self.api_key, self.max_tokens_cap = api_key, max_tokens_cap
        self.counters = _Counters()
        self.lock = asyncio.Lock()
        self.clocks: dict[str, Any] | None = {name: BatchClock(batch) for name in models} if batch is not None else None
        self.memo: dict[tuple[Any, ...], tuple[Generation, float]] = {}  # and the seconds its compute took
        self.prefill = PrefillRule(batch.step_s if batch is not None else min_step_s, prefill_tokens_per_s)

    async def chat(self, request: Any) -> Any:
        from starlette.responses import JSONResponse, StreamingResponse

        asked = await self._read(request)
        if not isinstance(asked, _Asked):
            return asked
        gen, began, compute_s = await self._generate(asked)
        # the simulated prefill, afresh for every request: a kept answer waits what its compute took
        prompt_s = self.prefill.seconds(gen.sent_tokens if gen.sent_tokens is not None else gen.prompt_tokens, compute_s)
        reply = _Reply(asked.name, asked.model, gen, prompt_s, began + prompt_s, bool(asked.body.get("logprobs")))
        if reply.counts:
            self.counters.add(asked.name, gen, reply.counts)
        reply.record_truth()
        if not asked.body.get("stream"):
            return JSONResponse(await reply.answer())
        include_usage = bool((asked.body.get("stream_options") or {}).get("include_usage"))
        clock = self.clocks[asked.name] if self.clocks is not None else None
        return StreamingResponse(reply.events(clock, self.chunk_tokens, self.min_step_s, include_usage),
                                 media_type="text/event-stream", headers={"cache-control": "no-cache"})

    async def _read(self, request: Any) -> _Asked | Any:
        """The request checked: the key, a JSON object, a model served here, messages, max_tokens, the sampling
        fields; an error response in OpenAI's shape where one fails."""
        if self.api_key is not None and request.headers.get("authorization") != f"Bearer {self.api_key}":
            return _error(401, "invalid API key", "authentication_error")
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            return _error(400, "the body is not JSON", "invalid_request_error")
        if not isinstance(body, dict):
            return _error(400, "the body is not a JSON object", "invalid_request_error")
        model = self.models.get(str(body.get("model")))
        if model is None:
            return _error(404, f"the model {body.get('model')!r} does not exist", "not_found_error")
        prompt = _prompt_text(body.get("messages"))
        if prompt is None:
            return _error(400, "messages must be a list of objects with string content", "invalid_request_error")
        max_tokens = body.get("max_tokens") or body.get("max_completion_tokens") or 64
        if not isinstance(max_tokens, int) or not 1 <= max_tokens <= self.max_tokens_cap:
            return _error(400, f"max_tokens must be an integer from 1 to {self.max_tokens_cap}", "invalid_request_error")
        sampling = _sampling(body)
        if isinstance(sampling, str):
            return _error(400, sampling, "invalid_request_error")
        return _Asked(body, str(body["model"]), model, prompt, max_tokens, sampling)

    async def _generate(self, asked: _Asked) -> tuple[Generation, float, float]:
        """The answer's steps, when its turn came (perf_counter: the prefill counts from there) and the seconds
        their compute took; one request at a time."""
        from starlette.concurrency import run_in_threadpool

        model, prompt, max_tokens, sampling = asked.model, asked.prompt, asked.max_tokens, asked.sampling
        sampled = model.sample is not None and sampling.temperature > 0
        # a seeded draw is as repeatable as a greedy one: the memo keys on the sampling fields too
        memo_key = (asked.name, prompt, max_tokens, sampling if sampled else None)
        async with self.lock:
            began = time.perf_counter()
            # batched: greedy or seeded, so a prompt seen before gives the same steps; kept, so concurrent streams
            # start together instead of queueing behind one CPU for their generation
            kept = self.memo.get(memo_key) if self.clocks is not None else None
            if kept is None:
                gen = await (run_in_threadpool(model.sample, prompt, max_tokens, sampling) if sampled
                             else run_in_threadpool(model.generate, prompt, max_tokens))
                kept = gen, time.perf_counter() - began
                if self.clocks is not None:
                    self.memo[memo_key] = kept
                    while len(self.memo) > 1024:
                        self.memo.pop(next(iter(self.memo)))
        return kept[0], began, kept[1]


@dataclass
class _Reply:
    """One request's answer: what it generated, and how its model's style sends it."""
    name: str
    model: DemoModel
    gen: Generation
    prompt_s: float  # the simulated prefill
    first_token_at: float  # perf_counter
    logprobs: bool
    rid: str = field(default_factory=lambda: f"chatcmpl-{uuid.uuid4().hex}")
    sent: list[float] = field(default_factory=list)  # perf_counter when each step was written (batched: just after)
    began: list[float] = field(default_factory=list)  # batched: when each step's rendering began
    created: int = field(default_factory=lambda: int(time.time()))

    def __post_init__(self) -> None:
        self.llama = self.model.style == "llamacpp"
        self.counts = spec_counts(self.gen) if self.gen.k else None
        completion = sum(len(s.tokens) for s in self.gen.steps)
        self.usage = {"prompt_tokens": self.gen.prompt_tokens, "completion_tokens": completion,
                      "total_tokens": self.gen.prompt_tokens + completion}

    def record_truth(self) -> None:
        """What the server did, for the tests and the jitter benchmark (``sent``, ``began``: filled as it streams)."""
        gen = self.gen
        self.model.truth.append({"id": self.rid, "accepted": [s.accepted for s in gen.steps],
                                 "drafted": [s.drafted for s in gen.steps], "k": gen.k, "sent": self.sent,
                                 "began": self.began, "visible": [sum(1 for t in s.tokens if t) for s in gen.steps],
                                 "silent": sum(1 for s in gen.steps for t in s.tokens if not t)})

    async def answer(self) -> dict[str, Any]:
        """The whole answer in one response body, after the prefill."""
        await asyncio.sleep(max(0.0, self.first_token_at - time.perf_counter()))
        tokens = [t for s in self.gen.steps for t in s.tokens]
        answer: dict[str, Any] = {
            "id": self.rid, "object": "chat.completion", "created": self.created, "model": self.name,
            "usage": self.usage, "choices": [{"index": 0, "message": {"role": "assistant", "content": "".join(tokens)},
                                              "finish_reason": self.gen.finish_reason}]}
        if self.counts and not self.llama:
            answer["metrics"] = {"speculative_decoding": self.counts}
        if self.llama:
            answer["timings"] = llamacpp_timings(self.gen, self.prompt_s, 0.0)
        return answer

    def sse(self, data: dict[str, Any]) -> str:
        if self.llama:
            data["system_fingerprint"] = "b0000-specledger-demo"
        return f"data: {json.dumps(data)}\n\n"

    def send(self, group: list[Event]) -> str:
        """A step's events in one write, as a server flushing after each step does."""
        return "".join(self.sse(chunk(self.rid, self.name, self.created, "".join(t), t, self.logprobs and lp))
                       for t, lp in group)

    async def events(self, clock: Any, chunk_tokens: int, min_step_s: float, include_usage: bool) -> AsyncIterator[str]:
        """The stream: the opening chunk after the prefill, the steps (one tick of the model's batch each, or paced on
        their own), the finish chunk, the usage chunk, [DONE]."""
        # llama.cpp's first chunk says the role with a null content; the others an empty string
        opening = self.sse(chunk(self.rid, self.name, self.created, None if self.llama else "", None, False, role=True))
        gen, style = self.gen, self.model.style
        if clock is not None:  # one tick of the model's batch per step, its place held through the prefill
            async for piece in batched_events(tick_groups(gen, style, chunk_tokens), clock, gen.k + 1 if gen.k else 1,
                                              self.send, self.sent, self.began, self.first_token_at, opening):
                yield piece
        else:
            await asyncio.sleep(max(0.0, self.first_token_at - time.perf_counter()))
            yield opening
            async for piece in self._paced(groups(gen, style, chunk_tokens, min_step_s)):
                yield piece
        for piece in self._ending(include_usage):
            yield piece

    async def _paced(self, sends: list[tuple[float, list[Event]]]) -> AsyncIterator[str]:
        last = time.perf_counter()
        for wait, group in sends:
            # each step a full step time after the one before, even when the loop ran late: catching
            # up would send two steps back to back, and they would read as one
            delay = last + wait - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            self.sent.append(time.perf_counter())
            yield self.send(group)
            last = time.perf_counter()

    def _ending(self, include_usage: bool) -> list[str]:
        end = chunk(self.rid, self.name, self.created, None, None, False, finish=self.gen.finish_reason)
        final: dict[str, Any] | None = None
        if include_usage:
            final = {"id": self.rid, "object": "chat.completion.chunk", "created": self.created,
                     "model": self.name, "choices": [], "usage": self.usage}
            if self.counts and not self.llama:
                final["metrics"] = {"speculative_decoding": self.counts}
        if self.llama:  # llama.cpp puts its timings on the last chunk, whichever that is
            (final or end)["timings"] = llamacpp_timings(self.gen, self.prompt_s,
                                                         time.perf_counter() - self.first_token_at)
        return [self.sse(end), *([self.sse(final)] if final is not None else []), "data: [DONE]\n\n"]
