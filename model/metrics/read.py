"""Recognise each metrics file by its content, read it within a size limit, and turn it into sources per task class.

A file is recognised by what it holds, never by its name: JSON (a document, or one record a line),
Prometheus text, or else a console log, streamed and searched for every engine's speculative lines
(model.metrics.logscan). A Prometheus file followed by another of the same engine and models is taken
as two scrapes of one server, before and after a run: their difference is the run. One scrape alone
gives the totals since the server started (said in the notes).

`read_sources_steps` is the long work as a generator (docs/dev/layout.md#long-work): it yields progress (files
done, bytes read, bytes in all) between chunks, so the window runs it on its worker with Cancel.
"""
from __future__ import annotations

import json
import re
from types import GeneratorType
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import BinaryIO, Callable, Generator, Mapping, Sequence, TypeVar

from model.common.cancel import run_to_end
from model.engines.recorded import RecordedFile
from model.engines.reports import ReportError, with_k
from model.engines.spec_checks import MAX_K, count_problem
from model.metrics import bench_tools, logscan, prometheus
from model.metrics.json_sources import json_document_sources, json_lines_sources
from model.metrics.result import MetricsError, SourceResult
from model.common.safe_files import MB, FileRefused, open_regular, read_text_limited

ENGINES = ("auto", "vllm", "sglang", "trtllm", "tgi", "llamacpp", "usage")
LIMIT_METRICS_FILE = 64 * MB  # a file read whole (JSON, Prometheus text): a runaway file is refused before it is read
LIMIT_STREAMED = 1024 * MB  # a log or JSON lines, read as a stream in bounded memory; past this it is refused up front
SUFFIXES = (".prom", ".txt", ".log", ".jsonl", ".json", ".metrics", ".out")
_HEAD = 1 * MB
_PROM_LINE = re.compile(r"^[A-Za-z_:][A-Za-z0-9_:]*(\{[^}]*\})?\s+[-+0-9.eEinfINFaN]+(\s+-?\d+)?\s*$")

Progress = tuple[int, int, int, int]  # files done, files, bytes read, bytes in all
# another wing's reader of its own files: what it found (None: not its file), or that as long work
_Read = TypeVar("_Read")
RecordedReader = Callable[[str], "RecordedFile | None | Generator[int, None, RecordedFile | None]"]


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


def read_task_map(path: str | Path) -> dict[str, str]:
    """Task ids to task classes: a JSON object {"42": "code"}, or lines "42,code" (a tab works too)."""
    try:
        text = read_text_limited(path, limit_bytes=16 * MB, what="task map")
    except FileRefused as exc:
        raise MetricsError(str(exc)) from None
    out: dict[str, str] = {}
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise MetricsError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
        pairs = list(obj.items()) if isinstance(obj, dict) else []
        numbered = [(1, str(k), v) for k, v in pairs]
    else:
        numbered = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip() and not line.lstrip().startswith("#"):
                task, sep, name = re.split(r"([,\t])", line, maxsplit=1) if re.search(r"[,\t]", line) else (line, "", "")
                numbered.append((number, task.strip(), name.strip() if sep else None))
    for number, task, name in numbered:
        if not isinstance(name, str) or not name.strip() or any(ord(ch) < 32 for ch in name):
            raise MetricsError(f"{path}:{number}: task {task!r}: expected a task class name")
        out[task] = name.strip()
    if not out:
        raise MetricsError(f"{path}: no task ids in it")
    return out


def parse_k_per_drafter(text: str) -> dict[str, int]:
    """'draft-mtp=2, ngram-simple=64': K per drafter by name (a llama.cpp log with several); MetricsError in one line."""
    out: dict[str, int] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, value = part.partition("=")
        name = name.strip()
        try:
            k = int(value.strip())
        except ValueError:
            k = 0
        if not sep or not name or not 1 <= k <= MAX_K:
            raise MetricsError(f"{part.strip()!r}: expected NAME=K, the drafter's name and a whole K from 1 to {MAX_K}")
        out[name] = k
    return out


def read_sources(paths: Sequence[str | Path], engine: str = "auto", k: int | Mapping[str, int] | None = None,
                 task_class: str | None = None, task_map: Mapping[str, str] | None = None,
                 recorded: RecordedReader | None = None) -> list[SourceResult]:
    """Every file's sources, in the order given; MetricsError (one line, naming the file) on the first bad one."""
    return run_to_end(read_sources_steps(paths, engine, k, task_class, task_map, recorded))


def read_sources_steps(paths: Sequence[str | Path], engine: str = "auto", k: int | Mapping[str, int] | None = None,
                       task_class: str | None = None, task_map: Mapping[str, str] | None = None,
                       recorded: RecordedReader | None = None) -> Generator[Progress, None, list[SourceResult]]:
    """``recorded``: another wing's reader, asked first for each file (the front end passes the probe's, for its
    run files): its RecordedFile, or None where the file is not its own; a ValueError names what is wrong."""
    if engine not in ENGINES:
        raise MetricsError(f"unknown engine {engine!r}; one of {', '.join(ENGINES)}")
    for name, value in (k.items() if isinstance(k, Mapping) else [("", k)] if k is not None else []):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_K:
            raise MetricsError(f"--k {name + '=' if name else ''}{value}: K is the number of draft tokens per step, 1 to {MAX_K}")
    sources = yield from _read_all(paths, engine, k if isinstance(k, int) else None, task_map, recorded)
    return _finish_all(sources, k, task_class)


def _read_all(paths: Sequence[str | Path], engine: str, k: int | None, task_map: Mapping[str, str] | None,
              recorded: RecordedReader | None) -> Generator[Progress, None, list[SourceResult]]:
    sizes = [_size(p) for p in paths]
    total = sum(sizes)
    out: list[SourceResult] = []
    pending: prometheus.Scrape | None = None  # a scrape that may be the "before" of the next file
    done_bytes = 0
    for index, path in enumerate(paths):
        file = str(path)
        found: list[SourceResult] = []
        scrape: prometheus.Scrape | None = None
        try:
            given = yield from _ask(recorded, file, (index, len(paths), done_bytes, total))
            if given is not None:
                result: list[SourceResult] | prometheus.Scrape = _recorded_sources(given, engine)
            else:
                result = yield from _read_file(path, sizes[index], engine, k, task_map, (index, len(paths), done_bytes, total))
        except FileRefused as exc:
            raise MetricsError(str(exc)) from None
        except OSError as exc:
            raise MetricsError(f"{file}: could not be read ({exc.strerror or exc})") from None
        done_bytes += sizes[index]
        if isinstance(result, prometheus.Scrape):
            scrape = result
        else:
            found = result
        if scrape is None:
            if pending is not None:
                out += _scrape_sources(pending, None)
                pending = None
            out += found
        elif pending is not None and pending.engine == scrape.engine and set(pending.values) == set(scrape.values):
            out += _scrape_sources(prometheus.difference(pending, scrape), pending.file)
            pending = None
        else:
            if pending is not None:
                out += _scrape_sources(pending, None)
            pending = scrape
        yield index + 1, len(paths), done_bytes, total
    if pending is not None:
        out += _scrape_sources(pending, None)
    return out


def _ask(recorded: RecordedReader | None, file: str, at: Progress) -> Generator[Progress, None, RecordedFile | None]:
    """The other wing's reader on ``file``: what it found, or None where the file is not its own; a reader that is
    long work (a generator of bytes read) has its progress passed on."""
    if recorded is None:
        return None
    try:
        given = recorded(file)
        if not isinstance(given, GeneratorType):
            return given
        try:
            return (yield from _as_progress(given, at))
        finally:
            given.close()  # a cancel closes this generator: the reader's file with it
    except ValueError as exc:  # the other reader's one line naming the file
        raise MetricsError(str(exc)) from None


def _as_progress(gen: Generator[int, None, _Read], at: Progress) -> Generator[Progress, None, _Read]:
    """A reader's bytes read so far, as the import's progress (the files before it counted in)."""
    index, files, done_bytes, total = at
    while True:
        try:
            read = next(gen)
        except StopIteration as stop:
            return stop.value
        yield index, files, done_bytes + read, total


def _read_file(path: str | Path, size: int, engine: str, k: int | None, task_map: Mapping[str, str] | None,
               at: Progress) -> Generator[Progress, None, "list[SourceResult] | prometheus.Scrape"]:
    with open_regular(path, "metrics file", limit_bytes=LIMIT_STREAMED) as fh:
        return (yield from _as_progress(_read_one(fh, str(path), size, engine, k, task_map), at))


def _finish_all(sources: list[SourceResult], k: int | Mapping[str, int] | None, task_class: str | None,
                ) -> list[SourceResult]:
    """Each source with its K: the one K given, or the K given for its drafter by name (a source's model: a
    llama.cpp drafter, a scrape's model_name); a name no source has is refused, naming the drafters there are."""
    if not isinstance(k, Mapping):
        return [_finish(s, k, task_class) for s in sources]
    by_name = {name.lower(): value for name, value in k.items()}
    names = sorted({s.model for s in sources if s.model})
    unknown = [name for name in k if name.lower() not in {n.lower() for n in names}]
    if unknown:
        raise MetricsError(f"--k {unknown[0]}=K: no drafter named {unknown[0]!r} in the files (drafters: "
                           f"{', '.join(names) or 'none named; give --k K'})")
    return [_finish(s, by_name.get((s.model or "").lower()), task_class) for s in sources]


def _size(path: str | Path) -> int:
    try:
        return Path(path).stat().st_size
    except (OSError, ValueError):
        return 0  # open_regular says what is wrong with it


def _read_one(fh: BinaryIO, file: str, size: int, engine: str, k: int | None, task_map: Mapping[str, str] | None,
              ) -> Generator[int, None, "list[SourceResult] | prometheus.Scrape"]:
    head = fh.read(_HEAD)
    if not head.strip():
        raise MetricsError(f"{file}: empty")
    if b"\x00" in head[:65536]:
        raise MetricsError(f"{file}: a binary file (NUL bytes), not text: none of the metrics formats")
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if start in (b"{", b"["):
        if size <= LIMIT_METRICS_FILE:
            data = head + fh.read(LIMIT_METRICS_FILE + 1 - len(head))
            try:
                obj = json.loads(data.decode("utf-8", "strict"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                obj = None
            if obj is not None:
                yield len(data)
                return _check_engine(json_document_sources(file, obj, engine), engine, file)
        first = head.split(b"\n", 1)[0]
        if _json_object(first):
            fh.seek(0)
            sources = yield from json_lines_sources(fh, file, engine)
            return _check_engine(sources, engine, file)
    elif _looks_prometheus(head):
        if size > LIMIT_METRICS_FILE:
            raise MetricsError(f"{file}: Prometheus text of {size / MB:,.0f} MB, over the 64 MB a scrape can be")
        data = head + fh.read(LIMIT_METRICS_FILE + 1 - len(head))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise MetricsError(f"{file}:{line}: not UTF-8 text") from None
        yield len(data)
        return prometheus.read_scrape(text, file, engine)
    fh.seek(0)
    sources = yield from logscan.read_log(fh, file, head, k, task_map)
    return _check_engine(sources, engine, file)


def _json_object(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line.decode("utf-8", "strict")), dict)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return False


def _looks_prometheus(head: bytes) -> bool:
    lines = [ln.strip() for ln in head[:65536].decode("utf-8", "replace").splitlines()[:200] if ln.strip()]
    if any(ln.startswith(("# TYPE ", "# HELP ")) for ln in lines):
        return True
    samples = [ln for ln in lines if not ln.startswith("#")][:50]
    return bool(samples) and sum(bool(_PROM_LINE.match(ln)) for ln in samples) >= 0.8 * len(samples)


def _check_engine(sources: list[SourceResult], engine: str, file: str) -> list[SourceResult]:
    for s in sources:
        usage = s.engine in ("openai-predicted-outputs", "fireworks")
        if engine != "auto" and (s.engine != engine if engine != "usage" else not usage) and s.kind != "records":
            raise MetricsError(f"{file}: a {s.engine} file ({s.format or s.kind}), but --engine {engine} was given")
    return sources




def _recorded_sources(given: RecordedFile, engine: str) -> list[SourceResult]:
    """What another wing's reader found in a file of its own (the probe's run file), as sources like the others."""
    if not given.classes:
        raise MetricsError(given.empty or f"{given.file}: no request in it carries the server's own counts")
    sources = [SourceResult(file=given.file, engine=c.requests[0][1].engine,
                            counts=bench_tools.combined([r for _, r in c.requests], given.file), task_class=c.task_class,
                            kind=given.kind, format=given.format, requests=list(c.requests), notes=list(c.notes),
                            prompts=list(c.prompts), k_unknown=given.k_unknown)
               for c in given.classes]
    return _check_engine(sources, engine, given.file)


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
                                notes=[head, *notes], format=prometheus.FORMATS[scrape.engine], field_lines=scrape.lines))
    return out


def _finish(source: SourceResult, k: int | None, task_class: str | None) -> SourceResult:
    try:
        counts = with_k(source.counts, k)
    except ReportError as exc:
        raise MetricsError(f"{source.file}: {exc}") from None
    problem = count_problem(counts) if source.has_counts else None
    if problem:
        line = next((n for name, n in source.field_lines.items() if problem.startswith(name)), None)
        raise MetricsError(f"{source.file}{f':{line}' if line else ''}: {problem}")
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


def missing_k_files(sources: Sequence[SourceResult], names_only: bool = False) -> str:
    """The files whose K is unknown, each with what it does know: a lower bound, or why a run file has none."""
    parts = []
    for file in sorted({s.file for s in sources}):
        mine = [s for s in sources if s.file == file]
        at_least = max((s.counts.k_at_least or 0 for s in mine), default=0)
        shown = Path(file).name if names_only else file
        drafters = [s.model for s in mine if s.model]
        if drafters:  # several drafters in one log: say whose K is missing (--k NAME=K)
            shown += f" [{', '.join(drafters)}]"
        why = next((s.k_unknown for s in mine if s.k_unknown), "")
        if why:
            parts.append(f"{shown} ({why})")
        elif at_least:
            parts.append(f"{shown} (it shows K is at least {at_least})")
        else:
            parts.append(shown)
    return "; ".join(parts)


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
