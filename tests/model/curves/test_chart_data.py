"""model/curves/chart_data.py: the all-tiers curves equal the one-tier curves of model/curves/speedup.py."""
from __future__ import annotations

import dataclasses

import numpy as np

from model.mechanics import arithmetic as ar
from model.curves.chart_data import alpha_curves, break_even_fill
from model.curves.speedup import alpha_curve
from model.workbook.json_file import load_demo


def test_alpha_curves_match_alpha_curve_per_tier() -> None:
    tiers = load_demo().tiers
    data = alpha_curves(tiers)
    assert [tiers[i].name for i in data.tier_index] == data.tier_names
    assert all(tiers[i].speculative != "no" for i in data.tier_index)
    assert len(data.tier_names) == sum(t.speculative != "no" for t in tiers)
    for row, i in enumerate(data.tier_index):
        one = alpha_curve(tiers[i])
        np.testing.assert_allclose(data.speedup[row], one.speedup, rtol=1e-12)
        assert data.context[row] == one.context
        assert data.break_even_alpha[row] == one.break_even_alpha


def test_never_paying_tier_has_no_break_even() -> None:
    tier = dataclasses.replace(load_demo().tiers[1], cost_model="typed", k=4, c=1.2, v=1.0)  # K c + v = 5.8 >= K + 1
    data = alpha_curves([tier])
    assert data.break_even_kind[0] == ar.NEVER
    assert np.isnan(data.break_even_alpha[0])
    assert alpha_curve(tier).break_even_alpha is None


def test_no_speculative_tier_gives_empty_curves() -> None:
    tiers = [t for t in load_demo().tiers if t.speculative == "no"]
    data = alpha_curves(tiers)
    assert data.speedup.shape == (0, data.alphas.size)
    assert data.tier_names == []


def test_break_even_fill_is_the_fill_at_alpha_star() -> None:
    fill = break_even_fill(np.array([0.5, np.nan, 0.0]), 4)
    assert np.isclose(fill[0], (0.5 + 0.25 + 0.125 + 0.0625) / 4)
    assert np.isnan(fill[1])
    assert fill[2] == 0.0
