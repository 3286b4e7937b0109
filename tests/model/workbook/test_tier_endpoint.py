"""A tier's optional endpoint fields: old workbooks load without them, they round-trip, bad ones are refused."""
from __future__ import annotations

import json

import pytest

from model.workbook.json_file import load_demo, load_workbook, save_workbook, workbook_to_dict
from model.workbook.rows import ALPHA_SOURCES, Tier
from model.workbook.validation import ValidationError, WorkbookError, parse_field


def test_a_workbook_without_endpoint_fields_loads_with_them_empty(tmp_path):
    data = workbook_to_dict(load_demo())
    for t in data["tiers"]:
        for name in ("endpoint_url", "endpoint_model", "api_key_env", "keyring_service", "keyring_user",
                     "extra_body", "measured_speedup", "measured_note"):
            t.pop(name)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    wb = load_workbook(path)
    assert all(t.endpoint_url == "" and t.measured_speedup is None for t in wb.tiers)


def test_endpoint_fields_round_trip(tmp_path):
    wb = load_demo()
    t = wb.tiers[0]
    t.endpoint_url, t.endpoint_model, t.api_key_env = "https://api.vendor.example/v1", "fast-1", "VENDOR_KEY"
    t.extra_body = parse_field(Tier, "extra_body", {"service_tier": "priority"})
    t.measured_speedup, t.measured_note = 2.1, "probed 2026-12-01"
    save_workbook(wb, tmp_path / "wb.json")
    back = load_workbook(tmp_path / "wb.json").tiers[0]
    assert (back.endpoint_url, back.endpoint_model, back.api_key_env, back.extra_body, back.measured_speedup) == (
        t.endpoint_url, t.endpoint_model, "VENDOR_KEY", '{"service_tier":"priority"}', 2.1)


@pytest.mark.parametrize(("field", "value", "words"), [
    ("api_key_env", "sk-live-abc123", "name of an environment variable"),
    ("extra_body", "[1, 2]", "JSON object"),
    ("extra_body", "{nope", "not valid JSON"),
    ("endpoint_url", "ftp://x", "http"),
])
def test_bad_endpoint_values_are_refused_by_the_one_validator(field, value, words):
    with pytest.raises(ValidationError, match=words):
        parse_field(Tier, field, value, "Fast")


def test_a_file_with_a_key_in_the_env_var_field_is_refused(tmp_path):
    data = workbook_to_dict(load_demo())
    data["tiers"][0]["api_key_env"] = "sk-abcdef"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(WorkbookError, match="api_key_env"):
        load_workbook(path)


def test_probed_is_an_alpha_source():
    assert "probed" in ALPHA_SOURCES
