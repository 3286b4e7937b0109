"""A key typed on a name in the frozen column opens one editor, the one the user sees (the key that
opened the frozen column's editor travelled on to the table under it, which opened a second, hidden editor of the
same cell; the first committed its one letter on losing focus and the keys after it went to either: 'NT Renamed'
became 'Nenamed' typed through X at 20 ms a key, tests/x11/test_typing_x.py)."""
from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QApplication, QLineEdit

EDITING = QAbstractItemView.State.EditingState


def test_a_key_on_a_frozen_name_opens_one_editor_and_commits_once(qtbot, window):
    view, frozen = window.tier_view, window.frozen_columns[0].frozen
    steps = window.document.undo_stack.count()
    window.activateWindow()
    view.setFocus()
    view.setCurrentIndex(window.tier_model.index(2, 0))
    assert frozen.hasFocus()
    qtbot.keyClick(frozen, "N")
    assert frozen.state() == EDITING
    assert view.state() != EDITING, "the table under the frozen column opened a second editor"
    editor = QApplication.focusWidget()
    assert isinstance(editor, QLineEdit) and frozen.isAncestorOf(editor) and editor.text() == "N"
    for key in "T Renamed":
        qtbot.keyClick(QApplication.focusWidget(), key)
    qtbot.keyClick(QApplication.focusWidget(), "\r")
    qtbot.waitUntil(lambda: frozen.state() != EDITING, timeout=5_000)
    window.document.flush()
    assert window.document.workbook.tiers[2].name == "NT Renamed"
    assert window.document.undo_stack.count() == steps + 1  # one rename, not "N" first
