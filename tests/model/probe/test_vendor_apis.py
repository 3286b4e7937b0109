"""The probe through each vendor's API against the vendor-style server (model.probe.vendor_server), whose pace is
the known truth: Chat Completions, the Responses API and Anthropic's Messages API, the key sent as each expects
(a wrong or misplaced key is a 401), the tier that served each request recorded, the speedup within 10%, and the
key and a secret header's value in no file."""
from __future__ import annotations

import json
import os

import pytest

from model.common.cancel import run_to_end
from model.probe.analysis import analyse
from model.probe.apis import API_NAMES
from model.probe.demo_server import LoopbackServer
from model.probe.endpoint import ApiKey
from model.probe.events import BASELINE, FAST
from model.probe.run import run_probe
from model.probe.vendor_server import Pace
from tests.probe_servers import FAST_LIMITS
from tests.vendor_servers import vendor_app, vendor_settings

pytest.importorskip("uvicorn")

KEY = "sk-vendor-test-0123456789abcdef"
SECRET = "org-secret-value-9876543210"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = {}
    for api in API_NAMES:
        app, truth = vendor_app(Pace(fast_tokens_per_s=250.0, standard_tokens_per_s=100.0, flush_s=0.03),
                                api_key=KEY)
        path = tmp_path_factory.mktemp(api) / "run.jsonl"
        with LoopbackServer(app) as server:
            settings = vendor_settings(server.base_url, api, 6, headers={"X-Org-Token": "env:VENDOR_TEST_SECRET"})
            os.environ["VENDOR_TEST_SECRET"] = SECRET
            try:
                run = run_to_end(run_probe(settings, {FAST: ApiKey(KEY), BASELINE: ApiKey(KEY)}, path,
                                           limits=FAST_LIMITS))
            finally:
                del os.environ["VENDOR_TEST_SECRET"]
        assert run.error is None, (api, run.error)
        out[api] = (run, truth, path)
    return out


@pytest.mark.parametrize("api", API_NAMES)
def test_each_api_measures_the_speedup_within_10_percent(runs, api: str) -> None:
    run, truth, _ = runs[api]
    assert {s.api for s in truth.served} == {api.replace("-messages", "")}
    report = analyse(run.records, run.header)
    (level,) = report.by_concurrency
    assert level.speedup_measured == pytest.approx(2.5, rel=0.10), api
    assert report.timing["usage"] == len(run.records)
    assert report.verdict == "faster", report.evidence


@pytest.mark.parametrize("api", API_NAMES)
def test_each_request_records_the_tier_its_response_names(runs, api: str) -> None:
    run, _, _ = runs[api]
    fast_name = "fast" if api == "anthropic-messages" else "priority"
    slow_name = "standard" if api == "anthropic-messages" else "default"
    assert {r.served_tier for r in run.records if r.role == FAST} == {fast_name}
    assert {r.served_tier for r in run.records if r.role == BASELINE} == {slow_name}
    assert all(r.finish_reason == "length" and r.usage["completion_tokens"] == 32 for r in run.records)


@pytest.mark.parametrize("api", API_NAMES)
def test_the_key_and_the_secret_header_are_in_no_file(runs, api: str) -> None:
    run, _, path = runs[api]
    text = path.read_text() + analyse(run.records, run.header).to_json()
    assert KEY not in text and SECRET not in text
    header = json.loads(path.read_text().splitlines()[0])
    assert header["fast"]["headers"] == {"X-Org-Token": "env:VENDOR_TEST_SECRET"}
    assert header["fast"]["api"] == api


@pytest.mark.parametrize("api", API_NAMES)
def test_a_wrong_key_is_one_line_naming_the_request(api: str) -> None:
    app, _ = vendor_app(Pace(fast_tokens_per_s=500.0, standard_tokens_per_s=500.0), api_key=KEY)
    with LoopbackServer(app) as server:
        settings = vendor_settings(server.base_url, api, 1, baseline=False)
        run = run_to_end(run_probe(settings, {FAST: ApiKey("sk-wrong")}, limits=FAST_LIMITS))
    assert run.error is not None and "\n" not in run.error
    assert "request fast" in run.error and "401" in run.error and "sk-wrong" not in run.error


def test_an_overloaded_error_inside_an_anthropic_stream_is_one_line_naming_the_request() -> None:
    from starlette.applications import Starlette
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    async def messages(request):
        async def events():
            yield 'event: message_start\ndata: {"type": "message_start", "message": {"id": "msg_1", "usage": ' \
                  '{"input_tokens": 3, "output_tokens": 1}}}\n\n'
            yield 'event: ping\ndata: {"type": "ping"}\n\n'
            yield 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
        return StreamingResponse(events(), media_type="text/event-stream")

    app = Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])
    with LoopbackServer(app) as server:
        run = run_to_end(run_probe(vendor_settings(server.base_url, "anthropic-messages", 1, baseline=False), {},
                                   limits=FAST_LIMITS))
    assert run.error is not None and "\n" not in run.error
    assert run.error.startswith("request fast") and "overloaded_error: Overloaded" in run.error


def test_a_529_overloaded_answer_is_retried_after_its_retry_after() -> None:
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    inner, _ = vendor_app(Pace(fast_tokens_per_s=500.0, standard_tokens_per_s=500.0))
    seen = []

    async def messages(request):
        seen.append(1)
        if len(seen) == 1:
            return JSONResponse({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
                                status_code=529, headers={"retry-after": "0.1"})
        return await inner.router.routes[2].endpoint(request)  # the vendor app's /v1/messages

    app = Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])
    with LoopbackServer(app) as server:
        run = run_to_end(run_probe(vendor_settings(server.base_url, "anthropic-messages", 1, baseline=False), {},
                                   limits=FAST_LIMITS))
    assert run.error is None and len(seen) == 2 and run.records[0].retries == 1


def test_a_secret_header_is_taken_only_as_where_its_value_comes_from() -> None:
    from model.probe.apis.headers import HeaderError, parse_headers, resolve_headers

    with pytest.raises(HeaderError) as exc:
        parse_headers(["X-Api-Key: sk-live-123"])
    assert "sk-live-123" not in str(exc.value) and "env:VAR" in str(exc.value)
    headers = parse_headers("anthropic-beta: fast-mode-2026-02-01; X-Auth-Token: env:T")
    assert headers == {"anthropic-beta": "fast-mode-2026-02-01", "X-Auth-Token": "env:T"}
    sent, secrets = resolve_headers(headers, {"T": "tok-1"})
    assert sent["X-Auth-Token"] == "tok-1" and secrets == ["tok-1"]
    with pytest.raises(HeaderError, match="environment variable T is not set"):
        resolve_headers(headers, {})


@pytest.mark.parametrize("api", ["anthropic-messages", "openai-responses"])
def test_a_stream_that_only_pings_ends_at_its_deadline_in_one_line(api: str) -> None:
    """Anthropic's pings (or any event but content) keep the connection busy: the request's deadline still holds."""
    import asyncio

    from starlette.applications import Starlette
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    from model.probe.client import Limits

    async def endless(request):
        async def events():
            while True:
                yield 'event: ping\ndata: {"type": "ping"}\n\n'
                await asyncio.sleep(0.05)
        return StreamingResponse(events(), media_type="text/event-stream")

    app = Starlette(routes=[Route("/v1/messages", endless, methods=["POST"]),
                            Route("/v1/responses", endless, methods=["POST"])])
    limits = Limits(connect_s=2.0, first_byte_s=5.0, gap_s=2.0, total_s=1.0, retries=0, max_retry_wait_s=0.1)
    with LoopbackServer(app) as server:
        run = run_to_end(run_probe(vendor_settings(server.base_url, api, 1, baseline=False), {}, limits=limits))
    assert run.error is not None and "\n" not in run.error and run.error.startswith("request fast")
