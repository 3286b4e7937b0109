"""Sources from JSON: one document read whole, or JSON lines streamed one record a line.

A document is a `specledger sample --json` result, an AIPerf aggregate export, a `vllm bench serve` result, a
GuideLLM report, or one or more responses' records; JSON lines are AIPerf's per-request profile_export.jsonl, or
one response a line. model.metrics.read recognises the file as JSON and hands it here; the formats' fields are
read by model.metrics.records and model.metrics.bench_tools.
"""
from __future__ import annotations

import json
from typing import Any, BinaryIO, Generator, Iterator

from model.common.formatting import count
from model.metrics import bench_tools, records
from model.metrics.lines import ScanStats, scan
from model.metrics.prompt_keys import record_prompt
from model.metrics.result import MetricsError, SourceResult


def json_lines_sources(fh: BinaryIO, file: str, engine: str) -> Generator[int, None, list[SourceResult]]:
    stats = ScanStats()

    def items() -> Iterator[tuple[int, Any]]:
        for item in scan(fh, None, stats):
            if item is None:
                continue
            number, line = item
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise MetricsError(f"{file}:{number}: not JSON ({exc.msg}); a line cut midway?") from None
            yield number, obj
    gen = items()
    try:
        head = next(gen)
    except StopIteration:
        raise MetricsError(f"{file}: empty") from None
    obj = head[1]
    stream = _chain(head, gen)
    if isinstance(obj, dict) and bench_tools.aiperf_record(obj, f"{file}:{head[0]}") is not None or (
            isinstance(obj, dict) and isinstance(obj.get("metrics"), dict) and "metadata" in obj):
        result = _aiperf_records(file, stream)
    else:
        result = [SourceResult(file=file, engine=c.engine, counts=c, task_class=name, kind="records", notes=notes,
                               format=records.records_format("JSON lines, one response a line", c), requests=parts,
                               prompts=prompts)
                  for name, c, notes, parts, prompts in records.read_records(stream, file, engine)]
    if stats.cut:
        for s in result:
            s.notes.append(f"{stats.cut} lines over 1 MB skipped")
    yield stats.bytes_read
    return result


def _chain(first: tuple[int, Any], rest: Iterator[tuple[int, Any]]) -> Iterator[tuple[int, Any]]:
    yield first
    yield from rest


def _aiperf_records(file: str, stream: Iterator[tuple[int, Any]]) -> list[SourceResult]:
    parts, prompts, without = [], [], 0
    for number, obj in stream:
        counts = bench_tools.aiperf_record(obj, f"{file}:{number}") if isinstance(obj, dict) else None
        if counts is None:
            without += 1
        elif counts.drafts:
            parts.append((f"record {number}", counts))
            prompts.append(record_prompt(obj))
    if not parts:
        raise MetricsError(f"{file}: an AIPerf profile_export.jsonl, but none of its records has spec_decode metrics "
                           "(spec decode off, or this AIPerf predates them)")
    notes = [f"{len(parts)} AIPerf request records added up"]
    if without:
        notes.append(f"{without} records without spec-decode metrics left out")
    return [SourceResult(file=file, engine="aiperf", counts=bench_tools.combined([c for _, c in parts], file), kind="aiperf",
                         format="AIPerf profile_export.jsonl (per-request spec_decode metrics)", notes=notes, requests=parts,
                         prompts=prompts)]


def json_document_sources(file: str, obj: Any, engine: str) -> list[SourceResult]:
    if records.is_sample_result(obj):
        classes = records.read_sample_result(obj, file)
        per_prompt = records.read_sample_requests(obj, file, int(obj["k"]))
        return [SourceResult(file=file, engine="specledger-sample", counts=c, task_class=name, kind="specledger-sample",
                             notes=notes, format="specledger sample --json result",
                             requests=per_prompt.get(name, ([], []))[0], prompts=per_prompt.get(name, ([], []))[1])
                for name, c, notes in classes]
    aggregate = bench_tools.aiperf_metrics(obj)
    if aggregate is not None:
        histogram = obj.get(bench_tools.AIPERF_HISTOGRAM, aggregate.get(bench_tools.AIPERF_HISTOGRAM))
        counts, notes = bench_tools.aiperf_aggregate(aggregate, histogram, file)
        return [SourceResult(file=file, engine="aiperf", counts=counts, kind="aiperf", notes=notes,
                             format="AIPerf aggregate export (profile_export_aiperf.json, spec decode section)")]
    if records.is_vllm_bench(obj):
        counts, notes = records.read_vllm_bench(obj, file)
        return [SourceResult(file=file, engine="vllm", counts=counts, kind="vllm-bench", notes=notes,
                             format="vllm bench serve --save-result JSON")]
    if bench_tools.is_aiperf_export(obj):
        raise MetricsError(f"{file}: an AIPerf export, but without spec-decode metrics (spec decode off, or this AIPerf "
                           "predates them)")
    if bench_tools.is_guidellm_report(obj):
        parts, n = bench_tools.guidellm_report(obj, file)
        if not parts:
            raise MetricsError(f"{file}: a GuideLLM report, but none of its {count(n, 'request')} carries server-reported acceptance "
                               "(GuideLLM records timings and token counts); import the server's /metrics scrape or log")
        return [SourceResult(file=file, engine=parts[0][1].engine, counts=bench_tools.combined([c for _, c in parts], file),
                             kind="guidellm", format="GuideLLM report (server-reported fields in its requests)",
                             notes=[f"{len(parts)} of {n} requests carry the server's counts"], requests=parts)]
    if isinstance(obj, list):
        items = list(enumerate(obj, 1))  # a JSON array of records: "line" is the record's number
    elif isinstance(obj, dict):
        items = [(1, obj)]
    else:
        raise MetricsError(f"{file}: JSON that is none of the metrics formats")
    if not items:
        raise MetricsError(f"{file}: empty")
    return [SourceResult(file=file, engine=c.engine, counts=c, task_class=name, kind="records", notes=notes,
                         format=records.records_format("JSON records", c), requests=parts, prompts=prompts)
            for name, c, notes, parts, prompts in records.read_records(items, file, engine)]
