"""Spreadsheet keys as an Excel user presses them, sent as real key events to the view and its editor."""
from __future__ import annotations

import os

from PySide6.QtCore import Qt
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
