"""After undo the results grid refits its columns, long status messages stay readable in the log,
and View > Charts brings the pane back at its former width."""
from __future__ import annotations

from model.workbook import row_edits


def test_a_class_back_from_undo_gets_a_column_wide_enough_for_its_numbers(qtbot, window):
    window.metric_combo.setCurrentIndex(window.metric_combo.findData("optimal_k"))  # "K=4 (2.10x)": wide text
    doc, view = window.document, window.results_view
    doc.apply("delete", lambda wb: row_edits.delete_rows(wb, "classes", [0]))
    doc.flush()
    window.undo_action.trigger()
    doc.flush()
    qtbot.wait(10)
    for col in range(window.results_model.columnCount()):
        assert view.columnWidth(col) >= view.sizeHintForColumn(col), col


def test_the_first_delete_after_opening_refits_the_grid_too(qtbot, window):
    # the grid's widths stay by position: deleting "code" left "summarisation" in a column fitted to "extraction"
    window.metric_combo.setCurrentIndex(window.metric_combo.findData("optimal_k"))
    doc, view = window.document, window.results_view
    doc.apply("delete", lambda wb: row_edits.delete_rows(wb, "classes", [0]))
    doc.flush()
    header = view.horizontalHeader()
    for col in range(window.results_model.columnCount()):
        assert view.columnWidth(col) >= max(view.sizeHintForColumn(col), header.sectionSizeHint(col)), col


def test_a_long_status_message_is_whole_in_the_tooltip_and_the_message_log(window):
    long = "Imported prices.csv: " + "a very long summary of what was added and updated, " * 8 + "the end."
    window.show_message(long)
    assert long in window.statusBar().toolTip()
    assert window.message_log.text().endswith(long)
    view_menu = next(a for a in window.menuBar().actions() if a.text() == "&View").menu()
    action = next(a for a in view_menu.actions() if a.text() == "Message &log…")
    action.trigger()
    from PySide6.QtWidgets import QDialog, QPlainTextEdit
    dialog = next(d for d in window.findChildren(QDialog) if d.windowTitle() == "Message log")
    assert long in dialog.findChild(QPlainTextEdit).toPlainText()
    dialog.close()


def test_view_charts_restores_the_panes_former_width(qtbot, window):
    window.resize(1400, 900)
    qtbot.wait(10)
    window.splitter.setSizes([900, 480])
    before = window.splitter.sizes()[1]
    window.charts_action.trigger()  # hide
    assert not window.charts.isVisible()
    window.charts_action.trigger()  # show again
    qtbot.wait(10)
    assert abs(window.splitter.sizes()[1] - before) <= 2, (before, window.splitter.sizes())
