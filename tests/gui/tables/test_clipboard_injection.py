"""The clipboard applies the OWASP rule to text: formulas neutralised, numbers kept, our own paste restores."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

PAYLOADS = ["=1+1", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", '=HYPERLINK("http://x","y")']


@pytest.mark.parametrize("payload", PAYLOADS)
def test_copied_text_cell_is_neutralised_and_pastes_back_unchanged(qtbot, window, payload):
    view, doc, model = window.tier_view, window.document, window.tier_model
    col = model.column_of("vendor")
    assert model.setData(model.index(0, col), payload)
    doc.flush()
    steps = doc.undo_stack.count()
    view.setFocus()
    view.select_block(0, col, 0, col)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    text = QGuiApplication.clipboard().text()
    assert text.lstrip('"').startswith("'") and payload.split("(")[0] in text
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    doc.flush()
    assert doc.workbook.tiers[0].vendor == payload and doc.undo_stack.count() == steps


def test_numbers_stay_numbers_on_the_clipboard(qtbot, window):
    view, model = window.tier_view, window.tier_model
    view.setFocus()
    view.select_block(0, 0, model.rowCount() - 1, model.columnCount() - 1)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    cells = [c for line in QGuiApplication.clipboard().text().splitlines() for c in line.split("\t")]
    numeric = [c for c in cells if c[:1].isdigit()]
    assert numeric and not any(c.startswith("'") for c in cells)  # the demo has no formula-like text


def test_negative_number_in_results_is_copied_as_a_number(qtbot, window):
    from gui.tables.spreadsheet_view import _unneutralised
    from model.common.formatting import spreadsheet_safe_text

    assert spreadsheet_safe_text("-12%") == "-12%" and spreadsheet_safe_text("-0.25") == "-0.25"
    assert _unneutralised("'=1+1") == "=1+1" and _unneutralised("'plain") == "'plain"
