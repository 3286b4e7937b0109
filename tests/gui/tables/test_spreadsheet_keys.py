"""Spreadsheet keys as an Excel user presses them, sent as real key events to the view and its editor."""
from __future__ import annotations

import os

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QComboBox


def _current(view) -> tuple[int, int]:
    index = view.currentIndex()
    return index.row(), index.column()


def _wait_closed(qtbot, view) -> None:
    # the delegate commits on Enter through a queued call: let the event loop deliver it
    qtbot.waitUntil(lambda: view.state() != view.State.EditingState, timeout=2000)
    view.model().document.flush()


def _edit_and_press(qtbot, view, row, col, text, key, modifier=Qt.KeyboardModifier.NoModifier):
    view.setFocus()
    view.setCurrentIndex(view.model().index(row, col))
    qtbot.keyClick(view, Qt.Key.Key_F2)
    editor = QGuiApplication.focusObject()
    if text:
        editor.selectAll()
        qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, key, modifier)
    _wait_closed(qtbot, view)


def test_shift_enter_in_an_editor_commits_and_moves_up(qtbot, window):
    # before: Shift+Enter while editing committed and moved *down*, like a plain Enter
    view, model = window.tier_view, window.tier_model
    k = model.column_of("k")
    _edit_and_press(qtbot, view, 3, k, "3", Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert window.document.workbook.tiers[3].k == 3
    assert _current(view) == (2, k)
    _edit_and_press(qtbot, view, 3, k, "4", Qt.Key.Key_Return)  # and plain Enter still goes down
    assert window.document.workbook.tiers[3].k == 4 and _current(view) == (4, k)
    # the same in a choice cell's drop-down and in the override grid
    spec = model.column_of("speculative")
    _edit_and_press(qtbot, view, 3, spec, "", Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert _current(view) == (2, spec)
    grid = window.override_view
    _edit_and_press(qtbot, grid, 3, 1, "50%", Qt.Key.Key_Enter, Qt.KeyboardModifier.ShiftModifier)
    assert _current(grid) == (2, 1)
    wb = window.document.workbook
    assert wb.override_for(wb.tiers[3].name, wb.classes[1].name).alpha == 0.5


def test_drop_down_starts_at_the_cells_value(qtbot, window):
    # before: the combo showed 'roofline' but kept item 0 ('typed') current, so Up did nothing
    # and the open list highlighted 'typed'; Down from 'roofline' even picked 'roofline'
    view, model = window.tier_view, window.tier_model
    col = model.column_of("cost_model")
    assert window.document.workbook.tiers[1].cost_model == "roofline"
    view.setFocus()
    view.setCurrentIndex(model.index(1, col))
    qtbot.keyClick(view, Qt.Key.Key_F2)
    combo = QGuiApplication.focusObject()
    assert isinstance(combo, QComboBox)
    assert combo.currentText() == "roofline" and combo.itemText(combo.currentIndex()) == "roofline"
    qtbot.keyClick(combo, Qt.Key.Key_Up)
    assert combo.currentText() == "typed"
    qtbot.keyClick(combo, Qt.Key.Key_Escape)  # Escape keeps the old value
    _wait_closed(qtbot, view)
    assert window.document.workbook.tiers[1].cost_model == "roofline"
    assert window.document.undo_stack.count() == 0
    qtbot.keyClick(view, Qt.Key.Key_F2)
    combo = QGuiApplication.focusObject()
    qtbot.keyClick(combo, Qt.Key.Key_Up)
    qtbot.keyClick(combo, Qt.Key.Key_Return)
    _wait_closed(qtbot, view)
    assert window.document.workbook.tiers[1].cost_model == "typed"


def test_a_deleted_recent_file_is_named_and_dropped_from_the_list(qtbot, window, tmp_path, monkeypatch):
    # before: 'gone.json: no such file', and the dead entry stayed in Open Recent for good
    kept, gone = tmp_path / "kept.json", tmp_path / "gone.json"
    window.files.save_to(str(kept))
    window.files.save_to(str(gone))
    os.remove(gone)
    window.tier_model.setData(window.tier_model.index(1, window.tier_model.column_of("k")), "7")
    errors = []
    monkeypatch.setattr(window.files, "_error", lambda title, exc: errors.append(f"{title}: {exc}"))
    asked = []
    monkeypatch.setattr(window.files, "maybe_save", lambda: asked.append(1) or True)
    menu = window.files.recent_menu
    menu.aboutToShow.emit()
    next(a for a in menu.actions() if a.toolTip() == str(gone)).trigger()
    assert len(errors) == 1 and "no longer exists" in errors[0] and "removed from the recent files" in errors[0]
    assert not asked  # nothing would replace the open workbook: no save prompt first
    assert window.files.recent_files() == [str(kept)]
    assert window.document.workbook.tiers[1].k == 7  # the open workbook is untouched
    menu.aboutToShow.emit()
    assert [a.toolTip() for a in menu.actions()] == [str(kept)]
    next(a for a in menu.actions() if a.toolTip() == str(kept)).trigger()
    assert window.document.path == str(kept) and not errors[1:]


def _selected(view) -> set[tuple[int, int]]:
    return {(i.row(), i.column()) for i in view.selectionModel().selectedIndexes()}


def test_ctrl_z_of_a_paste_selects_the_pasted_block_again(qtbot, window):
    # before: undo only set the current cell, reading the keyboard: with Ctrl still held from
    # Ctrl+Z that toggled it, leaving the old selection plus stray cells and not the block
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    view, doc = window.class_view, window.document
    window.input_tabs.setCurrentWidget(view)
    alpha = window.class_model.column_of("alpha")
    QGuiApplication.clipboard().setText("50%\r\n60%\r\n")
    view.setFocus()
    view.setCurrentIndex(view.model().index(2, alpha))
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    doc.flush()
    assert [c.alpha for c in doc.workbook.classes[2:4]] == [0.5, 0.6]
    view.setCurrentIndex(view.model().index(0, 0))
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    doc.flush()
    assert [c.alpha for c in doc.workbook.classes[2:4]] == [0.78, 0.65]
    assert _current(view) == (2, alpha) and _selected(view) == {(2, alpha), (3, alpha)}
    view.setCurrentIndex(view.model().index(5, 0))
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    doc.flush()
    assert [c.alpha for c in doc.workbook.classes[2:4]] == [0.5, 0.6]
    assert _selected(view) == {(2, alpha), (3, alpha)}
    # Delete of a block: one undo step, and undo selects the block
    model = view.model()
    view.selectionModel().setCurrentIndex(model.index(0, 1), QItemSelectionModel.SelectionFlag.NoUpdate)
    view.selectionModel().select(QItemSelection(model.index(0, 1), model.index(1, 2)),
                                 QItemSelectionModel.SelectionFlag.ClearAndSelect)
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    doc.flush()
    assert doc.undo_stack.count() == 2
    view.setCurrentIndex(view.model().index(5, 5))
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    doc.flush()
    assert doc.workbook.classes[0].tokens_out == 120_000_000
    assert _current(view) == (0, 1) and _selected(view) == {(0, 1), (0, 2), (1, 1), (1, 2)}


def test_delete_says_which_cells_took_a_default(qtbot, window):
    # before: Delete on an acceptance silently made it 60% (the field's default), with no word
    view, doc = window.class_view, window.document
    window.input_tabs.setCurrentWidget(view)
    alpha = window.class_model.column_of("alpha")
    notes = window.class_model.column_of("source_note")
    view.setFocus()
    view.setCurrentIndex(view.model().index(0, alpha))
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    doc.flush()
    assert doc.workbook.classes[0].alpha == 0.6
    message = window.statusBar().currentMessage()
    assert message.startswith("Cleared 1 cell.") and "Acceptance alpha = 60%" in message
    view.setCurrentIndex(view.model().index(1, notes))
    qtbot.keyClick(view, Qt.Key.Key_Delete)  # a note can be blank: nothing to explain
    doc.flush()
    assert doc.workbook.classes[1].source_note == ""
    assert window.statusBar().currentMessage() == "Cleared 1 cell."


def test_delete_or_paste_on_a_computed_table_says_why_nothing_happened(qtbot, window):
    # before: Delete and Ctrl+V on the results or the summary did nothing and said nothing
    QGuiApplication.clipboard().setText("1.5\n")
    for view in (window.results_view, window.summary_view):
        window.statusBar().clearMessage()
        view.setFocus()
        view.setCurrentIndex(view.model().index(1, 1))
        qtbot.keyClick(view, Qt.Key.Key_Delete)
        assert window.statusBar().currentMessage() == "This table is computed; it cannot be cleared."
        qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
        assert window.statusBar().currentMessage() == "This table is computed; it cannot be pasted into."
    assert window.document.undo_stack.count() == 0


def test_a_typed_edit_and_its_undo_move_results_summary_and_chart(qtbot, window):
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=2000)
    view, doc = window.tier_view, window.document
    window.charts.tabs.setCurrentWidget(window.charts.alpha_chart)
    tier = doc.workbook.tiers[1].name  # Northwind Turbo, the tier the window opens on

    def shown():
        results = [window.results_model.data(window.results_model.index(1, c)) for c in range(6)]
        summary = [window.summary_model.data(window.summary_model.index(1, c)) for c in range(3)]
        return results, summary, window.charts.alpha_chart.curve_data(tier)[1].tolist()

    before = shown()
    k = window.tier_model.column_of("k")
    view.setFocus()
    view.setCurrentIndex(window.tier_model.index(1, k))
    qtbot.keyClick(view, Qt.Key.Key_8)  # typing over the cell starts the edit
    qtbot.keyClick(QGuiApplication.focusObject(), Qt.Key.Key_Tab)
    _wait_closed(qtbot, view)
    assert doc.workbook.tiers[1].k == 8 and _current(view) == (1, k + 1)
    after = shown()
    assert all(a != b for a, b in zip(after, before))
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    doc.flush()
    assert shown() == before and _current(view) == (1, k)


def test_backspace_opens_the_cell_emptied_as_in_excel(qtbot, window):
    # before: Backspace cleared at once, committing the field's default (alpha 60%) as an undo
    # step, so 'Backspace, type 0.7, Enter' left two steps and Escape could not take it back
    view, doc = window.class_view, window.document
    window.input_tabs.setCurrentWidget(view)
    alpha = window.class_model.column_of("alpha")
    view.setFocus()
    view.setCurrentIndex(view.model().index(0, alpha))
    qtbot.keyClick(view, Qt.Key.Key_Backspace)
    editor = QGuiApplication.focusObject()
    assert view.state() == view.State.EditingState and editor.text() == ""
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    _wait_closed(qtbot, view)
    assert doc.workbook.classes[0].alpha == 0.8 and doc.undo_stack.count() == 0
    qtbot.keyClick(view, Qt.Key.Key_Backspace)
    editor = QGuiApplication.focusObject()
    qtbot.keyClicks(editor, "0.7")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    _wait_closed(qtbot, view)
    assert doc.workbook.classes[0].alpha == 0.7 and doc.undo_stack.count() == 1
    assert _current(view) == (1, alpha)
    # a drop-down cell opens emptied too
    source = window.class_model.column_of("alpha_source")
    view.setCurrentIndex(view.model().index(0, source))
    qtbot.keyClick(view, Qt.Key.Key_Backspace)
    combo = QGuiApplication.focusObject()
    assert isinstance(combo, QComboBox) and combo.currentText() == ""
    qtbot.keyClick(combo, Qt.Key.Key_Escape)
    _wait_closed(qtbot, view)
