"""A run until decided confirms each look's decision with the end toward the break-even corrected for the
prompts' skewness (model.acceptance.sequential.skew_factors and side_at_look): against hand-worked numbers, Hall's
transformation itself, and the bound that keeps a few strongly skewed prompts decidable."""
from __future__ import annotations

import math

import numpy as np
import pytest

from model.acceptance import Acceptance
from model.acceptance.interval import alpha_interval, length_interval, t_quantile
from model.acceptance.sequential import (ABOVE, BELOW, OPEN, SKEW_FAR, beta_skewness, look_confidences,
                                         look_schedule, requests_to_decide, side, side_at_look, skew_factors)


def test_the_residuals_skewness_by_hand():
    # 4 prompts at 90/100 and one at 40/100: alpha 0.8, residuals 10, 10, 10, 10, -40; m2 = 400, m3 = -12000,
    # skewness -12000 / 400^1.5 = -1.5 (a long tail of hard prompts below)
    a = alpha_interval([90, 90, 90, 90, 40], [100] * 5)
    assert a.skew == pytest.approx(-1.5)
    assert alpha_interval([60, 60, 60, 60, 100], [100] * 5).skew == pytest.approx(1.5)  # the mirror image
    assert alpha_interval([80] * 5, [100] * 5).skew == 0.0  # no spread: nothing to correct


def test_the_factor_inverts_halls_transformation():
    # 40 prompts, skewness -0.5, t = 2: adjusted -0.5 sqrt(40 x 39) / 38 = -0.5197, weighted 1.5x, over sqrt(40):
    # g = -0.12326; the corrected boundary T = f t satisfies Hall's T + g T^2 / 3 + g^2 T^3 / 27 + g / 6 = t
    g = -0.5 * math.sqrt(40 * 39) / 38 * 1.5 / math.sqrt(40)
    low, high = skew_factors(-0.5, 40, 2.0)
    big_t = float(low) * 2.0
    assert big_t + g * big_t ** 2 / 3 + g ** 2 * big_t ** 3 / 27 + g / 6 == pytest.approx(2.0)
    assert 1.05 < float(low) < 1.2 and float(high) == 1.0  # deciding above gets harder; below is never eased
    low_p, high_p = skew_factors(0.5, 40, 2.0)  # a long tail above: the upper end, mirrored
    assert float(low_p) == 1.0 and float(high_p) == pytest.approx(float(low))


def test_the_correction_grows_with_the_skewness_and_stays_bounded():
    # Hall's cubic inverted at a large t with a strong skewness shrinks again (0.9 of the plain end at 5 prompts,
    # t 5.6, skewness -1.5 without the hold), and unheld it reaches 3x: the far end is held at a third farther
    skews = -np.linspace(0.0, 10.0, 201)
    for units, t in ((5, 5.6), (8, 3.3), (40, 2.5), (160, 2.2)):
        low, high = skew_factors(skews, units, t)
        assert np.all(np.diff(low) >= -1e-12) and np.all(low <= SKEW_FAR + 1e-12) and np.all(high == 1.0)
    assert float(skew_factors(-1.5, 5, 5.6)[0]) == pytest.approx(SKEW_FAR)
    assert float(skew_factors(-1.0, 2, 12.7)[0]) == 1.0  # below 3 prompts no skewness is read


def test_a_skewed_sample_is_decided_only_with_its_far_end_clear():
    # 5 prompts, one hard: accepted 95, 94, 96, 93, 85 of 100 each, alpha 0.926, at the first look of a cap of 40
    # (99.5%, t(4) = 5.60): the plain interval's low end 0.7154 clears 0.6. Corrected, the end is a third farther
    # on the log-odds: expit(logit 0.926 - 4/3 (logit 0.926 - logit 0.7154)) = 0.595, below 0.6: not yet decided
    conf = look_confidences(0.95, look_schedule(40))[0]
    assert conf == pytest.approx(0.995, abs=1e-3)
    acc = alpha_interval([95, 94, 96, 93, 85], [100] * 5, conf)
    assert acc.low == pytest.approx(0.7154, abs=1e-4) and acc.skew < -1
    assert side(acc, 0.6) == ABOVE and side_at_look(acc, 0.6) == OPEN
    far = 1 / (1 + math.exp(-(math.log(0.926 / 0.074) - 4 / 3 * (math.log(0.926 / 0.074) - math.log(0.7154 / 0.2846)))))
    assert far == pytest.approx(0.595, abs=1e-3)
    # bounded: the same 5 strongly skewed prompts far from their break-even are decided at once (serve-demo's
    # code class is like this: one hard prompt of 5 to 8, alpha about 0.9)
    assert side_at_look(acc, 0.5) == ABOVE
    # an interval made elsewhere (no skewness kept) is read plain
    typed = Acceptance(acc.point, acc.low, acc.high, conf, 5, 0, "typed range")
    assert side_at_look(typed, 0.6) == ABOVE


def test_below_is_judged_on_the_upper_end_with_a_long_tail_above():
    # the mirror image: prompts at 5, 6, 4, 7 and 15 of 100 against 0.4 and 0.3
    conf = look_confidences(0.95, look_schedule(40))[0]
    acc = alpha_interval([5, 6, 4, 7, 15], [100] * 5, conf)
    assert acc.skew > 1
    assert side(acc, acc.high + 0.01) == BELOW
    decided = [x for x in np.linspace(acc.high + 0.001, 0.9, 400) if side_at_look(acc, float(x)) == BELOW]
    assert decided and min(decided) > acc.high + 0.01  # the upper end is taken farther up


def test_e_is_decided_on_the_fills_log_odds():
    # E = 1 + K F: the E interval's ends are the fill's, so side_at_look on E with the scale (1, K + 1) decides
    # as it does on the fill against (E* - 1) / K
    accepted, steps, k = [30, 31, 29, 33, 12, 30, 28], [10] * 7, 4
    conf = 0.99
    e = length_interval(accepted, steps, k, conf)
    fill = alpha_interval(accepted, [k * s for s in steps], conf)
    assert e.skew == pytest.approx(fill.skew)
    for e_star in np.linspace(1.5, 4.5, 61):
        assert side_at_look(e, float(e_star), (1.0, k + 1.0)) == side_at_look(fill, (float(e_star) - 1) / k)


def test_the_estimate_before_a_run_counts_the_correction():
    # a class at alpha 0.9 with 0.10 between prompts (assumed: a Beta, skewness 2 (b - a) sqrt(a + b + 1) /
    # ((a + b + 2) sqrt(a b)) with a = 7.2, b = 0.8: -1.6) needs more requests to be decided above 0.85 than the
    # plain boundaries would say, and the same spread mirrored (alpha 0.1, below 0.15) no more than they say
    assert beta_skewness(0.9, 0.10) == pytest.approx(-1.6)
    assert beta_skewness(0.1, 0.10) == pytest.approx(1.6) and beta_skewness(0.5, 0.6) is None
    looks = look_schedule(160)
    confs = look_confidences(0.95, looks)
    spread = math.sqrt(0.10 ** 2 + 0.9 * 0.1 / 60)
    from scipy.stats import norm

    plain = next(n for n, c in zip(looks, confs) if n >= (norm.isf((1 - c) / 2) * spread / 0.05) ** 2)
    above = requests_to_decide(None, 0.9, 0.85, 0.95, looks=looks, have=0).extra
    below = requests_to_decide(None, 0.1, 0.15, 0.95, looks=looks, have=0).extra
    assert above > plain and below > plain
    # deciding below 0.15 from 0.1 is judged on the upper end, which a long tail above moves; from 0.9 above 0.95
    # (the upper end, the short side) the plain boundaries hold
    assert requests_to_decide(None, 0.9, 0.95, 0.95, looks=looks, have=0).extra == plain
    # a measured interval's own skewness is used
    acc = Acceptance(0.9, 0.85, 0.95, 0.95, 20, 2000, "cluster", skew=-1.6)
    flat = Acceptance(0.9, 0.85, 0.95, 0.95, 20, 2000, "cluster", skew=0.0)
    assert (requests_to_decide(acc, 0.9, 0.85, 0.95, looks=looks, have=0).extra
            > requests_to_decide(flat, 0.9, 0.85, 0.95, looks=looks, have=0).extra)
