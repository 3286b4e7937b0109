import numpy as np
import pytest

from model.comparison.records import pair_records, tier_records
from model.mechanics import arithmetic as ar
from model.comparison import compare
from model.curves.speedup import alpha_curve, context_curves
from model.workbook.rows import Override, TaskClass, Tier, Workbook
from model.workbook.json_file import load_demo


def wb_two() -> Workbook:
    return Workbook(
        tiers=[Tier("Std", "V", "no", price_out=10, price_in=1),
               Tier("Fast", "V", "yes", k=4, c=0.1, v=1.0, baseline="Std", claimed_speedup=2.5, price_out=20, price_in=1),
               Tier("Maybe", "V", "unknown", k=3, c=0.05, v=1.0, baseline="Std", price_out=15, price_in=1)],
        classes=[TaskClass("code", 3e6, 1e6, 4096, 0.8), TaskClass("prose", 1e6, 1e6, 4096, 0.4)],
        overrides=[Override("Maybe", "prose", 0.2, "measured")],
    )


def test_pairs_follow_the_arithmetic():
    cmp = compare(wb_two())
    fast = cmp.tier_names.index("Fast")
    for j, alpha in enumerate([0.8, 0.4]):
        assert cmp.cells.speedup[fast, j] == pytest.approx(float(ar.speedup(alpha, 4, 0.1, 1.0)))
        assert cmp.cells.trailer_fill[fast, j] == pytest.approx(float(ar.trailer_fill(alpha, 4)))
    be = float(ar.break_even(4, 0.1, 1.0).alpha)
    assert cmp.cells.break_even_alpha[fast, 0] == pytest.approx(be)
    assert cmp.cells.margin[fast, 1] == pytest.approx(0.4 - be)
    assert cmp.cells.optimal_k[fast, 0] == int(ar.optimal_k(0.8, 0.1, 1.0, 16)[0])


def test_non_speculative_tier_has_no_break_even():
    recs = {(r["tier"], r["task_class"]): r for r in pair_records(compare(wb_two()))}
    std = recs[("Std", "code")]
    assert std["speedup"] == 1.0 and std["break_even_alpha"] is None and std["verdict"] == "n/a" and std["break_even"] == "n/a"


def test_unknown_is_computed_and_flagged():
    cmp = compare(wb_two())
    recs = {(r["tier"], r["task_class"]): r for r in pair_records(cmp)}
    maybe = recs[("Maybe", "prose")]
    assert maybe["unconfirmed"] is True and maybe["alpha"] == 0.2 and "override" in maybe["alpha_source"]
    assert maybe["speedup"] == pytest.approx(float(ar.speedup(0.2, 3, 0.05, 1.0)))
    assert all(r["unconfirmed"] for r in tier_records(cmp) if r["tier"] == "Maybe")


def test_tier_summary():
    cmp = compare(wb_two())
    t = {r["tier"]: r for r in tier_records(cmp)}
    s_code, s_prose = (float(ar.speedup(a, 4, 0.1, 1.0)) for a in (0.8, 0.4))
    # 3M tokens of code and 1M of prose: time adds
    assert t["Fast"]["mix_speedup"] == pytest.approx(4 / (3 / s_code + 1 / s_prose))
    assert t["Std"]["monthly_cost"] == pytest.approx((4e6 * 10 + 2e6 * 1) / 1e6)
    assert t["Fast"]["premium"] == pytest.approx((4 * 20 + 2) / (4 * 10 + 2) - 1)
    assert t["Fast"]["price_per_speedup"] == pytest.approx(t["Fast"]["monthly_cost"] / t["Fast"]["mix_speedup"])
    alpha_claim = t["Fast"]["claim_implied_alpha"]
    assert float(ar.speedup(alpha_claim, 4, 0.1, 1.0)) == pytest.approx(2.5)
    assert t["Fast"]["claim_holds"] is (t["Fast"]["mix_speedup"] >= 2.5 * 0.95)
    assert t["Std"]["claim_implied_alpha"] is None and t["Std"]["premium"] is None


def test_verdicts():
    wb = wb_two()
    wb.classes[1].alpha = 0.0
    cmp = compare(wb)
    recs = {(r["tier"], r["task_class"]): r for r in pair_records(cmp)}
    assert recs[("Fast", "code")]["verdict"] == "gain"
    assert recs[("Fast", "prose")]["verdict"] == "tax"  # alpha 0: K drafts paid for, nothing carried
    # a setting that never pays has no break-even and no margin, and says so
    wb.tiers[1].c = 2.0
    r = {(r["tier"], r["task_class"]): r for r in pair_records(compare(wb))}[("Fast", "code")]
    assert r["break_even"] == "never" and r["break_even_alpha"] is None and r["margin"] is None and r["verdict"] == "tax"


def test_roofline_context_lowers_speedup():
    tier = Tier("R", cost_model="roofline", pair="Llama 8B -> 70B", gpu="H100 SXM", k=5, batch=8)
    curves = context_curves(tier, np.array([0.8]))
    assert curves.shape == (1, 57)
    assert np.all(np.diff(curves[0]) < 0)  # the gain shrinks as the context grows
    wb = Workbook([tier], [TaskClass("short", 1, 0, 2048, 0.8), TaskClass("long", 1, 0, 131072, 0.8)])
    cmp = compare(wb)
    assert cmp.cells.c[0, 1] > cmp.cells.c[0, 0] and cmp.cells.speedup[0, 1] < cmp.cells.speedup[0, 0]


def test_alpha_curve_crosses_one_at_break_even():
    tier = load_demo().tiers[1]
    curve = alpha_curve(tier)
    be = curve.break_even_alpha
    assert np.interp(be, curve.alphas, curve.speedup) == pytest.approx(1.0, abs=0.01)


def test_empty_workbook():
    cmp = compare(Workbook())
    assert pair_records(cmp) == [] and tier_records(cmp) == []
    cmp = compare(Workbook(tiers=[Tier("A")]))
    assert tier_records(cmp)[0]["tier"] == "A"


def test_large_workbook_shapes():
    from tests.bench.workbooks import large_workbook
    wb = large_workbook(100, 30)
    cmp = compare(wb)
    assert cmp.cells.speedup.shape == (100, 30)
    assert np.isfinite(cmp.cells.speedup).all()


def test_tier_without_task_classes_has_no_verdict_and_no_claim_outcome():
    # a new workbook with a tier but no classes yet: no workload, so nothing can be judged
    cmp = compare(Workbook(tiers=[Tier("A", claimed_speedup=2.0)]))
    rec = tier_records(cmp)[0]
    assert rec["mix_speedup"] is None
    assert rec["verdict"] == "n/a" and rec["claim_holds"] is None


def test_optimal_k_is_never_worse_than_the_tiers_own_k():
    wb = Workbook([Tier("Wide", k=32, c=0.01, v=1.0)], [TaskClass("json", 1, 0, 4096, 0.97)])
    assert wb.settings.k_max < 32
    cmp = compare(wb)
    assert cmp.cells.optimal_speedup[0, 0] >= cmp.cells.speedup[0, 0] - 1e-12


def test_optimal_k_search_stops_at_k_max_or_the_tiers_own_k():
    # before: every tier searched up to the largest K of any tier, so with K max = 2 Orbital Rapid
    # (K = 4) was told its best K was 6, a K only Apex Express uses
    wb = load_demo()
    wb.settings.k_max = 2
    cmp = compare(wb)
    for i, tier in enumerate(wb.tiers):
        if tier.speculative != "no":
            assert cmp.cells.optimal_k[i].max() <= max(2, tier.k), tier.name
            assert (cmp.cells.optimal_speedup[i] >= cmp.cells.speedup[i] - 1e-12).all(), tier.name
