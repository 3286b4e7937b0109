"""Typing into cells with real key events: results and charts follow, refusals keep the old value."""
from __future__ import annotations

from PySide6.QtCore import Qt

from model.workbook.json_file import load_demo


def _cell(view, row, col):
    return view.model().index(row, col)


def _type_into(qtbot, view, row, col, text):
    view.setFocus()
    view.setCurrentIndex(_cell(view, row, col))
    qtbot.keyClick(view, Qt.Key.Key_F2)
    editor = view.focusWidget()
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    # Qt's delegate commits on Enter through a queued call: let the event loop deliver it.
    # A refused value comes back in a new editor (test_refused_edit.py): Escape leaves it
    qtbot.waitUntil(lambda: view.state() != view.State.EditingState
                    or view.indexWidget(view.currentIndex()) not in (None, editor), timeout=2000)
    if view.state() == view.State.EditingState:
        qtbot.keyClick(view.indexWidget(view.currentIndex()), Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: view.state() != view.State.EditingState, timeout=2000)
    window_doc_flush(view)


def window_doc_flush(view):
    view.model().document.flush()


def test_typing_alpha_updates_results_and_charts(qtbot, window):
    doc = window.document
    code = window.class_model.column_of("alpha")
    window.input_tabs.setCurrentWidget(window.class_view)
    window.tier_view.setCurrentIndex(_cell(window.tier_view, 1, 0))  # Northwind Turbo
    qtbot.wait(1)
    before_speedup = window.results_model.data(_cell(window.results_view, 1, 0))
    before_fill = window.charts.trailer_chart.fill_data()["code"][0]
    before_points = window.charts.alpha_chart.class_points()["code"]

    with qtbot.waitSignal(doc.changed, timeout=2000):
        _type_into(qtbot, window.class_view, 0, code, "95%")

    assert doc.workbook.classes[0].alpha == 0.95
    after_speedup = window.results_model.data(_cell(window.results_view, 1, 0))
    assert after_speedup != before_speedup and after_speedup.endswith("x")
    assert window.charts.trailer_chart.fill_data()["code"][0] > before_fill
    assert window.charts.alpha_chart.class_points()["code"][0] == 0.95 != before_points[0]
    # Enter moved the current cell down, as in a spreadsheet
    assert window.class_view.currentIndex().row() == 1
    assert window.isWindowModified()


def test_percent_cell_accepts_a_plain_share(qtbot, window):
    col = window.class_model.column_of("alpha")
    window.input_tabs.setCurrentWidget(window.class_view)
    _type_into(qtbot, window.class_view, 1, col, "0.5")
    assert window.document.workbook.classes[1].alpha == 0.5


def test_refused_value_keeps_old_and_says_why(qtbot, window):
    col = window.tier_model.column_of("k")
    old = window.document.workbook.tiers[1].k
    _type_into(qtbot, window.tier_view, 1, col, "lots")
    qtbot.wait(1)
    assert window.document.workbook.tiers[1].k == old
    message = window.statusBar().currentMessage()
    assert "K" in message and "whole number" in message and "lots" in message
    assert window.document.undo_stack.count() == 0


def test_an_accepted_edit_clears_the_last_refusal(qtbot, window):
    # before: "Refused, value kept: ... (got 'lots')" stayed 15 s after the next, accepted value
    col = window.tier_model.column_of("k")
    _type_into(qtbot, window.tier_view, 1, col, "lots")
    qtbot.wait(1)
    assert window.statusBar().currentMessage().startswith("Refused")
    _type_into(qtbot, window.tier_view, 1, col, "3")
    qtbot.wait(1)
    assert window.document.workbook.tiers[1].k == 3
    assert "Refused" not in window.statusBar().currentMessage()


def test_rename_tier_carries_baselines_and_overrides(qtbot, window):
    wb = window.document.workbook
    assert wb.tiers[1].baseline == "Northwind Standard"
    _type_into(qtbot, window.tier_view, 0, 0, "NW Std")
    wb = window.document.workbook
    assert wb.tiers[0].name == "NW Std" and wb.tiers[1].baseline == "NW Std"


def test_duplicate_name_is_refused(qtbot, window):
    _type_into(qtbot, window.tier_view, 0, 0, "helix fast")
    assert window.document.workbook.tiers[0].name == "Northwind Standard"
    assert "already the name of row 4" in window.statusBar().currentMessage()


def test_undo_redo_of_edit_and_rows(qtbot, window):
    doc = window.document
    col = window.tier_model.column_of("k")
    _type_into(qtbot, window.tier_view, 1, col, "7")
    assert doc.workbook.tiers[1].k == 7
    window.tier_view.setCurrentIndex(_cell(window.tier_view, 1, 0))
    window.duplicate_rows()
    assert len(doc.workbook.tiers) == 9 and doc.workbook.tiers[2].name == "Northwind Turbo (copy)"
    window.tier_view.setCurrentIndex(_cell(window.tier_view, 0, 0))
    asked: list[str] = []
    window.rows.confirm = lambda title, text: asked.append(text) or True
    window.delete_rows()
    # Northwind Standard is a baseline: the delete asked first, naming the tier that loses it
    assert len(asked) == 1 and "Northwind Turbo" in asked[0]
    assert "Northwind Standard" not in [t.name for t in doc.workbook.tiers]
    assert all(t.baseline != "Northwind Standard" for t in doc.workbook.tiers)
    window.activateWindow()
    window.tier_view.setFocus()
    for _ in range(3):
        window.undo_action.trigger()
    qtbot.wait(1)
    assert doc.workbook.tiers[1].k == load_demo().tiers[1].k and len(doc.workbook.tiers) == 8
    assert window.results_model.rowCount() == 8
    assert not window.isWindowModified()
    window.redo_action.trigger()
    assert doc.workbook.tiers[1].k == 7
    assert window.redo_action.shortcuts()[0].toString() == "Ctrl+Y"
    assert "Ctrl+Shift+Z" in [s.toString() for s in window.redo_action.shortcuts()]


def test_override_grid_blank_means_class_alpha(qtbot, window):
    view = window.override_view
    window.input_tabs.setCurrentWidget(view)
    _type_into(qtbot, view, 1, 4, "66%")  # Northwind Turbo on prose
    wb = window.document.workbook
    assert wb.override_for("Northwind Turbo", "prose").alpha == 0.66
    qtbot.wait(1)
    assert window.document.comparison.cells.alpha[1, 4] == 0.66
    view.setCurrentIndex(_cell(view, 1, 4))
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert window.document.workbook.override_for("Northwind Turbo", "prose") is None


def test_add_row_gets_a_unique_name(qtbot, window):
    window.input_tabs.setCurrentWidget(window.class_view)
    window.class_view.setCurrentIndex(_cell(window.class_view, 5, 0))
    window.add_row()
    window.add_row()
    names = [c.name for c in window.document.workbook.classes]
    assert names[6:] == ["New class 2", "New class"] or set(names[6:]) == {"New class", "New class 2"}
    assert window.results_model.columnCount() == 8


def test_choice_cell_edits_with_a_drop_down(qtbot, window):
    from PySide6.QtWidgets import QComboBox
    view = window.tier_view
    col = window.tier_model.column_of("cost_model")
    view.setFocus()
    view.setCurrentIndex(_cell(view, 3, col))  # Helix Fast: typed
    qtbot.keyClick(view, Qt.Key.Key_F2)
    combo = view.findChild(QComboBox)
    assert combo is not None and combo.count() == 2
    combo.lineEdit().selectAll()
    qtbot.keyClicks(combo.lineEdit(), "ROOFLINE")
    qtbot.keyClick(combo.lineEdit(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.state() != view.State.EditingState, timeout=2000)
    assert window.document.workbook.tiers[3].cost_model == "roofline"


def test_document_refuses_a_change_that_breaks_the_workbook(window):
    import pytest

    from model.workbook.validation import ValidationError

    def clash(wb):
        wb.classes[1].name = wb.classes[0].name

    with pytest.raises(ValidationError, match="already used"):
        window.document.apply("Rename", clash)
    assert window.document.undo_stack.count() == 0


def test_tab_commits_and_moves_right(qtbot, window):
    view = window.tier_view
    col = window.tier_model.column_of("k")
    view.setFocus()
    view.setCurrentIndex(_cell(view, 1, col))
    qtbot.keyClick(view, Qt.Key.Key_F2)
    editor = view.focusWidget()
    editor.selectAll()
    qtbot.keyClicks(editor, "6")
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: view.state() != view.State.EditingState, timeout=2000)
    assert window.document.workbook.tiers[1].k == 6
    assert (view.currentIndex().row(), view.currentIndex().column()) == (1, col + 1)


def test_ctrl_z_and_ctrl_y_keys(qtbot, window):
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    view = window.tier_view
    view.setFocus()
    model = window.tier_model
    assert model.setData(model.index(1, model.column_of("k")), "9")
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.document.workbook.tiers[1].k == 5
    qtbot.keyClick(view, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert window.document.workbook.tiers[1].k == 9
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.document.workbook.tiers[1].k == 9


def test_cursor_stays_after_rows_go(qtbot, window):
    view = window.tier_view
    view.setCurrentIndex(_cell(view, 7, 2))
    window.delete_rows()
    window.document.flush()
    assert (view.currentIndex().row(), view.currentIndex().column()) == (6, 2)
    assert window.charts.trailer_chart.fill_data() == {} or window._tier_row == 6


def test_undo_shows_the_cell_it_changed(qtbot, window):
    col = window.class_model.column_of("alpha")
    window.input_tabs.setCurrentWidget(window.class_view)
    _type_into(qtbot, window.class_view, 2, col, "50%")
    assert window.class_view.currentIndex().row() == 3  # Enter moved on, and the edit left it there
    window.input_tabs.setCurrentWidget(window.tier_view)
    window.undo_action.trigger()
    window.document.flush()
    assert window.input_tabs.currentWidget() is window.class_view
    assert (window.class_view.currentIndex().row(), window.class_view.currentIndex().column()) == (2, col)


def test_f2_enter_on_an_override_cell_commits_without_error(qtbot, window):
    """F2 then Enter re-commits the cell's own text; on the overrides grid it raised AttributeError ('rows')."""
    view = window.override_view
    window.input_tabs.setCurrentWidget(view)
    before = window.document.undo_stack.count()
    for row, col in ((0, 0), (1, 1)):
        _type_into(qtbot, view, row, col, "")  # blank: the class's own alpha, unchanged
    wb = window.document.workbook
    assert window.document.undo_stack.count() == before
    _type_into(qtbot, view, 1, 0, "71%")
    assert window.document.workbook.override_for(wb.tiers[1].name, wb.classes[0].name).alpha == 0.71
    view.setFocus()
    view.setCurrentIndex(_cell(view, 1, 0))
    qtbot.keyClick(view, Qt.Key.Key_F2)
    qtbot.keyClick(view.focusWidget(), Qt.Key.Key_Return)  # the same text again: no error, no new step
    qtbot.waitUntil(lambda: view.state() != view.State.EditingState, timeout=2000)
    assert window.document.undo_stack.count() == before + 1
