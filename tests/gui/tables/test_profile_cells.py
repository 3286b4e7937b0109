"""A class given as a per-position profile or a mean acceptance length: the results grid shows what the
comparison used (its mean acceptance length, break-evens in tokens per step), not the alpha kept beside it."""
from __future__ import annotations

from PySide6.QtCore import Qt

from model.common import formatting as fmt
from model.workbook.acceptance_fields import summary_alpha
from tests.excel_cases import summarised


def _shapes(wb) -> None:
    json_row, summary_row = wb.classes[wb.class_index("json")], wb.classes[wb.class_index("summarisation")]
    json_row.profile = (0.9, 0.8, 0.7, 0.6)
    summary_row.acceptance_length, summary_row.acceptance_length_k = 2.4, 4
    summarised(json_row), summarised(summary_row)


def _cell(window, metric: str, i: int, j: int, role=Qt.ItemDataRole.DisplayRole):
    window.metric_combo.setCurrentIndex(window.metric_combo.findData(metric))
    model = window.results_model
    return model.data(model.index(i, j), role)


def test_profile_and_length_cells_show_the_length_used(window):
    window.document.apply("shapes", _shapes)
    window.document.flush()
    cmp = window.document.comparison
    i = cmp.tier_names.index("Northwind Turbo")  # K = 5, past the 4 positions measured: extrapolated
    js, sm, code = (cmp.class_names.index(n) for n in ("json", "summarisation", "code"))
    e, e_star = float(cmp.cells.tokens_per_stretch[i, js]), float(cmp.cells.break_even_length[i, js])
    # the alpha beside the profile (85%) gives another E at K = 5: the cell must not show it as used
    assert abs(e - (1 - 0.85 ** 6) / 0.15) > 0.1
    assert _cell(window, "alpha", i, js) == f"AL {e:.2f}*"
    assert _cell(window, "alpha", i, sm).startswith("AL ")
    assert _cell(window, "alpha", i, code) == "80.0%"  # an alpha class as before
    assert _cell(window, "break_even", i, js) == f"E* {e_star:.2f}"
    assert _cell(window, "price_break_even", i, js) == f"E* {float(cmp.cells.price_break_even_length[i, js]):.2f}"
    assert _cell(window, "margin", i, js) == f"{e - e_star:+.2f} tok/step"
    tip = _cell(window, "speedup", i, js, Qt.ItemDataRole.ToolTipRole)
    assert "per-position profile (90%, 80%, 70%, 60%" in tip and "(1 - alpha^(K+1))" not in tip
    assert f"from the profile: {e:.2f} (extrapolated past K=4)" in tip
    assert "mean acceptance length of 2.40 measured at K=4" in _cell(window, "speedup", i, sm, Qt.ItemDataRole.ToolTipRole)
    # the speedup cell is marked as the acceptance cell is: * and the same words in its tooltip's speedup line
    speed = f"{float(cmp.cells.speedup[i, js]):.2f}x"
    assert _cell(window, "speedup", i, js) == speed + "*"
    assert f"Speedup S = E / (K*c + v) = {speed} (extrapolated past K=4)" in tip
    assert _cell(window, "speedup", i, sm) == f"{float(cmp.cells.speedup[i, sm]):.2f}x" + ("*" if cmp.cells.extrapolated[i, sm] else "")
    helix = cmp.tier_names.index("Helix Fast")  # K = 4: the profile's own positions, nothing extrapolated
    assert not _cell(window, "speedup", helix, js).endswith("*") and _cell(window, "speedup", i, code).endswith("x")


def test_the_task_classes_table_says_what_stands_beside_the_alpha(window):
    def ranged(wb) -> None:
        _shapes(wb)
        code = wb.classes[wb.class_index("code")]
        code.alpha_low, code.alpha_high = 0.74, 0.86

    window.document.apply("shapes", ranged)
    window.document.flush()
    model, wb = window.class_model, window.document.workbook
    col = model.column_of("alpha")

    def shown(name: str, role=Qt.ItemDataRole.DisplayRole):
        return model.data(model.index(wb.class_index(name), col), role)

    # the alpha beside a profile or a length is its summary (the demo's 85% and 65% would contradict them)
    assert shown("json") == fmt.pct(summary_alpha((0.9, 0.8, 0.7, 0.6), None, None))  # and the profile's bars
    assert shown("json") != "85.0%"
    assert "per-position profile (90%, 80%, 70%, 60%" in shown("json", Qt.ItemDataRole.ToolTipRole)
    assert shown("summarisation") == f"{fmt.pct(summary_alpha((), 2.4, 4))} · AL 2.40 @K4"  # 'AL 2.9 @K3' for a length
    assert shown("code") == "80.0% (74.0–86.0%)" and "range typed" in shown("code", Qt.ItemDataRole.ToolTipRole)
    assert shown("prose") == "50.0%"
    # what a cell edits is the profile as it can be typed back (tests/gui/tables/test_typed_shape.py)
    assert model.data(model.index(wb.class_index("json"), col), Qt.ItemDataRole.EditRole) == "90% 80% 70% 60%"


def _bar_heights(view, index, positions: int) -> list[int]:
    """The dark pixels in each bar's column at the cell's right end, as painted on screen."""
    from gui.tables.sparkline import bar_rects

    view.scrollTo(index)
    rect = view.visualRect(index)
    image = view.viewport().grab(rect).toImage()
    local = rect.translated(-rect.left(), -rect.top()).adjusted(0, 0, -3, 0)
    heights = []
    for bar in bar_rects(local, [1.0] * positions):
        x = bar.center().x()
        heights.append(sum(1 for y in range(image.height()) if image.pixelColor(x, y).lightness() < 120))
    return heights


def test_a_profile_cell_draws_its_bars_beside_the_alpha(qtbot, window):
    """A profile's acceptance cell shows a per-position sparkline. QA under Xvfb at 1366x768 found the
    word 'profile' instead, in the Task classes table and the Acceptance grid."""
    from gui.tables.acceptance_text import PROFILE_ROLE
    from gui.tables.sparkline import bars_width
    from model.workbook.rows import Override

    def shapes(wb) -> None:
        _shapes(wb)
        wb.overrides.append(summarised(Override(tier="Northwind Turbo", task_class="code", alpha=0.8,
                                                alpha_source="probed", profile=(0.95, 0.6, 0.3))))

    window.resize(1366, 768)
    window.document.apply("shapes", shapes)
    window.document.flush()
    wb = window.document.workbook
    model, view = window.class_model, window.class_view
    window.input_tabs.setCurrentWidget(view)
    index = model.index(wb.class_index("json"), model.column_of("alpha"))
    assert model.data(index, PROFILE_ROLE) == (0.9, 0.8, 0.7, 0.6)
    assert model.data(model.index(wb.class_index("code"), model.column_of("alpha")), PROFILE_ROLE) is None
    qtbot.wait(20)
    heights = _bar_heights(view, index, 4)
    assert all(h > 0 for h in heights) and heights == sorted(heights, reverse=True) and heights[0] > heights[-1]
    text = view.fontMetrics().horizontalAdvance(model.data(index))
    assert view.columnWidth(index.column()) >= text + bars_width(4), "the column leaves room for the bars"

    grid, grid_view = window.override_model, window.override_view
    window.input_tabs.setCurrentWidget(grid_view)
    qtbot.wait(20)
    cell = grid.index(wb.tier_index("Northwind Turbo"), wb.class_index("code"))
    assert grid.data(cell, PROFILE_ROLE) == (0.95, 0.6, 0.3)
    assert grid.data(cell) == fmt.pct(summary_alpha((0.95, 0.6, 0.3), None, None))
    assert grid.data(grid.index(0, 0), PROFILE_ROLE) is None
    heights = _bar_heights(grid_view, cell, 3)
    assert heights[0] > heights[1] > heights[2] > 0
