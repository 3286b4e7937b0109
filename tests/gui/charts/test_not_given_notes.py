"""A tier whose mechanics nobody gave (Tier.defaulted: added by Add row or a paste, a price list's missing columns)
may well run speculative decoding: the vs-alpha, vs-context and per-position charts say its mechanics are not
given, and that a probed one is judged on its measured speed, never "does not run speculative decoding"."""
from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from gui.charts.panel import ChartsPanel  # noqa: E402
from model.common import formatting as fmt  # noqa: E402
from model.comparison import compare  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from model.workbook.row_edits import new_tier  # noqa: E402
from model.workbook.rows import Tier, Workbook  # noqa: E402


def _panel(qtbot, wb: Workbook, row: int) -> ChartsPanel:
    panel = ChartsPanel()
    qtbot.addWidget(panel)
    panel.resize(520, 460)
    panel.show()
    panel.show_result(wb, compare(wb), row)
    panel.flush()
    return panel


def _notes(qtbot, wb: Workbook, row: int) -> dict[str, str]:
    panel = _panel(qtbot, wb, row)
    charts = {"alpha": panel.alpha_chart, "context": panel.context_chart, "positions": panel.position_chart}
    return {name: chart._note.toPlainText() if chart._note.isVisible() else "" for name, chart in charts.items()}


def _say_not_given(notes: dict[str, str], tier: str, why: str) -> None:
    for chart, text in notes.items():
        assert "does not run speculative decoding" not in text, chart
        assert "1.00x" not in text, chart
        assert f"{tier}: mechanics not given ({why})" in text.replace("\n", " "), (chart, text)


def test_a_tier_added_by_add_row_reads_mechanics_not_given(qtbot) -> None:
    wb = load_demo()
    wb.tiers.append(new_tier("Zephyr Fast"))
    notes = _notes(qtbot, wb, len(wb.tiers) - 1)
    _say_not_given(notes, "Zephyr Fast", "speculative unknown")
    assert not any("measured speed" in text for text in notes.values())  # nothing measured on it


def test_a_tier_whose_file_said_not_speculative_but_made_it_up_reads_not_given(qtbot) -> None:
    # speculative "no" is itself made up here (listed in defaulted): the tier is incomplete, not plain
    wb = load_demo()
    wb.tiers.append(Tier(name="Preset Fast", speculative="no", defaulted="speculative, k, c, v"))
    _say_not_given(_notes(qtbot, wb, len(wb.tiers) - 1), "Preset Fast", "speculative unknown")


def test_a_probed_tier_without_mechanics_is_judged_on_its_measured_speed(qtbot) -> None:
    wb = load_demo()
    base = next(t.name for t in wb.tiers if t.speculative == "no")
    wb.tiers.append(Tier(name="Closed Fast", speculative="unknown", defaulted="speculative, k, c, v",
                         baseline=base, measured_speedup=2.2, measured_speedup_low=2.0, measured_speedup_high=2.4,
                         measured_speedup_confidence=0.95))
    i = len(wb.tiers) - 1
    assert compare(wb).judged_on_measured(i)
    notes = _notes(qtbot, wb, i)
    _say_not_given(notes, "Closed Fast", "speculative unknown")
    for chart, text in notes.items():
        assert f"judged on its measured speed ({fmt.times(2.2)})" in text, (chart, text)


def test_a_plain_tier_still_says_it_does_not_run_speculative_decoding(qtbot) -> None:
    wb = load_demo()
    plain = next(i for i, t in enumerate(wb.tiers) if t.speculative == "no" and not t.defaulted)
    notes = _notes(qtbot, wb, plain)
    assert "does not run speculative decoding" in notes["alpha"]
    assert "does not run speculative decoding" in notes["context"]


def test_a_class_added_by_add_row_is_said_and_not_drawn(qtbot) -> None:
    """A task class nobody filled in (TaskClass.defaulted) has no point on the charts: the vs-alpha and vs-context
    charts name it, the trailer says so instead of 'α nan', the per-position chart draws no rates from its
    placeholder alpha, and the load chart draws no roofline mix."""
    from tests.excel_cases import class_not_given

    wb = class_not_given()
    tier = wb.tier_index("Northwind Turbo")
    panel = _panel(qtbot, wb, tier)
    said = "New class: acceptance and context not given, so not drawn"
    for chart in (panel.alpha_chart, panel.context_chart):
        assert said in chart._note.toPlainText().replace("\n", " "), chart
    assert panel.trailer_chart._numbers[-1] == "acceptance and context not given"
    panel.position_chart.class_row = len(wb.classes) - 1
    panel.show_result(wb, compare(wb), tier)
    panel.flush()
    assert panel.position_chart.shown() is None
    assert "New class: acceptance and context not given" in panel.position_chart._note.toPlainText()
