"""trtllm-bench's console report: the DECODING STATISTICS block, and the latency report's acceptance lines.

TensorRT-LLM's bench (tensorrt_llm/bench/dataclasses/reporting.py) counts, per request, its output tokens and its
decoding iterations (the context step included); what it names an "acceptance rate" is tokens per iteration, a mean
acceptance length with the bonus token included, not a rate (docs/reference/engine-formats.md#trtllm-bench-reports):

- DECODING STATISTICS ({mode}) block, rows "[TAG] {KEY:<7}: %.2f" for MINIMUM, MAXIMUM, AVERAGE, P50, P90, P95,
  P99 over the requests: [AL] acceptance length = output tokens / iterations; [DAR] draft acceptance rate = (output
  tokens - iterations) / (max draft length x iterations) = (AL - 1) / K for each request, so (AL - 1) / DAR is K
  on every row; [DT] and [ADT] are the draft and accepted tokens per request. A build that names the AL rows [AR]
  ("acceptance rate") is read the same way: tokens per iteration.
- the latency report: "Acceptance Rate (Speculative):\\t  %.2f" = total output tokens / total iterations, and an
  ACCEPTANCE BREAKDOWN of the per-request values (MIN, MAX, AVG, ...), again tokens per iteration.

The rows are statistics over requests, not counts: the AVERAGE row (each request weighted equally), or the
token-weighted latency figure where printed, is the mean acceptance length taken; no per-request counts, no interval.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from model.engines.reports import SpecCounts
from model.engines.spec_checks import MAX_K
from model.metrics.fields import figure
from model.metrics.result import MetricsError

NOTE = ("trtllm-bench: 'acceptance rate' / acceptance length = output tokens / decoding iterations per request, the "
        "bonus token included (a mean acceptance length, not a rate); draft acceptance rate = (AL - 1) / K with every "
        "iteration taken as drafting the maximum draft length K")

_ROW = re.compile(r"^\s*\[(AL|AR|DAR)\]\s+(MINIMUM|MAXIMUM|AVERAGE|P50|P90|P95|P99)\s*:\s*(\S+)\s*$")
_LATENCY = re.compile(r"Acceptance Rate \(Speculative\):\s*(\S+)\s*$")
_MODE = re.compile(r"= DECODING STATISTICS(?: \(([^)]{0,40})\))?")
_HALF = 0.005


@dataclass
class BenchReport:
    first: int = 0
    mode: str = ""
    rows: dict[str, dict[str, float]] = field(default_factory=dict)  # tag -> key -> value
    latency: float | None = None

    def seen(self, number: int) -> None:
        self.first = self.first or number


def header(line: str, number: int, out: BenchReport) -> None:
    m = _MODE.search(line)
    if m is not None:
        out.seen(number)
        out.mode = m.group(1) or ""


def row_line(line: str, number: int, file: str, out: BenchReport) -> bool:
    where = f"{file}:{number}"
    m = _ROW.match(line)
    if m is not None and out.first:
        tag, key = m.group(1), m.group(2)
        out.rows.setdefault(tag, {})[key] = figure(m.group(3), where, f"[{tag}] {key}", at_most=1.0 if tag == "DAR" else None)
        return True
    m = _LATENCY.search(line)
    if m is not None:
        out.seen(number)
        out.latency = figure(m.group(1), where, "Acceptance Rate (Speculative)")
        return True
    return False


def _implied_k(lengths: dict[str, float], rates: dict[str, float]) -> int | None:
    """K where (AL - 1) / DAR is one whole number on every row both print, within their two decimals."""
    pairs = [(lengths[key], rates[key]) for key in lengths if key in rates and rates[key] > 0]
    if not pairs:
        return None
    fits = [k for k in range(1, MAX_K + 1)
            if all(abs(length - 1.0 - k * rate) <= _HALF * (k + 1) + 1e-9 for length, rate in pairs)]
    return fits[0] if len(fits) == 1 else None


def report_counts(out: BenchReport, file: str) -> tuple[SpecCounts, list[str]] | None:
    lengths = out.rows.get("AL") or out.rows.get("AR") or {}
    where = f"{file}:{out.first}"
    if out.latency is not None:
        length, how = out.latency, "'Acceptance Rate (Speculative)': total output tokens / total iterations"
    elif "AVERAGE" in lengths:
        length, how = lengths["AVERAGE"], "the AVERAGE row: the mean of the requests' tokens per iteration"
    else:
        return None
    if length < 1.0:
        raise MetricsError(f"{where}: acceptance length {length:g} tokens per iteration is below 1")
    tag = "AL" if "AL" in out.rows else "AR"
    k = _implied_k(lengths, out.rows.get("DAR", {}))
    own: dict[str, object] = {f"[{tag}] {key}": value for key, value in lengths.items()}
    own.update({f"[DAR] {key}": value for key, value in out.rows.get("DAR", {}).items()})
    if out.latency is not None:
        own["Acceptance Rate (Speculative)"] = out.latency
    notes = [f"trtllm-bench report{f' ({out.mode})' if out.mode else ''} from line {out.first}: its acceptance "
             f"figures are tokens per iteration, read as a mean acceptance length ({how})"]
    if k is not None:
        notes.append(f"K = {k} inferred: (acceptance length - 1) / draft acceptance rate is {k} on every row printed")
    counts = SpecCounts(engine="trtllm", k=k, drafts=1.0, accepted_tokens=length - 1.0,
                        draft_tokens=float(k) if k else None, convention_note=NOTE, engine_values=own)
    return counts, notes
