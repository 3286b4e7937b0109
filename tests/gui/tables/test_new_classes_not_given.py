"""Task classes added by Add row or a paste take only what was typed: their acceptance, context and tokens read "not
given", their cells have no speedup or verdict (the grid says why), and no tier has a mix, verdict, fair price or
brief recommendation until the class is filled in. Duplicate rows still copies a class; the add is one undo step."""
from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from model.comparison import NOT_APPLICABLE, compare
from model.comparison.brief import TAKE, brief
from model.workbook.rows import NOT_GIVEN_ON_NEW_CLASS

FAST = "Northwind Turbo"


def _add_class_below_the_last(window) -> int:
    view, doc = window.class_view, window.document
    window.input_tabs.setCurrentWidget(view)
    last = len(doc.workbook.classes) - 1
    view.select_block(last, 0, last, 0)
    window.add_row()
    doc.flush()
    return last + 1


def _summary_text(window, i: int, header: str, role=Qt.ItemDataRole.DisplayRole) -> str:
    from gui.tables.summary_model import SUMMARY_COLUMNS

    col = [h for h, _, _ in SUMMARY_COLUMNS].index(header)
    return window.summary_model.index(i, col).data(role)


def test_an_added_class_gives_no_speed_verdict_or_price(qtbot, window):
    doc = window.document
    before = doc.undo_stack.count()
    j = _add_class_below_the_last(window)
    assert doc.undo_stack.count() == before + 1  # one step
    new = doc.workbook.classes[j]
    assert new.defaulted_fields() == list(NOT_GIVEN_ON_NEW_CLASS)
    model = window.class_model
    for field in ("alpha", "alpha_source", "context", "tokens_out", "tokens_in"):
        assert model.index(j, model.column_of(field)).data() == "not given", field
    cmp, i = doc.comparison, doc.workbook.tier_index(FAST)
    # the old rule copied the row above's alpha ('assumed') and every tier kept a mix and verdicts from it
    assert math.isnan(cmp.cells.speedup[i, j]) and cmp.cells.verdict[i, j] == NOT_APPLICABLE
    cell = window.results_model.index(i, j)
    assert cell.data() == "acceptance and context not given"
    assert "no speedup and no verdict" in cell.data(Qt.ItemDataRole.ToolTipRole)
    for t in range(len(cmp.tier_names)):
        if cmp.tiers.speculative[t]:
            assert math.isnan(cmp.tiers.mix_speedup[t]) and math.isnan(cmp.fair.factor[t])
            assert cmp.tiers.verdict[t] == NOT_APPLICABLE and cmp.tiers.value_verdict[t] == NOT_APPLICABLE
    assert _summary_text(window, i, "Speed verdict") == "class not given"
    assert _summary_text(window, i, "Mix speedup") == "–" and _summary_text(window, i, "Fair price") == ""
    assert "'New class': acceptance, context and tokens not given" in _summary_text(
        window, i, "Speed verdict", Qt.ItemDataRole.ToolTipRole)
    assert "not given" in window.legend.text()
    plain = doc.workbook.tier_index("Northwind Standard")  # no bill on any tier while the class's tokens are not given
    assert _summary_text(window, plain, "Monthly cost") == "–"
    assert "tokens are not given (New class)" in _summary_text(window, plain, "Monthly cost", Qt.ItemDataRole.ToolTipRole)
    # the acceptance grid's blank cell shows the class's alpha in use: none
    assert window.override_model.index(i, j).data() == "(not given)"
    assert not any(b.recommendation.startswith(TAKE) for b in brief(doc.workbook, cmp))
    # the other classes' cells keep their numbers
    assert all(math.isfinite(x) for x in cmp.cells.speedup[i, :j])
    doc.undo_stack.undo()
    doc.flush()
    assert len(doc.workbook.classes) == j and math.isfinite(doc.comparison.tiers.mix_speedup[i])


def test_typing_the_class_brings_the_verdicts_back(qtbot, window):
    doc, model = window.document, window.class_model
    j = _add_class_below_the_last(window)
    for field, text in (("alpha", "70%"), ("context", "8192"), ("tokens_out", "1000000")):
        assert model.setData(model.index(j, model.column_of(field)), text)
        doc.flush()
        assert math.isnan(doc.comparison.tiers.mix_speedup[doc.workbook.tier_index(FAST)]), field  # not yet: tokens in
    assert model.setData(model.index(j, model.column_of("tokens_in")), "0")
    doc.flush()
    assert doc.workbook.classes[j].defaulted == ""
    cmp, i = doc.comparison, doc.workbook.tier_index(FAST)
    assert math.isfinite(cmp.cells.speedup[i, j]) and math.isfinite(cmp.tiers.mix_speedup[i])
    assert cmp.tiers.mix_speedup[i] == compare(doc.workbook).tiers.mix_speedup[i]


def test_pasted_classes_take_only_the_pasted_cells(qtbot, window):
    doc, view = window.document, window.class_view
    window.input_tabs.setCurrentWidget(view)
    n = len(doc.workbook.classes)
    assert window.class_model.column_of("tokens_out") == 1
    # two rows of name and output tokens pasted at the last class: it takes the first, a new row the second
    view.select_block(n - 1, 0, n - 1, 0)
    QGuiApplication.clipboard().setText("legal\t5000000\r\nmedical\t7000000\r\n")
    assert view.paste()
    doc.flush()
    legal, medical = doc.workbook.classes[n - 1:]
    assert (legal.name, legal.defaulted, medical.name) == ("legal", "", "medical")
    assert medical.tokens_out == 7e6 and medical.defaulted_fields() == ["alpha", "context", "tokens_in"]
    i = doc.workbook.tier_index(FAST)
    assert window.results_model.index(i, n).data() == "acceptance and context not given"
    assert "'medical': acceptance, context and tokens not given" in doc.comparison.mix_waits(i)


def test_duplicate_rows_still_copies_a_class(qtbot, window):
    doc, view = window.document, window.class_view
    window.input_tabs.setCurrentWidget(view)
    view.select_block(1, 0, 1, 0)
    window.duplicate_rows()
    doc.flush()
    src, copy = doc.workbook.classes[1], doc.workbook.classes[2]
    assert copy.name == f"{src.name} (copy)" and (copy.alpha, copy.context, copy.tokens_out) == (
        src.alpha, src.context, src.tokens_out)
    assert copy.defaulted == "" and math.isfinite(doc.comparison.tiers.mix_speedup[doc.workbook.tier_index(FAST)])


def test_a_class_pasted_whole_is_given_whole(qtbot, window):
    """A pasted row with every column (name, tokens, context, alpha) is a class described in full: its cells and
    every tier's mix come back at once."""
    doc, view, model = window.document, window.class_view, window.class_model
    window.input_tabs.setCurrentWidget(view)
    order = [model.column_of(f) for f in ("name", "tokens_out", "tokens_in", "context", "alpha")]
    assert order == list(range(5))
    n = len(doc.workbook.classes)
    j = _add_class_below_the_last(window)
    view.select_block(j, 0, j, 0)
    QGuiApplication.clipboard().setText("legal\t5000000\t1000000\t8192\t70%\r\n")
    assert view.paste()
    doc.flush()
    legal = doc.workbook.classes[n]
    assert (legal.name, legal.defaulted, legal.alpha, legal.context) == ("legal", "", 0.7, 8192)
    i = doc.workbook.tier_index(FAST)
    assert math.isfinite(doc.comparison.cells.speedup[i, n]) and math.isfinite(doc.comparison.tiers.mix_speedup[i])
