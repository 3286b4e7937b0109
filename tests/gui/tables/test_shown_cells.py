"""Result tables signal only the painted cells whose look an edit changed: a cell whose number moved in a digit it
does not show is not repainted, one whose text changed is, and a cell never painted is signalled as found."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from gui.document import Document
from gui.tables.result_models import ResultsGridModel
from gui.tables.shown_cells import ShownCells, _ranges
from gui.tables.spreadsheet_view import SpreadsheetView
from gui.tables.summary_model import TierSummaryModel
from model.workbook.json_file import load_demo
from model.workbook.rows import Workbook


def _cells(blocks: list[tuple[int, int, int, int]]) -> list[tuple[int, int]]:
    return [(r, c) for top, left, bottom, right in blocks for r in range(top, bottom + 1) for c in range(left, right + 1)]


@pytest.mark.parametrize("seed", range(20))
def test_ranges_cover_exactly_the_cells_to_repaint(seed: int) -> None:
    rng = np.random.default_rng(seed)
    keep = rng.random((int(rng.integers(1, 12)), int(rng.integers(1, 9)))) < rng.uniform(0.1, 0.9)
    cells = _cells(_ranges(keep))
    assert len(cells) == len(set(cells))  # no cell twice
    assert set(cells) == {(int(r), int(c)) for r, c in zip(*np.nonzero(keep))}


def test_narrow_keeps_unpainted_cells_and_drops_painted_ones_that_look_the_same() -> None:
    shown = ShownCells()
    shown.fit(4, 3)
    shown.mark(0, 0)  # asked for outside a paint (a column fit, a copy): not on screen
    shown.painting += 1
    shown.mark(1, 1)
    shown.mark(2, 1)
    shown.painting -= 1
    # (1, 1) looks the same, (2, 1) does not, (0, 0) was never painted: the block loses only (1, 1)
    got = set(_cells(shown.narrow([(0, 0, 3, 2)], lambda r, c: (r, c) in {(1, 1), (0, 0)})))
    assert got == {(r, c) for r in range(4) for c in range(3)} - {(1, 1)}
    # another shape forgets what was painted: every cell found is signalled
    shown.fit(5, 3)
    assert set(_cells(shown.narrow([(0, 0, 3, 2)], lambda r, c: True))) == {(r, c) for r in range(4) for c in range(3)}


def _looks(model) -> dict[tuple[int, int], tuple]:  # noqa: ANN001
    """Every cell's text and colours, as a view shows them."""
    roles = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole)
    out = {}
    for r in range(model.rowCount()):
        for c in range(model.columnCount()):
            values = [model.data(model.index(r, c), role) for role in roles]
            out[r, c] = tuple(v.color().name() if hasattr(v, "color") else v for v in values)
    return out


def _painted_view(qtbot, model) -> SpreadsheetView:  # noqa: ANN001
    """A view showing every cell of ``model``, painted once."""
    view = SpreadsheetView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.resize(3000, 1000)
    view.show()
    view.grab()  # paints every cell (what the screen would show)
    return view


@pytest.mark.parametrize("model_type", [ResultsGridModel, TierSummaryModel])
def test_a_move_below_the_digits_shown_repaints_nothing_and_a_visible_one_repaints_what_changed(
        qtbot, model_type) -> None:  # noqa: ANN001
    wb: Workbook = load_demo()
    document = Document(wb)
    model = model_type(document)
    view = _painted_view(qtbot, model)
    assert view.columnViewportPosition(model.columnCount() - 1) + view.columnWidth(model.columnCount() - 1) \
        <= view.viewport().width()  # every cell on screen
    signalled: list[tuple[int, int, int, int]] = []
    model.dataChanged.connect(lambda a, b, *_: signalled.append((a.row(), a.column(), b.row(), b.column())))
    before = _looks(model)
    alpha = wb.classes[1].alpha

    def edit(value: float) -> None:
        def mutate(w: Workbook) -> None:
            w.classes[1].alpha = value
        assert document.apply("alpha", mutate)
        document.flush()

    # the class's speedups move in their sixth digit: the arrays differ, the cells read the same
    old_speedup = document.comparison.cells.speedup.copy()
    edit(alpha + 1e-7)
    assert not np.array_equal(document.comparison.cells.speedup, old_speedup)
    assert _looks(model) == before
    assert signalled == [], signalled
    # a visible move: exactly the cells whose look changed are signalled (not the whole block the arrays found)
    edit(alpha - 0.2)
    after = _looks(model)
    changed = {cell for cell in after if after[cell] != before[cell]}
    assert changed
    assert set(_cells(signalled)) == changed


def test_a_column_fit_marks_nothing_painted(qtbot) -> None:  # noqa: ANN001
    # a fit asks every row's text; were those marked, each edit would compare the looks of the whole table
    model = TierSummaryModel(Document(load_demo()))
    view = SpreadsheetView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.resizeColumnsToContents()
    assert not model.shown_cells.narrow([(0, 0, 7, 3)], lambda r, c: True) == []
    assert set(_cells(model.shown_cells.narrow([(0, 0, 7, 3)], lambda r, c: True))) == \
        {(r, c) for r in range(8) for c in range(4)}


def test_a_typed_k_repaints_its_cell_and_a_cost_model_edit_the_whole_row(qapp) -> None:  # noqa: ANN001
    from gui.tables.input_models import TierTableModel

    document = Document(load_demo())
    model = TierTableModel(document)
    signalled: list[tuple[int, int, int, int]] = []
    model.dataChanged.connect(lambda a, b, *_: signalled.append((a.row(), a.column(), b.row(), b.column())))
    k_col, c_col, v_col = model.column_of("k"), model.column_of("c"), model.column_of("v")

    def edit(**values: object) -> set[tuple[int, int]]:
        def mutate(w: Workbook) -> None:
            for key, value in values.items():
                setattr(w.tiers[3], key, value)  # Helix Fast: typed c and v
        signalled.clear()
        assert document.apply("edit", mutate)
        document.flush()
        return set(_cells(signalled))

    assert edit(k=7) == {(3, k_col)}
    assert edit(c=0.2) == {(3, c_col)}
    # a roofline tier greys its typed c and v: every cell of the row may look different
    assert edit(cost_model="roofline") >= {(3, col) for col in range(model.columnCount())}
    assert {(3, k_col), (3, v_col)} <= edit(k=3)  # and its used v moves with K
