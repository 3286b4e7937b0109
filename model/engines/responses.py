"""Reading the speculation fields one response carries (body and headers) into `SpecCounts`.

`speculation_from_response` serves the probe's "alpha reported by the server" and the per-request records
that `import-metrics` reads; each engine's parser writes down the engine's own definition and where it was
read from (the conventions themselves are in model.engines.reports, beside the counts they describe).

Core module: imports model.engines.reports, model.engines.spec_checks and the standard library only.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from model.engines.reports import (FIREWORKS_NOTE, LLAMACPP_NOTE, PREDICTED_NOTE, SGLANG_NOTE, TRTLLM_NOTE,
                                  VLLM_NOTE, ReportError, SpecCounts)
from model.engines.spec_checks import MAX_COUNT, MAX_K, count_problem


# --- reading one response ------------------------------------------------------------------

def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ReportError(f"{where}: expected a non-negative number, got {value!r}")
    if value > MAX_COUNT:
        raise ReportError(f"{where}: {value!r} is past 2^53, not a count a server keeps")
    return float(value)


def _counts_list(value: Any, where: str) -> tuple[float, ...]:
    if isinstance(value, Mapping):  # sparse {"j": count}, keys are strings on the wire
        try:
            pairs = {int(k): _number(v, f"{where}[{k}]") for k, v in value.items()}
        except (TypeError, ValueError) as exc:
            if isinstance(exc, ReportError):
                raise
            raise ReportError(f"{where}: keys must be accepted-draft counts, got {list(value)!r}") from None
        if any(j < 0 for j in pairs):
            raise ReportError(f"{where}: negative accepted-draft count")
        if any(j > MAX_K for j in pairs):
            raise ReportError(f"{where}: an accepted-draft count past K's bound of {MAX_K}")
        return tuple(pairs.get(j, 0.0) for j in range(max(pairs, default=-1) + 1))
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise ReportError(f"{where}: expected a list of counts, got {value!r}")
    if len(value) > MAX_K + 1:
        raise ReportError(f"{where}: {len(value):,} entries; K is 1 to {MAX_K}, so at most {MAX_K + 1}")
    return tuple(_number(v, f"{where}[{i}]") for i, v in enumerate(value))


def _get(body: Mapping[str, Any], *path: str) -> Any:
    node: Any = body
    for key in path:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


def _int_k(value: Any, where: str) -> int | None:
    if value is None:
        return None
    k = _number(value, where)
    if k != int(k) or k < 1:
        raise ReportError(f"{where}: K must be a whole number of draft tokens >= 1, got {value!r}")
    return int(k)


def _vllm_request(spec: Mapping[str, Any]) -> SpecCounts:
    # vLLM --per-request-spec-decode-metrics summary|detailed, metrics.speculative_decoding (experimental;
    # docs/features/speculative_decoding/acceptance_metrics.md at vLLM commit 02cf515): num_spec_steps,
    # num_draft_tokens (after structured-output invalidation), num_accepted_draft_tokens (bonus excluded),
    # acceptance_histogram (dense, K + 1 long), acceptance_histogram_by_draft_length {"k": [...]}, num_spec_tokens = K
    where = "metrics.speculative_decoding"
    k = _int_k(spec.get("num_spec_tokens"), f"{where}.num_spec_tokens")
    hist, partial, rejections = None, False, None
    by_length = spec.get("acceptance_histogram_by_draft_length")
    if isinstance(by_length, Mapping) and by_length:
        rejections = _rejections_by_length(by_length, f"{where}.acceptance_histogram_by_draft_length")
    if k is not None and isinstance(by_length, Mapping) and str(k) in by_length:
        hist = _counts_list(by_length[str(k)], f"{where}.acceptance_histogram_by_draft_length[{k}]")  # full drafts only
        partial = True
    elif spec.get("acceptance_histogram") is not None:
        hist = _counts_list(spec["acceptance_histogram"], f"{where}.acceptance_histogram")
    own = {key: spec[key] for key in ("mean_acceptance_length", "draft_acceptance_rate") if key in spec}

    def first(*names: str) -> float | None:
        # the documented names first; the /metrics counters' names (num_drafts, num_accepted_tokens) also
        # appear in per-request records, e.g. those of SpecLedger's serve-demo
        name = next((n for n in names if spec.get(n) is not None), None)
        return None if name is None else _number(spec[name], f"{where}.{name}")

    per_pos = spec.get("num_accepted_tokens_per_pos")
    pos = _counts_list(per_pos, f"{where}.num_accepted_tokens_per_pos") if per_pos is not None else None
    if k is None and pos:
        k = len(pos)
    return SpecCounts(
        engine="vllm", k=k, drafts=first("num_spec_steps", "num_drafts"), draft_tokens=first("num_draft_tokens"),
        accepted_tokens=first("num_accepted_draft_tokens", "num_accepted_tokens"), per_position_accepted=pos or None,
        histogram=hist, convention_note=VLLM_NOTE, engine_values=own, histogram_partial=partial, rejections=rejections)


def _rejections_by_length(by_length: Mapping[str, Any], where: str) -> float:
    """Steps that rejected a draft, from vLLM's histogram by proposed draft length: row d counts steps that
    accepted j of d drafts, so j < d is a rejection and j = d a draft wholly accepted, however short."""
    total = 0.0
    for key, row in by_length.items():
        try:
            d = int(key)
        except (TypeError, ValueError):
            raise ReportError(f"{where}: key {key!r} is not a draft length") from None
        if not 0 <= d <= MAX_K:
            raise ReportError(f"{where}: draft length {d} is outside 0..{MAX_K}")
        counts = _counts_list(row, f"{where}[{key}]")
        if len(counts) > d + 1:
            raise ReportError(f"{where}[{key}]: {len(counts)} buckets for drafts of {d} tokens ({d + 1} at most)")
        total += sum(counts[:d])
    return total


_SGLANG_ACCEPTED = ("spec_num_correct_drafts", "spec_accepted_drafts", "spec_accept_token_num")
_SGLANG_PROPOSED = ("spec_num_proposed_drafts", "spec_proposed_drafts", "spec_draft_token_num")
_SGLANG_HISTOGRAM = ("spec_correct_drafts_histogram", "spec_accept_histogram")


def _sglang_request(meta: Mapping[str, Any], where: str = "meta_info") -> SpecCounts:
    # SGLang meta_info (tokenizer manager's fill_spec_decoding_meta; names changed across releases:
    # spec_accept_token_num / spec_draft_token_num in 0.5.x, then spec_accepted_drafts / spec_proposed_drafts,
    # now spec_num_correct_drafts / spec_num_proposed_drafts with the older names as aliases).
    # proposed = spec_verify_ct x (speculative_num_draft_tokens - 1), so K = proposed / verify steps;
    # spec_accept_length = completion_tokens / spec_verify_ct, bonus (and the prefill token) included.
    verify = _number(meta["spec_verify_ct"], f"{where}.spec_verify_ct")
    accepted_key = next((key for key in _SGLANG_ACCEPTED if key in meta), None)
    proposed_key = next((key for key in _SGLANG_PROPOSED if key in meta), None)
    hist_key = next((key for key in _SGLANG_HISTOGRAM if meta.get(key)), None)
    accepted = _number(meta[accepted_key], f"{where}.{accepted_key}") if accepted_key else None
    proposed = _number(meta[proposed_key], f"{where}.{proposed_key}") if proposed_key else None
    k = None
    if proposed and verify:
        ratio = proposed / verify
        if abs(ratio - round(ratio)) > 1e-9 or round(ratio) < 1:
            raise ReportError(f"{where}.{proposed_key}: {proposed:g} draft tokens over {verify:g} verify steps is not a whole K")
        k = int(round(ratio))
    hist = _counts_list(meta[hist_key], f"{where}.{hist_key}") if hist_key else None
    if hist is not None and k is not None:
        if len(hist) > k + 1:
            raise ReportError(f"{where}.{hist_key}: {len(hist)} entries, more than K + 1 = {k + 1}")
        hist = hist + (0.0,) * (k + 1 - len(hist))  # SGLang grows the list only as far as it needed
    if accepted is None and "completion_tokens" in meta:
        # before the accepted counter existed only the tokens per verify step were reported
        accepted = max(_number(meta["completion_tokens"], f"{where}.completion_tokens") - verify, 0.0)
    own = {key: meta[key] for key in ("spec_accept_length", "spec_accept_rate") if key in meta}
    return SpecCounts(engine="sglang", k=k, drafts=verify, draft_tokens=proposed, accepted_tokens=accepted,
                      histogram=hist, convention_note=SGLANG_NOTE, engine_values=own)


def _trtllm_request(spec: Mapping[str, Any], where: str) -> SpecCounts:
    # TensorRT-LLM RequestPerfMetrics::SpeculativeDecodingMetrics (executor.h; trtllm-serve return_perf_metrics):
    # acceptance_rate = total_accepted_draft_tokens / total_draft_tokens; drafts per step are capped at
    # the max draft path length, and the number of steps is not reported.
    own = {"acceptance_rate": spec["acceptance_rate"]} if "acceptance_rate" in spec else {}
    return SpecCounts(engine="trtllm",
                      draft_tokens=_number(spec.get("total_draft_tokens"), f"{where}.total_draft_tokens"),
                      accepted_tokens=_number(spec.get("total_accepted_draft_tokens"), f"{where}.total_accepted_draft_tokens"),
                      convention_note=TRTLLM_NOTE, engine_values=own)


def _fireworks(value: str, where: str) -> SpecCounts:
    # Fireworks: "1:hits/total,2:hits/total,..." (as parsed by Fireworks' public benchmark client)
    pairs: dict[int, tuple[float, float]] = {}
    try:
        for part in value.split(","):
            position, fraction = part.strip().split(":")
            hits, total = fraction.split("/")
            pairs[int(position)] = (float(hits), float(total))
    except ValueError:
        raise ReportError(f"{where}: expected 'position:accepted/attempted,...', got {value!r}") from None
    positions = sorted(pairs)
    if not positions or positions != list(range(positions[0], positions[0] + len(positions))):
        raise ReportError(f"{where}: positions are not consecutive: {value!r}")
    hits = tuple(pairs[p][0] for p in positions)
    return SpecCounts(engine="fireworks", k=len(positions), drafts=pairs[positions[0]][1],
                      accepted_tokens=float(sum(hits)), per_position_accepted=hits,
                      convention_note=FIREWORKS_NOTE, engine_values={"speculation-acceptance": value})


def speculation_from_response(body: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> SpecCounts | None:
    """The speculation counts one response reports, or None when it reports none; ReportError naming the field
    where a field cannot be read or the fields contradict each other (model.engines.spec_checks.count_problem: the checks
    an imported file's counts get), so an impossible response is never turned into an acceptance or a K."""
    counts = _speculation(body, headers)
    problem = count_problem(counts) if counts is not None else None
    if problem:
        raise ReportError(problem)
    return counts


def _speculation(body: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> SpecCounts | None:
    """The speculation counts one response reports, or None when it reports none.

    Reads vLLM `metrics.speculative_decoding`, SGLang `meta_info`, TensorRT-LLM
    `request_perf_metrics.speculative_decoding` (or trtllm-serve's `perf_metrics`), llama.cpp
    `timings.draft_n / draft_n_accepted`, Fireworks `fireworks-speculation-*` headers, and OpenAI-style
    `usage.completion_tokens_details` prediction tokens (labelled Predicted Outputs). A field that is
    there but unreadable raises ReportError naming it; nothing is guessed.
    """
    if not isinstance(body, Mapping):
        raise ReportError(f"response body must be a JSON object, got {type(body).__name__}")
    spec = _get(body, "metrics", "speculative_decoding")
    if isinstance(spec, Mapping):
        return _vllm_request(spec)
    meta = body.get("meta_info")
    if isinstance(meta, Mapping) and "spec_verify_ct" in meta:
        return _sglang_request(meta)
    # SGLang's OpenAI-compatible responses with return_spec_tokens_details: the same fields under
    # sglext.spec_tokens_details (SpecTokensDetails); or the fields as a user copied them, on their own
    details = _get(body, "sglext", "spec_tokens_details")
    if isinstance(details, Mapping) and "spec_verify_ct" in details:
        return _sglang_request(details, "sglext.spec_tokens_details")
    if "spec_verify_ct" in body and any(key in body for key in (*_SGLANG_ACCEPTED, *_SGLANG_PROPOSED, *_SGLANG_HISTOGRAM,
                                                                  "spec_accept_length", "spec_accept_rate")):
        return _sglang_request(body, "response")
    for outer in ("request_perf_metrics", "perf_metrics"):
        spec = _get(body, outer, "speculative_decoding")
        if isinstance(spec, Mapping) and "total_draft_tokens" in spec:
            return _trtllm_request(spec, f"{outer}.speculative_decoding")
    timings = body.get("timings")
    if isinstance(timings, Mapping) and "draft_n" in timings:
        # llama.cpp server (tools/server): per-response timings; draft_n_accepted counts accepted drafts only
        return SpecCounts(engine="llamacpp", draft_tokens=_number(timings["draft_n"], "timings.draft_n"),
                          accepted_tokens=_number(timings.get("draft_n_accepted", 0), "timings.draft_n_accepted"),
                          convention_note=LLAMACPP_NOTE)
    lowered = {str(k).lower(): str(v) for k, v in (headers or {}).items()}
    acceptance = lowered.get("fireworks-speculation-acceptance") or _get(body, "perf_metrics", "speculation-acceptance")
    if isinstance(acceptance, str) and acceptance.strip():
        return _fireworks(acceptance, "fireworks-speculation-acceptance")
    details = _get(body, "usage", "completion_tokens_details")
    if isinstance(details, Mapping) and ("accepted_prediction_tokens" in details or "rejected_prediction_tokens" in details):
        where = "usage.completion_tokens_details"
        accepted = _number(details.get("accepted_prediction_tokens") or 0, f"{where}.accepted_prediction_tokens")
        rejected = _number(details.get("rejected_prediction_tokens") or 0, f"{where}.rejected_prediction_tokens")
        if accepted + rejected == 0:
            return None  # OpenAI sends zeros on every response without a prediction
        return SpecCounts(engine="openai-predicted-outputs", draft_tokens=accepted + rejected, accepted_tokens=accepted,
                          convention_note=PREDICTED_NOTE, predicted_outputs=True)
    return None


def speculation_from_recorded(reported: Mapping[str, Any]) -> SpecCounts | None:
    """The counts of a request as a SpecLedger probe run file records them (`reported`: the speculation
    fields the server gave, its headers under "headers", usage details under "completion_tokens_details")."""
    if not isinstance(reported, Mapping):
        raise ReportError(f"reported: expected a JSON object, got {type(reported).__name__}")
    body: dict[str, Any] = {k: v for k, v in reported.items() if k not in ("headers", "completion_tokens_details")}
    if "completion_tokens_details" in reported:
        body["usage"] = {"completion_tokens_details": reported["completion_tokens_details"]}
    headers = reported.get("headers")
    return speculation_from_response(body, headers if isinstance(headers, Mapping) else None)
