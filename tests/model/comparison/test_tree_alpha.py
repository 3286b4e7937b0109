"""A tree draft given a per-token alpha is refused with its reason; given a length or a profile it is computed.

Hand-worked: a typed tree tier of depth K = 4 verifying N = 16 tokens, c = 0.05, v = 1.3 (its verify pass over
16 tokens, typed): E* = K c + v = 0.2 + 1.3 = 1.5 tokens per step.
- a length of 3.2 tokens per step at K = 4: S = 3.2 / 1.5 = 2.1333...
- a per-depth profile 0.7, 0.5, 0.4, 0.3: E = 1 + 0.7 + 0.35 + 0.14 + 0.042 = 2.232, S = 1.488
- alpha 0.6: no number. E(0.6, 4) = 2.3056 would count one candidate a depth, which a tree of 16 does not.
"""
from __future__ import annotations

import math

import pytest

from model.comparison.records import pair_records, tier_records
from model.comparison import NOT_APPLICABLE, TREE_NEEDS_LENGTH, compare
from model.workbook.rows import TaskClass, Tier, Workbook
from model.workbook.acceptance_fields import summary_alpha


def book(prose: TaskClass) -> Workbook:
    return Workbook(
        tiers=[Tier("Std", "V", "no", price_out=10, price_in=1),
               Tier("Tree", "V", "yes", k=4, c=0.05, v=1.3, tree_size=16, baseline="Std", price_out=14, price_in=1),
               Tier("Chain", "V", "yes", k=4, c=0.05, v=1.3, baseline="Std", price_out=14, price_in=1)],
        classes=[TaskClass("code", 3e6, 0, 4096, summary_alpha((), 3.2, 4), acceptance_length=3.2, acceptance_length_k=4),
                 prose])


def _rec(cmp, tier, cls):
    return next(r for r in pair_records(cmp) if r["tier"] == tier and r["task_class"] == cls)


def test_a_length_on_a_tree_is_computed_by_hand():
    cmp = compare(book(TaskClass("prose", 1e6, 0, 4096, 0.6, profile=(0.7, 0.5, 0.4, 0.3))))
    code, prose = _rec(cmp, "Tree", "code"), _rec(cmp, "Tree", "prose")
    assert code["break_even_length"] == pytest.approx(1.5, rel=1e-12)
    assert code["speedup"] == pytest.approx(3.2 / 1.5, rel=1e-12) and code["verdict"] == "gain"
    assert prose["mean_acceptance_length"] == pytest.approx(2.232, rel=1e-12)
    assert prose["speedup"] == pytest.approx(2.232 / 1.5, rel=1e-12)
    # the mix: 3M and 1M output tokens, time adds up
    tier = next(t for t in tier_records(cmp) if t["tier"] == "Tree")
    assert tier["mix_speedup"] == pytest.approx(4.0 / (3.0 / (3.2 / 1.5) + 1.0 / (2.232 / 1.5)), rel=1e-12)
    assert tier["acceptance_refused"] is None


def test_a_per_token_alpha_on_a_tree_is_refused_with_its_reason():
    cmp = compare(book(TaskClass("prose", 1e6, 0, 4096, 0.6, alpha_low=0.5, alpha_high=0.7)))
    prose = _rec(cmp, "Tree", "prose")
    assert prose["acceptance_refused"] == TREE_NEEDS_LENGTH and "per-depth profile" in TREE_NEEDS_LENGTH
    for key in ("speedup", "mean_acceptance_length", "break_even_alpha", "margin", "speedup_interval",
                "optimal_k", "mean_acceptance_length_interval", "optimal_speedup"):
        assert prose[key] is None, key
    assert prose["verdict"] == "n/a" and prose["value_verdict"] == "n/a"
    assert "tree draft" in prose["break_even_alpha_note"] and prose["break_even_length"] == pytest.approx(1.5)
    # the class given as a length on the same tier is computed; the tier's mix waits for every class
    assert _rec(cmp, "Tree", "code")["speedup"] == pytest.approx(3.2 / 1.5, rel=1e-12)
    tier = next(t for t in tier_records(cmp) if t["tier"] == "Tree")
    assert tier["mix_speedup"] is None and tier["acceptance_refused"] == ["prose"]
    assert tier["verdict"] == "n/a" and tier["value_verdict"] == "n/a"
    i = cmp.tier_names.index("Tree")
    assert cmp.cells.verdict[i, 1] == NOT_APPLICABLE and math.isnan(cmp.cells.speedup[i, 1])
    # the same alpha on a chain of the same K and costs: E(0.6, 4) = 2.3056, as before
    chain = _rec(cmp, "Chain", "prose")
    assert chain["acceptance_refused"] is None
    assert chain["speedup"] == pytest.approx((1 - 0.6 ** 5) / 0.4 / 1.5, rel=1e-12)
    assert chain["speedup_interval"] is not None


def test_the_alpha_chart_has_no_curve_for_a_tree():
    from model.curves.chart_data import alpha_curves

    data = alpha_curves(book(TaskClass("prose", 1e6, 0, 4096, 0.6)).tiers)
    assert data.tier_names == ["Chain"]


def test_the_excel_report_refuses_a_tree_tier_with_an_alpha_class_and_writes_nothing(tmp_path):
    from model.report.export import export_report, tree_alpha_cells
    from model.workbook.validation import WorkbookError
    from tests.excel_cases import summarised

    wb = book(TaskClass("prose", 1e6, 0, 4096, 0.6))
    assert tree_alpha_cells(wb) == [("Tree", "prose")]
    target = tmp_path / "report.xlsx"
    with pytest.raises(WorkbookError, match=r"tree draft's classes need .*Tree/prose"):
        export_report(wb, target)
    assert not target.exists()
    # an override giving the class a length on the tree settles it
    from model.workbook.rows import Override
    wb.overrides.append(summarised(Override("Tree", "prose", 0.6, acceptance_length=2.5, acceptance_length_k=4)))
    assert tree_alpha_cells(wb) == []
