"""Reading engines' files: each format in the engine's own layout, a known alpha back, bad input refused in one line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from model.mechanics import arithmetic as ar
from model.metrics.read import applicable, missing_k, read_sources
from model.metrics.result import MetricsError
from tests.model.metrics.engine_files import (iid_steps, llamacpp_scrape, per_position, sglang_log_line, sglang_scrape, tgi_scrape,
                                              trtllm_scrape, vllm_log_line, vllm_scrape)


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("alpha", "k"), [(0.8, 5), (0.55, 3)])
def test_one_vllm_scrape_gives_the_totals_and_the_alpha(tmp_path: Path, alpha: float, k: int) -> None:
    path = _write(tmp_path, "metrics.prom", vllm_scrape({"meta-llama/Llama-3.1-8B-Instruct": iid_steps(alpha, k, 50_000)}))
    [source] = read_sources([path])
    row = source.to_dict()
    assert (row["engine"], row["k"], row["kind"]) == ("vllm", k, "prometheus")
    assert row["alpha"] == pytest.approx(alpha, abs=1e-3)
    assert row["draft_acceptance_rate"] == pytest.approx(float(ar.trailer_fill(alpha, k)), abs=1e-3)
    assert row["mean_acceptance_length"] == pytest.approx(float(ar.expected_tokens(alpha, k)), abs=1e-3)
    assert row["per_position"] == pytest.approx([alpha] * k, abs=2e-3)
    assert row["per_position_falls"] is False and row["alpha_applied"] == row["alpha"]
    assert any("since the server started" in n for n in row["notes"])


def test_two_scrapes_give_the_run_between_them(tmp_path: Path) -> None:
    model = "Qwen/Qwen2.5-7B-Instruct"
    warmup = iid_steps(0.3, 4, 20_000)  # before the run the server had served something quite different
    run = iid_steps(0.85, 4, 30_000)
    before = _write(tmp_path, "before.prom", vllm_scrape({model: warmup}, engines=2))
    after = _write(tmp_path, "after.prom", vllm_scrape({model: [a + b for a, b in zip(warmup, run)]}, engines=2))
    [source] = read_sources([before, after])
    assert source.kind == "prometheus-difference" and source.counts.steps == sum(run)
    assert source.counts.alpha == pytest.approx(0.85, abs=1e-3)


def test_a_counter_that_went_down_is_a_restart(tmp_path: Path) -> None:
    before = _write(tmp_path, "before.prom", vllm_scrape({"m": iid_steps(0.7, 3, 40_000)}))
    after = _write(tmp_path, "after.prom", vllm_scrape({"m": iid_steps(0.7, 3, 1_000)}))
    with pytest.raises(MetricsError, match=r"after\.prom: .*went down.*restarted") as info:
        read_sources([before, after])
    assert "\n" not in str(info.value)


def test_a_multi_model_scrape_gives_one_source_per_model(tmp_path: Path) -> None:
    path = _write(tmp_path, "metrics.prom", vllm_scrape({"llama-8b": iid_steps(0.8, 4, 10_000),
                                                        "qwen-7b": iid_steps(0.5, 4, 10_000)}, engines=2))
    sources = read_sources([path])
    assert {s.model: round(s.counts.alpha, 2) for s in sources} == {"llama-8b": 0.8, "qwen-7b": 0.5}
    assert all("2 models" in s.notes[0] for s in sources)


def test_vllm_log_lines_add_up_over_intervals(tmp_path: Path) -> None:
    lines = ["INFO 11-30 14:01:51 [loggers.py:123] Engine 000: Avg prompt throughput: 120.0 tokens/s",
             vllm_log_line(iid_steps(0.75, 3, 4_000)), vllm_log_line(iid_steps(0.75, 3, 6_000)),
             "INFO 11-30 14:02:31 [loggers.py:123] Engine 000: Avg generation throughput: 88.1 tokens/s"]
    [source] = read_sources([_write(tmp_path, "server.log", "\n".join(lines) + "\n")])
    assert (source.engine, source.kind, source.counts.k) == ("vllm", "log", 3)
    assert source.counts.steps == pytest.approx(10_000)
    assert source.counts.alpha == pytest.approx(0.75, abs=2e-3)


def test_a_k_that_disagrees_with_the_per_position_rates_names_the_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "server.log", "starting\n" + vllm_log_line(iid_steps(0.75, 3, 4_000)) + "\n")
    with pytest.raises(MetricsError, match=r"server\.log:2: --k 5 .* 3 per-position rates"):
        read_sources([path], k=5)


def test_sglang_log_lines_give_k_and_alpha_without_counts(tmp_path: Path) -> None:
    text = "\n".join(sglang_log_line(0.7, 4) for _ in range(3)) + "\n"
    [source] = read_sources([_write(tmp_path, "sglang.log", text)])
    row = source.to_dict()
    assert row["engine"] == "sglang" and row["k"] == 4 and row["drafts"] is None  # rates, not counts
    assert row["alpha"] == pytest.approx(0.7, abs=0.01)  # the log prints two decimals


def test_sglang_gauges(tmp_path: Path) -> None:
    [source] = read_sources([_write(tmp_path, "sglang.prom", sglang_scrape(0.62, 3))])
    assert source.counts.k == 3 and source.counts.alpha == pytest.approx(0.62, abs=1e-6)
    assert any("gauges" in n for n in source.notes)


def test_trtllm_needs_k_and_then_round_trips(tmp_path: Path) -> None:
    hist = iid_steps(0.66, 3, 20_000)
    path = _write(tmp_path, "trt.prom", trtllm_scrape(sum(hist) * 3, sum(j * n for j, n in enumerate(hist))))
    assert missing_k(read_sources([path]))
    [source] = read_sources([path], k=3)
    assert source.counts.alpha == pytest.approx(0.66, abs=1e-3)


def test_tgi_histogram_with_prefill_steps_taken_off(tmp_path: Path) -> None:
    hist = iid_steps(0.6, 2, 30_000)
    [source] = read_sources([_write(tmp_path, "tgi.prom", tgi_scrape(hist, requests=500))])
    assert source.counts.k == 2 and source.counts.histogram == tuple(float(h) for h in hist)
    assert source.counts.alpha == pytest.approx(0.6, abs=1e-3)


def test_records_by_task_class(tmp_path: Path) -> None:
    lines = []
    for task_class, alpha in (("code", 0.85), ("prose", 0.45)):
        for _ in range(3):
            hist = iid_steps(alpha, 4, 20_000)
            steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
            lines.append(json.dumps({"task_class": task_class, "response": {"id": "chatcmpl-1", "metrics": {
                "speculative_decoding": {"num_spec_steps": steps, "num_draft_tokens": 4 * steps,
                                         "num_accepted_draft_tokens": accepted, "acceptance_histogram": hist,
                                         "num_spec_tokens": 4}}}}))
    lines.append(json.dumps({"task_class": "code", "response": {"id": "x", "choices": []}}))
    sources = read_sources([_write(tmp_path, "requests.jsonl", "\n".join(lines) + "\n")])
    assert {s.task_class: round(s.counts.alpha, 2) for s in sources} == {"code": 0.85, "prose": 0.45}
    assert any("left out (lines 7)" in n for s in sources for n in s.notes)


def test_records_of_two_engines_in_one_file_are_refused(tmp_path: Path) -> None:
    lines = [json.dumps({"timings": {"draft_n": 40, "draft_n_accepted": 30}}),
             json.dumps({"meta_info": {"spec_verify_ct": 10, "spec_num_correct_drafts": 5, "spec_num_proposed_drafts": 30}})]
    with pytest.raises(MetricsError, match=r"requests\.jsonl:2: a sglang record after llamacpp"):
        read_sources([_write(tmp_path, "requests.jsonl", "\n".join(lines))])


def test_vllm_bench_serve_result(tmp_path: Path) -> None:
    hist = iid_steps(0.72, 3, 9_000)
    steps, accepted = sum(hist), sum(j * n for j, n in enumerate(hist))
    result = {"date": "20261130-140211", "backend": "vllm", "model_id": "meta-llama/Llama-3.1-8B-Instruct",
              "completed": 200, "output_throughput": 812.3, "spec_decode_acceptance_rate": 100 * accepted / (3 * steps),
              "spec_decode_acceptance_length": 1 + accepted / steps, "spec_decode_num_drafts": steps,
              "spec_decode_draft_tokens": 3 * steps, "spec_decode_accepted_tokens": accepted,
              "spec_decode_per_position_acceptance_rates": [p / steps for p in per_position(hist)]}
    [source] = read_sources([_write(tmp_path, "bench.json", json.dumps(result))], task_class="code")
    assert source.kind == "vllm-bench" and source.task_class == "code" and source.counts.k == 3
    assert source.counts.alpha == pytest.approx(0.72, abs=1e-3)


def test_specledger_sample_json(tmp_path: Path) -> None:
    hist = iid_steps(0.8, 4, 500)
    result = {"provider": "CUDAExecutionProvider", "k": 4, "temperature": 0.0, "seed": 0, "max_new_tokens": 64,
              "draft": "d", "target": "t", "classes": [{"task_class": "code", "stretches": sum(hist),
                                                        "drafted_tokens": 4 * sum(hist),
                                                        "accepted_tokens": sum(j * n for j, n in enumerate(hist)),
                                                        "histogram": hist, "alpha": ar.histogram_alpha(hist)}]}
    [source] = read_sources([_write(tmp_path, "gpu-box.json", json.dumps(result))])
    assert source.task_class == "code" and source.counts.alpha == pytest.approx(ar.histogram_alpha(hist))


def test_falling_per_position_rates_apply_the_e_matched_alpha(tmp_path: Path) -> None:
    # conditional 0.9, 0.75, 0.55, 0.4 at K = 4, many steps: clearly not i.i.d.
    steps, conditional = 40_000, (0.9, 0.75, 0.55, 0.4)
    reached, pos = float(steps), []
    for c in conditional:
        reached *= c
        pos.append(round(reached))
    hist = [steps - pos[0]] + [pos[i] - pos[i + 1] for i in range(3)] + [pos[3]]
    [source] = read_sources([_write(tmp_path, "metrics.prom", vllm_scrape({"m": hist}))])
    row = source.to_dict()
    assert row["per_position_falls"] is True
    assert row["alpha_applied"] == pytest.approx(row["alpha_e_matched"])
    assert float(ar.expected_tokens(row["alpha_applied"], 4)) == pytest.approx(row["mean_acceptance_length"], abs=1e-6)
    # E of the i.i.d. maximum-likelihood alpha misses the measured tokens per step; the applied alpha does not
    assert abs(float(ar.expected_tokens(row["alpha"], 4)) - row["mean_acceptance_length"]) > 0.05
    assert any("summary" in n for n in row["notes"])


@pytest.mark.parametrize(("name", "text", "message"), [
    ("notes.txt", "hello there\nthis is not metrics\n", r"notes\.txt: none of the formats read \(tried Prometheus text"),
    ("gauge.prom", "# TYPE vllm:spec_decode_num_drafts gauge\nvllm:spec_decode_num_drafts 3\n", r"is a gauge, but counter"),
    ("other.prom", "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 3.2\n", r"without speculative-decoding"),
    ("zero.prom", vllm_scrape({"m": [0, 0, 0]}), r"zero drafts"),
    ("bad.jsonl", '{"timings": {"draft_n": 3}}\n{"timings": \n', r"bad\.jsonl:2: not JSON"),
])
def test_bad_files_are_one_line_naming_the_file(tmp_path: Path, name: str, text: str, message: str) -> None:
    with pytest.raises(MetricsError, match=message) as info:
        read_sources([_write(tmp_path, name, text)])
    assert "\n" not in str(info.value)


def test_a_folder_is_refused_before_reading(tmp_path: Path) -> None:
    with pytest.raises(MetricsError, match="folder|directory"):
        read_sources([str(tmp_path)])


def test_two_sources_for_one_class_are_not_applied_together(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.prom", sglang_scrape(0.6, 3))
    b = _write(tmp_path, "b.log", sglang_log_line(0.7, 3) + "\n")
    # one line (2.53, 0.51) fits both accept-rate conventions (K = 4 in 0.5.x, K = 3 after): K given decides it
    with pytest.raises(MetricsError, match="two sources for task class 'code'"):
        applicable(read_sources([a, b], task_class="code", k=3))


def test_a_dropped_workbook_json_is_not_taken_for_metrics(tmp_path: Path) -> None:
    from model.metrics.read import is_metrics_path
    from model.workbook.json_file import load_demo, save_workbook
    save_workbook(load_demo(), tmp_path / "wb.json")
    bench = _write(tmp_path, "bench.json", json.dumps({"spec_decode_num_drafts": 3}))
    assert not is_metrics_path(tmp_path / "wb.json") and is_metrics_path(bench)
    assert is_metrics_path(_write(tmp_path, "a.prom", "x 1\n")) and not is_metrics_path(tmp_path / "r.xlsx")


def test_a_given_k_that_disagrees_with_the_position_labels_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, "metrics.prom", vllm_scrape({"m": iid_steps(0.7, 4, 5_000)}))
    with pytest.raises(MetricsError, match=r"metrics\.prom: K = 3 was given but the source has 4 draft positions"):
        read_sources([path], k=3)


def test_position_labels_with_a_gap_are_refused(tmp_path: Path) -> None:
    text = vllm_scrape({"m": iid_steps(0.7, 3, 5_000)}).replace('position="1"', 'position="5"')
    with pytest.raises(MetricsError, match=r"positions \[0, 2, 5\], not 0\.\.K-1"):
        read_sources([_write(tmp_path, "metrics.prom", text)])


def test_an_old_sglang_log_without_accept_rate_needs_k(tmp_path: Path) -> None:
    line = ("[2025-03-01 10:00:00 TP0] Decode batch. #running-req: 4, #token: 900, token usage: 0.01, "
            "accept len: 2.44, gen throughput (token/s): 210.3, #queue-req: 0")
    path = _write(tmp_path, "sglang.log", line + "\n")
    assert missing_k(read_sources([path]))
    [source] = read_sources([path], k=2)
    assert source.counts.alpha == pytest.approx(0.8, abs=0.005)  # E(0.8, 2) = 2.44 (Leviathan et al., Table 1)


def test_steps_that_drafted_fewer_than_k_are_said(tmp_path: Path) -> None:
    hist = iid_steps(0.7, 4, 1_000)
    text = vllm_scrape({"m": hist}).replace(f'vllm:spec_decode_num_draft_tokens_total{{engine="0",model_name="m"}} '
                                            f'{float(sum(hist) * 4)}',
                                            f'vllm:spec_decode_num_draft_tokens_total{{engine="0",model_name="m"}} '
                                            f'{float(sum(hist) * 4 - 30)}')
    [source] = read_sources([_write(tmp_path, "metrics.prom", text)])
    assert any(n.startswith("30 draft slots were not drafted") for n in source.notes)


def test_vllm_metrics_of_data_parallel_engines_are_summed_over_the_engine_label(tmp_path: Path) -> None:
    hist = iid_steps(0.75, 4, 9_001)  # 9,001 steps split 3,001 / 3,000 / 3,000 over three engines
    text = vllm_scrape({"llama": hist}, engines=3)
    assert text.count('engine="2"') > 0
    [source] = read_sources([_write(tmp_path, "dp.prom", text)])
    assert source.counts.steps == sum(hist) and source.counts.accepted == sum(j * n for j, n in enumerate(hist))
    assert source.counts.per_position_accepted == tuple(float(p) for p in per_position(hist))


def test_a_llamacpp_metrics_page_gives_k_and_alpha(tmp_path: Path) -> None:
    hist = iid_steps(0.8, 4, 2_000)
    [source] = read_sources([_write(tmp_path, "metrics", llamacpp_scrape(hist))])
    row = source.to_dict()
    assert (row["engine"], row["k"], row["kind"]) == ("llamacpp", 4, "prometheus")
    assert "llama.cpp" in row["format"]
    assert (row["drafts"], row["draft_tokens"]) == (sum(hist), 4 * sum(hist))
    assert row["accepted_tokens"] == sum(j * n for j, n in enumerate(hist))
    assert row["alpha"] == pytest.approx(0.8, abs=2e-3)
    assert row["histogram"] == hist


def test_llamacpp_counts_past_a_million_are_read_rounded_and_said(tmp_path: Path) -> None:
    hist = iid_steps(0.7, 3, 3_000_000)
    text = llamacpp_scrape(hist)
    assert "e+06" in text  # the ostream's six digits, as the server writes them
    [source] = read_sources([_write(tmp_path, "metrics", text)])
    assert source.counts.k == 3 and source.counts.alpha == pytest.approx(0.7, abs=1e-3)
    assert any("six significant digits" in n for n in source.to_dict()["notes"])
