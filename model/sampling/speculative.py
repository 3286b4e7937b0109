"""The speculative decoding loop and plain target-only decoding, with timings.

Invariant at the start of each stretch: ``seq`` holds prompt + emitted tokens;
the target's cache holds all of ``seq`` but its last token, the draft's cache a
prefix of it (one or two tokens short). A stretch:
1. the draft catches up and proposes K tokens, one forward each (K forwards);
2. the target reads the missing token plus the K drafts in one forward (K + 1
   logits rows: one for each draft position and the bonus position);
3. drafts are accepted left to right (greedy: equal to the target's argmax;
   sampling: with probability min(1, p/q)); the first rejection is replaced by
   the target's token (argmax, or a draw from the normalised max(0, p - q)), and
   if all K pass the target adds a bonus token from the last row;
4. both caches are cut back to the accepted prefix.
A stretch drafts fewer than K tokens only at the end of a generation: never more
than the token budget has room for (so nothing is generated past max_new_tokens),
and never past a stop token the draft proposed (so no acceptance is counted on
text after the end). Each stretch records how many it drafted; a short stretch
is not a K-stretch observation, and the statistics leave it out rather than read
its early end as a rejection (see sampling.summarise_class).
With temperature 0 the output is the target's greedy output token for token;
with temperature > 0 every emitted token is distributed as the target's own.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from model.common.cancel import Cancelled, raise_if_cancelled  # noqa: F401  (Cancelled: callers import it from here too)
from model.sampling.onnx_lm import OnnxCausalLM


@dataclass
class SpeculativeRun:
    """One prompt's speculative generation, auditable stretch by stretch."""

    output_ids: list[int]
    accepted_counts: list[int]
    drafted_counts: list[int] = field(default_factory=list)  # per stretch: K, or fewer at the end
    draft_step_seconds: list[float] = field(default_factory=list)  # one entry per single-token draft forward
    verify_seconds: list[float] = field(default_factory=list)  # one entry per target verify pass
    decode_seconds: float = 0.0  # wall time of the stretches (prefill excluded)
    prefill_seconds: float = 0.0


@dataclass
class TargetRun:
    """One prompt's plain target-only generation."""

    output_ids: list[int]
    step_seconds: list[float] = field(default_factory=list)  # one entry per single-token target forward
    decode_seconds: float = 0.0
    prefill_seconds: float = 0.0


def _probs(logits: np.ndarray, temperature: float) -> np.ndarray:
    """Softmax of logits / temperature in float64, rows summing to 1."""
    z = logits.astype(np.float64) / temperature
    z -= z.max(axis=-1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=-1, keepdims=True)


def _draw(p: np.ndarray, rng: np.random.Generator) -> int:
    # inverse CDF on one uniform: cheaper than rng.choice and equally exact
    cdf = np.cumsum(p)
    return int(min(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"), len(p) - 1))


def _pick(logits: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    if temperature <= 0:
        return int(logits.argmax())
    return _draw(_probs(logits, temperature), rng)


_check = raise_if_cancelled


def _prefill(model: OnnxCausalLM, cache, ids: list[int]) -> None:
    if ids:
        model.step(cache, ids)


def speculative_generate(draft: OnnxCausalLM, target: OnnxCausalLM, prompt_ids: list[int], k: int,
                         max_new_tokens: int, temperature: float = 0.0,
                         rng: np.random.Generator | None = None,
                         cancel: Callable[[], bool] | None = None,
                         stop_ids: frozenset[int] = frozenset()) -> SpeculativeRun:
    """Generate up to ``max_new_tokens`` tokens with K drafts per stretch.

    Near the end a stretch drafts only what the budget has room for (a stretch
    emits at most its drafts plus one), and drafting stops at a proposed stop
    token, so the counts never run past the output. Only a bonus token drawn
    after an accepted stop token is dropped.
    """
    if k < 1:
        raise ValueError("k must be at least 1")
    if not prompt_ids:
        raise ValueError("the prompt encodes to no tokens")
    rng = rng if rng is not None else np.random.default_rng(0)
    clock = time.perf_counter
    run = SpeculativeRun([], [])
    seq = list(prompt_ids)
    dcache, tcache = draft.new_cache(), target.new_cache()
    start = clock()
    _prefill(draft, dcache, seq[:-1])
    _prefill(target, tcache, seq[:-1])
    run.prefill_seconds = clock() - start
    start = clock()
    n_prompt = len(seq)
    while len(seq) - n_prompt < max_new_tokens:
        _check(cancel)
        base = len(seq)
        drafts: list[int] = []
        q_rows: list[np.ndarray] = []
        feed = seq[dcache.length:]  # 1 token, or 2 after a stretch that accepted all K
        # room for the drafts plus the target's token; 0 drafts is one plain target step
        k_stretch = min(k, max_new_tokens - (base - n_prompt) - 1)
        for _ in range(k_stretch):
            t0 = clock()
            row = draft.step(dcache, feed)[-1]
            run.draft_step_seconds.append(clock() - t0)
            if temperature > 0:
                q = _probs(row, temperature)
                q_rows.append(q)
                token = _draw(q, rng)
            else:
                token = int(row.argmax())
            drafts.append(token)
            feed = [token]
            if token in stop_ids:
                break
        t0 = clock()
        rows = target.step(tcache, seq[tcache.length:] + drafts)
        run.verify_seconds.append(clock() - t0)
        accepted, new_token = _judge(rows, drafts, q_rows, temperature, rng)
        run.accepted_counts.append(accepted)
        run.drafted_counts.append(len(drafts))
        seq.extend(drafts[:accepted])
        seq.append(new_token)
        # keep only what is now in seq minus its last token (the next stretch feeds it)
        target.cut(tcache, min(tcache.length, base + accepted))
        draft.cut(dcache, min(dcache.length, base + accepted))
        if stop_ids and any(t in stop_ids for t in seq[base:]):
            break
    run.decode_seconds = clock() - start
    out = seq[n_prompt:n_prompt + max_new_tokens]
    for i, t in enumerate(out):
        if t in stop_ids:
            out = out[:i + 1]
            break
    run.output_ids = out
    return run


def _judge(rows: np.ndarray, drafts: list[int], q_rows: list[np.ndarray], temperature: float,
           rng: np.random.Generator) -> tuple[int, int]:
    """How many drafts the target accepts, and the token it adds after them."""
    k = len(drafts)
    if temperature <= 0:
        best = rows.argmax(axis=-1)
        for i, token in enumerate(drafts):
            if int(best[i]) != token:
                return i, int(best[i])
        return k, int(best[k])
    p_rows = _probs(rows, temperature)
    for i, token in enumerate(drafts):
        p, q = p_rows[i], q_rows[i]
        # accept with probability min(1, p/q); q[token] > 0 because the draft drew it
        if rng.random() * q[token] < p[token]:
            continue
        residual = np.maximum(p - q, 0.0)
        total = residual.sum()
        # total is 0 only when p == q in floating point, where rejection cannot happen
        return i, _draw(residual if total > 0 else p, rng)
    return k, _draw(p_rows[k], rng)


def target_generate(target: OnnxCausalLM, prompt_ids: list[int], max_new_tokens: int,
                    temperature: float = 0.0, rng: np.random.Generator | None = None,
                    cancel: Callable[[], bool] | None = None,
                    stop_ids: frozenset[int] = frozenset()) -> TargetRun:
    """Plain decoding, one target forward per token: the baseline for the speedup."""
    if not prompt_ids:
        raise ValueError("the prompt encodes to no tokens")
    rng = rng if rng is not None else np.random.default_rng(0)
    clock = time.perf_counter
    run = TargetRun([])
    cache = target.new_cache()
    start = clock()
    _prefill(target, cache, list(prompt_ids[:-1]))
    run.prefill_seconds = clock() - start
    start = clock()
    last = prompt_ids[-1]
    while len(run.output_ids) < max_new_tokens:
        _check(cancel)
        t0 = clock()
        row = target.step(cache, [last])[-1]
        run.step_seconds.append(clock() - t0)
        last = _pick(row, temperature, rng)
        run.output_ids.append(last)
        if last in stop_ids:
            break
    run.decode_seconds = clock() - start
    return run
