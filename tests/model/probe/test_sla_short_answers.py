"""The SLA leaves out answers too short to time (docs/design/vendor-speed.md#which-requests-the-sla-times): under a
timer-flushed stream a 7-token answer spans two chunks, and its speed would measure the chunking (here its first
chunk holds long tokens, so the text's share puts nearly all its tokens in the first chunk). Every request streams
truly fast: none may be named below the line, and the short ones are counted untimed, not judged."""
from __future__ import annotations

import pytest

from model.common.cancel import run_to_end
from model.probe.analysis import analyse
from model.probe.demo_server import Generation, LoopbackServer, Step
from model.probe.events import FAST
from model.probe.output_timing import output_timing
from model.probe.run import run_probe
from model.probe.sla import below_line, judge_sla, min_timed_tokens
from model.probe.vendor_server import Pace, VendorTruth, create_vendor_app
from tests.probe_servers import FAST_LIMITS
from tests.vendor_servers import vendor_settings

pytest.importorskip("uvicorn")

SHORT, LONG, LINE = 7, 64, 160.0


def long_then_short(prompt: str, max_tokens: int) -> Generation:
    """'code' prompts: a 7-token answer, its first five tokens long words; others 64 tokens of a few characters."""
    if "code" in prompt:
        words = [" extraordinarily"] * 5 + [" a", "."]
        return Generation(4, [Step((w,)) for w in words], 0, "stop")
    return Generation(4, [Step((f" w{i % 97}",)) for i in range(min(LONG, max_tokens))], 0, "length")


@pytest.fixture(scope="module")
def short_and_long():
    truth = VendorTruth()
    # 200 tok/s flushed every 25 ms: five tokens a chunk, the short answers in two chunks
    app = create_vendor_app(long_then_short, Pace(fast_tokens_per_s=200.0, standard_tokens_per_s=80.0,
                                                  first_token_s=0.005, flush_s=0.025), truth=truth)
    with LoopbackServer(app) as server:
        settings = vendor_settings(server.base_url, "openai-chat", 12, max_tokens=LONG, baseline=False)
        settings.sla = (LINE, 0.9)
        run = run_to_end(run_probe(settings, {}, limits=FAST_LIMITS))
    assert run.error is None, run.error
    return run


def test_a_short_truly_fast_answer_measures_the_chunking(short_and_long) -> None:
    short = [r for r in short_and_long.records if r.task_class == "code"]
    assert len(short) == 6 and all(output_timing(r).tokens == SHORT for r in short)
    speeds = [output_timing(r).tokens_per_s for r in short]
    assert all(s is not None and s < LINE for s in speeds), speeds  # the artefact the rule leaves out


def test_the_sla_leaves_the_short_answers_out_and_names_no_fast_request_below(short_and_long) -> None:
    run = short_and_long
    fast = [r for r in run.records if r.role == FAST]
    assert SHORT < min_timed_tokens(fast, LINE) <= LONG
    sla = analyse(run.records, run.header).sla
    assert sla["below"] == [] and sla["below_count"] == 0 and below_line(fast, LINE) == []
    assert sla["untimed"] == 6 and sla["requests"] == 6 and sla["verdict"] == "undecided"
    assert "counted untimed" in sla["timing_rule"] and sla["min_output_tokens"] == min_timed_tokens(fast, LINE)
    # which requests are timed follows their length, not their speed: a line either side of 200 tok/s times the same
    assert judge_sla(fast, 150.0, 0.9)["untimed"] == judge_sla(fast, 230.0, 0.9)["untimed"] == 6


def test_the_sla_line_says_how_many_were_too_short_and_why(short_and_long) -> None:
    from model.probe.sla import sla_line

    fast = [r for r in short_and_long.records if r.role == FAST]
    least = min_timed_tokens(fast, LINE)
    assert f"(6 too short to time left out: under {least} tokens)" in sla_line(judge_sla(fast, LINE, 0.9))
    assert "too short to time" in sla_line(judge_sla(fast, 1000.0, 0.9))  # none long enough for that line


def test_a_request_far_above_the_median_is_flagged_as_a_burst() -> None:
    from model.probe.events import RequestRecord, StreamEvent

    def record(i: int, rate: float) -> RequestRecord:
        r = RequestRecord(f"fast code #{i}", FAST, "code", i, 0, 0, 64, usage={"completion_tokens": 64},
                          finish_reason="length", t_done=1.0)
        r.events = [StreamEvent(0.05 + k * 4 / rate, " w" * 4, None) for k in range(16)]
        return r

    records = [record(i, 100.0) for i in range(9)] + [record(9, 426.0)]
    sla = judge_sla(records, 80.0, 0.9)
    assert [b["request"] for b in sla["far_above"]] == ["fast code #9"]
    assert sla["median_tokens_per_s"] is not None and 90 < sla["median_tokens_per_s"] < 110
    assert judge_sla(records[:9], 80.0, 0.9)["far_above"] == []


def test_the_cli_names_the_burst_under_the_sla_line() -> None:
    from types import SimpleNamespace

    from commands.probe_vendor import vendor_lines

    sla = judge_sla([], 80.0, 0.9)
    sla.update(far_above=[{"request": "fast prose #38", "tokens_per_s": 426.0}], median_tokens_per_s=101.0)
    lines = vendor_lines(SimpleNamespace(timing={}, served={}, sla=sla, by_concurrency=[]))
    assert any("far above the median 101 tok/s" in x and "fast prose #38 426 tok/s" in x for x in lines), lines


def test_before_the_run_a_token_budget_too_small_to_time_against_the_line_is_said() -> None:
    from model.probe.sla import sla_plan_words

    said = sla_plan_words(100.0, 0.99, 48, max_tokens=16)
    assert "too short to time" in said and "at least 26 tokens" in said
    assert "too short" not in sla_plan_words(100.0, 0.99, 48, max_tokens=64)
