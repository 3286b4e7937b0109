"""The report's Sensitivity sheet: each tier's mix speedup and cost per 1x speedup with every class's acceptance
moved by the same points, as formulas over the Comparison sheet and the Summary's cost."""
from __future__ import annotations

from model.comparison import Comparison
from model.report import styles as st
from model.report.comparison_sheet import letter
from model.report.inputs_sheet import InputRefs
from model.report.layout import ALPHA_SHIFTS, COMPARISON, SUMMARY
from model.report.sensitivity import SHIFT_MEANING, Shifted
from model.report.summary_sheet import DASH, HEADER_ROW, SUMMARY_COLUMNS, mix_formula, served_formula
from model.workbook.rows import Workbook

SENSITIVITY_HEADER_ROW = 4
_SENS_NAME, _SENS_COL = 22, 12  # the Sensitivity sheet's tier column and its speedup and cost columns


def write_sensitivity(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs,
                      cmp_rows: dict[int, int], shifted: list[Shifted]) -> None:
    """Mix speedup and cost per 1x speedup if every class's acceptance moved by -20, -10, +10 points."""
    n_c = len(wb.classes)
    top, summary_first = SENSITIVITY_HEADER_ROW - 1, HEADER_ROW + 1
    money = st.money_format(wb.settings.currency)
    sheet.text(1, 1, "Sensitivity: if every class's acceptance moved by the same points", st.TITLE)
    order = sorted(range(len(ALPHA_SHIFTS) + 1), key=lambda n: ALPHA_SHIFTS[n] if n < len(ALPHA_SHIFTS) else 0.0)
    # the note wrapped over the table's columns: run on in one line past them, LibreOffice fitted the line's
    # whole length to the page and printed the sheet at 60%
    note = ("Mix speedup and cost per 1x speedup with every class's (and override's) acceptance moved: "
            f"{SHIFT_MEANING}. Formulas over the Comparison sheet.")
    sheet.ws.merge_range(1, 0, 1, 2 * len(order), note, sheet.formats.get(None, st.NOTE, st.WRAP))
    sheet.ws.set_row(1, 15 * st.wrapped_lines(note, (_SENS_NAME + 2 * len(order) * _SENS_COL) * 0.9))
    labels = [_shift_label(ALPHA_SHIFTS[n]) if n < len(ALPHA_SHIFTS) else "as entered" for n in order]
    header = top + 1
    sheet.header_row(header, ["Tier"] + [f"Mix speedup, alpha {lab}" for lab in labels]
                     + [f"Cost per 1x, alpha {lab}" for lab in labels], text_columns={"Tier"})
    sheet.ws.set_row(header - 1, 58)
    weights = refs.class_column("tokens_out")
    columns = {n: letter(name) for n, name in enumerate(("Speedup, alpha -20 pts", "Speedup, alpha -10 pts",
                                                           "Speedup, alpha +10 pts"))}
    columns[len(ALPHA_SHIFTS)] = letter("Speedup")
    cost_col = st.col_name(SUMMARY_COLUMNS.index("Monthly cost") + 1)
    untold = any(c.tokens_not_given() for c in wb.classes)
    for i, tier in enumerate(wb.tiers):
        row = header + 1 + i
        sheet.formula(row, 1, f"={SUMMARY}!$A${summary_first + i}", tier.name)
        if not n_c:
            continue
        # no mix from made-up mechanics, or while a class is not filled in, at any acceptance: the Summary's dashes
        if cmp.made_up(i) or cmp.mix_waits(i):
            for c in range(2, 2 + 2 * len(order)):
                sheet.text(row, c, DASH, st.RIGHT)
            continue
        results = [*shifted, Shifted(cmp.cells.speedup, cmp.tiers.mix_speedup, cmp.tiers.price_per_speedup)]
        for m, n in enumerate(order):
            r0 = cmp_rows[i]
            s_range = f"{COMPARISON}!${columns[n]}${r0}:${columns[n]}${r0 + n_c - 1}"
            mix_col = 2 + m
            # as served (docs/design/vendor-terms.md): the standard speed is the baseline's mix at the same shift
            b = int(cmp.tiers.baseline_index[i])
            std = "1"
            if b >= 0 and not cmp.made_up(b):
                rb = cmp_rows[b]
                std = f"({mix_formula(weights, f'{COMPARISON}!${columns[n]}${rb}:${columns[n]}${rb + n_c - 1}')[1:]})"
            mix, d = f"({mix_formula(weights, s_range)[1:]})", f"N({refs.tier(i, 'downgraded_share')})"
            sheet.formula(row, mix_col, f"={served_formula(mix, d, std)}", float(results[n].mix_speedup[i]), st.TIMES)
            # no bill while a class's tokens are not given, nor at prices nobody typed (the Summary says which)
            if untold or cmp.prices_not_given(i):
                sheet.text(row, 2 + len(order) + m, DASH, st.RIGHT)
                continue
            sheet.formula(row, 2 + len(order) + m, f"={SUMMARY}!${cost_col}${summary_first + i}/"
                          f"{st.col_name(mix_col)}{row}", float(results[n].price_per_speedup[i]), money)
    if wb.tiers:
        cost_cells = f"{st.col_name(2 + len(order))}{header + 1}:{st.col_name(1 + 2 * len(order))}{header + len(wb.tiers)}"
        sheet.money_follows_currency(cost_cells, refs.setting("currency"), wb.settings.currency)
    sheet.widths({1: _SENS_NAME, **{c: _SENS_COL for c in range(2, 2 + 2 * len(order))}})
    sheet.ws.freeze_panes(header, 1)


def _shift_label(shift: float) -> str:
    return f"{round(shift * 100):+d} pts"
