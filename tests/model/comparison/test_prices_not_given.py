"""A tier whose list prices nobody typed (Add row, a paste, a price list without them) has no bill: compare() makes
no monthly cost, premium, cost per 1x, price ratio or fair price from the placeholder 0, for it or for a tier
priced against it; a price typed as 0 (a free tier) is a price (docs/design/verdicts.md#prices-nobody-gave)."""
from __future__ import annotations

import math

import numpy as np

from model.comparison import compare
from model.comparison.records import pair_records, tier_records
from tests.excel_cases import prices_not_given


def _at(cmp, name):
    return cmp.tier_names.index(name)


def test_no_bill_or_price_figure_from_prices_nobody_typed():
    wb = prices_not_given()
    cmp = compare(wb)
    for name in ("Zephyr Standard", "Zephyr Fast", "Helix Standard"):
        i = _at(cmp, name)
        assert cmp.prices_not_given(i) == "prices not given"
        assert math.isnan(cmp.tiers.monthly_cost[i]) and math.isnan(cmp.tiers.price_per_speedup[i]), name
        assert np.isnan(cmp.cells.class_cost[i]).all() and math.isnan(cmp.terms.monthly_cost_fast[i])
    # priced itself, against a baseline nobody priced: its own bill stands, nothing over the baseline's does
    helix_fast = _at(cmp, "Helix Fast")
    assert cmp.tiers.monthly_cost[helix_fast] > 0 and not cmp.prices_not_given(helix_fast)
    for i in (helix_fast, _at(cmp, "Zephyr Fast")):
        assert math.isnan(cmp.tiers.premium[i]) and math.isnan(cmp.tiers.price_ratio[i])
        assert np.isnan(cmp.cells.price_ratio[i]).all() and math.isnan(cmp.fair.factor[i])
        assert math.isnan(cmp.fair.price_out[i]) and "prices not given" in cmp.value_withheld(i)
    # its speed stands (the speed does not depend on a price)
    assert math.isfinite(cmp.tiers.mix_speedup[_at(cmp, "Zephyr Fast")])


def test_a_price_typed_as_zero_is_a_free_tier_not_a_missing_one():
    cmp = compare(prices_not_given())
    free, paid = _at(cmp, "Zephyr Free"), _at(cmp, "Zephyr Paid")
    assert not cmp.prices_not_given(free) and cmp.tiers.monthly_cost[free] == 0.0
    assert cmp.tiers.price_ratio[paid] == math.inf and cmp.tiers.monthly_cost[paid] > 0  # any price over a free one


def test_the_json_records_say_not_given_with_null_figures():
    cmp = compare(prices_not_given())
    tiers = {r["tier"]: r for r in tier_records(cmp)}
    for name in ("Zephyr Standard", "Zephyr Fast", "Helix Standard"):
        r = tiers[name]
        assert r["prices_not_given"] is True
        assert r["monthly_cost"] is None and r["price_per_speedup"] is None and r["monthly_cost_served_fast"] is None
    r = tiers["Helix Fast"]
    assert r["prices_not_given"] is False and r["premium"] is None and r["price_ratio"] is None
    assert r["fair_price_factor"] is None and r["fair_price_out"] is None
    assert tiers["Zephyr Free"]["prices_not_given"] is False and tiers["Zephyr Free"]["monthly_cost"] == 0.0
    assert all(p["price_ratio"] is None for p in pair_records(cmp) if p["tier"] in ("Helix Fast", "Zephyr Fast"))


def test_the_brief_asks_for_the_prices_not_for_more_measuring():
    """It read 'undecided: measure more' for a tier whose prices (or its baseline's) nobody typed."""
    from model.comparison.brief import NOT_YET, brief

    wb = prices_not_given()
    entries = {e.tier: e for e in brief(wb, compare(wb))}
    for name, why in (("Zephyr Fast", "its prices not given"), ("Helix Fast", "baseline Helix Standard: prices not given")):
        assert entries[name].recommendation == NOT_YET and why in entries[name].why, entries[name]
        assert "measure more" not in entries[name].recommendation
