"""Figures of one source that contradict each other are refused naming the line and both figures; K from the
counts wins over a per-position block shorter than it (docs/reference/engine-formats.md#figures-that-contradict-each-other)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from model.metrics.read import read_sources
from model.metrics.result import MetricsError
from tests.model.metrics.log_files import (llamacpp_request, llamacpp_stats, vllm_bench_console, vllm_offline_summary,
                                           vllm_v1_line)

HIST = [40, 30, 20, 10, 100]  # K = 4: 200 steps


def _write(tmp_path: Path, name: str, lines: list[str] | str) -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n" if isinstance(lines, list) else lines, encoding="utf-8")
    return path


def test_llamacpp_request_rates_against_zero_accepted_are_refused(tmp_path: Path) -> None:
    line = llamacpp_request(7, [200, 0, 0, 0])  # K 3, nothing accepted
    line = line.replace("acceptance rate per position = (0.000, 0.000, 0.000)",
                        "acceptance rate per position = (0.833, 0.700, 0.500)")
    path = _write(tmp_path, "server.log", [line])
    with pytest.raises(MetricsError, match=r"server\.log:1: per-position rates: .* but the accepted tokens given are 0"):
        read_sources([path])


def test_llamacpp_statistics_rates_against_totals_are_refused(tmp_path: Path) -> None:
    # 100 drafts of 3, 60 accepted tokens, but the per-position rates say 0.9 / 0.8 / 0.7 of the drafts
    path = _write(tmp_path, "server.log", [llamacpp_stats("draft", 100, 40, 300, 60, [0.9, 0.8, 0.7])])
    with pytest.raises(MetricsError, match=r"server\.log:1: per-position rates: they add up to 240"):
        read_sources([path])


def test_vllm_v1_line_rates_against_counts_are_refused(tmp_path: Path) -> None:
    line = vllm_v1_line(HIST).replace("Per-position acceptance rate: 0.800, 0.650, 0.550, 0.500",
                                      "Per-position acceptance rate: 0.100, 0.050, 0.020, 0.010")
    path = _write(tmp_path, "vllm.log", [line])
    with pytest.raises(MetricsError, match=r"vllm\.log:1: per-position rates"):
        read_sources([path])


def test_vllm_v1_line_stated_rate_against_counts_is_refused(tmp_path: Path) -> None:
    line = vllm_v1_line(HIST).replace("Avg Draft acceptance rate: 62.5%", "Avg Draft acceptance rate: 0.0%")
    path = _write(tmp_path, "vllm.log", [line])
    with pytest.raises(MetricsError, match=r"vllm\.log:1: Draft acceptance rate \(%\): printed 0, but the counts give 62\.5"):
        read_sources([path])


def test_vllm_offline_summary_rates_against_counts_are_refused(tmp_path: Path) -> None:
    lines = vllm_offline_summary(HIST)
    lines[-4:] = ["acceptance at token 0: 0.10", "acceptance at token 1: 0.05", "acceptance at token 2: 0.02",
                  "acceptance at token 3: 0.01"]
    with pytest.raises(MetricsError, match=r"per-position rates: .*but the accepted tokens given are 500"):
        read_sources([_write(tmp_path, "offline.txt", lines)])


def test_vllm_offline_summary_stated_length_against_counts_is_refused(tmp_path: Path) -> None:
    lines = [x.replace("mean acceptance length: 3.50", "mean acceptance length: 1.00") for x in vllm_offline_summary(HIST)]
    with pytest.raises(MetricsError, match=r"mean acceptance length: printed 1, but the counts give 3\.5"):
        read_sources([_write(tmp_path, "offline.txt", lines)])


def test_vllm_bench_console_rates_against_counts_are_refused(tmp_path: Path) -> None:
    lines = [x.replace("80.00", "8.00") if "Position 0" in x else x for x in vllm_bench_console(HIST)]
    lines = [x.replace("65.00", "6.50") if "Position 1" in x else x for x in lines]
    with pytest.raises(MetricsError, match=r"bench\.txt:\d+: per-position rates"):
        read_sources([_write(tmp_path, "bench.txt", lines)])


def test_vllm_bench_json_rates_against_counts_are_refused(tmp_path: Path) -> None:
    obj = {"spec_decode_num_drafts": 200, "spec_decode_draft_tokens": 800, "spec_decode_accepted_tokens": 0,
           "spec_decode_acceptance_rate": 0.0, "spec_decode_acceptance_length": 1.0,
           "spec_decode_per_position_acceptance_rates": [0.833, 0.7, 0.6, 0.5]}
    with pytest.raises(MetricsError, match=r"per-position rates: .*accepted tokens given are 0"):
        read_sources([_write(tmp_path, "bench.json", json.dumps(obj))])


def test_a_truncated_offline_block_leaves_k_from_the_counts(tmp_path: Path) -> None:
    lines = vllm_offline_summary(HIST)[:-1]  # the block cut after position 3 of 4
    [s] = read_sources([_write(tmp_path, "offline.txt", lines)])
    assert s.counts.k == 4 and s.profile == ()
    assert any("3 positions" in n and "K = 4" in n for n in s.notes)
    assert s.to_dict()["mean_acceptance_length"] == pytest.approx(3.5)


def test_a_truncated_bench_block_leaves_k_from_the_counts(tmp_path: Path) -> None:
    lines = [x for x in vllm_bench_console(HIST) if "Position 3" not in x]
    [s] = read_sources([_write(tmp_path, "bench.txt", lines)])
    assert s.counts.k == 4 and s.profile == () and any("short of K" in n for n in s.notes)


def test_a_truncated_bench_json_block_leaves_k_from_the_counts(tmp_path: Path) -> None:
    obj = {"spec_decode_num_drafts": 200, "spec_decode_draft_tokens": 800, "spec_decode_accepted_tokens": 500,
           "spec_decode_per_position_acceptance_rates": [0.8, 0.65, 0.55]}
    [s] = read_sources([_write(tmp_path, "bench.json", json.dumps(obj))])
    assert s.counts.k == 4 and s.profile == () and any("short of K" in n for n in s.notes)


def test_a_truncated_llamacpp_block_leaves_k_from_the_counts(tmp_path: Path) -> None:
    line = llamacpp_request(7, HIST).replace(", 0.500)", ")")  # 3 rates, 800 generated over 200 steps
    [s] = read_sources([_write(tmp_path, "server.log", [line])])
    assert s.counts.k == 4 and s.profile == () and any("3 positions" in n and "K = 4" in n for n in s.notes)


def test_a_per_position_block_longer_than_the_drafts_allow_is_refused(tmp_path: Path) -> None:
    # the offline summary's drafts give 3 tokens a draft; a relabelled block of 2 positions cannot hold them
    lines = vllm_offline_summary([50, 50, 100, 0])[:-1]
    lines = [x.replace("num_draft_tokens: 600", "num_draft_tokens: 610") for x in lines]
    with pytest.raises(MetricsError, match=r"draft tokens: 610 over 200 drafts is 3\.05 a draft, more than K = 2"):
        read_sources([_write(tmp_path, "offline.txt", lines)])


def test_honest_sources_still_read(tmp_path: Path) -> None:
    for name, lines in (("a.log", [llamacpp_request(7, HIST)]), ("b.log", [vllm_v1_line(HIST)]),
                        ("c.txt", vllm_offline_summary(HIST)), ("d.txt", vllm_bench_console(HIST))):
        [s] = read_sources([_write(tmp_path, name, lines)])
        assert s.counts.k == 4 and s.to_dict()["mean_acceptance_length"] == pytest.approx(3.5), name
        assert len(s.profile) == 4, name


def test_a_cut_last_llamacpp_line_is_skipped_not_read_as_the_older_form(tmp_path: Path) -> None:
    whole = [llamacpp_request(1, HIST), llamacpp_request(2, HIST)]
    cut = llamacpp_request(3, [10, 0, 0, 0, 190]).split(", mean acceptance length")[0]  # ends where the copy stopped
    path = tmp_path / "server.log"
    path.write_text("\n".join(whole) + "\n" + cut, encoding="utf-8")
    [s] = read_sources([path])
    assert len(s.requests) == 2 and s.counts.k == 4 and "older" not in s.format
    assert s.to_dict()["mean_acceptance_length"] == pytest.approx(3.5)
    assert any("cut" in n for n in s.notes), s.notes


@pytest.mark.parametrize("value", ["4.7", "NaN", "Infinity", "1e300", "-4", "0", "65"])
def test_an_aiperf_k_that_is_no_whole_k_names_the_file_and_field(tmp_path: Path, value: str) -> None:
    from tests.model.metrics.log_files import aiperf_record

    lines = [aiperf_record(HIST, s).replace('"num_spec_tokens": 4', f'"num_spec_tokens": {value}') for s in range(3)]
    path = _write(tmp_path, "profile_export.jsonl", lines)
    with pytest.raises(MetricsError, match=r"profile_export\.jsonl.*spec_decode_acceptance\.num_spec_tokens"):
        read_sources([path])
