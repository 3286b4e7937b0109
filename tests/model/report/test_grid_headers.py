"""The Grid sheet's class headers wrap at spaces, never inside a word: at 10 wide the demo's 'summarisation'
printed as 'summarisati' over 'on' (LibreOffice's PDF of the demo report, page 6)."""
from __future__ import annotations

from pathlib import Path

import pytest

openpyxl = pytest.importorskip("openpyxl")

from model.report.export import export_report  # noqa: E402
from model.report.grid_sheet import FIRST_CLASS_COL, HEADER_ROW  # noqa: E402
from model.report.layout import GRID  # noqa: E402
from model.report.styles import wrapped_lines  # noqa: E402
from tests.excel_cases import demo  # noqa: E402


def test_grid_class_headers_break_at_spaces_only(tmp_path: Path) -> None:
    wb = demo()
    wb.classes[1].name = "structured extraction"  # two words: may wrap, each on a line of its own
    path = tmp_path / "demo.xlsx"
    export_report(wb, path)
    ws = openpyxl.load_workbook(path)[GRID]
    for j, cls in enumerate(wb.classes):
        col = openpyxl.utils.get_column_letter(FIRST_CLASS_COL + j)
        assert ws.cell(HEADER_ROW, FIRST_CLASS_COL + j).value.startswith("=Inputs!")  # the class's name, live
        # Calibri Bold runs about 1.15 characters a width unit (wrapped_lines assumes 1.25 for regular text)
        width = ws.column_dimensions[col].width * 1.15 / 1.25
        assert all(wrapped_lines(word, width) == 1 for word in cls.name.split()), (cls.name, width)
        assert ws.column_dimensions[col].width <= 20


def test_context_blocks_class_headers_break_at_spaces_only(tmp_path: Path) -> None:
    """The Curves sheet's context blocks head a column per class, 12 wide: 'summarisation' ran into 'extraction'
    beside it ('extraction summarisation' read as one header, LibreOffice's PDF of the demo, page 16)."""
    from model.report.context_sheet import FIRST_CLASS_COL as CONTEXT_FIRST
    from model.report.layout import CURVES
    wb = demo()
    path = tmp_path / "demo.xlsx"
    export_report(wb, path)
    ws = openpyxl.load_workbook(path)[CURVES]
    widths = {c: dim.width for dim in ws.column_dimensions.values() if dim.min for c in range(dim.min, dim.max + 1)}
    heads = [c for row in ws.iter_rows(min_col=CONTEXT_FIRST, max_col=CONTEXT_FIRST) for c in row
             if isinstance(c.value, str) and c.value.startswith("=") and c.font.b]
    assert heads, "no context block found"
    for j, cls in enumerate(wb.classes):  # a bold word in a header as long as the column is wide (12 was not)
        assert all(len(word) <= widths[CONTEXT_FIRST + j] for word in cls.name.split()), cls.name


def _rule_row(formula: str, row: int, col: int) -> int:
    """The Comparison row a grid rule's INDEX reads for the cell at (row, col): its arithmetic with the cell put in."""
    import re
    start = formula.index("INDEX(") + len("INDEX(")
    depth, end = 1, start
    while depth:  # to the INDEX's own closing bracket
        depth += {"(": 1, ")": -1}.get(formula[end], 0)
        end += 1
    inner = formula[start:end - 1].split(",", 1)[1]
    inner = re.sub(r"ROW\([A-Z]+\d+\)", str(row), inner)
    inner = re.sub(r"COLUMN\([A-Z]+\d+\)", str(col), inner)
    return int(eval(inner, {"__builtins__": {}}))  # digits and + - * ( ) only


def test_grid_shades_each_cell_by_the_comparisons_speed_verdict(tmp_path: Path) -> None:
    """The grid said 'marginal' (yellow) for a speedup whose interval makes it undecided, where the window's
    grid and the Comparison's verdict say undecided (violet): the shading now reads the Comparison's verdict,
    whose formula decides undecided from the interval's ends, so all three agree and follow an edit."""
    from model.comparison import UNDECIDED, compare
    from model.report.comparison_sheet import HEADER_ROW as CMP_HEADER, letter
    from model.report.layout import COMPARISON
    from model.report.styles import VERDICT_LOOKS
    from tests.excel_cases import ranged

    wb = ranged()
    assert (compare(wb).cells.verdict == UNDECIDED).any()
    path = tmp_path / "ranged.xlsx"
    export_report(wb, path)
    grid = openpyxl.load_workbook(path)[GRID]
    rules = [(str(rng.sqref), r) for rng in grid.conditional_formatting for r in rng.rules]
    looks = {r.formula[0].rsplit('="', 1)[1].rstrip('"'): r.dxf.fill.bgColor.rgb[-6:].upper() for _, r in rules
             if "SEARCH" not in r.formula[0]}
    assert looks == {look: VERDICT_LOOKS[look]["bg_color"][1:] for look in ("gain", "marginal", "tax", "undecided")}
    # a verdict on too few requests reads 'gain (too few requests)': sand, whatever its word, as in the window
    [few] = {r.formula[0]: r for _, r in rules if "SEARCH" in r.formula[0]}.values()
    assert few.formula[0].startswith('ISNUMBER(SEARCH("(too few requests)",INDEX(')
    assert few.dxf.fill.bgColor.rgb[-6:].upper() == VERDICT_LOOKS["too few"]["bg_color"][1:]
    column = f"{COMPARISON}!${letter('Speed verdict')}:${letter('Speed verdict')}"
    assert all(f"INDEX({column}," in r.formula[0] for _, r in rules)
    n_c = len(wb.classes)
    for i in range(len(wb.tiers)):
        for j in range(n_c):
            row, col = HEADER_ROW + 1 + i, FIRST_CLASS_COL + j
            cell = openpyxl.utils.get_column_letter(col) + str(row)
            mine = [r for sqref, r in rules if cell in openpyxl.worksheet.cell_range.MultiCellRange(sqref)]
            assert len(mine) == 5
            assert {_rule_row(r.formula[0], row, col) for r in mine} == {CMP_HEADER + 1 + i * n_c + j}
