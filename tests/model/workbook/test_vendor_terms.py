"""A vendor's terms on a tier (cached and long-context prices, downgraded share, SLA) and the workload's bands:
through the one validator, the JSON file (older files load), a probe's records and the SLA's one verdict."""
from __future__ import annotations

import dataclasses
import json

import pytest

from model.workbook import json_file as wf
from model.workbook.rows import TaskClass, Tier
from model.workbook.validation import SPECS, ValidationError, WorkbookError, check_row, parse_field
from model.workbook.vendor_terms import (apply_served, class_long_share, downgraded_text, drop_stale_measurement,
                                         sla_text, sla_verdict)


def _demo_dict() -> dict:
    return wf.workbook_to_dict(wf.load_demo())


def test_the_fields_parse_as_typed():
    assert parse_field(Tier, "band_threshold", "200K") == 200_000  # as vendors count it, not 1,024s
    assert parse_field(Tier, "band_threshold", "200000") == 200_000
    assert parse_field(Tier, "sla_share", "99%") == pytest.approx(0.99)
    assert parse_field(Tier, "downgraded_share", "") is None
    assert parse_field(TaskClass, "cached_share", "40%") == pytest.approx(0.4)
    with pytest.raises(ValidationError, match="SLA share of requests"):
        parse_field(Tier, "sla_share", "150%", "Fast")
    with pytest.raises(ValidationError, match="Price cached in"):
        parse_field(Tier, "price_cached_in", "-1", "Fast")


@pytest.mark.parametrize("changes, words", [
    ({"band_threshold": 200_000, "price_in_long": 10.0}, "give the prices above it too (Price out /1M, long)"),
    ({"price_out_long": 30.0}, "given without the threshold"),
    ({"sla_tokens_per_s": 80.0}, "give both or neither"),
    ({"downgraded_share": 0.2, "downgraded_low": 0.25, "downgraded_high": 0.4}, "must hold the share itself"),
    ({"downgraded_share": 0.2, "downgraded_low": 0.1}, "give both ends"),
    ({"sla_tokens_per_s": 80.0, "sla_share": 0.99, "sla_measured_share": 0.7, "sla_share_low": 0.8,
      "sla_share_high": 0.9}, "must hold the share itself"),
])
def test_terms_that_do_not_fit_together_are_refused_naming_the_tier(changes, words):
    tier = dataclasses.replace(Tier(name="Fast"), **changes)
    problems = check_row(tier)
    assert problems and all(p.startswith("Tier 'Fast', ") for p in problems)
    assert any(words in p for p in problems), problems


def test_a_tier_with_terms_round_trips_and_an_older_file_loads(tmp_path):
    data = _demo_dict()
    data["schema_version"] = 2  # written before the terms existed: none of their keys
    old = wf.workbook_from_dict(data)
    assert all(t.band_threshold is None and t.sla_share is None and t.downgraded_share is None for t in old.tiers)
    assert all(c.cached_share == 0.0 and c.long_share is None for c in old.classes)
    t = old.tiers[0]
    t.price_cached_in, t.band_threshold, t.price_in_long, t.price_out_long = 0.5, 200_000, 10.0, 37.5
    t.price_source = "list prices as read 2026-12-06"
    t.sla_tokens_per_s, t.sla_share, t.sla_measured_share, t.sla_share_low, t.sla_share_high = 80.0, 0.99, 0.75, 0.51, 0.9
    t.sla_requests, t.downgraded_share, t.downgraded_low, t.downgraded_high = 20, 0.25, 0.14, 0.4
    old.classes[0].long_share, old.classes[0].cached_share = 0.3, 0.6
    wf.save_workbook(old, tmp_path / "terms.json")
    saved = json.loads((tmp_path / "terms.json").read_text())
    assert saved["schema_version"] == wf.SCHEMA_VERSION == 3
    assert wf.load_workbook(tmp_path / "terms.json") == old


def test_a_file_with_bad_terms_is_refused_naming_the_row_and_field():
    data = _demo_dict()
    data["tiers"][0]["sla_share"] = "often"
    with pytest.raises(WorkbookError, match="sla_share: must be blank or a share"):
        wf.workbook_from_dict(data)
    data = _demo_dict()
    data["tiers"][1]["band_threshold"] = 200_000  # no long prices
    with pytest.raises(WorkbookError, match="Tier 'Northwind Turbo', Long context above .*give the prices above it"):
        wf.workbook_from_dict(data)


def _sla_tier(measured, low, high, q=0.99):
    return Tier(name="Fast", sla_tokens_per_s=80.0, sla_share=q, sla_measured_share=measured, sla_share_low=low,
                sla_share_high=high, sla_requests=20)


def test_the_sla_verdict_reads_the_interval_against_the_promise():
    assert sla_verdict(_sla_tier(0.75, 0.51, 0.9)) == "breached"  # the high end below 99%
    assert sla_verdict(_sla_tier(1.0, 0.991, 1.0)) == "met"
    assert sla_verdict(_sla_tier(0.95, 0.8, 0.995)) == "undecided"
    assert sla_verdict(_sla_tier(0.95, None, None)) == "undecided"
    assert sla_verdict(Tier(sla_tokens_per_s=80.0, sla_share=0.99)) == ""
    assert sla_text(_sla_tier(0.75, 0.51, 0.9)) == ("SLA: 75% (51\u201390%) of requests above 80 tok/s over 20 requests "
                                                   "against 99% promised: breached")
    assert sla_text(Tier(sla_tokens_per_s=80.0, sla_share=0.999)) == "SLA: 99.9% of requests above 80 tok/s promised; not measured"
    assert sla_text(Tier()) == ""


def test_a_probes_records_set_the_tier_and_a_new_threshold_drops_them():
    tier = Tier(name="Fast")
    served = {"requested": "fast", "fast": 36, "standard": 12, "unknown": 0, "downgraded_share": 0.25,
              "downgraded_interval": [0.14, 0.4]}
    sla = {"threshold_tokens_per_s": 80, "promised_share": 0.99, "measured_share": 0.75, "share_interval": [0.51, 0.9],
           "requests": 20, "verdict": "breached"}
    apply_served(tier, served, sla)
    assert (tier.downgraded_share, tier.downgraded_low, tier.downgraded_high, tier.downgraded_requests) == (0.25, 0.14, 0.4, 48)
    assert (tier.sla_tokens_per_s, tier.sla_share, tier.sla_measured_share) == (80.0, 0.99, 0.75)
    assert sla_verdict(tier) == sla["verdict"] and check_row(tier) == []
    assert "25% (14\u201340%) of fast requests served at standard speed, over 48 requests" == downgraded_text(tier)
    apply_served(tier, {"downgraded_share": None}, None)  # nothing measured: nothing changes
    assert tier.downgraded_share == 0.25
    drop_stale_measurement(tier, "sla_tokens_per_s", 100.0)
    assert tier.sla_measured_share is None and tier.sla_share_low is None and tier.sla_requests == 0
    drop_stale_measurement(tier, "downgraded_share", 0.1)
    assert tier.downgraded_low is None and tier.downgraded_requests == 0


def test_a_class_falls_in_a_band_by_its_share_or_its_context():
    banded = Tier(band_threshold=200_000, price_in_long=10.0, price_out_long=37.5)
    assert class_long_share(TaskClass(context=300_000), banded) == 1.0
    assert class_long_share(TaskClass(context=8_000), banded) == 0.0
    assert class_long_share(TaskClass(context=8_000, long_share=0.2), banded) == 0.2
    assert class_long_share(TaskClass(context=300_000, long_share=0.2), Tier()) == 0.0  # no bands: one price


def test_every_term_is_a_field_of_the_validator():
    names = {f.name for f in dataclasses.fields(Tier)}
    assert {"price_cached_in", "band_threshold", "sla_share", "downgraded_share", "sla_measured_share"} <= names
    assert names == set(SPECS[Tier])
