"""The measured speedup comes with its spread over prompts: tiny-model timings are noisy, and that shows."""
from __future__ import annotations

import math

import numpy as np
import pytest

from model.sampling.run import summarise_class
from model.sampling.speculative import SpeculativeRun, TargetRun


def _pair(tokens: int, spec_seconds: float, plain_seconds: float) -> tuple[SpeculativeRun, TargetRun]:
    spec = SpeculativeRun(output_ids=list(range(tokens)), accepted_counts=[2, 1], drafted_counts=[2, 2],
                          draft_step_seconds=[0.001] * 4, verify_seconds=[0.002, 0.002], decode_seconds=spec_seconds)
    plain = TargetRun(output_ids=list(range(tokens)), step_seconds=[0.002] * tokens, decode_seconds=plain_seconds)
    return spec, plain


def test_spread_is_the_quartiles_of_the_per_prompt_speedups():
    # per prompt (same tokens both ways) the speedup is plain time / speculative time: 2, 1, 0.5, 4
    runs = [_pair(10, 1.0, 2.0), _pair(10, 1.0, 1.0), _pair(10, 2.0, 1.0), _pair(10, 0.5, 2.0)]
    result = summarise_class("code", 2, [s for s, _ in runs], [p for _, p in runs])
    low, high = np.percentile([2.0, 1.0, 0.5, 4.0], [25, 75])  # 0.875 and 2.5
    assert result.speedup_measured_low == pytest.approx(low)
    assert result.speedup_measured_high == pytest.approx(high)
    # the pooled figure is still total tokens over total time: 40 / 4.5 against 40 / 6
    assert result.speedup_measured == pytest.approx((40 / 4.5) / (40 / 6.0))
    assert result.speedup_measured_low <= result.speedup_measured <= result.speedup_measured_high


def test_one_prompt_has_no_spread_and_no_time_no_figure():
    result = summarise_class("code", 2, *map(list, zip(_pair(8, 1.0, 3.0))))
    assert result.speedup_measured_low == pytest.approx(3.0) == pytest.approx(result.speedup_measured_high)
    result = summarise_class("code", 2, *map(list, zip(_pair(8, 0.0, 0.0))))
    assert math.isnan(result.speedup_measured_low) and math.isnan(result.speedup_measured_high)
