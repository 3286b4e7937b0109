"""A typed range in the window: the alpha cells of the task classes table and of the overrides grid take
'80% (74–86%)' (each end through its FieldSpec, the range must hold the alpha), one undo step; the verdicts
follow. The workbook's confidence is edited in the settings dialog, and the tier's value verdict follows it."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from gui.tables.summary_model import SUMMARY_COLUMNS
from model.comparison import MARGINAL, UNDECIDED
from tests.gui.window.test_settings_dialog import _open, _retype

TIER, CLASS = "Northwind Turbo", "prose"


def _class_cell(window, name: str = CLASS):
    model = window.class_model
    row = [c.name for c in window.document.workbook.classes].index(name)
    return model, model.index(row, model.column_of("alpha"))


def _verdict(window, tier: str = TIER, name: str = CLASS) -> int:
    window.document.flush()
    cmp = window.document.comparison
    return int(cmp.cells.verdict[cmp.tier_names.index(tier), cmp.class_names.index(name)])


def test_a_range_typed_on_a_class_is_one_undo_step_and_the_verdict_follows(window):
    model, cell = _class_cell(window)
    before = window.document.workbook.classes[cell.row()]
    assert _verdict(window) == MARGINAL and before.alpha_low is None  # prose at 50%: 1.05x, marginal
    steps = window.document.undo_stack.count()
    assert model.setData(cell, "50% (42%–56%)")
    row = window.document.workbook.classes[cell.row()]
    assert (row.alpha, row.alpha_low, row.alpha_high) == (0.5, 0.42, 0.56)
    assert row.alpha_confidence is None and row.alpha_requests == 0 and row.alpha_method == ""  # a typed range
    assert window.document.undo_stack.count() == steps + 1
    assert _verdict(window) == UNDECIDED  # 0.91x-1.17x reaches below 1
    assert model.data(cell) == "50.0% (42.0–56.0%)"
    assert model.data(cell, Qt.ItemDataRole.EditRole) == "50% (42%–56%)"
    assert model.setData(cell, "50% (42%–56%)") and window.document.undo_stack.count() == steps + 1  # same text
    window.document.undo_stack.undo()
    assert window.document.workbook.classes[cell.row()].alpha_low is None and _verdict(window) == MARGINAL


def test_a_range_that_does_not_hold_the_alpha_or_is_not_two_shares_is_refused_naming_the_field(window, qtbot):
    model, cell = _class_cell(window)
    before = window.document.workbook
    for text, words in (("50% (60–70%)", "Alpha range: must hold the acceptance itself (60% to 70% does not hold 50%)"),
                        ("50% (42%)", "Alpha range: must be two shares"),
                        ("50% (42–156%)", "Alpha high: must be blank or a share")):
        with qtbot.waitSignal(model.refused, timeout=2000) as said:
            assert not model.setData(cell, text)
        assert f"Task class '{CLASS}', {words}" in said.args[0]
    assert window.document.workbook is before  # nothing half-applied


def test_empty_brackets_remove_a_range_and_a_bare_alpha_keeps_a_typed_one_that_holds_it(window):
    model, cell = _class_cell(window)
    model.setData(cell, "50% (42–56%)")
    assert model.setData(cell, "51%")
    row = window.document.workbook.classes[cell.row()]
    assert (row.alpha, row.alpha_low, row.alpha_high) == (0.51, 0.42, 0.56)
    assert model.setData(cell, "51% ()")
    row = window.document.workbook.classes[cell.row()]
    assert row.alpha == 0.51 and row.alpha_low is None and row.alpha_high is None


def test_a_range_typed_in_the_overrides_grid_is_the_override_s_and_the_verdict_follows(window):
    wb = window.document.workbook
    grid = window.override_model
    i, j = [t.name for t in wb.tiers].index(TIER), [c.name for c in wb.classes].index(CLASS)
    cell = grid.index(i, j)
    assert grid.setData(cell, "50% (42–56%)")
    o = window.document.workbook.override_for(TIER, CLASS)
    assert (o.alpha, o.alpha_low, o.alpha_high, o.alpha_source) == (0.5, 0.42, 0.56, "assumed")
    assert grid.data(cell) == "50.0% (42.0–56.0%)" and grid.data(cell, Qt.ItemDataRole.EditRole) == "50% (42%–56%)"
    assert "the range typed" in grid.data(cell, Qt.ItemDataRole.ToolTipRole).lower()
    assert _verdict(window) == UNDECIDED
    assert grid.setData(cell, "50% ()")  # the range goes, the override stays
    o = window.document.workbook.override_for(TIER, CLASS)
    assert o is not None and o.alpha_low is None and _verdict(window) == MARGINAL
    window.document.undo_stack.undo()
    assert window.document.workbook.override_for(TIER, CLASS).alpha_high == 0.56 and _verdict(window) == UNDECIDED


def _measured(wb) -> None:
    # intervals measured at 95% on every class (as a probe leaves them)
    for c in wb.classes:
        c.alpha_low, c.alpha_high = c.alpha - 0.08, min(1.0, c.alpha + 0.06)
        c.alpha_confidence, c.alpha_requests, c.alpha_method = 0.95, 20, "cluster"


def test_the_confidence_is_edited_in_the_settings_dialog_and_the_value_verdict_follows(window, qtbot):
    window.document.apply("measured", _measured)
    window.document.flush()
    heads = [c[0] for c in SUMMARY_COLUMNS]
    summary = window.summary_model
    i = window.document.comparison.tier_names.index(TIER)
    cell = summary.index(i, heads.index("Value verdict"))
    assert summary.data(cell) == "undecided"  # the mix 1.34x-1.52x at 95% reaches the price ratio
    dialog = _open(window)
    assert dialog.confidence_edit.text() == "95%"
    _retype(qtbot, dialog.confidence_edit, "100%")
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()
    assert dialog.isVisible() and "Interval confidence" in dialog.error_label.text()  # refused, nothing applied
    _retype(qtbot, dialog.confidence_edit, "60%")
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()
    assert not dialog.isVisible()
    assert window.document.workbook.settings.confidence == 0.6
    window.document.flush()
    assert summary.data(cell) == "worth the premium"  # the mix at 60%: 1.40x-1.48x clears it
    window.document.undo_stack.undo()
    window.document.flush()
    assert window.document.workbook.settings.confidence == 0.95 and summary.data(cell) == "undecided"
