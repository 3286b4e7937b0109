"""Benchmark tools' files: AIPerf's exports and GuideLLM's reports.

- AIPerf (ai-dynamo/aiperf, aiperf/metrics/types/spec_decode_metrics.py and
  common/models/spec_decode_models.py): per request in profile_export.jsonl, "metrics" holds
  spec_decode_steps (verify steps), spec_decode_accepted_draft_tokens (bonus excluded),
  spec_decode_draft_tokens, spec_decode_acceptance_length (1 + accepted / steps), each as
  {"value": v, "unit": u}, and the record may carry spec_decode_acceptance with the histogram of steps
  by accepted drafts and num_spec_tokens (K). The aggregate profile_export_aiperf.json has
  total_spec_decode_steps, total_accepted_draft_tokens, total_draft_tokens (each {"avg": v, ...}),
  spec_decode_overall_draft_acceptance_rate (percent) and pooled_spec_decode_acceptance_histogram
  {"j": steps}. Neither states K for the run: --k, at least the histogram's top bucket.
- GuideLLM (vllm-project/guidellm, benchmark/schemas/report.py): a report {"metadata", "config",
  "benchmarks": [...]}; its requests carry timings and token counts, not the server's acceptance, so
  one is read only where a request holds a response with an engine's speculation fields.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Mapping

from model.engines.reports import ReportError, SpecCounts, combine
from model.engines.responses import speculation_from_response
from model.engines.spec_checks import MAX_COUNT, MAX_K, count_problem
from model.metrics.result import MetricsError

AIPERF_NOTE = ("AIPerf: acceptance length = 1 + accepted / verify steps (bonus token included); draft acceptance rate = "
               "accepted / draft tokens (percent); histogram = verify steps by accepted drafts; as the server reported them")
_AIPERF_TOTALS = ("total_spec_decode_steps", "total_accepted_draft_tokens", "total_draft_tokens")
AIPERF_HISTOGRAM = "pooled_spec_decode_acceptance_histogram"


def _value(node: Any) -> Any:
    """AIPerf writes a metric as {"value": v, "unit": u} per record and {"avg": v, ...} in the aggregate."""
    if isinstance(node, Mapping):
        for key in ("value", "avg", "sum"):
            if key in node:
                return node[key]
    return node


def _count(node: Any, where: str) -> float:
    value = _value(node)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MetricsError(f"{where}: expected a count, got {value!r}")
    if not (math.isfinite(value) and 0 <= value <= MAX_COUNT):
        raise MetricsError(f"{where}: {value!r} is not a count (negative, NaN, infinite or past 2^53)")
    return float(value)


def _k(node: Any, where: str) -> int:
    """K as a whole number of draft tokens in 1..64; 4.7 is refused, not read as 4."""
    value = _count(node, where)
    if value != int(value) or not 1 <= value <= MAX_K:
        raise MetricsError(f"{where}: K must be a whole number of draft tokens from 1 to {MAX_K}, got {_value(node)!r}")
    return int(value)


def _histogram(node: Any, where: str) -> tuple[float, ...]:
    if not isinstance(node, Mapping):
        raise MetricsError(f"{where}: expected an object of accepted drafts -> steps")
    pairs: dict[int, float] = {}
    for key, value in node.items():
        try:
            j = int(key)
        except (TypeError, ValueError):
            raise MetricsError(f"{where}: key {key!r} is not a number of accepted drafts") from None
        if j < 0 or j > 64:
            raise MetricsError(f"{where}: key {j} is outside 0..64 accepted drafts")
        pairs[j] = _count(value, f"{where}[{key}]")
    return tuple(pairs.get(j, 0.0) for j in range(max(pairs, default=-1) + 1))


def aiperf_metrics(obj: Any) -> Mapping[str, Any] | None:
    """The dict holding AIPerf's aggregate spec-decode metrics, or None when `obj` is no such export."""
    if not isinstance(obj, Mapping):
        return None
    for node in (obj, obj.get("records"), obj.get("metrics")):
        if isinstance(node, Mapping) and (AIPERF_HISTOGRAM in node or any(k in node for k in _AIPERF_TOTALS)):
            return node
    return None


def is_aiperf_export(obj: Any) -> bool:
    return isinstance(obj, Mapping) and any(k in obj for k in ("aiperf_version", "input_config", "request_latency",
                                                               "output_token_throughput"))


def aiperf_aggregate(node: Mapping[str, Any], hist_node: Any, file: str) -> tuple[SpecCounts, list[str]]:
    values = {k: _count(node[k], f"{file}: {k}") for k in _AIPERF_TOTALS if k in node}
    hist = _histogram(hist_node, f"{file}: {AIPERF_HISTOGRAM}") if hist_node is not None else None
    own = {k: _value(node[k]) for k in ("spec_decode_token_weighted_acceptance_length",
                                         "spec_decode_overall_draft_acceptance_rate") if k in node}
    counts = SpecCounts(engine="aiperf", drafts=values.get("total_spec_decode_steps"),
                        draft_tokens=values.get("total_draft_tokens"), accepted_tokens=values.get("total_accepted_draft_tokens"),
                        histogram=hist, convention_note=AIPERF_NOTE, engine_values=own)
    return _checked(counts, file), ["AIPerf aggregate export: no K for the run (give --k; at least the histogram's top bucket)"]


def aiperf_record(obj: Mapping[str, Any], where: str) -> SpecCounts | None:
    metrics = obj.get("metrics")
    if not isinstance(metrics, Mapping) or "spec_decode_steps" not in metrics:
        return None
    steps = _count(metrics["spec_decode_steps"], f"{where}: metrics.spec_decode_steps")
    accepted = _count(metrics.get("spec_decode_accepted_draft_tokens"), f"{where}: metrics.spec_decode_accepted_draft_tokens")
    drafted = (_count(metrics["spec_decode_draft_tokens"], f"{where}: metrics.spec_decode_draft_tokens")
               if "spec_decode_draft_tokens" in metrics else None)
    spec = obj.get("spec_decode_acceptance")
    hist, k = None, None
    if isinstance(spec, Mapping):
        if spec.get("acceptance_histogram") is not None:
            hist = _histogram(spec["acceptance_histogram"], f"{where}: spec_decode_acceptance.acceptance_histogram")
        if spec.get("num_spec_tokens") is not None:
            k = _k(spec["num_spec_tokens"], f"{where}: spec_decode_acceptance.num_spec_tokens")
    own = {"spec_decode_acceptance_length": _value(metrics["spec_decode_acceptance_length"])} \
        if "spec_decode_acceptance_length" in metrics else {}
    counts = SpecCounts(engine="aiperf", k=k, drafts=steps, draft_tokens=drafted, accepted_tokens=accepted, histogram=hist,
                        convention_note=AIPERF_NOTE, engine_values=own)
    if hist is not None and k is not None:
        counts = replace(counts, histogram=hist + (0.0,) * max(0, k + 1 - len(hist)))
    return _checked(counts, where)


def is_guidellm_report(obj: Any) -> bool:
    return isinstance(obj, Mapping) and isinstance(obj.get("benchmarks"), list) and ("config" in obj or "metadata" in obj)


def guidellm_report(obj: Mapping[str, Any], file: str) -> tuple[list[tuple[str, SpecCounts]], int]:
    """Requests of a GuideLLM report that carry an engine's speculation fields, and how many requests it has."""
    found: list[tuple[str, SpecCounts]] = []
    total = 0
    for b, bench in enumerate(obj["benchmarks"]):
        requests = bench.get("requests") if isinstance(bench, Mapping) else None
        groups = requests.values() if isinstance(requests, Mapping) else [requests] if isinstance(requests, list) else []
        for group in groups:
            for i, req in enumerate(group if isinstance(group, list) else []):
                total += 1
                if not isinstance(req, Mapping):
                    continue
                where = f"{file}: benchmarks[{b}] request {i}"
                for body in (req, req.get("response"), req.get("info")):
                    if not isinstance(body, Mapping):
                        continue
                    try:
                        counts = speculation_from_response(body)
                    except ReportError as exc:
                        raise MetricsError(f"{where}: {exc}") from None
                    if counts is not None:
                        found.append((f"benchmark {b} request {i}", _checked(counts, where)))
                        break
    return found, total


def combined(parts: list[SpecCounts], where: str) -> SpecCounts:
    try:
        return combine(parts)
    except ReportError as exc:
        raise MetricsError(f"{where}: {exc}") from None


def _checked(counts: SpecCounts, where: str) -> SpecCounts:
    problem = count_problem(counts)
    if problem:
        raise MetricsError(f"{where}: {problem}")
    return counts
