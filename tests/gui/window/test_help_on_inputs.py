"""F1 on an input cell opens the guide at the section about that field, not at the top."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gui.window.help import ANCHOR_FOR_FIELD, SECTIONS
from model.workbook.validation import CLASS_FIELDS, TIER_FIELDS


def test_every_input_field_has_a_section() -> None:
    anchors = {a for a, _, _ in SECTIONS}
    for spec in TIER_FIELDS + CLASS_FIELDS:
        assert ANCHOR_FOR_FIELD.get(spec.name) in anchors, spec.name


def _scroll_for(window, anchor: str) -> int:  # noqa: ANN001
    window.show_help(anchor)
    return window._help.browser.verticalScrollBar().value()


@pytest.mark.parametrize("table, field, anchor", [
    ("tiers", "price_out", "pricing"), ("tiers", "claimed_speedup", "claim"), ("classes", "context", "context"),
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
