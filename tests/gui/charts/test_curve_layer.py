"""The speedup-vs-acceptance chart keeps the other tiers' curves as one cached layer: an edit that moves only a
class's dot strokes no curve, a tier's edit strokes them again, and the screen equals a fresh drawing after both
(a layer whose cache outlived a curve's change would show the old curve)."""
from __future__ import annotations

import numpy as np
import pytest

from model.curves.chart_data import alpha_curves
from model.comparison import compare
from tests.gui.charts.test_row_repaint import TURBO, _fresh, _on_screen, shown_panel

HELIX_FAST = 3


@pytest.fixture
def shown(qtbot):  # noqa: ANN001, ANN201
    return shown_panel(qtbot, "alpha_chart")


def test_a_class_edit_strokes_no_curve_and_a_tier_edit_redraws_them(shown) -> None:  # noqa: ANN001
    panel, wb, show = shown
    chart = panel.alpha_chart
    layer = chart._others
    # the other speculative tiers' curves are in the layer, the selected one drawn over it
    data = alpha_curves(wb.tiers)
    others = [name for name in data.tier_names if name != wb.tiers[TURBO].name]
    assert len(layer.curves()) == len(others) >= 2
    edited = wb.copy()
    edited.classes[2].alpha = 0.42
    strokes = layer.strokes
    show(edited)
    assert chart.class_points()["extraction"][0] == pytest.approx(0.42)
    assert layer.strokes == strokes  # repainted from the cached pixmap
    np.testing.assert_array_equal(_on_screen(panel), _fresh(panel))
    # another tier's draft cost moves its curve, inside the axes' range (so nothing but the layer's own
    # change can make it stroke again): the layer strokes the curves again and shows the new one
    view_range = chart.plot.vb.viewRange()
    edited.tiers[HELIX_FAST].c += 0.01
    show(edited)
    assert chart.plot.vb.viewRange() == view_range
    assert layer.strokes > strokes
    fast = [name for name in alpha_curves(edited.tiers).tier_names].index(edited.tiers[HELIX_FAST].name)
    np.testing.assert_allclose(chart.curve_data(edited.tiers[HELIX_FAST].name)[1], alpha_curves(edited.tiers).speedup[fast])
    assert any(np.allclose(y, alpha_curves(edited.tiers).speedup[fast], equal_nan=True) for _, y in layer.curves())
    np.testing.assert_array_equal(_on_screen(panel), _fresh(panel))


def test_selecting_another_tier_moves_its_curve_out_of_the_layer(shown) -> None:  # noqa: ANN001
    panel, wb, _ = shown
    chart = panel.alpha_chart
    panel.show_result(wb, compare(wb), HELIX_FAST)
    chart.bring_up_to_date()
    data = alpha_curves(wb.tiers)
    fast = list(data.tier_names).index(wb.tiers[HELIX_FAST].name)
    turbo = list(data.tier_names).index(wb.tiers[TURBO].name)
    ys = [y for _, y in chart._others.curves()]
    assert not any(np.allclose(y, data.speedup[fast], equal_nan=True) for y in ys)
    assert any(np.allclose(y, data.speedup[turbo], equal_nan=True) for y in ys)
