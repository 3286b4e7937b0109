"""A measured acceptance keeps both counts: `alpha_requests` the requests sent (repeats included) and
`alpha_prompts` the distinct prompts, the interval's units. Older files (no alpha_prompts) load unchanged."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from model.acceptance import acceptance_of
from model.acceptance.sequential import requests_to_decide
from model.probe.analysis import analyse
from model.probe.apply import apply_probe
from model.workbook.json_file import load_demo, load_workbook, save_workbook, workbook_from_dict, workbook_to_dict
from model.workbook.validation import WorkbookError
from tests.model.probe.test_analysis import _record


def _probed_three_times():
    rng = np.random.default_rng(7)
    steps = [list(np.minimum(rng.geometric(1 - p, 40) - 1, 4) + 1) for p in (0.5, 0.6, 0.7, 0.75, 0.8, 0.9)]
    records = []
    for rep in range(3):
        for i, sizes in enumerate(steps):
            r = _record(sizes, index=i)
            r.repeat = rep
            records.append(r)
    report = analyse(records)
    report.fast_name = "probe"
    return report


def test_probe_apply_keeps_requests_and_distinct_prompts():
    report = _probed_three_times()
    wb = load_demo()
    wb.classes[0].name = "code"
    apply_probe(wb, report, wb.tiers[1].name)
    o = next(o for o in wb.overrides if o.task_class == "code" and o.tier == wb.tiers[1].name)
    assert (o.alpha_requests, o.alpha_prompts) == (18, 6) and o.alpha_low is not None
    # the interval's width rests on the 6 prompts: what is expected to decide it reads 6, not 18
    acc = acceptance_of(o, 0.95)
    assert (acc.requests, acc.sent) == (6, 18)
    need = requests_to_decide(acc, o.alpha, o.alpha - 0.2, 0.95)
    assert "over 6 requests" in need.basis


def test_json_round_trip_and_an_older_file(tmp_path: Path):
    wb = load_demo()
    c = wb.classes[0]
    c.alpha_low, c.alpha_high, c.alpha_confidence = 0.7, 0.8, 0.95
    c.alpha_requests, c.alpha_prompts, c.alpha_steps, c.alpha_method = 24, 8, 900, "cluster-robust log-odds"
    back = load_workbook(save_workbook(wb, tmp_path / "w.json"))
    assert (back.classes[0].alpha_requests, back.classes[0].alpha_prompts) == (24, 8)
    # a file written before the field: loads, the field None, and its acceptance reads as before (units = requests)
    data = workbook_to_dict(wb)
    for row in data["task_classes"] + data["overrides"]:
        del row["alpha_prompts"]
    old = workbook_from_dict(json.loads(json.dumps(data)))
    assert old.classes[0].alpha_prompts is None and old.classes[0].alpha_requests == 24
    acc = acceptance_of(old.classes[0], 0.95)
    assert (acc.requests, acc.sent) == (24, None) and acc.row_fields()["alpha_prompts"] is None
    assert acc.row_fields()["alpha_requests"] == 24


@pytest.mark.parametrize("bad", [-1, 1.5, "six", True])
def test_a_bad_prompt_count_is_refused_with_its_field(bad):
    data = workbook_to_dict(load_demo())
    data["task_classes"][0]["alpha_prompts"] = bad
    with pytest.raises(WorkbookError, match="alpha_prompts"):
        workbook_from_dict(data)


def test_excel_inputs_keep_it_and_an_older_report_imports(tmp_path: Path):
    openpyxl = pytest.importorskip("openpyxl")
    from model.report.export import export_report
    from model.report.importer import import_report
    from model.report.layout import CLASS_COLUMNS, INPUTS, OVERRIDE_COLUMNS, InputsLayout

    wb = load_demo()
    c = wb.classes[0]
    c.alpha_low, c.alpha_high, c.alpha_confidence = 0.7, 0.8, 0.95
    c.alpha_requests, c.alpha_prompts, c.alpha_steps, c.alpha_method = 24, 8, 900, "cluster-robust log-odds"
    export_report(wb, tmp_path / "r.xlsx")
    back = import_report(tmp_path / "r.xlsx")
    assert (back.classes[0].alpha_requests, back.classes[0].alpha_prompts) == (24, 8)
    assert back.classes[1].alpha_prompts is None
    # a report written before the column: the tables end at the method; the rest reads as it did
    book = openpyxl.load_workbook(tmp_path / "r.xlsx")
    ws = book[INPUTS]
    layout = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    for header, n, columns in ((layout.class_header, len(wb.classes), CLASS_COLUMNS),
                               (layout.override_header, len(wb.overrides), OVERRIDE_COLUMNS)):
        col = [s.name for s in columns].index("alpha_prompts") + 1
        assert ws.cell(header, col).value == "Prompts measured"
        for row in range(header, header + n + 1):
            ws.cell(row, col).value = None
    book.save(tmp_path / "old.xlsx")
    old = import_report(tmp_path / "old.xlsx")
    assert old.classes[0].alpha_prompts is None
    assert (old.classes[0].alpha_requests, old.classes[0].alpha_method) == (24, "cluster-robust log-odds")
