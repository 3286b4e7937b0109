"""Row commands never take or overwrite a row the user did not point at."""
from __future__ import annotations

import copy

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from model.workbook.json_file import load_demo

# a tier row as a spreadsheet puts it on the clipboard: tab-separated, CRLF at the end
SHEET_ROW = "Zeta Fast\tZeta\tyes\t5\ttyped\t0.08\t1.1\r\n"
RAPID = 7  # "Orbital Rapid", the last tier of the demo


def _click_row(qtbot, view, row: int, col: int = 0) -> None:  # noqa: ANN001
    rect = view.visualRect(view.model().index(row, col))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert view.currentIndex().row() == row


def _add_row_by_key(qtbot, window) -> None:  # noqa: ANN001
    # the key a spreadsheet user presses; Ctrl is held while the new row is selected, which is
    # what toggled it into the old selection before
    qtbot.keyClick(window.tier_view, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    window.document.flush()


@pytest.fixture
def no_questions(window):  # noqa: ANN001
    asked: list[tuple[str, str]] = []

    def refuse(title: str, text: str) -> bool:
        asked.append((title, text))
        return False

    window.rows.confirm = refuse
    return asked


def test_ctrl_plus_adds_one_row_under_the_current_one(qtbot, window) -> None:
    window.activateWindow()
    window.tier_view.setFocus()
    _click_row(qtbot, window.tier_view, RAPID)
    _add_row_by_key(qtbot, window)
    tiers = window.document.workbook.tiers
    assert len(tiers) == 9 and tiers[RAPID + 1].name == "New tier"
    edit = next(a for a in window.menuBar().actions() if a.text() == "&Edit").menu()
    add = next(a for a in edit.actions() if a.text() == "&Add row")
    assert [s.toString() for s in add.shortcuts()] == ["Ctrl++"]


def test_add_row_then_paste_fills_the_new_row_only(qtbot, window, no_questions) -> None:
    view, doc = window.tier_view, window.document
    window.activateWindow()
    view.setFocus()
    _click_row(qtbot, view, RAPID)
    rapid_before = copy.deepcopy(doc.workbook.tiers[RAPID])
    _add_row_by_key(qtbot, window)
    # only the new row is selected and current
    assert {(i.row(), i.column()) for i in view.selectionModel().selectedIndexes()} == {(RAPID + 1, 0)}
    assert view.currentIndex().row() == RAPID + 1
    QGuiApplication.clipboard().setText(SHEET_ROW)
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    doc.flush()
    tiers = doc.workbook.tiers
    assert tiers[RAPID] == rapid_before
    new = tiers[RAPID + 1]
    assert (new.name, new.vendor, new.k, new.cost_model, new.c, new.v) == ("Zeta Fast", "Zeta", 5, "typed", 0.08, 1.1)
    assert len(tiers) == 9
    assert window.statusBar().currentMessage().startswith("Pasted 7 cells")
    assert no_questions == []


def test_a_paste_goes_to_the_cursor_not_to_a_selection_left_behind(qtbot, window) -> None:
    view, doc = window.tier_view, window.document
    view.select_block(2, 0, 2, 0)
    # the cursor moves on without selecting (as after a model reset or a NoUpdate move)
    view.selectionModel().setCurrentIndex(view.model().index(5, 0), view.selectionModel().SelectionFlag.NoUpdate)
    QGuiApplication.clipboard().setText("Renamed\tSomeone\r\n")
    helix = copy.deepcopy(doc.workbook.tiers[2])
    assert view.paste()
    assert doc.workbook.tiers[2] == helix
    assert (doc.workbook.tiers[5].name, doc.workbook.tiers[5].vendor) == ("Renamed", "Someone")


def test_add_row_then_delete_rows_removes_the_new_row_only(qtbot, window, no_questions) -> None:
    view, doc = window.tier_view, window.document
    window.activateWindow()
    view.setFocus()
    _click_row(qtbot, view, RAPID)
    _add_row_by_key(qtbot, window)
    qtbot.keyClick(view, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    doc.flush()
    assert [t.name for t in doc.workbook.tiers] == [t.name for t in load_demo().tiers]
    assert no_questions == []  # one row: no question
    assert "'New tier'" in window.statusBar().currentMessage()


def test_a_block_delete_asks_first_and_names_the_rows(qtbot, window, no_questions) -> None:
    view, doc = window.tier_view, window.document
    view.select_block(RAPID - 1, 0, RAPID, 2)
    window.delete_rows()
    assert len(no_questions) == 1
    title, text = no_questions[0]
    assert "2 tiers" in title and "'Orbital Standard'" in text and "'Orbital Rapid'" in text
    assert len(doc.workbook.tiers) == 8 and doc.undo_stack.count() == 0  # refused: nothing went

    window.rows.confirm = lambda title, text: True
    view.select_block(RAPID - 1, 0, RAPID, 2)
    window.delete_rows()
    doc.flush()
    assert [t.name for t in doc.workbook.tiers] == [t.name for t in load_demo().tiers][:RAPID - 1]
    message = window.statusBar().currentMessage()
    assert "Deleted 2 tiers" in message and "'Orbital Standard'" in message and "'Orbital Rapid'" in message
    assert doc.undo_stack.count() == 1
    doc.undo_stack.undo()
    assert doc.workbook.tiers == load_demo().tiers


def test_new_classes_take_only_what_was_typed(qtbot, window) -> None:
    """Add row and a paste past the last class used to fill a class from the row above (alpha marked assumed)."""
    view, doc = window.class_view, window.document
    window.input_tabs.setCurrentWidget(view)
    view.select_block(0, 0, 0, 0)  # code
    window.add_row()
    doc.flush()
    new = doc.workbook.classes[1]
    assert new.name == "New class"
    assert new.defaulted_fields() == ["alpha", "context", "tokens_out", "tokens_in"]
    assert "acceptance, context and tokens not given" in window.statusBar().currentMessage()
    # a paste running past the end: the pasted names, nothing else
    view.select_block(len(doc.workbook.classes) - 1, 0, len(doc.workbook.classes) - 1, 0)
    QGuiApplication.clipboard().setText("legal\r\nmedical\r\n")
    assert view.paste()
    doc.flush()
    added = doc.workbook.classes[-1]
    assert added.name == "medical" and added.defaulted_fields() == ["alpha", "context", "tokens_out", "tokens_in"]
    assert doc.workbook.classes[-2].name == "legal"


def test_deleting_one_baseline_tier_asks_first_naming_the_tiers_that_lose_it(qtbot, window, no_questions) -> None:
    """A single-row delete of a tier others use as their baseline went ahead without a word."""
    view, doc = window.tier_view, window.document
    window.input_tabs.setCurrentWidget(view)
    standard = doc.workbook.tier_index("Northwind Standard")
    view.select_block(standard, 0, standard, 0)
    assert window.rows.delete_rows() == 0 and doc.workbook.tier_index("Northwind Standard") is not None
    (title, text), = no_questions
    assert title == "Delete 1 tier?" and "'Northwind Turbo' loses its baseline" in text
    # a tier nobody prices against goes without a question, as before
    turbo = doc.workbook.tier_index("Northwind Turbo")
    view.select_block(turbo, 0, turbo, 0)
    assert window.rows.delete_rows() == 1 and len(no_questions) == 1


def test_deleting_task_classes_says_task_classes(qtbot, window, no_questions) -> None:
    view = window.class_view
    window.input_tabs.setCurrentWidget(view)
    view.select_block(0, 0, 1, 0)
    assert window.rows.delete_rows() == 0
    (title, text), = no_questions
    assert title == "Delete 2 task classes?" and "these 2 task classes: 'code', 'json'" in text
    assert "baseline" not in text and "tier" not in text.split("on every tier")[0]
