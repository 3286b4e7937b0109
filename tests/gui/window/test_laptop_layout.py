"""At 1366 x 768 the names and verdicts stay on screen, the charts give way, and no panel pushes the window off it."""
from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from gui.tables.summary_model import SUMMARY_COLUMNS


def _scroll_right(view) -> None:
    bar = view.horizontalScrollBar()
    bar.setValue(bar.maximum())


def test_tier_names_stay_visible_when_the_table_scrolls_right(qtbot, window):
    window.resize(1366, 768)
    qtbot.wait(50)
    view = window.tier_view
    frozen = window.frozen_columns[0].frozen
    assert view.horizontalScrollBar().maximum() > 0  # the table is wider than its pane at 1366
    _scroll_right(view)
    qtbot.wait(20)
    # the table's own name column has scrolled out of its viewport...
    assert view.visualRect(window.tier_model.index(0, 0)).right() < 0
    # ...while the frozen column still shows every name, at the left edge of the table
    assert frozen.isVisible()
    assert frozen.geometry().left() <= view.verticalHeader().width() + view.frameWidth()
    for row, tier in enumerate(window.document.workbook.tiers):
        rect = frozen.visualRect(window.tier_model.index(row, 0))
        if rect.bottom() > frozen.viewport().height():
            break
        assert frozen.viewport().rect().contains(rect.center())
        assert frozen.indexAt(rect.center()).data() == tier.name
    # and what sits under the frozen column on screen is a name, not another column's cell
    point = frozen.mapTo(view, QPoint(5, frozen.horizontalHeader().height() + 5))
    assert window.childAt(view.mapTo(window, point)) in (frozen.viewport(), frozen)


def test_the_frozen_names_follow_scrolling_down_and_hand_over_the_keyboard(qtbot, window):
    window.resize(1366, 768)
    view = window.class_view
    window.input_tabs.setCurrentWidget(view)
    frozen = window.frozen_columns[1].frozen
    qtbot.wait(20)
    view.verticalScrollBar().setValue(view.verticalScrollBar().maximum())
    assert frozen.verticalScrollBar().value() == view.verticalScrollBar().value()
    # the name cell takes the keyboard in the frozen column; the next cell goes back to the table,
    # scrolled so that it is not hidden under the frozen column
    _scroll_right(view)
    frozen.setFocus()
    view.setCurrentIndex(window.class_model.index(0, 0))
    qtbot.keyClick(frozen, Qt.Key.Key_Tab)
    assert view.currentIndex().column() == 1 and view.hasFocus()
    assert view.visualRect(view.currentIndex()).left() >= view.columnWidth(0)
    # back on a name, the keyboard goes to the frozen column, where its editor can be seen
    view.setCurrentIndex(window.class_model.index(0, 0))
    view.setFocus()
    assert frozen.hasFocus()


def test_verdict_columns_are_in_view_at_1366(qtbot, window):
    window.resize(1366, 768)
    qtbot.wait(50)
    view = window.summary_view
    heads = [c[0] for c in SUMMARY_COLUMNS]
    for name in ("Speed verdict", "Value verdict", "Claim holds"):
        rect = view.visualRect(window.summary_model.index(0, heads.index(name)))
        assert 0 <= rect.left() and rect.right() <= view.viewport().width(), name
    # "gain (unconfirmed)" fits its column
    col = heads.index("Speed verdict")
    text = "gain (unconfirmed)"
    assert view.columnWidth(col) >= view.fontMetrics().horizontalAdvance(text)


def test_the_chart_pane_collapses_and_comes_back(qtbot, window):
    left = window.splitter.widget(0)
    assert window.charts_action.isChecked() and window.charts.isVisible()
    narrow = left.width()
    window.charts_action.trigger()
    qtbot.wait(20)
    assert not window.charts.isVisible() and not window.charts_action.isChecked()
    assert left.width() > narrow  # the tables take the room
    window.charts_action.trigger()
    qtbot.wait(20)
    assert window.charts.isVisible() and window.splitter.sizes()[1] > 0 and window.charts_action.isChecked()
    # dragging the handle to the edge collapses it too, and the View menu says so
    window.splitter.moveSplitter(window.splitter.width(), 1)
    assert window.splitter.sizes()[1] == 0 and not window.charts_action.isChecked()


def test_the_measure_panel_never_pushes_the_window_past_the_screen(qtbot, window):
    avail = window.screen().availableGeometry()
    # a window that just fits its screen, as a maximised-by-hand laptop window does
    frame_w = window.frameGeometry().width() - window.width()
    frame_h = window.frameGeometry().height() - window.height()
    window.move(avail.topLeft())
    window.resize(avail.width() - frame_w, avail.height() - frame_h)
    qtbot.wait(20)
    window.show_sampling_panel()
    qtbot.wait(50)
    assert window._sampling_dock.isVisible()
    frame = window.frameGeometry()
    assert avail.contains(frame), (avail, frame)
    # the panel's Apply button is in sight below the dock's scrolled form, not beyond the screen's edge
    panel = window.sampling_panel
    assert panel.apply_button.visibleRegion().boundingRect().size() == panel.apply_button.size()
    centre = panel.apply_button.mapToGlobal(panel.apply_button.rect().center())
    assert avail.contains(centre), (avail, centre)


def test_the_measure_panel_progress_says_no_run_rather_than_zero_of_one(window):
    window.show_sampling_panel()
    bar = window.sampling_panel.progress_bar
    assert bar.text() == "no run yet"


def test_the_trailer_note_for_a_plain_tier_fits_the_chart(qtbot, window):
    # before: one long line centred in a plot squeezed by the last tier's axis labels, cut on both sides
    window.resize(1366, 768)
    chart = window.charts.trailer_chart
    window.charts.tabs.setCurrentWidget(chart)
    window.tier_view.setCurrentIndex(window.tier_model.index(0, 0))  # Northwind Standard, plain decoding
    qtbot.wait(50)
    note = chart._note
    assert note.isVisible() and "does not run speculative decoding" in note.toPlainText()

    def inside() -> bool:
        shown, view = note.textItem.sceneBoundingRect(), chart.plot.vb.sceneBoundingRect()
        return view.left() <= shown.left() and shown.right() <= view.right()

    qtbot.waitUntil(inside, timeout=3000)  # pyqtgraph places text items on its next layout pass
    # and the next speculative tier gets its axes back
    window.tier_view.setCurrentIndex(window.tier_model.index(1, 0))
    qtbot.wait(20)
    assert chart.plot.getAxis("left").isVisible() and chart.row_labels()


def test_a_new_workbook_has_columns_wide_enough_to_read(qtbot, window):
    # before: columns sized to an empty table cut the first values typed ("A…", "assu…")
    window.document.undo_stack.setClean()
    window.files.new()
    for view in (window.tier_view, window.class_view):
        window.input_tabs.setCurrentWidget(view)
        window.add_row()
    window.document.flush()
    for view, model in ((window.tier_view, window.tier_model), (window.class_view, window.class_model)):
        metrics = view.fontMetrics()
        for col, spec in enumerate(model.specs):
            samples = [model.data(model.index(0, col))]
            if spec.kind == "choice":
                samples += list(spec.choice_list())
            if spec.name in ("name", "vendor"):
                samples.append("Apex Inference")
            for text in samples:
                assert view.columnWidth(col) >= metrics.horizontalAdvance(text or ""), (spec.name, text)
    col = [c[0] for c in SUMMARY_COLUMNS].index("Speed verdict")
    view = window.summary_view
    assert view.columnWidth(col) >= view.fontMetrics().horizontalAdvance("gain (unconfirmed)")


def test_a_saved_panel_width_is_restored_but_never_past_the_screen(qtbot, window, settings):
    # the case: the panel opened at its saved width and pushed the window to 1452 px on a 1366 screen
    avail = window.screen().availableGeometry()
    window.move(avail.topLeft())
    window.resize(avail.width() - 40, avail.height() - 40)
    settings.setValue("window/sampling_dock_width", 5000)
    window.show_sampling_panel()
    qtbot.wait(50)
    assert avail.contains(window.frameGeometry()), (avail, window.frameGeometry())
    assert window._sampling_dock.width() < avail.width() - 200  # the tables keep room


def test_the_panel_width_is_kept_between_sessions(qtbot, window, settings):
    window.resize(780, 700)
    window.show_sampling_panel()
    qtbot.wait(20)
    window.resizeDocks([window._sampling_dock], [300], Qt.Orientation.Horizontal)
    qtbot.wait(20)
    width = window._sampling_dock.width()
    window.document.undo_stack.setClean()
    window.close()
    assert int(settings.value("window/sampling_dock_width")) == width


def test_every_chart_tab_shows_at_1366(qtbot, window):
    # the long tab labels needed scroll arrows at 1366 x 768, the fourth chart's tab out of sight
    window.resize(1366, 768)
    qtbot.wait(50)
    tabs = window.charts.tabs
    bar = tabs.tabBar()
    assert tabs.count() == 5
    cut = [tabs.tabText(i) for i in range(tabs.count()) if bar.tabRect(i).right() > bar.width()]
    assert not cut, f"tabs past the pane's edge: {cut}"
    # the short labels' full names
    assert all(tabs.tabToolTip(i).startswith(("Speedup vs", "Trailer fill", "Acceptance per")) for i in range(tabs.count()))


def _fitted_outputs_show_every_row(qtbot, window) -> None:
    """The pane fitted to its rows: the results grid and the Per tier table show all the demo's 8 rows whole."""
    qtbot.wait(50)
    assert window.fit_pane_heights()
    qtbot.wait(50)
    for view in (window.results_view, window.summary_view):
        rows = view.model().rowCount()
        assert rows == 8
        last = view.visualRect(view.model().index(rows - 1, 0))
        assert last.bottom() <= view.viewport().height(), (type(view.model()).__name__, last, view.viewport().height())


def test_at_1366x768_the_results_and_per_tier_tables_show_every_row_whole(qtbot, window):
    """The fixed 340 / 300 / 300 split showed 7 of the demo's 8 rows in the Per tier table, the last one cut in
    half, under a tiers table with a blank band below its rows."""
    window.resize(1366, 768)
    _fitted_outputs_show_every_row(qtbot, window)
    # the inputs keep the rest, all their rows too at this size
    tiers = window.tier_view
    assert tiers.visualRect(tiers.model().index(7, 0)).bottom() <= tiers.viewport().height()


def test_at_1350x720_the_inputs_scroll_so_the_results_and_per_tier_tables_show_every_row_whole(qtbot, window):
    """1366 x 768 without a window manager leaves the window 1350 x 720: the three parts need more than the pane
    has, and the split was left alone, cutting the 8th row of the results grid and the Per tier table in half.
    The outputs keep their rows; the Tiers table takes the rest (a few rows at least) and scrolls."""
    window.resize(1350, 720)
    _fitted_outputs_show_every_row(qtbot, window)
    tiers = window.tier_view
    shown = sum(tiers.visualRect(tiers.model().index(r, 0)).bottom() <= tiers.viewport().height() for r in range(8))
    assert shown >= 3, shown
    assert tiers.verticalScrollBar().maximum() > 0  # the rest is a scroll away


def _blank_below_rows(view) -> int:
    """The viewport's height under the last row."""
    rows = view.model().rowCount()
    return view.viewport().height() - view.visualRect(view.model().index(rows - 1, 0)).bottom()


def test_at_1600x1000_the_spare_height_is_shared_not_one_blank_band_under_the_tiers(qtbot, window):
    """At 1600 x 1000 every part fits its rows with room to spare, and the Tiers table took all of it: some 230 px
    blank under its 8 rows, the results grid and the Per tier table none (a tier added then scrolled them). The
    spare is shared: each table shows every row and has the same room under it, a row or more."""
    window.resize(1600, 1000)
    _fitted_outputs_show_every_row(qtbot, window)
    views = (window.tier_view, window.results_view, window.summary_view)
    blanks = [_blank_below_rows(view) for view in views]
    row = window.tier_view.verticalHeader().defaultSectionSize()
    assert all(blank >= row for blank in blanks), blanks
    assert max(blanks) - min(blanks) <= row, blanks  # no one band holds it all
    # at 1366 x 768 there is little to spare: every row whole still (the test above), nothing cut
    window.resize(1366, 768)
    _fitted_outputs_show_every_row(qtbot, window)
    assert all(_blank_below_rows(view) >= 0 for view in views)
