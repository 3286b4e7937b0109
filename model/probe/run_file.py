"""The raw run as JSON lines: one header line, then one line per request, written as each completes.

A load run (model.probe.load) adds a line per level once the level ended, ``{"kind": LOAD_KEEPING_KIND,
"concurrency": n, "sent": .., "completed": .., "throttled": ..}``: the load-keeping requests it sent (not
analysed, so not written as records), how many ran to their end and the 429s they met. read_run gathers
these into the header's ``load_keeping`` ({"n": {"sent", "completed", "throttled"}}), as the live run has it.

A run file holds what was sent and received, never the API key (the endpoints are written by
Endpoint.to_dict, which has only the key's source), so it can be shared for an audit and
re-analysed later without a request (`specledger probe --from-run RUN.jsonl`).

When the run has been analysed, `record_k` appends one last line, {"kind": "specledger-probe-k", "k": 4,
"k_source": "timing"}: the K the probe inferred (from the steps' timing) or was told (by the server's counts),
so `import-metrics` on the run file needs no --k. Run files written before that line existed have none.
With an SLA, `record_sla` appends {"kind": "specledger-probe-sla", ..., "below": [{"request", "tokens_per_s"}]}:
every request that broke it, by name.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Generator, TextIO

from model.probe.events import RequestRecord
from model.common.cancel import run_to_end
from model.common.safe_files import check_output_target, open_regular
from model.workbook.json_file import PROBE_RUN_KIND

KIND = PROBE_RUN_KIND
K_KIND = "specledger-probe-k"  # the trailer line holding the K the analysis settled on
SLA_KIND = "specledger-probe-sla"  # the trailer line naming the requests below an SLA's line (record_sla)
LOAD_KEEPING_KIND = "specledger-probe-load-keeping"
LOAD_KEEPING_COUNTS = ("sent", "completed", "throttled")
VERSION = 1
MAX_BYTES = 512 * 1024 * 1024
# the prompt key read_run gives a request of an older --until-decided round, which names no prompt (see read_run)
_ROUND_REQUEST = "request at line "


class RunFileError(ValueError):
    """A run file that cannot be read; the message names the file and line."""


class RunWriter:
    """Appends request records as they complete, flushed, so a crash or cancel keeps what was done."""

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path = check_output_target(path, "run file")
        self._file: TextIO = open(self.path, "w", encoding="utf-8")
        self._write({"kind": KIND, "version": VERSION, **header})

    def _write(self, obj: dict[str, Any]) -> None:
        self._file.write(json.dumps(obj, ensure_ascii=False, allow_nan=False) + "\n")
        self._file.flush()

    def add(self, record: RequestRecord, **extra: Any) -> None:
        """One record; ``extra`` keys (a round number) ride along and are ignored by read_run."""
        self._write({**record.to_dict(), **extra})

    def add_load_keeping(self, concurrency: int, counts: dict[str, int]) -> None:
        self._write({"kind": LOAD_KEEPING_KIND, "concurrency": concurrency,
                     **{name: int(counts.get(name, 0)) for name in LOAD_KEEPING_COUNTS}})

    def close(self) -> None:
        if not self._file.closed:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()

    def __enter__(self) -> "RunWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


APP_FOLDER = "SpecLedger"
RUN_FOLDER = "probe-runs"


def run_folder(data_root: str | Path) -> Path:
    """Where the window keeps its run files: ``data_root`` (the platform's data folder, such as
    ~/.local/share) / SpecLedger / probe-runs. Before, Qt's per-application folder named the app twice
    (organisation and application both SpecLedger): see open_run_folder."""
    return Path(data_root) / APP_FOLDER / RUN_FOLDER


def open_run_folder(folder: str | Path) -> Path:
    """Create ``folder`` and bring in the run files of the folder earlier versions wrote, SpecLedger/SpecLedger
    beside it, so a run recorded before stays in the one folder the window names. A file whose name is
    already taken, or one that cannot be moved, stays where it was, readable as before; nothing is
    overwritten or deleted. Returns ``folder``."""
    folder = Path(folder)
    legacy = folder.parent / folder.parent.name / folder.name
    if legacy.is_dir() and not folder.exists():
        try:
            os.rename(legacy, folder)  # one step on one file system: every run at once
        except OSError:
            pass
    folder.mkdir(parents=True, exist_ok=True)
    if legacy.is_dir():
        for old in sorted(legacy.iterdir()):
            new = folder / old.name
            if old.is_file() and not new.exists():
                try:
                    os.rename(old, new)
                except OSError:
                    pass
    for empty in (legacy, legacy.parent):  # the doubled folders, once nothing is left in them
        try:
            empty.rmdir()
        except OSError:
            pass
    return folder


def record_k(path: str | Path | None, k: int | None, source: str) -> bool:
    """Append the run's K (and where it came from: "timing", "server", "reported") as the file's last line, once;
    nothing where there is no file or no K. True when the line was written."""
    if path is None or k is None:
        return False
    path = Path(path)
    if not path.is_file():
        return False
    with open(path, "rb") as fh:  # a run analysed twice (the window redraws) keeps one K line
        fh.seek(max(0, path.stat().st_size - 4096))
        if f'"kind": "{K_KIND}"'.encode() in fh.read():
            return False
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"kind": K_KIND, "k": int(k), "k_source": source}) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return True


def is_run_file(path: str | Path) -> bool:
    """Whether ``path`` is a probe's run file: its first line the run header (the rest is not read)."""
    try:
        if not Path(path).is_file():  # a FIFO or a device is no run file, and opening one may block
            return False
        with open(path, "rb") as fh:
            first = fh.readline(64 * 1024)
        head = json.loads(first.decode("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(head, dict) and head.get("kind") == KIND


def read_run(path: str | Path) -> tuple[dict[str, Any], list[RequestRecord]]:
    """The run's header (its trailer lines gathered into it) and its request records; RunFileError names the line."""
    return run_to_end(read_run_steps(path))


def read_run_steps(path: str | Path) -> Generator[int, None, tuple[dict[str, Any], list[RequestRecord]]]:
    """read_run as long work (docs/dev/layout.md#long-work): a line at a time, the bytes read so far yielded about
    every megabyte, so the window's metrics import shows its progress and can cancel it."""
    path = Path(path)
    lines = _RunLines(path)
    done, report_at = 0, _PROGRESS_BYTES
    with open_regular(path, "run file", limit_bytes=MAX_BYTES) as fh:
        for number, raw in enumerate(fh, start=1):
            done += len(raw)
            if done > MAX_BYTES:  # grown past the limit while being read
                raise RunFileError(f"{path}: over the {MAX_BYTES // (1024 * 1024)} MB a run file can be")
            lines.add(number, raw)
            if done >= report_at:
                yield done
                report_at = done + _PROGRESS_BYTES
    if lines.header is None:
        raise RunFileError(f"{path}: empty, no header line")
    return lines.header, lines.records


_PROGRESS_BYTES = 1024 * 1024


class _RunLines:
    """The lines of a run file read so far: the header with its trailer lines gathered in, and the records."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: dict[str, Any] | None = None
        self.records: list[RequestRecord] = []

    def add(self, number: int, raw: bytes) -> None:
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise RunFileError(f"{self.path}, line {number}: not UTF-8 text; a run file must be") from None
        if not line.strip():
            return
        try:
            self._read(number, json.loads(line))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise RunFileError(f"{self.path}, line {number}: {exc}") from None

    def _read(self, number: int, obj: Any) -> None:
        if not isinstance(obj, dict):
            raise ValueError("not a JSON object")
        header = self.header
        if header is None:
            if obj.get("kind") != KIND:
                raise ValueError(f"the first line is not a {KIND} header")
            self.header = obj
        elif obj.get("kind") == SLA_KIND:
            return  # what an analysis concluded, not what was received: the analysis says it again
        elif obj.get("kind") == K_KIND:
            self.header = {**header, "k_recorded": obj.get("k"), "k_recorded_source": obj.get("k_source")}
        elif obj.get("kind") == LOAD_KEEPING_KIND:
            level, counts = _load_keeping(obj)
            self.header = {**header, "load_keeping": {**header.get("load_keeping", {}), level: counts}}
        else:
            record = RequestRecord.from_dict(obj)
            if record.prompt_key is None and "round" in obj:
                # an --until-decided file from before the prompt's digest was kept: each round numbered its
                # requests from 0, so the index names no prompt, and the request is the interval's unit
                record.prompt_key = f"{_ROUND_REQUEST}{number}"
            self.records.append(record)


def prompt_name(record: RequestRecord) -> str | None:
    """The prompt a request measured: its text's digest; in a file from before the probe kept it, its index in the
    plan; None for a request of an older --until-decided round (each numbered its own from 0, so read_run names
    it by its line): there the request is the unit."""
    if record.prompt_key is None:
        return f"index {record.prompt_index}"
    return None if record.prompt_key.startswith(_ROUND_REQUEST) else f"id {record.prompt_key}"


def _load_keeping(obj: dict[str, Any]) -> tuple[str, dict[str, int]]:
    values = [obj.get("concurrency"), *(obj.get(name) for name in LOAD_KEEPING_COUNTS)]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        raise ValueError(f"a {LOAD_KEEPING_KIND} line needs 'concurrency', "
                         f"{', '.join(repr(n) for n in LOAD_KEEPING_COUNTS)} as whole numbers from 0")
    return str(obj["concurrency"]), {name: int(obj[name]) for name in LOAD_KEEPING_COUNTS}



def record_sla(path: str | Path | None, sla: dict[str, Any] | None, below: list[dict[str, Any]]) -> bool:
    """Append the SLA's verdict and every request that broke it (label and tokens/s) as one line, once; nothing
    where there is no file or no SLA. True when the line was written."""
    if path is None or sla is None:
        return False
    path = Path(path)
    if not path.is_file():
        return False
    with open(path, "rb") as fh:  # a run analysed twice keeps one SLA line
        fh.seek(max(0, path.stat().st_size - 1024 * 1024))
        if f'"kind": "{SLA_KIND}"'.encode() in fh.read():
            return False
    line = {"kind": SLA_KIND, "threshold_tokens_per_s": sla["threshold_tokens_per_s"],
            "promised_share": sla["promised_share"], "verdict": sla["verdict"], "requests": sla["requests"],
            "below": below}
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return True
