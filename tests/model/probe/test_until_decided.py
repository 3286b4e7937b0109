"""probe --until-decided against serve-demo: a class far from its break-even is decided at the first look, one
sitting on it runs to the cap; the run file records the rounds."""
from __future__ import annotations

import json

import pytest

from model.cancel import run_to_end
from model.probe.analysis import analyse
from model.probe.demo_server import LoopbackServer
from model.probe.run import run_probe
from model.probe.run_file import read_run
from model.probe.until_decided import DecideSettings, run_until_decided
from tests.probe_servers import demo_app, settings_for, subset

pytest.importorskip("uvicorn")


@pytest.fixture(scope="module")
def server():
    app, _ = demo_app("vllm")
    with LoopbackServer(app) as s:
        yield s


def test_far_class_decided_early_near_class_to_the_cap(server, tmp_path):
    prompts = [p for p in subset(8) if p.task_class in ("code", "prose")]
    prose = [p for p in prompts if p.task_class == "prose"]
    # prose's own alpha over the ten requests the loop will send (temperature 0): an interval always holds it
    first = run_to_end(run_probe(settings_for(server.base_url, prose[:8] + prose[:2], baseline=False), {}))
    near = analyse(first.records).classes[0].alpha
    settings = settings_for(server.base_url, prompts, baseline=False)
    run_path = tmp_path / "decide.run.jsonl"
    run = run_to_end(run_until_decided(settings, {}, {"code": 0.05, "prose": near}, DecideSettings(0.95, 10),
                                       run_path))
    code, pr = run.classes
    # dense looks: every request from 5 to 10; each look's interval at least at the confidence asked
    assert run.looks == [5, 6, 7, 8, 9, 10] and len(run.look_confidences) == 6
    assert all(0.95 <= c < 1 for c in run.look_confidences)
    assert code.decided and code.side == "above" and code.requests == 5 and code.rounds == 1
    assert not pr.decided and pr.stopped == "max requests" and pr.requests == 10
    assert code.tokens > 0 and pr.tokens > code.tokens
    assert [r["decided"] for r in run.rounds] == [["code"], [], [], [], [], []]
    assert run.cost is None  # no prices given
    header, records = read_run(run_path)
    assert header["until_decided"]["looks"] == [5, 6, 7, 8, 9, 10] and len(records) == 15
    assert header["until_decided"]["look_confidences"] == run.look_confidences
    rounds = [json.loads(line).get("round") for line in run_path.read_text().splitlines()[1:]]
    assert rounds == [1] * 10 + [2, 3, 4, 5, 6]
    d = run.to_dict()
    assert d["classes"][0]["decided"] is True and d["total_tokens"] == code.tokens + pr.tokens


def test_max_cost_stops_before_a_round_that_would_pass_it(server):
    from model.probe.plan import Prices

    prompts = [p for p in subset(8) if p.task_class == "code"]
    settings = settings_for(server.base_url, prompts, baseline=False)
    settings.fast_prices = Prices(1e6, 1e6)  # a dollar a token: one round of 5 costs far more than the cap
    run = run_to_end(run_until_decided(settings, {}, {"code": 0.999}, DecideSettings(0.95, 10, max_cost=1.0)))
    assert run.classes[0].stopped == "max cost" and run.classes[0].requests == 0 and run.records == []


def test_a_class_given_as_a_profile_has_no_alpha_to_decide_against():
    # a profile's break-even is a length, not an alpha (the comparison's alpha is NaN there): the probe must
    # not take NaN for a threshold (it crashed in math.ceil) but say there is none
    import dataclasses
    import math

    from model.acceptance.sequential import requests_to_decide
    from model.probe.until_decided import class_thresholds
    from model.workbook.json_file import load_demo

    wb = load_demo()
    wb.classes[0] = dataclasses.replace(wb.classes[0], profile=(0.9, 0.8, 0.7, 0.6))
    fast = next(t.name for t in wb.tiers if t.baseline)
    thresholds = class_thresholds(wb, fast)
    assert thresholds[wb.classes[0].name] is None
    assert all(v is None or math.isfinite(v) for v in thresholds.values())
    need = requests_to_decide(None, 0.8, float("nan"), 0.95)
    assert need.extra == math.inf and "no break-even" in need.basis
