"""The per-tier summary flags a tier whose use of speculative decoding is not confirmed."""
from __future__ import annotations

from PySide6.QtCore import Qt

from gui.tables.summary_model import SUMMARY_COLUMNS


def _verdicts(window) -> dict[str, str]:
    model = window.summary_model
    col = [c[0] for c in SUMMARY_COLUMNS].index("Speed verdict")
    return {model.headerData(r, Qt.Orientation.Vertical): model.data(model.index(r, col)) for r in range(model.rowCount())}


def test_unconfirmed_tier_is_flagged_in_the_summary(window):
    verdicts = _verdicts(window)
    assert verdicts["Helix Fast"].endswith("(unconfirmed)")  # marked "unknown" in the demo
    assert verdicts["Northwind Standard"] == "n/a"
    assert "unconfirmed" not in verdicts["Northwind Turbo"]
    row = [t.name for t in window.document.workbook.tiers].index("Helix Fast")
    window.document.apply("confirm", lambda wb: setattr(wb.tiers[row], "speculative", "yes"))
    window.document.flush()
    assert "unconfirmed" not in _verdicts(window)["Helix Fast"]


def test_a_tier_without_speculative_decoding_uses_no_acceptance(window):
    # before: "Acceptance used" showed the class's 80.0% on Northwind Standard, which drafts nothing
    from gui.tables.result_models import METRICS

    cmp = window.document.comparison
    text = METRICS["alpha"][1]
    assert text(cmp, 0, 0) == "n/a"  # Northwind Standard, speculative = no
    assert text(cmp, 1, 0) == "80.0%"  # Northwind Turbo on code


def test_each_chart_is_laid_out_inside_its_panel(qtbot, window):
    # before: at 1400 px the plot kept a layout wider than its panel (set while the legend still had
    # more columns), so the numbers right of each trailer, speedup last, were cut off at the edge
    for size in ((1400, 900), (1366, 768), (1600, 980)):
        window.resize(*size)
        for i in range(window.charts.tabs.count()):
            window.charts.tabs.setCurrentIndex(i)
            qtbot.wait(20)
            chart = window.charts.tabs.currentWidget()
            assert chart.ci.geometry().width() <= chart.viewport().width() + 0.5, (size, i)


def test_summary_says_when_the_mix_weighs_classes_equally(window):
    assert "weighs the same" not in window.summary_title.text()

    def no_tokens(wb):
        for c in wb.classes:
            c.tokens_out = 0.0

    window.document.apply("no tokens", no_tokens)
    window.document.flush()
    assert "weighs the same" in window.summary_title.text()
    window.document.undo_stack.undo()
    window.document.flush()
    assert "weighs the same" not in window.summary_title.text()
