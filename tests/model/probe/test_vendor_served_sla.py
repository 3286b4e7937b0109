"""The tier that served each request and the SLA, against the vendor-style server's known truth: a configured share
of fast requests downgraded (labelled so), a configured share served fast but slower than an SLA's line."""
from __future__ import annotations

import math

import pytest

from model.common.cancel import run_to_end
from model.probe.analysis import analyse
from model.probe.demo_server import LoopbackServer
from model.probe.run import run_probe
from model.probe.vendor_server import Pace
from tests.probe_servers import FAST_LIMITS
from tests.vendor_servers import vendor_app, vendor_settings

pytest.importorskip("uvicorn")

N = 40
DOWNGRADE = 0.25


@pytest.fixture(scope="module")
def downgraded():
    # spans of about 0.1 s (fast) and 0.25 s (standard): a loaded machine's late reads are small beside them
    app, truth = vendor_app(Pace(fast_tokens_per_s=300.0, standard_tokens_per_s=120.0, downgrade_share=DOWNGRADE,
                                 first_token_s=0.005, flush_s=0.01, seed=3))
    with LoopbackServer(app) as server:
        run = run_to_end(run_probe(vendor_settings(server.base_url, "openai-responses", N, max_tokens=32), {},
                                   limits=FAST_LIMITS))
    assert run.error is None, run.error
    return run, truth


def test_the_downgraded_share_is_the_servers_and_within_the_binomial_noise(downgraded) -> None:
    run, truth = downgraded
    report = analyse(run.records, run.header)
    asked = [s for s in truth.served if s.requested_fast]
    down = sum(not s.served_fast for s in asked)
    served = report.served
    assert (served["requested"], served["fast"], served["standard"], served["unknown"]) == \
        ("priority", N - down, down, 0)
    assert served["downgraded_share"] == pytest.approx(down / N)
    assert abs(served["downgraded_share"] - DOWNGRADE) <= 3 * math.sqrt(DOWNGRADE * (1 - DOWNGRADE) / N)
    lo, hi = served["downgraded_interval"]
    assert lo < DOWNGRADE < hi and served["interval_method"] == "Wilson score"
    assert any("served at standard speed" in n for n in report.notes)


def test_speedup_measured_is_over_the_requests_served_fast_and_as_served_over_all(downgraded) -> None:
    run, truth = downgraded
    report = analyse(run.records, run.header)
    (level,) = report.by_concurrency
    assert level.speedup_measured == pytest.approx(2.5, rel=0.10)
    d = report.served["downgraded_share"]
    assert level.downgraded == report.served["standard"]
    assert level.speedup_as_served == pytest.approx(1 / ((1 - d) / 2.5 + d), rel=0.10)
    assert level.speedup_as_served < level.speedup_measured * 0.95
    data = report.to_dict()
    assert data["by_concurrency"][0]["speedup_as_served"] == level.speedup_as_served
    assert set(data["served"]) >= {"requested", "fast", "standard", "unknown", "downgraded_share",
                                   "downgraded_interval"}


# the line at a third of the true speed: a met at 80% needs 14 requests with none below, and gets about 30 (each
# answer's 32 tokens take 0.32 s at the line: long enough to time); a line of 1000 tok/s would need 251 tokens
@pytest.mark.parametrize(("promise", "verdict"), [((100.0, 0.8), "met"), ((100.0, 0.99), "undecided")])
def test_the_sla_verdict_on_requests_served_fast(downgraded, promise, verdict) -> None:
    run, _ = downgraded
    header = {**run.header, "sla": {"threshold_tokens_per_s": promise[0], "promised_share": promise[1]}}
    sla = analyse(run.records, header).sla
    assert sla["verdict"] == verdict, sla
    assert sla["requests"] == analyse(run.records, run.header).served["fast"]
    assert set(sla) >= {"threshold_tokens_per_s", "promised_share", "measured_share", "share_interval", "requests",
                        "verdict"}
    if verdict == "undecided":
        assert sla["requests_needed_for_met"] == 299 and sla["below_count"] == 0


def test_answers_too_short_to_time_against_the_line_are_left_out_not_judged(downgraded) -> None:
    run, _ = downgraded
    header = {**run.header, "sla": {"threshold_tokens_per_s": 1000.0, "promised_share": 0.9}}
    sla = analyse(run.records, header).sla
    # 32 tokens take 32 ms at 1000 tok/s: too short to tell which side of that line they fall
    assert sla["min_output_tokens"] == 251 and sla["requests"] == 0 and sla["verdict"] == "undecided"
    assert sla["untimed"] == analyse(run.records, run.header).served["fast"] and sla["below"] == []


def test_a_share_slower_than_the_line_breaks_the_sla_and_is_named() -> None:
    app, truth = vendor_app(Pace(fast_tokens_per_s=500.0, standard_tokens_per_s=200.0, slow_share=0.5,
                                 slow_tokens_per_s=80.0, first_token_s=0.005, flush_s=0.01, seed=5))
    with LoopbackServer(app) as server:
        settings = vendor_settings(server.base_url, "anthropic-messages", 30, max_tokens=40, baseline=False)
        settings.sla = (150.0, 0.9)
        run = run_to_end(run_probe(settings, {}, limits=FAST_LIMITS))
    assert run.error is None, run.error
    sla = analyse(run.records, run.header).sla
    slow = {f"msg_{s.id}" for s in truth.served if s.slow}
    assert sla["verdict"] == "breached"
    assert sla["measured_share"] == pytest.approx(1 - len(slow) / 30)
    named = {b["request"] for b in sla["below"]}
    assert {r.response_id for r in run.records if r.label in named} == slow


def test_apply_carries_the_downgraded_share_and_the_sla_into_the_tier(downgraded) -> None:
    from model.probe.apply import apply_probe
    from model.workbook.json_file import load_demo

    run, _ = downgraded
    header = {**run.header, "sla": {"threshold_tokens_per_s": 100.0, "promised_share": 0.8}}
    report = analyse(run.records, header)
    wb = load_demo()
    name = wb.tiers[0].name
    apply_probe(wb, report, name)
    tier = wb.tiers[wb.tier_index(name)]
    assert tier.downgraded_share == pytest.approx(report.served["downgraded_share"])
    assert (tier.downgraded_low, tier.downgraded_high) == tuple(report.served["downgraded_interval"])
    assert tier.downgraded_requests == N
    assert (tier.sla_tokens_per_s, tier.sla_share) == (100.0, 0.8)
    assert tier.sla_measured_share == report.sla["measured_share"] and tier.sla_requests == report.sla["requests"]
    # the speedup kept beside the claim is the one on the requests served fast: the mix applies d once
    assert tier.measured_speedup == pytest.approx(report.by_concurrency[0].speedup_measured, rel=0.05)


def test_a_standard_tier_named_where_no_fast_tier_was_asked_for_is_no_downgrade() -> None:
    """OpenAI names service_tier "default" on every request that did not ask for priority: not a downgrade, and
    such requests stay in the speed."""
    from model.probe.events import RequestRecord
    from model.probe.served import FAST, STANDARD, UNKNOWN, served_as, served_fast

    r = RequestRecord("r", "fast", "code", 0, 0, 0, 8, served_tier="default")
    assert served_as(r, None) == UNKNOWN and served_as(r, "auto") == UNKNOWN
    assert served_as(r, "priority") == STANDARD and served_as(r, "fast") == STANDARD
    assert served_as(RequestRecord("r", "fast", "code", 0, 0, 0, 8, served_tier="priority"), None) == FAST
    assert served_fast([r], None) == [r]
