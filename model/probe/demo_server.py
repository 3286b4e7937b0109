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
event, as special tokens (an end-of-turn marker, and what a model emits after it until the token
budget) do on llama.cpp; serve-demo makes them in the llamacpp style, and in plain with --silent-tokens.
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
from typing import Any, AsyncIterator, Callable, Mapping

from model.probe.batching import BatchClock, PrefillRule, batched_events
from model.probe.loopback import LoopbackServer  # noqa: F401  (serve-demo and the tests take it from here)

STYLES = ("vllm", "per-token", "chunked", "plain", "llamacpp")
PER_TOKEN_STYLES = ("per-token", "plain", "llamacpp")


@dataclass(frozen=True)
class Step:
    tokens: tuple[str, ...]  # text of each token the step emitted ("" for a silent one); its drafts, then its own
    drafted: int = 0  # drafts proposed (0: a plain decode step)
    accepted: int = 0
    seconds: float = 0.0  # what the step took on the demo pair


@dataclass
class Generation:
    prompt_tokens: int
    steps: list[Step]
    k: int  # drafts per full stretch; 0 for plain decoding
    finish_reason: str = "length"  # or "stop"
    sent_tokens: int | None = None  # the prompt's tokens as sent, before a short context kept only its end


Generate = Callable[[str, int], Generation]
MAX_TOP_LOGPROBS = 20  # OpenAI's limit on top_logprobs


@dataclass(frozen=True)
class Sampling:
    temperature: float  # above 0
    seed: int
    top_logprobs: int  # 0 to MAX_TOP_LOGPROBS


class LoggedToken(str):
    """A token's text that carries what the stream reports about it: its log-probability and the top tokens'
    (text, log-probability). A str, so the styles cut and join it as any token's text."""

    logprob: float
    top: tuple[tuple[str, float], ...]

    def __new__(cls, text: str, logprob: float, top: tuple[tuple[str, float], ...]) -> "LoggedToken":
        token = super().__new__(cls, text)
        token.logprob, token.top = logprob, top
        return token


SampleGenerate = Callable[[str, int, Sampling], Generation]


@dataclass
class DemoModel:
    generate: Generate
    style: str
    truth: list[dict[str, Any]] = field(default_factory=list)  # per response: id, the server's own counts
    sample: SampleGenerate | None = None  # at a temperature above 0; None: greedy whatever the request asks


def spec_counts(gen: Generation) -> dict[str, Any]:
    """vLLM's per-request counts (`--per-request-spec-decode-metrics`, metrics.speculative_decoding):
    every verify step that drafted, the accepted drafts (bonus token excluded), the histogram of
    accepted drafts, and the histogram of the steps that drafted all K apart (the last steps of a
    generation draft fewer, as the token budget runs out)."""
    k = gen.k
    drafting = [s for s in gen.steps if s.drafted > 0]
    by_length: dict[str, list[int]] = {}
    for s in drafting:
        hist = by_length.setdefault(str(s.drafted), [0] * (s.drafted + 1))
        hist[s.accepted] += 1
    overall = [0] * (k + 1)
    for s in drafting:
        overall[s.accepted] += 1
    return {"num_spec_tokens": k, "num_spec_steps": len(drafting),
            "num_draft_tokens": sum(s.drafted for s in drafting),
            "num_accepted_draft_tokens": sum(s.accepted for s in drafting),
            "acceptance_histogram": overall, "acceptance_histogram_by_draft_length": by_length}


def _chunk(rid: str, model: str, created: int, text: str | None, tokens: list[str] | None, logprobs: bool,
           finish: str | None = None, role: bool = False) -> dict[str, Any]:
    delta: dict[str, Any] = {}
    if role:
        delta["role"] = "assistant"
    if text is not None or role:
        delta["content"] = text
    choice: dict[str, Any] = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    if logprobs and tokens:
        # a greedy answer keeps no log-probabilities: its entries are there so a client can count tokens
        choice["logprobs"] = {"content": [_logprob_entry(t) for t in tokens]}
    return {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [choice]}


def _logprob_entry(token: str) -> dict[str, Any]:
    logged = isinstance(token, LoggedToken)
    top = [{"token": t, "logprob": lp, "bytes": list(t.encode("utf-8"))} for t, lp in token.top] if logged else []
    return {"token": str(token), "logprob": token.logprob if logged else 0.0, "bytes": list(token.encode("utf-8")),
            "top_logprobs": top}


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


Event = tuple[list[str], bool]  # the tokens an event carries; whether it carries their logprobs


def _groups(gen: Generation, style: str, chunk_tokens: int, min_step_s: float) -> list[tuple[float, list[Event]]]:
    """(seconds to wait before, events) per send. A silent token sends no event of its own."""
    paced = [(min_step_s if min_step_s > 0 else s.seconds, list(s.tokens)) for s in gen.steps if s.tokens]
    if style == "vllm":
        return [(wait, [(tokens, True)]) for wait, tokens in paced]
    if style in PER_TOKEN_STYLES:
        out = []
        drafted = [s.drafted for s in gen.steps if s.tokens]
        for j, (wait, tokens) in enumerate(paced):
            # llama.cpp (tools/server, server-context.cpp) sets no probs on the tokens of a verify step, the
            # target's own included ("TODO: set result.probs"): only the prompt pass's first token and a
            # step that drafted nothing carry logprobs
            own = [style != "llamacpp" or drafted[j] == 0 or (j == 0 and i == 0) for i in range(len(tokens))]
            out.append((wait, [([t], lp) for t, lp in zip(tokens, own) if t]))
        return out
    flat = [t for _, tokens in paced for t in tokens]
    chunks = [flat[i:i + chunk_tokens] for i in range(0, len(flat), chunk_tokens)]
    even = sum(w for w, _ in paced) / max(len(chunks), 1)
    return [(even, [(c, True)]) for c in chunks]


def _tick_groups(gen: Generation, style: str, chunk_tokens: int) -> list[list[Event]]:
    """The events each step of a batch sends: a step's own (as _groups), or for the chunked style the
    chunks that step filled (the remainder with the last step)."""
    if style != "chunked":
        return [events for _, events in _groups(gen, style, chunk_tokens, 0.0)]
    out: list[list[Event]] = []
    buffer: list[str] = []
    for step in gen.steps:
        if not step.tokens:
            continue
        buffer += list(step.tokens)
        full = len(buffer) - len(buffer) % chunk_tokens
        out.append([(buffer[i:i + chunk_tokens], True) for i in range(0, full, chunk_tokens)])
        del buffer[:full]
    if buffer and out:
        out[-1].append((buffer, True))
    return out


def llamacpp_timings(gen: Generation, prompt_s: float, predicted_s: float) -> dict[str, Any]:
    """llama.cpp's `timings` object (result_timings::to_json): draft_n and draft_n_accepted appear only when
    the request drafted; draft_n counts every draft token proposed, short drafts near the budget included."""
    n = sum(len(s.tokens) for s in gen.steps)
    prompt_ms, predicted_ms = prompt_s * 1e3, predicted_s * 1e3
    out: dict[str, Any] = {
        "cache_n": 0, "prompt_n": gen.prompt_tokens, "prompt_ms": prompt_ms,
        "prompt_per_token_ms": prompt_ms / max(gen.prompt_tokens, 1),
        "prompt_per_second": gen.prompt_tokens / prompt_s if prompt_s > 0 else 0.0,
        "predicted_n": n, "predicted_ms": predicted_ms, "predicted_per_token_ms": predicted_ms / max(n, 1),
        "predicted_per_second": n / predicted_s if predicted_s > 0 else 0.0}
    drafted = sum(s.drafted for s in gen.steps)
    if drafted > 0:
        out["draft_n"] = drafted
        out["draft_n_accepted"] = sum(s.accepted for s in gen.steps)
    return out


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
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, generate_latest
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

    for name, m in models.items():
        if m.style not in STYLES:
            raise ValueError(f"model {name}: style {m.style!r} is not one of {', '.join(STYLES)}")
    registry = CollectorRegistry()  # per app: two test servers in one process keep their own counts
    labels = ["model_name"]
    drafts = Counter("vllm:spec_decode_num_drafts", "Verify steps with K drafts", labels, registry=registry)
    draft_tokens = Counter("vllm:spec_decode_num_draft_tokens", "Draft tokens proposed", labels, registry=registry)
    accepted = Counter("vllm:spec_decode_num_accepted_tokens", "Draft tokens accepted", labels, registry=registry)
    per_pos = Counter("vllm:spec_decode_num_accepted_tokens_per_pos", "Accepted drafts at each position",
                      labels + ["position"], registry=registry)
    lock = asyncio.Lock()
    clocks: dict[str, Any] | None = None
    memo: dict[tuple[Any, ...], tuple[Generation, float]] = {}  # and the seconds its compute took
    prefill = PrefillRule(batch.step_s if batch is not None else min_step_s, prefill_tokens_per_s)
    if batch is not None:
        clocks = {name: BatchClock(batch) for name in models}

    async def chat(request: Request) -> Response:
        if api_key is not None and request.headers.get("authorization") != f"Bearer {api_key}":
            return _error(401, "invalid API key", "authentication_error")
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            return _error(400, "the body is not JSON", "invalid_request_error")
        if not isinstance(body, dict):
            return _error(400, "the body is not a JSON object", "invalid_request_error")
        model = models.get(str(body.get("model")))
        if model is None:
            return _error(404, f"the model {body.get('model')!r} does not exist", "not_found_error")
        prompt = _prompt_text(body.get("messages"))
        if prompt is None:
            return _error(400, "messages must be a list of objects with string content", "invalid_request_error")
        max_tokens = body.get("max_tokens") or body.get("max_completion_tokens") or 64
        if not isinstance(max_tokens, int) or not 1 <= max_tokens <= max_tokens_cap:
            return _error(400, f"max_tokens must be an integer from 1 to {max_tokens_cap}", "invalid_request_error")
        sampling = _sampling(body)
        if isinstance(sampling, str):
            return _error(400, sampling, "invalid_request_error")
        name = str(body["model"])
        sampled = model.sample is not None and sampling.temperature > 0
        # a seeded draw is as repeatable as a greedy one: the memo keys on the sampling fields too
        memo_key = (name, prompt, max_tokens, sampling if sampled else None)
        async with lock:
            began = time.perf_counter()
            # batched: greedy or seeded, so a prompt seen before gives the same steps; kept, so concurrent streams
            # start together instead of queueing behind one CPU for their generation
            kept = memo.get(memo_key) if clocks is not None else None
            if kept is None:
                gen = await (run_in_threadpool(model.sample, prompt, max_tokens, sampling) if sampled
                             else run_in_threadpool(model.generate, prompt, max_tokens))
                kept = gen, time.perf_counter() - began
                if clocks is not None:
                    memo[memo_key] = kept
                    while len(memo) > 1024:
                        memo.pop(next(iter(memo)))
            gen = kept[0]
        # the simulated prefill, afresh for every request: a kept answer waits what its compute took
        prompt_s = prefill.seconds(gen.sent_tokens if gen.sent_tokens is not None else gen.prompt_tokens, kept[1])
        first_token_at = began + prompt_s
        rid = f"chatcmpl-{uuid.uuid4().hex}"
        llama = model.style == "llamacpp"
        counts = spec_counts(gen) if gen.k else None
        if counts:
            drafts.labels(name).inc(counts["num_spec_steps"])
            draft_tokens.labels(name).inc(counts["num_draft_tokens"])
            accepted.labels(name).inc(counts["num_accepted_draft_tokens"])
            # position i counts the steps whose draft i was accepted (and so every draft before it)
            for i in range(gen.k):
                per_pos.labels(name, str(i)).inc(sum(1 for s in gen.steps if s.drafted and s.accepted > i))
        sent: list[float] = []  # perf_counter when each step was written (batched: just after), for the jitter benchmark
        began: list[float] = []  # batched: when each step's rendering began (its write lies between the two)
        model.truth.append({"id": rid, "accepted": [s.accepted for s in gen.steps],
                            "drafted": [s.drafted for s in gen.steps], "k": gen.k, "sent": sent, "began": began,
                            "visible": [sum(1 for t in s.tokens if t) for s in gen.steps],
                            "silent": sum(1 for s in gen.steps for t in s.tokens if not t)})
        completion = sum(len(s.tokens) for s in gen.steps)
        usage = {"prompt_tokens": gen.prompt_tokens, "completion_tokens": completion,
                 "total_tokens": gen.prompt_tokens + completion}
        logprobs = bool(body.get("logprobs"))
        created = int(time.time())
        if not body.get("stream"):
            await asyncio.sleep(max(0.0, first_token_at - time.perf_counter()))
            tokens = [t for s in gen.steps for t in s.tokens]
            answer: dict[str, Any] = {
                "id": rid, "object": "chat.completion", "created": created, "model": name, "usage": usage,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "".join(tokens)},
                             "finish_reason": gen.finish_reason}]}
            if counts and not llama:
                answer["metrics"] = {"speculative_decoding": counts}
            if llama:
                answer["timings"] = llamacpp_timings(gen, prompt_s, 0.0)
            return JSONResponse(answer)
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

        def sse(chunk: dict[str, Any]) -> str:
            if llama:
                chunk["system_fingerprint"] = "b0000-specledger-demo"
            return f"data: {json.dumps(chunk)}\n\n"

        async def events() -> AsyncIterator[str]:
            # llama.cpp's first chunk says the role with a null content; the others an empty string
            opening = sse(_chunk(rid, name, created, None if llama else '', None, False, role=True))
            streaming = first_token_at
            if clocks is not None:  # one tick of the model's batch per step, its place held through the prefill
                async for piece in batched_events(
                        _tick_groups(gen, model.style, chunk_tokens), clocks[name], gen.k + 1 if gen.k else 1,
                        lambda group: "".join(sse(_chunk(rid, name, created, ''.join(t), t, logprobs and lp))
                                              for t, lp in group), sent, began, first_token_at, opening):
                    yield piece
            else:
                await asyncio.sleep(max(0.0, first_token_at - time.perf_counter()))
                yield opening
            last = time.perf_counter()
            for wait, group in ([] if clocks is not None else _groups(gen, model.style, chunk_tokens, min_step_s)):
                # each step a full step time after the one before, even when the loop ran late: catching
                # up would send two steps back to back, and they would read as one
                delay = last + wait - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                # a step's events in one write, as a server flushing after each step does
                sent.append(time.perf_counter())
                yield "".join(sse(_chunk(rid, name, created, ''.join(t), t, logprobs and lp)) for t, lp in group)
                last = time.perf_counter()
            end = _chunk(rid, name, created, None, None, False, finish=gen.finish_reason)
            final: dict[str, Any] | None = None
            if include_usage:
                final = {"id": rid, "object": "chat.completion.chunk", "created": created,
                         "model": name, "choices": [], "usage": usage}
                if counts and not llama:
                    final["metrics"] = {"speculative_decoding": counts}
            if llama:  # llama.cpp puts its timings on the last chunk, whichever that is
                (final or end)["timings"] = llamacpp_timings(gen, prompt_s, time.perf_counter() - streaming)
            yield sse(end)
            if final is not None:
                yield sse(final)
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream", headers={"cache-control": "no-cache"})

    async def list_models(request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": n, "object": "model", "owned_by": "specledger-demo"}
                                                        for n in models]})

    async def metrics(request: Request) -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]),
                            Route("/v1/models", list_models, methods=["GET"]),
                            Route("/metrics", metrics, methods=["GET"])])
    app.state.models = models
    app.state.clocks = clocks  # the batches' own tick times, for the tests and the benchmark
    return app
