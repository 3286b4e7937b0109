"""The report's Brief sheet, first: per fast tier in plain words, one printed page (model/comparison/brief.py words it).

Words, not formulas: the brief says what the comparison said at export. The sheets after it hold the live
numbers; an analyst who edits Inputs exports again for a new brief (the sheet says so).
"""
from __future__ import annotations

from model.comparison.brief import brief
from model.comparison import Comparison
from model.report import styles as st
from model.workbook.rows import Workbook

_LABEL_WIDTH = 20
_TEXT_WIDTHS = range(110, 301, 5)  # the text column's width is chosen from these so the page prints largest
_LOOKS = {**st.VERDICT_LOOKS, "undecided": {"bg_color": "#E4DAF4", "font_color": "#4B2C83"}}
_ROWS = (("Why", "why"), ("Speed", "speed"), ("Cost", "cost"), ("Ask the vendor for", "ask"))
_LINE, _GAP = 15, 8  # points: a line of text; the space between two tiers

# an A4 landscape page less margins, header and footer, in points: what fits at 100%
_PAGE_POINTS = 470


def _note(exported: str, currency: str) -> str:
    return (f"Exported {exported}; prices in {currency}. A fast tier is worth it where its speed over the "
            "standard tier pays for its price over it, per task class of your workload. The numbers follow on the "
            "next sheets; after an edit on Inputs, export again for a new brief.")


def _height(entries: list, note: str, width: int) -> int:
    """The sheet's height in points with the text column `width` characters wide."""
    points = 20 + _LINE * st.wrapped_lines(note, _LABEL_WIDTH + width) + _LINE
    for entry in entries:
        points += 2 * _LINE + _GAP + sum(_LINE * st.wrapped_lines(getattr(entry, name), width) for _, name in _ROWS)
    return points


def _scale(entries: list, note: str, width: int) -> float:
    """The print scale one page needs: the narrower of fitting the width and the height."""
    wide = st.column_px(_LABEL_WIDTH) + st.column_px(width)
    return min(1.0, st.PRINTABLE_PX / wide, _PAGE_POINTS / _height(entries, note, width))


def write_brief(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, exported: str) -> bool:
    """Writes the sheet; True when it fits one printed page at a readable scale (else it runs on, one page wide).

    The text column is as wide as prints the page largest: wider, the long lines (the classes a tier pays on,
    the fair price) wrap less and the page is shorter, but it prints smaller across; a twelve-tier workbook of
    thirty classes fits one page this way where a fixed width ran on to two.
    """
    entries = brief(wb, cmp)
    note = _note(exported, cmp.currency)
    text_width = max(_TEXT_WIDTHS, key=lambda w: (round(_scale(entries, note, w), 3), -w))
    sheet.text(1, 1, f"Brief: {wb.title or 'the fast tiers'}, in a minute", st.TITLE)
    sheet.ws.merge_range(1, 0, 1, 1, note, sheet.formats.get(None, st.NOTE, st.WRAP))
    sheet.ws.set_row(1, _LINE * st.wrapped_lines(note, _LABEL_WIDTH + text_width))
    row = 4
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
            sheet.ws.set_row(row - 1, _LINE * st.wrapped_lines(text, text_width))
            row += 1
        sheet.ws.set_row(row - 1, _GAP)
        row += 1
    sheet.widths({1: _LABEL_WIDTH, 2: text_width})
    sheet.print_last_col = 2
    return _scale(entries, note, text_width) >= st.MIN_PRINT_SCALE
