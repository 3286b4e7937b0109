"""Recognise each metrics file, read it within a size limit, and turn it into sources per task class.

A Prometheus file followed by another of the same engine and models is taken as two scrapes of one
server, before and after a run: their difference is the run. One scrape alone gives the totals since
the server started (said in the notes).
"""
from __future__ import annotations

import json
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any, Sequence

from model.engine_reports import ReportError, with_k
from model.metrics import logs, prometheus, records
from model.metrics.result import MetricsError, SourceResult
from model.safe_files import MB, FileRefused, read_text_limited

ENGINES = ("auto", "vllm", "sglang", "trtllm", "tgi", "llamacpp", "usage")
LIMIT_METRICS_FILE = 64 * MB  # a day of server logs fits; a runaway log is refused before it is read
SUFFIXES = (".prom", ".txt", ".log", ".jsonl", ".json", ".metrics")


def is_metrics_path(path: str | Path) -> bool:
    """For the window's drop handler: a metrics file by its name; a .json only when it is not a workbook."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        return False
    if suffix != ".json":
        return True
    try:
        obj = json.loads(read_text_limited(path, limit_bytes=LIMIT_METRICS_FILE, what="metrics file"))
    except (ValueError, OSError):
        return False  # let the workbook reader say what is wrong with it
    return not (isinstance(obj, dict) and ("tiers" in obj or "settings" in obj))


def _kind(text: str) -> str:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            json.loads(text)
            return "json"
        except json.JSONDecodeError:
            pass
    if logs.engine_of_log(text):
        return "log"  # log lines may start with "[" (a timestamp) too
    return "jsonl" if stripped.startswith("{") else "prometheus"


def _read(path: Path) -> str:
    try:
        return read_text_limited(path, limit_bytes=LIMIT_METRICS_FILE, what="metrics file")
    except FileRefused as exc:
        raise MetricsError(str(exc)) from None


def read_sources(paths: Sequence[str | Path], engine: str = "auto", k: int | None = None,
                 task_class: str | None = None) -> list[SourceResult]:
    """Every file's sources, in the order given; MetricsError (one line, naming the file) on the first bad one."""
    if engine not in ENGINES:
        raise MetricsError(f"unknown engine {engine!r}; one of {', '.join(ENGINES)}")
    if k is not None and k < 1:
        raise MetricsError(f"--k {k}: K is the number of draft tokens per step, at least 1")
    texts = [(str(p), _read(Path(p))) for p in paths]
    out: list[SourceResult] = []
    pending: prometheus.Scrape | None = None  # a scrape that may be the "before" of the next file
    for file, text in texts:
        kind = _kind(text)
        if kind != "prometheus":
            if pending is not None:
                out += _scrape_sources(pending, None)
                pending = None
            out += _other_sources(file, text, kind, engine, k)
            continue
        scrape = prometheus.read_scrape(text, file, engine)
        if pending is not None and pending.engine == scrape.engine and set(pending.values) == set(scrape.values):
            out += _scrape_sources(prometheus.difference(pending, scrape), pending.file)
            pending = None
        else:
            if pending is not None:
                out += _scrape_sources(pending, None)
            pending = scrape
    if pending is not None:
        out += _scrape_sources(pending, None)
    return [_finish(s, k, task_class) for s in out]


def _scrape_sources(scrape: prometheus.Scrape, before: str | None) -> list[SourceResult]:
    models = list(scrape.values)
    out = []
    for model in models:
        counts, has_counts, notes = prometheus.counts_of(scrape, model)
        head = (f"difference of two scrapes: {before} (before) and {scrape.file} (after)" if before
                else "one scrape: totals since the server started")
        if len(models) > 1:
            head += f"; the scrape has {len(models)} models, one source per model_name"
        out.append(SourceResult(file=scrape.file, engine=scrape.engine, counts=counts, model=model,
                                kind="prometheus-difference" if before else "prometheus", has_counts=has_counts,
                                notes=[head, *notes]))
    return out


def _other_sources(file: str, text: str, kind: str, engine: str, k: int | None) -> list[SourceResult]:
    if kind == "log":
        found = logs.engine_of_log(text)
        if engine not in ("auto", found):
            raise MetricsError(f"{file}: a {found} log, but --engine {engine} was given")
        reader = logs.read_vllm_log if found == "vllm" else logs.read_sglang_log
        counts, notes = reader(text, file, k)
        return [SourceResult(file=file, engine=counts.engine, counts=counts, kind="log",
                             has_counts=found == "vllm", notes=notes)]
    if kind == "json":
        obj: Any = json.loads(text)
        if records.is_sample_result(obj):
            return [SourceResult(file=file, engine="specledger-sample", counts=c, task_class=name,
                                 kind="specledger-sample", notes=notes)
                    for name, c, notes in records.read_sample_result(obj, file)]
        if records.is_vllm_bench(obj):
            counts, notes = records.read_vllm_bench(obj, file)
            return [SourceResult(file=file, engine="vllm", counts=counts, kind="vllm-bench", notes=notes)]
        if isinstance(obj, list):
            items = list(enumerate(obj, 1))  # a JSON array of records: "line" is the record's number
        elif isinstance(obj, dict):
            items = [(1, obj)]
        else:
            raise MetricsError(f"{file}: JSON that is none of the metrics formats")
    else:
        items = records.json_lines(text, file)
    if not items:
        raise MetricsError(f"{file}: empty")
    return [SourceResult(file=file, engine=c.engine, counts=c, task_class=name, kind="records", notes=notes)
            for name, c, notes in records.read_records(items, file, engine)]


def _finish(source: SourceResult, k: int | None, task_class: str | None) -> SourceResult:
    try:
        counts = with_k(source.counts, k)
    except ReportError as exc:
        raise MetricsError(f"{source.file}: {exc}") from None
    if source.has_counts and counts.steps == 0:
        raise MetricsError(f"{source.file}: zero drafts{' for ' + source.model if source.model else ''}: "
                           "nothing was speculated between the scrapes (or since the server started)")
    if counts.draft_tokens == 0 and source.has_counts:
        raise MetricsError(f"{source.file}: zero draft tokens: nothing was speculated")
    length = counts.mean_acceptance_length
    if counts.k is not None and length is not None and length > counts.k + 1 + 1e-9:
        raise MetricsError(f"{source.file}: {length:.3f} tokens per verify step is more than K + 1 = {counts.k + 1}: "
                           "the K is wrong")
    return replace(source, counts=counts, task_class=source.task_class or task_class)


def missing_k(sources: Sequence[SourceResult]) -> list[SourceResult]:
    """Sources whose K neither the file nor the user gave (Predicted Outputs need none)."""
    return [s for s in sources if s.counts.k is None and not s.counts.predicted_outputs]


def source_note(source: SourceResult, today: date | None = None) -> str:
    """The workbook's note for an applied alpha: `imported: <engine> <file> <date>`."""
    return f"imported: {source.engine} {Path(source.file).name} {(today or date.today()).isoformat()}"


def applicable(sources: Sequence[SourceResult]) -> list[SourceResult]:
    """The sources that can set a class's alpha; MetricsError when two would set the same class."""
    seen: dict[str, SourceResult] = {}
    out = []
    for s in sources:
        if s.task_class is None or s.alpha_applied is None:
            continue
        key = s.task_class.lower()
        if key in seen:
            raise MetricsError(f"two sources for task class {s.task_class!r} ({seen[key].file} and {s.file}); "
                               "apply them one at a time")
        seen[key] = s
        out.append(s)
    return out
