"""The report's Grid sheet: the tier x class speedup grid, shaded gain / marginal / tax as the app shades it.

Cells are formulas over the Comparison sheet's speedups; the shading is conditional formatting on the
Comparison's speed verdict of the same tier and class (a live formula over the band, the speculative flag and
the interval's ends), so the grid says undecided where the window and the Comparison do, and an edit in Excel
re-shades it. (It shaded the speedup alone: 1.05x (0.94-1.17) was marginal yellow beside the window's violet.)
"""
from __future__ import annotations

import math

from model.comparison import Comparison
from model.report import styles as st
from model.report.comparison_sheet import letter
from model.report.inputs_sheet import InputRefs
from model.report.layout import COMPARISON
from model.comparison.verdicts import TOO_FEW_LABEL
from model.workbook.rows import Workbook

HEADER_ROW = 4
FIRST_CLASS_COL = 3


def write_grid(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs, cmp_rows: dict[int, int]) -> None:
    n_t, n_c = len(wb.tiers), len(wb.classes)
    sheet.text(1, 1, "Speedup of every tier on every task class", st.TITLE)
    # two lines: one long line widened the printed page and shrank the grid to half its size
    sheet.text(2, 1, "Green: gain; yellow: marginal (below 1 + the marginal band); red: tax (slower than plain "
               "decoding); violet: undecided (the interval reaches across a line: measure more).", st.NOTE)
    sheet.text(3, 1, "Sand: too few requests for an interval; unshaded: not speculative, or no verdict (the Comparison "
               "says why). Colours: the Comparison's speed verdict.", st.NOTE)
    sheet.text(HEADER_ROW, 1, "Tier", st.LABEL, {"text_wrap": True, "valign": "bottom"})
    sheet.text(HEADER_ROW, 2, "Speculative", st.LABEL, {"text_wrap": True, "valign": "bottom", "align": "center"})
    header_look = (st.LABEL, {"text_wrap": True, "valign": "bottom", "align": "right"})
    for j, cls in enumerate(wb.classes):
        sheet.formula(HEADER_ROW, FIRST_CLASS_COL + j, f'={refs.cls(j, "name")}&""', cls.name, None, *header_look)
    speed = letter("Speedup")
    for i, tier in enumerate(wb.tiers):
        row = HEADER_ROW + 1 + i
        sheet.formula(row, 1, f'={refs.tier(i, "name")}&""', tier.name)
        sheet.formula(row, 2, f'={refs.tier(i, "speculative")}&""', tier.speculative, None, st.CENTRE)
        for j in range(n_c):
            # a made-up tier's Comparison rows read a dash (compare() models no speed from mechanics nobody gave)
            sheet.formula(row, FIRST_CLASS_COL + j, f"={COMPARISON}!${speed}${cmp_rows[i] + j}",
                          "–" if cmp.made_up(i) or cmp.cell_not_given(i, j) else float(cmp.cells.speedup[i, j]), st.TIMES)
    if n_t and n_c:
        for cells, verdict in _verdict_refs(n_t, n_c, cmp_rows):
            # first: a verdict on too few requests ('gain (too few requests)') is sand whatever its word, as in the app
            tests = [("too few", f'ISNUMBER(SEARCH("({TOO_FEW_LABEL})",{verdict}))')]
            tests += [(look, f'{verdict}="{look}"') for look in ("undecided", "tax", "marginal", "gain")]
            for look, test in tests:
                sheet.ws.conditional_format(cells, {"type": "formula", "criteria": f"={test}",
                                                    "format": sheet.formats.get(None, st.VERDICT_LOOKS[look])})
    sheet.ws.freeze_panes(HEADER_ROW, 1)
    sheet.ws.set_row(HEADER_ROW - 1, 45)
    # a class's header wraps at spaces but must not break inside a word ('summarisati/on' at 10 wide)
    sheet.widths({1: 22, 2: 11, **{FIRST_CLASS_COL + j: class_width(c.name) for j, c in enumerate(wb.classes)}})


def _verdict_refs(n_t: int, n_c: int, cmp_rows: dict[int, int]) -> list[tuple[str, str]]:
    """(grid cells, the Comparison's speed verdict for the top-left one, relative) per block of the grid: the
    Comparison holds a tier's classes down its rows, the grid across, so the row is computed from the cell's
    own row and column; one block where the tiers' rows follow each other (as written), else one per tier."""
    verdict_col = f"{COMPARISON}!${letter('Speed verdict')}:${letter('Speed verdict')}"
    first_row = HEADER_ROW + 1
    if all(cmp_rows[i] == cmp_rows[0] + i * n_c for i in range(n_t)):
        blocks = [(first_row, n_t, cmp_rows[0])]
    else:
        blocks = [(first_row + i, 1, cmp_rows[i]) for i in range(n_t)]
    out = []
    for top, rows, cmp_top in blocks:
        first = st.cell_name(top, FIRST_CLASS_COL)
        cells = f"{first}:{st.cell_name(top + rows - 1, FIRST_CLASS_COL + n_c - 1)}"
        out.append((cells, f"INDEX({verdict_col},{cmp_top}+(ROW({first})-{top})*{n_c}+COLUMN({first})-{FIRST_CLASS_COL})"))
    return out


def class_width(name: str) -> float:
    """10 wide, or as wide as the name's longest word needs in the bold header (up to 20)."""
    longest = max((len(word) for word in name.split()), default=0)
    return float(max(10, min(20, math.ceil(longest / 1.15) + 1)))
