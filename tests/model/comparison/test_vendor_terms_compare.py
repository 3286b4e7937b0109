"""A vendor's terms in the comparison: prices by band and cached input, the downgraded share in the mix and the bill,
the SLA beside the verdicts (docs/design/vendor-terms.md). Expected numbers are worked out here from the formulas,
not read back from compare()."""
from __future__ import annotations

import dataclasses
import io
import json
import math
from types import SimpleNamespace

import pytest

from commands.calc_compare import run_compare
from model.comparison.records import tier_records
from model.comparison import compare
from model.workbook.json_file import save_workbook
from model.workbook.rows import Settings, TaskClass, Tier, Workbook


def _workbook(**fast_terms) -> Workbook:
    standard = Tier(name="Standard", speculative="no", price_in=5.0, price_out=25.0)
    fast = Tier(name="Fast", speculative="yes", k=4, c=0.05, v=1.1, price_in=10.0, price_out=50.0,
                baseline="Standard", **fast_terms)
    classes = [TaskClass(name="chat", tokens_out=2e6, tokens_in=8e6, context=8_000, alpha=0.8),
               TaskClass(name="docs", tokens_out=1e6, tokens_in=30e6, context=300_000, alpha=0.7)]
    return Workbook(tiers=[standard, fast], classes=classes, settings=Settings())


def test_a_tier_without_terms_prices_as_before():
    wb = _workbook()
    cmp = compare(wb)
    expected = (2e6 * 50 + 8e6 * 10 + 1e6 * 50 + 30e6 * 10) / 1e6
    assert cmp.tiers.monthly_cost[1] == pytest.approx(expected)
    assert cmp.tiers.mix_speedup[1] == cmp.terms.mix_speedup_fast[1] and math.isnan(cmp.terms.downgraded_share[1])
    assert tier_records(cmp)[1]["downgraded_share"] is None and tier_records(cmp)[1]["sla"] is None


def test_bands_and_cached_input_price_each_class_by_its_share():
    terms = dict(price_cached_in=1.0, band_threshold=200_000, price_in_long=20.0, price_out_long=75.0,
                 price_cached_in_long=2.0)
    wb = _workbook(**terms)
    wb.classes[0].cached_share = 0.5  # chat: short context, half its input cached
    wb.classes[1].cached_share = 0.25  # docs: past the threshold by its context
    cmp = compare(wb)
    chat = 2e6 * 50 + 8e6 * (0.5 * 10 + 0.5 * 1.0)
    docs = 1e6 * 75 + 30e6 * (0.75 * 20 + 0.25 * 2.0)
    assert cmp.tiers.monthly_cost[1] == pytest.approx((chat + docs) / 1e6)
    # the baseline has no bands and no cached price: cached input at its input price
    base = (2e6 * 25 + 8e6 * 5 + 1e6 * 25 + 30e6 * 5) / 1e6
    assert cmp.tiers.monthly_cost[0] == pytest.approx(base)
    assert cmp.tiers.price_ratio[1] == pytest.approx((chat + docs) / 1e6 / base)
    assert cmp.cells.price_ratio[1, 1] == pytest.approx(docs / (1e6 * 25 + 30e6 * 5))
    # a share past the band given on the class stands for its context
    wb.classes[0].long_share = 0.2
    chat_mixed = 0.8 * chat + 0.2 * (2e6 * 75 + 8e6 * (0.5 * 20 + 0.5 * 2.0))
    assert compare(wb).tiers.monthly_cost[1] == pytest.approx((chat_mixed + docs) / 1e6)


def test_a_dearer_long_band_turns_the_value_verdict():
    cheap = compare(_workbook())
    dear = compare(_workbook(band_threshold=200_000, price_in_long=40.0, price_out_long=200.0))
    assert tier_records(cheap)[1]["value_verdict"] == "worth the premium"
    assert dear.tiers.price_ratio[1] > cheap.tiers.price_ratio[1]
    assert tier_records(dear)[1]["value_verdict"] == "not worth it"


def test_the_downgraded_share_slows_the_mix_and_bills_at_the_standard_price():
    fast_only = compare(_workbook())
    s, d = float(fast_only.tiers.mix_speedup[1]), 0.25
    cmp = compare(_workbook(downgraded_share=d, downgraded_low=0.14, downgraded_high=0.4, downgraded_requests=48))
    assert cmp.terms.mix_speedup_fast[1] == pytest.approx(s)
    assert cmp.tiers.mix_speedup[1] == pytest.approx(1.0 / ((1 - d) / s + d / 1.0))  # the standard tier runs at 1x
    assert cmp.tiers.monthly_cost[1] == pytest.approx((1 - d) * fast_only.tiers.monthly_cost[1] + d * fast_only.tiers.monthly_cost[0])
    record = tier_records(cmp)[1]
    assert record["downgraded_share"] == d and record["downgraded_interval"] == [0.14, 0.4]
    assert record["mix_speedup_served_fast"] == pytest.approx(s)
    # the speed over the baseline and the claim: as served, and on the fast requests
    assert record["speedup_vs_baseline"] == pytest.approx(cmp.tiers.mix_speedup[1])


def test_a_downgrade_large_enough_turns_worth_it_into_not_worth_it():
    wb = _workbook()
    wb.tiers[1].price_out, wb.tiers[1].price_in = 58.0, 11.6  # 2.32x the baseline's, the mix runs about 2.4x
    before = tier_records(compare(wb))[1]
    wb.tiers[1].downgraded_share = 0.3
    after = tier_records(compare(wb))[1]
    assert before["value_verdict"] == "worth the premium" and after["value_verdict"] == "not worth it"
    # the acceptance to guarantee is the one the fast requests need: higher with downgrades, never lower
    assert (after["price_break_even_alpha"] or 1.0) > before["price_break_even_alpha"]
    # the acceptance the workload runs like is still read from the fast requests
    assert after["effective_alpha"] == pytest.approx(before["effective_alpha"])


def test_the_sla_is_shown_beside_the_verdicts(tmp_path):
    wb = _workbook(sla_tokens_per_s=80.0, sla_share=0.99, sla_measured_share=0.75, sla_share_low=0.51,
                   sla_share_high=0.9, sla_requests=20, downgraded_share=0.25, price_source="list prices as read 2026-12-06")
    cmp = compare(wb)
    record = tier_records(cmp)[1]["sla"]
    assert record["verdict"] == "breached" and record["promised_share"] == 0.99 and record["share_interval"] == [0.51, 0.9]
    path = tmp_path / "wb.json"
    save_workbook(wb, path)
    out = io.StringIO()
    run_compare(SimpleNamespace(workbook=str(path), json=False, csv=False), out)
    text = out.getvalue()
    assert "SLA: 75% (51\u201390%) of requests above 80 tok/s over 20 requests against 99% promised: breached" in text
    assert "25% of fast requests served at standard speed (typed)" in text and "as read 2026-12-06" in text
    # the SLA's verdict beside the tier's, in the table
    head = next(line for line in text.splitlines() if line.startswith("tier") and "value" in line)
    fast = next(line for line in text.splitlines() if line.startswith("Fast "))
    assert head.rstrip().endswith("SLA") and fast.rstrip().endswith("breached")
    out = io.StringIO()
    run_compare(SimpleNamespace(workbook=str(path), json=True, csv=False), out)
    tier = json.loads(out.getvalue())["tiers"][1]
    assert tier["downgraded_share"] == 0.25 and tier["sla"]["verdict"] == "breached"


def test_terms_on_the_baseline_itself_price_its_traffic_too():
    wb = _workbook()
    wb.tiers[0] = dataclasses.replace(wb.tiers[0], price_cached_in=0.5)
    wb.classes[0].cached_share = 1.0
    cmp = compare(wb)
    assert cmp.tiers.monthly_cost[0] == pytest.approx((2e6 * 25 + 8e6 * 0.5 + 1e6 * 25 + 30e6 * 5) / 1e6)


def test_the_brief_says_the_downgrade_the_sla_and_the_prices_date():
    from model.comparison.brief import brief

    wb = _workbook(downgraded_share=0.25, sla_tokens_per_s=80.0, sla_share=0.99, sla_measured_share=0.75,
                   sla_share_low=0.51, sla_share_high=0.9, sla_requests=20, price_source="list prices as read 2026-12-06")
    entry = next(b for b in brief(wb, compare(wb)) if b.tier == "Fast")
    # each a line of its own under Speed and Cost (model/comparison/brief.py's BRIEF_LINES), where the tier has it
    assert entry.line("As served").startswith("25% of fast requests at standard speed, billed at the standard price")
    assert entry.line("SLA") == ("75% (51\u201390%) of requests above 80 tok/s over 20 requests against 99% promised: "
                                 "breached.")
    assert "as read 2026-12-06" in entry.line("Prices")
    labels = [label for label, _ in entry.lines]
    assert labels == ["Speed", "As served", "SLA", "Cost", "Prices", "Ask for"]
    plain = next(b for b in brief(_workbook(), compare(_workbook())) if b.tier == "Fast")
    assert [label for label, _ in plain.lines] == ["Speed", "Cost", "Ask for"]


def test_the_arrays_say_what_the_one_rule_says_of_every_class():
    from model.comparison.terms import long_shares
    from model.workbook.vendor_terms import class_long_share

    tiers = [Tier(), Tier(band_threshold=200_000, price_in_long=1.0, price_out_long=1.0),
             Tier(band_threshold=8_000, price_in_long=1.0, price_out_long=1.0)]
    classes = [TaskClass(context=8_000), TaskClass(context=300_000), TaskClass(context=4_000, long_share=0.3)]
    assert long_shares(tiers, classes).tolist() == [[class_long_share(c, t) for c in classes] for t in tiers]


def test_a_measured_speedup_is_said_as_served_too():
    from model.comparison.terms import terms_words

    wb = _workbook(downgraded_share=0.25, measured_speedup=2.5)
    words = " ".join(terms_words(compare(wb), 1))
    assert "measured 2.50x over the baseline on the requests served fast, " in words
    assert f"{1 / (0.75 / 2.5 + 0.25):.2f}x as served" in words


def test_the_briefs_as_served_line_goes_by_the_measured_speed_and_never_prints_a_dash():
    # a closed vendor's fast mode: mechanics nobody gave, its speed measured by a probe; the line read
    # "your mix runs – (– on the fast ones)"
    from model.comparison.brief import brief

    wb = _workbook(downgraded_share=0.25, measured_speedup=2.5)
    wb.tiers[1].defaulted = "speculative, k, c, v"
    line = next(b for b in brief(wb, compare(wb)) if b.tier == "Fast").line("As served")
    assert "\u2013" not in line and f"{1 / (0.75 / 2.5 + 0.25):.2f}x" in line and "2.50x on the fast ones" in line
    modelled = compare(_workbook(downgraded_share=0.25))
    line = next(b for b in brief(_workbook(downgraded_share=0.25), modelled) if b.tier == "Fast").line("As served")
    assert f"{modelled.tiers.mix_speedup[1]:.2f}x ({modelled.terms.mix_speedup_fast[1]:.2f}x on the fast ones)" in line
