"""A task class and an override share their acceptance fields through one dataclass, and files keep their keys in
the order they always had (an older file loads; a saved one writes the same JSON)."""
from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

from model.workbook.json_file import load_workbook, save_workbook
from model.workbook.rows import MeasuredAcceptance, Override, TaskClass
from tests.paths import ROOT

SHARED = ["alpha_source", "source_note", "alpha_low", "alpha_high", "alpha_confidence", "alpha_requests",
          "alpha_steps", "alpha_method", "alpha_prompts", "profile", "acceptance_length", "acceptance_length_k",
          "acceptance_length_low", "acceptance_length_high"]


def test_the_shared_fields_are_declared_once_and_come_after_each_rows_own() -> None:
    assert [f.name for f in fields(MeasuredAcceptance)] == SHARED
    assert issubclass(TaskClass, MeasuredAcceptance) and issubclass(Override, MeasuredAcceptance)
    assert [f.name for f in fields(TaskClass)][:5 + len(SHARED)] == ["name", "tokens_out", "tokens_in", "context",
                                                                     "alpha", *SHARED]
    assert [f.name for f in fields(Override)] == ["tier", "task_class", "alpha", *SHARED]
    # positional construction, as older callers write it
    o = Override("Fast", "code", 0.7, "measured", "vLLM")
    assert (o.tier, o.task_class, o.alpha, o.alpha_source, o.source_note) == ("Fast", "code", 0.7, "measured", "vLLM")


def test_an_older_file_loads_and_saves_to_the_same_keys(tmp_path: Path) -> None:
    # the demo as a file from before intervals and schema 2: classes and overrides with alpha, source and note only
    old = json.loads((ROOT / "resources" / "demo_workbook.json").read_text(encoding="utf-8"))
    for row in old["task_classes"] + old["overrides"]:
        for name in SHARED[2:] + ["long_share", "cached_share"]:
            row.pop(name, None)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    wb = load_workbook(path)
    assert wb.overrides and all(o.alpha_requests == 0 and o.profile == () for o in wb.overrides)
    save_workbook(wb, tmp_path / "new.json")
    saved = json.loads((tmp_path / "new.json").read_text(encoding="utf-8"))
    assert list(saved["overrides"][0]) == ["tier", "task_class", "alpha", *SHARED]
    assert list(saved["task_classes"][0])[:5 + len(SHARED)] == ["name", "tokens_out", "tokens_in", "context", "alpha",
                                                                *SHARED]
