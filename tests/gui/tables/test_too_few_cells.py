"""The results grid and the per-tier summary on classes measured from too few requests for an interval: their cells
have a colour and a legend entry of their own, their verdicts say so, and the tooltip says why, for an alpha and
for a mean acceptance length."""
from __future__ import annotations

from PySide6.QtCore import Qt

from gui.tables.result_models import TOO_FEW_COLOUR, VALUE_COLOURS, VERDICT_COLOURS
from gui.tables.summary_model import SUMMARY_COLUMNS
from model.comparison import GAIN, WORTH
from model.comparison.verdicts import TOO_FEW_LABEL
from tests.excel_cases import too_few
from tests.gui.tables.test_verdict_display import _cell, _choose


def test_cells_on_too_few_requests_are_labelled_and_coloured_apart(window):
    window.document.replace(too_few(), None)
    window.document.flush()
    background = Qt.ItemDataRole.BackgroundRole
    assert TOO_FEW_LABEL in window.legend.text()
    for cls in ("code", "json"):  # an alpha and a length
        assert _cell(window, "Northwind Turbo", cls, background).color() == TOO_FEW_COLOUR, cls
    # a well-measured or assumed class keeps its verdict's colour
    assert _cell(window, "Northwind Turbo", "extraction", background).color() == VERDICT_COLOURS[GAIN]

    tip = _cell(window, "Northwind Turbo", "json", Qt.ItemDataRole.ToolTipRole)
    assert "no interval (too few requests for an interval)" in tip  # the length's E line says why it has none
    assert f"Speed verdict: gain ({TOO_FEW_LABEL})" in tip and "fewer than 5 distinct prompts" in tip
    assert "no interval (too few requests for an interval)" in _cell(window, "Northwind Turbo", "code",
                                                                     Qt.ItemDataRole.ToolTipRole)

    _choose(window, "speed_verdict")
    assert _cell(window, "Northwind Turbo", "json") == f"gain ({TOO_FEW_LABEL})"
    _choose(window, "value_verdict")
    assert _cell(window, "Northwind Turbo", "code") == f"worth the premium ({TOO_FEW_LABEL})"
    assert _cell(window, "Northwind Turbo", "code", background).color() == TOO_FEW_COLOUR
    assert _cell(window, "Northwind Turbo", "extraction", background).color() == VALUE_COLOURS[WORTH]
    assert TOO_FEW_LABEL in window.legend.text()

    model, heads = window.summary_model, [c[0] for c in SUMMARY_COLUMNS]
    row = window.document.comparison.tier_names.index("Northwind Turbo")
    tip = model.data(model.index(row, heads.index("Value verdict")), Qt.ItemDataRole.ToolTipRole)
    assert f"code, json: {TOO_FEW_LABEL}" in tip
