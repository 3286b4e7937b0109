"""An interval on a profile's or a length's mean acceptance length E, carried into the comparison and its verdicts."""
from __future__ import annotations

import dataclasses

import pytest

from model.comparison.records import pair_records
from model.mechanics import arithmetic as ar
from model.comparison import UNDECIDED, compare
from model.workbook.json_file import workbook_from_dict, workbook_to_dict
from model.workbook.rows import TaskClass, drop_acceptance_shape
from model.workbook.acceptance_fields import summary_alpha
from model.workbook.validation import acceptance_problems
from tests.model.comparison.test_comparison_profiles import book


def _records(cmp):
    return {(r["tier"], r["task_class"]): r for r in pair_records(cmp)}


def test_a_length_interval_at_its_own_k_and_carried_to_another():
    # E = 2.2 measured at K = 3, interval 2.0 to 2.4. Fast3 (K = 3, c = 0.1, v = 1): stretch 1.3, exactly
    cls = TaskClass("code", 1e6, 0, 4096, 0.5, acceptance_length=2.2, acceptance_length_k=3,
                    acceptance_length_low=2.0, acceptance_length_high=2.4, alpha_confidence=0.9)
    cmp = compare(book([cls]))
    rec = _records(cmp)
    at3 = rec[("Fast3", "code")]
    assert at3["mean_acceptance_length_interval"] == pytest.approx([2.0, 2.4], rel=1e-12)
    assert at3["speedup_interval"] == pytest.approx([2.0 / 1.3, 2.4 / 1.3], rel=1e-12)
    assert at3["confidence"] == 0.9 and at3["interval_note"] is None
    # Fast5 (K = 5): E there is extrapolated (length_at_k), and the accepted drafts E - 1 scale by the factor at
    # K = 3: (2.0 - 1) / (2.2 - 1) below, (2.4 - 1) / (2.2 - 1) above
    e5 = float(ar.length_at_k(2.2, 3, 5)[0])
    at5 = rec[("Fast5", "code")]
    assert at5["extrapolated"] and at5["mean_acceptance_length"] == pytest.approx(e5, rel=1e-12)
    assert at5["mean_acceptance_length_interval"] == pytest.approx([1 + (e5 - 1) / 1.2, 1 + (e5 - 1) * 1.4 / 1.2],
                                                                   rel=1e-12)
    stretch5 = 5 * 0.05 + 1.1
    assert at5["speedup_interval"] == pytest.approx([(1 + (e5 - 1) / 1.2) / stretch5,
                                                     (1 + (e5 - 1) * 1.4 / 1.2) / stretch5], rel=1e-12)
    # the mix's interval is at the workbook's confidence (0.95): wider than this 90% one; with the range at the
    # workbook's confidence and one class, it is that class's interval carried through
    assert cmp.tiers.mix_speedup_low[1] < 2.0 / 1.3 and cmp.tiers.mix_speedup_high[1] > 2.4 / 1.3
    same = compare(book([dataclasses.replace(cls, alpha_confidence=None)]))
    assert same.tiers.mix_speedup_low[1] == pytest.approx(2.0 / 1.3, rel=1e-9)
    assert same.tiers.mix_speedup_high[1] == pytest.approx(2.4 / 1.3, rel=1e-9)


def test_an_interval_across_the_break_even_makes_the_verdict_undecided():
    # E = 1.4 at K = 3 on Fast3: speedup 1.4 / 1.3 = 1.08 (a gain or marginal by the band); the interval
    # 1.2 to 1.6 gives 0.92 to 1.23, across 1: undecided. A profile the same way (E = 1 + 0.3 + 0.09 + 0.009)
    plain = TaskClass("code", 1e6, 0, 4096, 0.3, acceptance_length=1.4, acceptance_length_k=3)
    ranged = TaskClass("code", 1e6, 0, 4096, 0.3, acceptance_length=1.4, acceptance_length_k=3,
                       acceptance_length_low=1.2, acceptance_length_high=1.6)
    assert compare(book([plain])).cells.verdict[1, 0] != UNDECIDED
    cmp = compare(book([ranged]))
    assert cmp.cells.verdict[1, 0] == UNDECIDED and cmp.cells.alpha_confidence[1, 0] == 0.95  # the workbook's, none typed
    profiled = TaskClass("code", 1e6, 0, 4096, 0.3, profile=(0.3, 0.3, 0.3), acceptance_length_low=1.2,
                         acceptance_length_high=1.6)
    assert compare(book([profiled])).cells.verdict[1, 0] == UNDECIDED
    # without its interval a profile says why there is none: assumed, or (an interval on alpha beside it, which
    # says nothing of the profile) none on its length
    rec = _records(compare(book([TaskClass("code", 1e6, 0, 4096, 0.3, profile=(0.3, 0.3, 0.3))])))
    assert rec[("Fast3", "code")]["interval_note"] == "assumed, no range given"
    measured = TaskClass("code", 1e6, 0, 4096, 0.3, "measured", profile=(0.3, 0.3, 0.3), alpha_low=0.25,
                         alpha_high=0.35, alpha_confidence=0.95, alpha_requests=20)
    rec = _records(compare(book([measured])))[("Fast3", "code")]
    assert rec["interval_note"] == "no interval on this mean acceptance length" and rec["speedup_interval"] is None


def test_the_range_is_checked_with_the_length_it_belongs_to():
    def problems(**kw):
        row = TaskClass("c", 0, 0, 4096, 0.5, **kw)
        if row.profile or row.acceptance_length_k is not None:  # the alpha beside a shape is its summary
            row.alpha = summary_alpha(row.profile, row.acceptance_length, row.acceptance_length_k)
        return acceptance_problems(row)

    assert problems(acceptance_length=2.2, acceptance_length_k=3, acceptance_length_low=2.0,
                    acceptance_length_high=2.4) == []
    assert "both ends" in problems(acceptance_length=2.2, acceptance_length_k=3, acceptance_length_low=2.0)[0]
    assert "without a profile" in problems(acceptance_length_low=2.0, acceptance_length_high=2.4)[0]
    assert "does not hold" in problems(acceptance_length=2.2, acceptance_length_k=3, acceptance_length_low=2.3,
                                       acceptance_length_high=2.4)[0]
    # a profile's E: 1 + 0.5 + 0.25 = 1.75, at most K + 1 = 3
    assert "does not hold" in problems(profile=(0.5, 0.5), acceptance_length_low=1.8, acceptance_length_high=2.0)[0]
    assert "at most K + 1" in problems(profile=(0.5, 0.5), acceptance_length_low=1.7, acceptance_length_high=3.2)[0]


def test_the_range_survives_a_file_and_goes_with_its_profile():
    cls = TaskClass("code", 1e6, 0, 4096, 0.5, profile=(0.8, 0.5), acceptance_length_low=2.0,
                    acceptance_length_high=2.4)
    wb = workbook_from_dict(workbook_to_dict(book([cls])))
    assert (wb.classes[0].acceptance_length_low, wb.classes[0].acceptance_length_high) == (2.0, 2.4)
    drop_acceptance_shape(wb.classes[0])  # an alpha typed over the profile takes its interval on E with it
    assert wb.classes[0].acceptance_length_low is None and wb.classes[0].acceptance_length_high is None
