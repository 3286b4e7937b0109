"""serve-demo's vendor styles: each serves only its own API (another API's path is the vendor's 404, one line in
the probe), and a chunk that leaves late is not followed by a burst that catches up."""
from __future__ import annotations

import asyncio
import time

import pytest

from model.common.cancel import run_to_end
from model.probe.demo_server import LoopbackServer
from model.probe.events import FAST
from model.probe.run import run_probe
from model.probe.vendor_server import Pace, STYLE_API, _paced
from tests.probe_servers import FAST_LIMITS
from tests.vendor_servers import vendor_app, vendor_settings

pytest.importorskip("uvicorn")

PROBE_API = {"openai-chat": "openai-chat", "openai-responses": "openai-responses", "anthropic": "anthropic-messages"}


@pytest.mark.parametrize("style", sorted(STYLE_API))
def test_a_style_serves_its_own_api_and_a_wrong_api_is_the_vendors_404_in_one_line(style: str) -> None:
    own = STYLE_API[style]
    app, truth = vendor_app(Pace(fast_tokens_per_s=2000.0, standard_tokens_per_s=2000.0, flush_s=0.0), apis=(own,))
    with LoopbackServer(app) as server:
        for api, probe_api in PROBE_API.items():
            settings = vendor_settings(server.base_url, probe_api, 1, max_tokens=4, baseline=False)
            run = run_to_end(run_probe(settings, {}, limits=FAST_LIMITS))
            if api == own:
                assert run.error is None, run.error
                continue
            assert run.error is not None and "\n" not in run.error, (style, api, run.error)
            assert "404" in run.error and "request fast" in run.error, run.error
            assert " no a " not in run.error, run.error
    assert {s.api for s in truth.served} == {own}


def test_the_404_is_in_the_style_vendors_error_shape() -> None:
    import httpx

    for apis, shape in ((("anthropic",), "not_found_error"), (("openai-responses",), "invalid_request_error")):
        app, _ = vendor_app(Pace(), apis=apis)
        with LoopbackServer(app) as server:
            answer = httpx.post(f"{server.base_url}/chat/completions", json={}, timeout=5)
        assert answer.status_code == 404
        body = answer.json()
        assert body["error"]["type"] == shape
        assert (body.get("type") == "error") == (apis == ("anthropic",))


def test_a_late_chunk_is_not_followed_by_a_catch_up_burst() -> None:
    rate = 100.0
    chunks = [["a"] * 5 for _ in range(8)]  # 40 tokens, 5 a chunk: one chunk every 50 ms

    async def stream() -> list[float]:
        sent: list[float] = []
        async for _ in _paced(chunks, rate, time.perf_counter()):
            sent.append(time.perf_counter())
            if len(sent) == 1:
                time.sleep(0.2)  # the event loop held up: the next chunks are late
        return sent

    sent = asyncio.run(stream())
    gaps = [b - a for a, b in zip(sent, sent[1:])]
    # the first gap includes the hold-up; every later chunk waits its 5 tokens' time (50 ms) after the one before
    assert all(g >= 5 / rate - 0.002 for g in gaps[1:]), gaps
    tokens_after_first = sum(len(c) for c in chunks[1:])
    assert tokens_after_first / (sent[-1] - sent[0]) <= rate * 1.01
