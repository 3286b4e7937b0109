"""The Comparison sheet as written: its heading, its rows (comparison_rows.py), then the table's colours,
widths, key and print setup. Its columns, the words its cells say and the formulas other sheets share are in
comparison_sheet.py."""
from __future__ import annotations

from model.comparison import Comparison
from model.report import styles as st
from model.report.comparison_rows import write_rows
from model.report.comparison_sheet import (COL, COMPARISON_LEGEND, EXTRAPOLATED_WORD, FLAG_LOOKS, HEADER_ROW,
                                           INCOMPLETE_MEANING, NOT_WORTH, TOO_FEW_MEANING, UNDECIDED,
                                           UNDECIDED_MEANING, WIDTHS, WORTH, banner_formula, letter, name_width)
from model.report.inputs_sheet import InputRefs
from model.report.profiles_table import EXTRAPOLATED
from model.report.layout import COMPARISON_COLUMNS
from model.report.notes_sheet import NotesRefs
from model.report.sensitivity import Shifted
from model.workbook.rows import Workbook


def write_comparison(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs, notes: NotesRefs,
                     shifted: list[Shifted], baseline_at: str, summary_first: int) -> dict[int, int]:
    """One row per (tier, class), tier-major; returns the first row of each tier's block.

    `baseline_at`: the Summary column (letter) holding each tier's baseline position, 0 for none; the Summary
    lists tier i on row summary_first + i."""
    n_t, n_c = len(wb.tiers), len(wb.classes)
    last = max(HEADER_ROW + n_t * n_c, HEADER_ROW + 1)
    flags = f"${letter('Grey values')}${HEADER_ROW + 1}:${letter('Grey values')}${last}"
    _write_heading(sheet, flags)
    first_rows = write_rows(sheet, wb, cmp, refs, notes, shifted, baseline_at, summary_first, last)
    _write_table_looks(sheet, refs, last, flags)
    _write_widths_and_print(sheet, wb, last)
    return first_rows


def _write_heading(sheet: st.SheetWriter, flags: str) -> None:
    """The title, what the sheet's cells are, the stale banner over the flags, and the header row."""
    sheet.text(1, 1, "Comparison: every tier on every task class", st.TITLE)
    sheet.text(2, 1, "Formulas follow the Inputs sheet. Grey cells are SpecLedger's (no closed form: break-even, "
               "optimal K, roofline c and v at the class's context); 'Grey values' says when they are stale. "
               "E* = K c + v is the break-even as tokens per step, for any draft; an E marked * is extrapolated "
               "past the positions measured.", st.NOTE)
    sheet.formula(3, 1, banner_formula(flags), "", None, st.BANNER)
    # left, every one: the table's filter buttons sit at a header's right end and would hide a right one's end
    sheet.header_row(HEADER_ROW, COMPARISON_COLUMNS)
    sheet.explain_headers(HEADER_ROW, COMPARISON_COLUMNS)
    sheet.ws.set_row(HEADER_ROW - 1, 58)


def _write_table_looks(sheet: st.SheetWriter, refs: InputRefs, last: int, flags: str) -> None:
    """The rows as a table, their verdicts and flags coloured, an extrapolated E marked."""
    col = {name: letter(name) for name in ("Speed verdict", "Value verdict")}
    first = HEADER_ROW + 1
    sheet.table("ComparisonTable", HEADER_ROW, last, COMPARISON_COLUMNS)
    sheet.colour_verdicts(f"{col['Speed verdict']}{first}:{col['Speed verdict']}{last}")
    sheet.colour_words(f"{col['Value verdict']}{first}:{col['Value verdict']}{last}",
                       {WORTH: "gain", NOT_WORTH: "tax", UNDECIDED: "undecided"})
    sheet.colour_too_few(f"{col['Speed verdict']}{first}:{col['Speed verdict']}{last}")
    sheet.colour_too_few(f"{col['Value verdict']}{first}:{col['Value verdict']}{last}")
    sheet.colour_words(flags.replace("$", ""), FLAG_LOOKS)
    if refs.profiles:  # an E reaching past the measured positions reads 2.463*
        e_col, x_col = letter("Tokens per stretch E"), letter("E extrapolated")
        sheet.ws.conditional_format(f"{e_col}{first}:{e_col}{last}", {
            "type": "formula", "criteria": f'=${x_col}{first}="{EXTRAPOLATED_WORD}"',
            "format": sheet.formats.get('0.000"*"', EXTRAPOLATED)})


def _write_widths_and_print(sheet: st.SheetWriter, wb: Workbook, last: int) -> None:
    """Panes, widths, the key to the colours, and the printed page."""
    sheet.ws.freeze_panes(HEADER_ROW, 2)
    # wide enough for each bold header word ("Acceptance", "(SpecLedger)") beside its filter button
    sheet.widths({COL[name]: width for name, width in WIDTHS.items()})
    # the names in full: 'summarisation #3' printed cut to 'summarisation #' in the 13-wide class column
    sheet.widths({COL["Tier"]: name_width([t.name for t in wb.tiers], WIDTHS["Tier"]),
                  COL["Task class"]: name_width([c.name for c in wb.classes], WIDTHS["Task class"])})
    sheet.hide(COL["Alpha at export"], 9)
    # printed one page wide, through the verdicts and flags: the per-class sensitivity speedups to their right
    # feed the Sensitivity sheet, which prints them as mixes
    sheet.colour_legend(last + 2, COMPARISON_LEGEND, {COL[name]: w for name, w in WIDTHS.items()},
                        f"{UNDECIDED_MEANING}; {TOO_FEW_MEANING}; {INCOMPLETE_MEANING}")
    sheet.print_last_col = COL["Grey values"]
    sheet.ws.print_area(0, 0, last + 1, COL["Grey values"] - 1)
