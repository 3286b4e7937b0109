"""Figures that need no K are read and shown in their own convention without --k; K the file implies is taken
and said to be inferred; alpha stays unknown until K is known."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from model.metrics.read import missing_k, read_sources
from tests.model.metrics import log_files as lf
from tests.paths import ROOT


def _write(tmp_path: Path, name: str, lines: list[str]) -> str:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_vllm_offline_summary_without_per_position_lines_implies_k(tmp_path: Path) -> None:
    # K = 7: 200 drafts of 7 tokens (1,400); the summary's per-position lines left out
    hist = [50, 30, 30, 20, 20, 10, 10, 30]  # 200 steps; accepted 30 + 60 + 60 + 80 + 50 + 60 + 210 = 550
    lines = [ln for ln in lf.vllm_offline_summary(hist) if not ln.startswith("acceptance at token")]
    assert "num_draft_tokens: 1400" in lines and "num_accepted_tokens: 550" in lines
    [s] = read_sources([_write(tmp_path, "offline.log", lines)])
    c = s.counts
    # 1400 / 200 = 7, whole: K = 7, inferred and said so
    assert c.k == 7 and any("K = 7 inferred: num_draft_tokens / num_drafts = 1400 / 200" in n for n in s.notes)
    # mean acceptance length 1 + 550 / 200 = 3.75; draft acceptance rate 550 / 1400 = 0.392857
    assert c.mean_acceptance_length == pytest.approx(3.75)
    assert c.draft_acceptance_rate == pytest.approx(0.392857, abs=1e-6)
    # alpha with (1 - a^8) / (1 - a) = 3.75: a = 0.76 gives 3.703, a = 0.77 gives 3.811, so a = 0.764 or so
    assert 0.76 < c.alpha < 0.77


def test_a_fraction_of_a_k_is_not_taken(tmp_path: Path) -> None:
    lines = ["num_drafts: 200", "num_draft_tokens: 1390", "num_accepted_tokens: 550", "mean acceptance length: 3.75"]
    [s] = read_sources([_write(tmp_path, "offline.log", lines)])
    # 1390 / 200 = 6.95: drafts cut short, no K; the figures needing none are still there
    assert s.counts.k is None and missing_k([s]) == [s] and s.counts.alpha is None
    assert s.counts.mean_acceptance_length == pytest.approx(3.75)  # 1 + 550 / 200
    assert s.counts.draft_acceptance_rate == pytest.approx(550 / 1390)  # 0.395683


def test_llamacpp_mean_len_line_needs_no_k(tmp_path: Path) -> None:
    # K = 4 (not in the line): 40 steps accepting 0..4 drafts 10, 8, 6, 4, 12 times: 8 + 12 + 12 + 48 = 80 accepted
    # of 160 drafted. "draft acceptance = 0.50000 (   80 accepted /   160 generated), mean len =  3.00"
    line = lf.llamacpp_request(7, [10, 8, 6, 4, 12], form="mean-len")
    assert "draft acceptance = 0.50000 (   80 accepted /   160 generated), mean len =  3.00" in line
    path = _write(tmp_path, "server.log", [line])
    [s] = read_sources([path])
    c = s.counts
    # mean acceptance length 3.00 (bonus included), draft acceptance rate 80 / 160 = 0.5: shown; alpha needs K
    assert c.k is None and c.alpha is None and s.alpha_applied is None
    assert c.mean_acceptance_length == pytest.approx(3.0) and c.draft_acceptance_rate == pytest.approx(0.5)
    assert s.to_dict()["alpha_applied_rule"].startswith("unknown until K is known")
    r = subprocess.run([sys.executable, str(ROOT / "main.py"), "import-metrics", path], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "K = ?" in r.stdout and "draft acceptance rate 50.0%" in r.stdout and "mean acceptance length 3.00" in r.stdout
    assert "server.log" in r.stderr and "--k" in r.stderr
    # with K = 4: 1 + a + a^2 + a^3 + a^4 = 3.0 gives a = 0.7 or so (0.7: 2.7731, 0.75: 3.0508)
    j = subprocess.run([sys.executable, str(ROOT / "main.py"), "import-metrics", path, "--k", "4", "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert 0.7 < json.loads(j.stdout)["sources"][0]["alpha"] < 0.75
