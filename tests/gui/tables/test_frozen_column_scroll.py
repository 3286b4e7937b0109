"""The frozen name column never half-covers its neighbour: scrolled right by a pixel, a wheel, the
arrows or the slider, or with a column resized while scrolled, the first column past the names begins at their
edge; the last column can still be scrolled fully into view."""
from __future__ import annotations

from PySide6.QtWidgets import QAbstractSlider


def _half_covered(window) -> list[str]:  # noqa: ANN001
    """Columns that lie partly under the frozen column: some of the cell hidden, some shown beside the names."""
    view, frozen = window.tier_view, window.frozen_columns[0].frozen
    edge = frozen.width()
    model = view.model()
    out = []
    for col in range(1, model.columnCount()):
        rect = view.visualRect(model.index(0, col))
        if rect.left() < edge <= rect.right():
            out.append(f"{model.headerData(col, 1)}: {rect.left()}..{rect.right()} under a {edge} px name column")
    return out


def test_scrolling_right_stops_only_at_column_edges(qtbot, window):
    window.resize(1366, 768)
    qtbot.wait(20)
    bar = window.tier_view.horizontalScrollBar()
    assert bar.maximum() > 0
    for value in range(0, bar.maximum() + 1, 7):  # what a pixel scroll or a dragged slider asks for
        bar.setValue(0)
        bar.setValue(value)
        assert not _half_covered(window), (value, _half_covered(window))


def test_the_wheel_and_arrows_move_a_column_at_a_time_to_the_last_one(qtbot, window):
    window.resize(1366, 768)
    qtbot.wait(20)
    view, bar = window.tier_view, window.tier_view.horizontalScrollBar()
    seen = [bar.value()]
    while bar.value() < bar.maximum() and len(seen) < 60:
        bar.triggerAction(QAbstractSlider.SliderAction.SliderSingleStepAdd)
        assert bar.value() > seen[-1], "a step right did not move"
        assert not _half_covered(window), _half_covered(window)
        seen.append(bar.value())
    last = view.model().columnCount() - 1
    assert view.visualRect(view.model().index(0, last)).right() < view.viewport().width()  # the last column whole
    while bar.value() > 0:
        before = bar.value()
        bar.triggerAction(QAbstractSlider.SliderAction.SliderSingleStepSub)
        assert bar.value() < before and not _half_covered(window)


def test_a_column_resized_while_scrolled_leaves_no_column_half_covered(qtbot, window):
    window.resize(1366, 768)
    qtbot.wait(20)
    view, bar = window.tier_view, window.tier_view.horizontalScrollBar()
    bar.triggerAction(QAbstractSlider.SliderAction.SliderSingleStepAdd)
    bar.triggerAction(QAbstractSlider.SliderAction.SliderSingleStepAdd)
    for col, width in ((1, view.columnWidth(1) + 37), (2, view.columnWidth(2) - 11), (3, 140)):
        view.setColumnWidth(col, width)
        assert not _half_covered(window), (col, _half_covered(window))
    # the names' own column made wider from the frozen column's header
    window.frozen_columns[0].frozen.setColumnWidth(0, view.columnWidth(0) + 45)
    assert not _half_covered(window), _half_covered(window)
