"""Console logs and tools' outputs as people paste them: each format read by content, with figures worked by hand.

The reference run used by most cases (K = 4): request A accepted 0..4 drafts in 10, 15, 20, 25, 30 of its
100 steps (250 accepted of 400 drafted), request B in 20, 10, 10, 5, 5 of 50 steps (65 of 200). Together:
150 steps, 315 accepted of 600 drafted, histogram 30, 25, 30, 30, 35, so
  draft acceptance rate = 315 / 600 = 0.525,
  mean acceptance length = 1 + 315 / 150 = 3.10,
  per-token alpha (maximum likelihood) = 315 / (315 + 150 - 35) = 315 / 430 = 0.732558.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from model.mechanics import arithmetic as ar
from model.metrics.read import missing_k, read_sources
from model.metrics.result import MetricsError
from tests.model.metrics import log_files as lf

A, B = [10, 15, 20, 25, 30], [20, 10, 10, 5, 5]
RATE, LENGTH, ALPHA = 0.525, 3.10, 315 / 430


def _write(tmp_path: Path, name: str, lines: list[str] | str) -> str:
    path = tmp_path / name
    path.write_text(lines if isinstance(lines, str) else "\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _three(source, rate: float, length: float, alpha: float, tol: float = 1e-4) -> None:  # noqa: ANN001
    c = source.counts
    assert c.draft_acceptance_rate == pytest.approx(rate, abs=tol)
    assert c.mean_acceptance_length == pytest.approx(length, abs=tol)
    assert c.alpha == pytest.approx(alpha, abs=tol)


def test_a_llamacpp_server_log_with_per_request_lines_among_10000_others(tmp_path: Path) -> None:
    lines = lf.noise(5_000) + lf.llamacpp_timing(42, 350) + [lf.llamacpp_request(42, A)] + lf.noise(5_000, 1) \
        + lf.llamacpp_timing(43, 115) + [lf.llamacpp_request(43, B)]
    [s] = read_sources([_write(tmp_path, "llama-server.log", lines)])
    assert (s.engine, s.counts.k, s.counts.steps) == ("llamacpp", 4, 150)
    assert s.format.startswith("llama.cpp server log") and "per-position" in s.format
    _three(s, RATE, LENGTH, ALPHA)
    # the engine's own per-position rate is cumulative; A's 0.900, 0.750, 0.550, 0.300 and B's 0.6, 0.4, 0.2, 0.1
    assert s.counts.per_position_rates == pytest.approx([120 / 150, 95 / 150, 65 / 150, 35 / 150])
    assert [name for name, _ in s.requests] == ["task 42", "task 43"]  # kept per request, for intervals
    assert any("10," in n and "lines read" in n for n in s.notes)


def test_llamacpp_older_forms_need_k_and_then_convert(tmp_path: Path) -> None:
    path = _write(tmp_path, "old.log", lf.llamacpp_timing(7, 300) + [lf.llamacpp_request(7, A, form="old")])
    [s] = read_sources([path])
    assert missing_k([s]) and s.requests[0][0] == "task 7"
    [s] = read_sources([path], k=4)
    # no step count: steps = 400 generated / K 4 = 100; length 1 + 250 / 100 = 3.5; alpha with E(alpha, 4) = 3.5:
    # E(0.82, 4) = 1 + .82 + .6724 + .5514 + .4521 = 3.4959, E(0.8205, 4) = 3.4999
    _three(s, 0.625, 3.5, 0.8205, tol=5e-4)
    [s] = read_sources([_write(tmp_path, "mid.log", [lf.llamacpp_request(8, A, form="mean-len")])], k=4)
    assert s.counts.steps == 100 and "mean len" in s.format


def test_llamacpp_mean_len_builds_take_k_from_the_trace_level_acc_per_pos_line(tmp_path: Path) -> None:
    # builds that print "mean len" put the rates on the next line, at -lv 4 only; K = its length, and the reference
    # run's figures come back with no --k
    lines = lf.llamacpp_timing(42, 350) + [lf.llamacpp_request(42, A, form="mean-len-trace")] + lf.noise(50) \
        + lf.llamacpp_timing(43, 115) + [lf.llamacpp_request(43, B, form="mean-len-trace")]
    [s] = read_sources([_write(tmp_path, "trace.log", lines)])
    assert not missing_k([s]) and (s.counts.k, s.counts.steps) == (4, 150) and "acc per pos" in s.format
    _three(s, RATE, LENGTH, ALPHA)
    assert s.counts.per_position_rates == pytest.approx([120 / 150, 95 / 150, 65 / 150, 35 / 150])
    # a rates line of another task is not taken for the request before it
    stray = lf.llamacpp_request(9, A, form="mean-len-trace").replace("task 9 |      acc", "task 10 |      acc")
    [s] = read_sources([_write(tmp_path, "stray.log", [stray])])
    assert missing_k([s])


def test_llamacpp_statistics_lines_are_totals_the_last_counts(tmp_path: Path) -> None:
    # 200 steps, 311 accepted of 400, per position 0.850 and 0.705 (170 and 141 steps): histogram 30, 29, 141
    lines = [lf.llamacpp_stats("draft", 100, 80, 200, 150, [0.8, 0.7]), *lf.noise(20),
             lf.llamacpp_stats("draft", 200, 170, 400, 311, [0.850, 0.705])]
    [s] = read_sources([_write(tmp_path, "stats.log", lines)])
    assert s.counts.steps == 200 and s.counts.k is None and s.counts.k_at_least == 2 and "statistics" in s.format
    [s] = read_sources([_write(tmp_path, "stats.log", lines)], k=2)
    _three(s, 311 / 400, 2.555, 311 / 370)


def test_vllm_v0_log_is_totals_since_start_and_a_restart_is_added(tmp_path: Path) -> None:
    # K 4, 8000 drafted, 6000 emitted: steps 2000, accepted prefix 6000 - 2000 = 4000, length 3.0, rate 0.5;
    # E(0.74, 4) = 2.9927, E(0.75, 4) = 3.0508: alpha 0.7413; V0's own rate 5200 / 8000 counts any position
    lines = [lf.vllm_v0_line(4, 2600, 4000, 3000), *lf.noise(10), lf.vllm_v0_line(4, 5200, 8000, 6000)]
    [s] = read_sources([_write(tmp_path, "vllm-0.6.log", lines)])
    assert "V0" in s.format and s.counts.steps == 2000 and s.counts.k == 4
    _three(s, 0.5, 3.0, 0.7413, tol=5e-4)
    assert s.counts.engine_values["Draft acceptance rate (any position)"] == pytest.approx(0.65)
    restarted = lines + [lf.vllm_v0_line(4, 650, 1000, 750)]  # totals went down: a new run of 250 steps
    [s] = read_sources([_write(tmp_path, "restart.log", restarted)])
    assert s.counts.steps == 2250 and any("went down 1 time" in n for n in s.notes)


def test_vllm_v1_data_parallel_engines_lines_add_up(tmp_path: Path) -> None:
    lines = [lf.vllm_v1_line(A, "(EngineCore_DP0 pid=101) "), *lf.noise(30), lf.vllm_v1_line(B, "(EngineCore_DP1 pid=102) ")]
    [s] = read_sources([_write(tmp_path, "vllm.log", lines)])
    assert "current form" in s.format and s.counts.steps == 150
    _three(s, RATE, LENGTH, ALPHA)


def test_vllm_v1_first_form_has_no_steps_and_asks_for_k(tmp_path: Path) -> None:
    path = _write(tmp_path, "vllm-0.8.log", [lf.vllm_v1_first_line(250, 400), lf.vllm_v1_first_line(65, 200)])
    assert missing_k(read_sources([path]))
    [s] = read_sources([path], k=4)
    # steps = 600 / 4 = 150, length 3.10; E(0.758, 4) = 3.0982, E(0.76, 4) = 3.1102: alpha 0.7583
    assert "first form" in s.format
    _three(s, RATE, LENGTH, 0.7583, tol=5e-4)


def test_vllm_v1_middle_form_with_rate_and_length_first(tmp_path: Path) -> None:
    # a form between the first and the current: "Draft acceptance rate: %.1f%%, Mean acceptance length: %.2f,
    # Accepted: %d tokens, Drafted: %d tokens, Per-position acceptance rate: %s"; fields are read by label
    line = ("INFO 05-20 10:00:00 [loggers.py:118] SpecDecoding metrics: Draft acceptance rate: 62.5%, Mean acceptance "
            "length: 3.50, Accepted: 250 tokens, Drafted: 400 tokens, Per-position acceptance rate: 0.900, 0.750, 0.550, 0.300")
    [s] = read_sources([_write(tmp_path, "vllm-0.8.5.log", [line])])
    assert s.counts.steps == 100 and s.counts.k == 4 and "current form" in s.format
    # request A alone: 250 / 400, 1 + 250 / 100, histogram 10, 15, 20, 25, 30: alpha 250 / (250 + 70)
    _three(s, 0.625, 3.5, 250 / 320)


def test_vllm_offline_example_summary(tmp_path: Path) -> None:
    lines = ["Processed prompts: 100%|##########| 80/80", *lf.vllm_offline_summary([a + b for a, b in zip(A, B)])]
    [s] = read_sources([_write(tmp_path, "offline.txt", lines)])
    assert s.format == "vLLM offline example summary" and s.counts.steps == 150
    # rates printed to 2 decimals (0.80, 0.63, 0.43, 0.23): histogram 30, 25.5, 30, 30, 34.5, alpha 313.5 / 429
    _three(s, RATE, LENGTH, 313.5 / 429)


def test_vllm_bench_serve_console_output(tmp_path: Path) -> None:
    lines = ["INFO 11-30 14:00:01 [__init__.py:239] Automatically detected platform cuda.",
             *lf.vllm_bench_console([a + b for a, b in zip(A, B)])]
    [s] = read_sources([_write(tmp_path, "bench.txt", lines)])
    assert s.format == "vllm bench serve console output" and s.counts.k == 4
    _three(s, RATE, LENGTH, ALPHA, tol=1e-3)  # positions in percent to 2 decimals: 80.00, 63.33, 43.33, 23.33


# SGLang and AIPerf case (K = 3): 40 steps with 6, 10, 12, 12 accepting 0..3 (70 of 120) and 20 steps with
# 8, 6, 4, 2 (20 of 60): 60 steps, 90 of 180, histogram 14, 16, 16, 14:
# rate 0.5, length 2.5, alpha 90 / (90 + 60 - 14) = 90 / 136
C, D = [6, 10, 12, 12], [8, 6, 4, 2]


def test_sglang_finish_lines_with_meta_info(tmp_path: Path) -> None:
    lines = ["[2026-11-30 14:02:10] Prefill batch. #new-seq: 1", lf.sglang_finish_line("a1", C),
             "[2026-11-30 14:02:11] Decode batch. #running-req: 1, #token: 90, accept len: 2.50, accept rate: 0.50, ",
             lf.sglang_finish_line("b2", D)]
    [s] = read_sources([_write(tmp_path, "sglang.log", lines)])
    assert "Finish" in s.format and s.counts.k == 3 and [n for n, _ in s.requests] == ["rid a1", "rid b2"]
    _three(s, 0.5, 2.5, 90 / 136)


def test_aiperf_records_and_aggregate(tmp_path: Path) -> None:
    [s] = read_sources([_write(tmp_path, "profile_export.jsonl", [lf.aiperf_record(C, 0), lf.aiperf_record(D, 1)])])
    assert s.engine == "aiperf" and s.counts.k == 3 and len(s.requests) == 2
    _three(s, 0.5, 2.5, 90 / 136)
    path = _write(tmp_path, "profile_export_aiperf.json", lf.aiperf_aggregate([c + d for c, d in zip(C, D)]))
    assert missing_k(read_sources([path]))
    [s] = read_sources([path], k=3)
    _three(s, 0.5, 2.5, 90 / 136)




def test_a_guidellm_report_without_server_acceptance_says_so(tmp_path: Path) -> None:
    report = '{"metadata": {"version": 1}, "config": {}, "benchmarks": [{"requests": {"successful": [{"output_tokens": 9}]}}]}'
    with pytest.raises(MetricsError, match=r"a GuideLLM report, but none of its 1 request carries server-reported"):
        read_sources([_write(tmp_path, "benchmarks.json", report)])


@pytest.mark.parametrize(("lines", "message"), [
    (lf.noise(50, 1)[1::4] + ["0.11.860.849 I srv          init: idle slots will be saved"] + lf.llamacpp_timing(3, 40),
     r"nearest: a llama\.cpp log, but no speculative timing line .*draft model"),
    (lf.noise(50)[2::4], r"nearest: a vLLM log, but no 'SpecDecoding metrics' \(V1\) or 'Speculative metrics' \(V0\)"),
    (["hello there", "this is not metrics"], r"tried Prometheus text, JSON, JSON lines and the logs: llama\.cpp"),
])
def test_a_log_without_speculative_lines_names_the_nearest_format(tmp_path: Path, lines: list[str], message: str) -> None:
    with pytest.raises(MetricsError, match=message) as info:
        read_sources([_write(tmp_path, "server.log", lines)])
    assert "\n" not in str(info.value) and "server.log" in str(info.value)


def test_bad_input_is_refused_or_skipped_with_a_count(tmp_path: Path) -> None:
    good = lf.vllm_v1_line(A)
    cut = good[:good.index("Accepted:") + 12]
    [s] = read_sources([_write(tmp_path, "cut.log", [good, cut, lf.vllm_v1_line(B)[:150]])])
    assert s.counts.steps == 100 and any(n.startswith("2 speculative lines skipped: cut midway") for n in s.notes)
    (tmp_path / "bin.log").write_bytes(b"\x7fELF\x02\x01\x00\x00" + bytes(range(256)) * 8)
    with pytest.raises(MetricsError, match=r"bin\.log: a binary file"):
        read_sources([str(tmp_path / "bin.log")])
    mixed = [lf.llamacpp_request(1, A), *lf.noise(5), lf.vllm_v1_line(B)]
    with pytest.raises(MetricsError, match=r"two formats in one file, llama\.cpp \(line 1\) and vLLM V1 \(line 7\)"):
        read_sources([_write(tmp_path, "mixed.log", mixed)])


@pytest.mark.parametrize(("line", "field"), [
    (lf.vllm_v1_line(A).replace("Accepted: 250 tokens", "Accepted: nan tokens"), "Accepted: 'nan' is not a count"),
    (lf.vllm_v1_line(A).replace("Mean acceptance length: 3.50", "Mean acceptance length: 1.2.3"),
     "Mean acceptance length: '1.2.3' is not a number"),
    (lf.vllm_v1_line(A).replace("Accepted: 250 tokens", "Accepted: 900 tokens"), "Accepted: 900 tokens is more than Drafted"),
    (lf.vllm_v1_line(A).replace("0.900, 0.750", "1.900, 0.750"), r"Per-position acceptance rate\[0\]: '1.900' is above 1"),
    (lf.vllm_v1_line(A).replace("Drafted: 400 tokens", "Drafted: 1e300 tokens"), "past 2\\^53"),
    (lf.vllm_v0_line(4, 5200, 8000, 6000).replace("emitted tokens: 6000", "emitted tokens: -6000"), "not a count"),
    (lf.llamacpp_request(5, A).replace("250 accepted", "inf accepted"), "accepted: 'inf' is not a count"),
])
def test_impossible_figures_are_refused_naming_file_line_and_field(tmp_path: Path, line: str, field: str) -> None:
    with pytest.raises(MetricsError) as info:
        read_sources([_write(tmp_path, "server.log", ["starting", line])])
    assert "server.log:2: " in str(info.value) and field.replace("\\", "") in str(info.value).replace("\\", "") \
        or pytest.fail(str(info.value))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("marker", ["Decode batch.", "SpecDecoding metrics: Accepted: ", "draft acceptance = ",
                                    "'spec_verify_ct': 1, ", "#gen drafts = 1, "])
def test_long_adversarial_lines_are_read_in_linear_time(tmp_path: Path, marker: str) -> None:
    # a 260 KB line of one marker took 60 s with a pattern that backtracked; each reader now passes once
    line = ("Finish: obj=x, 'meta_info': {" if "spec_" in marker else "") + marker * (260_000 // len(marker))
    path = _write(tmp_path, "long.log", [lf.vllm_v1_line(A), line, line[:500_000]])
    try:
        read_sources([path])
    except MetricsError as exc:
        assert "long.log" in str(exc) and "\n" not in str(exc)


def test_k_is_bounded_to_64(tmp_path: Path) -> None:
    with pytest.raises(MetricsError, match="1 to 64"):
        read_sources([_write(tmp_path, "v.log", [lf.vllm_v1_line(A)])], k=65)
    wide = [5] + [0] * 69 + [1]  # 70 draft positions
    with pytest.raises(MetricsError, match=r"v70\.log:1: .*K = 70 draft tokens per step is outside 1\.\.64"):
        read_sources([_write(tmp_path, "v70.log", [lf.vllm_v1_line(wide)])])


def test_the_conversions_agree_with_the_arithmetic(tmp_path: Path) -> None:
    [s] = read_sources([_write(tmp_path, "vllm.log", [lf.vllm_v1_line(A), lf.vllm_v1_line(B)])])
    # the three conventions of one source describe one run: E at the per-token alpha is the i.i.d. length
    assert s.counts.draft_acceptance_rate == pytest.approx((s.counts.mean_acceptance_length - 1) / 4)
    assert float(ar.expected_tokens(s.counts.alpha_e_matched, 4)) == pytest.approx(LENGTH)


def test_a_2_gb_log_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.log"
    with open(path, "wb") as fh:  # sparse: 2 GB on paper, nothing on disk
        fh.truncate(2 * 1024**3)
    with pytest.raises(MetricsError, match=r"huge\.log.*2,048 MB, over the 1,024 MB limit"):
        read_sources([str(path)])


def test_sglang_decode_lines_of_current_and_older_versions(tmp_path: Path) -> None:
    # accept len 3.40 and 2.60 with accept rate 0.80 and 0.53: K = 2.4 / 0.8 = 3 and 1.6 / 0.53 = 3.02, so 3;
    # the lines carry no counts, so they are averaged with equal weight: length 3.0; the draft acceptance rate is
    # that length's at K = 3, (3.0 - 1) / 3 = 0.667, the printed rates' mean 0.665 kept as the engine's figure.
    # Read as 0.5.x (rate = len / (K + 1)) 3.40 / 0.80 = 4.25 and 2.60 / 0.53 = 4.91 are no one whole K + 1: current.
    lines = ["[2026-11-30 14:02:11 TP0] Decode batch [1024], #running-req: 8, #token: 5210, token usage: 0.03, "
             "accept len: 3.40, accept rate: 0.80, cuda graph: True, gen throughput (token/s): 412.55, #queue-req: 0",
             "[2025-06-01 10:00:00] Decode batch. #running-req: 4, #token: 900, token usage: 0.01, accept len: 2.60, "
             "accept rate: 0.53, cuda graph: True, gen throughput (token/s): 210.3, #queue-req: 0, "]
    [s] = read_sources([_write(tmp_path, "sglang.log", lines)])
    assert s.counts.k == 3 and not s.has_counts and "Decode batch" in s.format
    assert s.counts.mean_acceptance_length == pytest.approx(3.0)
    assert s.counts.draft_acceptance_rate == pytest.approx(2 / 3)
    assert s.counts.engine_values["accept rate (mean of lines)"] == pytest.approx(0.665)
    assert s.counts.engine_values["accept rate convention"] == "current"


def test_every_source_says_its_format(tmp_path: Path) -> None:
    from tests.model.metrics.engine_files import iid_steps, vllm_scrape
    [s] = read_sources([_write(tmp_path, "m.prom", vllm_scrape({"m": iid_steps(0.8, 4, 1_000)}))])
    assert s.format.startswith("Prometheus text, vLLM") and s.to_dict()["format"] == s.format
    assert s.to_dict()["convention_note"].startswith("vLLM: draft acceptance rate = accepted / draft tokens")


# --- drafts cut short: no rejection where the log can tell -------------------------------

def test_llamacpp_request_whose_every_draft_was_accepted_reads_alpha_one(tmp_path: Path) -> None:
    # the real server's first request: 18 accepted / 18 generated, mean len 4.60 (5 steps), acc per pos (1.000,
    # 1.000, 0.800, 0.800): one step drafted 2 (max_tokens - 1 left) and took both. Read before as 18 / 19 = 0.947
    lines = lf.llamacpp_timing(0, 64) + [lf.llamacpp_request(0, [0, 0, 1, 0, 4], form="mean-len-trace", generated=18)]
    [s] = read_sources([_write(tmp_path, "first.log", lines)])
    assert (s.counts.k, s.counts.steps, s.counts.draft_tokens) == (4, 5, 18)
    assert s.counts.alpha == 1.0 and s.alpha_applied == 1.0
    assert s.to_dict()["alpha_range"] is None and s.to_dict()["short_drafts_told_apart"] is True


def test_llamacpp_trace_step_lines_tell_a_short_draft_from_a_rejection(tmp_path: Path) -> None:
    # K = 4, steps (accepted/drafted) 4/4, 1/4, 4/4, 3/3: 12 accepted of 15 over 4 steps, one rejection.
    # Without the step lines: steps by accepted 0, 1, 0, 1, 2, one slot never drafted, 3 unaccepted: the step that
    # accepted 3 may be the short draft (1 rejection) or a rejection (2): alpha 12/14 = 0.857 to 12/13 = 0.923
    hist = [0, 1, 0, 1, 2]
    timing = lf.llamacpp_timing(7, 17) + [lf.llamacpp_request(7, hist, form="mean-len-trace", generated=15)]
    [s] = read_sources([_write(tmp_path, "plain.log", timing)])
    assert s.counts.rejection_range == (1.0, 2.0) and s.counts.alpha == pytest.approx(12 / 14)
    assert s.to_dict()["alpha_range"] == pytest.approx([12 / 14, 12 / 13])
    assert any("cannot tell a draft cut short" in n for n in s.to_dict()["notes"])
    steps = lf.llamacpp_steps(7, [(4, 4), (1, 4), (4, 4), (3, 3)])
    [s] = read_sources([_write(tmp_path, "traced.log", steps + lf.noise(20) + timing)])
    assert s.counts.rejections == 1 and s.counts.alpha == pytest.approx(12 / 13)
    assert any("LLAMA_TRACE" in n for n in s.notes) and "counts the steps that rejected" in s.alpha_rule
    # a restored step (recurrent context) counts once, at its restore line: 1/4 rejected, its replay 2/2 skipped
    steps = lf.llamacpp_steps(7, [(4, 4), (1, 4), (4, 4), (3, 3)], restore=(1,))
    [s] = read_sources([_write(tmp_path, "restored.log", steps + timing)])
    assert s.counts.rejections == 1
    # step lines that are not this request's steps (a count differs) are not used
    steps = lf.llamacpp_steps(7, [(4, 4), (1, 4), (4, 4)])
    [s] = read_sources([_write(tmp_path, "partial.log", steps + timing)])
    assert s.counts.rejections is None and s.counts.rejection_range == (1.0, 2.0)


def test_an_e_matched_alpha_over_drafts_cut_short_says_it_is_biased_low() -> None:
    from model.engines.reports import SpecCounts
    from model.metrics.result import SourceResult

    # K = 4, 10 steps, 38 drafted (2 slots cut), 28 accepted, no per-position counts: alpha from E = 3.8 at K = 4
    c = SpecCounts(engine="llamacpp", k=4, drafts=10, draft_tokens=38, accepted_tokens=28)
    notes = SourceResult(file="x", engine="llamacpp", counts=c).to_dict()["notes"]
    assert c.rejection_range is None and c.alpha == pytest.approx(c.alpha_e_matched)
    assert any(n.startswith("2 of 40 draft slots were never drafted") and "biased low" in n for n in notes)
    full = SourceResult(file="x", engine="llamacpp", counts=SpecCounts(engine="llamacpp", k=4, drafts=10, draft_tokens=40,
                                                                       accepted_tokens=28))
    assert not any("never drafted" in n for n in full.to_dict()["notes"])


def test_llamacpp_statistics_rates_per_position_only_bound_k(tmp_path: Path) -> None:
    # K = 4 with drafts cut short (a draft-confidence floor): steps (accepted/drafted) 2/2, 0/3, 1/2, 2/3, 0/2.
    # common_speculative_accept grows #acc rate/pos to the longest accepted run, 2: (3/5, 2/5) = (0.600, 0.400);
    # 12 tokens over 5 drafts: some draft held 3. So K is at least 3, not 2, and not known
    steps = [(2, 2), (0, 3), (1, 2), (2, 3), (0, 2)]
    line = lf.llamacpp_stats_from_steps("draft-simple", steps)
    assert "#acc rate/pos = (0.600, 0.400)" in line and "#mean acc len = 2.00" in line
    path = _write(tmp_path, "stats.log", lf.noise(30) + [line])
    [s] = read_sources([path])
    assert missing_k([s]) and s.counts.k_at_least == 3 and any("K is at least 3" in n for n in s.notes)
    with pytest.raises(MetricsError, match="at least 3"):
        read_sources([path], k=2)
    # with K = 4: positions 3 and 4 never accepted; steps by accepted 2, 1, 2, 0, 0; 5 accepted of 12 drafted,
    # length 2.00. 8 slots never drafted, 7 unaccepted: 2 to 5 steps rejected (it was 4): alpha 5/10 to 5/7
    [s] = read_sources([path], k=4)
    assert s.counts.per_position_accepted == pytest.approx((3, 2, 0, 0)) and s.counts.stretch_histogram == pytest.approx((2, 1, 2, 0, 0))
    assert s.counts.draft_acceptance_rate == pytest.approx(5 / 12) and s.counts.mean_acceptance_length == pytest.approx(2.0)
    assert s.counts.rejection_range == (2.0, 5.0) and s.counts.alpha_range == pytest.approx((0.5, 5 / 7))
    # the same trace level prints each implementation's K as it is added: taken from there, no --k
    [s] = read_sources([_write(tmp_path, "with-n-max.log", lf.llamacpp_spec_added("draft-simple", 4) + lf.noise(30) + [line])])
    assert s.counts.k == 4 and s.counts.alpha == pytest.approx(0.5) and any("n_max=4" in n for n in s.notes)





