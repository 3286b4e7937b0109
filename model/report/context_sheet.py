"""The Curves sheet's third section: speedup against context length, the data behind the app's third chart.

One block, with its chart on the Charts sheet (beside a 30-class block a chart
would be cut between two printed pages across), for each of the eight
speculative tiers with the best mix speedup (a 100-tier report's hundred blocks
were pages nobody read; the app draws any tier), task classes as
columns, contexts from 1K to 128K down (two points per doubling; contexts
written in K, as the app shows them). Speedup is E / (K c(L) + v(L)): E is the
Comparison sheet's, K follows Inputs. A typed tier's c and v follow Inputs; a
roofline tier's c(L) and v(L) are SpecLedger's (grey), and the block says when
they are stale.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model.comparison import Comparison
from model.curves.speedup import context_curves, costs_at
from model.report import styles as st
from model.report.charts import literal_title
from model.report.comparison_sheet import STALE, cost_formula, letter
from model.report.inputs_sheet import InputRefs
from model.report.layout import COMPARISON, CURVES
from model.report.notes_sheet import NotesRefs
from model.workbook.rows import Workbook

CONTEXTS = np.geomspace(1024.0, 131072.0, 15)  # 1K to 128K, two points per doubling
MAX_BLOCKS = 8  # the best tiers by mix speedup, each block with its chart
MAX_CLASS_LINES = 8  # more lines than this and a chart stops being readable
FIRST_CLASS_COL = 4  # A context, B c, C v, then one column per class, then the break-even line
BREAK_EVEN = "Break-even (1.0x)"
# two side by side as wide as the Charts sheet's other pairs, two rows of them to a printed page
CHART_W, CHART_H = 640, 340
_ROWS = CHART_H // 20 + 2  # sheet rows one row of charts takes, with a gap


@dataclass(frozen=True)
class ContextBlock:
    tier: str
    title_row: int
    header_row: int  # the row of column headers; the grid runs below it
    last_row: int


def write_context_curves(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs, notes: NotesRefs,
                         cmp_rows: dict[int, int], title_row: int, order: list[int], n_speculative: int
                         ) -> list[ContextBlock]:
    """Write the section from `title_row` down; returns where each tier's block sits."""
    import dataclasses

    n_c = len(wb.classes)
    which = f", the {len(order)} of {n_speculative} tiers with the best mix speedup" if len(order) < n_speculative else ""
    sheet.text(title_row, 1, "Speedup against context length (1K to 128K tokens), each task class at its acceptance "
               f"on the tier{which}", st.HEADING)
    notes_text = ["Speedup = E / (K c + v). E (tokens per stretch) is the Comparison sheet's, K the Inputs sheet's.",
                  "Typed tiers' c and v follow Inputs; roofline tiers' c and v at each context are SpecLedger's (grey)."]
    for n, note in enumerate(notes_text):
        sheet.text(title_row + 1 + n, 1, note, st.NOTE)
    if not order or not n_c:
        sheet.text(title_row + 1 + len(notes_text), 1, "No speculative tier or no task class: nothing to draw.", st.NOTE)
        return []
    e_col = letter("Tokens per stretch E")
    labels = ["Context", "c (draft / target)", "v (verify / step)"] + [c.name for c in wb.classes] + [BREAK_EVEN]
    be_col = FIRST_CLASS_COL + n_c
    blocks: list[ContextBlock] = []
    row = title_row + len(notes_text) + 2
    ctx = CONTEXTS[None, :]
    for i in order:
        tier = wb.tiers[i]
        header = row + 1
        first, last = header + 1, header + len(CONTEXTS)
        speedup = context_curves(tier, cmp.cells.alpha[i], contexts=CONTEXTS, tokens=cmp.own_tokens(i))  # (classes x contexts): what the app draws
        sheet.formula(row, 1, f'={refs.tier(i, "name")}&""', tier.name, None, st.HEADING)
        sheet.text(row, 2, "K", st.LABEL, st.RIGHT)
        sheet.formula(row, 3, f"={refs.tier(i, 'k')}", tier.k, "0")
        roof = tier.cost_model == "roofline"
        sheet.text(row, 5, "c, v: roofline model at each context (SpecLedger)" if roof
                   else "c, v: typed on Inputs, the same at every context", st.NOTE)
        sheet.formula(row, 4, f'=IF({notes.tier_changed(i)}<>"","{STALE}","")', "", None, st.BANNER, st.CENTRE)
        sheet.header_row(header, labels, text_columns=set())
        sheet.ws.set_row(header - 1, 30)
        roof_c, roof_v = (x.ravel() for x in costs_at(dataclasses.replace(tier, cost_model="roofline"), ctx))
        cm, k_ref = refs.tier(i, "cost_model"), f"$C${row}"
        grey = (st.COMPUTED,) if roof else ()
        e_refs = [f"{COMPARISON}!${e_col}${cmp_rows[i] + j}" for j in range(n_c)]
        for n, context in enumerate(CONTEXTS):
            r = first + n
            sheet.number(r, 1, float(context) / 1024.0, st.CONTEXT_K)
            sheet.formula(r, 2, cost_formula(cm, float(roof_c[n]), refs.tier(i, "c")),
                          float(roof_c[n]) if roof else tier.c, st.NUMBER, *grey)
            sheet.formula(r, 3, cost_formula(cm, float(roof_v[n]), refs.tier(i, "v")),
                          float(roof_v[n]) if roof else tier.v, st.NUMBER, *grey)
            for j, e_ref in enumerate(e_refs):
                if cmp.cell_not_given(i, j):  # a class nobody filled in: no curve (its Comparison row is dashed)
                    sheet.text(r, FIRST_CLASS_COL + j, "–", st.RIGHT)
                    continue
                sheet.formula(r, FIRST_CLASS_COL + j, f"={e_ref}/({k_ref}*$B{r}+$C{r})", float(speedup[j, n]), st.TIMES)
            sheet.number(r, be_col, 1.0, st.TIMES)  # the chart's break-even line, as in the app
        blocks.append(ContextBlock(tier.name, row, header, last))
        row = last + 3
    return blocks


def add_context_charts(book, sheet: st.SheetWriter, blocks: list[ContextBlock], n_classes: int,  # noqa: ANN001
                       first_row: int) -> list[int]:
    """A line per class against context (log scale, like the app's chart) for each block, on `sheet` (Charts)
    from `first_row` down: two side by side, four to a page. Returns the page breaks (0-based rows a page
    starts after) that keep every chart whole."""
    if not blocks:
        return []
    shown = min(n_classes, MAX_CLASS_LINES)
    more = f" (first {MAX_CLASS_LINES} of {n_classes} classes)" if n_classes > MAX_CLASS_LINES else ""
    be_col = FIRST_CLASS_COL + n_classes
    sheet.text(first_row, 1, "Speedup against context length, each tier's classes at their acceptance (data on "
               "the Curves sheet)", st.HEADING)
    breaks = [first_row - 1]  # the section starts a page (a break after row N starts the page at row N + 1)
    for n, block in enumerate(blocks):
        row = first_row + 1 + (n // 2) * _ROWS
        if n and n % 4 == 0:
            breaks.append(row - 1)
        chart = book.add_chart({"type": "scatter", "subtype": "straight"})
        literal_title(chart, f"Speedup against context: {block.tier}{more}")  # a tier named `Turbo!B2` too
        h, last = block.header_row - 1, block.last_row - 1  # 0-based
        for col in [FIRST_CLASS_COL + j for j in range(shown)] + [be_col]:
            line = {"width": 1.75}
            if col == be_col:  # below it the tier is a tax on that class
                line = {"width": 1.25, "dash_type": "dash", "color": "#7F7F7F"}
            chart.add_series({"name": [CURVES, h, col - 1], "categories": [CURVES, h + 1, 0, last, 0],
                              "values": [CURVES, h + 1, col - 1, last, col - 1], "line": line,
                              "marker": {"type": "none"}})
        chart.set_x_axis({"name": "Context length (log scale)", "log_base": 2, "min": 1, "max": 128,
                          "major_unit": 2,  # LibreOffice reads a log axis's unit as a factor: a gridline per doubling
                          "num_format": '0"K"', "major_gridlines": {"visible": True, "line": {"color": "#E0E0E0"}}})
        chart.set_y_axis({"name": "Speedup over plain decoding", "num_format": '0.0"x"'})
        chart.set_legend({"position": "bottom"})
        chart.set_size({"width": CHART_W, "height": CHART_H})
        sheet.ws.insert_chart(row - 1, 0, chart, {"x_offset": (n % 2) * (CHART_W + 16)})
    return breaks
