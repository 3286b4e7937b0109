"""Prometheus text scraped from an engine's /metrics, parsed with prometheus_client's parser.

Engines and their families (the definitions, and the source each was read from):
- vLLM (vllm/v1/spec_decode/metrics.py, SpecDecodingProm; v0.9 to v0.11 and main): counters
  vllm:spec_decode_num_drafts_total (verify steps that drafted), ..._num_draft_tokens_total,
  ..._num_accepted_tokens_total (bonus excluded) and ..._num_accepted_tokens_per_pos_total with a
  `position` label 0..K-1, cumulative; labels model_name and engine (one per data-parallel engine).
- SGLang (scheduler metrics collector): gauges sglang:spec_accept_length (tokens per verify step, bonus
  included) and sglang:spec_accept_rate (accepted / proposed drafts), for the last logging interval.
- TensorRT-LLM (tensorrt_llm/metrics/collector.py, trtllm-serve): counters
  trtllm_spec_decode_num_draft_tokens_total, trtllm_spec_decode_num_accepted_tokens_total, gauge
  trtllm_spec_decode_acceptance_length (last iteration, bonus included); no step counter.
- llama.cpp server (tools/server, server_task_result_metrics::to_metrics, with --metrics): counters
  llamacpp:spec_decode_num_drafts_total (verify steps that drafted), ..._num_draft_tokens_total,
  ..._num_accepted_tokens_total (bonus excluded) and ..._num_accepted_tokens_per_pos_total with a
  `position` label 0..K-1 (steps accepting at least position + 1 drafts, cumulative as vLLM's); no
  model label. Values are written with C++'s default stream precision: six significant digits, so a
  count of a million or more is rounded (1234567 reads 1.23457e+06).
- TGI (router, send_responses): histogram tgi_request_skipped_tokens, one observation per decode step of
  n - 1 (the speculated tokens accepted), buckets 0..speculate; each request's first (prefill) step
  records 0 too, so tgi_request_success is taken off bucket 0 where the scrape has it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

from model.engines.reports import TRTLLM_NOTE, VLLM_NOTE, SpecCounts
from model.engines.spec_checks import MAX_K
from model.metrics.sglang_decode import CONVENTION_WORDS, NEW, OLD
from model.metrics.result import MetricsError

TGI_NOTE = ("TGI: tgi_request_skipped_tokens = speculated tokens accepted per decode step (n - 1), a histogram "
            "with buckets 0..speculate; K = the top bucket")

# family name (as the parser reports it) -> the type it must have
VLLM_COUNTERS = {"vllm:spec_decode_num_drafts": "drafts", "vllm:spec_decode_num_draft_tokens": "draft_tokens",
                 "vllm:spec_decode_num_accepted_tokens": "accepted", "vllm:spec_decode_num_accepted_tokens_per_pos": "per_pos"}
LLAMACPP_COUNTERS = {"llamacpp:spec_decode_num_drafts": "drafts", "llamacpp:spec_decode_num_draft_tokens": "draft_tokens",
                     "llamacpp:spec_decode_num_accepted_tokens": "accepted",
                     "llamacpp:spec_decode_num_accepted_tokens_per_pos": "per_pos"}
LLAMACPP_METRICS_NOTE = ("llama.cpp /metrics: spec_decode_num_drafts = verify steps that drafted, num_draft_tokens = "
                         "draft tokens, num_accepted_tokens = accepted drafts (bonus token excluded), per_pos{position=i} "
                         "= steps accepting at least i + 1 drafts (cumulative); totals since the server started; draft tokens count what "
                         "was drafted, a draft cut to the remaining budget its own length")
SGLANG_GAUGES = {"sglang:spec_accept_length": "length", "sglang:spec_accept_rate": "rate"}
TRTLLM_COUNTERS = {"trtllm_spec_decode_num_draft_tokens": "draft_tokens", "trtllm_spec_decode_num_accepted_tokens": "accepted"}
TRTLLM_GAUGES = {"trtllm_spec_decode_acceptance_length": "length"}
TGI_HISTOGRAM = "tgi_request_skipped_tokens"
ENGINE_PREFIXES = {"vllm": "vllm:spec_decode_", "llamacpp": "llamacpp:spec_decode_", "sglang": "sglang:spec_", "trtllm": "trtllm_spec_decode_", "tgi": TGI_HISTOGRAM}
_MODEL_LABELS = ("model_name", "model", "served_model_name")
FORMATS = {"vllm": "Prometheus text, vLLM /metrics (spec_decode counters, V1)",
           "llamacpp": "Prometheus text, llama.cpp llama-server /metrics (spec_decode counters)",
           "sglang": "Prometheus text, SGLang /metrics (spec_accept_length and spec_accept_rate gauges)",
           "trtllm": "Prometheus text, TensorRT-LLM trtllm-serve /metrics (spec_decode counters)",
           "tgi": "Prometheus text, TGI /metrics (tgi_request_skipped_tokens histogram)"}


@dataclass
class Scrape:
    """One scrape reduced to what speculation needs: per model, named series (label sets kept for messages)."""

    file: str
    engine: str
    values: dict[str | None, dict[tuple[str, str], float]] = field(default_factory=dict)  # model -> (what, sub) -> v
    kinds: dict[str, str] = field(default_factory=dict)  # what -> counter / gauge / histogram
    k_hint: int | None = None
    lines: dict[str, int] = field(default_factory=dict)  # a count's name in refusals -> the line of its first sample


_WANTED = (*ENGINE_PREFIXES.values(), "tgi_request_success", "trtllm_speculative_config_info")
MAX_MODELS = 256  # model_name values read from one scrape; a real server serves a handful


def _wanted(line: str) -> bool:
    """A line of a family speculation needs: a full /metrics page is mostly others (latency histograms, ...)."""
    if line.startswith("#"):
        parts = line.split(None, 3)
        return len(parts) >= 3 and parts[1] in ("TYPE", "HELP") and parts[2].startswith(_WANTED)
    return line.lstrip().startswith(_WANTED)


# the names model.engines.reports.count_problem gives each count, by the family it comes from
_FIELD_OF = {"vllm:spec_decode_num_drafts": "drafts (verify steps)", "vllm:spec_decode_num_draft_tokens": "draft tokens",
             "vllm:spec_decode_num_accepted_tokens_per_pos": "per-position accepted",
             "vllm:spec_decode_num_accepted_tokens": "accepted tokens",
             "llamacpp:spec_decode_num_drafts": "drafts (verify steps)",
             "llamacpp:spec_decode_num_draft_tokens": "draft tokens",
             "llamacpp:spec_decode_num_accepted_tokens_per_pos": "per-position accepted",
             "llamacpp:spec_decode_num_accepted_tokens": "accepted tokens",
             "trtllm_spec_decode_num_draft_tokens": "draft tokens", "trtllm_spec_decode_num_accepted_tokens": "accepted tokens",
             TGI_HISTOGRAM: "histogram"}


def _parse(text: str, file: str) -> tuple[list, dict[str, int]]:
    """The families speculation needs, and the line of each count's first sample (for refusals)."""
    from prometheus_client.parser import text_string_to_metric_families
    # only the families speculation needs go through the (pure Python) parser: linear, and fast on a full page
    kept = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip() and _wanted(line)]
    lines: dict[str, int] = {}
    for number, line in kept:
        if not line.startswith("#"):
            name = line.lstrip().split("{", 1)[0].split(None, 1)[0]
            what = next((f for prefix, f in _FIELD_OF.items() if name.startswith(prefix)), None)
            if what is not None and not name.endswith("_created"):
                lines.setdefault(what, number)
    try:
        return list(text_string_to_metric_families("".join(line + "\n" for _, line in kept))), lines
    except (ValueError, TypeError, IndexError) as exc:
        # the parser names no line: find the first line it refuses on its own
        for number, line in kept:
            if not line.startswith("#"):
                try:
                    list(text_string_to_metric_families(line + "\n"))
                except (ValueError, TypeError, IndexError):
                    raise MetricsError(f"{file}:{number}: not Prometheus text: {line[:80]!r}") from None
        raise MetricsError(f"{file}: not Prometheus text ({exc})") from None


def engine_of(text_families: Iterable) -> str | None:
    names = [f.name for f in text_families]
    for engine, prefix in ENGINE_PREFIXES.items():
        if any(n.startswith(prefix) for n in names):
            return engine
    return None


def _check_type(family, expected: str, file: str) -> None:
    # a scrape without TYPE lines reads as "unknown": taken as what the name says
    if family.type not in (expected, "unknown"):
        raise MetricsError(f"{file}: {family.name} is a {family.type}, but {expected} was expected "
                           f"(not this engine's metric, or a changed exporter)")


def _model(labels: dict[str, str]) -> str | None:
    return next((labels[k] for k in _MODEL_LABELS if k in labels), None)


def read_scrape(text: str, file: str, engine: str = "auto") -> Scrape:
    families, lines = _parse(text, file)
    found = engine_of(families)
    if engine == "auto":
        if found is None:
            raise MetricsError(f"{file}: Prometheus text without speculative-decoding metrics of vLLM, SGLang, "
                               "TensorRT-LLM, TGI or llama.cpp (was speculative decoding on?)")
        engine = found
    elif found != engine:
        raise MetricsError(f"{file}: no {engine} speculative-decoding metrics in this scrape"
                           + (f" (it has {found}'s)" if found else ""))
    scrape = Scrape(file=file, engine=engine, lines=lines)
    wanted: dict[str, tuple[str, str]] = {}
    if engine == "vllm":
        wanted = {name: (what, "counter") for name, what in VLLM_COUNTERS.items()}
    elif engine == "llamacpp":
        wanted = {name: (what, "counter") for name, what in LLAMACPP_COUNTERS.items()}
    elif engine == "sglang":
        wanted = {name: (what, "gauge") for name, what in SGLANG_GAUGES.items()}
    elif engine == "trtllm":
        wanted = {name: (what, "counter") for name, what in TRTLLM_COUNTERS.items()}
        wanted.update({name: (what, "gauge") for name, what in TRTLLM_GAUGES.items()})
    for family in families:
        name = family.name[:-6] if family.name.endswith("_total") and family.type == "unknown" else family.name
        if engine == "tgi" and name == TGI_HISTOGRAM:
            _check_type(family, "histogram", file)
            scrape.kinds["skipped"] = "histogram"
            for s in family.samples:
                if s.name.endswith("_bucket"):
                    scrape.values.setdefault(_model(s.labels), {})[("bucket", s.labels.get("le", ""))] = s.value
        elif engine == "tgi" and name == "tgi_request_success":
            for s in family.samples:
                if s.name.endswith(("_total", "success")):
                    bucket = scrape.values.setdefault(_model(s.labels), {})
                    bucket[("success", "")] = bucket.get(("success", ""), 0.0) + s.value
        elif engine == "trtllm" and name == "trtllm_speculative_config_info":
            for s in family.samples:
                for label in ("max_draft_len", "num_nextn_predict_layers", "max_draft_tokens"):
                    if s.labels.get(label, "").isdigit():
                        scrape.k_hint = int(s.labels[label])
        elif name in wanted:
            what, expected = wanted[name]
            _check_type(family, expected, file)
            scrape.kinds[what] = expected
            for s in family.samples:
                if s.name.endswith(("_created", "_gcount", "_gsum")):
                    continue
                sub = s.labels.get("position", "") if what == "per_pos" else ""
                series = scrape.values.setdefault(_model(s.labels), {})
                series[(what, sub)] = series.get((what, sub), 0.0) + s.value  # summed over engine / rank labels
    if not scrape.values:
        raise MetricsError(f"{file}: the {engine} speculative-decoding metrics have no samples (no request drafted yet?)")
    if len(scrape.values) > MAX_MODELS:
        raise MetricsError(f"{file}: {len(scrape.values):,} models in one scrape, more than the {MAX_MODELS} read; "
                           "scrape one server (or filter the page) per import")
    return scrape


def difference(before: Scrape, after: Scrape) -> Scrape:
    """after - before for counters; gauges keep the after value. A counter that went down means a restart."""
    out = Scrape(file=after.file, engine=after.engine, kinds=dict(after.kinds), k_hint=after.k_hint, lines=after.lines)
    for model, series in after.values.items():
        old = before.values.get(model)
        if old is None:
            raise MetricsError(f"{before.file}: has no series for model {model!r} that {after.file} has; "
                               "give two scrapes of the same server, before and after the run")
        diff: dict[tuple[str, str], float] = {}
        for key, value in series.items():
            kind = "histogram" if key[0] in ("bucket", "success") else after.kinds.get(key[0], "counter")
            if kind == "gauge":
                diff[key] = value
                continue
            base = old.get(key, 0.0)
            if value < base:
                label = f"{key[0]}{'[' + key[1] + ']' if key[1] else ''}"
                raise MetricsError(f"{after.file}: {label} went down from {base:g} (in {before.file}) to {value:g}: "
                                   "the server restarted between the scrapes; scrape before and after a run without a restart")
            diff[key] = value - base
        out.values[model] = diff
    return out


def counts_of(scrape: Scrape, model: str | None) -> tuple[SpecCounts, bool, list[str]]:
    """The counts of one model's series; (counts, whether they are counts rather than rates, notes)."""
    v = scrape.values[model]
    file = scrape.file
    if scrape.engine in ("vllm", "llamacpp"):
        family = f"{scrape.engine}:spec_decode_num_accepted_tokens_per_pos"
        positions = sorted((int(sub), value) for (what, sub), value in v.items() if what == "per_pos" and sub.isdigit())
        per_pos = None
        if positions:
            if [p for p, _ in positions] != list(range(len(positions))):
                raise MetricsError(f"{file}: {family} has positions "
                                   f"{[p for p, _ in positions]}, not 0..K-1")
            per_pos = tuple(value for _, value in positions)
        counts = SpecCounts(engine=scrape.engine, k=len(positions) or None, drafts=v.get(("drafts", "")),
                            draft_tokens=v.get(("draft_tokens", "")), accepted_tokens=v.get(("accepted", "")),
                            per_position_accepted=per_pos,
                            convention_note=VLLM_NOTE if scrape.engine == "vllm" else LLAMACPP_METRICS_NOTE)
        notes = []
        if scrape.engine == "llamacpp" and any(x >= 1e6 for x in v.values()):
            notes.append("llama.cpp writes /metrics values with six significant digits: counts of a million or more "
                         "are rounded (the rates keep five or six digits)")
        if counts.k and counts.drafts and counts.draft_tokens is not None and counts.draft_tokens < counts.drafts * counts.k - 0.5:
            notes.append(f"{counts.drafts * counts.k - counts.draft_tokens:g} draft slots were not drafted (draft tokens "
                         f"< drafts x K): some steps drafted fewer than K (n-gram, or a generation's end); /metrics cannot "
                         "tell them apart, so they count as stretches that stopped short and alpha reads a little low")
        return counts, True, notes
    if scrape.engine == "trtllm":
        own = {"acceptance_length (gauge, last iteration)": v[("length", "")]} if ("length", "") in v else {}
        counts = SpecCounts(engine="trtllm", k=scrape.k_hint, draft_tokens=v.get(("draft_tokens", "")),
                            accepted_tokens=v.get(("accepted", "")), convention_note=TRTLLM_NOTE, engine_values=own)
        return counts, True, ["TensorRT-LLM counts no verify steps: steps = draft tokens / K, assuming full drafts"]
    if scrape.engine == "sglang":
        return _sglang_gauges(v, file)
    return _tgi_histogram(v, file)


def _sglang_gauges(v: dict[tuple[str, str], float], file: str) -> tuple[SpecCounts, bool, list[str]]:
    length, rate = v.get(("length", "")), v.get(("rate", ""))
    if length is None:
        raise MetricsError(f"{file}: sglang:spec_accept_length is missing")
    if not (math.isfinite(length) and 1.0 <= length <= MAX_K + 1):
        raise MetricsError(f"{file}: sglang:spec_accept_length: {length!r} is not a tokens-per-step figure (1 to K + 1)")
    if rate is not None and not (math.isfinite(rate) and 0.0 <= rate <= 1.0):
        raise MetricsError(f"{file}: sglang:spec_accept_rate: {rate!r} is not a rate (0 to 1)")
    notes = ["SGLang exports gauges for the last logging interval, not counts for the run: "
             "two scrapes give the later interval, not a difference"]
    k = None
    own: dict[str, object] = {"spec_accept_length": length, **({"spec_accept_rate": rate} if rate is not None else {})}
    if rate:
        # the gauge's rate is (length - 1) / K in current SGLang and length / (K + 1) in 0.5.x (the Decode batch
        # lines' convention, docs/reference/engine-formats.md#sglang-decode-batch-lines); the gauges are unrounded
        current, old = _whole((length - 1.0) / rate), _whole(length / rate)
        old = old - 1 if old is not None and old >= 2 else None
        if current is not None and old is not None:
            notes.append(f"the accept rate fits both SGLang conventions: K = {old} if 0.5.x (rate = length / (K + 1)), "
                         f"K = {current} after it (rate = (length - 1) / K); pass --k")
        elif old is not None:
            k = old
            own["accept rate convention"] = "0.5.x"
            notes.append(f"K = {k} read from accept length / accept rate - 1: the SGLang 0.5.x convention "
                         "(accept rate = accepted tokens with the bonus / (steps x (K + 1)))")
        elif current is not None:
            k = current
            notes.append(f"K = {k} read from (accept length - 1) / accept rate")
    # one notional step carries the rates through the conversions; has_counts False keeps it out of the counts
    counts = SpecCounts(engine="sglang", k=k, drafts=1.0, accepted_tokens=length - 1.0,
                        draft_tokens=float(k) if k else None, engine_values=own,
                        convention_note="SGLang gauges: spec_accept_length = tokens emitted (bonus included) / verify steps; "
                        + CONVENTION_WORDS[OLD if own.get("accept rate convention") == OLD else NEW].replace("accept rate",
                                                                                                              "spec_accept_rate"))
    return counts, False, notes


def _whole(x: float) -> int | None:
    """A whole K from 1 to 64 where x is one within a gauge's float precision."""
    k = round(x)
    return k if 1 <= k <= MAX_K and abs(x - k) < 1e-4 * max(1.0, x) else None


def _tgi_histogram(v: dict[tuple[str, str], float], file: str) -> tuple[SpecCounts, bool, list[str]]:
    buckets: list[tuple[int, float]] = []
    for (what, le), value in v.items():
        if what != "bucket" or le in ("+Inf", "Inf"):
            continue
        try:
            bound = float(le)
        except ValueError:
            raise MetricsError(f"{file}: tgi_request_skipped_tokens has a bucket le={le!r}") from None
        if bound != int(bound) or bound < 0:
            raise MetricsError(f"{file}: tgi_request_skipped_tokens buckets are not whole token counts "
                               f"(le={le}); TGI sets them to 0..speculate")
        buckets.append((int(bound), value))
    if len(buckets) > MAX_K + 1:
        raise MetricsError(f"{file}: tgi_request_skipped_tokens has {len(buckets):,} buckets; K (TGI's speculate) is 1 to "
                           f"{MAX_K}, so at most {MAX_K + 1} are read")
    buckets.sort()
    if not buckets or [b for b, _ in buckets] != list(range(len(buckets))) or len(buckets) < 2:
        raise MetricsError(f"{file}: tgi_request_skipped_tokens buckets are {[b for b, _ in buckets]}, not 0..K "
                           "(speculation off, or not TGI's buckets)")
    cumulative = [value for _, value in buckets]
    hist = [cumulative[0]] + [cumulative[i] - cumulative[i - 1] for i in range(1, len(cumulative))]
    if any(h < 0 for h in hist):
        raise MetricsError(f"{file}: tgi_request_skipped_tokens buckets are not cumulative (a bucket below the one before)")
    notes = []
    success = v.get(("success", ""))
    if success:
        taken = min(success, hist[0])
        hist[0] -= taken
        notes.append(f"{taken:g} prefill steps (one per successful request) taken off bucket 0")
    else:
        notes.append("bucket 0 still holds each request's prefill step (no tgi_request_success in the scrape)")
    k = len(hist) - 1
    counts = SpecCounts(engine="tgi", k=k, histogram=tuple(hist), convention_note=TGI_NOTE)
    return counts, True, notes
