"""Copy and paste of rectangular blocks in Excel's tab-separated format."""
from __future__ import annotations

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtGui import QGuiApplication

from gui.tables.spreadsheet_view import parse_tsv, to_tsv


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
    last = view.model().columnCount() - 1  # two columns pasted at the last one
    _select(view, 5, last, 5, last)
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
    # the number behind "1.85x", so a spreadsheet can compute with it (test_result_copy.py)
    assert float(text.strip().split("\t")[0]) == window.document.comparison.cells.speedup[1, 0]
    assert not view.paste()


def _paste(qtbot, view, text, row, col):
    QGuiApplication.clipboard().setText(text)
    view.setFocus()
    _select(view, row, col, row, col)
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)


def test_paste_past_the_bottom_adds_named_rows_in_one_undo_step(qtbot, window):
    view, doc = window.class_view, window.document
    n = len(doc.workbook.classes)
    col = window.class_model.column_of("tokens_out")
    _paste(qtbot, view, "1000\t2000\n3000\t4000\n5000\t6000\n", n - 1, col)  # last row and two more
    wb = doc.workbook
    assert len(wb.classes) == n + 2 and window.class_model.rowCount() == n + 2
    assert [c.name for c in wb.classes[n:]] == ["New class", "New class 2"]
    assert [(c.tokens_out, c.tokens_in) for c in wb.classes[n - 1:]] == [(1000, 2000), (3000, 4000), (5000, 6000)]
    assert doc.undo_stack.count() == 1
    assert "adding 2 rows" in doc.undo_stack.undoText()
    # the pasted block is selected, new rows included, and the results grew a column per class
    assert view.selectionModel().isSelected(window.class_model.index(n + 1, col + 1))
    doc.flush()
    assert window.results_model.columnCount() == n + 2
    doc.undo_stack.undo()
    doc.flush()
    assert len(doc.workbook.classes) == n and window.class_model.rowCount() == n
    doc.undo_stack.redo()
    assert len(doc.workbook.classes) == n + 2


def test_pasted_names_name_the_new_rows(qtbot, window):
    view, doc = window.tier_view, window.document
    n = len(doc.workbook.tiers)
    k = window.tier_model.column_of("k")
    assert k == 3  # name, vendor, speculative, K: the block below spans them
    old_last = doc.workbook.tiers[-1].name
    # names that default names would take: the new rows get exactly the pasted ones
    _paste(qtbot, view, "Renamed\tAcme\tyes\t5\nNew tier 2\tAcme\tyes\t6\nNew tier\tAcme\tno\t2\n", n - 1, 0)
    tiers = doc.workbook.tiers
    assert [(t.name, t.vendor, t.speculative, t.k) for t in tiers[n - 1:]] == [
        ("Renamed", "Acme", "yes", 5), ("New tier 2", "Acme", "yes", 6), ("New tier", "Acme", "no", 2)]
    assert old_last not in [t.name for t in tiers]
    assert doc.undo_stack.count() == 1


def test_paste_past_the_bottom_is_refused_whole_on_a_bad_value(qtbot, window):
    view, doc = window.class_view, window.document
    n = len(doc.workbook.classes)
    alpha = window.class_model.column_of("alpha")
    _paste(qtbot, view, "0.5\n0.6\n1.7\n", n - 1, alpha)
    assert len(doc.workbook.classes) == n and doc.undo_stack.count() == 0
    message = window.statusBar().currentMessage()
    assert "refused" in message and f"cell E{n + 2}" in message and "1.7" in message
    # a pasted name that is already taken is refused too, naming the name cell
    _paste(qtbot, view, "x\ncode\n", n - 1, 0)
    assert len(doc.workbook.classes) == n and doc.undo_stack.count() == 0
    assert f"cell A{n + 1}" in window.statusBar().currentMessage()


def test_the_override_grid_does_not_grow(qtbot, window):
    view, doc = window.override_view, window.document
    n = len(doc.workbook.tiers)
    QGuiApplication.clipboard().setText("0.5\n0.6\n")
    _select(view, n - 1, 0, n - 1, 0)
    assert not view.paste()
    assert "does not fit" in window.statusBar().currentMessage()
    assert len(doc.workbook.tiers) == n


def test_a_copied_blank_cell_pastes_as_a_blank(qtbot, window):
    # before: a blank cell on the clipboard ('""' from our copy, a bare newline from Excel)
    # was read as no block at all: 'Nothing to paste.', and the target kept its value
    view, doc = window.tier_view, window.document
    col = window.tier_model.column_of("baseline")
    assert doc.workbook.tiers[0].baseline == "" and doc.workbook.tiers[1].baseline == "Northwind Standard"
    view.setFocus()
    _select(view, 0, col, 0, col)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    _select(view, 1, col, 1, col)
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    doc.flush()
    assert doc.workbook.tiers[1].baseline == ""
    doc.undo_stack.undo()
    QGuiApplication.clipboard().setText("\r\n")  # one empty cell copied in Excel
    _select(view, 1, col, 1, col)
    qtbot.keyClick(view, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    doc.flush()
    assert doc.workbook.tiers[1].baseline == ""
    assert parse_tsv("\r\n\r\n") == [[""], [""]]  # two empty cells in a column
    assert parse_tsv("0.7\n0.6\n\n") == [["0.7"], ["0.6"]]  # a text editor's extra line is not a row
