"""A profile on the charts: the trailer's slots filled by position, and the per-position chart of the selected class."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from gui.charts.panel import ChartsPanel
from model.mechanics import arithmetic as ar
from model.comparison import compare
from model.workbook.json_file import load_demo
from model.workbook.rows import Workbook
from tests.gui.charts.test_charts import open_panel

TURBO = 1  # Northwind Turbo, K = 5


@pytest.fixture
def profiled() -> Workbook:
    wb = load_demo()
    wb.classes[wb.class_index("json")].profile = (0.9, 0.8, 0.7)  # measured at 3 positions, the tier drafts 5
    return wb


@pytest.fixture
def panel(qtbot, profiled: Workbook) -> ChartsPanel:
    return open_panel(qtbot, profiled, TURBO)


def test_a_profile_fills_each_slot_by_its_share_and_the_cargo_thins(panel: ChartsPanel, profiled: Workbook) -> None:
    j = profiled.class_index("json")
    k = profiled.tiers[TURBO].k
    ext, beyond = ar.extend_profile([0.9, 0.8, 0.7], k)
    shares = panel.trailer_chart.slot_shares()
    assert list(shares) == ["json"]  # the alpha classes keep their packed cargo
    assert shares["json"] == pytest.approx(list(np.cumprod(ext)), rel=1e-12)
    assert shares["json"][:3] == pytest.approx([0.9, 0.72, 0.504])
    assert all(a > b for a, b in zip(shares["json"], shares["json"][1:]))  # thinning towards the end
    # the slots' cargo adds up to the accepted drafts the comparison uses: E - 1
    assert sum(shares["json"]) == pytest.approx(compare(profiled).cells.tokens_per_stretch[TURBO, j] - 1.0, rel=1e-12)
    chart = panel.trailer_chart
    assert chart._cargo.opts["width"][j] == 0.0 and chart._cargo.opts["width"][0] > 0  # json drawn by slot
    heights = np.asarray(chart._slot_cargo.opts["height"])
    assert heights / 0.62 == pytest.approx(shares["json"])
    # extrapolated slots (4 and 5) paler than the measured ones
    alphas = [pg.mkBrush(b).color().alpha() for b in chart._slot_cargo.opts["brushes"]]
    assert [a < 255 for a in alphas] == list(beyond)


def test_the_position_chart_shows_the_selected_class_measured_and_extrapolated(panel: ChartsPanel,
                                                                              profiled: Workbook) -> None:
    chart = panel.position_chart
    name, rates = chart.shown()  # no class selected: the first with a profile
    assert name == "json" and rates.measured == 3 and rates.conditional.size == 5
    solid_x, solid_y = chart._series["o", False].getData()
    dashed_x, dashed_y = chart._series["o", True].getData()
    assert list(solid_x) == [1, 2, 3] and solid_y == pytest.approx([0.9, 0.8, 0.7])
    assert list(dashed_x) == [3, 4, 5] and dashed_y[0] == pytest.approx(0.7)  # joined at the last measured
    assert chart._series["s", False].getData()[1] == pytest.approx([0.9, 0.72, 0.504])
    # a class given as one alpha has no positions: the chart says so instead of a flat line
    panel.tabs.setCurrentWidget(chart)
    panel.set_class_row(profiled.class_index("code"))
    assert chart.shown() is None and chart._note.isVisible()
    assert "code has no per-position profile" in chart._note.toPlainText() and "one α" in chart._note.toPlainText()
    panel.set_class_row(profiled.class_index("json"))
    assert chart.shown()[0] == "json"


def test_a_non_speculative_tier_has_no_positions(panel: ChartsPanel, profiled: Workbook) -> None:
    panel.show_result(profiled, compare(profiled), 0)
    panel.flush()
    assert panel.position_chart.shown() is None
    assert "does not run speculative decoding" in panel.position_chart._note.toPlainText()


def test_selecting_a_class_in_the_window_moves_the_position_chart(qtbot, window) -> None:
    j = window.document.workbook.class_index("prose")
    window.input_tabs.setCurrentWidget(window.class_view)
    window.class_view.setCurrentIndex(window.class_model.index(j, 0))
    assert window.charts.position_chart.class_row == j
    window.results_view.setCurrentIndex(window.results_model.index(1, 0))
    assert window.charts.position_chart.class_row == 0


def test_the_context_chart_draws_a_profile_from_its_own_e(panel: ChartsPanel, profiled: Workbook) -> None:
    """A profile class's curve against context is E (from the profile, at the tier's K) over each context's step
    cost, and passes through the class's own point; the i.i.d. curve of its summary alpha (drawn before) does not."""
    from model.curves.speedup import CONTEXT_GRID, context_curves, costs_at

    cmp = compare(profiled)
    j, tier = profiled.class_index("json"), profiled.tiers[TURBO]
    e = cmp.cells.tokens_per_stretch[TURBO, j]
    c, v = costs_at(tier, CONTEXT_GRID)
    x, y = panel.context_chart.curve_data("json")
    assert list(x) == pytest.approx(list(CONTEXT_GRID))
    assert y == pytest.approx(e / (tier.k * c + v), rel=1e-12)
    own = profiled.classes[j].context
    tokens = np.full(len(profiled.classes), np.nan)
    tokens[j] = e
    at_own = context_curves(tier, cmp.cells.alpha[TURBO], np.array([float(own)]), tokens)
    assert at_own[j, 0] == pytest.approx(cmp.cells.speedup[TURBO, j], rel=1e-12)
    summary = context_curves(tier, cmp.cells.alpha[TURBO])[j]
    assert np.max(np.abs(y / summary - 1.0)) > 0.01  # what the chart drew before
    # the alpha classes keep their i.i.d. curves
    code = profiled.class_index("code")
    assert panel.context_chart.curve_data("code")[1] == pytest.approx(context_curves(tier, cmp.cells.alpha[TURBO])[code])


def test_a_profiles_trailer_numbers_stay_inside_a_laptops_chart_pane(qtbot, profiled: Workbook) -> None:
    # at 1366 x 768 the pane is about 460 px wide: the profile's legend line set the chart's width past it, and
    # the numbers right of the trailers ('AL 4.62* · 72% full · 2.43x') ran off the pane's edge
    panel = open_panel(qtbot, profiled, TURBO)
    panel.resize(460, 700)
    qtbot.wait(50)
    chart = panel.trailer_chart
    axis = chart.plot.getAxis("right")
    assert any(t.startswith("AL ") for t in chart.row_labels())
    assert axis.mapRectToScene(axis.boundingRect()).right() <= chart.width(), chart.width()


def _bottom_tick_labels(chart) -> list[str]:
    """The tick labels the bottom axis paints now (its draw specs' texts)."""
    from PySide6.QtGui import QImage, QPainter
    axis = chart.plot.getAxis("bottom")
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [] if specs is None else [text for _rect, _flags, text in specs[2]]


def test_a_chart_without_positions_shows_no_fractional_position_ticks(qtbot) -> None:
    # QA at 1366x768: with no class holding a profile the chart's note sat over pyqtgraph's own ticks, draft
    # positions 0.2, 0.4, … (a position is a whole number)
    panel = open_panel(qtbot, load_demo(), TURBO)
    panel.tabs.setCurrentWidget(panel.position_chart)
    panel.flush()
    assert panel.position_chart.shown() is None and panel.position_chart._note.isVisible()
    assert _bottom_tick_labels(panel.position_chart) == []


def test_the_note_after_a_profile_keeps_neither_its_ticks_nor_its_words(panel: ChartsPanel,
                                                                       profiled: Workbook) -> None:
    chart = panel.position_chart
    panel.tabs.setCurrentWidget(chart)
    assert chart.shown()[0] == "json" and _bottom_tick_labels(chart) == ["1", "2", "3", "4", "5"]
    panel.set_class_row(profiled.class_index("code"))
    assert chart.shown() is None
    assert _bottom_tick_labels(chart) == []
    assert "past the 3 measured" not in chart._extrapolated_label.text  # json's words, json no longer drawn


@pytest.mark.parametrize("width", [460, 540, 580])
def test_the_position_legend_stays_inside_a_laptops_chart_pane(qtbot, profiled: Workbook, width: int) -> None:
    # at 1366 x 768 the pane is about 460-540 px wide: the legend's line 'dashed, hollow: past the 3 measured,
    # geometric rule', set after the columns were fitted, kept two columns and ran the second off the pane
    # (540 px: the legend's right edge at 591)
    panel = ChartsPanel()
    qtbot.addWidget(panel)
    panel.resize(width, 700)  # the pane's width first, then the class drawn: the words change, the width does not
    panel.show()
    panel.show_result(profiled, compare(profiled), TURBO)
    panel.tabs.setCurrentWidget(panel.position_chart)
    panel.flush()
    qtbot.wait(50)
    chart = panel.position_chart
    assert chart.shown()[0] == "json"
    legend = chart.legend
    assert legend.mapRectToScene(legend.boundingRect()).right() <= chart.width(), (legend.columnCount, chart.width())
