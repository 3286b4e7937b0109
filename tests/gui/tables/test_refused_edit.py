"""A refused edit gives the typed text back in the cell's editor, not only a line in the status bar."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLineEdit


def _type(qtbot, view, row: int, col: int, text: str, key: Qt.Key = Qt.Key.Key_Return) -> QLineEdit:  # noqa: ANN001
    view.setFocus()
    view.setCurrentIndex(view.model().index(row, col))
    qtbot.keyClick(view, Qt.Key.Key_F2)
    editor = view.focusWidget()
    editor = editor.lineEdit() if isinstance(editor, QComboBox) else editor
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, key)
    return editor


def _given_back(view, old_editor, text: str) -> bool:  # noqa: ANN001
    """A new editor (the first one closed on commit) holds the refused text."""
    editor = view.indexWidget(view.currentIndex())
    line = editor.lineEdit() if isinstance(editor, QComboBox) else editor
    return line is not None and line is not old_editor and _open_editor_text(view) == text


def _open_editor_text(view) -> str | None:  # noqa: ANN001
    editor = view.indexWidget(view.currentIndex())
    line = editor.lineEdit() if isinstance(editor, QComboBox) else editor
    return line.text() if isinstance(line, QLineEdit) else None


def test_a_refused_number_stays_in_the_editor(qtbot, window) -> None:
    view = window.tier_view
    col = window.tier_model.column_of("k")
    old = _type(qtbot, view, 1, col, "1O")  # letter O for zero: a typo worth fixing, not retyping
    qtbot.waitUntil(lambda: _given_back(view, old, "1O"), timeout=2000)
    assert view.state() == view.State.EditingState
    assert (view.currentIndex().row(), view.currentIndex().column()) == (1, col)  # Enter did not move on
    assert window.document.workbook.tiers[1].k == 5 and window.document.undo_stack.count() == 0
    assert "K:" in window.statusBar().currentMessage()
    # fix the typo where it is, commit, and move on as usual
    editor = view.indexWidget(view.currentIndex())
    editor.backspace()
    qtbot.keyClicks(editor, "0")
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: view.state() != view.State.EditingState, timeout=2000)
    assert window.document.workbook.tiers[1].k == 10
    assert view.currentIndex().column() == col + 1


def test_a_refused_choice_stays_in_its_drop_down(qtbot, window) -> None:
    view = window.tier_view
    col = window.tier_model.column_of("cost_model")
    old = _type(qtbot, view, 3, col, "roofkine", Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: _given_back(view, old, "roofkine"), timeout=2000)
    assert view.currentIndex().column() == col
    assert window.document.workbook.tiers[3].cost_model == "typed"


def test_escape_drops_the_text_given_back(qtbot, window) -> None:
    view = window.class_view
    window.input_tabs.setCurrentWidget(view)
    col = window.class_model.column_of("alpha")
    old = _type(qtbot, view, 0, col, "180%")
    qtbot.waitUntil(lambda: _given_back(view, old, "180%"), timeout=2000)
    qtbot.keyClick(view.indexWidget(view.currentIndex()), Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: view.state() != view.State.EditingState, timeout=2000)
    assert window.document.workbook.classes[0].alpha == 0.8 and window.document.undo_stack.count() == 0


def test_an_override_typed_on_a_tier_without_a_draft_says_it_is_not_used(qtbot, window) -> None:
    view, model = window.override_view, window.override_model
    window.input_tabs.setCurrentWidget(view)
    assert window.document.workbook.tiers[0].speculative == "no"
    assert model.setData(model.index(0, 1), "90%")  # Northwind Standard on json: kept, as typed
    assert window.document.workbook.override_for("Northwind Standard", "json").alpha == 0.9
    message = window.statusBar().currentMessage()
    assert "'Northwind Standard' does not run speculative decoding" in message and "not used" in message
    assert "not used" in model.data(model.index(0, 1), Qt.ItemDataRole.ToolTipRole)
    window.statusBar().clearMessage()
    assert model.setData(model.index(1, 1), "90%")  # Northwind Turbo runs a draft: nothing to say
    assert "does not run" not in window.statusBar().currentMessage()
