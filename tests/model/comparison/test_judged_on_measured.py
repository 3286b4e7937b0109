"""A closed vendor's fast tier (mechanics nobody gave) whose speed a probe measured is judged on that speed
(docs/design/vendor-terms.md#judged-on-the-measured-speed). The expected numbers are worked out here from the
formulas: as served 1 / ((1 - d) / M + d), price ratio from the list prices, fair factor (vs - d) / ((1 - d) r)."""
from __future__ import annotations

import io
import json
import math
from types import SimpleNamespace

import pytest

from commands.calc_compare import comparison_text, run_compare
from model.acceptance.interval import z_quantile
from model.comparison import compare
from model.comparison.records import tier_records
from model.workbook.json_file import save_workbook
from model.workbook.rows import Settings, TaskClass, Tier, Workbook
from model.workbook.validation import workbook_problems


def _closed(**fast: object) -> Workbook:
    standard = Tier(name="Standard", speculative="no", price_in=5.0, price_out=25.0)
    terms = dict(measured_speedup=2.2, measured_speedup_low=2.0, measured_speedup_high=2.4,
                 measured_speedup_confidence=0.95, measured_note="probed today", downgraded_share=0.1,
                 price_in=30.0, price_out=150.0)
    terms.update(fast)
    tier = Tier(name="Fast", speculative="unknown", defaulted="speculative, k, c, v",
                baseline="Standard", claimed_speedup=2.5, **terms)
    classes = [TaskClass(name="chat", tokens_out=2e6, tokens_in=8e6, alpha=0.8),
               TaskClass(name="docs", tokens_out=1e6, tokens_in=3e6, alpha=0.7)]
    return Workbook(tiers=[standard, tier], classes=classes, settings=Settings())


def _served(m: float, d: float) -> float:
    return 1.0 / ((1.0 - d) / m + d)


def test_a_measured_closed_tier_gets_its_mix_verdicts_and_fair_price_from_the_measured_speed():
    wb = _closed()
    cmp = compare(wb)
    assert cmp.judged_on_measured(1) and cmp.tier_made_up(1) == "" and cmp.made_up(1) == "speculative unknown"
    assert cmp.terms.mix_speedup_fast[1] == pytest.approx(2.2)
    assert cmp.tiers.mix_speedup[1] == pytest.approx(_served(2.2, 0.1))
    # the interval: the measured ends (at 95%, the workbook's confidence) with the share's, the wider way round
    assert cmp.tiers.mix_speedup_low[1] == pytest.approx(_served(2.0, 0.1))
    assert cmp.tiers.mix_speedup_high[1] == pytest.approx(_served(2.4, 0.1))
    fast_cost = (2e6 * 150 + 8e6 * 30 + 1e6 * 150 + 3e6 * 30) / 1e6
    base_cost = (2e6 * 25 + 8e6 * 5 + 1e6 * 25 + 3e6 * 5) / 1e6
    r = fast_cost / base_cost
    assert cmp.tiers.price_ratio[1] == pytest.approx(0.9 * r + 0.1)
    rec = tier_records(cmp)[1]
    assert rec["value_verdict"] == "not worth it" and rec["verdict"] == "gain" and rec["incomplete"] is None
    assert rec["judged_on_measured"] is True and rec["mechanics_not_given"] == "speculative unknown"
    assert rec["fair_price_factor"] == pytest.approx((_served(2.2, 0.1) - 0.1) / (0.9 * r))
    assert rec["fair_price_factor_low"] == pytest.approx((_served(2.0, 0.1) - 0.1) / (0.9 * r))
    assert rec["claim_holds"] is False  # 2.2 measured on the fast ones against 2.5 claimed
    # nothing modelled from the mechanics nobody gave
    assert rec["price_break_even_alpha"] is None and rec["effective_alpha"] is None
    assert rec["guarantee_length"] is None and rec["claim_implied_alpha"] is None
    assert all(math.isnan(x) for x in cmp.cells.speedup[1]) and rec["modelled_speedup"] is None


def test_a_cheap_enough_measured_tier_is_worth_it_and_a_straddling_one_undecided():
    cheap = compare(_closed(price_in=7.0, price_out=35.0, downgraded_share=None))
    assert tier_records(cheap)[1]["value_verdict"] == "worth the premium"
    # price ratio 2.2 sits inside 2.0-2.4: the interval reaches both sides
    straddle = compare(_closed(price_in=11.0, price_out=55.0, downgraded_share=None))
    assert straddle.tiers.price_ratio[1] == pytest.approx(2.2)
    assert tier_records(straddle)[1]["value_verdict"] == "undecided"


def test_the_interval_is_carried_to_the_workbooks_confidence():
    wb = _closed(downgraded_share=None)
    wb.settings.confidence = 0.80
    cmp = compare(wb)
    scale = float(z_quantile(0.80)) / float(z_quantile(0.95))
    assert cmp.tiers.mix_speedup_low[1] == pytest.approx(2.2 * (2.0 / 2.2) ** scale)
    assert cmp.tiers.mix_speedup_high[1] == pytest.approx(2.2 * (2.4 / 2.2) ** scale)


def test_without_a_measured_speed_the_tier_stays_incomplete():
    cmp = compare(_closed(measured_speedup=None, measured_speedup_low=None, measured_speedup_high=None))
    rec = tier_records(cmp)[1]
    assert rec["incomplete"] == "speculative unknown" and rec["value_verdict"] == "n/a" and rec["mix_speedup"] is None


def test_compare_text_and_json_never_say_dash_or_incomplete_for_it(tmp_path, capsys):
    wb = _closed()
    text = comparison_text(compare(wb))
    row = next(line for line in text.splitlines() if line.startswith("Fast "))
    assert "incomplete" not in row and "not worth it" in row and f"{_served(2.2, 0.1):.2f}x" in row
    terms = next(line for line in text.splitlines() if line.startswith("  Fast: 10%"))
    assert "\u2013 as served" not in terms and f"mix {_served(2.2, 0.1):.2f}x as served (measured 2.20x" in terms
    fair = next(line for line in text.splitlines() if line.startswith("Fast: fair price"))
    assert "runs like" not in fair and "on the measured speed" in fair
    path = save_workbook(wb, tmp_path / "closed.json")
    out = io.StringIO()
    assert run_compare(SimpleNamespace(workbook=str(path), json=True, csv=False), out) == 0
    tier = next(t for t in json.loads(out.getvalue())["tiers"] if t["tier"] == "Fast")
    assert tier["value_verdict"] == "not worth it" and tier["mix_speedup"] == pytest.approx(_served(2.2, 0.1))


def test_the_measured_interval_must_hold_the_speedup():
    assert workbook_problems(_closed()) == []
    bad = workbook_problems(_closed(measured_speedup_low=2.3))
    assert any("must hold the measured speedup" in p for p in bad)
    assert any("give both ends" in p for p in workbook_problems(_closed(measured_speedup_high=None)))


def test_the_brief_recommends_on_the_measured_speed_and_names_a_price():
    from model.comparison.brief import DO_NOT, TAKE, UNDECIDED_WORDS, brief

    wb = _closed()
    cmp = compare(wb)
    b = next(x for x in brief(wb, cmp) if x.tier == "Fast")
    assert b.recommendation == DO_NOT and f"{cmp.tiers.price_ratio[1]:.2f}x its price" in b.why
    assert f"{_served(2.2, 0.1):.2f}x ({_served(2.0, 0.1):.2f}\u2013{_served(2.4, 0.1):.2f})" in b.why
    # the price at the cautious end of the measured range, in money; never K, c, v asked for
    assert b.ask.startswith(f"${150 * cmp.fair.factor_low[1]:.2f} per 1M output tokens at most")
    for _, text in b.lines:
        assert "\u2013 " not in text and " \u2013" not in text and "K, c and v" not in text
    cheap = _closed(price_in=7.0, price_out=35.0, downgraded_share=None)
    assert next(x for x in brief(cheap, compare(cheap)) if x.tier == "Fast").recommendation == TAKE
    close = _closed(price_in=11.0, price_out=55.0, downgraded_share=None)
    assert next(x for x in brief(close, compare(close)) if x.tier == "Fast").recommendation == UNDECIDED_WORDS
