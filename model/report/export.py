"""The Excel report: Summary, Comparison, Inputs and Curves sheets with live formulas.

Closed-form results (tokens per stretch, trailer fill, speedup, cost factor,
monthly cost, premium, mix speedup, verdicts) are formulas over the Inputs
sheet. What a spreadsheet cannot solve in closed form (break-even and
claim-implied acceptance, roofline c and v, optimal K) is written as values,
shaded grey and labelled as computed by SpecLedger.

`build_report` also returns, for every formula cell, the number SpecLedger
computes for it, so a test can hold a real spreadsheet engine to it.
"""
from __future__ import annotations

import datetime as _dt
import math
import os
from pathlib import Path
from collections.abc import Generator
from typing import Any

import numpy as np

from model.report import styles as st
from model.comparison import BREAK_EVEN_NAMES, VERDICT_NAMES, Comparison, TierCosts, compare
from model.report.charts import add_charts, write_curves
from model.report.context_sheet import add_context_charts, write_context_curves
from model.report.inputs_sheet import InputRefs, write_inputs
from model.report.layout import COMPARISON_COLUMNS, COMPARISON, CURVES, INPUTS, SUMMARY
from model.cancel import run_to_end
from model.workbook.validation import WorkbookError, check_workbook
from model.workbook.rows import Workbook
from model.workbook.json_file import atomic_write

Expected = dict[tuple[str, str], Any]  # (sheet, cell) -> SpecLedger's value of that formula cell
NA = "n/a"
DASH = "–"

COMPARISON_HEADER_ROW = 4
SUMMARY_COLUMNS = [
    "Tier", "Vendor", "Speculative", "Baseline", "Claimed speedup", "Claim context", "Mix speedup",
    "Monthly cost", "Premium over baseline", "Speedup vs baseline", "Cost per 1x speedup",
    "Alpha the claim needs (SpecLedger)", "Claim holds", "Verdict",
]
_TEXT_COLUMNS = {"Tier", "Task class", "Vendor", "Baseline", "Alpha source"}
_CENTRED_COLUMNS = {"Verdict", "Claim holds", "Speculative"}
_COL = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
_SCOL = {name: i + 1 for i, name in enumerate(SUMMARY_COLUMNS)}


def _align(column: str) -> Any:
    """Words in number columns ("n/a", "never") sit where the numbers sit; verdicts are centred."""
    if column in _CENTRED_COLUMNS:
        return st.CENTRE
    return None if column in _TEXT_COLUMNS else st.RIGHT


def _letter(col: int) -> str:
    from openpyxl.utils import get_column_letter
    return get_column_letter(col)


def export_report(wb: Workbook, path: str | os.PathLike[str], source_name: str = "") -> None:
    """Write the report for `wb` to `path` atomically; any failure leaves an existing file as it was."""
    run_to_end(export_steps(wb, path, source_name))


def export_steps(wb: Workbook, path: str | os.PathLike[str], source_name: str = "") -> Generator[tuple[int, int], None, Path]:
    """export_report() as long work for a worker thread: yields (steps done, steps in all), returns the path.

    Closing it between steps (a cancel) writes nothing; the save itself is one atomic step.
    """
    target = Path(path)
    check_workbook(wb, source_name or str(target))
    _refuse_if_open_elsewhere(target)
    book, _ = yield from _build_steps(wb, source_name, None)
    try:
        atomic_write(target, book.save)
    except OSError as exc:
        raise WorkbookError([f"cannot be written ({exc.strerror or exc}); any existing file was left as it was"],
                            str(target)) from None
    yield _STEPS, _STEPS
    return target


def _refuse_if_open_elsewhere(target: Path) -> None:
    """Excel and LibreOffice leave a lock file beside a document they have open.

    Replacing the file under them would lose the analyst's unsaved edits there
    (and Excel on Windows refuses the rename anyway), so say so up front.
    """
    for lock in (target.with_name(f".~lock.{target.name}#"), target.with_name(f"~${target.name}")):
        if lock.exists():
            raise WorkbookError([f"is open in another program (lock file {lock.name}); close it there and export again"],
                                str(target))
    if target.is_dir():
        raise WorkbookError(["is a folder, not a file"], str(target))


def build_report(wb: Workbook, source_name: str = "", now: _dt.datetime | None = None) -> tuple[Any, Expected]:
    """The report as an openpyxl workbook, and SpecLedger's value for each formula cell."""
    return run_to_end(_build_steps(wb, source_name, now))


_STEPS = 7  # six parts built, then the save


def _build_steps(wb: Workbook, source_name: str, now: _dt.datetime | None) -> Generator[tuple[int, int], None, tuple[Any, Expected]]:
    """Builds the report part by part, yielding (parts done, _STEPS) after each."""
    from openpyxl import Workbook as Book

    cmp = compare(wb)
    book = Book()
    summary = book.active
    summary.title = SUMMARY
    comparison = book.create_sheet(COMPARISON)
    inputs = book.create_sheet(INPUTS)
    curves = book.create_sheet(CURVES)
    expected: Expected = {}

    refs = write_inputs(inputs, wb)
    yield 1, _STEPS
    cmp_rows = _write_comparison(comparison, wb, cmp, refs, expected)
    yield 2, _STEPS
    table_end = _write_summary(summary, wb, cmp, refs, cmp_rows, expected, source_name, now)
    yield 3, _STEPS
    curve_refs = write_curves(curves, wb, cmp, refs, cmp_rows, expected)
    add_charts(summary, curves, curve_refs, anchor_row=table_end + 3)
    yield 4, _STEPS
    blocks = write_context_curves(curves, wb, cmp, refs, cmp_rows, expected, curve_refs.fill_last_row + 3)
    yield 5, _STEPS
    add_context_charts(curves, blocks, len(wb.classes))
    yield 6, _STEPS
    return book, expected


def _is_nan(x: Any) -> bool:
    return isinstance(x, float) and math.isnan(x)


def _write_comparison(ws: Any, wb: Workbook, cmp: Comparison, refs: InputRefs, expected: Expected) -> dict[int, int]:
    """One row per (tier, class), tier-major; returns the first row of each tier's block."""
    st.put_text(ws, 1, 1, "Comparison: every tier on every task class", font=st.TITLE_FONT)
    st.put_text(ws, 2, 1, "Formulas follow the Inputs sheet. Grey cells are computed by SpecLedger (no closed form: "
                "break-even, optimal K, and c, v from the roofline model at the class's context); re-export after "
                "changing K or a cost model.", font=st.NOTE_FONT)
    st.put_header_row(ws, COMPARISON_HEADER_ROW, COMPARISON_COLUMNS, text_columns=_TEXT_COLUMNS, centred=_CENTRED_COLUMNS)
    ws.row_dimensions[COMPARISON_HEADER_ROW].height = 58
    n_t, n_c = len(wb.tiers), len(wb.classes)
    # c and v for every tier, also the non-speculative ones (compare() blanks those), so
    # that switching a tier to speculative in Excel still has numbers to work with
    costs = TierCosts(wb.tiers) if n_t else None
    context = np.array([c.context for c in wb.classes], dtype=np.float64)[None, :]
    k = np.array([t.k for t in wb.tiers], dtype=np.float64)[:, None]
    raw_c = np.broadcast_to(costs.c(context), (n_t, n_c)) if n_t and n_c else np.zeros((n_t, n_c))
    raw_v = np.broadcast_to(costs.v(k, context), (n_t, n_c)) if n_t and n_c else np.zeros((n_t, n_c))
    band = refs.setting("marginal_band")

    first_rows: dict[int, int] = {}
    row = COMPARISON_HEADER_ROW + 1
    col = {name: _letter(i) for name, i in _COL.items()}
    for i, tier in enumerate(wb.tiers):
        first_rows[i] = row
        spec = refs.tier(i, "speculative")
        roof = tier.cost_model == "roofline"
        is_spec = bool(cmp.speculative[i])
        for j, cls in enumerate(wb.classes):
            r = str(row)
            K, A, C, V, CF = (col[n] + r for n in ("K", "Acceptance alpha", "c (draft / target)", "v (verify / step)", "c FLOPs"))
            BE, E, S = (col[n] + r for n in ("Break-even alpha (SpecLedger)", "Tokens per stretch E", "Speedup"))

            def formula(name: str, text: str, value: Any, fmt: str | None = None) -> None:
                st.put_formula(ws, row, _COL[name], text, fmt, alignment=_align(name))
                expected[(COMPARISON, f"{col[name]}{row}")] = value

            st.put_text(ws, row, _COL["Tier"], tier.name)
            st.put_text(ws, row, _COL["Task class"], cls.name)
            formula("K", f"={refs.tier(i, 'k')}", tier.k, "0")
            alpha_ref = refs.override_alpha(tier.name, cls.name) or refs.cls(j, "alpha")
            formula("Acceptance alpha", f"={alpha_ref}", float(cmp.alpha[i, j]), st.PERCENT)
            st.put_text(ws, row, _COL["Alpha source"], cmp.alpha_source[i][j], alignment=st.INDENT)
            if roof:
                st.put_value(ws, row, _COL["c (draft / target)"], float(raw_c[i, j]), st.NUMBER, computed=True)
                st.put_value(ws, row, _COL["v (verify / step)"], float(raw_v[i, j]), st.NUMBER, computed=True)
                st.put_value(ws, row, _COL["c FLOPs"], float(costs.c_flops[i, 0]), st.NUMBER, computed=True)
            else:
                formula("c (draft / target)", f"={refs.tier(i, 'c')}", tier.c, st.NUMBER)
                formula("v (verify / step)", f"={refs.tier(i, 'v')}", tier.v, st.NUMBER)
                formula("c FLOPs", f"={C}", tier.c, st.NUMBER)  # typed tiers: compute scales like time

            kind = BREAK_EVEN_NAMES[int(cmp.break_even_kind[i, j])]
            if kind in ("always", "root"):
                st.put_value(ws, row, _COL["Break-even alpha (SpecLedger)"], float(cmp.break_even_alpha[i, j]),
                             st.PERCENT, computed=True)
            else:
                st.put_text(ws, row, _COL["Break-even alpha (SpecLedger)"], kind, font=st.COMPUTED_FONT,
                            fill=st.COMPUTED_FILL, alignment=st.RIGHT)
            margin = float(cmp.margin[i, j])
            formula("Margin over break-even", f'=IF(ISNUMBER({BE}),{A}-{BE},"{NA}")', NA if math.isnan(margin) else margin,
                    st.SIGNED_PERCENT)
            # the closed form loses digits to cancellation next to alpha = 1, so (like
            # model/arithmetic.py) the first terms of its series are used there
            formula("Tokens per stretch E",
                    f'=IF({spec}="no",1,IF(ABS(1-{A})<1E-7,({K}+1)-(1-{A})*{K}*({K}+1)/2,(1-{A}^({K}+1))/(1-{A})))',
                    float(cmp.tokens_per_stretch[i, j]), "0.000")
            fill = float(cmp.trailer_fill[i, j])
            formula("Trailer fill", f'=IF({spec}="no","{NA}",({E}-1)/{K})', NA if math.isnan(fill) else fill, st.PERCENT)
            formula("Speedup", f'=IF({spec}="no",1,{E}/({K}*{C}+{V}))', float(cmp.speedup[i, j]), st.TIMES)
            if is_spec:
                st.put_value(ws, row, _COL["Optimal K (SpecLedger)"], int(cmp.optimal_k[i, j]), "0", computed=True)
                st.put_value(ws, row, _COL["Speedup at optimal K (SpecLedger)"], float(cmp.optimal_speedup[i, j]),
                             st.TIMES, computed=True)
            else:
                for name in ("Optimal K (SpecLedger)", "Speedup at optimal K (SpecLedger)"):
                    st.put_text(ws, row, _COL[name], NA, font=st.COMPUTED_FONT, fill=st.COMPUTED_FILL, alignment=st.RIGHT)
            formula("Cost factor (FLOPs / token)", f'=IF({spec}="no",1,({K}*{CF}+{K}+1)/{E})',
                    float(cmp.cost_factor[i, j]), st.TIMES)
            formula("Verdict", f'=IF({spec}="no","{NA}",IF({S}<1,"tax",IF({S}<1+{band},"marginal","gain")))',
                    VERDICT_NAMES[int(cmp.verdict[i, j])])
            row += 1

    last = max(row - 1, COMPARISON_HEADER_ROW + 1)
    st.add_table(ws, "ComparisonTable", COMPARISON_HEADER_ROW, last, len(COMPARISON_COLUMNS))
    verdict = col["Verdict"]
    st.colour_verdicts(ws, f"{verdict}{COMPARISON_HEADER_ROW + 1}:{verdict}{last}")
    ws.freeze_panes = f"C{COMPARISON_HEADER_ROW + 1}"
    st.set_widths(ws, {1: 24, 2: 16, 3: 5, 4: 12, 5: 24, 6: 11, 7: 11, 8: 9, 9: 13, 10: 12, 11: 11,
                       12: 10, 13: 10, 14: 13, 15: 13, 16: 12, 17: 10})
    st.landscape(ws)
    return first_rows


_ASSUMPTIONS = [
    ("Acceptance convention", "per-token acceptance alpha (i.i.d. model). Trailer fill = accepted / drafted tokens "
     "(vLLM's draft acceptance rate); tokens per stretch E = mean acceptance length."),
    ("Speedup", "S = E / (K c + v), E = (1 - alpha^(K+1)) / (1 - alpha). c = draft forward / target step, "
     "v = verify pass / target step: typed per tier, or from the roofline model at each class's context."),
    ("Mix speedup", "weighted by monthly output tokens, harmonic mean over task classes (time adds up, speed does not); "
     "with no output tokens entered at all, every class weighs the same."),
    ("Cost model", "monthly cost = list prices x monthly tokens; the draft's cost is inside the fast tier's price. "
     "Cost factor = compute per emitted token vs plain decoding, (K c + K + 1) / E."),
    ("Verdict", "tax if S < 1; marginal if 1 <= S < 1 + the marginal band; gain otherwise; "
     "n/a for tiers that do not run speculative decoding."),
    ("Unconfirmed", "a tier whose use of speculative decoding the vendor has not confirmed (speculative = unknown) is "
     "computed as if it ran it; confirm it, since the answer changes what the throughput claim measures."),
    ("Claim holds", "mix speedup >= claimed speedup x (1 - claim tolerance); tolerance and band are on the Inputs sheet."),
    ("Grey cells", "computed by SpecLedger (break-even and claim-implied alpha, roofline c and v, optimal K); they do "
     "not follow edits in the spreadsheet. Everything else is a live formula over the Inputs sheet."),
]


def _write_summary(ws: Any, wb: Workbook, cmp: Comparison, refs: InputRefs, cmp_rows: dict[int, int],
                   expected: Expected, source_name: str, now: _dt.datetime | None) -> int:
    when = (now or _dt.datetime.now(_dt.timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    st.put_text(ws, 1, 1, "SpecLedger report: is the fast tier worth it on this workload?", font=st.TITLE_FONT)
    header = [("Workbook", wb.title or DASH), ("File", source_name or DASH), ("Exported", when),
              ("Currency", wb.settings.currency), *_ASSUMPTIONS]
    last_col = _letter(len(SUMMARY_COLUMNS))
    for n, (label, text) in enumerate(header):
        st.put_text(ws, 3 + n, 1, label, font=st.LABEL_FONT, alignment=st.WRAP)
        st.put_text(ws, 3 + n, 2, text, alignment=st.WRAP)
        # one merged, wrapped cell across the table's width, so the note prints whole
        ws.merge_cells(f"B{3 + n}:{last_col}{3 + n}")
        if len(str(text)) > 110:
            ws.row_dimensions[3 + n].height = 30
    hdr = 3 + len(header) + 1
    st.put_header_row(ws, hdr, SUMMARY_COLUMNS, text_columns=_TEXT_COLUMNS, centred=_CENTRED_COLUMNS)
    ws.row_dimensions[hdr].height = 58

    n_c = len(wb.classes)
    money = st.money_format(wb.settings.currency)
    col = {name: _letter(i) for name, i in _SCOL.items()}
    first = hdr + 1
    speed = _letter(COMPARISON_COLUMNS.index("Speedup") + 1)
    weights = refs.class_column("tokens_out")
    tokens_in = refs.class_column("tokens_in")
    for i, tier in enumerate(wb.tiers):
        row = first + i
        G, H = f"{col['Mix speedup']}{row}", f"{col['Monthly cost']}{row}"

        def formula(name: str, text: str, value: Any, fmt: str | None = None) -> None:
            st.put_formula(ws, row, _SCOL[name], text, fmt, alignment=_align(name))
            expected[(SUMMARY, f"{col[name]}{row}")] = value

        def dash(name: str) -> None:
            st.put_text(ws, row, _SCOL[name], DASH, alignment=_align(name))

        st.put_text(ws, row, _SCOL["Tier"], tier.name)
        st.put_text(ws, row, _SCOL["Vendor"], tier.vendor)
        shown = "unknown (unconfirmed)" if tier.speculative == "unknown" else tier.speculative
        st.put_text(ws, row, _SCOL["Speculative"], shown, alignment=st.CENTRE)
        st.put_text(ws, row, _SCOL["Baseline"], tier.baseline or DASH)
        if tier.claimed_speedup is None:
            dash("Claimed speedup")
        else:
            formula("Claimed speedup", f"={refs.tier(i, 'claimed_speedup')}", tier.claimed_speedup, st.TIMES1)
        formula("Claim context", f"={refs.tier(i, 'claim_context')}", tier.claim_context, st.INTEGER)
        if n_c:
            r0 = cmp_rows[i]
            s_range = f"{COMPARISON}!${speed}${r0}:${speed}${r0 + n_c - 1}"
            formula("Mix speedup", f"=IF(SUM({weights})>0,SUM({weights})/SUMPRODUCT({weights}/{s_range}),"
                    f"COUNT({s_range})/SUMPRODUCT(1/{s_range}))", float(cmp.mix_speedup[i]), st.TIMES)
            formula("Monthly cost", f"=(SUM({weights})*{refs.tier(i, 'price_out')}+SUM({tokens_in})*"
                    f"{refs.tier(i, 'price_in')})/1000000", float(cmp.monthly_cost[i]), money)
        else:
            dash("Mix speedup")
            st.put_value(ws, row, _SCOL["Monthly cost"], 0.0, money)
        b = int(cmp.baseline_index[i])
        if b >= 0 and n_c:
            bG, bH = f"{col['Mix speedup']}{first + b}", f"{col['Monthly cost']}{first + b}"
            premium = float(cmp.premium[i])
            formula("Premium over baseline", f'=IF({bH}>0,{H}/{bH}-1,"{DASH}")', DASH if math.isnan(premium) else premium,
                    st.SIGNED_PERCENT)
            formula("Speedup vs baseline", f"={G}/{bG}", float(cmp.speedup_vs_baseline[i]), st.TIMES)
        else:
            dash("Premium over baseline")
            dash("Speedup vs baseline")
        if n_c:
            formula("Cost per 1x speedup", f"={H}/{G}", float(cmp.price_per_speedup[i]), money)
        else:
            dash("Cost per 1x speedup")
        holds = cmp.claim_holds[i]
        claim_alpha = float(cmp.claim_alpha[i])
        if holds is None:
            dash("Alpha the claim needs (SpecLedger)")
            dash("Claim holds")
        else:
            if math.isnan(claim_alpha):
                st.put_text(ws, row, _SCOL["Alpha the claim needs (SpecLedger)"], "out of reach",
                            font=st.COMPUTED_FONT, fill=st.COMPUTED_FILL, alignment=st.RIGHT)
            else:
                st.put_value(ws, row, _SCOL["Alpha the claim needs (SpecLedger)"], claim_alpha, st.PERCENT, computed=True)
            formula("Claim holds", f'=IF({G}>={refs.tier(i, "claimed_speedup")}*(1-{refs.setting("claim_tolerance")}),'
                    f'"yes","no")', "yes" if holds else "no")
        if n_c:
            formula("Verdict", f'=IF({refs.tier(i, "speculative")}="no","{NA}",IF({G}<1,"tax",'
                    f'IF({G}<1+{refs.setting("marginal_band")},"marginal","gain")))', VERDICT_NAMES[int(cmp.tier_verdict[i])])
        else:
            dash("Verdict")

    last = max(first + len(wb.tiers) - 1, first)
    st.add_table(ws, "SummaryTable", hdr, last, len(SUMMARY_COLUMNS))
    verdict = col["Verdict"]
    st.colour_verdicts(ws, f"{verdict}{first}:{verdict}{last}")
    holds_col = col["Claim holds"]
    st.colour_verdicts_words(ws, f"{holds_col}{first}:{holds_col}{last}")
    ws.freeze_panes = f"B{first}"
    st.set_widths(ws, {1: 24, 2: 16, 3: 21, 4: 20, 5: 10, 6: 9, 7: 9, 8: 12, 9: 12, 10: 12, 11: 12, 12: 13,
                       13: 8, 14: 10})
    st.landscape(ws)
    return last
