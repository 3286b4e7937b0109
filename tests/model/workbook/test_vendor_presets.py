"""Vendors' fast modes as tier presets: read through the validator, dated, no secret, added as editable tiers."""
from __future__ import annotations

import json

import pytest

from model.workbook.json_file import load_demo
from model.workbook.validation import ValidationError, check_workbook
from model.workbook.vendor_presets import PRESETS_FILE, add_preset, load_vendor_presets, presets_from_dict


def test_the_presets_load_with_their_date_and_source_on_every_tier():
    presets = load_vendor_presets()
    assert {p.name for p in presets} >= {"Anthropic Claude Opus 4.6 fast mode", "OpenAI GPT-5.4 Fast mode (priority)"}
    for p in presets:
        assert len(p.tiers) == 2 and p.tiers[1].baseline == p.tiers[0].name
        for t in p.tiers:
            assert p.as_of in t.price_source and "not current" in t.price_source
            assert t.api_key_env and "sk-" not in json.dumps(t.__dict__, default=str)  # a key's name, never a key
    fast = next(p for p in presets if p.name.startswith("OpenAI")).tiers[1]
    assert (fast.sla_tokens_per_s, fast.sla_share) == (50.0, 0.99) and "priority" in fast.extra_body
    anthropic = next(p for p in presets if p.name.startswith("Anthropic")).tiers[1]
    assert anthropic.band_threshold == 200_000 and anthropic.price_in_long == 2 * anthropic.price_in
    assert '"speed":"fast"' in anthropic.extra_body and anthropic.missing_mechanics()  # closed mechanics: said so
    assert anthropic.endpoint_api == "anthropic-messages" and "fast-mode-2026-02-01" in anthropic.endpoint_headers
    assert fast.endpoint_api == "openai-responses"


def test_adding_a_preset_twice_renames_and_keeps_baselines_pointing_at_their_pair():
    wb = load_demo()
    preset = load_vendor_presets()[0]
    first = add_preset(wb, preset)
    second = add_preset(wb, preset)
    assert first == [t.name for t in preset.tiers] and second != first
    assert wb.tiers[-1].baseline == second[0] and wb.tiers[-3].baseline == first[0]
    wb.tiers[-1].price_out = 99.0  # editable: the preset itself is untouched
    assert preset.tiers[1].price_out != 99.0
    check_workbook(wb)


def test_a_preset_with_a_bad_field_is_refused_by_the_validator():
    data = json.loads(PRESETS_FILE.read_text())
    data["presets"][0]["tiers"][0]["price_out"] = "lots"
    with pytest.raises(ValidationError, match="Price out"):
        presets_from_dict(data)
    data = json.loads(PRESETS_FILE.read_text())
    del data["presets"][1]["as_of"]
    with pytest.raises(ValidationError, match="the date its prices were read"):
        presets_from_dict(data)
