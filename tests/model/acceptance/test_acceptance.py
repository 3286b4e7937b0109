"""The acceptance module: intervals from per-request counts against hand-computed cases, propagation
through the arithmetic against a brute-force grid, and the mix's joint interval."""
from __future__ import annotations

import math

import numpy as np
import pytest

from model.mechanics import arithmetic as ar
from model.acceptance import (COUNTS_ONLY, METHOD, TOO_FEW, Acceptance, acceptance_of, alpha_interval,
                              per_request_counts)
from model.acceptance.interval import token_level_interval
from model.acceptance.propagate import mix_interval, speedup_ends


def test_interval_by_hand() -> None:
    # a = 30, 40, 50, 35, 45 of n = 50, 50, 60, 50, 55: alpha = 200 / 265 = 0.754717; residuals a - alpha n
    # -7.7358, 2.2642, 4.7170, -2.7358, 3.4906; sum of squares 106.89; var = 5/4 * 106.89 / 265^2 = 0.0019026
    # (above the binomial 0.000699); se(logit) = 0.043619 / (0.754717 * 0.245283) = 0.23562; t(4) = 2.7764
    # logit(0.754717) = 1.12393; ends expit(1.12393 -+ 0.65418) = 0.61532, 0.85547
    r = alpha_interval([30, 40, 50, 35, 45], [50, 50, 60, 50, 55], 0.95, steps=[12, 12, 14, 12, 13])
    assert r.point == pytest.approx(200 / 265)
    assert r.low == pytest.approx(0.61532, abs=2e-5)
    assert r.high == pytest.approx(0.85547, abs=2e-5)
    assert (r.requests, r.steps, r.confidence, r.method) == (5, 63, 0.95, METHOD)


def test_requests_that_agree_still_get_the_binomial_width() -> None:
    # every request at exactly 0.8: the cluster variance is 0, the binomial one (0.8 * 0.2 / 500) is used
    r = alpha_interval([80] * 5, [100] * 5)
    se_logit = math.sqrt(0.8 * 0.2 / 500) / (0.8 * 0.2)
    half = 2.7764451 * se_logit
    assert r.low == pytest.approx(1 / (1 + math.exp(-(math.log(4) - half))), rel=1e-6)
    assert r.high == pytest.approx(1 / (1 + math.exp(-(math.log(4) + half))), rel=1e-6)


def test_all_accepted_gives_an_interval_below_one() -> None:
    r = alpha_interval([40] * 6, [40] * 6)
    # the centre moves to (240 + 1/2) / (240 + 1) so the log-odds exist; the interval still holds the point
    assert r.point == 1.0 and r.high == 1.0
    assert 0.9 < r.low < 0.95


def test_too_few_requests_gives_no_interval() -> None:
    r = alpha_interval([30, 40, 50, 35], [50, 50, 60, 50])
    assert r.point == pytest.approx(155 / 210)
    assert r.interval is None and r.method == TOO_FEW and r.note == TOO_FEW
    assert r.to_dict()["alpha_interval"] is None and r.to_dict()["interval_note"] == TOO_FEW
    # requests without a single full stretch do not count as requests
    assert alpha_interval([1, 2, 3, 4, 0], [2, 3, 4, 5, 0]).method == TOO_FEW


def test_interval_narrows_with_more_requests_and_widens_with_confidence() -> None:
    a, n = np.array([30, 40, 50, 35, 45] * 4), np.array([50, 50, 60, 50, 55] * 4)
    small, big = alpha_interval(a[:5], n[:5]), alpha_interval(a, n)
    assert big.half_width < small.half_width
    assert alpha_interval(a, n, 0.99).half_width > big.half_width > alpha_interval(a, n, 0.80).half_width


def test_bad_counts_refused() -> None:
    with pytest.raises(ValueError):
        alpha_interval([5, 6], [4, 6])
    with pytest.raises(ValueError):
        alpha_interval([1], [2, 3])
    with pytest.raises(ValueError):
        alpha_interval([1] * 5, [2] * 5, confidence=1.0)


def test_per_request_counts_follow_the_histogram_rule() -> None:
    # K = 4: stretches accepting 4 (no failure), 2 (one failure), 0 (one failure)
    acc, trials, steps = per_request_counts([[4, 2, 0], [4, 4], [1]], 4)
    assert acc.tolist() == [6, 8, 1] and trials.tolist() == [8, 8, 2] and steps.tolist() == [3, 2, 1]
    # the pooled ratio is ar.histogram_alpha of all the stretches
    assert acc.sum() / trials.sum() == pytest.approx(ar.histogram_alpha(np.bincount([4, 2, 0, 4, 4, 1], minlength=5)))


def test_naive_token_interval_is_narrower_than_the_cluster_one_when_prompts_differ() -> None:
    a, n = [10, 45, 20, 48, 30, 15], [50, 50, 50, 50, 50, 50]
    lo, hi = token_level_interval(sum(a), sum(n))
    r = alpha_interval(a, n)
    assert hi - lo < 0.5 * (r.high - r.low)


def test_acceptance_of_rows() -> None:
    class Row:
        alpha, alpha_source = 0.7, "assumed"
        alpha_low = alpha_high = alpha_confidence = None
        alpha_requests = alpha_steps = 0
        alpha_method = ""

    row = Row()
    assert acceptance_of(row, 0.9).interval is None and acceptance_of(row, 0.9).note == "assumed, no range given"
    row.alpha_low, row.alpha_high = 0.6, 0.75
    typed = acceptance_of(row, 0.9)
    assert typed.interval == (0.6, 0.75) and typed.confidence == 0.9 and typed.method == "typed range"
    row.alpha_low = row.alpha_high = None
    row.alpha_source, row.alpha_method = "imported", COUNTS_ONLY
    assert acceptance_of(row, 0.9).note == COUNTS_ONLY
    assert Acceptance(0.7, 0.6, 0.8, 0.95, 10, 200, METHOD).row_fields() == {
        "alpha_low": 0.6, "alpha_high": 0.8, "alpha_confidence": 0.95, "alpha_requests": 10, "alpha_steps": 200,
        "alpha_method": METHOD, "alpha_prompts": None}


@pytest.mark.parametrize("k,c,v", [(4, 0.1, 1.0), (2, 0.05, 1.3), (8, 0.2, 1.0), (5, 0.0, 1.0)])
def test_propagation_by_end_points_matches_a_brute_force_grid(k: int, c: float, v: float) -> None:
    low, high = 0.42, 0.83
    grid = np.linspace(low, high, 20001)
    stretch = ar.stretch_cost(k, c, v)
    s_lo, s_hi = speedup_ends(low, high, k, stretch)
    s_grid = ar.speedup(grid, k, c, v)
    assert s_lo == pytest.approx(s_grid.min(), rel=1e-12) and s_hi == pytest.approx(s_grid.max(), rel=1e-12)
    e_grid = ar.expected_tokens(grid, k)
    assert ar.expected_tokens(low, k) == pytest.approx(e_grid.min()) and ar.expected_tokens(high, k) == pytest.approx(e_grid.max())
    # over a baseline held at its value (a speculative baseline at alpha 0.5, K 3)
    base = float(ar.speedup(0.5, 3, 0.1, 1.0))
    assert s_lo / base == pytest.approx((s_grid / base).min()) and s_hi / base == pytest.approx((s_grid / base).max())


def test_mix_interval_with_one_uncertain_class_is_that_class_carried_through() -> None:
    s = np.array([2.0, 1.5, 1.2])
    w = np.array([3.0, 1.0, 2.0])
    lo, hi = np.array([1.6, np.nan, np.nan]), np.array([2.3, np.nan, np.nan])
    conf = np.array([0.95, np.nan, np.nan])
    m_lo, m_hi = mix_interval(s, lo, hi, w, conf, 0.95)
    # d log M / d log S_1 = t_1 = (3 / 2) / (3 / 2 + 1 / 1.5 + 2 / 1.2) = 0.4576; to first order on the log scale
    t1 = 1.5 / (1.5 + 1 / 1.5 + 2 / 1.2)
    mix = float(ar.blend_speedup(s, w))
    assert m_lo == pytest.approx(mix * math.exp(t1 * math.log(1.6 / 2.0)))
    assert m_hi == pytest.approx(mix * math.exp(t1 * math.log(2.3 / 2.0)))
    # a single class in the mix: exactly its own interval
    one = mix_interval(np.array([2.0]), np.array([1.6]), np.array([2.3]), np.array([1.0]), np.array([0.95]), 0.95)
    assert one[0] == pytest.approx(1.6) and one[1] == pytest.approx(2.3)


def test_mix_interval_combines_independent_classes_narrower_than_all_worst_ends() -> None:
    s = np.full(4, 2.0)
    lo, hi = np.full(4, 1.6), np.full(4, 2.5)
    m_lo, m_hi = mix_interval(s, lo, hi, np.ones(4), np.full(4, 0.95), 0.95)
    worst = float(ar.blend_speedup(lo, np.ones(4)))
    best = float(ar.blend_speedup(hi, np.ones(4)))
    assert worst < m_lo < 2.0 < m_hi < best
    # four equal independent classes: the log-sd halves (sqrt(4 * (1/4)^2) = 1/2)
    assert m_lo == pytest.approx(2.0 * math.sqrt(1.6 / 2.0))
    # no class with an interval: none for the mix; per tier along the last axis
    none = mix_interval(np.full((2, 3), 2.0), np.full((2, 3), np.nan), np.full((2, 3), np.nan), np.ones(3),
                        np.full((2, 3), np.nan), 0.95)
    assert np.isnan(none[0]).all() and np.isnan(none[1]).all()


def test_normal_quantile_matches_scipy_without_importing_it_for_every_compare():
    from scipy import stats

    from model.acceptance.interval import z_quantile

    conf = np.array([[0.5, 0.8, 0.9], [0.95, 0.99, 0.999]])
    assert np.allclose(z_quantile(conf), stats.norm.ppf(0.5 + 0.5 * conf), rtol=1e-12, atol=0)
    assert float(z_quantile(0.95)) == pytest.approx(1.959963984540054, rel=1e-14)
    assert np.isnan(z_quantile(1.0)) and np.isnan(z_quantile(float("nan")))
    # computed once per distinct confidence and put back in place, repeats and NaN included
    mixed = np.array([[0.95, 0.8, np.nan], [0.8, 0.95, 0.95], [0.9, np.nan, 0.8]])
    got = z_quantile(mixed)
    assert got.shape == (3, 3) and np.array_equal(np.isnan(got), np.isnan(mixed))
    assert np.allclose(got[~np.isnan(mixed)], stats.norm.ppf(0.5 + 0.5 * mixed[~np.isnan(mixed)]), rtol=1e-12, atol=0)


def test_repeats_of_a_prompt_are_one_cluster() -> None:
    # the hand case above, each of its 5 prompts sent 3 times with the same counts (temperature 0): the prompts'
    # summed counts are 3x each, the residuals 3x and N 3x, so the variance and the interval are the hand case's
    # 0.61532-0.85547 with G = 5 prompts (t(4)); counted as 15 requests it was narrower (t(14), 3x the N)
    a, n, s = [30, 40, 50, 35, 45] * 3, [50, 50, 60, 50, 55] * 3, [12, 12, 14, 12, 13] * 3
    r = alpha_interval(a, n, 0.95, steps=s, clusters=[0, 1, 2, 3, 4] * 3)
    assert r.low == pytest.approx(0.61532, abs=2e-5) and r.high == pytest.approx(0.85547, abs=2e-5)
    assert (r.requests, r.steps) == (5, 189) and "prompts as clusters" in r.method
    unclustered = alpha_interval(a, n, 0.95, steps=s)
    assert unclustered.high - unclustered.low < 0.8 * (r.high - r.low)  # what the repeats used to buy


def test_repeats_do_not_lower_the_binomial_floor() -> None:
    # five prompts at exactly 0.8 of 100, each sent 3 times: the floor is 0.8 * 0.2 / 500 (one request's tokens a
    # prompt), as for the prompts sent once, not / 1500
    once = alpha_interval([80] * 5, [100] * 5)
    thrice = alpha_interval([80] * 15, [100] * 15, clusters=[0, 1, 2, 3, 4] * 3)
    assert (thrice.low, thrice.high) == pytest.approx((once.low, once.high), rel=1e-12)


def test_too_few_distinct_prompts_give_no_interval_however_often_repeated() -> None:
    r = alpha_interval([30, 40, 50, 35] * 5, [50, 50, 60, 50] * 5, clusters=["a", "b", "c", "d"] * 5)
    assert r.interval is None and r.method == TOO_FEW and r.requests == 4


def test_clustered_interval_counts_its_prompts_and_the_requests_behind_them():
    # 7 requests of 6 prompts (the second sent twice): the units are 6, the requests 7
    acc, trials = [30, 20, 20, 40, 25, 33, 35], [50, 40, 40, 52, 45, 48, 44]
    r = alpha_interval(acc, trials, 0.95, clusters=[0, 1, 1, 2, 3, 4, 5])
    assert (r.requests, r.sent, r.prompts) == (6, 7, 6)
    assert (r.row_fields()["alpha_requests"], r.row_fields()["alpha_prompts"]) == (7, 6)
    plain = alpha_interval(acc, trials, 0.95)
    assert (plain.requests, plain.sent, plain.prompts) == (7, None, None)
    assert (plain.row_fields()["alpha_requests"], plain.row_fields()["alpha_prompts"]) == (7, None)
