"""One answer of the demo server (model/probe/demo_server.py), as each stream style sends it: what a request
generated (``Generation``, its ``Step``s), the models it is asked of, the chat chunks and their logprobs, the sends a
style cuts the steps into, and the server's own counts (vLLM's per-request metrics, llama.cpp's timings).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

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


def chunk(rid: str, model: str, created: int, text: str | None, tokens: list[str] | None, logprobs: bool,
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



Event = tuple[list[str], bool]  # the tokens an event carries; whether it carries their logprobs


def groups(gen: Generation, style: str, chunk_tokens: int, min_step_s: float) -> list[tuple[float, list[Event]]]:
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


def tick_groups(gen: Generation, style: str, chunk_tokens: int) -> list[list[Event]]:
    """The events each step of a batch sends: a step's own (as groups), or for the chunked style the
    chunks that step filled (the remainder with the last step)."""
    if style != "chunked":
        return [events for _, events in groups(gen, style, chunk_tokens, 0.0)]
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
