"""At 1366 x 768 without a window manager (the window 1350 x 720) the results grid and the Per tier table keep all
8 demo rows whole after a measurement lands and when the charts come back.

Seen under Xvfb: a probe applied to one tier widens its cells to '2.87x (2.65–3.04)', the grid gains a horizontal
scroll bar, and with the charts back beside it the legend wraps to a second line; the split was fitted at start-up
only, so the grid showed 7 rows and Orbital Rapid went under the scroll bar."""
from __future__ import annotations

from model.workbook.row_edits import add_row


def _ranges(wb) -> None:
    for c in wb.classes:
        c.alpha_low, c.alpha_high = c.alpha - 0.08, min(1.0, c.alpha + 0.06)


def _every_row_whole(window) -> list[str]:
    cut = []
    for view in (window.results_view, window.summary_view):
        rows = view.model().rowCount()
        last = view.visualRect(view.model().index(rows - 1, 0))
        if last.bottom() > view.viewport().height():
            cut.append(f"{type(view.model()).__name__}: row {rows} ends at {last.bottom()} of {view.viewport().height()}")
    return cut


def test_the_outputs_keep_every_row_whole_after_an_apply_and_with_the_charts_back(qtbot, window):
    window.resize(1350, 720)
    qtbot.wait(50)
    assert window.fit_pane_heights()
    qtbot.wait(50)
    assert _every_row_whole(window) == []
    total = sum(window.splitter.sizes())
    window.splitter.setSizes([total - 540, 540])  # the charts as wide as they were on that screen
    window.set_charts_visible(False)
    qtbot.wait(50)
    window.document.apply("ranges", _ranges)  # every class measured: intervals in every cell
    window.document.flush()
    qtbot.wait(100)
    assert _every_row_whole(window) == []
    window.set_charts_visible(True)
    qtbot.wait(100)
    assert window.results_view.horizontalScrollBar().maximum() > 0  # the grid is wider than its pane now
    assert _every_row_whole(window) == []


def test_the_outputs_keep_every_row_whole_after_a_class_is_added(qtbot, window):
    """Task classes > Add row (openbox, 1366 x 768): the new class's cells read 'acceptance and context not given',
    the grid gained a scroll bar and the legend its 'not given' entry on a second line: 7 rows shown."""
    window.resize(1350, 720)
    qtbot.wait(50)
    assert window.fit_pane_heights()
    total = sum(window.splitter.sizes())
    window.splitter.setSizes([total - 460, 460])
    qtbot.wait(100)
    assert window.fit_pane_heights()
    qtbot.wait(50)
    assert _every_row_whole(window) == []
    window.document.apply("Add row", lambda wb: add_row(wb, "classes", len(wb.classes)))  # what Add row applies
    window.document.flush()
    qtbot.wait(100)
    assert len(window.document.workbook.classes) == 7
    assert _every_row_whole(window) == []
