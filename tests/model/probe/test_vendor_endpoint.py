"""A tier's endpoint keeps its API and its headers in the workbook: secret headers only as where their value comes
from, a workbook from before these fields loads, and the probe's endpoint follows the tier."""
from __future__ import annotations

import json

import pytest

from model.probe.endpoint import Endpoint, EndpointError, check_endpoint, tier_endpoint
from model.workbook.json_file import load_demo, load_workbook, save_workbook


def test_api_and_headers_round_trip_through_the_workbook(tmp_path) -> None:
    wb = load_demo()
    tier = wb.tiers[0]
    tier.endpoint_url, tier.endpoint_model = "https://api.vendor.example/v1", "claude-x"
    tier.endpoint_api = "anthropic-messages"
    tier.endpoint_headers = "anthropic-beta: fast-mode-2026-02-01\nX-Org-Token: env:ORG_TOKEN"
    path = tmp_path / "wb.json"
    save_workbook(wb, path)
    back = load_workbook(path).tiers[0]
    assert back.endpoint_api == "anthropic-messages"
    endpoint = tier_endpoint(back)
    assert endpoint.api == "anthropic-messages"
    assert endpoint.headers == {"anthropic-beta": "fast-mode-2026-02-01", "X-Org-Token": "env:ORG_TOKEN"}


def test_a_secret_header_value_in_a_workbook_file_is_refused_by_name(tmp_path) -> None:
    wb = load_demo()
    path = tmp_path / "wb.json"
    save_workbook(wb, path)
    data = json.loads(path.read_text())
    data["tiers"][0]["endpoint_headers"] = "Authorization: Bearer sk-live-abc"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError) as exc:
        load_workbook(path)
    assert "Authorization" in str(exc.value) and "sk-live-abc" not in str(exc.value)


def test_a_workbook_from_before_loads_with_chat_completions(tmp_path) -> None:
    wb = load_demo()
    path = tmp_path / "wb.json"
    save_workbook(wb, path)
    data = json.loads(path.read_text())
    for t in data["tiers"]:
        t.pop("endpoint_api", None)
        t.pop("endpoint_headers", None)
    path.write_text(json.dumps(data))
    back = load_workbook(path).tiers[0]
    assert back.endpoint_api == "" and back.endpoint_headers == ""


def test_each_api_refuses_extra_fields_that_would_replace_its_own() -> None:
    with pytest.raises(EndpointError, match="input"):
        check_endpoint(Endpoint("https://x.example/v1", "m", extra_body={"input": "x"}, api="openai-responses"))
    with pytest.raises(EndpointError, match="expected one of"):
        check_endpoint(Endpoint("https://x.example/v1", "m", api="anthropic"))
    check_endpoint(Endpoint("https://x.example/v1", "m", extra_body={"speed": "fast"}, api="anthropic-messages",
                            headers={"anthropic-beta": "fast-mode-2026-02-01"}))


@pytest.mark.parametrize("header", ["Cookie: session=abc123", "X-Password: hunter2", "X-Client-Credential: c-42"])
def test_a_cookie_password_or_credential_header_is_a_secret(header: str) -> None:
    # a session cookie or a password sent as a header is as much a credential as a key; kept as typed it would
    # reach the run file and the workbook
    from model.workbook.endpoint_headers import HeaderError, parse_header

    value = header.partition(":")[2].strip()
    with pytest.raises(HeaderError) as refused:
        parse_header(header)
    assert value not in str(refused.value) and "cookie" in str(refused.value)
    name = header.partition(":")[0]
    assert parse_header(f"{name}: env:SESSION_COOKIE") == (name, "env:SESSION_COOKIE")
