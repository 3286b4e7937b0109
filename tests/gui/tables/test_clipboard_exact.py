"""Copy then paste onto the same cell changes nothing; the undo history is capped."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from gui.document import UNDO_LIMIT
from gui.tables.cell_format import float_edit_text, percent_edit_text


def _set_alpha(window, row: int, text: str) -> None:
    model = window.class_model
    assert model.setData(model.index(row, model.column_of("alpha")), text)
    window.document.flush()


def test_copy_paste_onto_the_same_cell_keeps_full_precision_and_no_undo_step(qtbot, window):
    view, doc = window.class_view, window.document
    _set_alpha(window, 0, "0.8723404255319149")
    steps = doc.undo_stack.count()
    col = window.class_model.column_of("alpha")
    view.setFocus()
    view.select_block(0, col, 0, col)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert "8723404255319149" in QGuiApplication.clipboard().text()  # every digit, not 0.8723404255
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    doc.flush()
    assert doc.workbook.classes[0].alpha == 0.8723404255319149
    assert doc.undo_stack.count() == steps  # the same value again is not a change


def test_a_whole_block_pasted_back_is_not_a_change(qtbot, window):
    view, doc = window.tier_view, window.document
    model = window.tier_model
    view.setFocus()
    view.select_block(0, 0, model.rowCount() - 1, model.columnCount() - 1)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    before = doc.workbook
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    doc.flush()
    assert doc.workbook == before and doc.undo_stack.count() == 0 and not doc.dirty


@given(st.floats(min_value=0.0, max_value=1.0))
def test_percent_edit_text_reads_back_exactly(value):
    text = percent_edit_text(value)
    back = float(text[:-1]) / 100.0 if text.endswith("%") else float(text)
    assert back == value


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_edit_text_reads_back_exactly(value):
    assert float(float_edit_text(value)) == value


def test_undo_history_is_capped(window):
    doc = window.document
    assert doc.undo_stack.undoLimit() == UNDO_LIMIT
    for i in range(UNDO_LIMIT + 20):
        _set_alpha(window, 0, f"{0.1 + i * 1e-4:.6f}")
    assert doc.undo_stack.count() == UNDO_LIMIT
    while doc.undo_stack.canUndo():
        doc.undo_stack.undo()
    doc.flush()
    # the oldest 20 steps are gone: undo all stops at the 20th edit's value, not the demo's
    assert doc.workbook.classes[0].alpha == pytest.approx(0.1 + 19 * 1e-4)
