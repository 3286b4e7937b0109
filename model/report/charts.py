"""The report's Curves sheet (the data behind the charts) and its two native charts.

Charts are plain DrawingML scatter and bar charts over cell ranges, which both
Excel and LibreOffice draw. The curve data are formulas too (over K, c, v and
the Comparison sheet), so the charts follow an edited input.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from model.report import styles as st
from model.comparison import Comparison
from model.curves import alpha_curve, costs_at
from model.report.inputs_sheet import InputRefs
from model.report.layout import COMPARISON_COLUMNS, COMPARISON, CURVES
from model.workbook.rows import Workbook

ALPHAS = np.linspace(0.0, 1.0, 51)
MAX_SERIES = 8  # more lines than this and a chart stops being readable; the sheet has them all
SPEED_HEADER_ROW = 5


@dataclass(frozen=True)
class CurveRefs:
    n_series: int  # speculative tiers on the sheet
    speed_header_row: int
    speed_last_row: int
    fill_header_row: int
    fill_last_row: int


def write_curves(ws: Any, wb: Workbook, cmp: Comparison, refs: InputRefs, cmp_rows: dict[int, int],
                 expected: dict) -> CurveRefs:
    from openpyxl.utils import get_column_letter


    spec = [i for i in range(len(wb.tiers)) if cmp.speculative[i]]
    st.put_text(ws, 1, 1, "Curves: the data behind the charts", font=st.TITLE_FONT)
    # two short lines rather than one long one, which would spill far right and shrink the printed page
    st.put_text(ws, 2, 1, "Speedup against acceptance at each tier's claim context: formulas over K, c and v below "
                "(K, and c and v of typed tiers, follow the Inputs sheet; grey cells are computed by SpecLedger).",
                font=st.NOTE_FONT)
    st.put_text(ws, 3, 1, "Trailer fill: formulas over the Comparison sheet. Speedup against context: one block per "
                "tier, further down.", font=st.NOTE_FONT)

    st.put_text(ws, SPEED_HEADER_ROW - 1, 1, "Speedup against acceptance alpha", font=st.HEADING_FONT)
    st.put_header_row(ws, SPEED_HEADER_ROW, ["Acceptance alpha"] + [wb.tiers[i].name for i in spec] + ["Break-even (1.0x)"],
                      text_columns=set())
    curves = [alpha_curve(wb.tiers[i], alphas=ALPHAS) for i in spec]
    speed_last = SPEED_HEADER_ROW + len(ALPHAS)
    be_row, ctx_row, k_row, c_row, v_row = range(speed_last + 1, speed_last + 6)
    for label, row in (("Break-even alpha", be_row), ("At context (tokens)", ctx_row), ("K", k_row),
                       ("c at that context", c_row), ("v at that context", v_row)):
        st.put_text(ws, row, 1, label, font=st.LABEL_FONT)
    for m, (i, curve) in enumerate(zip(spec, curves)):
        col = 2 + m
        letter = get_column_letter(col)
        tier = wb.tiers[i]
        if curve.break_even_alpha is None:
            st.put_text(ws, be_row, col, "never", font=st.COMPUTED_FONT, fill=st.COMPUTED_FILL, alignment=st.RIGHT)
        else:
            st.put_value(ws, be_row, col, curve.break_even_alpha, st.PERCENT, computed=True)
        st.put_value(ws, ctx_row, col, curve.context, st.INTEGER, computed=True)
        st.put_formula(ws, k_row, col, f"={refs.tier(i, 'k')}", "0")
        expected[(CURVES, f"{letter}{k_row}")] = tier.k
        if tier.cost_model == "roofline":
            c, v = (float(x) for x in costs_at(tier, curve.context))
            st.put_value(ws, c_row, col, c, st.NUMBER, computed=True)
            st.put_value(ws, v_row, col, v, st.NUMBER, computed=True)
        else:
            for row, name in ((c_row, "c"), (v_row, "v")):
                st.put_formula(ws, row, col, f"={refs.tier(i, name)}", st.NUMBER)
                expected[(CURVES, f"{letter}{row}")] = getattr(tier, name)
        K, C, V = (f"{letter}${r}" for r in (k_row, c_row, v_row))
        for n in range(len(ALPHAS)):
            row = SPEED_HEADER_ROW + 1 + n
            A = f"$A{row}"
            # the same guarded closed form as the Comparison sheet's tokens per stretch
            st.put_formula(ws, row, col, f"=IF(ABS(1-{A})<1E-7,({K}+1)-(1-{A})*{K}*({K}+1)/2,"
                           f"(1-{A}^({K}+1))/(1-{A}))/({K}*{C}+{V})", st.TIMES)
            expected[(CURVES, f"{letter}{row}")] = float(curve.speedup[n])
    for n, a in enumerate(ALPHAS):
        row = SPEED_HEADER_ROW + 1 + n
        st.put_value(ws, row, 1, float(a), st.PERCENT)
        st.put_value(ws, row, 2 + len(spec), 1.0, st.TIMES)

    fill_header = v_row + 4
    st.put_text(ws, fill_header - 1, 1, "Trailer fill per task class (share of drafted slots accepted)", font=st.HEADING_FONT)
    st.put_header_row(ws, fill_header, ["Task class"] + [wb.tiers[i].name for i in spec], text_columns={"Task class"})
    fill_col = get_column_letter(COMPARISON_COLUMNS.index("Trailer fill") + 1)
    for j, cls in enumerate(wb.classes):
        row = fill_header + 1 + j
        st.put_text(ws, row, 1, cls.name)
        for m, i in enumerate(spec):
            st.put_formula(ws, row, 2 + m, f"={COMPARISON}!${fill_col}${cmp_rows[i] + j}", st.PERCENT)
            expected[(CURVES, f"{get_column_letter(2 + m)}{row}")] = float(cmp.trailer_fill[i, j])
    fill_last = fill_header + len(wb.classes)

    st.set_widths(ws, {1: 22, **{2 + m: 16 for m in range(len(spec) + 1)}})
    ws.freeze_panes = f"B{SPEED_HEADER_ROW + 1}"
    st.landscape(ws)
    return CurveRefs(len(spec), SPEED_HEADER_ROW, speed_last, fill_header, fill_last)


def add_charts(target: Any, curves_ws: Any, refs: CurveRefs, anchor_row: int) -> None:
    """Speedup against acceptance (with the break-even line) and trailer fill per class, on `target`."""
    if refs.n_series == 0:
        return
    from openpyxl.chart import BarChart, Reference, ScatterChart, Series

    shown = min(refs.n_series, MAX_SERIES)
    more = f" (first {MAX_SERIES} of {refs.n_series} tiers; all on the Curves sheet)" if refs.n_series > MAX_SERIES else ""

    speed = ScatterChart()
    speed.title = "Speedup against acceptance" + more
    speed.style = 2
    speed.scatterStyle = "line"
    speed.x_axis.title = "Acceptance alpha (per token)"
    speed.y_axis.title = "Speedup over plain decoding"
    speed.x_axis.scaling.min, speed.x_axis.scaling.max = 0.0, 1.0
    speed.x_axis.number_format = "0%"
    speed.y_axis.number_format = '0.0"x"'
    xs = Reference(curves_ws, min_col=1, min_row=refs.speed_header_row + 1, max_row=refs.speed_last_row)
    columns = list(range(2, 2 + shown)) + [2 + refs.n_series]  # the tiers, then the 1.0x line
    for col in columns:
        ys = Reference(curves_ws, min_col=col, min_row=refs.speed_header_row, max_row=refs.speed_last_row)
        series = Series(ys, xs, title_from_data=True)
        series.marker.symbol = "none"
        series.smooth = False
        series.graphicalProperties.line.width = 22000  # EMU, about 1.75 pt
        if col == columns[-1]:  # the break-even line: where a curve crosses it is alpha*
            series.graphicalProperties.line.dashStyle = "dash"
            series.graphicalProperties.line.solidFill = "7F7F7F"
        speed.series.append(series)
    _axes_visible(speed)
    speed.width, speed.height = 17.0, 9.0
    target.add_chart(speed, f"A{anchor_row}")

    fill = BarChart()
    fill.type = "col"
    fill.grouping = "clustered"
    fill.title = "Trailer fill per task class" + more
    fill.y_axis.title = "Accepted / drafted"
    fill.x_axis.title = "Task class"
    fill.y_axis.number_format = "0%"
    fill.y_axis.scaling.min = 0.0
    data = Reference(curves_ws, min_col=2, max_col=1 + shown, min_row=refs.fill_header_row, max_row=refs.fill_last_row)
    cats = Reference(curves_ws, min_col=1, min_row=refs.fill_header_row + 1, max_row=refs.fill_last_row)
    fill.add_data(data, titles_from_data=True)
    fill.set_categories(cats)
    _axes_visible(fill)
    # wider with many classes, so 8 bars per class stay apart
    n_classes = refs.fill_last_row - refs.fill_header_row
    fill.width, fill.height = min(34.0, max(17.0, 17.0 + 0.8 * (n_classes - 8))), 9.0
    target.add_chart(fill, f"G{anchor_row}")


def _axes_visible(chart: Any) -> None:
    # openpyxl 3.1 leaves axis.delete unset, which some Excel builds read as "hidden"
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.legend.position = "b"
