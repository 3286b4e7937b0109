"""The server's own counts in a run file, per task class: what `import-metrics RUN` and the window's metrics import
show for a probe's run file, read by the probe's one reader (run_file.read_run).

Each request to the probed tier that carries the server's speculation fields (model.engines.responses reads
them) is kept with its name and its prompt; the K the probe recorded (run_file.record_k) fills in a source that
gives none. llama.cpp's draft_n / draft_n_accepted count no verify steps; a response cut by max_tokens also
records its completion tokens C, and every token after the first (which the prompt pass emits) comes from a verify
step (the server drafts up to the tokens left - 1, so no accepted draft is cut off) or a plain step, so steps <= C
- 1 - accepted; each step drafts at most K, so steps >= draft tokens / K. Where the two meet, the steps are known
exactly (docs/reference/engine-formats.md).
"""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Generator

from model.common.cancel import run_to_end
from model.common.formatting import count
from model.engines.recorded import RecordedClass, RecordedFile
from model.engines.reports import ReportError, SpecCounts, with_k
from model.engines.responses import speculation_from_recorded
from model.engines.spec_checks import MAX_K, count_problem
from model.probe.events import FAST, RequestRecord
from model.probe.run_file import RunFileError, is_run_file, prompt_name, read_run_steps

KIND = "probe-run"
FORMAT = "SpecLedger probe run file (*.run.jsonl), the server-reported acceptance it recorded"
NO_K = ("this run file records no K: written before the probe recorded it, or the probe could not tell K "
        "(its run stopped, or the stream hid the steps)")
LLAMACPP_PINNED_NOTE = ("llama.cpp: draft_n = draft tokens, draft_n_accepted = accepted draft tokens (bonus excluded); "
                        "verify steps = completion tokens - 1 - accepted, where that equals draft tokens / K rounded up")


def reported_counts(path: str | Path) -> RecordedFile | None:
    """The run file's per-class counts as the server reported them; None where ``path`` is no run file (another
    reader's); RunFileError (one line naming the file) where it is one that cannot be read."""
    return run_to_end(reported_counts_steps(path))


def reported_counts_steps(path: str | Path) -> Generator[int, None, RecordedFile | None]:
    """reported_counts as long work: the bytes read so far yielded as it reads (run_file.read_run_steps)."""
    if not is_run_file(path):
        return None
    file = str(path)
    header, records = yield from read_run_steps(path)
    k = _recorded_k(header, file)
    k_source = str(header.get("k_recorded_source") or "")[:40] or "its analysis"
    by_class: dict[str, list[RequestRecord]] = {}
    counts: dict[int, SpecCounts] = {}
    fast = [r for r in records if r.role == FAST]
    for r in fast:
        c = None if r.error else _counts(r, file)
        if c is not None:
            by_class.setdefault(r.task_class, []).append(r)
            counts[id(r)] = c
    out = RecordedFile(file=file, kind=KIND, format=FORMAT, k_unknown=NO_K if k is None else "")
    out.classes = [_one_class(name, mine, counts, (k, k_source), file) for name, mine in by_class.items()]
    if not out.classes:
        out.empty = (f"{file}: a SpecLedger probe run file, but none of its {count(len(fast), 'request')} to the "
                     "probed tier carries the server's own acceptance (the server reports none; its timing estimate "
                     "is in the probe's result instead: `specledger probe --from-run`)")
    return out


def _recorded_k(header: dict, file: str) -> int | None:
    if "k_recorded" not in header:
        return None
    k = header["k_recorded"]
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise RunFileError(f"{file}: its K line: k: {k!r} is not a K (a whole number of draft tokens, 1 to {MAX_K})")
    return k


def _counts(r: RequestRecord, file: str) -> SpecCounts | None:
    try:
        c = speculation_from_recorded(r.reported)
    except ReportError as exc:
        raise RunFileError(f"{file}: request {r.label}: reported.{exc}") from None
    problem = count_problem(c) if c is not None else None
    if problem:
        raise RunFileError(f"{file}: request {r.label}: {problem}")
    return c


def _one_class(name: str, records: list[RequestRecord], counts: dict[int, SpecCounts],
               recorded_k: tuple[int | None, str], file: str) -> RecordedClass:
    k, k_source = recorded_k
    parts = [(r.label, counts[id(r)]) for r in records]
    notes = [f"{count(len(parts), 'request')} to the probed tier added up"]
    if k is not None:
        try:  # the server's own K, where its counts carry one, must agree with the probe's
            parts = [(label, with_k(c, k) if c.k is None else c) for label, c in parts]
        except ReportError as exc:
            raise RunFileError(f"{file}: the K the probe recorded: {exc}") from None
        notes.append(f"K = {k} as the probe recorded it ({k_source})")
        parts, pinned = llamacpp_steps(parts, [cut_completion(r) for r in records], k)
        if pinned:
            notes.append(f"verify steps of {pinned} of {len(parts)} llama.cpp responses from their completion tokens "
                         "(steps = completion tokens - 1 - accepted drafts = draft tokens / K rounded up)"
                         + ("" if pinned == len(parts) else "; the others' not, so the class's steps are "
                            "draft tokens / K, which assumes full drafts"))
    else:
        notes.append(NO_K)
    return RecordedClass(task_class=name, requests=parts, prompts=[prompt_name(r) for r in records], notes=notes)


def cut_completion(r: RequestRecord) -> int | None:
    """A response cut by max_tokens: its completion tokens; else None (an end token may end one inside a step)."""
    tokens = r.usage.get("completion_tokens") if isinstance(r.usage, dict) else None
    whole = isinstance(tokens, int) and not isinstance(tokens, bool) and 0 <= tokens <= 2**31
    return tokens if whole and r.finish_reason == "length" else None


def llamacpp_steps(parts: list[tuple[str, SpecCounts]], completions: list[int | None], k: int,
                   ) -> tuple[list[tuple[str, SpecCounts]], int]:
    """llama.cpp responses with their verify steps where completion tokens and K pin them (see the docstring);
    and how many were pinned."""
    out, pinned = [], 0
    for (name, c), tokens in zip(parts, completions):
        if c.engine == "llamacpp" and c.drafts is None and tokens is not None and c.draft_tokens is not None \
                and c.accepted_tokens is not None:
            most, fewest = tokens - 1 - c.accepted_tokens, math.ceil(c.draft_tokens / k - 1e-9)
            if most == fewest >= 1:
                c = replace(c, drafts=float(most), convention_note=LLAMACPP_PINNED_NOTE)
                pinned += 1
        out.append((name, c))
    return out, pinned
