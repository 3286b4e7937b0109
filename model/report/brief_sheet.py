"""The report's Brief sheet, first: per fast tier in plain words, one printed A4 page in portrait
(model/comparison/brief.py words it).

Words, not formulas: the brief says what the comparison said at export. The sheets after it hold the live
numbers; an analyst who edits Inputs exports again for a new brief (the sheet says so).

Laid out to print at 11 points on a portrait page as wide as the two columns, and scaled down no further than
READABLE_SCALE (11-point text printed at 9 points): up to brief.MAX_ON_A_PAGE fast tiers fit one page there; more
run on, one page wide, at the same size.
"""
from __future__ import annotations

from model.comparison.brief import ADVICE, FOOTNOTE, TITLE, brief
from model.comparison import Comparison
from model.report import styles as st
from model.workbook.rows import Workbook

# characters: 89 + 565 px, within an A4 portrait page less 0.5-inch margins (698 px) with room for LibreOffice's
# rounding (at 96% of it, column B printed on a page of its own)
_LABEL_WIDTH, _TEXT_WIDTH = 12, 80
_LOOKS = {**st.VERDICT_LOOKS, "undecided": {"bg_color": "#E4DAF4", "font_color": "#4B2C83"}}
_LINE, _GAP = 15, 5  # points: a line of 11-point text; the space between two tiers
# an A4 portrait page less its margins (0.6 inch top and bottom) and the header and footer, in points
_PAGE_POINTS = 730
READABLE_SCALE = 9 / 11  # the smallest print scale: 11-point text printed at 9 points
_SIZE = {"font_size": 11}  # every line of the sheet, the notes too (the styles' notes are smaller elsewhere)


def _lines(text: str, bold: bool = False) -> int:
    """Lines `text` wraps to in the text column: styles.wrapped_lines' average is short of these sentences' many
    capitals and figures (a row one line short printed its second line over the next row), bold text more so."""
    return st.wrapped_lines(text, _TEXT_WIDTH - (8 if bold else 5))


def _note(exported: str, currency: str) -> str:
    return (f"Exported {exported}; prices in {currency}. For each fast tier: whether to take it on your workload, "
            "its speed, its cost and the price to ask for. After an edit on Inputs, export again.")


def _rows(entry) -> list[tuple[str, str]]:  # noqa: ANN001
    """A tier's printed rows below its name: the recommendation, then its lines."""
    return [(ADVICE, entry.headline), *entry.lines]


def _height(entries: list, note: str) -> int:
    """The sheet's height in points at 100%."""
    points = 22 + _LINE * st.wrapped_lines(note, _LABEL_WIDTH + _TEXT_WIDTH) + _LINE
    points += _LINE * st.wrapped_lines(FOOTNOTE, _LABEL_WIDTH + _TEXT_WIDTH) + _LINE
    for entry in entries:
        points += _GAP + _LINE * (1 + sum(_lines(text, label == ADVICE) for label, text in _rows(entry)))
    return points


def _name(entry) -> str:  # noqa: ANN001
    return f"{entry.tier} ({entry.vendor})" if entry.vendor else entry.tier


def print_scale(entries: list, note: str) -> float:
    """The scale the page prints at: one page where that keeps the text readable, else READABLE_SCALE."""
    return max(READABLE_SCALE, min(1.0, _PAGE_POINTS / _height(entries, note)))


def write_brief(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, exported: str) -> float:
    """Writes the sheet; returns the print scale its page set-up must use (print_scale)."""
    entries = brief(wb, cmp)
    note = _note(exported, cmp.currency)
    wrap = (st.WRAP, _SIZE)
    sheet.text(1, 1, f"{TITLE}: {wb.title or 'the fast tiers'}", st.TITLE)
    sheet.ws.merge_range(1, 0, 1, 1, note, sheet.formats.get(None, st.NOTE, *wrap))
    sheet.ws.set_row(1, _LINE * st.wrapped_lines(note, _LABEL_WIDTH + _TEXT_WIDTH))
    row = 4
    if not entries:
        sheet.text(row, 1, "No fast tier in this workbook: nothing to decide.", st.LABEL)
        row += 1
    for entry in entries:
        sheet.text(row, 1, _name(entry), st.HEADING)  # runs on over the empty cell beside it
        row += 1
        for label, text in _rows(entry):
            advice = label == ADVICE  # coloured by the recommendation
            sheet.text(row, 1, label, st.LABEL, *wrap)
            sheet.text(row, 2, text, *((st.LABEL, _LOOKS[entry.look]) if advice else ()), *wrap)
            sheet.ws.set_row(row - 1, _LINE * _lines(text, advice))
            row += 1
        sheet.ws.set_row(row - 1, _GAP)
        row += 1
    row += 1
    sheet.ws.merge_range(row - 1, 0, row - 1, 1, FOOTNOTE, sheet.formats.get(None, st.NOTE, *wrap))
    sheet.ws.set_row(row - 1, _LINE * st.wrapped_lines(FOOTNOTE, _LABEL_WIDTH + _TEXT_WIDTH))
    sheet.widths({1: _LABEL_WIDTH, 2: _TEXT_WIDTH})
    sheet.print_last_col = 2
    return print_scale(entries, note)


def brief_page(sheet: st.SheetWriter, scale: float) -> None:
    """Portrait A4 at `scale` (after SheetWriter.page, which sets every sheet landscape and fitted)."""
    ws = sheet.ws
    ws.set_portrait()
    ws.set_print_scale(int(scale * 100))  # not fitted: a fitted page would shrink past READABLE_SCALE
