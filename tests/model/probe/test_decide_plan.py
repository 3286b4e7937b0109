"""What a probe says before a run (model.probe.decide_plan): the requests expected to decide each class, counted
from zero as the run starts (the workbook's earlier requests are not pooled with the new ones, and it says so),
and their cost with the workbook's currency symbol."""
from __future__ import annotations

import math

from model.acceptance.sequential import look_schedule, requests_to_decide
from model.acceptance import Acceptance
from model.probe.decide_plan import cost_per_request, needs_before_run
from model.probe.endpoint import Endpoint
from model.probe.plan import Prices, ProbeSettings
from model.probe.prompt_file import ProbePrompt
from model.probe.until_decided import class_thresholds
from model.workbook.json_file import load_demo
from model.workbook.rows import Override


def _settings(prices: Prices | None) -> ProbeSettings:
    def prompt(task_class: str, text: str, line: int) -> ProbePrompt:
        return ProbePrompt(task_class, ({"role": "user", "content": text},), line)
    prompts = [prompt("code", "x" * 400, 1), prompt("code", "y" * 800, 2), prompt("prose", "z" * 40, 3),
               prompt("poetry", "w" * 40, 4)]
    return ProbeSettings(fast=Endpoint("http://127.0.0.1:9/v1", "m"), prompts=prompts, max_tokens=100,
                         fast_name="Northwind Turbo", fast_prices=prices)


def _workbook_with_earlier_requests():
    wb = load_demo()
    tier = "Northwind Turbo"
    t = class_thresholds(wb, tier)["code"]
    # measured before: 4 points above the break-even, +-0.05 over 20 requests at 95% (undecided: the interval
    # reaches a point below it)
    wb.overrides.append(Override(tier, "code", t + 0.04, "probed", alpha_low=t - 0.01, alpha_high=t + 0.09,
                                 alpha_confidence=0.95, alpha_requests=20, alpha_steps=2000, alpha_method="cluster"))
    return wb, tier, t


def test_the_estimate_counts_from_zero_as_the_run_does_and_says_so():
    wb, tier, t = _workbook_with_earlier_requests()
    code, prose, poetry = needs_before_run(wb, tier, _settings(Prices(10.0, 20.0)), 0.95)
    acc = Acceptance(t + 0.04, t - 0.01, t + 0.09, 0.95, 20, 2000, "cluster")
    # the interval's spread over 20 requests: (0.05 sqrt(20) / 0.04)^2 = 31.25, 32 in all from zero (counting
    # the 20 it has would say 12)
    assert code.need.extra == requests_to_decide(acc, t + 0.04, t, 0.95, have=0).extra == 32
    assert requests_to_decide(acc, t + 0.04, t, 0.95).extra == 12
    assert code.earlier == 20 and "spread from the interval over 20 requests" in code.words("USD")
    assert "the run starts afresh, the workbook's 20 earlier requests not reused" in code.words("USD")
    assert prose.earlier == 0 and "assumed spread" in prose.words("USD") and "afresh" not in prose.words("USD")
    assert not poetry.in_workbook and "not in the workbook" in poetry.words("USD")


def test_a_run_until_decided_is_estimated_at_its_looks():
    wb, tier, t = _workbook_with_earlier_requests()
    [code, *_] = needs_before_run(wb, tier, _settings(None), 0.95, max_requests=80)
    acc = Acceptance(t + 0.04, t - 0.01, t + 0.09, 0.95, 20, 2000, "cluster")
    want = requests_to_decide(acc, t + 0.04, t, 0.95, looks=look_schedule(80), have=0).extra
    assert code.need.extra == want and want in look_schedule(80) and want > 32  # the looks' boundaries cost more
    assert code.cost is None and "about $" not in code.words("USD")  # no prices: no cost


def test_the_cost_is_the_class_mean_at_the_tier_prices_with_the_currency_symbol():
    wb, tier, _ = _workbook_with_earlier_requests()
    settings = _settings(Prices(10.0, 20.0))
    # code's two prompts: 100 and 200 input tokens (4 characters a token), 100 output tokens each, per 1M tokens
    one = cost_per_request(settings, "code")
    assert math.isclose(one, ((100 + 200) / 2 * 10.0 + 100 * 20.0) / 1e6)
    [code, *_] = needs_before_run(wb, tier, settings, 0.95)
    assert math.isclose(code.cost, 32 * one)
    assert code.words("USD").endswith(f"about ${32 * one:.4f}".rstrip("0")) and "USD" not in code.words("USD")
    assert code.words("EUR").endswith("€" + f"{32 * one:.4f}".rstrip("0"))


def test_a_profile_class_is_estimated_against_its_break_even_length():
    # after a probe's Apply the class holds a profile with an interval on E: the estimate is in lengths (it said
    # 'not decidable (no break-even to decide against)' before)
    import dataclasses

    from model.acceptance.sequential import LengthThreshold, length_acceptance, requests_to_decide_length

    wb = load_demo()
    tier = "Northwind Turbo"
    j = next(j for j, c in enumerate(wb.classes) if c.name == "code")
    wb.classes[j] = dataclasses.replace(wb.classes[j], profile=(0.95, 0.9, 0.85, 0.8, 0.75), acceptance_length_low=2.9,
                                        acceptance_length_high=3.5, alpha_confidence=0.95, alpha_requests=12)
    t = class_thresholds(wb, tier)["code"]
    assert isinstance(t, LengthThreshold) and t.k == 5
    [code, *_] = needs_before_run(wb, tier, _settings(None), 0.95, max_requests=40)
    acc = length_acceptance(wb.classes[j], 5, 0.95)
    assert acc.kind == "length" and math.isclose(acc.low, 2.9) and math.isclose(acc.high, 3.5)  # measured at K 5: the interval itself
    assert acc.low < t.length < acc.high  # (undecided: the interval reaches across the break-even length)
    assert code.decidable and code.need.extra == requests_to_decide_length(acc, t, 0.95, look_schedule(40), 0).extra
    assert "spread from the interval over 12 requests" in code.need.basis
    assert f"E {acc.point:.2f} against price break-even length {t.length:.2f} at K 5" in code.words("$")
    # the same margin in fill units as an alpha class: 2 points of fill need 4x the requests of 4 points
    near = LengthThreshold(acc.point - 0.1, 5)
    far = LengthThreshold(acc.point - 0.2, 5)
    assert requests_to_decide_length(acc, near, 0.95, have=0).extra >= 3.5 * requests_to_decide_length(acc, far, 0.95, have=0).extra


def test_a_class_the_workbook_s_interval_already_decides_needs_nothing_and_costs_nothing():
    # after a probe's Apply, a class whose interval lies wholly on one side of its price break-even is decided: the
    # estimate counted it afresh from zero (the dock's sum still paid for classes the probe had decided)
    wb, tier, t = _workbook_with_earlier_requests()
    o = wb.override_for(tier, "code")
    o.alpha_low, o.alpha, o.alpha_high = t + 0.01, t + 0.06, t + 0.11
    code, prose, _ = needs_before_run(wb, tier, _settings(Prices(10.0, 20.0)), 0.95, max_requests=40)
    assert code.decided == "above" and code.need.extra == 0 and code.cost is None and not prose.decided
    assert code.in_workbook and not code.open and prose.open
    assert f"decided by the workbook's interval over 20 requests (at or above price break-even {t * 100:.1f}%)" \
        in code.words("USD") and "nothing to send" in code.words("USD")
    # below it, likewise; and an interval at 95% decides nothing at 99%
    o.alpha_low, o.alpha, o.alpha_high = t - 0.11, t - 0.06, t - 0.01
    assert needs_before_run(wb, tier, _settings(None), 0.95)[0].decided == "below"
    assert not needs_before_run(wb, tier, _settings(None), 0.99)[0].decided
    # an undecided interval already as narrow as the half-width asked: the run would stop it at once
    o.alpha_low, o.alpha, o.alpha_high = t - 0.01, t + 0.01, t + 0.03
    assert not needs_before_run(wb, tier, _settings(None), 0.95, 0.015, 40)[0].decided
    [code, *_] = needs_before_run(wb, tier, _settings(None), 0.95, 0.021, 40)
    assert code.decided == "half-width reached" and "half-width 0.021 reached" in code.words("$")


def test_the_estimate_says_price_break_even_only_where_the_tier_has_a_baseline():
    # 'break-even' alone read as the speed break-even (K c + v) where the threshold is the price one (QA)
    import dataclasses

    wb = load_demo()
    tier = "Northwind Turbo"
    [code, *_] = needs_before_run(wb, tier, _settings(None), 0.95, max_requests=40)
    assert code.price and " against price break-even " in code.words("$")
    i = next(i for i, t in enumerate(wb.tiers) if t.name == tier)
    wb.tiers[i] = dataclasses.replace(wb.tiers[i], baseline="")  # judged on speed alone: the plain break-even
    [code, *_] = needs_before_run(wb, tier, _settings(None), 0.95, max_requests=40)
    assert not code.price and " against break-even " in code.words("$") and "price" not in code.words("$")
