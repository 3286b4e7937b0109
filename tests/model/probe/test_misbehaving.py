"""A server that misbehaves on the second request: each failure is one line naming the request, and the
first request's result is kept. Over a real loopback socket, with short timeouts."""
from __future__ import annotations

import threading

import pytest

from model.common.cancel import run_to_end
from model.probe.demo_server import LoopbackServer
from model.probe.endpoint import Endpoint
from model.probe.plan import ProbeSettings
from model.probe.prompt_file import ProbePrompt
from model.probe.run import run_probe
from model.probe.run_file import read_run
from model.probe.client import Limits
from tests.probe_servers import bad_app

pytest.importorskip("uvicorn")

LIMITS = Limits(connect_s=2.0, first_byte_s=2.0, gap_s=1.0, total_s=3.0, retries=2, max_retry_wait_s=1.0)
PROMPTS = [ProbePrompt("code", ({"role": "user", "content": f"def f{i}():"},), i + 1) for i in range(3)]


@pytest.fixture(scope="module")
def server():
    with LoopbackServer(bad_app()) as s:
        yield s


def _probe(server, model: str, tmp_path, **kw):
    settings = ProbeSettings(fast=Endpoint(server.base_url, model), prompts=PROMPTS, max_tokens=8)
    return run_to_end(run_probe(settings, {}, tmp_path / "run.jsonl", limits=LIMITS, **kw))


@pytest.mark.parametrize(("model", "words"), [
    ("unauthorized", "401"), ("missing", "404"), ("malformed", "malformed"), ("cut", "cut"),
    ("stall", "no next event"), ("endless", "not finished"), ("broken", "500")])
def test_a_failure_is_one_line_naming_the_request_and_the_completed_request_is_kept(server, tmp_path, model, words):
    run = _probe(server, model, tmp_path)
    assert run.error is not None and words in run.error
    assert "\n" not in run.error
    assert "#2" in run.error and "request fast code" in run.error
    assert len(run.records) == 1 and run.records[0].output_text == " ok ok ok"
    _, saved = read_run(tmp_path / "run.jsonl")
    assert [r.ok for r in saved] == [True, False]  # the completed one, then the failure as it was


def test_a_429_with_retry_after_is_retried_and_the_run_completes(server, tmp_path):
    run = _probe(server, "busy", tmp_path)
    assert run.error is None
    assert len(run.records) == 3
    assert [r.retries for r in run.records] == [0, 1, 0]


def test_cancel_mid_stream_keeps_what_completed(tmp_path):
    cancel = threading.Event()
    with LoopbackServer(bad_app()) as server:  # its own: the first "endless" request must behave
        settings = ProbeSettings(fast=Endpoint(server.base_url, "endless"), prompts=PROMPTS, max_tokens=8)
        gen = run_probe(settings, {}, tmp_path / "run.jsonl", cancel=cancel, limits=LIMITS)
        assert next(gen).requests_done == 0
        assert next(gen).requests_done == 1  # the first request behaves
        timer = threading.Timer(0.3, cancel.set)  # the second streams forever; cancel it while it streams
        timer.start()
        with pytest.raises(StopIteration) as stop:
            next(gen)
        timer.join()
    run = stop.value.value
    assert run.cancelled and run.error is None and len(run.records) == 1
    assert len(read_run(tmp_path / "run.jsonl")[1]) == 1


def test_plain_http_to_another_host_needs_the_flag():
    from model.probe.endpoint import EndpointError, check_endpoint
    with pytest.raises(EndpointError, match="plain http"):
        check_endpoint(Endpoint("http://api.vendor.example/v1", "m"))
    check_endpoint(Endpoint("http://api.vendor.example/v1", "m", allow_http=True))
    check_endpoint(Endpoint("http://127.0.0.1:9/v1", "m"))
    with pytest.raises(EndpointError, match="credentials"):
        check_endpoint(Endpoint("https://user:pw@api.vendor.example/v1", "m"))
