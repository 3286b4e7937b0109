"""F1 on an input cell opens the guide at the section about that field, not at the top."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gui.window import help
from gui.window.guide_text import anchors, guide_markdown, sections
from gui.window.help import ANCHOR_FOR_FIELD
from model.workbook.validation import CLASS_FIELDS, TIER_FIELDS


def test_every_input_field_has_a_section() -> None:
    names = set(anchors(guide_markdown()))
    for spec in TIER_FIELDS + CLASS_FIELDS:
        assert ANCHOR_FOR_FIELD.get(spec.name) in names, spec.name


def _scroll_for(window, anchor: str) -> int:  # noqa: ANN001
    window.show_help(anchor)
    return window._help.browser.verticalScrollBar().value()


@pytest.mark.parametrize("table, field, anchor", [
    ("tiers", "price_out", help.PRICING), ("tiers", "claimed_speedup", help.CLAIM), ("classes", "context", help.CONTEXT),
])
def test_f1_on_an_input_opens_the_guide_at_that_field(qtbot, window, table, field, anchor) -> None:
    view, model = (window.tier_view, window.tier_model) if table == "tiers" else (window.class_view, window.class_model)
    window.input_tabs.setCurrentWidget(view)
    window.activateWindow()
    view.setCurrentIndex(model.index(1, model.column_of(field)))
    view.setFocus()
    # the view, or its frozen name column (a child view) when the name cell is current
    qtbot.waitUntil(lambda: view.hasFocus() or view.isAncestorOf(QApplication.focusWidget()), timeout=2000)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_F1)
    help_dialog = window._help
    assert help_dialog is not None and help_dialog.isVisible()
    at = help_dialog.browser.verticalScrollBar().value()
    assert at > 0
    assert at == _scroll_for(window, anchor)
    assert _scroll_for(window, "") == 0  # the plain Help menu still opens at the top
    help_dialog.close()


def test_the_guide_explains_undecided_the_fair_price_and_profiles() -> None:
    # the guide's verdict sections named gain/marginal/tax and worth/not worth only, and nothing said what an
    # interval, 'undecided', the fair price or an 'AL 3.58' cell is
    text = sections(guide_markdown())
    assert "undecided" in text[help.VERDICT] and "undecided" in text[help.VALUE]
    certainty = text[help.CERTAINTY]
    assert "Fair price" in certainty and "open at" in certainty and "1.44x (1.31–1.58)" in certainty
    assert "AL 3.58" in text[help.SHAPES] and "E* 1.90" in text[help.SHAPES]
    assert "Unreachable" not in text[help.CLAIM]  # 'out of reach' is the one word for it


@pytest.mark.parametrize("column, anchor", [("Fair price", help.CERTAINTY), ("Value verdict", help.VALUE),
                                            ("Mix speedup", help.MIX)])
def test_f1_on_the_per_tier_summary_opens_that_columns_section(qtbot, window, column, anchor) -> None:
    from gui.tables.summary_model import SUMMARY_COLUMNS

    view = window.summary_view
    window.activateWindow()
    view.setCurrentIndex(window.summary_model.index(1, [c[0] for c in SUMMARY_COLUMNS].index(column)))
    view.setFocus()
    qtbot.waitUntil(view.hasFocus, timeout=2000)
    qtbot.keyClick(view, Qt.Key.Key_F1)
    at = window._help.browser.verticalScrollBar().value()
    assert at == _scroll_for(window, anchor)


@pytest.mark.parametrize("table", ["classes", "overrides"])
def test_f1_on_a_profile_or_length_cell_opens_their_section(qtbot, window, table) -> None:
    # the acceptance cell of a profile or a length has F1 help; QA under Xvfb at 1366x768 found F1 on
    # it opened the plain alpha section, which says nothing of profiles, lengths or the cell's bars
    from model.workbook.rows import Override
    from tests.excel_cases import summarised

    def shapes(wb) -> None:
        wb.classes[wb.class_index("json")].profile = (0.9, 0.8, 0.7)
        prose = wb.classes[wb.class_index("prose")]
        prose.acceptance_length, prose.acceptance_length_k = 2.1, 3
        wb.overrides.append(Override(tier="Northwind Turbo", task_class="code", alpha=0.8, profile=(0.9, 0.6)))
        for row in (wb.classes[wb.class_index("json")], prose, wb.overrides[-1]):
            summarised(row)

    window.document.apply("shapes", shapes)
    window.document.flush()
    wb = window.document.workbook
    if table == "classes":
        view, model = window.class_view, window.class_model
        cells = [model.index(wb.class_index(n), model.column_of("alpha")) for n in ("json", "prose", "code")]
    else:
        view, model = window.override_view, window.override_model
        turbo = wb.tier_index("Northwind Turbo")
        cells = [model.index(turbo, wb.class_index("code")), model.index(turbo, wb.class_index("json"))]
    window.input_tabs.setCurrentWidget(view)
    window.activateWindow()
    expected = [help.SHAPES, help.SHAPES, help.ALPHA] if table == "classes" else [help.SHAPES, help.ALPHA]
    assert _scroll_for(window, help.SHAPES) != _scroll_for(window, help.ALPHA)
    window._help.close()
    for index, anchor in zip(cells, expected):
        view.setCurrentIndex(index)
        view.setFocus()
        qtbot.waitUntil(lambda: view.hasFocus() or view.isAncestorOf(QApplication.focusWidget()), timeout=2000)
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_F1)
        assert window._help.browser.verticalScrollBar().value() == _scroll_for(window, anchor), (index.row(), anchor)
        window._help.close()
