"""Intervals in the window: speedups with their interval, undecided cells in their own colour and legend entry,
the fair price in the per-tier summary."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument

from gui.tables.result_models import UNDECIDED_COLOUR, VERDICT_COLOURS

from gui.tables.summary_model import SUMMARY_COLUMNS
from model.comparison import GAIN, UNDECIDED


def _ranges(wb) -> None:
    for c in wb.classes:
        c.alpha_low, c.alpha_high = c.alpha - 0.08, min(1.0, c.alpha + 0.06)


def test_undecided_cells_have_their_own_colour_and_legend(window):
    window.metric_combo.setCurrentIndex(window.metric_combo.findData("speed_verdict"))
    assert "undecided" in window.legend.text()
    window.document.apply("ranges", _ranges)
    window.document.flush()
    cmp, model = window.document.comparison, window.results_model
    i, j = cmp.tier_names.index("Northwind Turbo"), cmp.class_names.index("prose")
    # prose runs at 1.05x (0.91-1.17): its interval reaches below 1
    assert cmp.cells.verdict[i, j] == UNDECIDED
    assert model.data(model.index(i, j)) == "undecided"
    assert model.data(model.index(i, j), Qt.ItemDataRole.BackgroundRole).color() == UNDECIDED_COLOUR
    assert UNDECIDED_COLOUR not in [VERDICT_COLOURS[k] for k in VERDICT_COLOURS if k != UNDECIDED]
    code = cmp.class_names.index("code")
    assert cmp.cells.verdict[i, code] == GAIN
    window.metric_combo.setCurrentIndex(window.metric_combo.findData("speedup"))
    assert model.data(model.index(i, j)) == "1.05x (0.91–1.17)"
    assert "95% interval 42.0% to 56.0%" in model.data(model.index(i, j), Qt.ItemDataRole.ToolTipRole)


def test_the_summary_shows_mix_intervals_and_the_fair_price(window):
    heads = [c[0] for c in SUMMARY_COLUMNS]
    model = window.summary_model
    cmp = window.document.comparison
    i = cmp.tier_names.index("Northwind Turbo")
    assert model.data(model.index(i, heads.index("Fair price"))) == "1.05x"
    window.document.apply("ranges", _ranges)
    window.document.flush()
    cmp = window.document.comparison
    assert model.data(model.index(i, heads.index("Mix speedup"))) == "1.44x (1.34–1.52)"
    assert model.data(model.index(i, heads.index("Fair price"))) == "1.05x (open at 0.97x)"
    tip = model.data(model.index(i, heads.index("Fair price")), Qt.ItemDataRole.ToolTipRole)
    assert "$20.93 out" in tip and "pessimistic end" in tip
    assert model.data(model.index(i, heads.index("Value verdict"))) == "undecided"


def test_the_legend_shows_every_entry_beside_a_dock(window, qtbot):
    """Beside the probe dock at 1600 x 1000 the legend was cut ('not speculativ', the value scheme's last entry
    half gone): it now wraps between entries onto a second line, each entry whole."""
    window.resize(1100, 900)  # the results' share of a 1600-wide screen with the probe dock open
    for key in ("speedup", "value_verdict"):
        window.metric_combo.setCurrentIndex(window.metric_combo.findData(key))
        qtbot.waitUntil(lambda: window.legend.height() >= window.legend.heightForWidth(window.legend.width()) > 0,
                        timeout=3000)
        one_line = QTextDocument()
        one_line.setHtml(window.legend.text())
        assert window.legend.width() < one_line.idealWidth()  # too narrow for one line: it wrapped, all shown
        lines = _shown_lines(window.legend)
        assert len(lines) == 2 and any(line.endswith("not speculative") for line in lines)  # never inside an entry


def _shown_lines(label) -> list[str]:
    """The lines a word-wrapped rich-text label lays its text out in, at its width."""
    doc = QTextDocument()
    doc.setHtml(label.text())
    doc.setDefaultFont(label.font())
    doc.setTextWidth(label.contentsRect().width())
    doc.size()  # lays it out
    block, out = doc.firstBlock(), []
    layout = block.layout()
    for n in range(layout.lineCount()):
        line = layout.lineAt(n)
        out.append(block.text()[line.textStart():line.textStart() + line.textLength()].replace("\xa0", " ").strip())
    return out
