"""Three-way verdicts and the fair price against hand-worked numbers (K = 4, E(alpha, 4) = 1 + a + a^2 + a^3 + a^4)."""
from __future__ import annotations

import pytest

from model.comparison.records import pair_records, tier_records
from model.comparison import GAIN, NOT_WORTH, TAX, UNDECIDED, WORTH, compare
from model.workbook.rows import Override, Settings, TaskClass, Tier, Workbook


def _wb(alpha: float, low: float | None, high: float | None, c: float = 0.0, price: float = 15.0) -> Workbook:
    return Workbook(
        tiers=[Tier(name="Std", speculative="no", price_out=10.0),
               Tier(name="Fast", k=4, c=c, v=1.0, price_out=price, baseline="Std")],
        classes=[TaskClass(name="code", tokens_out=1e6, alpha=alpha, alpha_low=low, alpha_high=high)],
        settings=Settings(marginal_band=0.05))


def E(a: float) -> float:
    return 1 + a + a ** 2 + a ** 3 + a ** 4


def test_value_undecided_where_the_interval_straddles_the_price_break_even() -> None:
    # price ratio 15 / 10 = 1.5; S = E (c = 0, v = 1): E(0.3) = 1.4251 < 1.5 <= E(0.5) = 1.9375
    cmp = compare(_wb(0.4, 0.3, 0.5))
    assert cmp.cells.speedup_low[1, 0] == pytest.approx(1.4251) and cmp.cells.speedup_high[1, 0] == pytest.approx(1.9375)
    assert cmp.cells.value_verdict[1, 0] == UNDECIDED and cmp.tiers.value_verdict[1] == UNDECIDED
    assert cmp.cells.verdict[1, 0] == GAIN  # both ends above 1.05
    rec = pair_records(cmp)[1]
    assert rec["value_verdict"] == "undecided" and rec["alpha_interval"] == [0.3, 0.5]
    assert rec["speedup_interval"] == pytest.approx([1.4251, 1.9375])
    assert rec["speedup_vs_baseline_interval"] == pytest.approx([1.4251, 1.9375])
    assert rec["confidence"] == 0.95
    # narrower, above: E(0.38) = 1.60012 >= 1.5: worth; below: E(0.25) .. E(0.32) < 1.5: not worth
    assert compare(_wb(0.4, 0.38, 0.45)).cells.value_verdict[1, 0] == WORTH
    assert compare(_wb(0.3, 0.25, 0.32)).cells.value_verdict[1, 0] == NOT_WORTH
    # no range: the point decides, as before, and the note says it rests on an assumption
    none = compare(_wb(0.4, None, None))
    assert none.cells.value_verdict[1, 0] == WORTH and pair_records(none)[1]["interval_note"] == "assumed, no range given"
    assert pair_records(none)[1]["alpha_interval"] is None


def test_speed_undecided_where_the_interval_straddles_one() -> None:
    # c = 0.2: stretch 1.8; S(0.4) = 1.6496 / 1.8 = 0.9164 < 1 <= S(0.6) = 2.3056 / 1.8 = 1.2809
    cmp = compare(_wb(0.5, 0.4, 0.6, c=0.2))
    assert cmp.cells.speedup_low[1, 0] == pytest.approx(E(0.4) / 1.8) and cmp.cells.speedup_high[1, 0] == pytest.approx(E(0.6) / 1.8)
    assert cmp.cells.verdict[1, 0] == UNDECIDED and cmp.tiers.verdict[1] == UNDECIDED
    assert pair_records(cmp)[1]["verdict"] == "undecided"
    assert compare(_wb(0.2, 0.1, 0.3, c=0.2)).cells.verdict[1, 0] == TAX


def test_fair_price_at_the_measured_alpha_and_the_pessimistic_end() -> None:
    cmp = compare(_wb(0.4, 0.3, 0.5))
    # f* = speedup over the baseline / price ratio = 1.6496 / 1.5; low end 1.4251 / 1.5
    t = tier_records(cmp)[1]
    assert t["fair_price_factor"] == pytest.approx(1.6496 / 1.5)
    assert t["fair_price_factor_low"] == pytest.approx(1.4251 / 1.5)
    assert t["fair_price_out"] == pytest.approx(15 * 1.6496 / 1.5) and t["fair_price_in"] == 0.0
    assert t["fair_price_out_low"] == pytest.approx(15 * 1.4251 / 1.5)
    # at the fair price the tier is exactly worth it: the price break-even alpha moves onto the measured one
    fair = compare(_wb(0.4, 0.3, 0.5, price=t["fair_price_out"]))
    assert tier_records(fair)[1]["acceptance_to_guarantee"] == pytest.approx(0.4, abs=1e-9)
    # the acceptance to guarantee at the list price: E(a) = 1.5
    a = t["acceptance_to_guarantee"]
    assert E(a) == pytest.approx(1.5)
    assert t["speedup_interval"] == pytest.approx([1.4251, 1.9375])  # one class: the mix is that class
    assert tier_records(compare(_wb(0.4, None, None)))[1]["fair_price_factor_low"] is None


def test_an_override_without_a_range_does_not_borrow_the_class_interval() -> None:
    wb = _wb(0.4, 0.3, 0.5)
    wb.overrides.append(Override("Fast", "code", 0.45))
    cmp = compare(wb)
    assert pair_records(cmp)[1]["alpha_interval"] is None and cmp.cells.value_verdict[1, 0] == WORTH
    wb.overrides[0].alpha_low, wb.overrides[0].alpha_high = 0.3, 0.46
    assert compare(wb).cells.value_verdict[1, 0] == UNDECIDED


def test_classes_combine_as_independent_in_the_mix() -> None:
    wb = _wb(0.4, 0.3, 0.5)
    wb.classes.append(TaskClass(name="prose", tokens_out=1e6, alpha=0.4, alpha_low=0.3, alpha_high=0.5))
    cmp = compare(wb)
    lo, hi = tier_records(cmp)[1]["speedup_interval"]
    # narrower than every class at its worst end at once, wider than nothing
    assert E(0.3) < lo < E(0.4) < hi < E(0.5)


def test_each_cell_has_its_own_rows_interval_and_note() -> None:
    # read once per class and per override, laid out per tier: every cell as acceptance_of its own row gives it
    from model.acceptance import acceptance_of

    wb = Workbook(
        tiers=[Tier(name="Std", speculative="no", price_out=10.0), Tier(name="A", price_out=15.0, baseline="Std"),
               Tier(name="B", k=3, price_out=12.0, baseline="Std")],
        classes=[TaskClass(name="code", tokens_out=1e6, alpha=0.7, alpha_low=0.6, alpha_high=0.8, alpha_confidence=0.9),
                 TaskClass(name="prose", tokens_out=1e6, alpha=0.4, alpha_source="measured", alpha_method="too few"),
                 TaskClass(name="chat", tokens_out=1e6, alpha=0.5, alpha_low=0.45, alpha_high=0.55)],
        overrides=[Override("A", "code", 0.65), Override("B", "prose", 0.42, alpha_low=0.4, alpha_high=0.5)],
        settings=Settings(confidence=0.8))
    cmp = compare(wb)
    for i, t in enumerate(wb.tiers):
        for j, c in enumerate(wb.classes):
            row = wb.override_for(t.name, c.name) or c
            a = acceptance_of(row, 0.8)
            want = (a.low, a.high, a.confidence) if a.has_interval else (None, None, None)
            got = tuple(None if x != x else float(x) for x in (cmp.cells.alpha_low[i, j], cmp.cells.alpha_high[i, j],
                                                                cmp.cells.alpha_confidence[i, j]))
            assert got == (want if i else (None, None, None)), (t.name, c.name)
            assert cmp.cells.alpha_note[i][j] == (a.note if i else ""), (t.name, c.name)
            assert cmp.cells.alpha[i, j] == row.alpha
    assert cmp.cells.alpha_note[1] is not cmp.cells.alpha_note[2]
