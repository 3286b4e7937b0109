"""The logprob score test: its false alarm rate on an exact sampler, its power on a sharpened one, its stated size."""
from __future__ import annotations

import numpy as np

from model.quality.score_test import ReportedRequest, TokenReport, bins, score_test
from model.quality.simulate import simulate_requests
from model.quality.verdict import LOSSLESS, LOSSY, UNDECIDED, decide


def _runs(beta: float, runs: int, prompts: int = 8, repeats: int = 2, tokens: int = 32):
    return [score_test(simulate_requests(np.random.default_rng(seed), prompts, repeats, tokens, beta))
            for seed in range(runs)]


def test_an_exact_sampler_is_called_lossy_at_most_as_often_as_the_confidence_allows():
    results = _runs(1.0, 120)
    false_alarms = sum(r.p_value < 0.05 for r in results)
    # 5% of 120 is 6; a seeded run, so this is the measured rate, with room for Monte Carlo error only
    assert false_alarms <= 9, false_alarms


def test_a_sharpened_sampler_is_found_and_the_stated_size_is_conservative():
    runs = _runs(1.0, 20)
    stated = float(np.median([r.detectable_beta for r in runs]))
    assert 1.0 < stated < 1.6
    # at the stated size the test must reject at least 80% of the time (the size is an upper bound)
    found = sum(r.p_value < 0.05 for r in _runs(stated, 60))
    assert found >= 0.8 * 60 - 6, (stated, found)
    assert all(r.statistic > 0 for r in _runs(1.8, 5))  # sharper than reported: z above 0


def test_a_flattened_sampler_is_found_too_with_z_below_zero():
    results = _runs(0.6, 10)
    assert sum(r.p_value < 0.05 for r in results) >= 8
    assert all(r.statistic < 0 for r in results if r.p_value < 0.05)


def test_the_other_bin_counts_as_the_least_likely():
    h, offset, chosen = bins(TokenReport((-1.0, -2.0), -1))
    assert chosen == 2 and h[2] == h[1]  # the other bin's tokens taken at the last top token's log p
    assert np.isclose(np.exp(h[:2]).sum() + np.exp(h[2] + offset[2]), 1.0)
    # unsorted top entries: the chosen index follows the entry, not the order
    h, _, chosen = bins(TokenReport((-2.0, -0.5), 1))
    assert chosen == 0 and h[0] == -0.5


def test_certain_tokens_carry_no_evidence_either_way():
    certain = [ReportedRequest(i, tuple(TokenReport((-1e-9,), 0) for _ in range(50))) for i in range(10)]
    result = score_test(certain)
    assert result.p_value > 0.99 and result.detectable_beta is None


def test_the_verdict_rules():
    assert decide(0.001, 1.3, 0.95, None, 10) == (LOSSY, None)
    assert decide(0.5, 1.08, 0.95, None, 10) == (LOSSLESS, None)
    assert decide(0.5, 1.2, 0.95, 25.2, 10) == (UNDECIDED, 16)
    assert decide(0.5, None, 0.95, None, 10) == (UNDECIDED, None)


def test_the_vectorised_table_follows_the_per_token_rule():
    from model.quality.score_test import Tokens
    reqs = simulate_requests(np.random.default_rng(3), 4, 2, 50, 1.3)
    reports = [t for r in reqs for t in r.tokens] + [TokenReport((), -1), TokenReport((-0.1, -3.0), -1),
                                                     TokenReport((-2.0, -0.5), 1)]
    table = Tokens.of(reports)
    for n, report in enumerate(reports):
        h, offset, chosen = bins(report)
        assert np.allclose(table.h[n, :len(h)], h) and np.allclose(table.offset[n, :len(h)], offset)
        assert table.chosen[n] == chosen and np.isinf(table.offset[n, len(h):]).all()
