"""The probe's alpha reported by a llama.cpp-style server (draft tokens and accepted drafts, no K, no step
count): read with the steps the client saw and SpecCounts' own rules, not as draft tokens / K steps, which
overstated E wherever the token budget cut a draft short. Hand-worked counts, K = 4, the first step drafting
as serve-demo's does (tests/model/probe/test_llamacpp_reading._llama)."""
from __future__ import annotations

import pytest

from model.mechanics import arithmetic as ar
from model.engines.reports import combine, with_k
from model.probe.analysis import analyse
from model.probe.reported import counts_at_k, reported_acceptance, steps_of
from model.probe.steps import detect_style, read_steps
from tests.model.probe.test_llamacpp_reading import _llama

# (accepted drafts per step, drafted per step): a step drafts K where the budget (the request's tokens) leaves
# room for K + 1, else what it leaves less one
REQUESTS = [
    ([4, 2, 2], [4, 4, 2]),  # 11 tokens: the last draft cut to 2 and wholly accepted; step 2 rejected
    ([4, 4, 0, 1], [4, 4, 2, 1]),  # 13 tokens: step 3 rejected its first of 2, step 4 accepted its 1 of 1
    ([1, 3, 4], [4, 4, 4]),  # 11 tokens: steps 1 and 2 rejected
]
ACCEPTED, REJECTED, DRAFTED = 8 + 9 + 8, 1 + 1 + 2, 10 + 11 + 12


def _records(copies: int = 2):
    # each request twice (prompts 0..5): enough requests for the interval, the same counts per pair
    return [_llama(acc, i * len(REQUESTS) + j, drafted=dr)
            for i in range(copies) for j, (acc, dr) in enumerate(REQUESTS)]


def test_hand_worked_counts_give_the_ml_alpha_not_draft_tokens_over_k():
    records = _records(1)
    assert [r.reported["timings"]["draft_n"] for r in records] == [10, 11, 12]
    reading = read_steps(records, detect_style(records), 4)
    parts = counts_at_k(records, 4, steps_of(reading))
    assert [p.drafts for p in parts] == [3, 4, 3]  # the drafting steps the client saw, not draft_n / 4
    assert [p.rejections for p in parts] == [1, 1, 2]  # the budget's drafts add up to draft_n: exactly
    total = combine(parts)
    assert total.alpha == pytest.approx(ACCEPTED / (ACCEPTED + REJECTED))  # 25 / 29 = 0.862
    assert total.mean_acceptance_length == pytest.approx(1 + ACCEPTED / 10)  # 3.5, over 10 drafting steps
    # what it was: 33 / 4 = 8.25 steps, E = 1 + 25 / 8.25 = 4.03 and the alpha matching it at K = 4
    assert with_k(reported_acceptance(records)[0], 4).mean_acceptance_length == pytest.approx(1 + 25 / 8.25)
    assert float(ar.mean_acceptance_length_to_alpha(1 + 25 / 8.25, 4).alpha) > 0.89 > total.alpha


def test_a_request_not_seen_whole_keeps_the_sources_reading_and_the_seen_ones_theirs():
    records = _records(1)
    steps = steps_of(read_steps(records, detect_style(records), 4))
    # none seen: draft tokens / K steps, as SpecCounts reads llama.cpp's timings
    assert [p.drafts for p in counts_at_k(records, 4, {})] == [10 / 4, 11 / 4, 12 / 4]
    seen = {id(r): steps[id(r)] for r in records[:2]}
    assert [p.drafts for p in counts_at_k(records, 4, seen)] == [3, 4, 12 / 4]
    silent = _llama([4, 2, 2], 9, drafted=[4, 4, 2], silent=1)  # usage counts a token no event showed
    assert counts_at_k([silent], 4, steps_of(read_steps([silent], detect_style(records), 4)))[0].drafts == 10 / 4


def test_the_probe_reports_that_alpha_per_class_and_per_level():
    records = _records()
    report = analyse(records)
    assert report.k_estimate == 4
    (c,) = report.classes
    assert c.alpha_source == "reported"
    assert c.alpha_reported == pytest.approx(25 / 29)
    assert c.reported_draft_acceptance_rate == pytest.approx(ACCEPTED / DRAFTED)  # the engine's own: 25 / 33
    assert f"per-token alpha {25 / 29:.3f} at K=4" in c.reported_convention
    (level,) = report.by_concurrency
    assert level.alpha == pytest.approx(25 / 29)
    assert c.alpha_interval is not None and c.alpha_interval[0] <= 25 / 29 <= c.alpha_interval[1]
