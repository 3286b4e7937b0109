"""A class a run until decided calls decided stays decided once Apply has written what the probe
measured. Apply keeps a profile wherever the steps imply one, so the run judges such a class on E; a request whose
only full step is its first counts for alpha but not for the profile (model.probe.profile leaves each first step
out), and such a class must not be called on alpha's five prompts while its E rests on four."""
from __future__ import annotations

import math

from model.comparison import compare
from model.probe.analysis import analyse
from model.probe.apply import apply_probe
from model.probe.until_decided import ClassDecision, DecideSettings, break_even_length_of, judge_look
from model.workbook.json_file import load_demo
from tests.model.probe.test_profile import _vllm

TIER = "Helix Fast"  # K = 4 in the demo workbook, as the steps below (a step of 5 tokens)
STEPS = [1, 3, 5, 2, 4, 5, 3, 2, 5, 4, 3, 5]


def _creative(short_one: bool) -> list:
    records = [_vllm(STEPS[i:] + STEPS[:i], i, cls="creative") for i in range(4)]
    # the fifth prompt: one full step (4 tokens) then the end of the text; without short_one a request like the rest
    records.append(_vllm([4, 2], 4, cls="creative", finish="stop") if short_one else _vllm(STEPS, 4, cls="creative"))
    return records


def _judged_then_applied(short_one: bool) -> tuple[ClassDecision, float]:
    report = analyse(_creative(short_one))
    cp = report.classes[0]
    assert report.k_estimate == 4 and cp.profile
    c = ClassDecision("creative", 0.05)  # far below the class's alpha: alpha alone decides it at once
    judge_look(c, cp, 4, 0.95, DecideSettings())
    wb = load_demo()
    apply_probe(wb, report, TIER)
    cmp = compare(wb)
    i, j = cmp.tier_names.index(TIER), cmp.class_names.index("creative")
    return c, float(cmp.cells.tokens_per_stretch_low[i, j])


def test_a_request_counting_for_alpha_only_leaves_the_class_open_as_apply_leaves_it() -> None:
    cp = analyse(_creative(True)).classes[0]
    # the same run: five prompts give alpha its interval, four give E none (too few requests)
    assert cp.prompts == 5 and cp.acceptance.has_interval
    assert cp.profile_counts["requests"] == 4 and cp.mean_acceptance_length_interval is None
    c, low_after_apply = _judged_then_applied(True)
    assert math.isnan(low_after_apply)  # Apply keeps the profile, with no interval on E
    assert not c.decided and c.unit == "length" and c.length_interval is None


def test_a_class_whose_e_has_its_interval_is_decided_on_it_and_keeps_it_after_apply() -> None:
    c, low_after_apply = _judged_then_applied(False)
    assert c.decided and c.side == "above" and c.unit == "length" and c.k == 4
    assert c.threshold == break_even_length_of(0.05, 4) and c.length_interval[0] > c.threshold
    assert math.isfinite(low_after_apply) and low_after_apply > c.threshold


def test_the_break_even_in_tokens_per_step() -> None:
    assert break_even_length_of(0.0, 4) == 1.0  # any alpha pays: any E does
    assert break_even_length_of(1.0 + 1e-9, 4) > 5.0  # none pays: above the most E can be at K = 4
