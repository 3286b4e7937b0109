"""The probe against serve-demo's app in every stream style, over a real loopback socket.

One probe per style (module-scoped: 12 demo prompts, 2 per class, 24 tokens, 20 ms steps), then
what it concluded is checked against what the server itself knows it did. "plain-silent" is the
plain style with silent tokens (the end of text and what follows it, counted in the usage, no content
event, the answer running on to its budget); the llamacpp style stops at its end of text and sends that
one token silent, as llama.cpp's server does.
"""
from __future__ import annotations

import pytest

from model.common.cancel import run_to_end
from model.common.formatting import count
from model.probe.analysis import analyse
from model.probe.demo_server import LoopbackServer
from model.probe.events import FAST
from model.probe.run import run_probe
from model.probe.steps import PER_TOKEN_GAPS, detect_style, read_steps
from model.probe.demo_server import DemoModel
from tests.probe_servers import (FAST_LIMITS, STEP_S, DemoProcess, demo_app, kept_truth_alpha, settings_for,
                                 subset, truth_alpha)

pytest.importorskip("uvicorn")


@pytest.fixture(scope="module")
def probed():
    cache = {}

    def get(style: str):
        if style not in cache:
            name, silent = style.replace("-silent", ""), True if style.endswith("-silent") else None
            # the styles read by their timing run the server in a process of its own, as a real server is
            # (in the probe's process its work on a big step would delay the client): tests.probe_servers
            if name in ("llamacpp", "per-token"):
                server = DemoProcess(name, silent=silent)
            else:
                app, models = demo_app(name, silent=silent)
                server = LoopbackServer(app)
            with server:
                # a baseline where a test reads it (identity, one token per step): it doubles the requests
                # llamacpp: more steps per class, as some are left out when the machine is busy (merges)
                llama = style == "llamacpp"
                settings = settings_for(server.base_url, subset(3 if llama else 2),
                                        baseline=style in ("vllm", "plain", "llamacpp"))
                if llama:
                    settings.max_tokens = 32
                run = run_to_end(run_probe(settings, {}, limits=FAST_LIMITS))
            assert run.error is None, run.error
            if isinstance(server, DemoProcess):
                models = {"demo-fast": DemoModel(lambda *a: None, name, server.truth)}
            cache[style] = (run, analyse(run.records, run.header), models)
        return cache[style]
    return get


@pytest.mark.parametrize(("style", "expected"), [("vllm", "yes"), ("per-token", "yes"), ("plain", "no"),
                                                 ("chunked", "inconclusive"), ("llamacpp", "yes"),
                                                 ("plain-silent", "no")])
def test_the_verdict_is_right_for_every_style(probed, style: str, expected: str) -> None:
    run, report, _ = probed(style)
    assert report.verdict == expected, report.evidence
    assert report.evidence
    if expected == "yes":
        assert report.k_estimate == 4  # the demo server drafts K = 4


@pytest.mark.parametrize("style", ["vllm", "per-token"])
def test_alpha_from_timing_is_within_005_of_the_servers_truth_per_class(probed, style: str) -> None:
    run, report, models = probed(style)
    truth = models["demo-fast"].truth
    fast = [r for r in run.records if r.role == FAST and r.ok]
    for c in report.classes:
        ids = {r.response_id for r in run.records if r.role == FAST and r.task_class == c.task_class}
        left = _kept_steps_agree(c, fast, truth, ids, report)
        if style == "vllm":  # one event a step: nothing to leave out, the truth over every full-K step
            assert left == 0 and abs(c.alpha_timing - truth_alpha(truth, ids)) <= 0.05


def _kept_steps_agree(c, fast, truth, ids: set[str], report) -> int:
    """alpha from timing held to the server's truth over the steps the probe kept: a busy machine makes it leave
    some out (a late read merges two steps; with the kernel's receive times every merge is seen, and a step the
    server sent late is left out too), and the steps it kept must each be one of the server's."""
    assert c.alpha_timing is not None, (c.task_class, report.notes)
    mine = [r for r in fast if r.task_class == c.task_class]
    reading = read_steps(mine, detect_style(fast), report.k_estimate, judge=False)
    kept_alpha, kept, left = kept_truth_alpha(truth, reading, ids, STEP_S)
    assert abs(c.alpha_timing - kept_alpha) <= 0.05, (c.task_class, c.alpha_timing, kept_alpha, report.notes)
    assert left <= kept, (c.task_class, kept, left, report.notes)
    return left


def test_the_reported_path_gives_the_servers_alpha_exactly(probed) -> None:
    run, report, models = probed("vllm")
    truth = models["demo-fast"].truth
    for c in report.classes:
        ids = {r.response_id for r in run.records if r.role == FAST and r.task_class == c.task_class}
        assert c.alpha_source == "reported"
        # the server's histogram by draft length tells a last draft cut short and wholly accepted from a rejection
        assert c.alpha == pytest.approx(truth_alpha(truth, ids, every_stretch=True), abs=1e-12)
        assert c.reported_convention.startswith("vllm") and "per-token alpha" in c.reported_convention


def test_the_chunked_stream_still_reports_alpha_but_no_timing_estimate(probed) -> None:
    _, report, _ = probed("chunked")
    assert all(c.alpha_timing is None and c.alpha_source == "reported" for c in report.classes)


@pytest.mark.parametrize("style", ["plain", "vllm"])
def test_identity_is_complete_between_plain_and_speculative_at_temperature_0(probed, style: str) -> None:
    _, report, _ = probed(style)
    assert report.identity.compared == len(subset(3 if style == "llamacpp" else 2))
    assert report.identity.share == 1.0, report.identity.divergences


def test_the_baseline_shows_one_token_per_step_and_the_fast_tier_more(probed) -> None:
    _, report, _ = probed("vllm")
    assert report.baseline_mean_tokens_per_step == pytest.approx(1.0)
    assert all(c.mean_tokens_per_step > 1.0 for c in report.classes if c.task_class == "code")
    assert all(set(c.speedup_measured) == {"prompt only"} for c in report.classes)


def _ids(run, task_class: str) -> set[str]:
    return {r.response_id for r in run.records if r.role == FAST and r.task_class == task_class}


def test_llamacpp_alpha_from_timing_is_within_005_of_the_truth_it_could_see(probed) -> None:
    run, report, models = probed("llamacpp")
    truth = models["demo-fast"].truth
    assert report.k_estimate == 4 and report.k_source == "timing"
    fast = [r for r in run.records if r.role == FAST and r.ok]
    for c in report.classes:
        # the stretches after an end of text send no event: the client cannot see them, so the truth it is
        # held to is over the stretches whose every token it saw, and that it kept
        _kept_steps_agree(c, fast, truth, _ids(run, c.task_class), report)


def test_llamacpp_reported_draft_acceptance_rate_is_the_servers_and_k_agrees(probed) -> None:
    run, report, models = probed("llamacpp")
    truth = {t["id"]: t for t in models["demo-fast"].truth}
    tails = 0
    for c in report.classes:
        # a response that ran on past its end of text (more than the end-of-text token silent) counts drafts of
        # no text: the reported figures are the others' (model.probe.reported.past_the_text)
        mine = [truth[i] for i in _ids(run, c.task_class) if truth[i]["silent"] <= 1]
        tails += len(_ids(run, c.task_class)) - len(mine)
        if not mine:
            assert c.alpha_reported is None and c.alpha_source == "timing", c.task_class
            continue
        rate = sum(sum(t["accepted"]) for t in mine) / sum(sum(t["drafted"]) for t in mine)
        assert c.reported_draft_acceptance_rate == pytest.approx(rate, abs=1e-12), c.task_class
        assert c.reported_convention.startswith("llamacpp")
        assert c.alpha_reported is not None and c.alpha_source == "reported"
    assert any(n.startswith("K = 4: the server's") for n in report.notes), report.notes
    assert not tails or any("run past the end of their text" in n for n in report.notes), report.notes


@pytest.mark.parametrize("style", ["llamacpp", "plain-silent"])
def test_silent_tokens_are_counted_not_refused(probed, style: str) -> None:
    run, report, models = probed(style)
    silent = sum(t["silent"] for t in models["demo-fast"].truth)
    assert silent > 0  # the demo prompts include one that ends early: its end (and, run on, what follows) is silent
    assert report.silent_tokens == silent
    assert any(f"{count(silent, 'token')} in" in n for n in report.notes), report.notes
    fast = [r for r in run.records if r.role == FAST]
    if style == "llamacpp":  # stopped at the end of text, the end token the one silent token
        stopped = [r for r in fast if r.finish_reason == "stop"]
        assert stopped and silent == len(stopped)
        assert not any("past the end of their text" in n for n in report.notes), report.notes
    else:
        assert all(r.usage["completion_tokens"] == r.max_tokens for r in fast)


def test_llamacpp_style_streams_like_llama_cpp(probed) -> None:
    run, report, _ = probed("llamacpp")
    fast = [r for r in run.records if r.role == FAST]
    assert report.stream_style == PER_TOKEN_GAPS and "read as one token" in report.evidence
    events = [e for r in fast for e in r.content_events]
    assert all(e.n_tokens in (1, None) for e in events)
    assert 0 < sum(e.n_tokens is None for e in events) < len(events)  # logprobs on some events only
    for r in fast:
        timings = r.reported["timings"]
        assert {"draft_n", "draft_n_accepted", "predicted_n", "prompt_n"} <= set(timings)
        assert "metrics" not in r.reported
