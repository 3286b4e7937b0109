"""serve-demo (the demo pair's own speculative loop behind a vLLM-style server): its /metrics page scraped before
and after a run, and the run's responses as JSON lines, import to the acceptance the sampler measured."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from model.mechanics import arithmetic as ar
from model.metrics.read import read_sources

pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")
K = 4


def _ml_alpha(accepted: list[int]) -> float:
    return ar.histogram_alpha([accepted.count(j) for j in range(K + 1)])


def test_scrapes_and_responses_around_a_run_import_to_the_samplers_alpha(tmp_path: Path) -> None:
    from commands.serve_demo import FAST_MODEL, demo_models
    from model.probe.demo_server import LoopbackServer, create_app

    models = demo_models("vllm", K)
    prompts = ["def add(a, b):\n    return", '{"name": "Ada", "age":', "Once upon a time, in a quiet town,"]
    with LoopbackServer(create_app(models, min_step_s=0.0)) as server, httpx.Client(timeout=30.0) as client:
        root = server.base_url.removesuffix("/v1")  # the API under /v1, the Prometheus page at /metrics

        def ask(text: str) -> dict:
            r = client.post(f"{root}/v1/chat/completions", json={
                "model": FAST_MODEL, "max_tokens": 40, "messages": [{"role": "user", "content": text}]})
            r.raise_for_status()
            return r.json()

        ask("warm-up before the first scrape")  # so the difference of the scrapes is what is checked
        (tmp_path / "before.prom").write_text(client.get(f"{root}/metrics").text)
        first = len(models[FAST_MODEL].truth)
        answers = [{"task_class": "demo", "response": ask(text)} for text in prompts]
        (tmp_path / "after.prom").write_text(client.get(f"{root}/metrics").text)
    (tmp_path / "responses.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers))
    run = models[FAST_MODEL].truth[first:]
    steps = [(a, d) for t in run for a, d in zip(t["accepted"], t["drafted"]) if d > 0]
    full = [a for a, d in steps if d == K]  # what the sampler's alpha is measured on

    [scraped] = read_sources([tmp_path / "before.prom", tmp_path / "after.prom"])
    assert scraped.kind == "prometheus-difference" and scraped.counts.k == K
    assert scraped.counts.steps == len(steps) and scraped.counts.accepted == sum(a for a, _ in steps)
    # every drafted step, a short draft wholly accepted being no rejection (the server's own truth)
    accepted = sum(a for a, _ in steps)
    truth = accepted / (accepted + sum(a < d for a, d in steps))
    # /metrics cannot tell a short draft wholly accepted from a rejection: its alpha is the low end, counting every
    # step that may have rejected as one (the ML rule over every drafted step where the unaccepted drafts allow)
    low, high = scraped.counts.alpha_range
    assert low - 1e-12 <= truth <= high + 1e-12 and scraped.counts.alpha == low
    if len(full) == len(steps):
        assert scraped.counts.alpha == pytest.approx(_ml_alpha(full), abs=1e-12) == pytest.approx(truth, abs=1e-12)
    else:
        assert any("fewer than K" in n for n in scraped.notes)

    [recorded] = read_sources([tmp_path / "responses.jsonl"])
    assert recorded.task_class == "demo"
    # per request the histogram by draft length tells them apart: the server's truth exactly
    assert recorded.counts.alpha == pytest.approx(truth, abs=1e-12) and recorded.counts.truncation_known
