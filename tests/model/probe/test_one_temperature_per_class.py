"""A probe at a temperature also sends a greedy pass (the identity check's): each class's alpha, profile and speedup
are read over the run's one temperature, said in the JSON, the table and what Apply stores, never a pool of both."""
from __future__ import annotations

import json

import pytest

from commands.probe_text import format_report
from model.common.cancel import run_to_end
from model.probe.analysis import analyse
from model.probe.apply import apply_probe
from model.probe.demo_server import LoopbackServer, create_app
from model.probe.events import FAST
from model.probe.run import run_probe
from model.workbook.json_file import load_demo
from tests.probe_servers import FAST_LIMITS, demo_pair, settings_for, subset

pytest.importorskip("uvicorn")


@pytest.fixture(scope="module")
def sampled_run(tmp_path_factory):
    from commands.serve_demo import demo_models
    app = create_app(demo_models("vllm", 4, pair=demo_pair(), lenient=1.25), min_step_s=0.001)
    with LoopbackServer(app) as server:
        settings = settings_for(server.base_url, subset(1))
        settings.temperature, settings.repeats = 0.8, 2
        run = run_to_end(run_probe(settings, {}, tmp_path_factory.mktemp("t") / "run.jsonl", limits=FAST_LIMITS))
    assert run.error is None, run.error
    return run


def test_each_class_is_read_at_the_runs_temperature_only(sampled_run) -> None:
    records, header = sampled_run.records, sampled_run.header
    report = analyse(records, header)
    at_t = [r for r in records if r.temperature == 0.8]
    assert len(at_t) < len(records)  # the run mixes the greedy pass with the samples
    alone = {c.task_class: c for c in analyse(at_t, header).classes}
    for c in report.classes:
        mine = [r for r in at_t if r.role == FAST and r.ok and r.task_class == c.task_class]
        assert c.requests == len(mine) and c.temperature == 0.8
        # the same figures as a run of the samples alone: no greedy answer pooled in
        assert c.alpha == alone[c.task_class].alpha and c.profile == alone[c.task_class].profile
        assert c.speedup_measured == alone[c.task_class].speedup_measured
    out = json.loads(report.to_json())
    assert out["classes_temperature"] == 0.8 and out["classes_left_out"] == len(records) - len(at_t)
    assert all(row["temperature"] == 0.8 for row in out["classes"])
    assert "classes read at temperature 0.8" in format_report(report)


def test_apply_says_at_which_temperature_it_stores(sampled_run) -> None:
    report = analyse(sampled_run.records, sampled_run.header)
    wb = load_demo()
    tier = wb.tiers[0].name
    apply_probe(wb, report, tier, add_missing=True)
    c = next(c for c in report.classes if c.alpha is not None)
    o = next(o for o in wb.overrides if o.tier == tier and o.task_class.lower() == c.task_class.lower())
    assert o.alpha == pytest.approx(c.alpha, abs=1e-4) and "at temperature 0.8" in o.source_note
    assert "at temperature 0.8" in (wb.tiers[0].measured_note or "")


def test_a_greedy_run_reads_its_classes_at_0_and_says_nothing_more(sampled_run) -> None:
    greedy = [r for r in sampled_run.records if not r.temperature]
    report = analyse(greedy, {**sampled_run.header, "temperature": 0})
    assert report.classes_temperature == 0 and report.classes_left_out == 0
    assert all(c.temperature == 0 for c in report.classes) and "classes read at" not in format_report(report)
