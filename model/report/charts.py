"""The report's Curves sheet (the data behind the charts) and the native charts of its Charts sheet.

Charts are plain DrawingML charts over cell ranges, which Excel and LibreOffice
both draw; XlsxWriter saves each series' data with the chart, so a viewer that
does not recalculate still draws them. The curve data are formulas too (over K,
c, v and the Comparison sheet), so the charts follow an edited input.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.comparison import Comparison
from model.curves.speedup import alpha_curve, costs_at
from model.common.formatting import context as context_text
from model.report import styles as st
from model.report.comparison_sheet import STALE, cost_formula, letter, tokens_formula
from model.report.inputs_sheet import InputRefs
from model.report.layout import COMPARISON, CURVES, SUMMARY
from model.report.notes_sheet import NotesRefs
from model.report.summary_sheet import HEADER_ROW as SUMMARY_HEADER_ROW
from model.report.summary_sheet import SUMMARY_COLUMNS
from model.report.summary_sheet import context_label
from model.report.tree_curves import TreeRefs, tree_note, write_tree_curves
from model.workbook.rows import Workbook

ALPHAS = np.linspace(0.0, 1.0, 51)
MAX_SERIES = 8  # more lines than this and a chart stops being readable; the sheet has them all
SPEED_HEADER_ROW = 5
CHART_W, CHART_H = 640, 560  # pixels: two side by side fill a landscape page
# one colour per point of the value chart; past a dozen tiers the points stop being told apart
_PALETTE = ["#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B", "#E377C2", "#7F7F7F",
            "#BCBD22", "#17BECF", "#393B79", "#637939"]


def ranked_tiers(cmp: Comparison) -> list[int]:
    """Speculative tiers, best mix speedup first (the charts show the first few); a tier whose mechanics nobody
    gave has no curve to draw (compare() models nothing from them)."""
    spec = [i for i in range(len(cmp.tier_names)) if cmp.tiers.speculative[i] and not cmp.made_up(i)]
    return sorted(spec, key=lambda i: -np.nan_to_num(cmp.tiers.mix_speedup[i], nan=-np.inf))


@dataclass(frozen=True)
class CurveRefs:
    n_series: int  # speculative tiers on the sheet
    speed_header_row: int
    speed_last_row: int
    fill_header_row: int
    fill_last_row: int
    parity_row: int  # two points of "premium = speedup - 1" for the value chart
    n_fill: int = 0  # speculative tiers in the trailer-fill block: the chains and the trees
    trees: TreeRefs | None = None  # the tree drafts' block (speedup against E), None without one


def write_curves(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs, notes: NotesRefs,
                 cmp_rows: dict[int, int], order: list[int]) -> CurveRefs:
    sheet.text(1, 1, "Curves: the data behind the charts", st.TITLE)
    sheet.text(2, 1, "Speedup against acceptance at each tier's claim context, best mix speedup first: formulas over "
               "K, c and v below (grey: SpecLedger's).", st.NOTE)
    sheet.text(3, 1, "Trailer fill: formulas over the Comparison sheet. Speedup against context: one block per tier, "
               "further down.", st.NOTE)
    sheet.text(SPEED_HEADER_ROW - 1, 1, "Speedup against acceptance alpha", st.HEADING)
    sheet.text(SPEED_HEADER_ROW, 1, "Acceptance alpha", st.LABEL, {"text_wrap": True, "valign": "bottom"})
    # a tree draft has no curve over a per-token alpha (the window's chart draws none either): its own block below
    trees = [i for i in order if wb.tiers[i].tree_size is not None]
    fill_order, order = order, [i for i in order if wb.tiers[i].tree_size is None]
    if trees:
        sheet.text(3, 1, "Trailer fill: formulas over the Comparison sheet. Speedup against context: one block per "
                   f"tier, further down. {tree_note(wb, trees)}", st.NOTE)
    curves = [alpha_curve(wb.tiers[i], alphas=ALPHAS) for i in order]
    speed_last = SPEED_HEADER_ROW + len(ALPHAS)
    be_row, ctx_row, k_row, c_row, v_row, flag_row = range(speed_last + 1, speed_last + 7)
    for label, row in (("Break-even alpha", be_row), ("At context (tokens)", ctx_row), ("K", k_row),
                       ("c at that context", c_row), ("v at that context", v_row), ("Grey values", flag_row)):
        sheet.text(row, 1, label, st.LABEL)
    for m, (i, curve) in enumerate(zip(order, curves)):
        col = 2 + m
        letter_ = st.col_name(col)
        tier = wb.tiers[i]
        name, ctx = refs.tier(i, "name"), refs.tier(i, "claim_context")
        sheet.formula(SPEED_HEADER_ROW, col, f'={name}&" at "&{context_label(ctx)}',
                      f"{tier.name} at {context_text(tier.claim_context)}", None, st.LABEL,
                      {"text_wrap": True, "valign": "bottom", "align": "right"})
        sheet.computed(be_row, col, "never" if curve.break_even_alpha is None else curve.break_even_alpha, st.PERCENT)
        sheet.computed(ctx_row, col, curve.context, st.INTEGER)
        sheet.formula(k_row, col, f"={refs.tier(i, 'k')}", tier.k, "0")
        roof_c, roof_v = (float(x) for x in costs_at(_as_roofline(tier), curve.context))
        cm = refs.tier(i, "cost_model")
        grey = (st.COMPUTED,) if tier.cost_model == "roofline" else ()
        c_used, v_used = (roof_c, roof_v) if tier.cost_model == "roofline" else (tier.c, tier.v)
        sheet.formula(c_row, col, cost_formula(cm, roof_c, refs.tier(i, "c")), c_used, st.NUMBER, *grey)
        sheet.formula(v_row, col, cost_formula(cm, roof_v, refs.tier(i, "v")), v_used, st.NUMBER, *grey)
        sheet.formula(flag_row, col, f'=IF(OR({notes.tier_changed(i)}<>"",{ctx}<>{curve.context!r}),"{STALE}","")', "",
                      None, st.CENTRE)
        K, C, V = (f"{letter_}${r}" for r in (k_row, c_row, v_row))
        for n in range(len(ALPHAS)):
            row = SPEED_HEADER_ROW + 1 + n
            sheet.formula(row, col, f"={tokens_formula(f'$A{row}', K)}/({K}*{C}+{V})", float(curve.speedup[n]), st.TIMES)
    be_col = 2 + len(order)
    sheet.text(SPEED_HEADER_ROW, be_col, "Break-even (1.0x)", st.LABEL, {"text_wrap": True, "valign": "bottom"})
    for n, a in enumerate(ALPHAS):
        row = SPEED_HEADER_ROW + 1 + n
        sheet.number(row, 1, float(a), st.PERCENT)
        sheet.number(row, be_col, 1.0, st.TIMES)
    if order:
        sheet.colour_words(f"B{flag_row}:{st.col_name(be_col)}{flag_row}", {STALE: "tax"})

    fill_header = flag_row + 4
    sheet.text(fill_header - 1, 1, "Trailer fill per task class (share of drafted slots accepted)", st.HEADING)
    sheet.text(fill_header, 1, "Task class", st.LABEL)
    fill_col = letter("Trailer fill")
    for m, i in enumerate(fill_order):
        sheet.formula(fill_header, 2 + m, f'={refs.tier(i, "name")}&""', wb.tiers[i].name, None, st.LABEL,
                      {"text_wrap": True, "valign": "bottom", "align": "right"})
    for j, cls in enumerate(wb.classes):
        row = fill_header + 1 + j
        sheet.formula(row, 1, f'={refs.cls(j, "name")}&""', cls.name)
        for m, i in enumerate(fill_order):
            if cmp.cell_not_given(i, j):  # a class nobody filled in: no fill (its Comparison row is dashed)
                sheet.text(row, 2 + m, "–", st.RIGHT)
                continue
            sheet.formula(row, 2 + m, f"={COMPARISON}!${fill_col}${cmp_rows[i] + j}", float(cmp.cells.trailer_fill[i, j]),
                          st.PERCENT)
    sheet.ws.set_row(SPEED_HEADER_ROW - 1, 45)
    sheet.ws.set_row(fill_header - 1, 45)
    tree_refs = write_tree_curves(sheet, wb, refs, notes, trees, fill_header + len(wb.classes) + 3)
    parity = (tree_refs.next_row if tree_refs else fill_header + len(wb.classes)) + 3
    sheet.text(parity - 1, 1, "Price equals speed (the value chart's line): premium = speedup over baseline - 1",
               st.HEADING)
    for n, x in enumerate((0.5, 4.0)):
        sheet.number(parity + n, 1, x, st.TIMES)
        sheet.number(parity + n, 2, x - 1.0, st.SIGNED_PERCENT)
    return CurveRefs(len(order), SPEED_HEADER_ROW, speed_last, fill_header, fill_header + len(wb.classes), parity,
                     len(fill_order), tree_refs)


def _as_roofline(tier):  # noqa: ANN001, ANN202  (a Tier; the same tier computed by its roofline presets)
    import dataclasses

    return dataclasses.replace(tier, cost_model="roofline")


def literal_title(chart, text: str, size: int = 11) -> None:  # noqa: ANN001  (an XlsxWriter chart)
    """Set `chart`'s title to `text` as literal text.

    XlsxWriter reads any title matching `Sheet!A1` as a cell reference: a tier named `Turbo!B2` would
    make the title the formula `<c:f>…Turbo!B2</c:f>` (and print a warning). Set a plain title, then
    put the text in place of its name, with no formula, whatever the text holds."""
    chart.set_title({"name": "title", "name_font": {"size": size}})
    title = getattr(chart, "title", None)
    if title is not None and hasattr(title, "formula"):  # XlsxWriter 3.2.1 on: a ChartTitle
        title.name, title.formula, title.data_id = text, None, None
    else:  # earlier: plain attributes on the chart
        chart.title_name, chart.title_formula, chart.title_data_id = text, None, None


def write_charts(book, sheet: st.SheetWriter, refs: CurveRefs, n_classes: int, order: list[int],  # noqa: ANN001
                 tiers_with_base: list[int]) -> tuple[int, list[int]]:
    """The Charts sheet's first pictures, each page whole, with no table header repeated over them.

    Returns the first row free below them and the page breaks (0-based rows a page starts after) so far."""
    sheet.text(1, 1, "Charts: speed against acceptance, trailer fill, what the speed costs, and context length",
               st.TITLE)
    sheet.text(2, 1, "Drawn from the Curves and Summary sheets, so they follow an edit on Inputs.", st.NOTE)
    anchor = 4
    taken = add_acceptance_charts(book, sheet, refs, n_classes, anchor, len(order))
    value_row = anchor + taken + 1 if taken else anchor
    breaks = [value_row - 1] if taken else []  # the value picture on a page of its own
    value_rows = add_value_chart(book, sheet, SUMMARY_HEADER_ROW, tiers_with_base, value_row, refs.parity_row)
    free = value_row + value_rows + 1
    if refs.trees is not None:  # the tree drafts' speedup against E, on a page of its own
        breaks.append(free - 1)
        free += add_tree_chart(book, sheet, refs.trees, free, 2 * CHART_W, CHART_H) + 1
    return free, breaks


def add_acceptance_charts(book, sheet: st.SheetWriter, refs: CurveRefs, n_classes: int, anchor_row: int,  # noqa: ANN001
                       n_speculative: int) -> int:
    """Speedup against acceptance and trailer fill, side by side under `anchor_row`; returns the rows they take."""
    if refs.n_fill == 0:
        return 0
    shown = min(refs.n_series, MAX_SERIES)
    which = (f" (the best {MAX_SERIES} of {n_speculative} tiers by mix speedup)" if n_speculative > MAX_SERIES else "")
    fill_x = CHART_W + 16 if refs.n_series else 0  # only tree drafts: no alpha curve, the fill chart alone
    if refs.n_series:
        _add_speed_chart(book, sheet, refs, anchor_row, shown, which)

    fill = book.add_chart({"type": "column"})
    literal_title(fill, "Trailer fill per task class" + which)
    f0, f1 = refs.fill_header_row, refs.fill_last_row
    for m in range(min(refs.n_fill, MAX_SERIES)):
        fill.add_series({"name": [CURVES, f0 - 1, 1 + m], "categories": [CURVES, f0, 0, f1 - 1, 0],
                         "values": [CURVES, f0, 1 + m, f1 - 1, 1 + m]})
    fill.set_x_axis({"name": "Task class"})
    # a share of the trailer: never past 100% (LibreOffice scaled the axis to 120% for a 94% bar)
    fill.set_y_axis({"name": "Accepted / drafted", "num_format": "0%", "min": 0, "max": 1})
    fill.set_legend({"position": "bottom"})
    fill.set_size({"width": CHART_W, "height": CHART_H})
    sheet.ws.insert_chart(anchor_row - 1, 0, fill, {"x_offset": fill_x})
    return CHART_H // 20 + 3


def _add_speed_chart(book, sheet: st.SheetWriter, refs: CurveRefs, anchor_row: int, shown: int,  # noqa: ANN001
                     which: str) -> None:
    """Speedup against alpha, a line per chain tier (the trees have their own chart), and the 1.0x line."""
    speed = book.add_chart({"type": "scatter", "subtype": "straight"})
    literal_title(speed, "Speedup against acceptance, each tier at its claim context" + which)
    r0, r1 = refs.speed_header_row, refs.speed_last_row
    for m in list(range(shown)) + [refs.n_series]:  # the tiers, then the 1.0x line
        col = 1 + m
        line = {"width": 1.75}
        if m == refs.n_series:  # the break-even line: where a curve crosses it is alpha*
            line = {"width": 1.25, "dash_type": "dash", "color": "#7F7F7F"}
        speed.add_series({"name": [CURVES, r0 - 1, col], "categories": [CURVES, r0, 0, r1 - 1, 0],
                          "values": [CURVES, r0, col, r1 - 1, col], "line": line, "marker": {"type": "none"}})
    speed.set_x_axis({"name": "Acceptance alpha (per token)", "min": 0, "max": 1, "num_format": "0%",
                      "major_gridlines": {"visible": True, "line": {"color": "#E0E0E0"}}})
    speed.set_y_axis({"name": "Speedup over plain decoding", "num_format": '0.0"x"'})
    speed.set_legend({"position": "bottom"})
    speed.set_size({"width": CHART_W, "height": CHART_H})
    sheet.ws.insert_chart(anchor_row - 1, 0, speed)


def add_value_chart(book, sheet: st.SheetWriter, header_row: int, tiers_with_base: list[int],  # noqa: ANN001
                    anchor_row: int, parity_row: int) -> int:
    """Premium over baseline against speedup over baseline, one point per tier, with the price-equals-speed line."""
    if not tiers_with_base:
        return 0
    which = (f" (the first {len(_PALETTE)} of {len(tiers_with_base)} tiers with a baseline, best mix speedup first)"
             if len(tiers_with_base) > len(_PALETTE) else "")
    chart = book.add_chart({"type": "scatter"})
    literal_title(chart, "What the speed costs: premium over baseline against speedup over baseline "
                  "(above the dashed line, you pay more than you gain)" + which)
    # 0-based Summary columns, by header: fixed places drifted onto Monthly cost when the mix interval went in
    prem, vs = SUMMARY_COLUMNS.index("Premium over baseline"), SUMMARY_COLUMNS.index("Speedup vs baseline")
    palette = _PALETTE
    for n, i in enumerate(tiers_with_base[:len(palette)]):
        r = header_row + i  # 0-based row of tier i
        chart.add_series({"name": [SUMMARY, r, 0], "categories": [SUMMARY, r, vs, r, vs],
                          "values": [SUMMARY, r, prem, r, prem],
                          "marker": {"type": "circle", "size": 8, "fill": {"color": palette[n]},
                                     "border": {"color": palette[n]}}})
    chart.add_series({"name": "Price equals speed", "categories": [CURVES, parity_row - 1, 0, parity_row, 0],
                      "values": [CURVES, parity_row - 1, 1, parity_row, 1], "marker": {"type": "none"},
                      "line": {"width": 1.25, "dash_type": "dash", "color": "#7F7F7F"}})
    chart.set_x_axis({"name": "Speedup over its baseline (mix)", "num_format": '0.0"x"', "label_position": "low",
                      "major_gridlines": {"visible": True, "line": {"color": "#E0E0E0"}}})
    chart.set_y_axis({"name": "Premium over baseline", "num_format": "+0%;-0%;0%"})
    chart.set_legend({"position": "right"})
    chart.set_size({"width": 2 * CHART_W, "height": CHART_H})
    sheet.ws.insert_chart(anchor_row - 1, 0, chart)
    return CHART_H // 20 + 3


def add_tree_chart(book, sheet: st.SheetWriter, refs: TreeRefs, anchor_row: int, width: int,  # noqa: ANN001
                   height: int) -> int:
    """Speedup against E, a line per tree tier and the 1.0x line, at ``anchor_row``; returns the rows it takes."""
    shown = refs.tiers[:MAX_SERIES]
    which = f" (the first {MAX_SERIES} of {len(refs.tiers)})" if len(refs.tiers) > MAX_SERIES else ""
    chart = book.add_chart({"type": "scatter", "subtype": "straight"})
    literal_title(chart, f"Tree drafts: speedup against acceptance length E, at each tree's verify cost{which}")
    h, last = refs.header_row - 1, refs.last_row - 1  # 0-based
    for m in range(len(shown)):
        e_col, s_col = 1 + 2 * m, 2 + 2 * m  # 0-based
        chart.add_series({"name": [CURVES, h, s_col], "categories": [CURVES, h + 1, e_col, last, e_col],
                          "values": [CURVES, h + 1, s_col, last, s_col], "line": {"width": 1.75},
                          "marker": {"type": "none"}})
    chart.add_series({"name": "Break-even (1.0x)", "categories": [CURVES, refs.line_row - 1, 0, refs.line_row, 0],
                      "values": [CURVES, refs.line_row - 1, 1, refs.line_row, 1], "marker": {"type": "none"},
                      "line": {"width": 1.25, "dash_type": "dash", "color": "#7F7F7F"}})
    chart.set_x_axis({"name": "Acceptance length E (tokens per verify step, bonus token included)", "min": 1,
                      "major_gridlines": {"visible": True, "line": {"color": "#E0E0E0"}}})
    chart.set_y_axis({"name": "Speedup over plain decoding", "num_format": '0.0"x"'})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": width, "height": height})
    sheet.ws.insert_chart(anchor_row - 1, 0, chart)
    return height // 20 + 3
