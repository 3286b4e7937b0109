"""The brief: per fast tier in plain words, the recommendation, the speed against the claim, the cost
over the standard tier and what to ask for; the report's first sheet, on one printed page."""
from __future__ import annotations

from pathlib import Path

import pytest

from model.comparison.brief import DO_NOT, TAKE, TAKE_SOME, UNDECIDED_WORDS, brief
from model.comparison import compare
from model.workbook.json_file import load_demo


def _by_tier(wb):
    return {b.tier: b for b in brief(wb, compare(wb))}


def test_the_demo_brief_takes_one_tier_and_some_classes_of_the_others():
    wb = load_demo()
    got = _by_tier(wb)
    assert set(got) == {t.name for t in wb.tiers if t.speculative != "no"}  # the fast tiers only
    assert got["Orbital Rapid"].recommendation == TAKE and got["Orbital Rapid"].look == "gain"
    turbo = got["Northwind Turbo"]
    assert turbo.recommendation == f"{TAKE_SOME}: code, json, extraction and summarisation"
    assert turbo.look == "marginal" and turbo.why == "It does not pay its price on prose and creative."
    assert turbo.cost == "$13,900 a month, +38% over Northwind Standard ($10,100)."
    assert turbo.ask.startswith("A guaranteed acceptance of at least 66% on your mix")
    assert "Claimed 3.00x at 4K" in turbo.speed and "Not measured: probe it" in turbo.speed
    assert "has not confirmed" in got["Helix Fast"].why  # speculative unknown


def test_do_not_take_it_undecided_and_the_measured_speed_against_the_claim():
    wb = load_demo()
    turbo = wb.tiers[wb.tier_index("Northwind Turbo")]
    turbo.price_out, turbo.price_in = 200.0, 25.0  # ten times the price: no class pays it
    turbo.measured_speedup, turbo.measured_note = 2.9, "probed 2026-11-30 at 4K, against Northwind Standard"
    apex = wb.tiers[wb.tier_index("Apex Express")]
    apex.cost_model, apex.defaulted = "typed", "c, v"
    got = _by_tier(wb)
    assert got["Northwind Turbo"].recommendation == DO_NOT and got["Northwind Turbo"].look == "tax"
    assert "measured 2.90x (probed 2026-11-30 at 4K" in got["Northwind Turbo"].speed
    assert "it meets the claim" in got["Northwind Turbo"].speed  # 2.9 is within 5% of 3.0
    assert got["Apex Express"].recommendation == UNDECIDED_WORDS
    assert "incomplete: needs c and v" in got["Apex Express"].why


def test_the_brief_is_the_reports_first_sheet(tmp_path: Path):
    openpyxl = pytest.importorskip("openpyxl")
    from model.report.export import export_report
    export_report(load_demo(), tmp_path / "r.xlsx")
    book = openpyxl.load_workbook(tmp_path / "r.xlsx")
    ws = book.worksheets[0]
    assert ws.title == "Brief" and book.active.title == "Brief"
    text = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert "Take it" in text and "Orbital Rapid (Orbital Labs)" in text
    # fit to one page (1 is the attributes' default, which the file leaves out)
    assert ws.sheet_properties.pageSetUpPr.fitToPage and ws.page_setup.fitToHeight in (None, 1, "1")


def test_the_brief_asks_for_the_fair_price_and_where_to_open():
    wb = load_demo()
    cmp = compare(wb)
    i = wb.tier_index("Northwind Turbo")
    factor = float(cmp.fair_price_factor[i])
    # speed over the baseline / price ratio, on the list prices (20 out, 2.50 in): worked from the comparison
    assert factor == pytest.approx(float(cmp.speedup_vs_baseline[i]) / float(cmp.mix_price_ratio[i]))
    ask = _by_tier(wb)["Northwind Turbo"].ask
    assert f"worth up to ${20 * factor:.2f} out, ${2.5 * factor:.2f} in ({factor:.2f}x list) per 1M tokens" in ask
    assert "open the negotiation" not in ask  # no interval on the demo's assumed acceptance
    for c in wb.classes:  # a range on every class gives a pessimistic end to open at
        c.alpha_low, c.alpha_high = c.alpha - 0.05, c.alpha + 0.05
    cmp = compare(wb)
    low = float(cmp.fair_price_factor_low[i])
    assert 0 < low < float(cmp.fair_price_factor[i])
    assert f"open the negotiation at ${20 * low:.2f} out" in _by_tier(wb)["Northwind Turbo"].ask
    # a range typed beside an assumed acceptance is not a measurement: the brief called it "the measured range"
    assert _by_tier(wb)["Northwind Turbo"].ask.endswith("the cautious end of the range assumed for the acceptance.")
    for c in wb.classes:
        c.alpha_source = "probed"
    assert _by_tier(wb)["Northwind Turbo"].ask.endswith("the cautious end of the measured range.")


def test_the_verdict_and_the_fair_price_say_they_rest_on_the_modelled_speed_when_a_measured_one_differs():
    wb = load_demo()
    turbo = wb.tiers[wb.tier_index("Northwind Turbo")]
    before = _by_tier(wb)["Northwind Turbo"]
    assert "modelled speed" not in before.why and "modelled speed" not in before.ask  # nothing measured
    cmp = compare(wb)
    modelled = float(cmp.speedup_vs_baseline[wb.tier_index("Northwind Turbo")])
    turbo.measured_speedup, turbo.measured_note = round(modelled * 1.8, 2), "probed 2026-12-02 at 4K"
    got = _by_tier(wb)["Northwind Turbo"]
    words = f"the modelled speed {modelled:.2f}x; the measured {modelled * 1.8:.2f}x differs: see Speed"
    assert f"The verdict rests on {words}." in got.why
    assert f"per 1M tokens (on {words})" in got.ask
    turbo.measured_speedup = round(modelled * 1.02, 2)  # agrees within 10%: nothing to say
    agreed = _by_tier(wb)["Northwind Turbo"]
    assert "modelled speed" not in agreed.why and "modelled speed" not in agreed.ask
