"""Counts in the probe's words read right at one ('0 of 1 requests', '(fast, 1 streams)', '1 requests')."""
from __future__ import annotations

from model.probe.load import LevelEstimate, LoadEstimate
from model.probe.plan import Estimate
from model.probe.steps import StepReading, StyleReading
from model.probe.verdict import decide


def test_a_plan_of_one_request_at_one_level_says_so_in_the_singular():
    assert Estimate(1, 40, 64, None).describe().startswith("1 request, about 40 input tokens")
    one = LoadEstimate([LevelEstimate(1, 1, 40, 64, None)]).describe()
    assert one.startswith("1 request over 1 level (1 stream: 1 request,"), one
    two = LoadEstimate([LevelEstimate(1, 2, 80, 128, None), LevelEstimate(4, 8, 320, 512, None)]).describe()
    assert two.startswith("10 requests over 2 levels (1 stream: 2 requests,") and "4 streams: 8 requests" in two, two


def test_a_verdict_on_one_step_says_one_step_was_seen():
    style = StyleReading("vllm", True, "one event per step")
    verdict = decide(style, StepReading(sizes=[3]), StepReading(sizes=[1]))
    assert "Only 1 step was seen" in verdict.evidence and "over 1 step." in verdict.evidence, verdict.evidence
