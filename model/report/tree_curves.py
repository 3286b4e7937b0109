"""The Curves sheet's block for tree drafts (its chart: charts.add_tree_chart): speedup against acceptance length E.

A tree draft (``Tier.tree_size``) verifies many candidate tokens a step over its depth K; a per-token alpha
describes a chain (one candidate a position), so the speedup-against-alpha curve does not apply to it (the
window's chart draws none and says so: gui/charts/alpha.py; comparison.TREE_NEEDS_LENGTH). What holds for
any draft is speedup = E / (K c + v), with E the tokens a verify step emits (bonus token included) from 1 to
K + 1, at the tree's own costs: c per depth level over the tree's width, v the target's pass over the tree's
tokens (model/mechanics/tier_costs.py). The break-even is E* = K c + v. Each tier's E runs over its own 1..K + 1, so
each tier has its own two columns (E, speedup), live over K, c and v, which the chart draws as x and y.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from model.mechanics import arithmetic as ar
from model.curves.speedup import costs_at
from model.common.formatting import context as context_text
from model.report import styles as st
from model.report.comparison_sheet import STALE, cost_formula
from model.report.inputs_sheet import InputRefs
from model.report.notes_sheet import NotesRefs
from model.report.summary_sheet import context_label
from model.workbook.rows import Workbook

STEPS = 20  # points per tier from E = 1 to K + 1
KIND_WORDS = {ar.ALWAYS: "always", ar.ROOT: "to reach", ar.NEVER: "never"}  # as the alpha block's words
WHY = ("A tree draft verifies many candidate tokens a step; a per-token alpha describes a chain (one candidate a "
       "position), so the alpha curve above does not apply to it.",
       "What holds for any draft: speedup = E / (K c + v), E the tokens a verify step emits (1 to K + 1), at the "
       "tree's own c (per depth level) and v (its pass over the tree's tokens); E* = K c + v is the break-even.")


@dataclass(frozen=True)
class TreeRefs:
    tiers: list[str]  # in the block's order
    header_row: int  # per tier two columns from B: E, speedup
    last_row: int
    line_row: int  # two points of the 1.0x line, E in column A, 1.0 in column B
    next_row: int  # the first row free below the block


def tree_note(wb: Workbook, trees: list[int]) -> str:
    """The line under the alpha curves' heading that names the tree tiers left out of it, and why."""
    names = ", ".join(wb.tiers[i].name for i in trees)
    return (f"Tree drafts ({names}) have no curve here: a per-token alpha describes a chain. Their speedup against "
            "acceptance length E is in its own block below.")


def write_tree_curves(sheet: st.SheetWriter, wb: Workbook, refs: InputRefs, notes: NotesRefs, trees: list[int],
                      top: int) -> TreeRefs | None:
    """The block from row ``top`` down (None, and nothing written, without a speculative tree tier)."""
    if not trees:
        return None
    sheet.text(top, 1, "Speedup against acceptance length E (tree drafts), each tier at its claim context", st.HEADING)
    for n, line in enumerate(WHY):
        sheet.text(top + 1 + n, 1, line, st.NOTE)
    header = top + 4
    last = header + STEPS + 1
    k_row, size_row, c_row, v_row, be_row, kind_row, ctx_row, flag_row = range(last + 1, last + 9)
    for label, row in (("K (depth)", k_row), ("Tree size (verified)", size_row), ("c at that context", c_row),
                       ("v at that context", v_row), ("Break-even E* = Kc+v", be_row), ("Break-even", kind_row),
                       ("At context (tokens)", ctx_row), ("Grey values", flag_row)):
        sheet.text(row, 1, label, st.LABEL)
    sheet.text(header, 1, "Point", st.LABEL, {"valign": "bottom"})
    for n in range(STEPS + 1):
        sheet.number(header + 1 + n, 1, n, "0")
    wrapped = (st.LABEL, {"text_wrap": True, "valign": "bottom", "align": "right"})
    for m, i in enumerate(trees):
        tier = wb.tiers[i]
        e_col, s_col = 2 + 2 * m, 3 + 2 * m
        name, ctx = refs.tier(i, "name"), refs.tier(i, "claim_context")
        sheet.formula(header, e_col, f'={name}&": E"', f"{tier.name}: E", None, *wrapped)
        sheet.formula(header, s_col, f'={name}&" at "&{context_label(ctx)}',
                      f"{tier.name} at {context_text(tier.claim_context)}", None, *wrapped)
        c, v = (float(x) for x in costs_at(tier, float(tier.claim_context)))
        roof_c, roof_v = (float(x) for x in costs_at(dataclasses.replace(tier, cost_model="roofline"),
                                                     float(tier.claim_context)))
        grey = (st.COMPUTED,) if tier.cost_model == "roofline" else ()
        cm = refs.tier(i, "cost_model")
        sheet.formula(k_row, e_col, f"={refs.tier(i, 'k')}", tier.k, "0")
        sheet.number(size_row, e_col, tier.tree_size, "0")  # kept on Notes, not an input on Inputs
        sheet.formula(c_row, e_col, cost_formula(cm, roof_c, refs.tier(i, "c")), c, st.NUMBER, *grey)
        sheet.formula(v_row, e_col, cost_formula(cm, roof_v, refs.tier(i, "v")), v, st.NUMBER, *grey)
        col = st.col_name(e_col)
        K, C, V, BE = (f"${col}${r}" for r in (k_row, c_row, v_row, be_row))
        be = float(ar.break_even_length(tier.k, c, v))
        sheet.formula(be_row, e_col, f"={K}*{C}+{V}", be, "0.000")
        kind = int(ar.length_kind(be, tier.k))
        sheet.formula(kind_row, e_col, f'=IF({BE}<=1,"{KIND_WORDS[ar.ALWAYS]}",IF({BE}>={K}+1,"{KIND_WORDS[ar.NEVER]}",'
                      f'"{KIND_WORDS[ar.ROOT]}"))', KIND_WORDS[kind], None, st.RIGHT)
        sheet.computed(ctx_row, e_col, float(tier.claim_context), st.INTEGER)
        sheet.formula(flag_row, e_col, f'=IF(OR({notes.tier_changed(i)}<>"",{ctx}<>{float(tier.claim_context)!r}),'
                      f'"{STALE}","")', "", None, st.CENTRE)
        e = 1.0 + tier.k * np.arange(STEPS + 1) / STEPS
        for n in range(STEPS + 1):
            row = header + 1 + n
            sheet.formula(row, e_col, f"=1+{K}*$A{row}/{STEPS}", float(e[n]), "0.00")
            sheet.formula(row, s_col, f"={st.col_name(e_col)}{row}/({K}*{C}+{V})", float(e[n] / (tier.k * c + v)),
                          st.TIMES)
    sheet.colour_words(f"B{flag_row}:{st.col_name(1 + 2 * len(trees))}{flag_row}", {STALE: "tax"})
    sheet.ws.set_row(header - 1, 45)
    line = flag_row + 2
    sheet.text(line - 1, 1, "Break-even (1.0x), the chart's dashed line: E from 1 to the deepest tree's K + 1", st.LABEL)
    top_e = 1.0 + max(wb.tiers[i].k for i in trees)
    for n, x in enumerate((1.0, top_e)):
        sheet.number(line + n, 1, x, "0.00")
        sheet.number(line + n, 2, 1.0, st.TIMES)
    return TreeRefs([wb.tiers[i].name for i in trees], header, last, line, line + 3)
