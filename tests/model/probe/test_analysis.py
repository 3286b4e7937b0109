"""Stream analysis on synthetic records: styles, K, alpha, the verdict's test, a run file round trip."""
from __future__ import annotations

import json

import numpy as np
import pytest

from model.mechanics import arithmetic as ar
from model.probe.analysis import analyse
from model.probe.events import BASELINE, FAST, RequestRecord, StreamEvent
from model.probe.run_file import RunFileError, RunWriter, read_run
from model.probe.steps import FIXED_CHUNKS, MULTI_TOKEN, ONE_PER_STEP, PER_TOKEN_GAPS, detect_style, split_gaps
from model.probe.verdict import binomial_tail


def _record(sizes, *, per_token=False, role=FAST, step_s=0.02, max_tokens=10_000, finish="length", cls="code",
            index=0):
    r = RequestRecord(f"r{index}", role, cls, index, 0, 0, max_tokens, finish_reason=finish)
    t = 0.1
    for n in sizes:
        if per_token:
            for j in range(n):
                r.events.append(StreamEvent(t + j * 2e-5, "x", 1, ["x"]))
        else:
            r.events.append(StreamEvent(t, "x" * n, n, ["x"] * n))
        t += step_s
    return r


def test_multi_token_events_give_the_ml_alpha_of_their_histogram():
    rng = np.random.default_rng(1)
    alpha, k = 0.7, 4
    accepted = np.minimum(rng.geometric(1 - alpha, 4000) - 1, k)
    records = [_record(list(accepted[i::8] + 1), index=i) for i in range(8)]
    report = analyse(records)
    assert report.stream_style == MULTI_TOKEN and report.verdict == "yes" and report.k_estimate == k
    expected = ar.histogram_alpha(np.bincount(accepted, minlength=k + 1))
    # each request's last step is left out (it may be cut short): within a few per mille of the full ML
    assert report.classes[0].alpha_timing == pytest.approx(expected, abs=0.01)
    assert report.classes[0].alpha_source == "timing" and report.classes[0].alpha_reported is None


def test_per_token_events_are_grouped_by_their_gaps():
    records = [_record([1, 3, 5, 2, 1, 5, 4] * 5, per_token=True, index=i) for i in range(3)]
    style = detect_style(records)
    assert style.style == PER_TOKEN_GAPS and style.steps_visible
    assert analyse(records).classes[0].mean_tokens_per_step == pytest.approx(3.0)


def test_evenly_spaced_single_tokens_read_as_plain_decoding():
    records = [_record([1] * 60, per_token=True, index=i) for i in range(3)]
    assert detect_style(records).style == ONE_PER_STEP
    assert analyse(records).verdict == "no"


def test_fixed_size_chunks_are_inconclusive_never_a_guess():
    records = [_record([4] * 30 + [2], index=i) for i in range(3)]
    report = analyse(records)
    assert report.stream_style == FIXED_CHUNKS and report.verdict == "inconclusive"
    assert report.classes[0].alpha_timing is None


def test_events_without_token_counts_that_do_not_match_usage_are_inconclusive():
    r = _record([3, 2, 4] * 10)
    for e in r.events:
        e.n_tokens, e.tokens = None, None
    r.usage = {"completion_tokens": 90}
    assert analyse([r]).verdict == "inconclusive"


def test_one_cluster_of_gaps_has_no_split():
    rng = np.random.default_rng(0)
    assert split_gaps(rng.uniform(0.015, 0.03, 500)) is None
    two = np.concatenate([rng.uniform(1e-5, 5e-5, 200), rng.uniform(0.015, 0.03, 300)])
    assert 5e-5 < split_gaps(two) < 0.015


def test_binomial_tail_matches_a_direct_sum():
    from math import comb
    n, m, p = 40, 5, 0.05
    direct = sum(comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(m, n + 1))
    assert binomial_tail(n, m, p) == pytest.approx(direct, rel=1e-9)


def test_a_run_file_re_analyses_to_the_same_result(tmp_path):
    records = [_record([1, 3, 5, 2, 5] * 8, index=i) for i in range(4)]
    records += [_record([1] * 30, role=BASELINE, index=i) for i in range(4)]
    with RunWriter(tmp_path / "run.jsonl", {"fast_name": "fast"}) as w:
        for r in records:
            w.add(r)
    header, back = read_run(tmp_path / "run.jsonl")
    assert analyse(back, header).to_dict() == analyse(records, header).to_dict()


def test_a_broken_run_file_names_its_line(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps({"kind": "specledger-probe-run", "version": 1}) + "\n{broken\n")
    with pytest.raises(RunFileError, match="line 2"):
        read_run(path)


def test_a_late_client_merging_a_few_plain_events_is_still_plain():
    rng = np.random.default_rng(3)
    records = []
    for i in range(4):
        r = _record([1] * 80, per_token=True, index=i)
        for e, late in zip(r.events[1:], rng.random(79) < 0.05):  # 5% of events read together with the one before
            if late:
                e.t = r.events[r.events.index(e) - 1].t + 1e-5
        records.append(r)
    report = analyse(records)
    assert report.stream_style == ONE_PER_STEP and report.verdict == "no"


def test_repeats_of_a_prompt_do_not_narrow_the_class_interval():
    # 6 prompts sent once, then the same 6 sent 3 times (same steps, as at temperature 0): the interval
    # is the same, G counts prompts, and the JSON says both the requests and the distinct prompts
    rng = np.random.default_rng(7)
    steps = [list(np.minimum(rng.geometric(1 - p, 40) - 1, 4) + 1) for p in (0.5, 0.6, 0.7, 0.75, 0.8, 0.9)]

    def run(repeats):
        records = []
        for rep in range(repeats):
            for i, sizes in enumerate(steps):
                r = _record(sizes, index=i)
                r.repeat = rep
                records.append(r)
        return analyse(records).classes[0]

    once, thrice = run(1), run(3)
    assert once.alpha_interval is not None and once.alpha == pytest.approx(thrice.alpha)
    assert thrice.alpha_interval == pytest.approx(once.alpha_interval, rel=1e-12)
    assert (once.requests, once.prompts, thrice.requests, thrice.prompts) == (6, 6, 18, 6)
