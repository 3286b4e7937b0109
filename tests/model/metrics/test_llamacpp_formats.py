"""llama.cpp outputs read without the per-request timing lines: several drafters in one log, each with its own K
(--k NAME=K); the LLAMA_TRACE per-step lines alone; `timings` as copied; the `speculative` example's summary.
Lines are written as llama.cpp's code formats them (tests/model/metrics/log_files.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from model.metrics.read import read_sources
from model.metrics.result import MetricsError
from tests.model.metrics import log_files as lf

# MTP drafter, K = 2: 15 steps accepting 2 of 2, 4 accepting 1, 2 accepting 0: 34 accepted of 42 drafted
MTP = [(2, 2)] * 15 + [(1, 2)] * 4 + [(0, 2)] * 2
# n-gram drafter, n_max 64: 5 drafts of 64 accepting 10, 5 drafts of 20 accepting none: 50 of 420
NGRAM = [(10, 64)] * 5 + [(0, 20)] * 5


def _write(tmp_path: Path, name: str, lines: list[str]) -> str:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _stats() -> list[str]:
    return [lf.llamacpp_stats_from_steps("draft-mtp", MTP), lf.llamacpp_stats_from_steps("ngram-simple", NGRAM)]


def test_two_drafters_in_one_log_each_get_their_own_k(tmp_path: Path) -> None:
    lines = (lf.llamacpp_spec_added("draft-mtp", 2) + lf.llamacpp_spec_added("ngram-simple", 64) + lf.noise(20)
             + _stats())
    mtp, ngram = read_sources([_write(tmp_path, "two.log", lines)])
    assert (mtp.model, mtp.counts.k, ngram.model, ngram.counts.k) == ("draft-mtp", 2, "ngram-simple", 64)
    # MTP: every draft full (42 = 21 x 2), so the 6 short steps rejected: alpha 34 / (34 + 6) = 0.85; mean acceptance
    # length 1 + 34 / 21 = 2.619; draft acceptance rate 34 / 42 = 0.8095 (the line's per-position rates are printed to
    # 3 decimals, 19 / 21 = 0.905 and 15 / 21 = 0.714, so alpha to about 1e-3)
    assert mtp.counts.alpha == pytest.approx(0.85, abs=1e-3)
    assert mtp.counts.mean_acceptance_length == pytest.approx(1 + 34 / 21)
    assert mtp.counts.draft_acceptance_rate == pytest.approx(34 / 42)
    # n-gram: 50 of 420 drafted, 0.119; 1 + 50 / 10 = 6.0 tokens a step
    assert ngram.counts.draft_acceptance_rate == pytest.approx(50 / 420) and ngram.counts.mean_acceptance_length == 6.0
    assert any("2 drafters in one log" in n for n in mtp.notes)


def test_k_per_drafter_by_name(tmp_path: Path) -> None:
    path = _write(tmp_path, "two.log", lf.noise(20) + _stats())
    mtp, ngram = read_sources([path])
    assert mtp.counts.k is None and ngram.counts.k is None  # no settings lines: K unknown, the figures still read
    # one K for both: the n-gram drafter held 420 / 10 = 42 tokens a draft on average, so K = 2 is refused for it
    with pytest.raises(MetricsError, match="at least 42"):
        read_sources([path], k=2)
    mtp, ngram = read_sources([path], k={"draft-mtp": 2})
    assert mtp.counts.k == 2 and mtp.counts.alpha == pytest.approx(0.85, abs=1e-3) and ngram.counts.k is None
    with pytest.raises(MetricsError, match=r"no drafter named 'eagle'.*draft-mtp, ngram-simple"):
        read_sources([path], k={"eagle": 3})


def test_per_step_lines_alone_are_exact_counts(tmp_path: Path) -> None:
    # task 5, every step drafting 3: accepted 3, 1, 0, 3, 2 -> 9 of 15, 3 steps rejected; K = 3 inferred
    path = _write(tmp_path, "trace.log", lf.noise(10) + lf.llamacpp_steps(5, [(3, 3), (1, 3), (0, 3), (3, 3), (2, 3)]))
    [s] = read_sources([path])
    c = s.counts
    assert c.k == 3 and any("K = 3 inferred" in n for n in s.notes) and s.requests[0][0] == "task 5"
    # alpha 9 / (9 + 3) = 0.75; mean acceptance length 1 + 9 / 5 = 2.8; draft acceptance rate 9 / 15 = 0.6
    assert c.alpha == pytest.approx(0.75) and c.mean_acceptance_length == pytest.approx(2.8)
    assert c.draft_acceptance_rate == pytest.approx(0.6)
    # drafts of 2 and 3 tokens: K at least 3, not inferred; --k 3: 3 accepted, 1 rejecting step: 3 / 4
    [s] = read_sources([_write(tmp_path, "var.log", lf.llamacpp_steps(6, [(2, 2), (1, 3)]))])
    assert s.counts.k is None and s.counts.mean_acceptance_length == pytest.approx(2.5)  # 1 + 3 / 2
    [s] = read_sources([_write(tmp_path, "var.log", lf.llamacpp_steps(6, [(2, 2), (1, 3)]))], k=3)
    assert s.counts.alpha == pytest.approx(0.75)


def test_timings_as_copied_give_the_rate_and_bounds_not_a_point(tmp_path: Path) -> None:
    # tools/server result_timings: 240 drafted, 177 accepted, 300 generated. Rate 177 / 240 = 0.7375, exact.
    # steps <= min(240, 300 - 1 - 177 = 122): mean acceptance length >= 1 + 177 / 122 = 2.4508; below, nothing
    # bounds the steps without K; at K = 4 steps >= 240 / 4 = 60: length <= 1 + 177 / 60 = 3.95
    timings = {"cache_n": 0, "prompt_n": 31, "prompt_ms": 40.1, "predicted_n": 300, "predicted_ms": 2900.5,
               "draft_n": 240, "draft_n_accepted": 177}
    path = tmp_path / "timings.json"
    path.write_text(json.dumps(timings))
    [s] = read_sources([str(path)])
    c = s.counts
    assert c.draft_acceptance_rate == pytest.approx(0.7375) and c.mean_acceptance_length is None and c.alpha is None
    low, high = c.mean_acceptance_length_range
    assert low == pytest.approx(1 + 177 / 122) and high == float("inf")
    [s] = read_sources([str(path)], k=4)
    assert s.counts.mean_acceptance_length is None and s.counts.alpha is None
    assert s.counts.mean_acceptance_length_range == pytest.approx((1 + 177 / 122, 3.95))
    assert s.to_dict()["mean_acceptance_length_range"] == pytest.approx([1 + 177 / 122, 3.95])
    assert "per-step counts" in s.alpha_rule
    # the same timings inside a response (as a user wraps them) are read the same way
    wrapped = tmp_path / "response.json"
    wrapped.write_text(json.dumps({"content": "ok", "timings": timings}))
    [s] = read_sources([str(wrapped)], k=4)
    assert s.counts.mean_acceptance_length is None and s.counts.mean_acceptance_length_range[1] == pytest.approx(3.95)


def test_speculative_example_summary(tmp_path: Path) -> None:
    # examples/speculative: LOG_INF("n_draft   = %d\n"), ("n_predict = %d\n"), ("n_drafted = %d\n"),
    # ("n_accept  = %d\n"), ("accept    = %.3f%%\n", 100.0f * n_accept / n_drafted)
    lines = ["encoded   31 tokens in    0.052 seconds, speed:  596.154 t/s",
             "decoded  256 tokens in    4.210 seconds, speed:   60.808 t/s", "",
             "n_draft   = 16", "n_predict = 256", "n_drafted = 399", "n_accept  = 142", f"accept    = {100 * 142 / 399:.3f}%",
             "", "draft:", ""]
    [s] = read_sources([_write(tmp_path, "spec.txt", lines)])
    c = s.counts
    # rate 142 / 399 = 0.35589; steps <= 256 - 142 = 114 and >= 399 / 16 = 24.9, so 25: length in
    # [1 + 142 / 114, 1 + 142 / 25] = [2.2456, 6.68]; no alpha
    assert c.draft_acceptance_rate == pytest.approx(142 / 399) and c.alpha is None
    assert c.mean_acceptance_length_range == pytest.approx((1 + 142 / 114, 6.68))
    assert any("rate 0.356 read; alpha needs per-step counts" in n for n in s.notes)
    assert s.format.startswith("llama.cpp speculative example summary")


def test_cli_k_per_drafter(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.paths import ROOT
    path = _write(tmp_path, "two.log", lf.noise(20) + _stats())
    r = subprocess.run([sys.executable, str(ROOT / "main.py"), "import-metrics", path, "--k", "draft-mtp=2", "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    mtp, ngram = json.loads(r.stdout)["sources"]
    assert mtp["k"] == 2 and mtp["alpha"] == pytest.approx(0.85, abs=1e-3) and ngram["k"] is None
    assert "ngram-simple" in r.stderr  # its K is still unknown: said in one line
    bad = subprocess.run([sys.executable, str(ROOT / "main.py"), "import-metrics", path, "--k", "2", "--k", "x=3"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert bad.returncode != 0 and "not both" in bad.stderr


def test_a_whole_last_request_line_without_its_newline_is_read(tmp_path: Path) -> None:
    # two whole current-form lines, the file saved without a final newline: both requests read (3.50 and 2.30);
    # the same file cut after "generated)" stays one request (test_contradictions)
    lines = [lf.llamacpp_request(1, [10, 15, 20, 25, 30]), lf.llamacpp_request(2, [20, 10, 10, 5, 5])]
    path = tmp_path / "server.log"
    path.write_text("\n".join(lines))
    [s] = read_sources([str(path)])
    assert [c.mean_acceptance_length for _, c in s.requests] == pytest.approx([3.5, 2.3])
    path.write_text("\n".join(lines[:1] + [lf.llamacpp_request(2, [20, 10, 10, 5, 5], form="mean-len")]))
    [s] = read_sources([str(path)])
    assert len(s.requests) == 2
