"""The comparison at the tier's concurrency (#25): a probe's speedup measured at exactly that load is used
in the value verdict at that load, and said; a throttled level is not used; another level never stands in."""
from __future__ import annotations

import pytest

from model.comparison.records import tier_records
from model.comparison import compare
from model.comparison.load_speed import MEASURED, NONE, THROTTLED
from model.probe.analysis import ProbeReport
from model.probe.apply import apply_probe
from model.probe.by_load import LevelSpeed
from model.workbook.json_file import load_demo


def _fast_tier(wb):
    i = next(i for i, t in enumerate(wb.tiers) if t.baseline and t.speculative == "yes")
    return i, wb.tiers[i]


def test_the_speedup_at_the_tiers_concurrency_decides_the_verdict_at_that_load():
    wb = load_demo()
    i, tier = _fast_tier(wb)
    tier.concurrency, tier.measured_by_concurrency = 16, "1: 2.4, 4: 2.0, 16: 0.9"
    cmp = compare(wb)
    rec = tier_records(cmp)[i]
    ratio = rec["price_ratio"]
    assert ratio > 0.9  # the demo's fast tiers cost more than their baseline
    assert rec["concurrency"] == 16 and rec["speedup_at_concurrency"] == 0.9
    assert rec["speedup_at_concurrency_source"] == MEASURED
    assert rec["value_verdict_at_concurrency"] == "not worth it"
    words = cmp.tier_parts[i].at_load.words()
    assert "16 parallel streams" in words and "0.90x" in words and "uses the measured speed" in words
    assert "1: 2.40x" in words  # the other levels beside it
    # cheap enough at that load: the same speed is worth it when the price ratio is below it
    tier.price_out = tier.price_in = 0.0
    assert tier_records(compare(wb))[i]["value_verdict_at_concurrency"] == "worth the premium"


def test_a_throttled_level_or_another_level_is_not_used():
    wb = load_demo()
    i, tier = _fast_tier(wb)
    tier.concurrency, tier.measured_by_concurrency = 16, "1: 2.4, 16: 0.9*"
    rec = tier_records(compare(wb))[i]
    assert rec["speedup_at_concurrency"] is None and rec["speedup_at_concurrency_source"] == THROTTLED
    assert rec["value_verdict_at_concurrency"] is None
    tier.concurrency = 8
    cmp = compare(wb)
    rec = tier_records(cmp)[i]
    assert rec["speedup_at_concurrency"] is None and rec["speedup_at_concurrency_source"] == NONE
    assert "no speedup was measured at that load" in cmp.tier_parts[i].at_load.words()


def test_a_tier_at_one_stream_with_nothing_by_level_says_nothing():
    wb = load_demo()
    cmp = compare(wb)
    assert all(cmp.tier_parts[i].at_load.words() == "" for i in range(len(wb.tiers)))
    assert all(r["concurrency"] == 1 and r["speedup_at_concurrency"] is None for r in tier_records(cmp))


def _level(n: int, s: float, throttled: bool = False) -> LevelSpeed:
    return LevelSpeed(n, n, n, 0.1, 50.0, 0.1, 25.0, 2.0, 0.6, s, 3 if throttled else 0, throttled)


def test_applying_a_probe_keeps_its_speedups_by_level_on_the_tier():
    wb = load_demo()
    i, tier = _fast_tier(wb)
    report = ProbeReport("yes", "words", 1e-9, "multi-token events", 4, tier.name, "base", 1.0, [], None, 8, [],
                         "2026-12-02", by_concurrency=[_level(1, 2.31), _level(8, 1.5), _level(32, 0.8, True)])
    apply_probe(wb, report, tier.name)
    assert wb.tiers[i].measured_by_concurrency == "1: 2.31, 8: 1.5, 32: 0.8*"


def test_compare_text_and_the_reports_summary_state_the_speedup_at_the_load(tmp_path, capsys):
    openpyxl = pytest.importorskip("openpyxl")
    from main import main
    from model.report.export import export_report
    from model.workbook.json_file import save_workbook

    wb = load_demo()
    i, tier = _fast_tier(wb)
    tier.concurrency, tier.measured_by_concurrency = 16, "1: 2.4, 16: 0.9"
    path = tmp_path / "wb.json"
    save_workbook(wb, path)
    assert main(["compare", str(path)]) == 0
    out = capsys.readouterr().out
    assert "speed at your load" in out and f"{tier.name}: at its load, 16 parallel streams, measured 0.90x" in out
    export_report(wb, tmp_path / "r.xlsx", "wb.json")
    cells = [c for row in openpyxl.load_workbook(tmp_path / "r.xlsx")["Summary"].iter_rows(values_only=True)
             for c in row if isinstance(c, str)]
    assert any("16 parallel streams, measured 0.90x" in c for c in cells)


@pytest.mark.parametrize("load, level, words", [(1, 1, "at 1 parallel stream, the tier's load"),
                                                (8, 8, "at 8 parallel streams, the tier's load"),
                                                (12, 8, "at 8 parallel streams, the level nearest the tier's load of 12")])
def test_the_measured_speedup_beside_the_claim_is_the_one_at_the_tiers_load(load, level, words):
    wb = load_demo()
    i, tier = _fast_tier(wb)
    tier.concurrency = load
    report = ProbeReport("yes", "words", 1e-9, "multi-token events", 4, tier.name, "base", 1.0, [], None, 8, [],
                         "2026-12-02", by_concurrency=[_level(1, 2.31), _level(8, 1.5), _level(32, 0.8, True)])
    apply_probe(wb, report, tier.name)
    assert wb.tiers[i].measured_speedup == {1: 2.31, 8: 1.5}[level]
    assert words in wb.tiers[i].measured_note and "against base" in wb.tiers[i].measured_note
