"""The interval on a measured speedup (model.acceptance.rates): by hand on a small case, its coverage
against known truth when requests differ, and no interval below the minimum."""
from __future__ import annotations

import math

import numpy as np
import pytest

from model.acceptance.interval import t_quantile
from model.acceptance.rates import speedup_interval


def test_a_small_case_by_hand():
    # fast: 5 requests of 40 tokens in 1, 1, 2, 2, 2 s; baseline: 5 of 20 tokens in 1 s each (no spread)
    ft, fs = [40] * 5, [1, 1, 2, 2, 2]
    bt, bs = [20] * 5, [1] * 5
    r = 200 / 8  # 25 tokens/s
    resid = np.array([40 - r * x for x in fs])
    var_r = 5 / 4 * float(np.sum(resid ** 2)) / 8 ** 2
    var_log = var_r / r ** 2  # the baseline adds nothing: every request at 20 tokens/s
    half = t_quantile(0.95, 4.0) * math.sqrt(var_log)  # Welch's df is the fast side's 4
    low, high = speedup_interval(ft, fs, bt, bs, 0.95)
    assert low == pytest.approx(r / 20 * math.exp(-half)) and high == pytest.approx(r / 20 * math.exp(half))
    assert low < r / 20 < high


def test_fewer_than_five_requests_on_either_side_give_none():
    assert speedup_interval([10] * 4, [1, 2, 1, 2], [5] * 9, [1] * 9) is None
    assert speedup_interval([10] * 9, [1, 2] * 4 + [1], [5] * 4, [1, 2, 1, 1]) is None
    assert speedup_interval([10] * 5, [1] * 5, [5] * 5, [1] * 5) == pytest.approx((2.0, 2.0))


@pytest.mark.parametrize("requests,spread", [(8, 0.15), (16, 0.3)])
def test_coverage_holds_when_requests_differ(requests, spread):
    """Requests' speeds vary log-normally and their lengths vary; the truth is the population's ratio of
    mean tokens to mean seconds on each side. The 95% interval should cover it about 95% of the time."""
    rng = np.random.default_rng(7)

    def draw(n: int, rate: float) -> tuple[np.ndarray, np.ndarray]:
        tokens = rng.integers(20, 120, size=n).astype(float)
        return tokens, tokens / (rate * rng.lognormal(0.0, spread, size=n))

    # the truth: E[tokens] / E[seconds], by a large sample (tokens and the speed factor are independent)
    def truth(rate: float) -> float:
        t, s = draw(2_000_000, rate)
        return float(t.sum() / s.sum())

    true_speedup = truth(60.0) / truth(25.0)
    runs, covered = 600, 0
    for _ in range(runs):
        interval = speedup_interval(*draw(requests, 60.0), *draw(requests, 25.0), 0.95)
        assert interval is not None
        covered += interval[0] <= true_speedup <= interval[1]
    assert 0.91 <= covered / runs <= 0.985, covered / runs
