"""probe --until-decided against serve-demo: a class far from its break-even is decided at the first look, one
sitting on it runs to the cap; the run file records the rounds."""
from __future__ import annotations

import json

import pytest

from model.common.cancel import run_to_end
from model.probe.analysis import analyse
from model.probe.demo_server import LoopbackServer
from model.probe.run import run_probe
from model.probe.run_file import read_run
from model.probe.until_decided import PROMPTS_USED_UP, DecideSettings, run_until_decided
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
    # prose's own alpha over its eight prompts, each sent once (temperature 0): an interval always holds it
    first = run_to_end(run_probe(settings_for(server.base_url, prose[:8], baseline=False), {}))
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
    # its 8 prompts used up before the cap of 10, it stops rather than repeat them (no narrower for it)
    assert not pr.decided and pr.stopped == PROMPTS_USED_UP and pr.requests == 8
    assert code.tokens > 0 and pr.tokens > code.tokens
    assert [r["decided"] for r in run.rounds] == [["code"], [], [], []]
    assert run.cost is None  # no prices given
    header, records = read_run(run_path)
    assert header["until_decided"]["looks"] == [5, 6, 7, 8, 9, 10] and len(records) == 13
    assert header["until_decided"]["look_confidences"] == run.look_confidences
    rounds = [json.loads(line).get("round") for line in run_path.read_text().splitlines()[1:]]
    assert rounds == [1] * 10 + [2, 3, 4]
    d = run.to_dict()
    assert d["classes"][0]["decided"] is True and d["total_tokens"] == code.tokens + pr.tokens


def test_max_cost_stops_before_a_round_that_would_pass_it(server):
    from model.probe.plan import Prices

    prompts = [p for p in subset(8) if p.task_class == "code"]
    settings = settings_for(server.base_url, prompts, baseline=False)
    settings.fast_prices = Prices(1e6, 1e6)  # a dollar a token: one round of 5 costs far more than the cap
    run = run_to_end(run_until_decided(settings, {}, {"code": 0.999}, DecideSettings(0.95, 10, max_cost=1.0)))
    assert run.classes[0].stopped == "max cost" and run.classes[0].requests == 0 and run.records == []


def test_a_class_given_as_a_profile_is_judged_against_its_break_even_length():
    # a profile's break-even is a length (E* = K c + v, or the price break-even length), not an alpha (the
    # comparison's alpha is NaN there); a tier without speculative decoding still has none
    import dataclasses
    import math

    from model.acceptance.sequential import LengthThreshold, requests_to_decide
    from model.probe.until_decided import class_thresholds
    from model.workbook.json_file import load_demo

    wb = load_demo()
    wb.classes[0] = dataclasses.replace(wb.classes[0], profile=(0.9, 0.8, 0.7, 0.6))
    fast = next(t for t in wb.tiers if t.baseline)
    thresholds = class_thresholds(wb, fast.name)
    cmp_length = __import__("model.comparison", fromlist=["compare"]).compare(wb)
    i = cmp_length.tier_names.index(fast.name)
    assert thresholds[wb.classes[0].name] == LengthThreshold(float(cmp_length.cells.price_break_even_length[i, 0]), fast.k)
    assert all(isinstance(v, LengthThreshold) or math.isfinite(v) for v in thresholds.values())
    plain = next(t for t in wb.tiers if not t.speculative) if any(not t.speculative for t in wb.tiers) else None
    if plain is not None:
        assert class_thresholds(wb, plain.name)[wb.classes[0].name] is None
    need = requests_to_decide(None, 0.8, float("nan"), 0.95)
    assert need.extra == math.inf and "no break-even" in need.basis


def test_after_apply_a_profile_class_is_decided_against_its_length(server):
    # a probe's Apply leaves profiles; a later --until-decided must still decide them (it found no alpha
    # threshold and could only stop on --half-width: 'no break-even to decide against')
    import dataclasses

    from model.acceptance.sequential import LengthThreshold
    from model.probe.until_decided import class_thresholds
    from model.workbook.json_file import load_demo

    prompts = [p for p in subset(8) if p.task_class == "code"]
    measured = analyse(run_to_end(run_probe(settings_for(server.base_url, prompts, baseline=False), {})).records)
    code = measured.classes[0]
    assert code.profile and code.mean_acceptance_length_interval
    wb = load_demo()
    j = next(j for j, c in enumerate(wb.classes) if c.name == "code")
    wb.classes[j] = dataclasses.replace(wb.classes[j], profile=tuple(code.profile))
    fast = next(t for t in wb.tiers if t.baseline and t.k == len(code.profile))
    threshold = class_thresholds(wb, fast.name)["code"]
    assert isinstance(threshold, LengthThreshold) and threshold.k == fast.k
    settings = settings_for(server.base_url, prompts, baseline=False)
    run = run_to_end(run_until_decided(settings, {}, {"code": threshold}, DecideSettings(0.95, 20)))
    [c] = run.classes
    assert c.unit == "length" and c.stopped == "decided" and c.decided
    lo, hi = c.length_interval
    assert (c.side == "above" and lo >= threshold.length) or (c.side == "below" and hi < threshold.length)
    assert lo <= c.length <= hi and c.requests < 20
    assert run.to_dict()["classes"][0]["length_interval"] == c.length_interval
    from commands.probe_decide import decide_text

    assert f"{threshold.length:.2f} tokens per step at K {fast.k}" in decide_text(run, "$")


def test_half_width_stops_a_length_class_on_e_in_tokens_per_step(server):
    # a profile or length class is judged on E at the tier's K, so --half-width is read there (tokens per step):
    # code's alpha interval over 5 prompts is already +-0.09 wide, its E interval at K 4 about +-1.2 tokens per step
    # (at the first look's 99%). On alpha a target of 0.6 stopped it at the first look; on E it needs more prompts
    from model.acceptance.sequential import LengthThreshold

    prompts = [p for p in subset(8) if p.task_class == "code"]
    settings = settings_for(server.base_url, prompts, baseline=False)
    on_it = {"code": LengthThreshold(4.75, 4)}  # code's own E over its 8 prompts: the break-even cannot decide it
    [wide] = run_to_end(run_until_decided(settings, {}, on_it, DecideSettings(0.95, 20, length_half_width=1.5))).classes
    assert wide.stopped == "half-width reached" and wide.requests < 8
    assert (wide.length_interval[1] - wide.length_interval[0]) / 2 <= 1.5
    [c] = run_to_end(run_until_decided(settings, {}, on_it, DecideSettings(0.95, 20, length_half_width=0.6))).classes
    assert c.unit == "length" and c.requests > 5
    assert (c.alpha_interval[1] - c.alpha_interval[0]) / 2 < 0.6  # alpha's was narrow enough all along
    lo, hi = c.length_interval
    assert (c.stopped == "half-width reached" and (hi - lo) / 2 <= 0.6) or (c.stopped == PROMPTS_USED_UP and (hi - lo) / 2 > 0.6)
    # alpha's half-width (a proportion) is not read for a length class: 0.6 there changes nothing
    [same] = run_to_end(run_until_decided(settings, {}, on_it, DecideSettings(0.95, 20, half_width=0.6, length_half_width=0.6))).classes
    assert (same.requests, same.stopped) == (c.requests, c.stopped)


def test_the_half_width_flag_says_its_two_units_and_sets_both(monkeypatch):
    import argparse

    from commands import probe_decide
    from model.probe.until_decided import UntilDecidedRun

    parser = argparse.ArgumentParser()
    probe_decide.add_decide_arguments(parser)
    text = " ".join(parser.format_help().split())
    assert "tokens per verify step" in text and "0.03 is 3 points" in text
    args = parser.parse_args(["--until-decided", "--half-width", "0.2"])
    args.workbook, args.confidence = None, 0.95
    probe_decide.check_decide_arguments(args)  # 0.2 tokens per step is a sensible E target: not refused
    seen = {}

    def fake_run(settings, keys, thresholds, decide, run_path):
        seen["decide"] = decide
        return UntilDecidedRun()
        yield  # a generator, as run_until_decided is

    monkeypatch.setattr(probe_decide, "run_until_decided", fake_run)
    from types import SimpleNamespace
    probe_decide.run_decide(args, SimpleNamespace(prompts=[], fast_name="Fast"), {}, None, None, None)
    assert seen["decide"].half_width == 0.2 and seen["decide"].length_half_width == 0.2
