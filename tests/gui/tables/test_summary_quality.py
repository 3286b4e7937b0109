"""The window's per-tier summary shows a tier's quality beside its verdicts: the verdict in its own column, red when
lossy or worse on checked tasks, the sentence as its tooltip; undo takes it back."""
from __future__ import annotations

from PySide6.QtCore import Qt

from tests.gui.tables.test_summary_terms import _cell

SENTENCE = "lenient sampling found at temperature 0.8 (p < 0.001): outputs differ from the standard tier's model"


def test_a_lossy_tier_says_so_beside_its_verdicts(window):
    i = window.document.workbook.tier_index("Orbital Rapid")
    assert _cell(window, i, "Quality") == ""

    def lossy(wb) -> None:
        wb.tiers[i].quality_verdict, wb.tiers[i].quality_note = "lossy", SENTENCE

    window.document.apply("quality", lossy)
    window.document.flush()
    assert _cell(window, i, "Quality") == "lossy"
    assert _cell(window, i, "Quality", Qt.ItemDataRole.ToolTipRole) == f"Quality: {SENTENCE}."
    assert _cell(window, i, "Quality", Qt.ItemDataRole.ForegroundRole) is not None  # red
    assert _cell(window, i, "Speed verdict") and _cell(window, i, "Value verdict")  # the verdicts stand beside it
    window.document.undo_stack.undo()
    window.document.flush()
    assert _cell(window, i, "Quality") == ""
