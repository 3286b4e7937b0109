"""A console log read in one streamed pass: every engine's speculative lines found, the rest skipped.

One bytes pattern finds the lines of every format at once (model.metrics.lines), each is handed to its
format's reader (model.metrics.logs, model.metrics.vllm_logs), and at the end the formats found decide
the sources. Two engines' formats in one file are refused; where one engine printed the same run
twice (vLLM's offline summary beside its interval lines, llama.cpp's statistics beside its per-request
lines) the exact one is taken and the other said in the notes. A log with none of the lines is refused
naming the formats tried and, from the file's first megabytes, the nearest one and what it lacks.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import BinaryIO, Generator, Mapping

from model.engines.reports import ReportError, SpecCounts, combine, with_k
from model.common.formatting import count
from model.metrics import llamacpp_extra, logs, sglang_decode, trtllm_bench, vllm_logs
from model.metrics.lines import ScanStats, scan
from model.metrics.result import MetricsError, SourceResult

# few, short literals that between them occur in every format's lines (each marker is one pass over the
# chunk, so fewer is faster): "ccept" is in acceptance / accepted / accept len lines, "raft" in the draft
# counts (#gen drafts, num_drafts, Drafts:, Draft tokens:); the readers check each line fully
_MARKERS = (b"ccept", b"raft", b"print_timing: ", b"total_num_output_tokens:", b"Position ", b"Speculative Decoding",
            b" n_max=", b"n_predict", b"speculative implementation", b"DECODING STATISTICS", b"[AL] ", b"[AR] ", b"[DAR] ")

LOG_FORMATS = ("llama.cpp server log", "llama.cpp speculative example", "vLLM V0/V1 server log", "vLLM offline summary",
               "vllm bench serve console", "SGLang server log", "trtllm-bench report")

# (what the first megabytes contain, what to say when the file has none of its speculative lines)
_NEAREST = (
    ((b"= PERFORMANCE OVERVIEW", b"= REQUEST DETAILS", b"= GENERAL OVERVIEW"),
     "a trtllm-bench report, but no DECODING STATISTICS block and no 'Acceptance Rate (Speculative)' line: was it "
     "run with a speculative config (max_draft_len above 0)?"),
    ((b"n_drafted = ",), "a llama.cpp speculative example summary, but n_drafted is 0 or n_accept is missing: "
     "nothing was drafted to read"),
    ((b"Serving Benchmark Result",), "a vllm bench serve output, but no Speculative Decoding section: the server ran "
     "without speculative decoding, or this vLLM prints none (import its --save-result JSON or /metrics instead)"),
    ((b"print_timing", b"llama_model_loader", b"llama-server", b"srv  ", b"llama_context"),
     "a llama.cpp log, but no speculative timing line ('draft acceptance ...'): was the server started with a "
     "draft model (-md / --model-draft) or a speculative type?"),
    ((b"Decode batch", b"Prefill batch", b"sglang"), "an SGLang log, but no Decode batch line with 'accept len' and "
     "no Finish line with spec fields: was it started with --speculative-algorithm?"),
    ((b"vllm", b"vLLM", b"Avg prompt throughput"), "a vLLM log, but no 'SpecDecoding metrics' (V1) or 'Speculative "
     "metrics' (V0) line: was speculative decoding on (--speculative-config) and stats logging on (no "
     "--disable-log-stats)?"),
)


@dataclass
class _State:
    file: str
    k: int | None = None
    requests: logs.Requests = field(default_factory=logs.Requests)
    stats: logs.StatsRuns = field(default_factory=logs.StatsRuns)
    v1: vllm_logs.Found = field(default_factory=vllm_logs.Found)
    v0: vllm_logs.Found = field(default_factory=vllm_logs.Found)
    v0_runs: vllm_logs.V0Runs = field(default_factory=vllm_logs.V0Runs)
    offline: list[vllm_logs.Block] = field(default_factory=list)
    bench: list[vllm_logs.Block] = field(default_factory=list)
    bench_open: bool = False
    decode: sglang_decode.DecodeLines = field(default_factory=sglang_decode.DecodeLines)
    finish: logs.Requests = field(default_factory=logs.Requests)
    v1_notes: list[str] = field(default_factory=list)
    drafters: llamacpp_extra.Drafters = field(default_factory=llamacpp_extra.Drafters)
    example: llamacpp_extra.ExampleSummary = field(default_factory=llamacpp_extra.ExampleSummary)
    trt: trtllm_bench.BenchReport = field(default_factory=trtllm_bench.BenchReport)

    def feed(self, number: int, line: str) -> None:
        where = f"{self.file}:{number}"
        if "adding speculative implementation" in line:
            self.drafters.added(line)
        elif "SpecDecoding metrics" in line:
            self.v1.saw(number)
            vllm_logs.v1_line(line, where, self.v1, self.v1_notes, self.k)
        elif "Speculative metrics:" in line:
            self.v0.saw(number)
            vllm_logs.v0_line(line, where, self.v0, self.v0_runs)
        elif " n_max=" in line and "#gen drafts" not in line:
            logs.llamacpp_n_max(line, self.stats)
            self.drafters.settings(line)
        elif "#gen drafts" in line:
            self.stats.lines += 1
            self.stats.first = self.stats.first or number
            logs.llamacpp_stats(line, number, self.file, self.stats)
        elif "draft tokens" in line and "| accepted" in line:
            logs.llamacpp_step(line, self.requests)
        elif "draft acceptance" in line:
            self.requests.lines += 1
            self.requests.first = self.requests.first or number
            logs.llamacpp_request(line, number, self.file, self.requests)
        elif "acc per pos = (" in line:
            logs.llamacpp_per_pos(line, number, self.file, self.requests)
        elif "print_timing: " in line:
            logs.llamacpp_timing_line(line, self.requests)
        elif "Decode batch" in line:
            if "accept len" in line:
                self.decode.lines += 1
                self.decode.first = self.decode.first or number
                sglang_decode.decode_line(line, number, self.file, self.decode)
        elif "Finish: obj=" in line:
            if "spec_verify_ct" in line:
                self.finish.lines += 1
                self.finish.first = self.finish.first or number
                logs.sglang_finish(line, number, self.file, self.finish)
        elif "DECODING STATISTICS" in line:
            trtllm_bench.header(line, number, self.trt)
        elif trtllm_bench.row_line(line, number, self.file, self.trt):
            pass
        elif llamacpp_extra.example_line(line, number, self.file, self.example):
            pass
        elif "-Speculative Decoding-" in line:
            self.bench_open = True
            self.bench.append(vllm_logs.Block(first=number))
        elif vllm_logs.block_line(line, number, self.file, vllm_logs.OFFLINE, ("num_drafts", "total_num_output_tokens"),
                                  self.offline):
            pass
        elif self.bench_open:
            vllm_logs.block_line(line, number, self.file, vllm_logs.BENCH, ("Acceptance rate (%)",), self.bench)


def read_log(fh: BinaryIO, file: str, head: bytes, k: int | None,
             task_map: Mapping[str, str] | None = None) -> Generator[int, None, list[SourceResult]]:
    """Stream the log; yields bytes read so far; returns its sources (MetricsError when it has none)."""
    stats = ScanStats()
    state = _State(file, k)
    for item in scan(fh, _MARKERS, stats):
        if item is None:
            yield stats.bytes_read
        elif item[0] == stats.unterminated and "draft acceptance" in item[1] and not logs.llamacpp_line_whole(item[1]):
            # llama.cpp's request line cut where the file ends: its start reads as the older form (no mean
            # length, no per-position rates), so it is skipped and counted as cut, never read as that form; a
            # last line that ends as a whole current or mean-len form is read (a file saved without its newline)
            state.requests.cut += 1
        else:
            state.feed(*item)
    return _sources(state, stats, head, k, task_map)


def _families(state: _State) -> dict[str, int]:
    """Formats with at least one usable line, each with its first line number."""
    found: dict[str, int] = {}
    if state.requests.parts or state.stats.last:
        found["llama.cpp"] = min(x for x in (state.requests.first, state.stats.first) if x)
    elif state.requests.steps:
        found["llama.cpp"] = 1
    elif llamacpp_extra.example_counts(state.example, state.file) is not None:
        found["llama.cpp"] = state.example.first
    if state.v0_runs.last:
        found["vLLM V0"] = state.v0.first
    if state.v1.parts or (state.offline and any(vllm_logs.offline_counts(b, state.file) for b in state.offline)):
        found["vLLM V1"] = min(x for x in (state.v1.first, state.offline[0].first if state.offline else 0) if x)
    if any(len(b.values) for b in state.bench):
        found["vllm bench serve"] = state.bench[0].first
    if trtllm_bench.report_counts(state.trt, state.file) is not None:
        found["trtllm-bench"] = state.trt.first
    if state.decode.lengths or state.finish.parts:
        found["SGLang"] = min(x for x in (state.decode.first, state.finish.first) if x)
    return found


def _sources(state: _State, stats: ScanStats, head: bytes, k: int | None,
             task_map: Mapping[str, str] | None) -> list[SourceResult]:
    file = state.file
    cut = (stats.cut + state.requests.cut + state.stats.cut + state.v1.cut + state.v0.cut + state.decode.cut
           + state.finish.cut)
    found = _families(state)
    if not found:
        tried = ", ".join(LOG_FORMATS)
        nearest = next((say for needles, say in _NEAREST if any(n in head for n in needles)), None)
        if cut:
            nearest = f"{cut} speculative line{'s' if cut != 1 else ''} cut midway or too long, none complete"
        raise MetricsError(f"{file}: none of the formats read (tried Prometheus text, JSON, JSON lines and the logs: "
                           f"{tried}); nearest: {nearest or 'nothing alike: no engine line in its first megabytes'}")
    if len(found) > 1:
        (a, la), (b, lb) = sorted(found.items(), key=lambda kv: kv[1])[:2]
        raise MetricsError(f"{file}: lines of two formats in one file, {a} (line {la}) and {b} (line {lb}); "
                           "import each engine's output as a file of its own")
    notes = [f"{stats.lines:,} lines read, streamed; the speculative lines taken, the others skipped"]
    if cut:
        notes.append(f"{cut} speculative line{'s' if cut != 1 else ''} skipped: cut midway, or longer than a log line can be")
    family = next(iter(found))
    if family == "llama.cpp":
        out = _llamacpp(state, task_map, notes)
    elif family == "SGLang":
        out = _sglang(state, k, notes)
    elif family == "trtllm-bench":
        counts, more = trtllm_bench.report_counts(state.trt, file)  # type: ignore[misc]
        out = [_source(file, "trtllm", counts, "trtllm-bench report, DECODING STATISTICS / acceptance (tokens per "
                       "iteration)", [*notes, *more], has_counts=False)]
    elif family == "vllm bench serve":
        out = _blocks(state.bench, file, vllm_logs.bench_counts, "vllm bench serve console output", notes)
    elif family == "vLLM V0":
        out = _v0(state, notes)
    else:
        out = _v1(state, notes)
    return out


def _source(file: str, engine: str, counts: SpecCounts, fmt: str, notes: list[str], *, model: str | None = None,
            task_class: str | None = None, has_counts: bool = True,
            requests: list[tuple[str, SpecCounts]] | None = None) -> SourceResult:
    return SourceResult(file=file, engine=engine, counts=counts, model=model, task_class=task_class, kind="log",
                        has_counts=has_counts, notes=notes, format=fmt, requests=list(requests or []))


def _combined(parts: list[SpecCounts], file: str) -> SpecCounts:
    try:
        return combine(parts)
    except ReportError as exc:
        raise MetricsError(f"{file}: {exc}") from None


def _llamacpp(state: _State, task_map: Mapping[str, str] | None, notes: list[str]) -> list[SourceResult]:
    file, req = state.file, state.requests
    if req.parts:
        if state.stats.lines:
            notes.append(f"{state.stats.lines} statistics lines (cumulative) left as a cross-check; the per-request lines are added up")
        groups: dict[str | None, list[tuple[str, SpecCounts]]] = {}
        unmapped = 0
        for name, counts in req.parts:
            task = name[5:] if name.startswith("task ") else None
            cls = task_map.get(task) if task_map is not None and task is not None else None
            unmapped += task_map is not None and cls is None
            groups.setdefault(cls, []).append((name, counts))
        if unmapped:
            notes.append(f"{unmapped} requests whose task id the mapping file does not name: one source without a class")
        if req.traced:
            notes.append(f"{req.traced} of {count(len(req.parts), 'request')} have LLAMA_TRACE step lines ('accepted a/d draft "
                         "tokens'): their rejections counted step by step, a draft cut short and wholly accepted being none")
        if req.short_blocks:
            more = len(req.short_blocks) - 1
            notes.append(req.short_blocks[0] + (f" (and {count(more, 'more request')} the same way)" if more else ""))
        fmt = f"llama.cpp server log, per-request print_timing lines ({req.form})"
        return [_source(file, "llamacpp", _combined([c for _, c in parts], file), fmt,
                        [*notes, f"{count(len(parts), 'request')} added up"], task_class=cls, requests=parts)
                for cls, parts in groups.items()]
    if req.steps and not state.stats.last:
        parts, more = llamacpp_extra.steps_alone(req.steps, file)
        return [_source(file, "llamacpp", _combined([c for _, c in parts], file),
                        "llama.cpp server log, LLAMA_TRACE per-step lines only ('accepted a/d draft tokens')",
                        [*notes, *more], requests=parts)]
    if not state.stats.last:
        counts, more = llamacpp_extra.example_counts(state.example, file)  # type: ignore[misc]
        return [_source(file, "llamacpp", counts, "llama.cpp speculative example summary (n_drafted, n_accept, accept)",
                        [*notes, *more])]
    return _llamacpp_stats(state, notes)


def _llamacpp_stats(state: _State, notes: list[str]) -> list[SourceResult]:
    """The statistics lines' totals, one source per drafter, each with its own K where its settings line gave one."""
    file, runs = state.file, state.stats
    k_log = next(iter(runs.n_max)) if len(runs.n_max) == 1 else None
    by_impl: dict[str, list[tuple[str, SpecCounts]]] = {}
    own_k = state.drafters.n_max
    for where, counts in [*runs.banked, *runs.last.values()]:
        impl = where.split(" ")[0]
        k_impl = own_k.get(impl, k_log)
        if k_impl is not None and counts.k is None:
            try:
                counts = with_k(counts, k_impl)
            except ReportError as exc:
                raise MetricsError(f"{file}: the log's '- n_max={k_impl}' line{f' for {impl}' if impl in own_k else ''}: "
                                   f"{exc}") from None
        by_impl.setdefault(impl, []).append((where, counts))
    extra = [LLAMACPP_STATS_TAKEN]
    if len(by_impl) > 1:
        extra.append(f"{len(by_impl)} drafters in one log ({', '.join(by_impl)}): one source each, with its own K "
                     "(--k NAME=K gives one drafter's)")
    if any(impl in own_k for impl in by_impl):
        extra.append("K of each drafter from its own settings line, printed as it was added: "
                     + ", ".join(f"{impl} '- n_max={own_k[impl]}'" for impl in by_impl if impl in own_k))
    elif k_log is not None:
        extra.append(f"K = {k_log} from the log's '- n_max={k_log}' line (the speculative implementation's settings)")
    else:
        at_least = max((c.k_at_least or 0 for _, c in [*runs.banked, *runs.last.values()]), default=0)
        extra.append(f"K is at least {at_least}: '#acc rate/pos' has a rate per position up to the longest run of "
                     "accepted drafts (common_speculative_accept grows it), not one per draft position"
                     + (f"; the log's '- n_max' lines say {sorted(runs.n_max)}, one per implementation" if runs.n_max else "")
                     + "; pass --k")
    if runs.restarts:
        extra.append(f"the totals went down {runs.restarts} time(s) (a restart, or another slot's context): each run's "
                     "last totals added up")
    return [_source(file, "llamacpp", _combined([c for _, c in parts], file),
                    "llama.cpp speculative statistics lines (common/speculative.cpp, totals per context)",
                    [*notes, *extra], model=impl)  # the drafter, named (--k NAME=K)
            for impl, parts in by_impl.items()]


LLAMACPP_STATS_TAKEN = ("no per-request 'draft acceptance' line: the statistics lines' totals taken (the last of each "
                        "speculative implementation)")


def _sglang(state: _State, k: int | None, notes: list[str]) -> list[SourceResult]:
    file = state.file
    if state.finish.parts:
        if state.decode.lines:
            notes.append(f"{state.decode.lines} Decode batch lines (rates only) left as a cross-check; the Finish lines' counts added up")
        parts = state.finish.parts
        return [_source(file, "sglang", _combined([c for _, c in parts], file),
                        "SGLang server log, Finish lines with meta_info (--log-requests)",
                        [*notes, f"{count(len(parts), 'request')} added up"], requests=parts)]
    counts, more, readings = sglang_decode.decode_counts(state.decode, k)
    if readings:
        counts = replace(counts, engine_values={**counts.engine_values, "accept rate readings": [
            {"convention": r.convention, "k": list(r.ks)} for r in readings]})
    return [_source(file, "sglang", counts, "SGLang server log, Decode batch lines (accept len, accept rate)",
                    [*notes, *more], has_counts=False)]


def _v1(state: _State, notes: list[str]) -> list[SourceResult]:
    file = state.file
    blocks = [b for b in state.offline if vllm_logs.offline_counts(b, file)]
    if blocks:
        if state.v1.lines:
            notes.append(f"{state.v1.lines} SpecDecoding metrics interval lines left as a cross-check; the summary's exact totals taken")
        return _blocks(blocks, file, vllm_logs.offline_counts, "vLLM offline example summary", notes)
    parts = [c for _, c in state.v1.parts]
    if not parts:
        raise MetricsError(f"{file}: its SpecDecoding metrics lines all have zero drafted tokens: nothing was drafted")
    counts = _combined(parts, file)
    current = counts.per_position_accepted is not None
    fmt = ("vLLM V1 server log, SpecDecoding metrics lines (current form: mean acceptance length, per-position rates)"
           if current else "vLLM V1 server log, SpecDecoding metrics lines (first form: acceptance rate, accepted, drafted)")
    extra = [f"{len(parts)} vLLM log intervals added up (each line counts its own interval; data-parallel engines' lines too)"]
    if current:
        extra.append("per-position rates printed to 3 decimals")
    # interval lines are not requests (the unit an interval on alpha resamples): the source gives totals only
    return [_source(file, "vllm", counts, fmt, [*notes, *state.v1_notes, *extra])]


def _v0(state: _State, notes: list[str]) -> list[SourceResult]:
    file = state.file
    parts = vllm_logs.v0_counts(state.v0_runs, file)
    if not parts:
        raise MetricsError(f"{file}: its Speculative metrics lines all have zero draft tokens: nothing was drafted")
    extra = [f"{state.v0.lines} Speculative metrics lines, totals since each engine started: the last of each "
             f"process taken ({len(state.v0_runs.last)} process{'es' if len(state.v0_runs.last) != 1 else ''})"]
    if state.v0_runs.restarts:
        extra.append(f"the totals went down {state.v0_runs.restarts} time(s) (a restart): each run's last totals added up")
    return [_source(file, "vllm", _combined([c for _, c in parts], file),
                    "vLLM V0 server log, Speculative metrics lines (cumulative totals)", [*notes, *extra])]


def _blocks(blocks: list[vllm_logs.Block], file: str, convert, fmt: str, notes: list[str]) -> list[SourceResult]:  # noqa: ANN001
    done = [(b, convert(b, file)) for b in blocks]
    done = [(b, r) for b, r in done if r is not None]
    if not done:
        raise MetricsError(f"{file}: a {fmt} without its Drafts, Draft tokens and Accepted tokens lines (cut?)")
    many = len(done) > 1
    return [_source(file, "vllm", counts, fmt, [*notes, *more], model=f"run {i} (line {b.first})" if many else None)
            for i, (b, (counts, more)) in enumerate(done, 1)]
