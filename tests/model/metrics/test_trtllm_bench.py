"""trtllm-bench's DECODING STATISTICS: its acceptance figures are tokens per iteration, read as a mean acceptance
length, and K follows from (AL - 1) / DAR on every row (lines as tensorrt_llm/bench/dataclasses/reporting.py prints)."""
from __future__ import annotations

from pathlib import Path

import pytest

from model.metrics.read import read_sources
from tests.model.metrics import log_files as lf


def _write(tmp_path: Path, lines: list[str]) -> str:
    path = tmp_path / "bench.log"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_decoding_statistics_block(tmp_path: Path) -> None:
    # max draft length 3; four requests of 100 iterations with 250, 300, 220 and 270 output tokens:
    # AL 2.50, 3.00, 2.20, 2.70 (average 2.60); DAR (AL - 1) / 3 = 0.50, 0.667, 0.40, 0.567 (average 0.533)
    lines = lf.trtllm_bench_decoding([250, 300, 220, 270], [100, 100, 100, 100], 3)
    assert "[AL] AVERAGE: 2.60" in lines and "[DAR] AVERAGE: 0.53" in lines
    [s] = read_sources([_write(tmp_path, lf.noise(5) + lines)])
    c = s.counts
    # (2.60 - 1) / 0.53 = 3.02, (3.00 - 1) / 0.67 = 2.99, (2.20 - 1) / 0.40 = 3.0: K = 3 on every row
    assert s.engine == "trtllm" and c.k == 3 and any("K = 3 inferred" in n for n in s.notes)
    # mean acceptance length 2.60 (tokens per iteration, not a rate); draft acceptance rate 1.60 / 3 = 0.5333;
    # alpha: 1 + a + a^2 + a^3 = 2.6; a = 0.70 gives 2.533, a = 0.72 gives 2.6116, so a = 0.717
    assert c.mean_acceptance_length == pytest.approx(2.6) and c.draft_acceptance_rate == pytest.approx(1.6 / 3)
    assert 0.71 < c.alpha < 0.72
    assert any("tokens per iteration, read as a mean acceptance length" in n for n in s.notes) and not s.has_counts


def test_rows_named_acceptance_rate_are_tokens_per_iteration(tmp_path: Path) -> None:
    lines = [ln.replace("[AL]", "[AR]") for ln in lf.trtllm_bench_decoding([250, 300], [100, 100], 3) if "[DAR]" not in ln]
    [s] = read_sources([_write(tmp_path, lines)])
    # "[AR] AVERAGE: 2.75" is (2.5 + 3.0) / 2 tokens per iteration: a length, no K without the DAR rows
    assert s.counts.mean_acceptance_length == pytest.approx(2.75) and s.counts.k is None and s.counts.alpha is None


def test_latency_reports_acceptance_rate_speculative(tmp_path: Path) -> None:
    # reporting.py's latency report: f"Acceptance Rate (Speculative):\t  {stats.acceptance_rate:.2f}" with
    # acceptance_rate = total output tokens / total decoding iterations: 1040 / 400 = 2.60
    lines = ["= LATENCY OVERVIEW ", f"Average inter-token latency (ms): 7.1200",
             f"Acceptance Rate (Speculative):\t  {1040 / 400:.2f}"]
    [s] = read_sources([_write(tmp_path, lines)], k=3)
    assert s.counts.mean_acceptance_length == pytest.approx(2.6) and s.counts.k == 3


def test_refusals_name_what_was_recognised(tmp_path: Path) -> None:
    from model.metrics.result import MetricsError
    bar = "=" * 59
    report = [bar, "= PERFORMANCE OVERVIEW ", bar, "Request Throughput (req/sec):                     4.2100"]
    with pytest.raises(MetricsError, match="a trtllm-bench report, but no DECODING STATISTICS block"):
        read_sources([_write(tmp_path, report)])
    example = ["n_draft   = 16", "n_predict = 256", "n_drafted = 0", "n_accept  = 0", "accept    = 0.000%"]
    with pytest.raises(MetricsError, match="a llama.cpp speculative example summary, but n_drafted is 0"):
        read_sources([_write(tmp_path, example)])
