"""Apply of a probe run against a real llama.cpp `llama-server` (tests/data/llamacpp_server/probe.run.jsonl: the
run file of `specledger probe` against the tiny pair of tests/llama_tiny.py, 12 prompts a class, twice each, the
fast tier's requests kept). Its steps came about 1.5 ms apart on loopback, too close for the stream to show them:
the timing read alpha near 0.5 where the server's counts, and its own per-step log (alpha 0.737 over full
drafts), say 0.72-0.74. The row says the two disagree and Apply says it stores the reported alpha; it stored the
timing profile's summary instead (the profile wins beside an alpha), under the reported one's name."""
from __future__ import annotations

import pytest

from model.probe.analysis import analyse
from model.probe.apply import apply_probe, disagreeing_sources
from model.probe.run_file import read_run
from model.workbook.json_file import load_demo
from tests.model.probe.llamacpp_recorded import RECORDED

TIER = "Helix Fast"


def _report():
    header, records = read_run(RECORDED / "probe.run.jsonl")
    return analyse(records, header)


def test_apply_stores_the_reported_alpha_it_names_without_the_timing_profile():
    report = _report()
    assert all(c.sources_disagree and c.alpha_source == "reported" and c.profile for c in report.classes)
    said = disagreeing_sources(report)
    wb = load_demo()
    apply_probe(wb, report, TIER)
    for c in report.classes:
        o = wb.override_for(TIER, c.task_class)
        assert o.alpha == pytest.approx(c.alpha_reported) and not o.profile, c.task_class
        assert f"{c.task_class} reported {c.alpha_reported:.1%}" in said
        low, high = c.alpha_interval
        assert (o.alpha_low, o.alpha_high) == pytest.approx((low, high))  # the reported alpha's own interval
    assert "profile read from the stream's steps" in said
