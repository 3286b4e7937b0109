"""Copy and paste of rectangular blocks in Excel's tab-separated format."""
from __future__ import annotations

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtGui import QGuiApplication

from gui.spreadsheet_view import parse_tsv, to_tsv


def _select(view, top, left, bottom, right):
    m = view.model()
    view.setCurrentIndex(m.index(top, left))
    view.selectionModel().select(QItemSelection(m.index(top, left), m.index(bottom, right)),
                                 QItemSelectionModel.SelectionFlag.ClearAndSelect)


def test_tsv_parsing_handles_excel_quirks():
    assert parse_tsv("a\tb\r\nc\td\r\n") == [["a", "b"], ["c", "d"]]
    assert parse_tsv('"two\nlines"\tx\n') == [["two\nlines", "x"]]
    assert parse_tsv(to_tsv([["a\tb", "c"]])) == [["a\tb", "c"]]


def test_copy_paste_round_trip_is_one_undo_step(qtbot, window):
    view, doc = window.class_view, window.document
    view.setFocus()
    col = window.class_model.column_of("tokens_out")
    _select(view, 0, col, 1, col + 3)  # tokens out, tokens in, context, alpha of code and json
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    text = QGuiApplication.clipboard().text()
    assert text.splitlines()[0].split("\t") == ["120000000", "400000000", "16384", "80%"]

    _select(view, 4, col, 4, col)  # paste onto prose and creative
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    doc.flush()
    wb = doc.workbook
    for src, dst in ((0, 4), (1, 5)):
        a, b = wb.classes[src], wb.classes[dst]
        assert (a.tokens_out, a.tokens_in, a.context, a.alpha) == (b.tokens_out, b.tokens_in, b.context, b.alpha)
    assert doc.undo_stack.count() == 1
    assert window.results_model.data(window.results_model.index(1, 4)) == window.results_model.data(window.results_model.index(1, 0))
    doc.undo_stack.undo()
    assert doc.workbook.classes[4].alpha == 0.5 and doc.workbook.classes[5].alpha == 0.4


def test_paste_from_excel_text_with_percent_and_share(qtbot, window):
    view, doc = window.class_view, window.document
    col = window.class_model.column_of("alpha")
    QGuiApplication.clipboard().setText("78%\r\n0.41\r\n")
    view.setFocus()
    _select(view, 0, col, 0, col)
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert [c.alpha for c in doc.workbook.classes[:2]] == [0.78, 0.41]


def test_bad_paste_is_refused_whole_naming_the_cell(qtbot, window):
    view, doc = window.class_view, window.document
    col = window.class_model.column_of("alpha")
    QGuiApplication.clipboard().setText("0.7\n0.6\n1.7\n")
    view.setFocus()
    _select(view, 0, col, 0, col)
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert [c.alpha for c in doc.workbook.classes[:3]] == [0.8, 0.85, 0.78]
    assert doc.undo_stack.count() == 0
    message = window.statusBar().currentMessage()
    assert "cell E3" in message and "extraction" in message and "1.7" in message


def test_paste_that_does_not_fit_is_refused(qtbot, window):
    view = window.class_view
    QGuiApplication.clipboard().setText("a\tb\nc\td\n")
    _select(view, 5, 6, 5, 6)
    assert not view.paste()
    assert "does not fit" in window.statusBar().currentMessage()


def test_one_value_fills_the_selection_and_delete_clears(qtbot, window):
    view, doc = window.tier_view, window.document
    col = window.tier_model.column_of("k")
    QGuiApplication.clipboard().setText("3")
    view.setFocus()
    _select(view, 0, col, 7, col)
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert {t.k for t in doc.workbook.tiers} == {3}
    notes = window.tier_model.column_of("notes")
    _select(view, 0, notes, 1, notes)
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert doc.workbook.tiers[1].notes == "" and doc.undo_stack.count() == 2
    _select(view, 1, col, 1, col)
    qtbot.keyClick(view, Qt.Key.Key_Delete)  # a number clears to its default
    assert doc.workbook.tiers[1].k == 4


def test_results_copy_but_refuse_paste(qtbot, window):
    view = window.results_view
    view.setFocus()
    _select(view, 1, 0, 1, 1)
    text = view.copy_selection()
    assert text.strip().split("\t")[0].endswith("x")
    assert not view.paste()
