"""What an edit no longer redoes from scratch (Workbook.copy sharing immutable values, workbook_problems
remembering each row's check) still answers as the full work did: these fail if a cache kept a stale answer."""
from __future__ import annotations

import copy

import pytest

from model.mechanics import roofline
from model.workbook import validation
from model.workbook.json_file import load_demo
from model.workbook.rows import Override, TaskClass, Tier, Workbook
from model.workbook.validation import check_row, workbook_problems


def test_a_copy_equals_deepcopy_and_shares_no_row():
    wb = load_demo()
    wb.classes[0].profile = (0.8, 0.7, 0.6)
    out = wb.copy()
    assert out == copy.deepcopy(wb)
    assert [t.identity for t in out.tiers] == [t.identity for t in wb.tiers]
    for a, b in zip((*out.tiers, *out.classes, *out.overrides, out.settings), (*wb.tiers, *wb.classes, *wb.overrides, wb.settings)):
        assert a is not b
    out.tiers[0].k, out.classes[0].profile, out.settings.k_max = 7, (0.5,), 3
    assert wb.tiers[0].k != 7 and wb.classes[0].profile == (0.8, 0.7, 0.6) and wb.settings.k_max != 3


def test_a_copy_deep_copies_a_mutable_value_a_file_put_in_a_row():
    wb = Workbook(classes=[TaskClass(name="a")])
    wb.classes[0].profile = [0.8, 0.7]  # type: ignore[assignment]  (a list before validation made it a tuple)
    out = wb.copy()
    out.classes[0].profile.append(0.1)  # type: ignore[attr-defined]
    assert wb.classes[0].profile == [0.8, 0.7]


def test_row_problems_follow_every_change_of_a_row():
    wb = Workbook(tiers=[Tier(name="A"), Tier(name="B", baseline="A")], classes=[TaskClass(name="c")])
    assert workbook_problems(wb) == []
    wb.tiers[1].k = 0
    assert any("K" in p for p in workbook_problems(wb))
    wb.tiers[1].k = 4
    assert workbook_problems(wb) == []
    # the same value as another type is another row: True == 1, but True is no K
    wb.tiers[1].k = 1
    assert workbook_problems(wb) == []
    wb.tiers[1].k = True  # type: ignore[assignment]
    assert workbook_problems(wb) == check_row(wb.tiers[1], 1) != []
    wb.tiers[1].k = 4
    wb.classes[0].alpha = 0.5
    wb.classes[0].alpha_low, wb.classes[0].alpha_high = 0.6, 0.7  # a range that does not hold alpha
    assert any("Alpha range" in p for p in workbook_problems(wb))
    wb.classes[0].alpha = 0.65
    assert workbook_problems(wb) == []


def test_the_row_index_in_a_message_is_the_rows_own():
    nameless = Tier(name="", k=0)
    one = workbook_problems(Workbook(tiers=[Tier(name="A"), nameless]))
    two = workbook_problems(Workbook(tiers=[Tier(name="A"), Tier(name="B"), nameless]))
    assert any("row 2" in p for p in one) and any("row 3" in p for p in two) and not any("row 2" in p for p in two)


def test_a_profiles_number_types_are_part_of_the_row():
    flat, bools = TaskClass(name="p", profile=(1.0, 1.0)), TaskClass(name="p", profile=(True, True))
    assert validation.check_row_cached(flat, 0) == check_row(flat, 0)
    assert validation.check_row_cached(bools, 0) == check_row(bools, 0) != []


def test_a_preset_added_later_is_seen(monkeypatch):
    wb = Workbook(tiers=[Tier(name="A", cost_model="roofline", gpu="Bench GPU")])
    assert any("GPU" in p for p in workbook_problems(wb))
    monkeypatch.setitem(roofline.GPUS, "Bench GPU", next(iter(roofline.GPUS.values())))
    assert workbook_problems(wb) == []


def test_the_remembered_checks_stay_bounded(monkeypatch):
    monkeypatch.setattr(validation, "_ROW_PROBLEMS_LIMIT", 10)
    for i in range(40):
        workbook_problems(Workbook(overrides=[Override("t", "c", 0.5)], tiers=[Tier(name="t", k=1 + i % 16)],
                                   classes=[TaskClass(name="c")]))
    assert len(validation._ROW_PROBLEMS) <= 10


@pytest.mark.parametrize("index", [None, 0, 5])
def test_cached_and_plain_checks_agree_on_the_demo(index):
    for row in (*load_demo().tiers, *load_demo().classes, *load_demo().overrides):
        assert validation.check_row_cached(row, index) == check_row(row, index)
