"""Applying a probe: overrides with source probed, the speculative flag from the verdict, the speedup kept."""
from __future__ import annotations

import pytest

from model.probe.analysis import ClassProbe, ContextSpeed, ProbeReport
from model.probe.apply import apply_probe
from model.workbook.json_file import load_demo


def _report(verdict: str, alphas: dict[str, float | None], speed: float = 2.0) -> ProbeReport:
    classes = [ClassProbe(name, 4, a, "timing" if a is not None else None, None, a, None, 2.0, 2.0, [0, 3, 3], 6,
                          0.1, 50.0, {"prompt only": speed}, [ContextSpeed(0, 4, 0.1, 50.0, 0.1, 25.0, speed)])
               for name, a in alphas.items()]
    return ProbeReport(verdict, "words", 1e-9, "multi-token events", 4, "fast", "base", 1.0, classes, None, 8, [],
                       "2026-12-01")


def test_apply_sets_overrides_flag_and_speedup():
    wb = load_demo()
    tier = wb.tiers[0].name
    name = wb.classes[0].name
    skipped = apply_probe(wb, _report("no", {name: 0.42, "nonesuch": 0.5, wb.classes[1].name: None}), tier)
    o = wb.override_for(tier, name)
    assert o is not None and o.alpha == 0.42 and o.alpha_source == "probed" and "2026-12-01" in o.source_note
    assert wb.tiers[0].speculative == "no"
    assert wb.tiers[0].measured_speedup == pytest.approx(2.0)
    assert any("nonesuch" in s for s in skipped) and any("hid the steps" in s for s in skipped)


def test_an_inconclusive_verdict_leaves_the_flag_alone():
    wb = load_demo()
    before = wb.tiers[0].speculative
    apply_probe(wb, _report("inconclusive", {wb.classes[0].name: 0.6}), wb.tiers[0].name)
    assert wb.tiers[0].speculative == before


def test_an_unknown_tier_is_refused():
    with pytest.raises(ValueError, match="no tier"):
        apply_probe(load_demo(), _report("yes", {}), "nonesuch")


def _profiled(k: int, positions: int) -> ProbeReport:
    report = _report("yes", {"code": 0.7})
    report.k_estimate, report.k_source = k, "timing"
    report.classes[0].profile = [0.8, 0.7, 0.6][:positions]
    return report


def test_apply_sets_the_tiers_k_to_the_k_measured_or_keeps_it_and_says_what_is_extrapolated():
    from model.comparison import compare
    from model.acceptance.k_check import k_mismatch

    wb = load_demo()
    tier = "Northwind Turbo"
    i = wb.tier_index(tier)
    assert wb.tiers[i].k == 5
    kept = wb.copy()
    apply_probe(kept, _profiled(3, 3), tier)  # the default keeps the workbook's K
    assert kept.tiers[i].k == 5
    cmp = compare(kept)
    j = kept.class_index("code")
    assert cmp.cells.extrapolated[i, j]  # E at K = 5 from 3 measured positions: labelled so
    said = k_mismatch(3, "timing", 5, 3)
    assert "labelled extrapolated" in said.apply_text(False) and "K = 5" in said.apply_text(False)
    apply_probe(wb, _profiled(3, 3), tier, set_k=True)
    assert wb.tiers[i].k == 3 and not compare(wb).cells.extrapolated[i, j]
    assert "from 5 to 3" in said.apply_text(True)
    # a K that agrees is no mismatch, and set_k changes nothing
    assert k_mismatch(3, "timing", 3) is None
    apply_probe(wb, _profiled(3, 3), tier, set_k=True)
    assert wb.tiers[i].k == 3
    # a tier K under the K measured: the first positions, and the drafts priced, said
    short = k_mismatch(4, "server", 2, 4)
    assert "first 2 of the 4 positions" in short.text and "draft tokens" in short.text
    # an alpha without a profile is carried by the i.i.d. model, not called extrapolated
    assert "i.i.d." in k_mismatch(3, "reported", 5, 0).text


def test_apply_keeps_the_probes_interval_on_the_measured_speedup():
    # a closed vendor's tier is judged on its measured speed with this interval (model/comparison/on_measured.py)
    import dataclasses

    from model.probe.by_load import LevelSpeed

    wb = load_demo()
    tier = wb.tiers[1]
    level = LevelSpeed(1, 40, 40, 0.2, 90.0, 0.2, 40.0, None, None, 2.5, 0, False, speedup_interval=[2.25, 2.8])
    report = dataclasses.replace(_report("yes", {wb.classes[0].name: None}, speed=2.0), by_concurrency=[level],
                                 confidence=0.9)
    apply_probe(wb, report, tier.name)
    # the workload's blend (2.0) with the level's interval scaled to it: the same relative width
    assert tier.measured_speedup == pytest.approx(2.0)
    assert (tier.measured_speedup_low, tier.measured_speedup_high) == (pytest.approx(1.8), pytest.approx(2.24))
    assert tier.measured_speedup_confidence == 0.9
    apply_probe(wb, dataclasses.replace(report, by_concurrency=[]), tier.name)  # a probe without an interval
    assert tier.measured_speedup_low is None and tier.measured_speedup_high is None
