"""Measure acceptance per task class on a draft/target pair: a cancellable generator.

``run_sampling(...)`` yields SamplingProgress events and returns a
SamplingResult (the generator's return value: ``StopIteration.value``; or use
``run_to_end``). It checks ``cancel`` before every draft stretch and target step,
so a GUI worker stops it within one step; while loading the models it checks
before and after each load (an ONNX session creation itself cannot be
interrupted) and between the vocabulary checks. A cancelled run raises ``Cancelled``.
Each prompt runs speculatively and then target-only, with the same seed, so the
measured speedup compares the two on the same text.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Generator, Hashable, Iterable

import numpy as np

from model.mechanics import arithmetic as ar
from model.acceptance import Acceptance, alpha_interval, per_request_counts
from model.acceptance.interval import length_interval
from model.workbook.validation import K_LIMITS
from model.sampling.prompts import (DEMO_DRAFT, DEMO_PROMPTS, DEMO_TARGET, Prompt, check_prompt_fits, check_token_ids,
                                    load_prompts)
from model.common.cancel import CancelCheck, cancel_flag, raise_if_cancelled, run_to_end
from model.sampling.speculative import Cancelled, SpeculativeRun, TargetRun, speculative_generate, target_generate



@dataclass(frozen=True)
class SamplingProgress:
    prompts_done: int
    prompts_total: int
    tokens_per_second: float  # speculative tokens emitted per second of wall time so far
    seconds_left: float | None  # None until one prompt is done
    elapsed_seconds: float
    message: str = ""
    workers_alive: int | None = None  # a Ray run's workers able to take prompts; None on a local run
    # a Ray run's events: builds the SamplingResult over the prompts done so far, marked cancelled, so a front
    # end that stops reading at a cancel (closing the generator) keeps them. Call it once the run has stopped.
    partial: Callable[[], Any] | None = None


@dataclass
class ClassResult:
    """Acceptance and speed for one task class; the three acceptance conventions labelled."""

    task_class: str
    prompts: int
    stretches: int
    drafted_tokens: int
    accepted_tokens: int
    generated_tokens: int
    alpha: float  # per-token, maximum likelihood under the i.i.d. model
    draft_acceptance_rate: float  # accepted / drafted (vLLM)
    mean_acceptance_length: float  # 1 + accepted / stretches (vLLM, Spec-Bench)
    histogram: list[int]  # stretches by accepted drafts, 0..K
    position_acceptance: list[float | None]  # P(draft i accepted | drafts before it were)
    c_measured: float  # median draft forward / median target decode step
    v_measured: float  # median target verify pass (K+1 tokens) / median target decode step
    speedup_measured: float  # target-only decode seconds per token / speculative ones
    speedup_predicted: float  # arithmetic S(alpha, K, c_measured, v_measured)
    tokens_per_second_speculative: float
    tokens_per_second_target: float
    # the spread of the same ratio prompt by prompt (25th and 75th percentiles): wall-clock timings of
    # tiny models on a shared CPU are noise next to the acceptance, and the spread says how much
    speedup_measured_low: float = float("nan")
    speedup_measured_high: float = float("nan")
    # the interval on alpha with the prompt (request) as the unit (model.acceptance; sampling/intervals.py)
    alpha_interval: list[float] | None = None
    interval_note: str | None = None
    requests: int = 0  # prompts with at least one full stretch
    interval_method: str = ""
    interval_confidence: float | None = None
    # the interval on E at K from the same full stretches and unit: kept beside the profile Apply sets, which
    # decides E (model.workbook.measured_apply.shape_fields); None below 5 prompts
    mean_acceptance_length_interval: list[float] | None = None

    @property
    def acceptance(self) -> Acceptance:
        """What applying this class keeps in the workbook: alpha with its interval (or why there is none)."""
        lo, hi = self.alpha_interval or (None, None)
        return Acceptance(self.alpha, lo, hi, self.interval_confidence if lo is not None else None, self.requests,
                          self.stretches, self.interval_method or (self.interval_note or ""), sent=self.prompts)

    @property
    def profile(self) -> tuple[float, ...]:
        """The per-position profile measured (every stretch is seen, so every position's conditional rate),
        applied beside alpha so E at K is the measured one; () where some position was never reached."""
        rates = self.position_acceptance
        if not rates or any(r is None or not 0.0 <= r <= 1.0 for r in rates):  # NaN fails the range test
            return ()
        return tuple(float(r) for r in rates)  # type: ignore[arg-type]


@dataclass
class PromptResult:
    task_class: str
    line: int
    output_ids: list[int]
    accepted_counts: list[int]
    target_output_ids: list[int]
    output_text: str
    drafted_counts: list[int] = field(default_factory=list)  # per stretch: K, or fewer at the end
    # a Ray run's only: the node and worker process that measured it, and the attempts it took
    ran_on: str | None = None
    attempts: int | None = None
    prompt_key: str | None = None  # the prompt's text digest (Prompt.key): repeats of one text are one unit


@dataclass
class SamplingResult:
    provider: str
    k: int
    temperature: float
    seed: int
    max_new_tokens: int
    draft: str
    target: str
    classes: list[ClassResult] = field(default_factory=list)
    prompts: list[PromptResult] = field(default_factory=list)
    wall_seconds: float = 0.0
    ort_seconds: float = 0.0  # time inside onnxruntime calls, both models
    # a Ray run's only (ray_run.RayRunInfo as a dict): address, workers, nodes, retried and failed prompts
    ray: dict[str, Any] | None = None
    confidence: float = 0.95  # of every class's alpha_interval

    def class_result(self, task_class: str) -> ClassResult:
        return next(c for c in self.classes if c.task_class == task_class)

    def to_dict(self) -> dict[str, Any]:
        data = _clean(asdict(self))
        # a local run's JSON stays as it was: the Ray-only keys appear only where a Ray run filled them
        if data["ray"] is None:
            del data["ray"]
        for prompt in data["prompts"]:
            for key in ("ran_on", "attempts"):
                if prompt[key] is None:
                    del prompt[key]
        return data

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)


def _clean(value: Any) -> Any:
    """NaN is not JSON: write null where a figure does not exist."""
    if isinstance(value, float):
        return None if not np.isfinite(value) else value
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _median(xs: Iterable[float]) -> float:
    arr = np.fromiter(xs, dtype=np.float64)
    return float(np.median(arr)) if arr.size else float("nan")


def summarise_class(task_class: str, k: int, spec: list[SpeculativeRun], plain: list[TargetRun]) -> ClassResult:
    """Acceptance from the stretches that drafted all K; speed from all the work.

    A stretch shortened at the end of a generation (the token budget, a drafted stop
    token) is left out of the counts, the histogram and alpha: put in the histogram,
    its early end would read as a rejection and bias alpha down. Whether a stretch
    is shortened is settled before the target judges it, so leaving it out does not
    bias alpha under the i.i.d. model. Its tokens and time still count in the speed.
    """
    counts = [a for r in spec for a, d in zip(r.accepted_counts, r.drafted_counts) if d == k]
    full_verify = [s for r in spec for s, d in zip(r.verify_seconds, r.drafted_counts) if d == k]
    hist = np.bincount(np.asarray(counts, dtype=np.int64), minlength=k + 1)[: k + 1]
    stretches, accepted = len(counts), int(sum(counts))
    drafted = stretches * k
    alpha = ar.histogram_alpha(hist) if stretches else float("nan")
    # medians: one step preempted by another process on a busy machine would move a mean
    step = _median(s for r in plain for s in r.step_seconds)
    c = _median(s for r in spec for s in r.draft_step_seconds) / step
    v = _median(full_verify) / step  # a verify pass over K + 1 tokens
    spec_tokens = sum(len(r.output_ids) for r in spec)
    plain_tokens = sum(len(r.output_ids) for r in plain)
    spec_time = sum(r.decode_seconds for r in spec)
    plain_time = sum(r.decode_seconds for r in plain)
    tps_spec = spec_tokens / spec_time if spec_time > 0 else float("nan")
    tps_plain = plain_tokens / plain_time if plain_time > 0 else float("nan")
    pos = ar.histogram_position_acceptance(hist) if stretches else np.full(k, np.nan)
    # spec and plain ran interleaved, prompt by prompt, so each pair met the same machine load
    per_prompt = [(len(a.output_ids) / a.decode_seconds) / (len(b.output_ids) / b.decode_seconds)
                  for a, b in zip(spec, plain)
                  if a.decode_seconds > 0 and b.decode_seconds > 0 and a.output_ids and b.output_ids]
    low, high = (float(x) for x in np.percentile(per_prompt, [25, 75])) if per_prompt else (float("nan"),) * 2
    return ClassResult(
        task_class=task_class, prompts=len(spec), stretches=stretches, drafted_tokens=drafted,
        accepted_tokens=accepted, generated_tokens=spec_tokens, alpha=float(alpha),
        draft_acceptance_rate=accepted / drafted if drafted else float("nan"),
        mean_acceptance_length=1.0 + accepted / stretches if stretches else float("nan"),
        histogram=[int(x) for x in hist],
        position_acceptance=[None if not np.isfinite(x) else float(x) for x in pos],
        c_measured=c, v_measured=v, speedup_measured=tps_spec / tps_plain,
        speedup_predicted=float(ar.speedup(alpha, k, c, v)),
        tokens_per_second_speculative=tps_spec, tokens_per_second_target=tps_plain,
        speedup_measured_low=low, speedup_measured_high=high)


# no causal LM has a context this long: a bigger request is a typo, and would only fail after the models load
MAX_NEW_TOKENS = 1 << 20
MAX_K = K_LIMITS[1]
MAX_SEED = 2**63 - 1
# tokens (prompt room aside) a model may be asked for when its config.json states no context length
UNKNOWN_CONTEXT_BUDGET = 8192


def check_request(k: int, max_new_tokens: int, temperature: float, seed: int) -> None:
    """Refuse a request that cannot run, before anything is read or loaded."""
    if not 1 <= k <= MAX_K:
        raise ValueError(f"K must be from 1 to {MAX_K} (got {k})")
    if not 1 <= max_new_tokens <= MAX_NEW_TOKENS:
        raise ValueError(f"max_new_tokens must be from 1 to {MAX_NEW_TOKENS:,} (got {max_new_tokens})")
    if max_new_tokens <= k:
        # only stretches that draft all K measure acceptance, and one emits up to K + 1 tokens
        raise ValueError(f"max_new_tokens ({max_new_tokens}) must be more than K ({k}): a full stretch emits "
                         f"up to K + 1 tokens, and only full stretches measure acceptance")
    if not math.isfinite(temperature) or temperature < 0:
        raise ValueError(f"temperature must be a finite number, 0 (greedy) or more (got {temperature})")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be from 0 to {MAX_SEED} (got {seed})")


def check_budget_fits(model: Any, max_new_tokens: int, k: int) -> None:
    """A model whose config states no context length gets a bounded budget instead of an unbounded one."""
    if model.max_context is None and max_new_tokens + k + 1 > UNKNOWN_CONTEXT_BUDGET:
        raise ValueError(
            f"{model.name}: config.json states no context length (max_position_embeddings, n_positions, "
            f"n_ctx or seq_length), so max_new_tokens is limited to {UNKNOWN_CONTEXT_BUDGET - k - 1} at K = {k} "
            f"(got {max_new_tokens})")


def encode_prompts(draft: Any, target: Any, prompts: list[Prompt], prompts_path: str | Path, max_new_tokens: int,
                   k: int, check: Callable[[], bool] | None = None) -> list[list[int]]:
    """Every prompt's token ids, refused (naming the file and line) where a model could not run them."""
    encoded = []
    for p in prompts:
        raise_if_cancelled(check)  # thousands of prompts take a while to tokenize
        ids = target.encode(p.text)
        if not ids:
            raise ValueError(f"{prompts_path}, line {p.line}: the prompt encodes to no tokens")
        for model in (draft, target):
            check_token_ids(prompts_path, p, ids, model)
        for model in (draft, target):
            check_prompt_fits(prompts_path, p, len(ids), max_new_tokens + k + 1, model.max_context, model.name)
        encoded.append(ids)
    return encoded


def measure_prompt(draft: Any, target: Any, ids: list[int], index: int, k: int, max_new_tokens: int,
                   temperature: float, seed: int, check: Callable[[], bool] | None = None,
                   ) -> tuple[SpeculativeRun, TargetRun]:
    """One prompt speculatively, then target-only with the same seed.

    The generator is seeded by (seed, the prompt's position in its file) alone: not by the
    prompts run before it, nor by where it runs, so a Ray worker (ray_run.py) draws exactly
    what a local run draws for the same prompt.
    """
    rng_seed = [seed, index]
    stop = target.eos_ids
    spec = speculative_generate(draft, target, ids, k, max_new_tokens, temperature,
                                np.random.default_rng(rng_seed), check, stop)
    plain = target_generate(target, ids, max_new_tokens, temperature, np.random.default_rng(rng_seed), check, stop)
    return spec, plain


def run_sampling(draft_dir: str | Path = DEMO_DRAFT, target_dir: str | Path = DEMO_TARGET,
                 prompts_path: str | Path = DEMO_PROMPTS, k: int = 4, max_new_tokens: int = 48,
                 temperature: float = 0.0, seed: int = 0, provider: str = "auto",
                 cancel: CancelCheck = None, *, pair: tuple[Any, Any] | None = None,
                 ) -> Generator[SamplingProgress, None, SamplingResult]:
    """Run the pair over every prompt; yield progress, return the per-class result.

    Errors (missing files, not a causal LM, vocabulary mismatch, bad prompt file,
    a prompt longer than the context) raise ValueError subclasses with one-line
    messages before any generation starts. ``pair`` passes models already loaded.
    """
    check_request(k, max_new_tokens, temperature, seed)
    check = cancel_flag(cancel)
    raise_if_cancelled(check)  # cancelled before it started: load nothing
    started = time.perf_counter()
    prompts = load_prompts(prompts_path)
    yield SamplingProgress(0, len(prompts), 0.0, None, 0.0, "loading models")
    raise_if_cancelled(check)
    if pair is None:
        from model.sampling.onnx_lm import load_pair

        pair = load_pair(draft_dir, target_dir, provider, cancel=check)
    raise_if_cancelled(check)
    draft, target = pair
    for model in (draft, target):
        check_budget_fits(model, max_new_tokens, k)
    encoded = encode_prompts(draft, target, prompts, prompts_path, max_new_tokens, k, check)
    # one short untimed run so first-call allocations do not land in the first class
    speculative_generate(draft, target, encoded[0], k, min(4, max_new_tokens), 0.0, cancel=check)
    ort_before = draft.ort_seconds + target.ort_seconds
    by_class: dict[str, tuple[list[SpeculativeRun], list[TargetRun]]] = {}
    result = SamplingResult(provider=target.provider.description, k=k, temperature=temperature, seed=seed,
                            max_new_tokens=max_new_tokens, draft=str(draft.folder), target=str(target.folder))
    loop_start = time.perf_counter()
    emitted = 0
    for index, (p, ids) in enumerate(zip(prompts, encoded)):
        spec, plain = measure_prompt(draft, target, ids, index, k, max_new_tokens, temperature, seed, check)
        runs = by_class.setdefault(p.task_class, ([], []))
        runs[0].append(spec)
        runs[1].append(plain)
        result.prompts.append(PromptResult(p.task_class, p.line, spec.output_ids, spec.accepted_counts,
                                           plain.output_ids, target.decode(spec.output_ids),
                                           spec.drafted_counts, prompt_key=p.key))
        emitted += len(spec.output_ids)
        elapsed = time.perf_counter() - loop_start
        done = index + 1
        yield SamplingProgress(done, len(prompts), emitted / elapsed if elapsed > 0 else 0.0,
                               elapsed / done * (len(prompts) - done), time.perf_counter() - started,
                               p.task_class)
    result.classes = [summarise_class(name, k, spec, plain) for name, (spec, plain) in by_class.items()]
    attach_intervals(result, result.confidence)
    result.wall_seconds = time.perf_counter() - loop_start
    result.ort_seconds = draft.ort_seconds + target.ort_seconds - ort_before
    return result


def attach_intervals(result: SamplingResult, confidence: float = 0.95) -> SamplingResult:
    """Each class's interval on alpha at ``confidence``, from the full stretches prompt by prompt (the prompt
    is the unit: model.acceptance.interval says why and where it stops: fewer than 5 prompts, no interval)."""
    per_class: dict[str, list[list[int]]] = {}
    keys: dict[str, list[Hashable]] = {}
    for p in result.prompts:
        full = [a for a, d in zip(p.accepted_counts, p.drafted_counts) if d == result.k]
        per_class.setdefault(p.task_class, []).append(full)
        # by its text: two lines saying one prompt are one unit; a result from before the key, by its line
        keys.setdefault(p.task_class, []).append(p.prompt_key if p.prompt_key is not None else p.line)
    for c in result.classes:
        acc, trials, steps = per_request_counts(per_class.get(c.task_class, []), result.k)
        a = alpha_interval(acc, trials, confidence, steps, clusters=keys.get(c.task_class, []))
        c.alpha_interval = list(a.interval) if a.interval else None
        c.interval_note = a.note or None
        c.requests, c.interval_method = a.requests, a.method
        c.interval_confidence = confidence if a.interval else None
        e = length_interval(acc, steps, result.k, confidence, clusters=keys.get(c.task_class, []))
        c.mean_acceptance_length_interval = list(e.interval) if e.interval else None
    result.confidence = confidence
    return result


__all__ = ["MAX_NEW_TOKENS", "attach_intervals", "check_request", "Cancelled", "ClassResult", "Prompt", "PromptResult", "SamplingProgress", "SamplingResult",
           "run_sampling", "run_to_end", "summarise_class"]
