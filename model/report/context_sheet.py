"""The Curves sheet's third section: speedup against context length, the data behind the app's third chart.

One block per speculative tier, task classes as columns and the app's context
grid (model/curves.CONTEXT_GRID, 1K to 128K) down. Speedup is E / (K c(L) + v(L)):
E, a class's tokens per stretch, does not depend on the context, so it is read
from the Comparison sheet (and follows the class's acceptance on Inputs); K
follows Inputs. c and v of a typed tier do not depend on the context either and
are formulas over Inputs; a roofline tier's c(L) and v(L) have no closed form,
so they are SpecLedger's values, grey like every such cell in the report.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from model.report import styles as st
from model.comparison import Comparison
from model.curves import CONTEXT_GRID, context_curves, costs_at
from model.report.inputs_sheet import InputRefs
from model.report.layout import COMPARISON_COLUMNS, COMPARISON, CURVES
from model.workbook.rows import Workbook

MAX_CHARTS = 8  # one chart per tier beside its block; past this the sheet's data stands alone
MAX_CLASS_LINES = 8  # more lines than this and a chart stops being readable
FIRST_CLASS_COL = 4  # A context, B c, C v, then one column per class, then the break-even line
BREAK_EVEN = "Break-even (1.0x)"


@dataclass(frozen=True)
class ContextBlock:
    tier: str
    header_row: int  # the row of column headers; the grid runs below it
    last_row: int


def write_context_curves(ws: Any, wb: Workbook, cmp: Comparison, refs: InputRefs, cmp_rows: dict[int, int],
                         expected: dict, title_row: int) -> list[ContextBlock]:
    """Write the section from `title_row` down; returns where each tier's block sits."""
    from openpyxl.utils import get_column_letter


    spec = [i for i in range(len(wb.tiers)) if cmp.speculative[i]]
    n_c = len(wb.classes)
    st.put_text(ws, title_row, 1, "Speedup against context length (1K to 128K tokens), each task class at its "
                "acceptance on the tier", font=st.HEADING_FONT)
    # short lines: a long note spills far right on screen and shrinks the printed page
    notes = ["Speedup = E / (K c + v). E, tokens per stretch, is the Comparison sheet's and K the Inputs sheet's:",
             "both follow an edited acceptance or K. Typed tiers' c and v follow Inputs and do not change with context.",
             "Roofline tiers' c and v at each context are computed by SpecLedger (grey): re-export after changing them."]
    for n, note in enumerate(notes):
        st.put_text(ws, title_row + 1 + n, 1, note, font=st.NOTE_FONT)
    if not spec or not n_c:
        st.put_text(ws, title_row + 1 + len(notes), 1, "No speculative tier or no task class: nothing to draw.",
                    font=st.NOTE_FONT)
        return []

    e_col = get_column_letter(COMPARISON_COLUMNS.index("Tokens per stretch E") + 1)
    contexts = [float(x) for x in CONTEXT_GRID]
    labels = ["Context (tokens)", "c (draft / target)", "v (verify / step)"] + [c.name for c in wb.classes] + [BREAK_EVEN]
    be_col = FIRST_CLASS_COL + n_c
    blocks: list[ContextBlock] = []
    row = title_row + len(notes) + 2
    ctx = CONTEXT_GRID[None, :]
    for i in spec:
        tier = wb.tiers[i]
        header = row + 1
        first, last = header + 1, header + len(contexts)
        speedup = context_curves(tier, cmp.alpha[i])  # (classes x contexts): what the app draws
        st.put_text(ws, row, 1, tier.name, font=st.HEADING_FONT)
        st.put_text(ws, row, 2, "K", font=st.LABEL_FONT, alignment=st.RIGHT)
        st.put_formula(ws, row, 3, f"={refs.tier(i, 'k')}", "0")
        expected[(CURVES, f"C{row}")] = tier.k
        roof = tier.cost_model == "roofline"
        st.put_text(ws, row, 5, "c, v: roofline model at each context (SpecLedger)" if roof
                    else "c, v: typed on Inputs, the same at every context", font=st.NOTE_FONT)
        st.put_header_row(ws, header, labels, text_columns=set())  # every column is numbers
        ws.row_dimensions[header].height = 30  # room for long class names to wrap instead of running together
        if roof:
            c_at, v_at = (x.ravel() for x in costs_at(tier, ctx))
        c_ref, v_ref, k_ref = refs.tier(i, "c"), refs.tier(i, "v"), f"$C${row}"
        e_refs = [f"{COMPARISON}!${e_col}${cmp_rows[i] + j}" for j in range(n_c)]
        for n, context in enumerate(contexts):
            r = first + n
            st.put_value(ws, r, 1, context, st.INTEGER)
            if roof:
                st.put_value(ws, r, 2, float(c_at[n]), st.NUMBER, computed=True)
                st.put_value(ws, r, 3, float(v_at[n]), st.NUMBER, computed=True)
            else:
                st.put_formula(ws, r, 2, f"={c_ref}", st.NUMBER)
                st.put_formula(ws, r, 3, f"={v_ref}", st.NUMBER)
                expected[(CURVES, f"B{r}")] = tier.c
                expected[(CURVES, f"C{r}")] = tier.v
            for j, e_ref in enumerate(e_refs):
                col = FIRST_CLASS_COL + j
                st.put_formula(ws, r, col, f"={e_ref}/({k_ref}*$B{r}+$C{r})", st.TIMES)
                expected[(CURVES, f"{get_column_letter(col)}{r}")] = float(speedup[j, n])
            st.put_value(ws, r, be_col, 1.0, st.TIMES)  # the chart's break-even line, as in the app
        blocks.append(ContextBlock(tier.name, header, last))
        row = last + 3
    # the sections above set the widths of columns B to one past their tiers; the classes may reach further
    st.set_widths(ws, {col: 16 for col in range(len(spec) + 3, be_col + 1)})
    return blocks


def add_context_charts(ws: Any, blocks: list[ContextBlock], n_classes: int) -> None:
    """A line per class against context (log scale, like the app's chart), beside each of the first tiers' blocks."""
    if not blocks:
        return
    from openpyxl.chart import Reference, ScatterChart, Series
    from openpyxl.utils import get_column_letter

    shown = min(n_classes, MAX_CLASS_LINES)
    more = f" (first {MAX_CLASS_LINES} of {n_classes} classes)" if n_classes > MAX_CLASS_LINES else ""
    be_col = FIRST_CLASS_COL + n_classes
    anchor_col = get_column_letter(be_col + 2)
    for block in blocks[:MAX_CHARTS]:
        chart = ScatterChart()
        chart.title = f"Speedup against context: {block.tier}{more}"
        chart.style = 2
        chart.scatterStyle = "line"
        chart.x_axis.title = "Context length (tokens, log scale)"
        chart.y_axis.title = "Speedup over plain decoding"
        chart.x_axis.scaling.logBase = 2
        chart.x_axis.majorUnit = 2  # LibreOffice reads a log axis's unit as a factor: a gridline per doubling
        chart.x_axis.scaling.min, chart.x_axis.scaling.max = float(CONTEXT_GRID[0]), float(CONTEXT_GRID[-1])
        chart.x_axis.number_format = "#,##0"
        chart.y_axis.number_format = '0.0"x"'
        xs = Reference(ws, min_col=1, min_row=block.header_row + 1, max_row=block.last_row)
        for col in [FIRST_CLASS_COL + j for j in range(shown)] + [be_col]:
            ys = Reference(ws, min_col=col, min_row=block.header_row, max_row=block.last_row)
            series = Series(ys, xs, title_from_data=True)
            series.marker.symbol = "none"
            series.smooth = False
            series.graphicalProperties.line.width = 22000  # EMU, about 1.75 pt
            if col == be_col:  # below it the tier is a tax on that class
                series.graphicalProperties.line.dashStyle = "dash"
                series.graphicalProperties.line.solidFill = "7F7F7F"
            chart.series.append(series)
        chart.x_axis.delete = False
        chart.y_axis.delete = False
        chart.legend.position = "b"
        chart.width, chart.height = 17.0, 10.0
        ws.add_chart(chart, f"{anchor_col}{block.header_row}")
