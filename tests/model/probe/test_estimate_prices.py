"""The probe's cost estimate before a run says its basis (every request to the tier at its fast list price: the
vendor's downgraded requests and cached input bill less, so it is an upper bound) and prices a request past the
tier's context band at the band's long prices."""
from __future__ import annotations

from model.probe.endpoint import Endpoint
from model.probe.load import estimate_levels
from model.probe.plan import PRICE_BASIS, Prices, ProbeSettings, estimate, tier_prices
from model.probe.prompt_file import ProbePrompt
from model.workbook.json_file import load_demo

PROMPT = ProbePrompt("code", ({"role": "user", "content": "x" * 400},), 1)  # 100 input tokens by the estimate


def _settings(prices: Prices, contexts: tuple[int, ...] = (0,), levels: tuple[int, ...] = (1,)) -> ProbeSettings:
    return ProbeSettings(fast=Endpoint("http://127.0.0.1:1/v1", "m"), prompts=[PROMPT], contexts=contexts,
                         max_tokens=10, fast_prices=prices, concurrency=levels)


def test_the_estimate_says_it_is_at_the_fast_list_price_and_downgrades_bill_less() -> None:
    said = estimate(_settings(Prices(5.0, 25.0))).describe("$")
    assert PRICE_BASIS in said and "downgrade" in said
    assert PRICE_BASIS in estimate_levels(_settings(Prices(5.0, 25.0), levels=(1, 2))).describe("$")


def test_a_request_past_the_context_band_is_priced_at_the_long_prices() -> None:
    band = Prices(5.0, 25.0, band_threshold=1000, price_in_long=10.0, price_out_long=37.5)
    short = estimate(_settings(band, contexts=(0,))).cost
    long = estimate(_settings(band, contexts=(2000,))).cost
    assert short == (100 * 5.0 + 10 * 25.0) / 1e6
    assert long == (2100 * 10.0 + 10 * 37.5) / 1e6
    assert estimate_levels(_settings(band, contexts=(2000,))).cost == long


def test_a_workbook_tier_brings_its_band_into_the_estimate() -> None:
    tier = load_demo().tiers[0]
    tier.band_threshold, tier.price_in_long, tier.price_out_long = 1000, tier.price_in * 2, tier.price_out * 1.5
    prices = tier_prices(tier)
    assert prices is not None and prices.cost(2000, 0) == 2000 * tier.price_in * 2 / 1e6
    assert tier_prices(None) is None
