"""Fuzz cases kept from the second hostile-input run: spreadsheet bombs of every kind and
size past the count limits, workbooks around the size limits, and output paths in missing folders.

Each case runs within tests/fuzz/bounds.py's bounds (10 s, resident memory grown by at most 300 MB,
watched while it runs) and must end in one line naming what is wrong. The bombs are generated here.
"""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from model.report import sheet_reader
from model.workbook import json_file as wf
from model.workbook.validation import MAX_CLASSES, MAX_PAIRS, MAX_TIERS, WorkbookError
from tests import spreadsheet_bombs as bombs
from tests.fuzz.bounds import outcome

openpyxl = pytest.importorskip("openpyxl")

_SHARED = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from model.report.export import export_report

    path = tmp_path_factory.mktemp("r") / "report.xlsx"
    export_report(wf.load_demo(), path)
    return path


# kind -> (make it, the limit it passes, the words of the refusal)
BOMBS = {
    "shared strings": (bombs.shared_strings, sheet_reader.MAX_SHARED_STRINGS, "shared strings"),
    "cell formats": (bombs.cell_styles, sheet_reader.MAX_STYLE_RECORDS, "cell formats"),
    "empty rows": (lambda s, d, n: bombs.empty_rows(s, d, n, "Inputs"), sheet_reader.REPORT_ROWS, "past row"),
    "a wide row": (lambda s, d, n: bombs.wide_row(s, d, n, "Inputs"), sheet_reader.MAX_ROW_CELLS, "cells in row"),
}


@settings(max_examples=8, **_SHARED)
@given(kind=st.sampled_from(sorted(BOMBS)), times=st.floats(1.01, 30))
def test_a_spreadsheet_bomb_is_refused_within_bounds(report: Path, tmp_path_factory, kind: str, times: float) -> None:
    from model.report.importer import import_report

    make, limit, words = BOMBS[kind]
    bomb = make(report, Path(tmp_path_factory.mktemp("b")) / "bomb.xlsx", int(limit * times))
    got = outcome(lambda: import_report(bomb), WorkbookError)
    assert isinstance(got, WorkbookError) and words in str(got), got


def _workbook_file(folder: Path, n_tiers: int, n_classes: int) -> Path:
    demo = wf.workbook_to_dict(wf.load_demo())
    cls = {k: demo["task_classes"][0][k] for k in ("tokens_out", "tokens_in", "context", "alpha")}
    demo["tiers"] = [dict(demo["tiers"][0], name=f"t{i}") for i in range(n_tiers)]
    demo["task_classes"] = [dict(cls, name=f"c{j}") for j in range(n_classes)]
    demo["overrides"] = []
    path = folder / "wb.json"
    path.write_text(json.dumps(demo, separators=(",", ":")))
    return path


@settings(max_examples=12, **_SHARED)
@given(n_tiers=st.one_of(st.integers(1, 60), st.integers(MAX_TIERS - 2, MAX_TIERS + 2)),
       n_classes=st.one_of(st.integers(1, 8), st.integers(MAX_PAIRS // 60 - 2, MAX_PAIRS // 60 + 2),
                           st.integers(MAX_CLASSES, MAX_CLASSES + 2)))
def test_a_workbook_is_refused_exactly_past_the_size_limits(tmp_path_factory, n_tiers: int, n_classes: int) -> None:
    path = _workbook_file(Path(tmp_path_factory.mktemp("w")), n_tiers, n_classes)
    got = outcome(lambda: wf.load_workbook(path), WorkbookError)
    past = n_tiers > MAX_TIERS or n_classes > MAX_CLASSES or n_tiers * n_classes > MAX_PAIRS
    assert isinstance(got, WorkbookError) == past, (n_tiers, n_classes, got)
    if past:
        assert "a workbook may hold" in str(got)


@settings(max_examples=20, **_SHARED)
@given(parts=st.lists(st.text(alphabet="abcXYZ_-. ", min_size=1, max_size=8).filter(lambda p: p.strip(" .")),
                      min_size=1, max_size=3),
       command=st.sampled_from(["sample", "probe"]))
def test_an_output_in_a_missing_folder_is_refused_and_nothing_is_made(tmp_path_factory, parts: list[str],
                                                                      command: str) -> None:
    import main

    base = Path(tmp_path_factory.mktemp("o"))
    target = base.joinpath(*parts, "out.jsonl")
    prompts = base / "p.jsonl"
    prompts.write_text('{"task_class": "code", "prompt": "x"}\n')
    argv = (["sample", "--json", str(target)] if command == "sample" else
            ["probe", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompts", str(prompts), "--run",
             str(target), "--yes"])
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = outcome(lambda: main.main(argv), SystemExit)
    assert code != 0 and "does not exist" in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1, \
        err.getvalue()
    assert sorted(p.name for p in base.iterdir()) == ["p.jsonl"]
