"""The charts panel: what it plots, that it updates in place, and that it exports."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest

from PySide6.QtGui import QImage  # noqa: E402
from PySide6.QtWidgets import QFileDialog  # noqa: E402

from gui.charts.export import export_chart  # noqa: E402
from gui.charts.style import class_color  # noqa: E402
from gui.charts.panel import ChartsPanel  # noqa: E402
from model.comparison import Comparison, compare  # noqa: E402
from model.curves.speedup import CONTEXT_GRID, alpha_curve, context_curves  # noqa: E402
from model.workbook.rows import TaskClass, Workbook  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402

TURBO, STANDARD = 1, 0  # demo rows: Northwind Turbo (speculative), Northwind Standard (not)


@pytest.fixture
def demo() -> Workbook:
    return load_demo()


def open_panel(qtbot, wb: Workbook, row: int = TURBO) -> ChartsPanel:
    widget = ChartsPanel()
    qtbot.addWidget(widget)
    widget.resize(520, 460)
    widget.show()
    widget.show_result(wb, compare(wb), row)
    widget.flush()  # these tests look at plot items of hidden tabs too
    return widget


@pytest.fixture
def panel(qtbot, demo: Workbook) -> ChartsPanel:
    return open_panel(qtbot, demo)


def _redraw(panel: ChartsPanel, wb: Workbook, row: int) -> Comparison:
    cmp = compare(wb)
    panel.show_result(wb, cmp, row)
    panel.flush()
    return cmp


def test_only_the_visible_chart_redraws_and_a_shown_tab_catches_up(qtbot, demo: Workbook) -> None:
    widget = ChartsPanel()
    qtbot.addWidget(widget)
    widget.show()
    widget.show_result(demo, compare(demo), TURBO)
    assert not widget.trailer_chart.stale
    assert widget.alpha_chart.stale and widget.context_chart.stale
    assert widget.alpha_chart._curves == []  # not drawn while hidden
    widget.tabs.setCurrentWidget(widget.alpha_chart)
    assert not widget.alpha_chart.stale
    assert len(widget.alpha_chart._curves) == sum(t.speculative != "no" for t in demo.tiers)
    assert widget.context_chart.stale

    edited = demo.copy()
    edited.classes[0].alpha = 0.95
    widget.show_result(edited, compare(edited), TURBO)
    assert widget.trailer_chart.stale and not widget.alpha_chart.stale
    assert widget.alpha_chart.class_points()["code"][0] == pytest.approx(0.95)
    # a reader of a hidden chart draws the pending result first, so it never reports stale data
    assert widget.trailer_chart.fill_data()["code"][1] == pytest.approx(0.95)
    assert not widget.trailer_chart.stale
    x, _ = widget.context_chart.curve_data("code")
    assert len(x) and not widget.context_chart.stale


def test_trailers_show_the_comparison_fill(panel: ChartsPanel, demo: Workbook) -> None:
    cmp = compare(demo)
    shown = panel.trailer_chart.fill_data()
    assert list(shown) == cmp.class_names
    for j, name in enumerate(cmp.class_names):
        fill, alpha, k = shown[name]
        assert fill == pytest.approx(cmp.cells.trailer_fill[TURBO, j])
        assert alpha == pytest.approx(cmp.cells.alpha[TURBO, j])
        assert k == demo.tiers[TURBO].k


def test_trailers_and_slot_walls_follow_k_and_the_classes(panel: ChartsPanel, demo: Workbook) -> None:
    # drawn again only when K or the number of classes changes: a change of either must still redraw them
    chart = panel.trailer_chart

    def drawn() -> tuple[list[float], int]:
        widths = chart._trailers.opts["width"]
        x, _ = chart._walls.getData()
        return [float(w) for w in widths], 0 if x is None else len(x)

    k = demo.tiers[TURBO].k
    assert drawn() == ([float(k)] * len(demo.classes), 2 * (k - 1) * len(demo.classes))
    edited = demo.copy()
    edited.classes[0].alpha = 0.3  # neither K nor the classes: the same frame
    _redraw(panel, edited, TURBO)
    assert drawn() == ([float(k)] * len(demo.classes), 2 * (k - 1) * len(demo.classes))
    edited.tiers[TURBO].k = k + 2
    _redraw(panel, edited, TURBO)
    assert drawn() == ([float(k + 2)] * len(demo.classes), 2 * (k + 1) * len(demo.classes))
    edited.classes.pop()
    _redraw(panel, edited, TURBO)
    assert drawn() == ([float(k + 2)] * (len(demo.classes) - 1), 2 * (k + 1) * (len(demo.classes) - 1))
    _redraw(panel, edited, STANDARD)  # a note instead of trailers, then back: the frame is shown again
    _redraw(panel, edited, TURBO)
    assert chart._trailers.isVisible() and drawn()[1] == 2 * (k + 1) * (len(demo.classes) - 1)


def test_alpha_chart_has_a_curve_per_speculative_tier(panel: ChartsPanel, demo: Workbook) -> None:
    for tier in demo.tiers:
        data = panel.alpha_chart.curve_data(tier.name)
        if tier.speculative == "no":
            assert data is None
            continue
        expected = alpha_curve(tier)
        np.testing.assert_allclose(data[0], expected.alphas)
        np.testing.assert_allclose(data[1], expected.speedup)


def test_alpha_chart_marks_break_even_classes_and_claim(panel: ChartsPanel, demo: Workbook) -> None:
    cmp = compare(demo)
    chart = panel.alpha_chart
    assert chart.break_even_point() == pytest.approx(alpha_curve(demo.tiers[TURBO]).break_even_alpha)
    points = chart.class_points()
    for j, name in enumerate(cmp.class_names):
        assert points[name] == pytest.approx((cmp.cells.alpha[TURBO, j], cmp.cells.speedup[TURBO, j]))
    assert chart.claim_point() == pytest.approx((cmp.claims.alpha[TURBO], cmp.claims.speedup[TURBO]))


def test_context_chart_curves_and_claim(panel: ChartsPanel, demo: Workbook) -> None:
    cmp = compare(demo)
    expected = context_curves(demo.tiers[TURBO], cmp.cells.alpha[TURBO])
    for j, name in enumerate(cmp.class_names):
        x, y = panel.context_chart.curve_data(name)
        np.testing.assert_allclose(x, CONTEXT_GRID)
        np.testing.assert_allclose(y, expected[j])
    assert panel.context_chart.claim_point() == pytest.approx((4096.0, 3.0))


def test_an_edit_changes_the_data_on_the_same_items(panel: ChartsPanel, demo: Workbook) -> None:
    alpha_items = list(panel.alpha_chart._curves)
    context_items = list(panel.context_chart._curves)
    helix = demo.tiers[3].name
    before_turbo = panel.alpha_chart.curve_data(demo.tiers[TURBO].name)[1]
    before_helix = panel.alpha_chart.curve_data(helix)[1]
    before_code = panel.context_chart.curve_data("code")[1]
    before_fill = panel.trailer_chart.fill_data()["code"][0]

    demo.tiers[TURBO].batch = 1  # the roofline's verify cost changes with the batch
    demo.classes[0].alpha = 0.9
    _redraw(panel, demo, TURBO)

    assert not np.allclose(panel.alpha_chart.curve_data(demo.tiers[TURBO].name)[1], before_turbo)
    np.testing.assert_array_equal(panel.alpha_chart.curve_data(helix)[1], before_helix)
    assert not np.allclose(panel.context_chart.curve_data("code")[1], before_code)
    assert panel.trailer_chart.fill_data()["code"][0] > before_fill
    # updated in place: the very same plot items, nothing added or removed
    assert panel.alpha_chart._curves == alpha_items
    assert panel.context_chart._curves == context_items


def test_items_follow_the_number_of_classes_and_renames(panel: ChartsPanel, demo: Workbook) -> None:
    demo.classes.append(TaskClass(name="legal", tokens_out=1e6, context=8192, alpha=0.7))
    _redraw(panel, demo, TURBO)
    assert len(panel.context_chart._curves) == 7
    assert "legal" in panel.trailer_chart.fill_data()
    assert panel.context_chart.curve_data("legal") is not None
    assert panel.context_chart.legend.getLabel(panel.context_chart._curves[6]).text == "legal"

    demo.rename_class("legal", "contracts")
    kept = list(panel.context_chart._curves)
    _redraw(panel, demo, TURBO)
    assert panel.context_chart._curves == kept
    assert panel.context_chart.legend.getLabel(kept[6]).text == "contracts"
    assert "contracts" in panel.alpha_chart.class_points()

    del demo.classes[-1]
    _redraw(panel, demo, TURBO)
    assert len(panel.context_chart._curves) == 6
    assert "contracts" not in panel.trailer_chart.fill_data()


def test_selection_moves_the_highlight(panel: ChartsPanel, demo: Workbook) -> None:
    chart = panel.alpha_chart
    turbo, helix = chart._curves[0], chart._curves[1]
    assert turbo.zValue() > helix.zValue()
    _redraw(panel, demo, 3)
    assert helix.zValue() > turbo.zValue()
    assert "Helix Fast" in chart.title_label.text


def test_non_speculative_tier_says_so(panel: ChartsPanel, demo: Workbook) -> None:
    _redraw(panel, demo, STANDARD)
    assert panel.trailer_chart.fill_data() == {}
    assert "does not run speculative decoding" in panel.trailer_chart._note.toPlainText()
    assert panel.alpha_chart.class_points() == {}
    assert panel.alpha_chart.break_even_point() is None
    assert panel.alpha_chart.curve_data(demo.tiers[TURBO].name) is not None  # the others stay, faint
    _, y = panel.context_chart.curve_data("code")
    np.testing.assert_array_equal(y, 1.0)
    assert panel.context_chart.claim_point() is None


def test_never_paying_tier_has_no_break_even_mark(panel: ChartsPanel, demo: Workbook) -> None:
    tier = demo.tiers[3]
    tier.c, tier.v = 1.2, 1.0  # K = 4: K c + v = 5.8 >= K + 1, no acceptance pays
    _redraw(panel, demo, 3)
    assert panel.alpha_chart.break_even_point() is None
    assert "never pays at K = 4" in panel.alpha_chart._note.toPlainText()
    assert panel.trailer_chart.row_labels()[0].endswith("never pays")


def test_no_selection_and_empty_workbook(qtbot, demo: Workbook) -> None:
    widget = ChartsPanel()
    qtbot.addWidget(widget)
    widget.show_result(demo, compare(demo), -1)
    assert widget.trailer_chart.fill_data() == {}
    empty = Workbook()
    widget.show_result(empty, compare(empty), -1)
    assert widget.alpha_chart.curve_data("anything") is None
    widget.show_result(demo, compare(demo), TURBO)  # and back
    assert len(widget.trailer_chart.fill_data()) == len(demo.classes)


def test_a_row_past_the_end_is_no_selection(panel: ChartsPanel, demo: Workbook) -> None:
    _redraw(panel, demo, len(demo.tiers) + 3)  # e.g. rows deleted before the selection moved
    assert panel.trailer_chart.fill_data() == {}
    assert panel.alpha_chart.class_points() == {}
    assert panel.context_chart.curve_data("code") is None


def test_class_colours_agree_across_charts(panel: ChartsPanel) -> None:
    for j in range(6):
        want = class_color(j).name()
        assert pg.mkBrush(panel.trailer_chart._cargo.opts["brushes"][j]).color().name() == want
        assert panel.context_chart._curves[j].opts["pen"].color().name() == want
        assert panel.alpha_chart._class_brushes[j].color().name() == want


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_export_each_chart(panel: ChartsPanel, tmp_path: Path, suffix: str) -> None:
    for chart in panel.charts():
        path = chart.export_to(tmp_path / f"{chart.export_name}.{suffix}")
        assert path.stat().st_size > 1000
        if suffix == "png":
            image = QImage(str(path))
            assert image.width() >= chart.width()
        else:
            text = path.read_text(encoding="utf-8")
            assert "<svg" in text
            title = {panel.trailer_chart: "Trailer fill", panel.position_chart: "Per position"}.get(chart, "Speedup vs")
            assert title in text


def test_export_refuses_an_unknown_format(panel: ChartsPanel, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="png or .svg"):
        export_chart(panel.alpha_chart.ci, tmp_path / "chart.pdf")


def test_context_menu_exports_through_the_file_dialog(panel: ChartsPanel, tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "from_menu"  # no suffix: the action adds it
    asked: list[str] = []

    def fake_dialog(parent, caption, suggested, filters):
        asked.append(suggested)
        return str(target), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake_dialog))
    chart = panel.context_chart
    actions = [a.text() for a in chart.plot.getViewBox().menu.actions()]
    assert "Export chart as PNG…" in actions and "Export chart as SVG…" in actions
    chart.export_actions["svg"].trigger()
    assert (tmp_path / "from_menu.svg").exists()
    assert asked == ["speedup_vs_context_Northwind_Turbo.svg"]
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: ("", "")))
    chart.export_actions["png"].trigger()  # cancelled: nothing written, nothing raised
    assert not (tmp_path / "from_menu.png").exists()


def test_trailer_axis_shows_both_ends_at_a_laptop_width(qtbot, window) -> None:
    # before: at 1366 px pyqtgraph dropped the "0" and "K" labels as overlapping the axis ends,
    # so the trailer's capacity could not be read off the chart
    from PySide6.QtGui import QImage, QPainter

    window.resize(1366, 768)
    qtbot.wait(20)
    axis = window.charts.trailer_chart.plot.getAxis("bottom")
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    texts = [spec[2] for spec in axis.generateDrawSpecs(painter)[2]]
    painter.end()
    assert texts == ["0", "1", "2", "3", "4", "5"]  # Northwind Turbo, K = 5


def test_alpha_chart_says_its_class_dots_are_at_their_own_context(panel: ChartsPanel, demo: Workbook) -> None:
    # the curve is at the claim's context (4K), each class's dot at its own (code at 16K sits below
    # the curve); before, nothing on the chart said so and the dots read as misplaced
    chart = panel.alpha_chart
    labels = [label.text for _, label in chart.legend.items]
    assert "class at its own context" in labels
    assert chart.title_label.text.endswith("at 4K")
    x, y = chart.curve_data("Northwind Turbo")
    a, s = chart.class_points()["code"]
    assert s < float(np.interp(a, x, y))  # really off the curve: the legend is needed


def test_a_chart_whose_data_did_not_change_is_not_redrawn(qtbot, panel: ChartsPanel, demo: Workbook,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []
    for chart in panel.charts():
        original = chart.update_result
        monkeypatch.setattr(chart, "update_result",
                            lambda *a, _o=original, _n=type(chart).__name__: (drawn.append(_n), _o(*a))[1])
    # another tier's K: the selected tier's trailers and context curves are as they were,
    # but the acceptance chart draws every tier's curve, so it redraws
    other = demo.copy()
    other.tiers[3].k += 1
    _redraw(panel, other, TURBO)
    assert sorted(drawn) == ["AlphaChart"]
    # a price moves nothing any chart draws but the price ratio on the concurrency chart
    drawn.clear()
    priced = other.copy()
    priced.tiers[TURBO].price_out += 1.0
    _redraw(panel, priced, TURBO)
    assert drawn == ["LoadChart"]
    # one class's acceptance moves the selected tier's data in every chart, and the drawing follows it
    drawn.clear()
    edited = priced.copy()
    edited.classes[0].alpha = 0.31
    cmp = _redraw(panel, edited, TURBO)
    assert sorted(drawn) == ["AlphaChart", "ContextChart", "LoadChart", "TrailerChart"]
    fill = panel.trailer_chart.fill_data()[edited.classes[0].name]
    assert fill[1] == pytest.approx(0.31) and fill[0] == pytest.approx(float(cmp.cells.trailer_fill[TURBO, 0]))
    # the same result again draws nothing
    drawn.clear()
    _redraw(panel, edited, TURBO)
    assert drawn == []


def test_a_profile_class_trailer_shows_its_length_and_break_even_mark(panel: ChartsPanel, demo: Workbook) -> None:
    # json as a per-position profile: no one alpha decides its E, so its label gives the length it runs at,
    # and its break-even mark is E* = K c + v as a fill, where alpha* has no number
    j = demo.class_index("json")
    demo.classes[j].profile = (0.9, 0.8, 0.7, 0.6)
    cmp = _redraw(panel, demo, TURBO)
    label = panel.trailer_chart.row_labels()[j]
    assert label.startswith(f"AL {cmp.cells.tokens_per_stretch[TURBO, j]:.2f}*") and "α" not in label
    assert panel.trailer_chart.row_labels()[0].startswith("α 0.80")  # code: an alpha as before
    marks = panel.trailer_chart.break_even_marks()  # first class first
    k = demo.tiers[TURBO].k
    assert marks[j] == pytest.approx(cmp.cells.break_even_length[TURBO, j] - 1.0)  # (E* - 1) / K of K slots
    assert np.isfinite(marks).all() and 0 < marks[j] < k


def test_alpha_chart_says_a_profile_has_no_alpha_and_gives_its_length_against_the_break_even(
        panel: ChartsPanel, demo: Workbook) -> None:
    """A class given as a per-position profile is drawn at a summary alpha; the note says so and gives what
    decides: its mean acceptance length (marked extrapolated past the K measured) against E*."""
    _redraw(panel, demo, TURBO)
    assert "summary α" not in panel.alpha_chart._note.toPlainText()
    demo.set_override(demo.tiers[TURBO].name, "code", 0.73, "imported", "vllm scrape", profile=(0.78, 0.69, 0.61))
    cmp = _redraw(panel, demo, TURBO)
    note = panel.alpha_chart._note.toPlainText()
    e, be = cmp.cells.tokens_per_stretch[TURBO, 0], cmp.cells.break_even_length[TURBO, 0]
    assert f"code AL {e:.2f}* vs E* {be:.2f}" in note and "extrapolated past the K measured" in note
    assert "drawn at a summary α" in note
    # the star's meaning on a line of its own: at the end of the classes' line it was cut at the edge ('(* ex')
    assert "* extrapolated past the K measured;" in note.splitlines()
    item = panel.alpha_chart._note
    width = item.mapRectToScene(item.boundingRect()).width()
    assert width <= panel.alpha_chart.plot.getViewBox().sceneBoundingRect().width() + 1


def test_the_profile_key_leaves_with_the_profile_slots(qtbot, demo: Workbook) -> None:
    """The trailer legend kept its 'profile' entry on a plain tier's note after a tier with a profile."""
    demo.classes[0].profile = (0.9, 0.8, 0.7)
    panel = open_panel(qtbot, demo, TURBO)
    labels = lambda: [label.text for _, label in panel.trailer_chart.legend.items]  # noqa: E731
    assert any(text.startswith("profile") for text in labels())
    _redraw(panel, demo, STANDARD)
    assert not any(text.startswith("profile") for text in labels())


def test_a_tier_nobody_described_has_no_trailers_or_curves(qtbot, demo: Workbook) -> None:
    from model.workbook.row_edits import new_tier
    demo.tiers.append(new_tier("Zephyr Fast"))
    panel = open_panel(qtbot, demo, len(demo.tiers) - 1)
    assert panel.trailer_chart.fill_data() == {}
    assert "no trailers" in panel.trailer_chart._note.toPlainText()
    assert panel.alpha_chart.curve_data("Zephyr Fast") is None
