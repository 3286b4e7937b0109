"""serve-demo's time to first token is a simulated prefill for every request (PrefillRule): the prompt's
tokens at the stated rate after a step, or the demo pair's compute of the answer where longer, and a
repeated prompt whose answer the batched server kept waits the same, not the cache's ~0."""
from __future__ import annotations

import json
import time

import httpx
import pytest

from model.probe.batching import BatchRule, PrefillRule
from model.probe.demo_server import DemoModel, Generation, LoopbackServer, Step, create_app

pytest.importorskip("uvicorn")

RATE = 1000.0  # prompt tokens a second: 300 tokens are 0.3 s of prefill


def _model(compute_s: float) -> DemoModel:
    def generate(text: str, max_tokens: int) -> Generation:
        time.sleep(compute_s)  # what the demo pair took to compute the answer
        words = text.split()
        return Generation(min(len(words), 20), [Step(("x",), 0, 0, 0.0)] * max_tokens, 0, sent_tokens=len(words))
    return DemoModel(generate, "vllm")


def _ttft(base_url: str, model: str, prompt: str) -> float:
    body = {"model": model, "stream": True, "max_tokens": 3, "messages": [{"role": "user", "content": prompt}]}
    start = time.perf_counter()
    with httpx.stream("POST", base_url + "/chat/completions", json=body, timeout=10) as response:
        for line in response.iter_lines():
            if line.startswith("data: {") and json.loads(line[6:])["choices"][0]["delta"].get("content"):
                return time.perf_counter() - start
    raise AssertionError("no content event")


@pytest.mark.parametrize("batch", [BatchRule(0.02, 32), None], ids=["batched", "paced"])
def test_every_request_waits_its_prefill_a_kept_answer_too(batch):
    app = create_app({"quick": _model(0.0), "slow": _model(0.25)}, min_step_s=0.02, batch=batch,
                     prefill_tokens_per_s=RATE)
    long_prompt = " ".join(["w"] * 300)
    with LoopbackServer(app) as server:
        # the rule: a step (20 ms) and 300 tokens at 1,000 a second, however long the prompt the model kept (20)
        assert _ttft(server.base_url, "quick", long_prompt) >= 0.02 + 0.3
        assert _ttft(server.base_url, "quick", long_prompt) >= 0.02 + 0.3  # again: the batched server kept it
        # a short prompt whose answer took 0.25 s to compute: the first request waited for the compute, and a
        # repeat (kept by the batched server, computed afresh by the paced one) waits as long
        assert _ttft(server.base_url, "slow", "hi") >= 0.25
        assert _ttft(server.base_url, "slow", "hi") >= 0.25


def test_the_rule_says_what_it_does():
    rule = PrefillRule(0.02, 10_000.0)
    assert rule.seconds(5000) == pytest.approx(0.52)
    assert rule.seconds(100, computed_s=0.4) == 0.4
    assert "prefill = 20 ms + prompt tokens / 10000 per s" in rule.describe()
