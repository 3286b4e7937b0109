"""The workbook's JSON file: a schema version, atomic saves, loads that never half-load."""
from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from model.common.safe_files import (LIMIT_WORKBOOK_JSON, FileRefused, atomic_write, check_output_target,
                              read_bytes_limited)
from model.workbook.validation import (SPECS, ValidationError, WorkbookError, check_workbook, parse_field,
                                       required_fields, shown, size_problems, title_problems)
from model.workbook.rows import Override, Settings, TaskClass, Tier, Workbook
from model.workbook.acceptance_fields import summary_alpha, take_summary

# 2: acceptance profiles and lengths on task classes and overrides, tree drafts on tiers (fields a
# version-1 file does not have, so it loads unchanged with their defaults)
# 3: a vendor's terms on tiers (cached and long-context prices, downgraded share, SLA) and the workload's bands and
# cache on task classes (model/workbook/vendor_terms.py); optional, so a version-2 file loads unchanged
SCHEMA_VERSION = 3
FORMAT_NAME = "specledger-workbook"
RESOURCES = Path(__file__).resolve().parents[2] / "resources"
DEMO_WORKBOOK = RESOURCES / "demo_workbook.json"
# the first line of a probe's run file (model/probe/run_file.py writes and reads it): here so that a run file
# given where a workbook goes is said to be one
PROBE_RUN_KIND = "specledger-probe-run"


def workbook_to_dict(wb: Workbook) -> dict[str, Any]:
    return {
        "format": FORMAT_NAME,
        "schema_version": SCHEMA_VERSION,
        "title": wb.title,
        "settings": asdict(wb.settings),
        "tiers": [asdict(t) for t in wb.tiers],
        "task_classes": [asdict(c) for c in wb.classes],
        "overrides": [asdict(o) for o in wb.overrides],
    }




def _rows(data: dict[str, Any], key: str, row_type: type, problems: list[str]) -> list[Any]:
    raw = data.get(key, [])
    if not isinstance(raw, list):
        problems.append(f"{key}: must be a list")
        return []
    specs = SPECS[row_type]
    rows = []
    for i, item in enumerate(raw):
        where = f"{key}[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{where}: must be an object")
            continue
        name = item.get("name") or (f"{item.get('tier')}/{item.get('task_class')}" if row_type is Override else "")
        if name:
            where += f" ({name if isinstance(name, str) and name.isprintable() and len(name) <= 60 else shown(name)})"
        unknown = set(item) - set(specs)
        if unknown:
            listed = ", ".join(k if k.isprintable() and len(k) <= 60 else shown(k) for k in sorted(unknown)[:10])
            problems.append(f"{where}: unknown field(s) {listed}{' and more' if len(unknown) > 10 else ''}")
        values = {}
        refused = False
        for fname, spec in specs.items():
            if fname not in item:
                continue
            try:
                values[fname] = spec.parse(item[fname])
            except ValidationError as exc:
                problems.append(f"{where}, {fname}: {exc}")
                refused = True
        # a missing field is refused like a bad one: its default would quietly change the numbers
        missing = [f for f in required_fields(row_type, values) if f not in item]
        if refused and ("profile" in item or "acceptance_length" in item):
            missing = [f for f in missing if f != "alpha"]  # the refused profile or length stood for it
        for fname in missing:
            problems.append(f"{where}, {fname}: missing ({specs[fname].label}, {specs[fname].describe()}); "
                            "a workbook file must give it")
        if refused or missing:
            continue
        if row_type in (TaskClass, Override) and "alpha" not in values:
            values["alpha"] = summary_alpha(values.get("profile", ()), values.get("acceptance_length"),
                                            values.get("acceptance_length_k"))
        row = row_type(**values)
        if row_type in (TaskClass, Override):
            take_summary(row)  # an alpha that contradicts its profile or length: the summary, and the note says so
        rows.append(row)
    return rows


def workbook_from_dict(data: Any, source: str = "") -> Workbook:
    """Build and check a workbook; raises WorkbookError listing every problem, before anything is kept."""
    if not isinstance(data, dict):
        kind = {list: "a list", str: "a string", bool: "true or false", type(None): "null"}.get(type(data), "a number")
        raise WorkbookError([f"not a SpecLedger workbook: the JSON holds {kind}, not a workbook object"], source)
    if not set(data) & {"format", "schema_version", "tiers", "task_classes", "overrides", "settings"}:
        # some other program's JSON: say that, not which of our keys it lacks
        raise WorkbookError(["not a SpecLedger workbook: it has none of a workbook's keys (tiers, task_classes, "
                             "overrides, settings, schema_version)"], source)
    if data.get("format", FORMAT_NAME) != FORMAT_NAME:
        raise WorkbookError([f"not a SpecLedger workbook (format {data.get('format')!r})"], source)
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        # a typo'd "schema_versio" is named with the problem it causes
        raise WorkbookError(["schema_version is missing or not a whole number of at least 1",
                             *_unknown_top_level_keys(data)], source)
    if version > SCHEMA_VERSION:
        raise WorkbookError([f"schema version {version} is newer than this SpecLedger reads ({SCHEMA_VERSION}); update SpecLedger"], source)
    problems: list[str] = _unknown_top_level_keys(data)
    counts = [len(data[key]) if isinstance(data.get(key), list) else 0 for key in ("tiers", "task_classes", "overrides")]
    too_big = size_problems(*counts)
    if too_big:  # refused on the counts, before hundreds of thousands of rows are built and checked
        raise WorkbookError(problems + too_big, source)
    settings_raw = data.get("settings", {})
    known = {f.name for f in fields(Settings)}
    if not isinstance(settings_raw, dict) or set(settings_raw) - known:
        problems.append(f"settings: must be an object with fields {', '.join(sorted(known))}")
        settings_raw = {}
    settings = Settings()
    for fname, value in settings_raw.items():  # through the same specs as the rows: "eur" -> "EUR", 16.0 -> 16
        try:
            setattr(settings, fname, parse_field(Settings, fname, value))
        except ValidationError as exc:
            problems.append(str(exc))
    wb = Workbook(
        tiers=_rows(data, "tiers", Tier, problems),
        classes=_rows(data, "task_classes", TaskClass, problems),
        overrides=_rows(data, "overrides", Override, problems),
        settings=settings,
        title=data.get("title", "") if isinstance(data.get("title", ""), str) else "",
    )
    problems.extend(title_problems(data.get("title", "")))
    if problems:
        raise WorkbookError(problems, source)
    return check_workbook(wb, source)


def _top_level_keys() -> set[str]:
    # what the writer writes is what the reader knows: a key added to workbook_to_dict is known here too
    return set(workbook_to_dict(Workbook()))


def _unknown_top_level_keys(data: dict[str, Any]) -> list[str]:
    """A typo'd key ("override", "Tiers") is refused: ignored, it would drop its rows without a word."""
    known = _top_level_keys()
    problems = []
    for key in [k for k in data if k not in known][:10]:
        import difflib  # only for a file with a key it does not know: start-up reads the demo without it

        text = str(key)
        near = difflib.get_close_matches(text.lower(), sorted(known), n=1, cutoff=0.6)
        hint = f" (did you mean {near[0]!r}?)" if near else f" (known: {', '.join(sorted(known))})"
        problems.append(f"unknown top-level key {shown(text)}{hint}")
    return problems


_NOT_IN_FILE_NAMES = re.compile(r'[\\/:*?"<>|\x00-\x1f]+')


def suggested_stem(title: str, fallback: str = "Untitled") -> str:
    """A file name (without extension) for a workbook titled `title` that every OS accepts.

    "SpecLedger demo: four vendors" -> "SpecLedger demo - four vendors": the characters Windows and
    macOS refuse or treat as folders become " - ", and the name is kept short.
    """
    stem = _NOT_IN_FILE_NAMES.sub(" - ", title)
    stem = re.sub(r"\s+", " ", stem).strip(" .-")
    stem = re.sub(r"( - )+", " - ", stem)
    stem = stem[:80]
    # and at most 200 bytes of UTF-8 (80 emoji are 320): a name is 255 bytes at most, extensions included
    stem = stem.encode("utf-8")[:200].decode("utf-8", "ignore")
    return stem.rstrip(" .-") or fallback


def load_workbook(path: str | os.PathLike[str]) -> Workbook:
    p = Path(path)
    try:
        data = read_bytes_limited(p, limit_bytes=LIMIT_WORKBOOK_JSON, what="workbook file")
    except FileRefused as exc:
        raise WorkbookError([exc.reason], str(p)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        # say what the file is: the usual slip is a report (.xlsx, a zip) given where a workbook goes
        if data.startswith(b"PK\x03\x04"):
            raise WorkbookError(["is an Excel file, not a workbook .json; read it with `specledger import` "
                                 "or File > Open"], str(p)) from None
        raise WorkbookError(["not a workbook .json (not UTF-8 text)"], str(p)) from None
    try:
        parsed = json.loads(text, object_pairs_hook=_refuse_duplicate_keys)
    except DuplicateKey as exc:
        raise WorkbookError([str(exc)], str(p)) from None
    except json.JSONDecodeError as exc:
        if _is_probe_run(text.split("\n", 1)[0]):
            raise WorkbookError([_PROBE_RUN], str(p)) from None
        raise WorkbookError([f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"], str(p)) from None
    except (ValueError, RecursionError) as exc:  # an integer past Python's digit limit; nesting too deep
        raise WorkbookError([f"not valid JSON for SpecLedger ({str(exc)[:120] or exc.__class__.__name__})"], str(p)) from None
    if isinstance(parsed, dict) and parsed.get("kind") == PROBE_RUN_KIND:  # a run with no request yet: one line
        raise WorkbookError([_PROBE_RUN], str(p))
    return workbook_from_dict(parsed, str(p))


_PROBE_RUN = ("is a probe run file (JSON lines from `specledger probe`), not a workbook; "
              "`specledger import-metrics FILE --apply WORKBOOK -o OUT` reads its acceptance into a workbook")


def _is_probe_run(line: str) -> bool:
    """Whether `line` (a file's first) is a probe run file's header."""
    try:
        head = json.loads(line)
    except ValueError:
        return False
    return isinstance(head, dict) and head.get("kind") == PROBE_RUN_KIND


class DuplicateKey(ValueError):
    """A JSON object names one key twice; json would keep the last silently."""


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            where = next((f" in the object named {shown(v)}" for k, v in pairs if k == "name" and isinstance(v, str)), "")
            raise DuplicateKey(f"the key {shown(key)} appears twice{where}; remove one (which is meant is not guessed)")
        out[key] = value
    return out


def load_demo() -> Workbook:
    return load_workbook(DEMO_WORKBOOK)


def save_workbook(wb: Workbook, path: str | os.PathLike[str]) -> Path:
    """Save atomically (fsynced); the path written, which is a symlink's target when `path` is a
    symlink to a regular file (safe_files.symlink_note says so). Targets that are not regular files
    (a FIFO, a device, a folder) are refused before anything is written."""
    check_workbook(wb, str(path))
    text = json.dumps(workbook_to_dict(wb), indent=2, ensure_ascii=False) + "\n"
    try:
        target = check_output_target(path, "workbook")
    except FileRefused as exc:
        raise WorkbookError([exc.reason], str(path)) from None

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)

    try:
        atomic_write(target, write)
    except OSError as exc:
        raise WorkbookError([f"cannot be written ({exc.strerror or exc})"], str(path)) from None
    return target
