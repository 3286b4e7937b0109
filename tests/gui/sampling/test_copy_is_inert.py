"""The Measure panel's Copy puts class names on the clipboard as text, never as live formulas, one
cell each: neutralised as the main tables' Copy does, and quoted where a name holds a tab or newline."""
from __future__ import annotations

from gui.sampling.results import SamplingResultsModel
from gui.tables.spreadsheet_view import parse_tsv
from model.common.formatting import spreadsheet_safe_text
from tests.gui.sampling.test_speed_spread_shown import _result

PAYLOADS = ["=HYPERLINK(\"http://x.example\",\"y\")", "=1+1", "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)",
            "\t=1+1", "\r=1+1", "=cmd|'/c calc'!A1", "+1+1", "-A1", "@A1", "a\tb", "a\nb", "c\r\nd"]


def test_copy_neutralises_formulas_and_keeps_one_cell_per_name(qtbot) -> None:
    model = SamplingResultsModel()
    model.set_results([_result(task_class=name) for name in PAYLOADS])
    rows = parse_tsv(model.as_tsv())
    assert len(rows) == 1 + len(PAYLOADS)
    for name, row in zip(PAYLOADS, rows[1:]):
        assert len(row) == model.columnCount(), (name, row)
        cell = row[0]
        assert cell == spreadsheet_safe_text(name), (name, cell)
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), (name, cell)
