"""The report's Brief sheet, first: per fast tier in plain words, one printed page (model/brief.py words it).

Words, not formulas: the brief says what the comparison said at export. The sheets after it hold the live
numbers; an analyst who edits Inputs exports again for a new brief (the sheet says so).
"""
from __future__ import annotations

from model.brief import brief
from model.comparison import Comparison
from model.report import styles as st
from model.workbook.rows import Workbook

_LABEL_WIDTH, _TEXT_WIDTH = 20, 110
_LOOKS = {**st.VERDICT_LOOKS, "undecided": {"bg_color": "#E4DAF4", "font_color": "#4B2C83"}}
_ROWS = (("Why", "why"), ("Speed", "speed"), ("Cost", "cost"), ("Ask the vendor for", "ask"))


# an A4 landscape page less margins, header and footer, in points: what fits at 100%
_PAGE_POINTS = 470


def write_brief(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, exported: str) -> bool:
    """Writes the sheet; True when it fits one printed page at a readable scale (else it runs on, one page wide)."""
    sheet.text(1, 1, f"Brief: {wb.title or 'the fast tiers'}, in a minute", st.TITLE)
    note = (f"Exported {exported}; prices in {cmp.currency}. A fast tier is worth it where its speed over the "
            "standard tier pays for its price over it, per task class of your workload. The numbers follow on the "
            "next sheets; after an edit on Inputs, export again for a new brief.")
    sheet.ws.merge_range(1, 0, 1, 1, note, sheet.formats.get(None, st.NOTE, st.WRAP))
    points = 15 * st.wrapped_lines(note, _LABEL_WIDTH + _TEXT_WIDTH)
    sheet.ws.set_row(1, points)
    points += 20 + 2 * 15
    row = 4
    entries = brief(wb, cmp)
    if not entries:
        sheet.text(row, 1, "No tier runs speculative decoding in this workbook: nothing to decide.", st.LABEL)
    for entry in entries:
        vendor = f" ({entry.vendor})" if entry.vendor else ""
        sheet.text(row, 1, f"{entry.tier}{vendor}", st.HEADING)  # runs on over the empty cell beside it
        row += 1
        sheet.text(row, 1, "Recommendation", st.LABEL)
        sheet.text(row, 2, entry.recommendation[:1].upper() + entry.recommendation[1:], st.LABEL, _LOOKS[entry.look])
        row += 1
        for label, name in _ROWS:
            text = getattr(entry, name)
            sheet.text(row, 1, label, st.LABEL, {"valign": "top"})
            sheet.text(row, 2, text, st.WRAP)
            height = 15 * st.wrapped_lines(text, _TEXT_WIDTH)
            sheet.ws.set_row(row - 1, height)
            points += height
            row += 1
        row += 1
        points += 3 * 15
    sheet.widths({1: _LABEL_WIDTH, 2: _TEXT_WIDTH})
    sheet.print_last_col = 2
    return points * st.MIN_PRINT_SCALE <= _PAGE_POINTS
