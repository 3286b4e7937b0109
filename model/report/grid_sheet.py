"""The report's Grid sheet: the tier x class speedup grid, shaded gain / marginal / tax as the app shades it.

Cells are formulas over the Comparison sheet's speedups; the shading is
conditional formatting over the tier's speculative flag and the marginal band on
Inputs, so an edit in Excel re-shades the grid.
"""
from __future__ import annotations

import math

from model.comparison import Comparison
from model.report import styles as st
from model.report.comparison_sheet import letter
from model.report.inputs_sheet import InputRefs
from model.report.layout import COMPARISON
from model.workbook.rows import Workbook

HEADER_ROW = 4
FIRST_CLASS_COL = 3


def write_grid(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs, cmp_rows: dict[int, int]) -> None:
    n_t, n_c = len(wb.tiers), len(wb.classes)
    sheet.text(1, 1, "Speedup of every tier on every task class", st.TITLE)
    sheet.text(2, 1, "Green: gain; yellow: marginal (below 1 + the marginal band); red: tax (slower than plain "
               "decoding); unshaded: the tier does not run speculative decoding.", st.NOTE)
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
            sheet.formula(row, FIRST_CLASS_COL + j, f"={COMPARISON}!${speed}${cmp_rows[i] + j}",
                          float(cmp.speedup[i, j]), st.TIMES)
    if n_t and n_c:
        first = st.cell_name(HEADER_ROW + 1, FIRST_CLASS_COL)
        cells = f"{first}:{st.cell_name(HEADER_ROW + n_t, FIRST_CLASS_COL + n_c - 1)}"
        spec = f"$B{HEADER_ROW + 1}"
        band = refs.setting("marginal_band")
        for look, test in (("tax", f"{first}<1"), ("marginal", f"AND({first}>=1,{first}<1+{band})"),
                           ("gain", f"{first}>=1+{band}")):
            sheet.ws.conditional_format(cells, {"type": "formula", "criteria": f'=AND({spec}<>"no",{test})',
                                                "format": sheet.formats.get(None, st.VERDICT_LOOKS[look])})
    sheet.ws.freeze_panes(HEADER_ROW, 1)
    sheet.ws.set_row(HEADER_ROW - 1, 45)
    # a class's header wraps at spaces but must not break inside a word ('summarisati/on' at 10 wide)
    sheet.widths({1: 22, 2: 11, **{FIRST_CLASS_COL + j: class_width(c.name) for j, c in enumerate(wb.classes)}})


def class_width(name: str) -> float:
    """10 wide, or as wide as the name's longest word needs in the bold header (up to 20)."""
    longest = max((len(word) for word in name.split()), default=0)
    return float(max(10, min(20, math.ceil(longest / 1.15) + 1)))
