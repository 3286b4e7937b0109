"""The per-position profile a probe's steps imply: counts by hand, a position-dependent truth recovered, merged
steps kept out, the interval on E, and Apply putting the profile and its interval into the workbook."""
from __future__ import annotations

import numpy as np
import pytest

from model.comparison.records import pair_records
from model.mechanics import arithmetic as ar
from model.acceptance.interval import alpha_interval, length_interval
from model.comparison import compare
from model.probe.analysis import analyse
from model.probe.apply import apply_probe
from model.probe.events import FAST, RequestRecord, StreamEvent
from model.probe.profile import MIN_REACHED, step_profile
from model.probe.steps import detect_style, read_steps
from model.workbook.acceptance_fields import summary_alpha
from model.workbook.json_file import load_demo
from model.workbook.validation import workbook_problems
from tests.model.probe.test_llamacpp_reading import K, _llama


def _vllm(sizes: list[int], index: int, cls: str = "code", finish: str = "length") -> RequestRecord:
    """One request as vLLM streams it: one event per step, the step's tokens counted by its logprobs."""
    r = RequestRecord(f"r{index}", FAST, cls, index, 0, 0, 10_000, finish_reason=finish)
    for j, n in enumerate(sizes):
        r.events.append(StreamEvent(0.1 + 0.02 * j, "x" * n, n, ["x"] * n))
    return r


def _truth_steps(rng: np.random.Generator, p: list[float], n: int) -> list[int]:
    """Accepted drafts of n steps whose position i is accepted with probability p[i - 1] given the ones before."""
    out = []
    for _ in range(n):
        a = 0
        while a < len(p) and rng.random() < p[a]:
            a += 1
        out.append(a)
    return out


def test_counts_by_hand() -> None:
    # K = 4 (a step of 5 tokens is seen). The first step (the prompt pass's token) is left out; the budget is far
    # off, so the last step counts: 2, 5, 1, 3, 5, 2 tokens = accepted 1, 4, 0, 2, 4, 1, in each of 2 requests
    records = [_vllm([1, 2, 5, 1, 3, 5, 2], i) for i in range(2)]
    reading = read_steps(records, detect_style(records))
    assert reading.k_estimate == 4
    prof = step_profile(reading.groups, 4)
    assert prof is not None and prof.steps == 12 and prof.requests == 2
    # position 1 reached by all 12, accepted by 10; position 2: reached 10, accepted 6 (the 4, 2, 4 per request);
    # position 3: reached 6, accepted 4; position 4: reached 4, accepted 4 (the full steps: nothing rejected)
    assert prof.reached == (12, 10, 6, 4) and prof.accepted == (10, 6, 4, 4)
    assert prof.rates == pytest.approx([10 / 12, 0.6, 4 / 6, 1.0])
    # MIN_REACHED = 10: positions 1 and 2 rest on enough steps for the profile, position 3 (6 steps) ends it
    assert MIN_REACHED == 10 and prof.profile == pytest.approx((10 / 12, 0.6))
    assert prof.mean_acceptance_length == pytest.approx(1 + 24 / 12)
    # a request that ends in a stop leaves its last step out (it may be cut short by the end of the text)
    stopped = [_vllm([1, 2, 5, 1, 3, 5, 2], i, finish="stop") for i in range(2)]
    assert step_profile(read_steps(stopped, detect_style(stopped)).groups, 4).steps == 10


def test_a_falling_profile_is_recovered_and_agrees_with_e() -> None:
    rng = np.random.default_rng(11)
    truth = [0.9, 0.7, 0.5, 0.3]
    steps = [_truth_steps(rng, truth, 300) for _ in range(8)]
    records = [_vllm([1] + [a + 1 for a in acc] + [1], i, finish="stop") for i, acc in enumerate(steps)]
    report = analyse(records)
    c = report.classes[0]
    assert report.k_estimate == 4 and c.profile is not None and len(c.profile) == 4
    # 2,400 steps: each conditional rate within 0.05 of the truth (the i.i.d. alpha could not say this shape)
    assert np.max(np.abs(np.array(c.profile) - truth)) < 0.05
    counted = [a for acc in steps for a in acc]
    assert c.profile_counts["steps"] == len(counted)
    assert ar.profile_tokens(c.profile) == pytest.approx(1 + np.mean(counted), rel=1e-12)
    lo, hi = c.mean_acceptance_length_interval
    assert lo < ar.profile_tokens(c.profile) < hi
    assert ar.profile_tokens(truth) == pytest.approx((lo + hi) / 2, abs=hi - lo)


def test_steps_merged_by_a_late_read_stay_out_of_the_profile() -> None:
    rng = np.random.default_rng(7)
    accepted = [[int(x) for x in _truth_steps(rng, [0.9, 0.8, 0.6, 0.4], 60)] for _ in range(4)]
    stalled = [{9, 21, 33}, {12, 40}, {5}, {30, 50}]
    records = [_llama(a, i, merge={j - 1 for j in m}, stall_before=m) for i, (a, m) in enumerate(zip(accepted, stalled))]
    reading = read_steps(records, detect_style(records))
    assert reading.k_estimate == K and reading.left_out == sum(len(m) for m in stalled)
    prof = step_profile(reading.groups, K)
    # the profile counts exactly the steps a clean read gives: not the first, not the two read as one (the
    # merged group, found by the stall), not those without room for K + 1 tokens at the end of the budget
    expected = []
    for acc, m in zip(accepted, stalled):
        budget, emitted = sum(a + 1 for a in acc), 0
        for j, a in enumerate(acc):
            if j > 0 and j not in m and j + 1 not in m and budget - emitted >= K + 1:
                expected.append(a)
            emitted += a + 1
    hist = np.bincount(expected, minlength=K + 1)
    assert prof.steps == len(expected)
    assert list(prof.accepted) == [int(hist[i:].sum()) for i in range(1, K + 1)]


def test_no_profile_where_the_timing_is_unreliable() -> None:
    rng = np.random.default_rng(8)
    records = [_llama([int(x) for x in _truth_steps(rng, [0.8] * 4, 60)], i, merge=set(range(1, 58, 3)))
               for i in range(4)]
    report = analyse(records)
    assert report.timing_unreliable and report.classes[0].profile is None
    assert report.classes[0].mean_acceptance_length_interval is None


def test_the_length_interval_is_the_fill_interval_carried_to_e() -> None:
    accepted = [30, 41, 22, 35, 28, 39]
    steps = [20, 22, 19, 21, 20, 23]
    e = length_interval(accepted, steps, 4, 0.9)
    f = alpha_interval(accepted, [4 * s for s in steps], 0.9)
    assert e.point == pytest.approx(1 + sum(accepted) / sum(steps), rel=1e-12)
    assert e.low == pytest.approx(1 + 4 * f.low) and e.high == pytest.approx(1 + 4 * f.high)
    assert e.requests == 6 and e.steps == sum(steps) and e.kind == "length"
    assert not length_interval(accepted[:4], steps[:4], 4).has_interval  # fewer than 5 requests: none
    with pytest.raises(ValueError, match="from 0 to K"):
        length_interval([90], [20], 4)


def test_apply_puts_the_profile_and_its_interval_into_the_workbook_and_the_comparison_uses_them() -> None:
    rng = np.random.default_rng(12)
    truth = [0.9, 0.75, 0.6, 0.45]
    records = [_vllm([1] + [a + 1 for a in _truth_steps(rng, truth, 120)] + [1], i, finish="stop") for i in range(10)]
    report = analyse(records, {"fast_name": "probe"})
    c = report.classes[0]
    wb = load_demo()
    tier = next(t for t in wb.tiers if t.speculative == "yes" and t.k == 4)
    apply_probe(wb, report, tier.name)
    o = wb.override_for(tier.name, "code")
    assert o is not None and o.profile == pytest.approx(tuple(c.profile))
    assert (o.acceptance_length_low, o.acceptance_length_high) == pytest.approx(tuple(c.mean_acceptance_length_interval))
    # the profile is the measurement: the alpha stored beside it is its summary (the i.i.d. alpha with the same E
    # at the profile's K, docs/design/arithmetic.md#the-alpha-beside-a-profile), not the probe's own fit, which a
    # falling profile puts well off it (0.72 against 0.77 here)
    summary = summary_alpha(tuple(c.profile), None, None)
    assert o.alpha == pytest.approx(summary) and abs(summary - c.alpha) > 0.01
    assert ar.expected_tokens(np.array([o.alpha]), len(c.profile))[0] == pytest.approx(ar.profile_tokens(c.profile))
    assert o.alpha_confidence == pytest.approx(0.95)
    assert workbook_problems(wb) == []
    rec = next(r for r in pair_records(compare(wb)) if r["tier"] == tier.name and r["task_class"] == "code")
    assert rec["acceptance_kind"] == "profile" and not rec["extrapolated"]
    assert rec["mean_acceptance_length"] == pytest.approx(ar.profile_tokens(c.profile), rel=1e-12)
    # at the profile's own K the interval on E is the measured one, and the speedup's ends are E's over the cost
    assert rec["mean_acceptance_length_interval"] == pytest.approx(c.mean_acceptance_length_interval, rel=1e-12)
    stretch = rec["break_even_length"]
    assert rec["speedup_interval"] == pytest.approx([x / stretch for x in c.mean_acceptance_length_interval])
    assert rec["interval_note"] is None


def test_a_step_the_server_sent_in_two_parts_is_read_as_one() -> None:
    # llama.cpp at trace level on a loaded machine paused 10-15 ms inside steps 720 ms apart: a full step of 5
    # tokens read as 1 + 4 would count a rejection at position 1. Here steps are 20 ms apart, parts 1 ms apart, in
    # one step of six (a part gap in every third step would be a cluster of its own, read by steps.split_gaps).
    rng = np.random.default_rng(21)
    accepted = [[int(x) for x in _truth_steps(rng, [0.9, 0.8, 0.7, 0.6], 50)] for _ in range(4)]
    records = []
    for i, acc in enumerate(accepted):
        r = _llama(acc, i, measured=True)  # the client's timer ran and saw no stall
        events = iter(r.events)
        for j, a in enumerate(acc):
            step = [next(events) for _ in range(a + 1)]
            if a >= 1 and j % 6 == 1:
                for e in step[1:]:
                    e.t += 0.001
        records.append(r)
    reading = read_steps(records, detect_style(records))
    split = sum(1 for acc in accepted for j, a in enumerate(acc) if a >= 1 and j % 6 == 1)
    assert split > 20 and reading.joined == split and reading.left_out == 0
    prof = step_profile(reading.groups, K)
    expected = []
    for acc in accepted:
        budget, emitted = sum(a + 1 for a in acc), 0
        for j, a in enumerate(acc):
            if j > 0 and budget - emitted >= K + 1:
                expected.append(a)
            emitted += a + 1
    hist = np.bincount(expected, minlength=K + 1)
    assert prof.steps == len(expected) and list(prof.accepted) == [int(hist[i:].sum()) for i in range(1, K + 1)]
    assert "read as one" in " ".join(analyse(records).notes)
    # the client's own timer stalled for about a decode time just before the parts arrived: they may be two steps
    # a late reader found together, so both are left out (merges.flag_by_timing), not joined
    r0 = records[0]
    j = next(j for j, a in enumerate(accepted[0]) if a >= 1 and j % 6 == 1)
    second_part = r0.events[sum(a + 1 for a in accepted[0][:j]) + 1].t
    r0.stalls = [[second_part - 0.0002, 0.019]]
    again = read_steps([r0], detect_style(records))
    in_r0 = sum(1 for j, a in enumerate(accepted[0]) if a >= 1 and j % 6 == 1)
    assert again.left_out == 2 and again.joined == in_r0 - 1
