"""Speed from what the vendor counts: a stream of several tokens a chunk without logprobs (as closed vendors send)
is timed by the usage's token count over the stream's first-to-last content, never by counting chunks.

Known truth: the vendor-style server streams the fast tier at 100 tokens/s and the standard one at 40 (2.5x).
The probe used to count one token per chunk, call the rest of the usage silent tokens and report about 0.9x.
"""
from __future__ import annotations

import pytest

from model.common.cancel import run_to_end
from model.probe.analysis import analyse
from model.probe.demo_server import LoopbackServer
from model.probe.run import run_probe
from model.probe.vendor_server import Pace
from tests.probe_servers import FAST_LIMITS
from tests.vendor_servers import vendor_app, vendor_settings

pytest.importorskip("uvicorn")


@pytest.fixture(scope="module")
def chunked_run():
    app, truth = vendor_app(Pace(fast_tokens_per_s=100.0, standard_tokens_per_s=40.0, flush_s=0.05))
    with LoopbackServer(app) as server:
        run = run_to_end(run_probe(vendor_settings(server.base_url, "openai-chat", 6), {}, limits=FAST_LIMITS))
    assert run.error is None, run.error
    return run, truth


def test_multi_token_chunks_without_logprobs_give_the_speedup_within_10_percent(chunked_run) -> None:
    run, _ = chunked_run
    report = analyse(run.records, run.header)
    for c in report.classes:
        (speedup,) = c.speedup_measured.values()
        assert speedup == pytest.approx(2.5, rel=0.10), (c.task_class, speedup)
        assert c.decode_tokens_per_s == pytest.approx(100.0, rel=0.10)
    assert report.silent_tokens == 0
    assert not any("produced no content event" in n for n in report.notes)


def test_each_request_says_how_it_was_timed_and_the_verdict_is_about_speed(chunked_run) -> None:
    run, _ = chunked_run
    report = analyse(run.records, run.header)
    assert report.timing == {"events": 0, "usage": len(run.records), "untimed": 0}
    data = report.to_dict()
    assert data["timing"]["usage"] == 12 and "never events counted as tokens" in data["timing"]["definition"]
    rows = data["request_timing"]
    assert len(rows) == 12 and {r["timed_by"] for r in rows} == {"usage"}
    fast = [r["tokens_per_s"] for r in rows if r["role"] == "fast"]
    assert all(abs(x - 100.0) < 25.0 for x in fast), fast
    assert {r["served_tier"] for r in rows if r["role"] == "fast"} == {"priority"}
    # the stream hides the steps: no alpha, and the verdict is about speed, plainly faster, not "inconclusive"
    assert report.verdict == "faster", report.evidence
    assert "Acceptance cannot be read from this API" in report.evidence
    assert all(c.alpha is None for c in report.classes)


def test_timing_by_usage_leaves_the_llamacpp_reading_alone() -> None:
    """One token an event with logprobs on some (llama.cpp) stays timed by its events, silent tokens after."""
    from model.probe.events import RequestRecord, StreamEvent
    from model.probe.output_timing import EVENTS, USAGE, output_timing, timed_by

    r = RequestRecord("r", "fast", "code", 0, 0, 0, 8, usage={"completion_tokens": 6})
    r.events = [StreamEvent(0.0, "a", 1, ["a"]), StreamEvent(0.1, "b", None), StreamEvent(0.2, "c", None)]
    assert timed_by(r) == EVENTS and output_timing(r).decode_tokens == 2
    r.events = [StreamEvent(0.0, "abcd", None), StreamEvent(0.1, "efgh", None)]
    assert timed_by(r) == USAGE and output_timing(r).decode_tokens == pytest.approx(3.0)
