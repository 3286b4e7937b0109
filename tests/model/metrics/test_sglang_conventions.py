"""SGLang Decode batch lines: the accept-rate convention told from the log's own lines, both readings where they cannot tell.

The lines are written as scheduler_metrics_mixin.log_decode_stats formats them (tests/model/metrics/log_files.py).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from model.metrics.read import read_sources
from tests.model.metrics import log_files as lf

# K = 3; intervals of (verify steps, accepted drafts): (120, 40), (200, 190), (150, 180)
INTERVALS = [(120, 40), (200, 190), (150, 180)]


def _write(tmp_path: Path, lines: list[str]) -> str:
    path = tmp_path / "sglang.log"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_a_05x_log_is_told_from_its_lines_and_read_at_its_own_k(tmp_path: Path) -> None:
    lines = [lf.sglang_decode_line(s, a, 3, "0.5.x") for s, a in INTERVALS]
    # printed: accept len 1.33 / 1.95 / 2.20 with rate (len / 4) 0.33 / 0.49 / 0.55. len / rate = 4.03, 3.98, 4.00:
    # one whole K + 1 = 4 within the rounding; (len - 1) / rate = 1.00, 1.94, 2.18 is no one K: 0.5.x, K = 3.
    assert [ln.split("accept len: ")[1][:23] for ln in lines] == [
        "1.33, accept rate: 0.33", "1.95, accept rate: 0.49", "2.20, accept rate: 0.55"]
    [s] = read_sources([_write(tmp_path, lines)])
    c = s.counts
    assert c.k == 3 and c.engine_values["accept rate convention"] == "0.5.x"
    # mean acceptance length (1.33 + 1.95 + 2.20) / 3 = 1.82667; draft acceptance rate 0.82667 / 3 = 0.27556;
    # per-token alpha: 1 + a + a^2 + a^3 = 1.82667 gives a = 0.4821 (0.482: 1.82630, 0.4822: 1.82684)
    assert c.mean_acceptance_length == pytest.approx(1.826667, abs=1e-6)
    assert c.draft_acceptance_rate == pytest.approx(0.275556, abs=1e-6)
    assert c.alpha == pytest.approx(0.4821, abs=2e-4)
    assert any("0.5.x convention, told from the lines" in n for n in s.notes)
    # read as the later convention the mean rate (0.33 + 0.49 + 0.55) / 3 = 0.457 would have been the draft
    # acceptance rate and K = 0.827 / 0.457 = 1.8, neither of which this log means
    assert c.engine_values["accept rate (mean of lines)"] == pytest.approx(0.456667, abs=1e-6)


def test_a_current_log_is_told_from_its_lines(tmp_path: Path) -> None:
    lines = [lf.sglang_decode_line(s, a, 3, "current") for s, a in INTERVALS]
    # rate = accepted / (3 steps): 0.11, 0.32, 0.40; (len - 1) / rate = 3.0, 2.97, 3.0: K = 3; len / rate = 12.1,
    # 6.1, 5.5: no one K + 1
    [s] = read_sources([_write(tmp_path, lines)])
    assert s.counts.k == 3 and s.counts.engine_values["accept rate convention"] == "current"
    assert s.counts.draft_acceptance_rate == pytest.approx(0.275556, abs=1e-6)


def test_lines_that_cannot_tell_give_both_readings_and_no_k(tmp_path: Path) -> None:
    # accept len 1.50 and rate 0.50 on every line: 1.50 / 0.50 = 3 = K + 1 (0.5.x, K = 2, draft acceptance rate
    # 0.5 / 2 = 0.25) and 0.50 / 0.50 = 1 = K (current, K = 1, draft acceptance rate 0.50)
    lines = [lf.sglang_decode_line(100, 50, 1, "current")] * 3
    assert "accept len: 1.50, accept rate: 0.50" in lines[0]
    [s] = read_sources([_write(tmp_path, lines)])
    c = s.counts
    assert c.k is None and c.alpha is None and c.draft_acceptance_rate is None
    assert c.mean_acceptance_length == pytest.approx(1.5)  # needs no K
    readings = c.engine_values["accept rate readings"]
    assert readings == [{"convention": "0.5.x", "k": [2]}, {"convention": "current", "k": [1]}]
    both = next(n for n in s.notes if "both readings" in n)
    assert "K = 2 (K = 2: draft acceptance rate 0.250)" in both and "K = 1 (K = 1: draft acceptance rate 0.500)" in both
    # K given decides it: at K = 2, 1 + a + a^2 = 1.5 gives a = (sqrt(3) - 1) / 2 = 0.36603
    [s2] = read_sources([_write(tmp_path, lines)], k=2)
    assert s2.counts.alpha == pytest.approx(0.366025, abs=1e-5)
    assert s2.counts.engine_values["accept rate convention"] == "0.5.x"
    assert any("--k 2 decides it" in n for n in s2.notes)


def test_the_gauges_tell_the_conventions_apart_too(tmp_path: Path) -> None:
    def scrape(length: float, rate: float) -> str:
        labels = '{model_name="qwen",engine_type="unified",tp_rank="0",pp_rank="0"}'
        return (f"# TYPE sglang:spec_accept_length gauge\nsglang:spec_accept_length{labels} {length!r}\n"
                f"# TYPE sglang:spec_accept_rate gauge\nsglang:spec_accept_rate{labels} {rate!r}\n")

    # 0.5.x, K = 3: length 110 / 40 = 2.75, rate 110 / (40 x 4) = 0.6875; 2.75 / 0.6875 = 4 = K + 1, while
    # 1.75 / 0.6875 = 2.545 is no K
    path = tmp_path / "old.prom"
    path.write_text(scrape(2.75, 0.6875))
    [s] = read_sources([str(path)])
    assert s.counts.k == 3 and s.counts.draft_acceptance_rate == pytest.approx(1.75 / 3)
    assert s.counts.engine_values["accept rate convention"] == "0.5.x"
    # current, K = 3: rate 70 / 120 = 0.58333; 1.75 / 0.58333 = 3
    path.write_text(scrape(2.75, 70 / 120))
    [s] = read_sources([str(path)])
    assert s.counts.k == 3 and s.counts.draft_acceptance_rate == pytest.approx(70 / 120)
    # length 1.5, rate 0.5: 3 = K + 1 (K = 2) and 1 = K: both, so no K until --k
    path.write_text(scrape(1.5, 0.5))
    [s] = read_sources([str(path)])
    assert s.counts.k is None and any("fits both SGLang conventions" in n for n in s.notes)


def test_the_issues_log_reads_at_k_3_not_2(tmp_path: Path) -> None:
    # a chain of K = 3 with draft acceptance rate 0.318: accept len 1 + 3 x 0.318 = 1.954 ("1.95"), 0.5.x rate
    # 1.954 / 4 = 0.4885 ("0.49"). Read as the later convention: K = 0.95 / 0.49 = 1.94, so 2, rate 0.49 (wrong).
    # Here: 1.95 / 0.49 = 3.98, within the rounding of 4 = K + 1 (|1.95 - 4 x 0.49| = 0.01 <= 0.005 x 6); 2 x 0.49 =
    # 0.98 is 0.03 from 0.95, past 0.005 x 3: 0.5.x, K = 3, draft acceptance rate 0.95 / 3 = 0.3167 and alpha with
    # 1 + a + a^2 + a^3 = 1.95: a = 0.527 (0.52: 1.9310, 0.53: 1.9598)
    line = ("[2026-11-30 14:02:11 TP0] Decode batch, #running-req: 4, #token: 900, token usage: 0.01, accept len: 1.95, "
            "accept rate: 0.49, cuda graph: True, gen throughput (token/s): 210.30, #queue-req: 0, ")
    [s] = read_sources([_write(tmp_path, [line])])
    assert s.counts.k == 3 and s.counts.draft_acceptance_rate == pytest.approx(0.95 / 3)
    assert 0.52 < s.counts.alpha < 0.53
