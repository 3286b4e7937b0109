"""The comparison over acceptance profiles and lengths: E from the profile, break-evens in tokens per step."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from model.comparison.records import pair_records
from model.mechanics import arithmetic as ar
from model.mechanics import roofline as rf
from model.comparison import compare
from model.workbook.rows import Override, TaskClass, Tier, Workbook

VLLM_NGRAM = (0.77, 0.45 / 0.77, 0.24 / 0.45)  # conditional rates of vLLM's example, cumulative 0.77, 0.45, 0.24


def book(classes: list[TaskClass], overrides: list[Override] | None = None) -> Workbook:
    return Workbook(
        tiers=[Tier("Std", "V", "no", price_out=10, price_in=1),
               Tier("Fast3", "V", "yes", k=3, c=0.1, v=1.0, baseline="Std", price_out=14, price_in=1),
               Tier("Fast5", "V", "yes", k=5, c=0.05, v=1.1, baseline="Std", price_out=20, price_in=1)],
        classes=classes, overrides=overrides or [])


def test_a_flat_profile_gives_the_alpha_results():
    alphas = [0.8, 0.55]
    plain = compare(book([TaskClass("code", 3e6, 1e6, 4096, a) for a in alphas[:1]]
                         + [TaskClass("prose", 1e6, 1e6, 4096, alphas[1])]))
    # the flat profile measured at 5 positions covers both tiers' K, so nothing is extrapolated
    flat = compare(book([TaskClass("code", 3e6, 1e6, 4096, 0.8, profile=(0.8,) * 5),
                         TaskClass("prose", 1e6, 1e6, 4096, 0.55, profile=(0.55,) * 5)]))
    for name in ("cells.speedup", "cells.tokens_per_stretch", "cells.trailer_fill", "cells.cost_factor",
                 "tiers.mix_speedup", "tiers.speedup_vs_baseline"):
        assert np.allclose(flat.array(name), plain.array(name), rtol=1e-12, atol=0, equal_nan=True), name
    for name in ("cells.verdict", "cells.value_verdict", "tiers.verdict", "tiers.value_verdict"):
        assert (flat.array(name) == plain.array(name)).all(), name
    assert not flat.cells.extrapolated.any()
    # the optimal K searches up to K max (16): beyond the 5 measured positions the rule holds the flat rate
    assert (flat.cells.optimal_k == plain.cells.optimal_k).all()
    assert np.allclose(flat.cells.optimal_speedup, plain.cells.optimal_speedup, rtol=1e-12)
    assert (flat.cells.optimal_k_extrapolated[1:] == (plain.cells.optimal_k[1:] > 5)).all()


def test_the_vllm_profile_on_its_own_k_and_beyond():
    cmp = compare(book([TaskClass("code", 1e6, 0, 4096, profile=VLLM_NGRAM, alpha=0.5)]))
    rec = {(r["tier"], r["task_class"]): r for r in pair_records(cmp)}
    at3, at5 = rec[("Fast3", "code")], rec[("Fast5", "code")]
    assert at3["acceptance_kind"] == "profile" and at3["profile"] == pytest.approx(list(VLLM_NGRAM))
    assert at3["mean_acceptance_length"] == pytest.approx(2.46, rel=1e-14) and not at3["extrapolated"]
    assert at3["speedup"] == pytest.approx(2.46 / 1.3, rel=1e-14)
    # E* = K c + v, tokens per step, and the alpha of the i.i.d. model does not apply
    assert at3["break_even_length"] == pytest.approx(1.3) and at3["break_even_alpha"] is None
    assert "does not apply" in at3["break_even_alpha_note"] and at3["margin"] is None
    assert at3["acceptance_measured_k"] == 3
    # K = 5: positions 4 and 5 extrapolated by the geometric rule, fitted by hand:
    # log p at x = 1, 2, 3 -> slope = (log p3 - log p1) / 2 (three points, x centred on 2)
    p = np.array(VLLM_NGRAM)
    y = np.log(p)
    slope = ((-1) * (y[0] - y.mean()) + 0 + 1 * (y[2] - y.mean())) / 2.0
    d = min(np.exp(slope), 1.0)
    p4, p5 = p[2] * d, p[2] * d * d
    e5 = 1 + 0.77 + 0.45 + 0.24 + 0.24 * p4 + 0.24 * p4 * p5
    assert at5["mean_acceptance_length"] == pytest.approx(e5, rel=1e-12) and at5["extrapolated"]
    assert at5["speedup"] == pytest.approx(e5 / (5 * 0.05 + 1.1), rel=1e-12)
    # the price: the tier is worth it where E reaches the price's E, both in tokens per step
    for r in (at3, at5):
        assert r["price_break_even_alpha"] is None
        assert (r["value_verdict"] == "worth the premium") == (r["mean_acceptance_length"] >= r["price_break_even_length"])
    assert rec[("Std", "code")]["extrapolated"] is False and rec[("Std", "code")]["break_even_length"] is None


def test_a_length_at_its_k_and_carried_to_another():
    cmp = compare(book([TaskClass("prose", 1e6, 0, 4096, acceptance_length=2.46, acceptance_length_k=3, alpha=0.1)]))
    rec = {(r["tier"], r["task_class"]): r for r in pair_records(cmp)}
    assert rec[("Fast3", "prose")]["acceptance_kind"] == "length"
    assert rec[("Fast3", "prose")]["mean_acceptance_length"] == 2.46 and not rec[("Fast3", "prose")]["extrapolated"]
    alpha = float(ar.mean_acceptance_length_to_alpha(2.46, 3).alpha)
    assert rec[("Fast5", "prose")]["mean_acceptance_length"] == pytest.approx(float(ar.expected_tokens(alpha, 5)), rel=1e-12)
    assert rec[("Fast5", "prose")]["extrapolated"] and rec[("Fast5", "prose")]["profile"] is None


def test_an_override_profile_applies_to_its_tier_only():
    cmp = compare(book([TaskClass("code", 1e6, 0, 4096, 0.6)],
                       [Override("Fast5", "code", 0.6, "measured", profile=(0.9, 0.8, 0.7, 0.6, 0.5))]))
    rec = {(r["tier"], r["task_class"]): r for r in pair_records(cmp)}
    assert rec[("Fast3", "code")]["acceptance_kind"] == "alpha"
    assert rec[("Fast3", "code")]["mean_acceptance_length"] == pytest.approx(float(ar.expected_tokens(0.6, 3)))
    e = 1 + 0.9 + 0.72 + 0.504 + 0.3024 + 0.1512
    assert rec[("Fast5", "code")]["mean_acceptance_length"] == pytest.approx(e)
    assert rec[("Fast3", "code")]["break_even_alpha"] is not None


def test_a_roofline_tree_tier_verifies_its_tree():
    tree = Tier("Tree", "V", "yes", k=6, cost_model="roofline", gpu="H100 SXM", pair="Llama 8B -> 70B", batch=32,
                price_out=20, tree_size=64)
    chain = dataclasses.replace(tree, name="Chain", tree_size=None)
    cmp = compare(Workbook(tiers=[tree, chain], classes=[TaskClass("code", 1e6, 0, 4096, 0.8)]))
    c, v = rf.tree_cost_ratios(rf.PAIRS["Llama 8B -> 70B"], rf.GPUS["H100 SXM"], 64, 6, 4096, 32)
    assert cmp.cells.v[0, 0] == pytest.approx(float(v), rel=1e-12) and cmp.cells.c[0, 0] == pytest.approx(float(c), rel=1e-12)
    assert cmp.cells.v[0, 0] > 1.5 * cmp.cells.v[1, 0]  # 64 x 32 query tokens: the tree's pass is compute-bound
    assert pair_records(cmp)[0]["break_even_length"] == pytest.approx(6 * float(c) + float(v), rel=1e-12)


def test_position_rates_follow_each_cells_own_profile():
    # extended profiles are remembered by their measured rates and K: another profile (of the same length), another
    # K or another cell must not get a remembered one; what is handed out is read-only, so no caller can change it
    wb = Workbook(tiers=[Tier(name="T", k=4)],
                  classes=[TaskClass(name="a", alpha=0.8, profile=(0.9, 0.8)),
                           TaskClass(name="b", alpha=0.5, profile=(0.5, 0.4)), TaskClass(name="c", alpha=0.6)])
    grid = compare(wb).cells.acceptance
    for j, measured in ((0, [0.9, 0.8]), (1, [0.5, 0.4])):
        for k in (2, 4, 6):
            rates = grid.position_rates(0, j, k)
            ext, beyond = ar.extend_profile(np.array(measured), k, "geometric")
            assert np.array_equal(rates.conditional, ext) and np.array_equal(rates.extrapolated, beyond)
            assert np.allclose(rates.cumulative, np.cumprod(ext), rtol=0, atol=0) and rates.measured == 2
            with pytest.raises(ValueError):
                rates.cumulative[0] = 0.0
    assert grid.position_rates(0, 2, 4) is None
    wb.classes[0].profile = (0.95, 0.8)
    assert compare(wb).cells.acceptance.position_rates(0, 0, 4).conditional[0] == 0.95
