"""The API key never reaches the run file, the JSON result, a log line or an error message."""
from __future__ import annotations

import logging

import pytest

from model.common.cancel import run_to_end
from model.probe.analysis import analyse
from model.probe.demo_server import LoopbackServer
from model.probe.endpoint import ApiKey, Endpoint, EndpointError, resolve_api_key
from model.probe.run import run_probe
from tests.probe_servers import FAST_LIMITS, demo_app, settings_for, subset

pytest.importorskip("uvicorn")

SECRET = "sk-test-9f8e7d6c5b4a3210SECRET"


def test_the_key_appears_nowhere(tmp_path, caplog, monkeypatch, capsys):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("PROBE_TEST_KEY", SECRET)
    app, _ = demo_app("vllm", api_key=SECRET)
    prompts = subset(1)[:2]
    with LoopbackServer(app) as server:
        settings = settings_for(server.base_url, prompts, api_key_env="PROBE_TEST_KEY")
        key = resolve_api_key(settings.fast)
        run = run_to_end(run_probe(settings, {"fast": key, "baseline": key}, tmp_path / "run.jsonl",
                                   limits=FAST_LIMITS))
        assert run.error is None and len(run.records) == 4  # the key was sent and accepted
        wrong = run_to_end(run_probe(settings, {"fast": ApiKey(SECRET[::-1])}, tmp_path / "wrong.jsonl",
                                     limits=FAST_LIMITS))
    assert wrong.error is not None and "401" in wrong.error
    report = analyse(run.records, run.header).to_json()
    texts = [(tmp_path / "run.jsonl").read_text(), (tmp_path / "wrong.jsonl").read_text(), report, wrong.error,
             caplog.text, repr(key), str(key), repr(settings), *capsys.readouterr()]
    for text in texts:
        assert SECRET not in text and SECRET[::-1] not in text
    assert "PROBE_TEST_KEY" in (tmp_path / "run.jsonl").read_text()  # where it comes from is recorded


def test_a_named_source_that_is_empty_is_refused_without_sending(monkeypatch):
    monkeypatch.delenv("PROBE_MISSING_KEY", raising=False)
    with pytest.raises(EndpointError, match="PROBE_MISSING_KEY"):
        resolve_api_key(Endpoint("https://x.example/v1", "m", api_key_env="PROBE_MISSING_KEY"))


def test_a_key_from_the_keyring_is_read_and_hidden(monkeypatch):
    import keyring
    calls = []

    def get_password(service, user):
        calls.append((service, user))
        return SECRET

    monkeypatch.setattr(keyring, "get_password", get_password)
    key = resolve_api_key(Endpoint("https://x.example/v1", "m", keyring_service="vendor", keyring_user="me"))
    assert calls == [("vendor", "me")] and key.reveal() == SECRET
    assert SECRET not in repr(key) and SECRET not in f"{key}"
    monkeypatch.setattr(keyring, "get_password", lambda s, u: None)
    with pytest.raises(EndpointError, match="vendor/me"):
        resolve_api_key(Endpoint("https://x.example/v1", "m", keyring_service="vendor", keyring_user="me"))
