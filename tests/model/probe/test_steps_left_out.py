"""A material share of steps left out is said, though the reading stands (model.probe.merges.MATERIAL_SHARE).

Steps left out by the kernel's receive times (a step the server sent late) do not make a run unreliable unless
most are; a cold llama.cpp server left out 49 of 180 that way and the probe said nothing beyond a note. Here a
server that pauses before a quarter of its steps is read by the kernel's clock: K and alpha still come from the
timing, and the text, the JSON and the dock's words say that a quarter of the steps were left out."""
from __future__ import annotations

import json

import numpy as np

from commands.probe_text import format_report
from model.probe.analysis import analyse
from model.probe.events import FAST, RequestRecord, StreamEvent
from model.probe.merges import LATE_ARRIVAL, MATERIAL_SHARE

K, STEP_S = 4, 0.02


def _request(rng: np.random.Generator, index: int, late_every: int | None) -> RequestRecord:
    """llama.cpp-like: one event per token, a step's tokens 20 us apart, steps 20 ms apart, stamped by the kernel;
    the role chunk comes a decode time before the first token; every ``late_every``-th step the server sends 25 ms
    late (over 1.5 decode times after the step before it)."""
    accepted = [int(a) for a in np.minimum(rng.geometric(0.25, 40) - 1, K)]
    tokens = sum(a + 1 for a in accepted)
    r = RequestRecord(f"r{index}", FAST, "code", index, 0, 0, tokens + K + 1, finish_reason="length",
                      prompt_key=f"p{index}", clock="kernel", t_first_payload=0.08, stalls=[])
    r.usage = {"completion_tokens": tokens}
    t = 0.1
    for j, a in enumerate(accepted):
        if late_every and j % late_every == late_every - 1:
            t += 0.025
        for i in range(a + 1):
            r.events.append(StreamEvent(t + i * 2e-5, "ab", 1, ["ab"]))
        t += STEP_S
    return r


def test_a_quarter_of_the_steps_sent_late_is_said_in_text_and_json_while_k_and_alpha_stand() -> None:
    rng = np.random.default_rng(3)
    report = analyse([_request(rng, i, late_every=4) for i in range(6)])
    share = report.steps_left_out_share
    assert share is not None and MATERIAL_SHARE < share < 0.5
    assert not report.timing_unreliable and report.k_estimate == K
    assert report.classes[0].alpha_timing is not None
    assert report.many_steps_left_out and f"{share:.0%} of the steps" in report.steps_caution
    text = format_report(report)
    assert f"caution: {share:.0%} of the steps read ({report.steps_left_out} of {report.steps_read}," in text
    data = json.loads(report.to_json())
    assert data["many_steps_left_out"] is True and data["steps_left_out"] == report.steps_left_out
    assert data["steps_read"] == report.steps_read and abs(data["steps_left_out_share"] - share) < 1e-12
    assert data["steps_caution"] == report.steps_caution


def test_a_steady_run_leaves_out_few_steps_and_says_no_caution() -> None:
    rng = np.random.default_rng(4)
    report = analyse([_request(rng, i, late_every=None) for i in range(6)])
    assert report.k_estimate == K and not report.timing_unreliable
    assert report.steps_left_out_share is not None and report.steps_left_out_share <= MATERIAL_SHARE
    assert not report.many_steps_left_out and "caution" not in format_report(report)
    assert json.loads(report.to_json())["steps_caution"] is None


def test_the_late_steps_are_left_out_by_the_kernels_time() -> None:
    rng = np.random.default_rng(5)
    records = [_request(rng, i, late_every=4) for i in range(2)]
    from model.probe.steps import detect_style, read_steps
    reading = read_steps(records, detect_style(records))
    assert sum(g.suspect == LATE_ARRIVAL for _, gs in reading.groups for g in gs) == 20  # 10 a request


def test_a_server_that_pauses_before_every_fourth_step_is_probed_and_the_caution_said() -> None:
    """Over a real loopback socket: llama.cpp's stream style, a server that sends every fourth step 30 ms late."""
    import pytest
    pytest.importorskip("uvicorn")
    from model.common.cancel import run_to_end
    from model.probe.demo_server import DemoModel, Generation, LoopbackServer, Step, create_app
    from model.probe.run import run_probe
    from tests.probe_servers import FAST_LIMITS, settings_for, subset

    def generate(prompt: str, max_tokens: int) -> Generation:
        rng = np.random.default_rng(abs(hash(prompt)) % 2**32)
        steps, n = [Step(("a",), 0, 0, STEP_S)], 1  # the prompt pass's token
        while n < max_tokens:
            a = int(min(rng.geometric(0.3) - 1, K, max_tokens - n - 1))
            late = 0.03 if len(steps) % 4 == 3 else 0.0
            steps.append(Step(tuple("b" * (a + 1)), K, a, STEP_S + late))
            n += a + 1
        return Generation(5, steps, K)

    app = create_app({"demo-fast": DemoModel(generate, "llamacpp")}, min_step_s=0.0)
    with LoopbackServer(app) as server:
        settings = settings_for(server.base_url, subset(2), baseline=False)
        settings.max_tokens = 48
        run = run_to_end(run_probe(settings, {}, limits=FAST_LIMITS))
    assert run.error is None, run.error
    report = analyse(run.records, run.header)
    assert not report.timing_unreliable and report.k_estimate == K, report.evidence
    assert report.many_steps_left_out and "caution: " in format_report(report), report.evidence
    assert json.loads(report.to_json())["many_steps_left_out"] is True
