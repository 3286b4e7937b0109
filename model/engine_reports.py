"""Acceptance counts as inference engines report them, brought to the three conventions of DESIGN.md section 2.

`SpecCounts` holds what a source counted (verify steps that drafted, draft tokens, accepted draft tokens,
accepted per draft position, the histogram of accepted drafts per step) and converts it with
model.arithmetic: per-token alpha, draft acceptance rate (= trailer fill), mean acceptance length (= E).
`speculation_from_response` reads the speculation fields one response carries (body and headers), for
the probe's "alpha reported by the server" and the per-request records that `import-metrics` reads.

Engines disagree on what "acceptance" means, so each parser below writes down the engine's own
definition and the source it was read from. Position numbers are 1-based here; an engine's
"accepted at position i" counts a step only when every earlier draft of that step was accepted too
(cumulative), so the conditional rate is r_i / r_(i-1).

Core module: imports model.arithmetic and the standard library only.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence

from model import arithmetic as ar
from model.spec_checks import MAX_COUNT, MAX_K

VLLM_NOTE = ("vLLM: draft acceptance rate = accepted / draft tokens; mean acceptance length = 1 + accepted / drafts "
             "(bonus token included); per-position rate = accepted at position i / drafts, cumulative; draft tokens are "
             "those proposed (a draft shorter than K counts its own length) and drafts the steps that proposed any")
SGLANG_NOTE = ("SGLang: accept length = completion tokens / verify steps (bonus token included); accept rate = "
               "accepted drafts / (verify steps x (speculative_num_draft_tokens - 1)); histogram = steps by accepted drafts; "
               "proposed drafts are K a step whatever was drafted, so a draft cut short cannot be told from a rejection")
TRTLLM_NOTE = ("TensorRT-LLM: acceptance rate = accepted draft tokens / draft tokens; acceptance length = 1 + "
               "accepted / requests-with-drafts per iteration (bonus token included); no step count, so steps = draft tokens / K")
LLAMACPP_NOTE = ("llama.cpp: draft_n = draft tokens, draft_n_accepted = accepted draft tokens; no step count, "
                 "so steps = draft_n / K (drafts cut short by the token budget or --draft-p-min make that an undercount)")
PREDICTED_NOTE = ("OpenAI Predicted Outputs: accepted / (accepted + rejected) prediction tokens measure a prediction "
                  "the caller sent, not the vendor's draft model; not a speculative-decoding alpha")
FIREWORKS_NOTE = ("Fireworks (undocumented header fireworks-speculation-acceptance, 'position:accepted/attempted'): "
                  "read as cumulative counts per draft position; steps = attempts at position 1")


class ReportError(ValueError):
    """A speculation field that is present but cannot be read; the message names the field."""


@dataclass(frozen=True)
class SpecCounts:
    """What one source counted. Counts are floats because sums over scrapes can be fractional in logs.

    `drafts` are verify steps that drafted (stretches); `per_position_accepted[i-1]` counts the steps
    whose draft i was accepted (cumulative: drafts 1..i all accepted); `histogram[j]` counts steps
    that accepted exactly j of K drafts. Any of them may be None when the source does not have it.
    `engine_values` keeps the engine's own numbers as it printed them, to show beside ours.
    """

    engine: str
    k: int | None = None
    drafts: float | None = None
    draft_tokens: float | None = None
    accepted_tokens: float | None = None
    per_position_accepted: tuple[float, ...] | None = None
    histogram: tuple[float, ...] | None = None
    convention_note: str = ""
    engine_values: Mapping[str, Any] = field(default_factory=dict)
    predicted_outputs: bool = False  # OpenAI Predicted Outputs: no alpha, whatever K is
    histogram_partial: bool = False  # the histogram covers only some steps (vLLM's full drafts): not checked against them
    # verify steps that rejected a draft, where the source tells them from drafts cut short and wholly accepted
    # (vLLM's histogram by draft length, llama.cpp's LLAMA_TRACE step lines); else bounded by `rejection_range`
    rejections: float | None = None
    rejection_bounds: tuple[float, float] | None = None  # the parts' ranges added up (combine), tighter than the sums'
    k_at_least: int | None = None  # K unknown but at least this (llama.cpp's statistics line); K given must reach it

    # --- the counts, completed from one another where the source left one out --------------
    @property
    def steps(self) -> float | None:
        """Verify steps that drafted: given, or the histogram's total, or draft tokens / K (full drafts)."""
        if self.drafts is not None:
            return self.drafts
        if self.histogram is not None:
            return float(sum(self.histogram))
        if self.draft_tokens is not None and self.k:
            return self.draft_tokens / self.k
        return None

    @property
    def accepted(self) -> float | None:
        if self.accepted_tokens is not None:
            return self.accepted_tokens
        if self.histogram is not None:
            return float(sum(j * n for j, n in enumerate(self.histogram)))
        if self.per_position_accepted is not None:
            return float(sum(self.per_position_accepted))
        return None

    @property
    def stretch_histogram(self) -> tuple[float, ...] | None:
        """Steps by accepted drafts 0..K: given, or rebuilt exactly from cumulative per-position counts."""
        if self.histogram is not None:
            return self.histogram
        steps, pos = self.steps, self.per_position_accepted
        if pos is None or steps is None or self.k is None or len(pos) != self.k:
            return None
        reached = (steps, *pos, 0.0)  # reached[i] = steps with at least i accepted
        hist = tuple(reached[i] - reached[i + 1] for i in range(self.k + 1))
        if any(h < -1e-9 for h in hist):
            return None  # not cumulative after all (or counters from different moments): no histogram
        return tuple(max(h, 0.0) for h in hist)

    # --- the three conventions -------------------------------------------------------------
    @property
    def draft_acceptance_rate(self) -> float | None:
        """accepted / drafted tokens (vLLM's "draft acceptance rate"; the trailer fill)."""
        drafted = self.draft_tokens
        if drafted is None and self.steps is not None and self.k:
            drafted = self.steps * self.k
        accepted = self.accepted
        if accepted is None or not drafted:
            return None
        return accepted / drafted

    @property
    def mean_acceptance_length(self) -> float | None:
        """1 + accepted / steps: the empirical E, bonus token included, no i.i.d. assumption."""
        if self.predicted_outputs:
            return None
        steps, accepted = self.steps, self.accepted
        if not steps or accepted is None:
            return None
        return 1.0 + accepted / steps

    @property
    def rejection_range(self) -> tuple[float, float] | None:
        """Verify steps that rejected a draft: (fewest, most) the counts allow; None without a histogram at K.

        A step that accepted j < K drafts was rejected at draft j + 1, or its draft was cut short to j tokens (the
        token budget near max_tokens, the end of the context, a draft-confidence floor) and wholly accepted, which
        is no rejection. Where the source counts them (`rejections`) both ends are that count. Otherwise the draft
        tokens bound them: N steps of K slots drafted D tokens, so N K - D slots were cut; U = D - accepted drafts
        went unaccepted, and each rejection leaves at least one, so at most U steps rejected (all accepted: none).
        At fewest, the cut slots cover as many short steps as they can, those that accepted most first.
        """
        if self.rejections is not None:
            return (self.rejections, self.rejections)
        if self.rejection_bounds is not None:
            return self.rejection_bounds
        hist, k = self.stretch_histogram, self.k
        if hist is None or not k or len(hist) != k + 1 or self.histogram_partial:
            return None
        short = float(sum(hist[:-1]))
        if self.draft_tokens is None:
            return (short, short)  # full drafts assumed: `truncation_known` says the source cannot tell
        accepted = float(sum(j * n for j, n in enumerate(hist)))
        cut = max(float(sum(hist)) * k - self.draft_tokens, 0.0)
        unaccepted = max(self.draft_tokens - accepted, 0.0)
        most = min(short, unaccepted)
        covered, left = 0.0, cut
        for j in range(k - 1, 0, -1):  # a step that accepted j of a draft cut to j tokens used K - j cut slots
            take = min(hist[j], math.floor(left / (k - j) + 1e-9))  # whole steps: a draft is cut short or not
            covered, left = covered + take, left - take * (k - j)
        fewest = max(short - covered, min(unaccepted, 1.0))
        return (min(fewest, most), most)

    @property
    def truncation_known(self) -> bool:
        """Whether the steps that rejected are known exactly: counted by the source, or forced by its counts (no
        draft was cut short, or every drafted token was accepted). False where the source has no draft tokens
        to tell a draft cut short from a rejection, or where its counts leave a range."""
        if self.rejections is not None:
            return True
        rng = self.rejection_range
        return rng is not None and self.draft_tokens is not None and rng[1] - rng[0] <= 1e-9 * max(rng[1], 1.0)

    @property
    def _alpha_accepted(self) -> float | None:
        # with a histogram its own accepted drafts (a partial one comes with counted rejections, which use all)
        if self.rejections is None and self.stretch_histogram is not None:
            return float(sum(j * n for j, n in enumerate(self.stretch_histogram)))
        return self.accepted

    def _alpha_at(self, rejections: float) -> float | None:
        accepted = self._alpha_accepted
        if accepted is None or accepted + rejections <= 0:
            return None
        return accepted / (accepted + rejections)

    @property
    def alpha(self) -> float | None:
        """Per-token alpha: the maximum-likelihood rule (accepted / (accepted + rejecting steps)) where the steps
        that rejected are known or bounded, counting every step that may have rejected as one (the low end of
        `alpha_range`, the pessimistic figure); else the alpha whose E(alpha, K) equals the mean acceptance
        length. None without K or without steps."""
        if self.predicted_outputs or not self.k:
            return None
        rng = self.rejection_range
        if rng is not None:
            return self._alpha_at(rng[1])
        return self.alpha_e_matched

    @property
    def alpha_range(self) -> tuple[float, float] | None:
        """(low, high) alpha over the rejections the counts allow; None where alpha is not from rejections."""
        rng = self.rejection_range
        if self.predicted_outputs or not self.k or rng is None:
            return None
        low, high = self._alpha_at(rng[1]), self._alpha_at(rng[0])
        return None if low is None or high is None else (low, high)

    @property
    def alpha_trials(self) -> tuple[float, float] | None:
        """(accepted drafts, accepted + rejecting steps) behind `alpha`, for an interval over requests."""
        rng, accepted = self.rejection_range, self._alpha_accepted
        if self.predicted_outputs or not self.k or rng is None or accepted is None:
            return None
        return (accepted, accepted + rng[1])

    @property
    def alpha_e_matched(self) -> float | None:
        """The alpha that reproduces the measured mean acceptance length at this K."""
        length = self.mean_acceptance_length
        if length is None or not self.k:
            return None
        solve = ar.mean_acceptance_length_to_alpha(length, self.k)
        if int(solve.kind) == ar.NEVER:
            return None  # more tokens per step than K + 1: the K is wrong; callers say so
        return float(solve.alpha)

    @property
    def per_position_rates(self) -> tuple[float, ...] | None:
        """The engine's own per-position rate: accepted at position i / steps (cumulative)."""
        steps, pos = self.steps, self.per_position_accepted
        if pos is None and self.stretch_histogram is not None:
            hist = self.stretch_histogram
            tail, sums = 0.0, []
            for h in reversed(hist[1:]):  # steps accepting at least i drafts: one pass, linear in K
                tail += h
                sums.append(tail)
            pos = tuple(reversed(sums))
        if pos is None or not steps:
            return None
        return tuple(p / steps for p in pos)

    @property
    def per_position_conditional(self) -> tuple[float, ...] | None:
        """P(draft i accepted | drafts before it accepted) = r_i / r_(i-1); NaN where no step got that far."""
        rates = self.per_position_rates
        if rates is None:
            return None
        out, before = [], 1.0
        for r in rates:
            out.append(r / before if before > 0 else math.nan)
            before = r
        return tuple(out)


def combine(parts: Iterable[SpecCounts]) -> SpecCounts:
    """The counts of several records of one source added up (a class's requests, a run's log lines).

    A field is kept only if every part has it; K must agree (ReportError otherwise).
    """
    items = list(parts)
    if not items:
        raise ReportError("nothing to add up")
    ks = {p.k for p in items if p.k is not None}
    if len(ks) > 1:
        raise ReportError(f"records disagree on K ({', '.join(str(k) for k in sorted(ks))}); import them separately")

    def total(name: str) -> float | None:
        values = [getattr(p, name) for p in items]
        return None if any(v is None for v in values) else float(sum(values))

    def vector_total(name: str) -> tuple[float, ...] | None:
        vectors = [getattr(p, name) for p in items]
        if any(v is None for v in vectors):
            return None
        width = max(len(v) for v in vectors)
        return tuple(sum(v[i] if i < len(v) else 0.0 for v in vectors) for i in range(width))

    first = items[0]
    ranges = [p.rejection_range for p in items]
    bounds = None  # each request's range: a draft cut short is placed within its own request, not across them
    if all(r is not None for r in ranges):
        bounds = (float(sum(r[0] for r in ranges)), float(sum(r[1] for r in ranges)))  # type: ignore[index]
    return replace(first, rejection_bounds=bounds, k=next(iter(ks), None), drafts=total("drafts"), draft_tokens=total("draft_tokens"),
                   accepted_tokens=total("accepted_tokens"), per_position_accepted=vector_total("per_position_accepted"),
                   histogram=vector_total("histogram"), engine_values=first.engine_values if len(items) == 1 else {},
                   histogram_partial=any(p.histogram_partial for p in items), rejections=total("rejections"),
                   k_at_least=max((p.k_at_least for p in items if p.k_at_least), default=None))


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


def _sglang_request(meta: Mapping[str, Any]) -> SpecCounts:
    # SGLang meta_info (tokenizer manager's fill_spec_decoding_meta; names changed across releases:
    # spec_accept_token_num / spec_draft_token_num in 0.5.x, then spec_accepted_drafts / spec_proposed_drafts,
    # now spec_num_correct_drafts / spec_num_proposed_drafts with the older names as aliases).
    # proposed = spec_verify_ct x (speculative_num_draft_tokens - 1), so K = proposed / verify steps;
    # spec_accept_length = completion_tokens / spec_verify_ct, bonus (and the prefill token) included.
    verify = _number(meta["spec_verify_ct"], "meta_info.spec_verify_ct")
    accepted_key = next((key for key in _SGLANG_ACCEPTED if key in meta), None)
    proposed_key = next((key for key in _SGLANG_PROPOSED if key in meta), None)
    hist_key = next((key for key in _SGLANG_HISTOGRAM if meta.get(key)), None)
    accepted = _number(meta[accepted_key], f"meta_info.{accepted_key}") if accepted_key else None
    proposed = _number(meta[proposed_key], f"meta_info.{proposed_key}") if proposed_key else None
    k = None
    if proposed and verify:
        ratio = proposed / verify
        if abs(ratio - round(ratio)) > 1e-9 or round(ratio) < 1:
            raise ReportError(f"meta_info.{proposed_key}: {proposed:g} draft tokens over {verify:g} verify steps is not a whole K")
        k = int(round(ratio))
    hist = _counts_list(meta[hist_key], f"meta_info.{hist_key}") if hist_key else None
    if hist is not None and k is not None:
        if len(hist) > k + 1:
            raise ReportError(f"meta_info.{hist_key}: {len(hist)} entries, more than K + 1 = {k + 1}")
        hist = hist + (0.0,) * (k + 1 - len(hist))  # SGLang grows the list only as far as it needed
    if accepted is None and "completion_tokens" in meta:
        # before the accepted counter existed only the tokens per verify step were reported
        accepted = max(_number(meta["completion_tokens"], "meta_info.completion_tokens") - verify, 0.0)
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


def with_k(counts: SpecCounts, k: int | None) -> SpecCounts:
    """The counts with K given by the user; ReportError when the source's own K says otherwise."""
    if k is None:
        return counts
    pos = counts.per_position_accepted
    if counts.k_at_least is not None:
        if k < counts.k_at_least:
            raise ReportError(f"K = {k} was given but the {counts.engine} source shows K is at least {counts.k_at_least}")
        if pos is not None and len(pos) < k:  # positions past the longest accepted run: none accepted there
            counts = replace(counts, per_position_accepted=pos + (0.0,) * (k - len(pos)))
    if counts.per_position_accepted is not None and len(counts.per_position_accepted) != k:
        raise ReportError(f"K = {k} was given but the source has {len(counts.per_position_accepted)} draft positions")
    if counts.histogram is not None and len(counts.histogram) > k + 1:
        raise ReportError(f"K = {k} was given but the histogram has {len(counts.histogram)} entries (K + 1 expected)")
    if counts.k is not None and counts.k != k:
        raise ReportError(f"K = {k} was given but the {counts.engine} source reports K = {counts.k}")
    hist = counts.histogram
    if hist is not None and len(hist) < k + 1:
        hist = hist + (0.0,) * (k + 1 - len(hist))
    return replace(counts, k=k, histogram=hist)
