"""Intervals on imported acceptance: per-request records give one (requests as the unit), counters say they cannot."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from model.mechanics import arithmetic as ar
from model.acceptance import COUNTS_ONLY, TOO_FEW, alpha_interval
from model.metrics.read import read_sources
from model.metrics.result import MetricsError
from tests.model.metrics.engine_files import iid_steps, vllm_scrape


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _trt_line(task_class: str, hist: list[int]) -> str:
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    return json.dumps({"task_class": task_class, "response": {"id": "chatcmpl-1", "metrics": {
        "speculative_decoding": {"num_spec_steps": steps, "num_draft_tokens": 4 * steps,
                                 "num_accepted_draft_tokens": accepted, "acceptance_histogram": hist,
                                 "num_spec_tokens": 4}}}})


def test_records_with_histograms_give_the_ml_interval(tmp_path: Path) -> None:
    alphas = [0.6, 0.7, 0.8, 0.75, 0.65, 0.72]
    hists = [iid_steps(a, 4, 60) for a in alphas]
    [s] = read_sources([_write(tmp_path, "r.jsonl", "\n".join(_trt_line("code", h) for h in hists) + "\n")])
    a = s.acceptance
    # by hand: each request's accepted drafts and trials (accepted + steps short of K) into the cluster interval
    acc = np.array([sum(j * n for j, n in enumerate(h)) for h in hists], dtype=float)
    trials = acc + np.array([sum(h[:-1]) for h in hists], dtype=float)
    want = alpha_interval(acc, trials, 0.95)
    assert a.point == pytest.approx(s.alpha) and a.requests == 6
    assert (a.low, a.high) == pytest.approx((min(want.low, s.alpha), max(want.high, s.alpha)))
    d = s.to_dict()
    assert d["alpha_interval"] == pytest.approx([a.low, a.high]) and d["confidence"] == 0.95 and d["requests"] == 6
    s.confidence = 0.8
    assert s.acceptance.half_width < a.half_width


def test_llamacpp_records_interval_on_the_rate_carried_to_alpha(tmp_path: Path) -> None:
    pairs = [(40, 30), (40, 22), (48, 40), (36, 20), (44, 33), (40, 28), (52, 41)]
    text = "\n".join(json.dumps({"task_class": "prose", "timings": {"draft_n": n, "draft_n_accepted": a}})
                     for n, a in pairs) + "\n"
    [s] = read_sources([_write(tmp_path, "llama.jsonl", text)], k=4)
    a = s.acceptance
    rate = alpha_interval([p[1] for p in pairs], [p[0] for p in pairs], 0.95)
    ends = ar.draft_acceptance_rate_to_alpha(np.array([rate.low, rate.high]), 4).alpha
    assert a.has_interval and a.low == pytest.approx(min(ends[0], s.alpha)) and a.high == pytest.approx(max(ends[1], s.alpha))
    assert a.low < s.alpha < a.high


def test_few_records_and_counters_say_why_there_is_no_interval(tmp_path: Path) -> None:
    text = "\n".join(_trt_line("code", iid_steps(0.7, 4, 50)) for _ in range(3)) + "\n"
    [s] = read_sources([_write(tmp_path, "r.jsonl", text)])
    assert s.acceptance.interval is None and s.acceptance.note == TOO_FEW
    [scrape] = read_sources([_write(tmp_path, "m.prom", vllm_scrape({"llama": iid_steps(0.8, 4, 20_000)}))])
    assert scrape.acceptance.interval is None and scrape.to_dict()["interval_note"] == COUNTS_ONLY
    assert scrape.to_dict()["alpha_interval"] is None


def test_records_with_a_profile_give_its_e_an_interval_the_comparison_uses(tmp_path: Path) -> None:
    """import-metrics --apply keeps the records' per-position profile, which decides E: the interval on E must go
    with it (it went without: compare said 'no interval on this mean acceptance length' for a class measured
    from 6 requests, and its verdicts could never be undecided)."""
    from model.acceptance.interval import length_interval
    from model.comparison import compare
    from model.workbook.measured_apply import apply_plan, plan_measured
    from model.workbook.json_file import load_demo

    alphas = [0.6, 0.7, 0.8, 0.75, 0.65, 0.72]
    hists = [iid_steps(a, 4, 60) for a in alphas]
    [s] = read_sources([_write(tmp_path, "r.jsonl", "\n".join(_trt_line("code", h) for h in hists) + "\n")])
    want = length_interval([sum(j * n for j, n in enumerate(h)) for h in hists], [sum(h) for h in hists], 4, 0.95)
    assert s.profile and s.mean_acceptance_length_interval == pytest.approx([want.low, want.high])
    assert s.to_dict()["mean_acceptance_length_interval"] == pytest.approx([want.low, want.high])
    wb = load_demo()
    todo, _ = plan_measured(wb, [s], False)
    apply_plan(wb, todo, "imported", "Northwind Turbo", source="imported")
    cmp = compare(wb)
    i, j = wb.tier_index("Northwind Turbo"), wb.class_index("code")
    lo, hi = cmp.cells.speedup_low[i, j], cmp.cells.speedup_high[i, j]
    assert np.isfinite(lo) and np.isfinite(hi) and lo < cmp.cells.speedup[i, j] < hi


def test_a_sample_result_imports_with_the_interval_sample_gave_it(tmp_path: Path) -> None:
    """`sample --json` keeps every prompt's stretches; import-metrics read only the class totals and said
    'counts only: interval unknown', so its --apply lost the interval sample had printed."""
    from model.sampling.run import ClassResult, PromptResult, SamplingResult, attach_intervals

    r = SamplingResult("CPU", 4, 0.0, 0, 48, "d", "t")
    counts = [[4, 2, 0, 4], [1, 1, 3], [4, 4, 4, 2], [0, 0, 1], [3, 4, 2], [2, 2, 2], [4, 3, 4]]
    nan = float("nan")
    for i, c in enumerate(counts):
        r.prompts.append(PromptResult("code", i + 1, [], c + [1], [], "", [4] * len(c) + [2], prompt_key=f"k{i % 6}"))
    hist = [sum(a == j for c in counts for a in c) for j in range(5)]
    accepted = sum(map(sum, counts))
    r.classes = [ClassResult("code", 7, sum(hist), 4 * sum(hist), accepted, 0, 0.7, nan, nan, hist, [], nan, nan,
                             nan, nan, nan, nan)]
    attach_intervals(r, 0.95)
    [s] = read_sources([_write(tmp_path, "sample.json", r.to_json())])
    mine = r.classes[0]
    assert s.interval_unit == "prompt" and s.acceptance.requests == mine.requests == 6  # two lines, one prompt
    assert s.acceptance.interval == pytest.approx(tuple(mine.alpha_interval))
    assert s.mean_acceptance_length_interval == pytest.approx(mine.mean_acceptance_length_interval)
    bad = json.loads(r.to_json())
    bad["prompts"][2]["accepted_counts"][0] = 5  # more than K drafts accepted
    with pytest.raises(MetricsError, match=r"prompts\[2\]: a stretch accepted 5 of 4 drafts"):
        read_sources([_write(tmp_path, "bad.json", json.dumps(bad))])
