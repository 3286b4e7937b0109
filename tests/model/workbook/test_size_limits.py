"""Big but legal workbooks: past the size limits a workbook is refused at once, in one line naming its
size and the limit, before its rows are built (300,000 classes x 8 tiers took 2.9 GB in compare --json,
60,000 tiers x 6 classes over 120 s); a paste or a price list that would pass them is refused too."""
from __future__ import annotations

import json
import time

import pytest

from model.workbook import json_file as wf
from model.workbook.rows import TaskClass, Tier
from model.workbook.validation import (MAX_CLASSES, MAX_PAIRS, MAX_TIERS, WorkbookError, workbook_problems)


def _file(tmp_path, n_tiers: int, n_classes: int):
    demo = wf.workbook_to_dict(wf.load_demo())
    tier = demo["tiers"][0]
    cls = {k: demo["task_classes"][0][k] for k in ("tokens_out", "tokens_in", "context", "alpha")}  # the 60 MB
    demo["tiers"] = [dict(tier, name=f"t{i}") for i in range(n_tiers)]
    demo["task_classes"] = [dict(cls, name=f"c{j}") for j in range(n_classes)]
    demo["overrides"] = []
    path = tmp_path / "big.json"
    path.write_text(json.dumps(demo, separators=(",", ":")))
    return path


@pytest.mark.parametrize("n_tiers, n_classes, says", [
    (8, 300_000, f"300,000 task classes, over the {MAX_CLASSES:,}"),
    (60_000, 6, f"60,000 tiers, over the {MAX_TIERS:,}"),
    (MAX_TIERS, MAX_PAIRS // MAX_TIERS + 1, f"tier-class pairs, over the {MAX_PAIRS:,}"),
])
def test_a_workbook_past_the_size_limits_is_refused_at_once(tmp_path, n_tiers: int, n_classes: int, says: str) -> None:
    path = _file(tmp_path, n_tiers, n_classes)
    started = time.monotonic()
    with pytest.raises(WorkbookError) as exc:
        wf.load_workbook(path)
    text = str(exc.value)
    assert says in text and "\n" not in text, text
    # refused on the counts, before 300,000 rows are built and checked (that took about a minute)
    assert time.monotonic() - started < 30


def test_a_workbook_at_the_limits_loads(tmp_path) -> None:
    path = _file(tmp_path, 40, MAX_PAIRS // 40)
    assert len(wf.load_workbook(path).classes) == MAX_PAIRS // 40


def test_an_edit_past_the_limits_is_refused() -> None:
    wb = wf.load_demo()
    wb.classes = [TaskClass(f"c{j}", alpha=0.5) for j in range(MAX_PAIRS // len(wb.tiers) + 1)]
    assert any("tier-class pairs" in p for p in workbook_problems(wb))
    wb.classes = wb.classes[:10]
    wb.overrides = []
    wb.tiers = wb.tiers + [Tier(f"t{i}") for i in range(MAX_TIERS)]
    assert any(f"over the {MAX_TIERS:,}" in p for p in workbook_problems(wb))
