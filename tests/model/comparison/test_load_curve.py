"""The speedup-against-concurrency chart's data (#25): measured levels, the claim at one stream, the roofline
by server batch (equal to the comparison's mix speedup at the tier's own batch), the price ratio."""
from __future__ import annotations

import numpy as np
import pytest

from model.comparison import compare
from model.comparison.load_curve import load_curve
from model.workbook.json_file import load_demo

TURBO, HELIX_FAST = 1, 3  # demo rows: a roofline tier (batch 4) and a typed one


def test_the_roofline_line_passes_through_the_comparisons_speedup_at_the_tiers_batch():
    wb = load_demo()
    wb.tiers[TURBO].measured_by_concurrency = "1: 2.4, 4: 2.1, 16: 1.3, 64: 0.8*"
    cmp = compare(wb)
    curve = load_curve(wb, cmp.cells.alpha[TURBO], float(cmp.tiers.price_ratio[TURBO]), TURBO)
    assert list(curve.levels) == [1, 4, 16, 64] and list(curve.throttled) == [False, False, False, True]
    assert curve.claim == wb.tiers[TURBO].claimed_speedup and curve.claim_concurrency == 1
    wb.tiers[TURBO].claim_concurrency = 8  # the vendor says its claim was measured at 8 streams
    assert load_curve(wb, cmp.cells.alpha[TURBO], None, TURBO).claim_concurrency == 8
    at = int(np.flatnonzero(curve.batches == wb.tiers[TURBO].batch)[0])
    assert curve.roofline[at] == pytest.approx(float(cmp.tiers.mix_speedup[TURBO]), rel=1e-9)
    # a bigger server batch makes the verify pass dearer: the roofline's speedup never rises with it
    assert np.all(np.diff(curve.roofline) <= 1e-12) and curve.roofline[-1] < curve.roofline[0]
    assert curve.price_ratio == pytest.approx(float(cmp.tiers.price_ratio[TURBO]))


def test_a_typed_tier_has_no_roofline_line_and_says_why():
    wb = load_demo()
    cmp = compare(wb)
    curve = load_curve(wb, cmp.cells.alpha[HELIX_FAST], None, HELIX_FAST)
    assert curve.roofline is None and "typed c and v" in curve.note
    assert "nothing measured by concurrency" in curve.note and len(curve.levels) == 0
