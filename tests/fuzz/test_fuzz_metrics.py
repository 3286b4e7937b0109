"""Hostile metrics files: impossible counts never become an acceptance.

Every outcome is sources whose figures can be true (alpha and rates in 0..1, a mean length from 1 to K + 1)
or one MetricsError line naming the file, within the fuzz bounds of time and memory; an --apply with a
refused file writes nothing.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.metrics.read import read_sources
from model.metrics.result import MetricsError
from tests.fuzz.bounds import bounded, outcome
from tests.fuzz.strategies import hostile_text
from tests.model.metrics import log_files as lf
from tests.model.metrics.engine_files import iid_steps, tgi_scrape, vllm_scrape
from tests.paths import ROOT

A = [10, 15, 20, 25, 30]


def _check(path: Path) -> None:
    got = outcome(lambda: read_sources([str(path)], k=4), MetricsError)
    if isinstance(got, MetricsError):
        assert path.name in str(got), str(got)
        return
    for s in got:
        c = s.counts
        for x in (c.alpha, c.draft_acceptance_rate, *(c.per_position_rates or ())):
            assert x is None or 0.0 <= x <= 1.0 + 1e-9, (s.to_dict(), x)
        length = c.mean_acceptance_length
        assert length is None or 1.0 <= length <= (c.k or 64) + 1 + 1e-9, s.to_dict()
        json.dumps(s.to_dict(), allow_nan=False)


_NUMBERS = st.sampled_from(["nan", "inf", "-inf", "-1", "1e309", "9007199254740993", "1.2.3", "", "0", "3", "0.5",
                            "1.5", "250", "400", "NaN", "+Inf", "1_0", "٣"])


@st.composite
def metrics_line(draw: st.DrawFn) -> str:
    templates = [lf.vllm_v1_line(A), lf.vllm_v1_first_line(250, 400), lf.vllm_v0_line(4, 260, 400, 300),
                 lf.llamacpp_request(3, A), lf.llamacpp_stats("draft", 100, 80, 400, 250, [0.9, 0.75, 0.55, 0.3]),
                 lf.sglang_finish_line("r", [6, 10, 12, 12]),
                 "[x] Decode batch. #running-req: 1, accept len: 2.50, accept rate: 0.50, ",
                 *lf.vllm_offline_summary(A), *lf.vllm_bench_console(A)[3:], *lf.noise(4)]
    line = draw(st.sampled_from(templates))
    for _ in range(draw(st.integers(0, 3))):  # a figure replaced by a hostile one
        digits = [i for i, ch in enumerate(line) if ch.isdigit()]
        if not digits:
            break
        at = draw(st.sampled_from(digits))
        end = at
        while end < len(line) and (line[end].isdigit() or line[end] == "."):
            end += 1
        line = line[:at] + draw(_NUMBERS) + line[end:]
    if draw(st.booleans()):
        line = line[: draw(st.integers(0, len(line)))]  # cut midway
    if draw(st.integers(0, 9)) == 0:
        line = draw(hostile_text(60))
    return line


@settings(max_examples=250, deadline=None)
@given(lines=st.lists(metrics_line(), min_size=1, max_size=8))
def test_hostile_log_lines(tmp_path_factory, lines: list[str]) -> None:
    path = Path(tmp_path_factory.mktemp("m")) / "server.log"
    path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass"))
    _check(path)


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=3000))
def test_hostile_bytes(tmp_path_factory, data: bytes) -> None:
    path = Path(tmp_path_factory.mktemp("m")) / "metrics.txt"
    path.write_bytes(data)
    _check(path)


def _scrape(**changes: str) -> str:
    text = vllm_scrape({"m": iid_steps(0.7, 4, 1_000)})
    for old, new in changes.items():
        text = text.replace(old, new)
    return text


_DRAFTS = 'vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 1000.0'
_ACCEPTED = 'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"}'
_POS0 = 'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"}'


@pytest.mark.parametrize(("name", "text", "field"), [
    ("inf.prom", _scrape(**{_DRAFTS: _DRAFTS.replace("1000.0", "+Inf")}), "drafts (verify steps): inf"),
    ("neg.prom", _scrape(**{_DRAFTS: _DRAFTS.replace("1000.0", "-1000.0")}), "drafts (verify steps): -1000.0"),
    ("big.prom", _scrape(**{_DRAFTS: _DRAFTS.replace("1000.0", "1e17")}), "past 2^53"),
    ("over.prom", _scrape(**{f"{_ACCEPTED} ": f"{_ACCEPTED} 9"}), "accepted tokens: 9"),
    ("pos.prom", vllm_scrape({"m": [0, 0, 0, 0, 1000]}).replace(f"{_POS0} 1000.0", f"{_POS0} 2500.0"),
     "per-position accepted[0]: 2500"),
    ("tgi.prom", tgi_scrape([1] * 20_000, 0), "20,000 buckets"),
    ("sample.json", json.dumps({"k": 4, "draft": "d", "target": "t", "classes": [
        {"task_class": "code", "histogram": [0, 0, 0, 0, 100], "stretches": 100, "accepted_tokens": 0}]}),
     "histogram: it implies 400 accepted tokens, but the source counts 0"),
    ("bigk.json", json.dumps({"k": 10**6, "draft": "d", "target": "t", "classes": []}), "from 1 to 64"),
    ("nan.jsonl", '{"metrics": {"speculative_decoding": {"num_spec_steps": NaN, "num_draft_tokens": 4}}}\n', "nan.jsonl:1: "),
    ("hist.jsonl", json.dumps({"metrics": {"speculative_decoding": {
        "num_spec_steps": 10, "num_draft_tokens": 40, "num_accepted_draft_tokens": 5, "num_spec_tokens": 4,
        "acceptance_histogram": [0, 0, 0, 0, 10]}}}) + "\n", "hist.jsonl:1: histogram"),
    ("sgl.prom", "# TYPE sglang:spec_accept_length gauge\nsglang:spec_accept_length -2.5\n", "spec_accept_length: -2.5"),
])
def test_impossible_counts_are_refused_naming_file_and_field(tmp_path: Path, name: str, text: str, field: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    got = outcome(lambda: read_sources([str(path)]), MetricsError)
    assert isinstance(got, MetricsError), got
    assert name in str(got) and field in str(got), str(got)


def test_a_refused_file_applies_nothing(tmp_path: Path) -> None:
    from model.workbook.json_file import load_demo, save_workbook
    wb, out = tmp_path / "wb.json", tmp_path / "out.json"
    save_workbook(load_demo(), wb)
    good = tmp_path / "good.prom"
    good.write_text(vllm_scrape({"m": iid_steps(0.8, 4, 1_000)}))
    bad = tmp_path / "bad.log"
    bad.write_text(lf.vllm_v1_line(A).replace("Accepted: 250", "Accepted: 900") + "\n")
    result = subprocess.run([sys.executable, str(ROOT / "main.py"), "import-metrics", str(good), str(bad),
                             "--task-class", "code", "--apply", str(wb), "-o", str(out)],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode != 0 and "bad.log:1: Accepted: 900 tokens is more than Drafted" in result.stderr
    assert not out.exists() and result.stderr.count("\n") == 1


def test_a_log_line_of_260_kb_of_markers_is_read_within_the_bound(tmp_path: Path) -> None:
    for marker in ("Decode batch.", "accept len: ", "SpecDecoding metrics: ", "#gen drafts = ", "draft acceptance = ("):
        path = tmp_path / "long.log"
        path.write_text(marker * (260_000 // len(marker)) + "\n" + lf.vllm_v1_line(A) + "\n")
        with bounded(10.0):
            got = outcome(lambda: read_sources([str(path)]), MetricsError)
        assert not isinstance(got, list) or got[0].counts.steps == 100


def test_alpha_stays_a_probability_for_every_k(tmp_path: Path) -> None:
    for k in (1, 2, 7, 64):
        path = tmp_path / f"k{k}.log"
        path.write_text(lf.vllm_v1_line([3] + [0] * (k - 1) + [7]) + "\n")
        [s] = read_sources([str(path)])
        assert s.counts.k == k and 0 <= s.counts.alpha <= 1 and not math.isnan(s.counts.mean_acceptance_length)


def test_a_scrape_refusal_names_the_line_of_the_count(tmp_path: Path) -> None:
    path = tmp_path / "inf.prom"
    text = _scrape(**{_DRAFTS: _DRAFTS.replace("1000.0", "+Inf")})
    path.write_text(text)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("vllm:spec_decode_num_drafts_total"))
    with pytest.raises(MetricsError, match=rf"inf\.prom:{line}: drafts \(verify steps\): inf"):
        read_sources([str(path)])
    rising = vllm_scrape({"m": [100, 0, 0, 0, 100]}).replace(
        'position="2"} 100.0', 'position="2"} 150.0')
    (tmp_path / "rise.prom").write_text(rising)
    with pytest.raises(MetricsError, match=r"rise\.prom:\d+: per-position accepted\[2\]: 150 steps reached draft 3"):
        read_sources([str(tmp_path / "rise.prom")])
