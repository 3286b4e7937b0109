"""JSON sources: per-request records (JSON lines, or a JSON array such as trtllm-serve's /perf_metrics),
`vllm bench serve --save-result` output, and SpecLedger's own `sample --json` result.

- Per-request records go through model.engines.responses.speculation_from_response, one record per line:
  the response body itself, or {"task_class": ..., "response": {...}, "headers": {...}}; a top-level
  `task_class` is read either way. Records are added up per task class.
- vllm bench serve (vllm/benchmarks/serve.py, from the /metrics counters before and after the run):
  spec_decode_num_drafts, spec_decode_draft_tokens, spec_decode_accepted_tokens,
  spec_decode_acceptance_rate (a percentage: accepted / draft tokens x 100), spec_decode_acceptance_length
  (1 + accepted / drafts), spec_decode_per_position_acceptance_rates (cumulative, one per position: K).
"""
from __future__ import annotations

import json
import math
from typing import Any, Iterable, Mapping

from model.engines.reports import VLLM_NOTE, ReportError, SpecCounts, combine
from model.engines.responses import speculation_from_response
from model.common.formatting import count
from model.engines.spec_checks import MAX_K, count_problem
from model.metrics import llamacpp_extra
from model.metrics.prompt_keys import record_prompt
from model.metrics.fields import block_k
from model.metrics.result import MetricsError

SAMPLE_NOTE = ("SpecLedger sample: stretches that drafted all K; alpha by maximum likelihood on the histogram; "
               "draft acceptance rate = accepted / drafted; mean acceptance length = 1 + accepted / stretches")


def _finite(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise MetricsError(f"{where}: expected a non-negative number, got {value!r}")
    return float(value)


def is_vllm_bench(obj: Any) -> bool:
    return isinstance(obj, Mapping) and any(str(key).startswith("spec_decode_") for key in obj)


def is_sample_result(obj: Any) -> bool:
    return (isinstance(obj, Mapping) and isinstance(obj.get("classes"), list) and "k" in obj
            and "draft" in obj and "target" in obj)


def read_vllm_bench(obj: Mapping[str, Any], file: str) -> tuple[SpecCounts, list[str]]:
    if "spec_decode_num_drafts" not in obj:
        raise MetricsError(f"{file}: a vllm bench serve result without spec_decode_num_drafts (run with a newer vLLM, "
                           "or import the /metrics scrapes instead)")
    drafts = _finite(obj["spec_decode_num_drafts"], f"{file}: spec_decode_num_drafts")
    rates = obj.get("spec_decode_per_position_acceptance_rates") or []
    if not isinstance(rates, list):
        raise MetricsError(f"{file}: spec_decode_per_position_acceptance_rates is not a list")
    if len(rates) > MAX_K:
        raise MetricsError(f"{file}: spec_decode_per_position_acceptance_rates has {len(rates):,} positions; K is 1 to {MAX_K}")
    fractions = tuple(_finite(r, f"{file}: spec_decode_per_position_acceptance_rates[{i}]") for i, r in enumerate(rates))
    own = {key: obj[key] for key in ("spec_decode_acceptance_rate", "spec_decode_acceptance_length") if key in obj}
    draft_tokens = _finite(obj.get("spec_decode_draft_tokens", 0), f"{file}: spec_decode_draft_tokens")
    notes = [f"vllm bench serve result ({obj.get('model_id') or obj.get('model') or 'model not named'})"]
    k, fractions = block_k(fractions, drafts, draft_tokens, f"{file}: spec_decode_per_position_acceptance_rates", notes)
    pos = tuple(r * drafts for r in fractions)
    counts = SpecCounts(
        engine="vllm", k=k if rates else None, drafts=drafts, draft_tokens=draft_tokens,
        accepted_tokens=_finite(obj.get("spec_decode_accepted_tokens", 0), f"{file}: spec_decode_accepted_tokens"),
        per_position_accepted=pos or None, convention_note=VLLM_NOTE + " (vllm bench serve prints the rate in percent)",
        engine_values=own)
    return counts, notes


def read_sample_result(obj: Mapping[str, Any], file: str) -> list[tuple[str, SpecCounts, list[str]]]:
    k = obj.get("k")
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
        raise MetricsError(f"{file}: k must be a whole number of draft tokens from 1 to {MAX_K}, got {k!r}")
    note = f"measured by specledger sample ({obj.get('provider')}; draft {obj.get('draft')}, target {obj.get('target')})"
    out = []
    for i, c in enumerate(obj["classes"]):
        where = f"{file}: classes[{i}]"
        if not isinstance(c, Mapping) or not isinstance(c.get("task_class"), str):
            raise MetricsError(f"{where}: expected an object with a task_class name")
        hist = c.get("histogram")
        if not isinstance(hist, list) or len(hist) != k + 1:
            raise MetricsError(f"{where}.histogram: expected K + 1 = {k + 1} counts")
        hist_t = tuple(_finite(h, f"{where}.histogram") for h in hist)
        counts = SpecCounts(engine="specledger-sample", k=k, drafts=_finite(c.get("stretches", sum(hist_t)), f"{where}.stretches"),
                            draft_tokens=_finite(c.get("drafted_tokens", sum(hist_t) * k), f"{where}.drafted_tokens"),
                            accepted_tokens=_finite(c.get("accepted_tokens", 0), f"{where}.accepted_tokens"),
                            histogram=hist_t, convention_note=SAMPLE_NOTE)
        out.append((c["task_class"], counts, [note]))
    if not out:
        raise MetricsError(f"{file}: a sample result without classes")
    return out


def read_sample_requests(obj: Mapping[str, Any], file: str, k: int
                         ) -> dict[str, tuple[list[tuple[str, SpecCounts]], list[str | None]]]:
    """Per class, each prompt's full stretches as one request (its histogram, as the class's counts it) and the
    prompt's key: the records sample's own interval is made from, so an imported sample result has the same
    interval (it said 'counts only: interval unknown'). {} for a result that keeps no stretches per prompt."""
    prompts = obj.get("prompts")
    if not isinstance(prompts, list):
        return {}
    out: dict[str, tuple[list[tuple[str, SpecCounts]], list[str | None]]] = {}
    for i, p in enumerate(prompts):
        where = f"{file}: prompts[{i}]"
        if not isinstance(p, Mapping) or not isinstance(p.get("task_class"), str):
            raise MetricsError(f"{where}: expected an object with a task_class name")
        accepted, drafted = p.get("accepted_counts"), p.get("drafted_counts")
        if not isinstance(accepted, list) or not isinstance(drafted, list) or len(drafted) != len(accepted):
            return {}  # a result from before drafted_counts: which stretches were full is unknown
        hist = [0.0] * (k + 1)
        for a, d in zip(accepted, drafted):
            if any(isinstance(x, bool) or not isinstance(x, int) for x in (a, d)) or not 0 <= a <= d <= k:
                raise MetricsError(f"{where}: a stretch accepted {a!r} of {d!r} drafts; expected whole numbers, "
                                   f"0 <= accepted <= drafted <= K = {k}")
            if d == k:
                hist[a] += 1
        key = p.get("prompt_key")
        requests, keys = out.setdefault(p["task_class"], ([], []))
        requests.append((f"prompts[{i}]", SpecCounts(engine="specledger-sample", k=k, histogram=tuple(hist),
                                                     convention_note=SAMPLE_NOTE)))
        keys.append(key if isinstance(key, str) and key else f"line {p.get('line')!r} of class {p['task_class']}")
    return out


def read_records(items: Iterable[tuple[int, Any]], file: str, engine: str,
                 ) -> list[tuple[str | None, SpecCounts, list[str], list[tuple[str, SpecCounts]], list[str | None]]]:
    """Per-request records, as (line, parsed JSON) pairs, read as they come; added up per task class, with each
    request's prompt where the record names it (prompt_keys.record_prompt), else None.

    SGLang's JSON request log ("request.finished") keeps the response under "out"."""
    by_class: dict[str | None, list[tuple[str, SpecCounts]]] = {}
    prompts: dict[str | None, list[str | None]] = {}
    without: list[int] = []
    seen_engine: tuple[str, int] | None = None
    n_items = without_count = 0
    recognised: str | None = None  # what the records were recognised as, where none carries speculation counts
    for line, obj in items:
        n_items += 1
        if not isinstance(obj, Mapping):
            raise MetricsError(f"{file}:{line}: a record must be a JSON object")
        body = next((obj[key] for key in ("response", "out") if isinstance(obj.get(key), Mapping)), obj)
        headers = obj.get("headers") if isinstance(obj.get("headers"), Mapping) else None
        task_class = obj.get("task_class", body.get("task_class"))
        if task_class is not None and (not isinstance(task_class, str) or not task_class.strip()):
            raise MetricsError(f"{file}:{line}: task_class must be a name, got {task_class!r}")
        try:
            counts = _llamacpp_timings(body, f"{file}:{line}") or speculation_from_response(body, headers)
        except ReportError as exc:
            raise MetricsError(f"{file}:{line}: {exc}") from None
        problem = count_problem(counts) if counts is not None else None
        if problem:
            raise MetricsError(f"{file}:{line}: {problem}")
        if counts is None:
            without_count += 1
            if len(without) < 5:  # the first few named; a big file of other records costs no memory
                without.append(line)
                recognised = recognised or _recognised(body)
            continue
        usage = counts.engine in ("openai-predicted-outputs", "fireworks")
        if engine != "auto" and (counts.engine != engine if engine != "usage" else not usage):
            raise MetricsError(f"{file}:{line}: a {counts.engine} record, but --engine {engine} was given")
        if seen_engine is not None and counts.engine != seen_engine[0]:
            raise MetricsError(f"{file}:{line}: a {counts.engine} record after {seen_engine[0]} records "
                               f"(line {seen_engine[1]}); import one engine's records per file")
        seen_engine = seen_engine or (counts.engine, line)
        name = str(obj.get("id") or body.get("id") or f"line {line}")[:80]
        cls = task_class.strip() if task_class else None
        by_class.setdefault(cls, []).append((name, counts))
        prompts.setdefault(cls, []).append(record_prompt(obj, body))
    if not by_class:
        if recognised:
            raise MetricsError(f"{file}: {recognised}")
        raise MetricsError(f"{file}: none of its {n_items} records reports speculative decoding "
                           "(no metrics.speculative_decoding, meta_info spec fields, timings.draft_n, ...)")
    out = []
    for task_class, named in by_class.items():
        parts = [c for _, c in named]
        try:
            total = combine(parts)
        except ReportError as exc:
            raise MetricsError(f"{file}: class {task_class or '(none)'}: {exc}") from None
        notes = [f"{count(len(parts), 'request')} added up"]
        if without:
            shown = ", ".join(str(n) for n in without) + (" ..." if without_count > len(without) else "")
            notes.append(f"{without_count} records without speculation fields left out (lines {shown})")
        out.append((task_class, total, notes, named, prompts[task_class]))
    return out


def records_format(kind: str, counts: SpecCounts) -> str:
    """The records' format in words, with the engine's fields they were read from where that says more."""
    if counts.engine == "llamacpp" and counts.steps_range is not None:
        return f"{kind}: llama.cpp timings (draft_n, draft_n_accepted, predicted_n)"
    if counts.engine == "sglang":
        return f"{kind}: SGLang spec fields (spec_verify_ct, drafts, histogram)"
    return kind


def _recognised(body: Mapping[str, Any]) -> str | None:
    """What a record without speculation counts was recognised as, and what it lacks, for the refusal."""
    meta = body.get("meta_info") if isinstance(body.get("meta_info"), Mapping) else body
    spec = body.get("sglext", {}).get("spec_tokens_details") if isinstance(body.get("sglext"), Mapping) else None
    for where in (meta, spec if isinstance(spec, Mapping) else {}):
        length, rate = where.get("spec_accept_length"), where.get("spec_accept_rate")
        if isinstance(length, (int, float)) and "spec_verify_ct" not in where:
            return (f"SGLang spec fields: accept length {length:g}" + (f" and accept rate {rate:g}" if isinstance(rate, (int, float))
                    else "") + " read, but no spec_verify_ct or draft counts; type them with their convention: "
                    f"--stated 'length={length:g},k=K'")
    if isinstance(body.get("timings"), Mapping):
        return ("llama.cpp responses (timings), but no timings.draft_n: the server ran without a draft model or "
                "speculative type")
    if isinstance(body.get("sglext"), Mapping) or "meta_info" in body:
        return ("SGLang responses, but no spec fields (meta_info.spec_verify_ct, sglext.spec_tokens_details): started "
                "without --speculative-algorithm, or requested without return_spec_tokens_details")
    if "choices" in body:
        return ("OpenAI-compatible responses carrying no speculation fields (vLLM's metrics.speculative_decoding, "
                "SGLang's sglext.spec_tokens_details, llama.cpp's timings.draft_n): the server reports none in its "
                "responses; import its /metrics or log")
    return None


def _llamacpp_timings(body: Mapping[str, Any], where: str) -> SpecCounts | None:
    """llama.cpp `timings` as copied (the object alone), or a response's `timings` with predicted_n: the verify
    steps bounded rather than taken as draft_n / K (model.metrics.llamacpp_extra)."""
    if llamacpp_extra.is_bare_timings(body):
        return llamacpp_extra.timings_counts(body, where)
    timings = body.get("timings")
    if llamacpp_extra.is_bare_timings(timings) and "predicted_n" in timings:
        return llamacpp_extra.timings_counts(timings, f"{where}: timings")
    return None


def json_lines(text: str, file: str) -> list[tuple[int, Any]]:
    items = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            items.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise MetricsError(f"{file}:{number}: not JSON ({exc.msg})") from None
    return items
