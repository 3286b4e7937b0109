"""A per-position profile ('77% 58% 53%') and a mean acceptance length ('AL 2.6 @K4') typed in an acceptance cell,
in the Task classes table and the Acceptance grid, as the workbook file takes them: the same validation, one undo
step, and the editor offers them back as typed (the cell refused them before)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from model.mechanics import arithmetic as ar


def _alpha_index(window, row: int):
    return window.class_model.index(row, window.class_model.column_of("alpha"))


def test_a_profile_typed_in_a_class_cell_is_one_undo_step(window):
    doc = window.document
    before = doc.workbook.classes[0].alpha
    steps = doc.undo_stack.count()
    assert window.class_model.setData(_alpha_index(window, 0), "77% 58% 53%")
    doc.flush()
    code = doc.workbook.classes[0]
    assert code.profile == pytest.approx((0.77, 0.58, 0.53)) and code.acceptance_length is None
    assert code.alpha_source == "assumed" and code.alpha_low is None
    e = float(ar.profile_tokens([0.77, 0.58, 0.53]))
    assert float(ar.expected_tokens(code.alpha, 3)) == pytest.approx(e)  # the alpha summarises it
    assert doc.undo_stack.count() == steps + 1
    assert doc.comparison.cells.acceptance.kind[0, 0] != 0  # the comparison reads the profile, not one alpha
    # the editor offers it back as typed, and committing that again changes nothing
    text = _alpha_index(window, 0).data(Qt.ItemDataRole.EditRole)
    assert text == "77% 58% 53%"
    assert window.class_model.setData(_alpha_index(window, 0), text) and doc.undo_stack.count() == steps + 1
    doc.undo_stack.undo()
    doc.flush()
    assert doc.workbook.classes[0].profile == () and doc.workbook.classes[0].alpha == before


def test_a_length_at_its_k_and_the_validators_refusals(window):
    doc = window.document
    assert window.class_model.setData(_alpha_index(window, 1), "AL 2.6 @K4")
    doc.flush()
    json_ = doc.workbook.classes[1]
    assert (json_.acceptance_length, json_.acceptance_length_k, json_.profile) == (2.6, 4, ())
    assert _alpha_index(window, 1).data(Qt.ItemDataRole.EditRole) == "AL 2.6 @K4"
    refused = []
    window.class_model.refused.connect(refused.append)
    steps = doc.undo_stack.count()
    for bad in ("AL 6 @K4", "77% 120% 50%", "AL 2.6 @K0"):
        assert not window.class_model.setData(_alpha_index(window, 2), bad), bad
    assert doc.undo_stack.count() == steps and len(refused) == 3
    assert "at most K + 1 = 5" in refused[0] and "position 2" in refused[1] and "Task class" in refused[0]
    # one alpha and a range still read as before
    assert window.class_model.setData(_alpha_index(window, 2), "80% (74–86%)")
    doc.flush()
    assert doc.workbook.classes[2].alpha == pytest.approx(0.8) and doc.workbook.classes[2].alpha_low == pytest.approx(0.74)


def test_a_profile_typed_in_the_acceptance_grid_is_the_tiers_override(window):
    doc = window.document
    grid = window.override_model
    tier, cls = doc.workbook.tiers[1].name, doc.workbook.classes[3].name
    steps = doc.undo_stack.count()
    assert grid.setData(grid.index(1, 3), "0.9 0.8 0.7 0.6")
    doc.flush()
    o = doc.workbook.override_for(tier, cls)
    assert o is not None and o.profile == pytest.approx((0.9, 0.8, 0.7, 0.6)) and doc.undo_stack.count() == steps + 1
    assert grid.setData(grid.index(1, 3), "AL 3.1 @K5")
    doc.flush()
    o = doc.workbook.override_for(tier, cls)
    assert (o.acceptance_length, o.acceptance_length_k, o.profile) == (3.1, 5, ())
