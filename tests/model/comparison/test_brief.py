"""The brief: per fast tier in plain words, a one-line recommendation, the speed against the claim, the cost over
the standard tier and the one price to ask for; the report's first sheet, one portrait page. Where a measured
speed differs from the model's the brief goes by the measurement and says the model is doubted; standard tiers
get no recommendation; the guarantee is left to the detail sheets."""
from __future__ import annotations

from pathlib import Path

import pytest

from model.comparison import compare
from model.comparison.brief import BRIEF_LINES, DO_NOT, FOOTNOTE, TAKE, TAKE_SOME, UNDECIDED_WORDS, brief
from model.workbook.json_file import load_demo

# words an engineer reads and a manager does not
JARGON = ("acceptance length", "verify step", "roofline", "K=", "c and v (", "α", "alpha", "break-even", "in a minute",
          "rests on the modelled")


def _by_tier(wb):
    return {b.tier: b for b in brief(wb, compare(wb))}


def test_the_demo_brief_takes_one_tier_and_some_classes_of_the_others():
    wb = load_demo()
    got = _by_tier(wb)
    assert set(got) == {t.name for t in wb.tiers if t.speculative != "no"}  # the fast tiers only
    assert got["Orbital Rapid"].recommendation == TAKE and got["Orbital Rapid"].look == "gain"
    turbo = got["Northwind Turbo"]
    assert turbo.recommendation == f"{TAKE_SOME} code, json, extraction and summarisation"
    assert turbo.look == "marginal" and turbo.why == "not for prose and creative."
    assert turbo.headline == "Take it only for code, json, extraction and summarisation: not for prose and creative."
    assert turbo.cost == "$13,900 a month, 38% more than Northwind Standard ($10,100)."
    assert turbo.speed == "Not measured; modelled 1.44x over Northwind Standard; claimed 3.00x (short of it)."
    assert [label for label, _ in turbo.lines] == [label for label, _ in BRIEF_LINES if label in ("Speed", "Cost",
                                                                                                  "Ask for")]
    assert "Not confirmed that it drafts" in got["Helix Fast"].why  # speculative unknown
    for entry in got.values():
        words = " ".join([entry.headline, *(text for _, text in entry.lines)])
        assert not [j for j in JARGON if j in words], (entry.tier, words)


def test_standard_tiers_get_no_recommendation():
    wb = load_demo()
    std = wb.tiers[wb.tier_index("Northwind Standard")]
    std.speculative = "unknown"  # a price list's standard tier, not known to run plain decoding
    assert "Northwind Standard" not in _by_tier(wb)


def test_do_not_take_it_undecided_and_the_measured_speed_against_the_claim():
    wb = load_demo()
    turbo = wb.tiers[wb.tier_index("Northwind Turbo")]
    turbo.price_out, turbo.price_in = 200.0, 25.0  # ten times the price: no class pays it
    turbo.measured_speedup, turbo.measured_note = 1.5, "probed 2026-11-30 at 4K, against Northwind Standard"
    apex = wb.tiers[wb.tier_index("Apex Express")]
    apex.cost_model, apex.defaulted = "typed", "c, v"
    got = _by_tier(wb)
    assert got["Northwind Turbo"].recommendation == DO_NOT and got["Northwind Turbo"].look == "tax"
    assert got["Northwind Turbo"].speed.startswith("Measured 1.50x over Northwind Standard; claimed 3.00x (short of it)")
    assert got["Apex Express"].recommendation == UNDECIDED_WORDS
    assert "not known" in got["Apex Express"].why and got["Apex Express"].ask.startswith("First, how its fast mode")


def test_a_measured_speed_that_differs_decides_and_the_model_is_doubted():
    """'the verdict rests on the modelled speed 1.66x; the measured 2.65x differs' left the manager to choose."""
    wb = load_demo()
    i = wb.tier_index("Northwind Turbo")
    cmp = compare(wb)
    modelled, ratio = float(cmp.tiers.speedup_vs_baseline[i]), float(cmp.tiers.price_ratio[i])
    turbo = wb.tiers[i]
    turbo.measured_speedup, turbo.measured_note = round(modelled * 1.8, 2), "probed 2026-12-02 at 4K"
    got = _by_tier(wb)["Northwind Turbo"]
    assert got.recommendation == TAKE and got.why.startswith(f"measured at {modelled * 1.8:.2f}x the speed of")
    assert f"The model's {modelled:.2f}x is doubted." in got.speed
    # the price follows the measurement: its speed over the standard tier / the price ratio, on the list price
    factor = round(modelled * 1.8, 2) / ratio
    assert f"worth up to ${20 * factor:.2f}" in got.ask
    # measured below the price ratio: do not take it, whatever the model said
    turbo.measured_speedup = round(min(ratio * 0.8, modelled * 0.8), 2)
    assert _by_tier(wb)["Northwind Turbo"].recommendation == DO_NOT
    turbo.measured_speedup = round(modelled * 1.02, 2)  # agrees within 10%: the model's verdict stands, not doubted
    agreed = _by_tier(wb)["Northwind Turbo"]
    assert agreed.recommendation.startswith(TAKE_SOME) and "doubted" not in agreed.speed


def test_the_one_price_to_ask_for_in_money():
    wb = load_demo()
    cmp = compare(wb)
    i = wb.tier_index("Northwind Turbo")
    factor = float(cmp.fair.factor[i])
    assert factor == pytest.approx(float(cmp.tiers.speedup_vs_baseline[i]) / float(cmp.tiers.price_ratio[i]))
    ask = _by_tier(wb)["Northwind Turbo"].ask
    assert ask == f"The list price, $20.00 per 1M output tokens, is fair (worth up to ${20 * factor:.2f})."
    wb.tiers[i].price_out, wb.tiers[i].price_in = 40.0, 5.0  # twice the list price: the speed is not worth it
    cmp = compare(wb)
    f2 = float(cmp.fair.factor[i])
    assert f2 < 1
    assert _by_tier(wb)["Northwind Turbo"].ask == (f"${40 * f2:.2f} per 1M output tokens at most (list $40.00), and "
                                                   f"the input price {1 - f2:.0%} off.")
    for c in wb.classes:  # a range on every class: the cautious end of it is the price to ask for
        c.alpha_low, c.alpha_high = c.alpha - 0.05, c.alpha + 0.05
    low = float(compare(wb).fair.factor_low[i])
    assert 0 < low < f2 and _by_tier(wb)["Northwind Turbo"].ask.startswith(f"${40 * low:.2f} per 1M output tokens")


def test_the_brief_is_the_reports_first_sheet_in_portrait(tmp_path: Path):
    openpyxl = pytest.importorskip("openpyxl")
    from model.report.export import export_report
    export_report(load_demo(), tmp_path / "r.xlsx")
    book = openpyxl.load_workbook(tmp_path / "r.xlsx")
    ws = book.worksheets[0]
    assert ws.title == "Brief" and book.active.title == "Brief"
    text = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert "Orbital Rapid (Orbital Labs)" in text and "Take it: its speed is worth its price on every task." in text
    assert FOOTNOTE in text and not any("in a minute" in t for t in text)
    assert ws.page_setup.orientation == "portrait" and int(ws.page_setup.scale or 100) >= 82  # 11 pt prints >= 9
