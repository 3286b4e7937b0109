"""The probe at several concurrencies (#25): the plan and its cost, the batched demo server's rule
measured at 1, 4 and 16 streams, throttled levels, and a cancel during a 16-stream level."""
from __future__ import annotations

import json
import threading
import time

import pytest

from model.cancel import run_to_end
from model.probe.analysis import analyse
from model.probe.batching import BatchRule, predicted_speedup
from model.probe.demo_server import LoopbackServer, create_app
from model.probe.events import BASELINE, FAST
from model.probe.load import estimate_levels, parse_levels, plan_levels, run_load
from model.probe.plan import Prices
from model.probe.run_file import read_run
from model.probe.speed import request_tokens
from tests.probe_servers import FAST_LIMITS, demo_pair, settings_for, subset

pytest.importorskip("uvicorn")

RULE = BatchRule(0.04, 32)  # 40 ms steps: a loaded machine's scheduling noise stays small beside them


def _batched_app(rule: BatchRule = RULE):
    from commands.serve_demo import demo_models
    return create_app(demo_models("vllm", 4, pair=demo_pair()), batch=rule)


def test_levels_parse_in_order_once_each():
    assert parse_levels("1, 4,16,4") == (1, 4, 16)
    for bad in ("", "1,x", "-2"):
        with pytest.raises(ValueError, match="--concurrency"):
            parse_levels(bad)


def test_each_level_sends_a_multiple_of_its_streams_and_the_estimate_adds_up():
    prompts = subset(1)[:3]
    s = settings_for("http://127.0.0.1:1/v1", prompts)
    s.concurrency, s.max_tokens = (1, 4, 16), 10
    s.fast_prices, s.baseline_prices = Prices(1.0, 10.0), Prices(0.5, 2.0)
    levels = plan_levels(s)
    assert [(x.concurrency, len(x.fast), len(x.baseline)) for x in levels] == [(1, 3, 3), (4, 4, 4), (16, 16, 16)]
    assert len({p.label for p in levels[2].fast}) == 16  # cycled prompts are further repeats, each named
    est = estimate_levels(s)
    assert [x.requests for x in est.levels] == [6, 8, 32] and est.requests == 46
    # besides, up to 4 (n - 1) load-keeping requests per tier and level, counted in tokens and cost
    assert [x.extra for x in est.levels] == [0, 24, 120] and est.extra == 144
    tin = {p.prompt_index: -(-p.prompt.chars // 4) for p in levels[0].fast}
    fast_in = sum(tin[p.prompt_index] for p in levels[2].fast) + sum(tin[(i % 16) % 3] for i in range(60))
    assert est.levels[2].tokens_in == 2 * fast_in and est.levels[2].tokens_out == (32 + 120) * 10
    by_hand = (fast_in * 1.0 + 760 * 10.0 + fast_in * 0.5 + 760 * 2.0) / 1e6
    assert est.levels[2].cost == pytest.approx(by_hand)
    assert est.cost == pytest.approx(sum(x.cost for x in est.levels))
    text = est.describe("USD")
    assert "16 streams: 32 requests + up to 120 load-keeping" in text and "at most $0.0" in text and "USD" not in text
    s.baseline_prices = None
    assert estimate_levels(s).cost is None and "cost unknown" in estimate_levels(s).describe()


def _decode_tokens_per_step(records, level: int) -> float:
    """Tokens per step after the first event, as the decode speed counts them (vLLM style: an event a step)."""
    mine = [r for r in records if r.role == FAST and r.concurrency == level]
    tokens = sum(request_tokens(r) - (r.content_events[0].n_tokens or 1) for r in mine)
    return tokens / sum(len(r.content_events) - 1 for r in mine)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    app = _batched_app()
    path = tmp_path_factory.mktemp("load") / "run.jsonl"
    with LoopbackServer(app) as server:
        s = settings_for(server.base_url, subset(1))
        # 48 tokens: at 16 streams some 17 fast steps and 48 plain ones a stream, enough that one late read is noise
        s.concurrency, s.max_tokens = (1, 4, 16), 48
        run = run_to_end(run_load(s, {}, path, limits=FAST_LIMITS))
    assert run.error is None and not run.cancelled, run.error
    return run, analyse(run.records, run.header), path, app


def test_the_batched_demo_speedup_follows_its_rule_within_10_percent_per_level(loaded):
    run, report, _, _ = loaded
    got = {x.concurrency: x for x in report.by_concurrency}
    assert sorted(got) == [1, 4, 16]
    predicted = {n: predicted_speedup(RULE, n, 4, _decode_tokens_per_step(run.records, n)) for n in got}
    # the rule makes 16 streams (80 query tokens, past the 32-token knee) 2.5x slower a step for the fast tier only
    assert predicted[16] < 0.5 * predicted[1]
    for n, x in got.items():
        assert x.speedup_measured == pytest.approx(predicted[n], rel=0.10), (n, x.speedup_measured, predicted[n])
        assert not x.throttled and x.requests >= n and x.baseline_requests >= n


def test_every_class_and_the_tier_have_by_concurrency_in_the_json(loaded):
    _, report, _, _ = loaded
    data = json.loads(report.to_json())
    assert [x["concurrency"] for x in data["by_concurrency"]] == [1, 4, 16]
    for c in data["classes"]:
        rows = c["by_concurrency"]
        assert [x["concurrency"] for x in rows] == [1, 4, 16]
        assert all({"speedup_measured", "ttft_s", "decode_tokens_per_s", "mean_tokens_per_step", "alpha",
                    "throttled"} <= set(x) for x in rows)


def test_the_run_file_records_each_requests_level(loaded):
    run, _, path, app = loaded
    header, records = read_run(path)
    assert header["concurrency"] == [1, 4, 16]
    assert sorted({r.concurrency for r in records}) == [1, 4, 16]
    assert sum(1 for r in records if r.concurrency == 16 and r.role == BASELINE) == 16
    assert all(v <= 2 * 4 * 15 for v in run.header["load_keeping_requests"].values())  # 4 (n - 1) per tier at most
    # the batch stayed full while measured streams ran: the server's own ticks at level 16 are at 16 but for
    # the first and last few (streams joining, the last one closing)
    sizes = [t[1] for t in app.state.clocks["demo-fast"].ticks]
    at16 = sizes[next(i for i, b in enumerate(sizes) if b == 16):]
    assert sum(b == 16 for b in at16) >= 0.8 * len(at16), at16
    # the server saw 16 streams in one batch: its own ticks say so
    assert max(t[1] for t in app.state.clocks["demo-fast"].ticks) == 16


def _throttling(inner, limit: int):
    """Answers 429 (Retry-After: 0.05) to a chat request that arrives while ``limit`` streams are open."""
    from starlette.responses import JSONResponse
    open_streams = [0]

    async def app(scope, receive, send):
        if scope["type"] != "http" or not scope["path"].endswith("/chat/completions"):
            return await inner(scope, receive, send)
        if open_streams[0] >= limit:
            response = JSONResponse({"error": {"message": "rate limited"}}, status_code=429,
                                    headers={"retry-after": "0.05"})
            return await response(scope, receive, send)
        open_streams[0] += 1
        try:
            await inner(scope, receive, send)
        finally:
            open_streams[0] -= 1
    return app


def test_a_level_over_the_rate_limit_is_marked_throttled_not_read_as_slow():
    from model.probe.client import Limits
    limits = Limits(connect_s=2.0, first_byte_s=5.0, gap_s=2.0, total_s=20.0, retries=200, max_retry_wait_s=0.1)
    with LoopbackServer(_throttling(_batched_app(), 4)) as server:
        s = settings_for(server.base_url, subset(1)[:4], baseline=True)
        s.concurrency, s.max_tokens = (2, 8), 12
        run = run_to_end(run_load(s, {}, limits=limits))
    assert run.error is None, run.error
    levels = {x.concurrency: x for x in analyse(run.records, run.header).by_concurrency}
    assert not levels[2].throttled and levels[2].throttled_responses == 0
    assert levels[8].throttled and levels[8].throttled_responses > 0
    assert sum(r.throttled for r in run.records if r.concurrency == 8) > 0


def test_cancel_during_a_16_stream_level_closes_every_stream_within_a_second(tmp_path):
    slow = BatchRule(0.05, 32)  # 64 tokens at 16 streams: several seconds a stream, cancelled midway
    app = _batched_app(slow)
    cancel = threading.Event()
    with LoopbackServer(app) as server:
        s = settings_for(server.base_url, subset(1))
        s.concurrency, s.max_tokens = (16,), 64
        gen = run_load(s, {}, tmp_path / "run.jsonl", cancel=cancel, limits=FAST_LIMITS)
        clock = app.state.clocks["demo-fast"]
        assert next(gen).requests_done == 0
        box: dict = {}
        thread = threading.Thread(target=lambda: box.setdefault("run", run_to_end(gen)))
        thread.start()
        end = time.monotonic() + 20
        while len(clock.members) < 16 and time.monotonic() < end:
            time.sleep(0.01)
        assert len(clock.members) == 16
        cancel.set()
        cancelled_at = time.monotonic()
        thread.join(5)
        returned = time.monotonic() - cancelled_at
        while clock.members and time.monotonic() - cancelled_at < 5:
            time.sleep(0.01)
        closed = time.monotonic() - cancelled_at
    assert not thread.is_alive()
    run = box["run"]
    assert run.cancelled and run.error is None
    assert returned < 1.0 and closed < 1.0, (returned, closed)  # the bound: every stream closed within 1 s
    assert not [t for t in threading.enumerate() if t.name.startswith("probe-stream")]


def test_serve_demo_help_states_the_batching_rule():
    import argparse

    from commands.serve_demo import add_serve_demo_arguments
    parser = argparse.ArgumentParser()
    add_serve_demo_arguments(parser)
    text = " ".join(parser.format_help().split())
    assert "step = step-ms x max(1, query tokens in the batch / knee-tokens)" in text
    assert "K + 1" in text
    # the rule as the code applies it: flat to the knee, then proportional to the batch's query tokens
    assert RULE.step_seconds(32) == RULE.step_s and RULE.step_seconds(80) == pytest.approx(2.5 * RULE.step_s)


def test_progress_names_each_level_with_its_streams_in_the_right_number():
    # the CLI printed "(fast, 1 streams)" for every request of a one-stream level
    import io

    from commands.probe import _progress_printer

    events = []
    with LoopbackServer(_batched_app()) as server:
        s = settings_for(server.base_url, subset(1)[:2], baseline=True)
        s.concurrency, s.max_tokens = (1, 2), 6
        run = run_to_end(run_load(s, {}, limits=FAST_LIMITS), events.append)
    assert run.error is None, run.error
    said = {e.message for e in events if e.requests_done}
    assert {"fast, 1 stream", "baseline, 1 stream", "fast, 2 streams", "baseline, 2 streams"} <= said
    out = io.StringIO()
    for e in events:
        _progress_printer(out)(e)
    assert "(fast, 1 stream)," in out.getvalue() and "(baseline, 2 streams)," in out.getvalue()
