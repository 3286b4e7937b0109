"""serve-demo --lenient: demo-fast samples from a sharpened target while reporting the target's logprobs; the quality
test finds it at the documented example's budget, and never calls the exact tiers lossy."""
from __future__ import annotations

import json

import numpy as np
import pytest

from model.common.cancel import run_to_end
from model.probe.analysis import analyse
from model.probe.demo_server import LoggedToken, LoopbackServer, Sampling, create_app
from model.probe.events import FAST
from model.probe.prompt_file import load_probe_prompts
from model.probe.run import run_probe
from model.quality.score_test import ReportedRequest, TokenReport, score_test
from model.quality.verdict import LOSSY
from tests.probe_servers import DEMO_PROMPTS, FAST_LIMITS, demo_pair, settings_for, subset

pytest.importorskip("uvicorn")

# the documented example (docs/guide/quality.md): every demo prompt, --repeats 2, 64 tokens, temperature 0.8
EXAMPLE = dict(repeats=2, max_tokens=64, temperature=0.8)


def _models(lenient: float):
    from commands.serve_demo import demo_models
    return demo_models("vllm", 4, pair=demo_pair(), lenient=lenient)


def _reported(gen, prompt: str) -> ReportedRequest:
    tokens = [t for s in gen.steps for t in s.tokens if t]
    assert all(isinstance(t, LoggedToken) for t in tokens)
    return ReportedRequest(prompt, tuple(TokenReport(tuple(lp for _, lp in t.top),
                                                     next((i for i, (x, _) in enumerate(t.top) if x == t), -1))
                                         for t in tokens))


def _example_test(model, seed0: int = 0):
    prompts = [p.messages[0]["content"] for p in load_probe_prompts(DEMO_PROMPTS)]
    requests = [_reported(model.sample(text, EXAMPLE["max_tokens"], Sampling(EXAMPLE["temperature"], seed0 + r, 5)),
                          text)
                for r in range(EXAMPLE["repeats"]) for text in prompts]
    return score_test(requests)


def test_lenient_at_the_default_strength_is_lossy_at_the_documented_budget():
    from commands.serve_demo import DEFAULT_LENIENT
    result = _example_test(_models(DEFAULT_LENIENT)["demo-fast"])
    assert result.p_value < 0.001 and result.statistic > 0


def test_the_exact_fast_tier_is_not_lossy_at_the_same_budget():
    # one seeded run here (the demo pair is slow to sample); the false alarm rate over many seeded runs is
    # tests/model/quality/test_score_test.py's, on a simulated exact sampler
    result = _example_test(_models(1.0)["demo-fast"], seed0=10)
    assert result.p_value >= 0.05, result.p_value


def test_lenient_changes_nothing_at_temperature_0():
    fast, exact = _models(1.25)["demo-fast"], _models(1.0)["demo-fast"]
    text = subset(1)[-1].messages[0]["content"]
    assert ([s.tokens for s in fast.generate(text, 24).steps] == [s.tokens for s in exact.generate(text, 24).steps])


def test_the_probe_at_a_temperature_reports_quality_beside_identity(tmp_path):
    app = create_app(_models(1.25), min_step_s=0.001)
    with LoopbackServer(app) as server:
        settings = settings_for(server.base_url, subset(1))
        settings.temperature, settings.repeats = 0.8, 2
        run = run_to_end(run_probe(settings, {}, tmp_path / "run.jsonl", limits=FAST_LIMITS))
    assert run.error is None
    sampled = [r for r in run.records if r.temperature == 0.8]
    assert len(sampled) == 2 * 2 * len(settings.prompts)
    assert all(e.top is not None and len(e.top[0]) == 5 for r in sampled if r.role == FAST for e in r.content_events)
    report = analyse(run.records, run.header)
    out = json.loads(report.to_json())
    assert out["identity"]["compared"] == len(settings.prompts)  # greedy identity on the greedy pass only
    assert out["identity"]["identical"] == len(settings.prompts)
    quality = out["quality"]
    assert set(quality) >= {"temperature", "test", "tokens", "requests", "statistic", "p_value", "verdict",
                            "detectable"}
    assert quality["test"] == "logprob score" and quality["temperature"] == 0.8
    assert quality["requests"] == 2 * len(settings.prompts)
    # the run file keeps what the analysis read
    from model.probe.run_file import read_run
    header, records = read_run(tmp_path / "run.jsonl")
    assert analyse(records, header).quality.to_dict() == report.quality.to_dict()
    assert np.isfinite(quality["statistic"])
