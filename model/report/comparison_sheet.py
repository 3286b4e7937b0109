"""The report's Comparison sheet: one row per (tier, class), live formulas over Inputs.

c and v follow the tier's cost model as set on Inputs: typed, they are Inputs'
c and v; roofline, they are SpecLedger's values at the class's context (no
closed form). The break-even and optimal K are SpecLedger's too; the "Grey
values" column says when the inputs they came from changed since export, and
the margin over break-even goes blank then rather than subtract a stale number.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from model import arithmetic as ar
from model.comparison import BREAK_EVEN_NAMES, VALUE_NAMES, VERDICT_NAMES, Comparison, TierCosts
from model.comparison import UNDECIDED as UNDECIDED_CODE
from model.report import styles as st
from model.report.inputs_sheet import InputRefs, refused_test
from model.report.layout import ALPHA_SHIFTS, COMPARISON_COLUMNS, SUMMARY
from model.report.notes_sheet import NotesRefs
from model.workbook.rows import Workbook
from model.workbook.validation import OVERRIDE_FIELDS

NA = "n/a"
STALE, PRICE_STALE, OPT_STALE = "stale", "price break-even stale", "optimal K stale"
REFUSED_INPUT = "input out of range"  # a row whose inputs hold what the validator refuses (pasted past validation)
FLAG_LOOKS = {REFUSED_INPUT: "tax", STALE: "tax", PRICE_STALE: "marginal", OPT_STALE: "marginal"}
WORTH, NOT_WORTH = VALUE_NAMES[0], VALUE_NAMES[1]
UNDECIDED = VALUE_NAMES[UNDECIDED_CODE]
HEADER_ROW = 4
_COL = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
_OVERRIDE_ALPHA = next(spec for spec in OVERRIDE_FIELDS if spec.name == "alpha")
_SHIFT_COLUMNS = ("Speedup, alpha -20 pts", "Speedup, alpha -10 pts", "Speedup, alpha +10 pts")


def letter(name: str) -> str:
    return st.col_name(_COL[name])


def tokens_formula(a: str, k: str) -> str:
    """E(alpha, K), with the first terms of its series next to alpha = 1 where the closed form loses digits."""
    return f"IF(ABS(1-{a})<1E-7,({k}+1)-(1-{a})*{k}*({k}+1)/2,(1-{a}^({k}+1))/(1-{a}))"


def banner_formula(flags: str) -> str:
    """The stale banner, over a range of "Grey values" flags."""
    return (f'=IF(COUNTIF({flags},"{REFUSED_INPUT}")>0,"An input on the Inputs sheet is outside what SpecLedger '
            f'accepts (pasted past the data validation): rows marked input out of range are not meaningful until '
            f'it is corrected.",'
            f'IF(COUNTIF({flags},"{STALE}")>0,"Inputs changed since export: grey values in rows marked stale are out '
            f'of date (Notes lists the inputs as exported). Import into SpecLedger and export again.",'
            f'IF(COUNTIF({flags},"{PRICE_STALE}")>0,"Prices, tokens or baselines changed since export: the price '
            f'break-even alphas are out of date.",'
            f'IF(COUNTIF({flags},"{OPT_STALE}")>0,"An acceptance or K max changed since export: the optimal K '
            f'columns are out of date.",""))))')


def grey_word(kind: int, value: float) -> float | str:
    """A solved acceptance as the report shows it: the number, or the kind's word (never, n/a)."""
    name = BREAK_EVEN_NAMES[int(kind)]
    return float(value) if name in ("always", "root") else name


def interval_ends(low: float, high: float) -> tuple[str, str] | tuple[None, None]:
    """SpecLedger's speedups at the ends of the acceptance interval, as formula literals (None without one)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return None, None
    return repr(float(low)), repr(float(high))


def _speed_words(s: str, band: str) -> str:
    return f'IF({s}<1,"tax",IF({s}<1+{band},"marginal","gain"))'


def speed_verdict_formula(s: str, band: str, lo: str | None, hi: str | None) -> str:
    """gain / marginal / tax of ``s``; undecided where the interval's ends (SpecLedger's, at the confidence
    set in the workbook) fall in different verdicts, with the marginal band live."""
    words = _speed_words(s, band)
    if lo is None or hi is None:
        return words
    return f'IF({_speed_words(lo, band)}<>{_speed_words(hi, band)},"{UNDECIDED}",{words})'


def value_formula(speed: str, cost: str, base_speed: str, base_cost: str, applicable: str,
                  lo: str | None = None, hi: str | None = None) -> str:
    """Worth the premium where speedup over the baseline >= price ratio, written without a division
    (a free baseline makes any price infinitely dear; two free tiers have no ratio). With an interval
    (SpecLedger's speedups at its ends) undecided where the live price ratio falls inside it."""
    verdict = f'IF({speed}*{base_cost}>={cost}*{base_speed},"{WORTH}","{NOT_WORTH}")'
    if lo is not None and hi is not None:
        verdict = (f'IF(AND({lo}*{base_cost}<{cost}*{base_speed},{hi}*{base_cost}>={cost}*{base_speed}),'
                   f'"{UNDECIDED}",{verdict})')
    return (f'=IF(NOT({applicable}),"n/a",IF(AND({cost}=0,{base_cost}=0),"n/a",{verdict}))')


def roofline_costs(wb: Workbook) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """c, v (tiers x classes) and c FLOPs (tiers) from the roofline presets of every tier, typed ones too,
    so that switching a tier's cost model in Excel has numbers to switch to."""
    n_t, n_c = len(wb.tiers), len(wb.classes)
    if not n_t:
        return np.zeros((0, n_c)), np.zeros((0, n_c)), np.zeros(0)
    costs = TierCosts([dataclasses.replace(t, cost_model="roofline") for t in wb.tiers])
    context = np.array([c.context for c in wb.classes], dtype=np.float64)[None, :]
    k = np.array([t.k for t in wb.tiers], dtype=np.float64)[:, None]
    c = np.broadcast_to(costs.c(context), (n_t, n_c)) if n_c else np.zeros((n_t, 0))
    v = np.broadcast_to(costs.v(k, context), (n_t, n_c)) if n_c else np.zeros((n_t, 0))
    return c, v, costs.c_flops[:, 0]


def _source_formula(refs: InputRefs, tier: str, cls: str, j: int) -> str:
    """Where the row's acceptance comes from, as compare() words it, following the source picked on Inputs."""
    override = refs.override(tier, cls, "alpha_source")
    return f'={override}&" (tier override)"' if override else f'={refs.cls(j, "alpha_source")}&""'


def cost_formula(cost_model: str, roof_value: float, typed_ref: str) -> str:
    return f'=IF({cost_model}="roofline",{roof_value!r},{typed_ref})'


def write_comparison(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs, notes: NotesRefs,
                     shifted: list[Shifted], baseline_at: str, summary_first: int) -> dict[int, int]:
    """`baseline_at`: the Summary column (letter) holding each tier's baseline position, 0 for none;
    the Summary lists tier i on row summary_first + i."""
    """One row per (tier, class), tier-major; returns the first row of each tier's block."""
    sheet.text(1, 1, "Comparison: every tier on every task class", st.TITLE)
    sheet.text(2, 1, "Formulas follow the Inputs sheet. Grey cells are SpecLedger's (no closed form: break-even, "
               "optimal K, roofline c and v at the class's context); 'Grey values' says when they are stale.", st.NOTE)
    n_t, n_c = len(wb.tiers), len(wb.classes)
    last = max(HEADER_ROW + n_t * n_c, HEADER_ROW + 1)
    flags = f"${letter('Grey values')}${HEADER_ROW + 1}:${letter('Grey values')}${last}"
    sheet.formula(3, 1, banner_formula(flags), "", None, st.BANNER)
    # left, every one: the table's filter buttons sit at a header's right end and would hide a right one's end
    sheet.header_row(HEADER_ROW, COMPARISON_COLUMNS)
    sheet.explain_headers(HEADER_ROW, COMPARISON_COLUMNS)
    sheet.ws.set_row(HEADER_ROW - 1, 58)
    raw_c, raw_v, flops = roofline_costs(wb)
    band = refs.setting("marginal_band")
    col = {name: st.col_name(i) for name, i in _COL.items()}
    put_name = sheet.writer()
    put_k = sheet.writer("0", st.RIGHT)
    put_pct = sheet.writer(st.PERCENT)
    put_pct_r = sheet.writer(st.PERCENT, st.RIGHT)
    put_num, put_num_grey = sheet.writer(st.NUMBER), sheet.writer(st.NUMBER, st.COMPUTED)
    put_margin = sheet.writer(st.SIGNED_PERCENT, st.RIGHT)
    put_e = sheet.writer("0.000")
    put_x = sheet.writer(st.TIMES)
    put_word = sheet.writer(None, st.CENTRE)
    put_source = sheet.writer(None, st.INDENT)
    put_grey_pct, put_grey_k, put_grey_x = (sheet.computed_writer(f) for f in (st.PERCENT, "0", st.TIMES))
    shift_cols = [(_COL[name], f"{shift:+g}") for shift, name in zip(ALPHA_SHIFTS, _SHIFT_COLUMNS)]
    speeds = f"${col['Speedup']}${HEADER_ROW + 1}:${col['Speedup']}${last}"
    outs, ins = refs.tier_column("price_out"), refs.tier_column("price_in")
    c_grey, c_value, c_flag = (_COL[n] for n in ("Price break-even alpha (SpecLedger)", "Value verdict", "Grey values"))
    k_max_changed = notes.k_max_changed()

    def override_refused(tier: str, cls: str) -> str:
        """The row's acceptance is the override's where there is one: its test (the class's is on Notes)."""
        ref = refs.override_alpha(tier, cls)
        return "," + refused_test(_OVERRIDE_ALPHA, ref, {}) if ref else ""

    def price_inputs(i: int, j: int, b: int, is_spec: bool) -> str:
        """True (as a formula) where an input of pair (i, j)'s price break-even moved since export.

        It weighs the tier's prices, its baseline's prices and speedup on the class (the baseline's K, c, v,
        speculative flag and acceptance there) and the class's tokens; the tier's own K, c and v already
        make the row "stale". Other tiers' and classes' edits leave it alone.
        """
        if not is_spec:  # n/a whatever the prices; a tier switched to speculative is "stale" already
            return "FALSE"
        if b < 0:  # n/a until a baseline is set
            return f'{notes.baseline_changed(i)}<>""'
        b_row = HEADER_ROW + 1 + b * n_c + j
        return (f'OR({notes.prices_changed(i)}<>"",{notes.baseline_changed(i)}<>"",{notes.prices_changed(b)}<>"",'
                f'{notes.tier_changed(b)}<>"",AND({refs.tier(b, "cost_model")}="roofline",{notes.class_changed(j)}<>""),'
                f'{notes.tokens_changed(j)}<>"",{col["Acceptance alpha"]}{b_row}<>{col["Alpha at export"]}{b_row})')

    first_rows: dict[int, int] = {}
    row = HEADER_ROW + 1
    for i, tier in enumerate(wb.tiers):
        first_rows[i] = row
        spec, cm = refs.tier(i, "speculative"), refs.tier(i, "cost_model")
        roof = tier.cost_model == "roofline"
        is_spec = bool(cmp.speculative[i])
        put_cost = put_num_grey if roof else put_num
        tier_name, changed = refs.tier(i, "name"), notes.tier_changed(i)
        tier_refused = notes.tier_refused(i)
        k_ref, c_ref, v_ref = refs.tier(i, "k"), refs.tier(i, "c"), refs.tier(i, "v")
        at = f"{SUMMARY}!${baseline_at}${summary_first + i}"
        base_ok = f'AND({spec}<>"no",{at}>0)'
        po, pi = refs.tier(i, "price_out"), refs.tier(i, "price_in")
        b_po, b_pi = f"INDEX({outs},{at})", f"INDEX({ins},{at})"
        for j, cls in enumerate(wb.classes):
            r = str(row)
            K, A, C, V, CF = (col[n] + r for n in ("K", "Acceptance alpha", "c (draft / target)", "v (verify / step)",
                                                   "c FLOPs"))
            BE, E, S, G = (col[n] + r for n in ("Break-even alpha (SpecLedger)", "Tokens per stretch E", "Speedup",
                                                "Grey values"))
            put_name(row, 1, f'={tier_name}&""', tier.name)
            put_name(row, 2, f'={refs.cls(j, "name")}&""', cls.name)
            put_k(row, 3, f"={k_ref}", tier.k)
            alpha_ref = refs.override_alpha(tier.name, cls.name) or refs.cls(j, "alpha")
            alpha = float(cmp.alpha[i, j])
            put_pct(row, 4, f"={alpha_ref}", alpha)
            put_source(row, 5, _source_formula(refs, tier.name, cls.name, j), cmp.alpha_source[i][j])
            rc, rv = float(raw_c[i, j]), float(raw_v[i, j])
            put_cost(row, 6, cost_formula(cm, rc, c_ref), rc if roof else tier.c)
            put_cost(row, 7, cost_formula(cm, rv, v_ref), rv if roof else tier.v)
            put_cost(row, 8, cost_formula(cm, float(flops[i]), C), float(flops[i]) if roof else tier.c)
            kind = BREAK_EVEN_NAMES[int(cmp.break_even_kind[i, j])]
            put_grey_pct(row, 9, float(cmp.break_even_alpha[i, j]) if kind in ("always", "root") else kind)
            margin = float(cmp.margin[i, j])
            put_margin(row, 10, f'=IF({G}="{STALE}","",IF(ISNUMBER({BE}),{A}-{BE},"{NA}"))',
                       NA if math.isnan(margin) else margin)
            put_e(row, 11, f'=IF({spec}="no",1,{tokens_formula(A, K)})', float(cmp.tokens_per_stretch[i, j]))
            fill = float(cmp.trailer_fill[i, j])
            put_pct_r(row, 12, f'=IF({spec}="no","{NA}",({E}-1)/{K})', NA if math.isnan(fill) else fill)
            put_x(row, 13, f'=IF({spec}="no",1,{E}/({K}*{C}+{V}))', float(cmp.speedup[i, j]))
            if is_spec:
                put_grey_k(row, 14, int(cmp.optimal_k[i, j]))
                put_grey_x(row, 15, float(cmp.optimal_speedup[i, j]))
            else:
                put_grey_k(row, 14, NA)
                put_grey_x(row, 15, NA)
            put_x(row, 16, f'=IF({spec}="no",1,({K}*{CF}+{K}+1)/{E})', float(cmp.cost_factor[i, j]))
            lo, hi = interval_ends(cmp.speedup_low[i, j], cmp.speedup_high[i, j])
            put_word(row, 17, f'=IF({spec}="no","{NA}",{speed_verdict_formula(S, band, lo, hi)})',
                     VERDICT_NAMES[int(cmp.verdict[i, j])])
            put_grey_pct(row, c_grey, grey_word(cmp.price_break_even_kind[i, j], cmp.price_break_even_alpha[i, j]))
            to, ti = refs.cls(j, "tokens_out"), refs.cls(j, "tokens_in")
            cost = f"IF({to}+{ti}=0,{po},{to}*{po}+{ti}*{pi})"
            base_cost = f"IF({to}+{ti}=0,{b_po},{to}*{b_po}+{ti}*{b_pi})"
            base_speed = f"INDEX({speeds},({at}-1)*{n_c}+{j + 1})"
            put_word(row, c_value, value_formula(S, cost, base_speed, base_cost, base_ok, lo, hi),
                     VALUE_NAMES[int(cmp.value_verdict[i, j])])
            price_moved = price_inputs(i, j, int(cmp.baseline_index[i]), is_spec)
            # optimal K is n/a on a tier that does not run speculative decoding (one switched on is "stale")
            opt_moved = f'OR({k_max_changed}<>"",{A}<>{col["Alpha at export"]}{r})' if is_spec else "FALSE"
            refused = f'OR({tier_refused}<>"",{notes.class_refused(j)}<>""{override_refused(tier.name, cls.name)})'
            put_word(row, c_flag, f'=IF({refused},"{REFUSED_INPUT}",'
                     f'IF(OR({changed}<>"",AND({cm}="roofline",{notes.class_changed(j)}<>"")),"{STALE}",'
                     f'IF({price_moved},"{PRICE_STALE}",'
                     f'IF({opt_moved},"{OPT_STALE}",""))))', "")
            for n, (c_n, shift) in enumerate(shift_cols):
                moved = f"MIN(1,MAX(0,{A}{shift}))"
                put_x(row, c_n, f'=IF({spec}="no",1,{tokens_formula(moved, K)}/({K}*{C}+{V}))',
                      float(shifted[n].speedup[i, j]))
            sheet.number(row, _COL["Alpha at export"], alpha, st.PERCENT)
            row += 1

    sheet.table("ComparisonTable", HEADER_ROW, last, COMPARISON_COLUMNS)
    sheet.colour_verdicts(f"{col['Speed verdict']}{HEADER_ROW + 1}:{col['Speed verdict']}{last}")
    sheet.colour_words(f"{col['Value verdict']}{HEADER_ROW + 1}:{col['Value verdict']}{last}",
                       {WORTH: "gain", NOT_WORTH: "tax", UNDECIDED: "undecided"})
    sheet.colour_words(flags.replace("$", ""), FLAG_LOOKS)
    sheet.ws.freeze_panes(HEADER_ROW, 2)
    # wide enough for each bold header word ("Acceptance", "(SpecLedger)") beside its filter button
    sheet.widths({1: 20, 2: 14, 3: 5, 4: 12, 5: 19, 6: 10, 7: 10, 8: 9, 9: 14, 10: 11, 11: 10,
                  12: 9, 13: 9, 14: 13, 15: 14, 16: 11, 17: 10, 18: 14, 19: 16, 20: 18, 21: 10, 22: 10, 23: 10})
    sheet.hide(_COL["Alpha at export"], 9)
    # printed one page wide, through the verdicts and flags: the per-class sensitivity speedups to their right
    # feed the Sensitivity sheet, which prints them as mixes
    sheet.print_last_col = _COL["Grey values"]
    sheet.ws.print_area(0, 0, last - 1, _COL["Grey values"] - 1)
    return first_rows


@dataclass(frozen=True)
class Shifted:
    """The comparison's speedups with every acceptance moved by one shift: what the sensitivity sheet shows."""

    speedup: np.ndarray  # tiers x classes
    mix_speedup: np.ndarray  # per tier
    price_per_speedup: np.ndarray  # per tier


def sensitivity(wb: Workbook, cmp: Comparison) -> list[Shifted]:
    """Speedups and mixes with every class's and override's acceptance moved by each of ALPHA_SHIFTS (clipped
    to 0..1), by the core's arithmetic on the comparison's own K, c and v (the optimal-K search is not needed)."""
    k = cmp.k[:, None]
    spec = cmp.speculative[:, None]
    tokens_out = np.array([c.tokens_out for c in wb.classes], dtype=np.float64)
    weights = tokens_out if tokens_out.sum() > 0 else np.ones(len(wb.classes))
    stretch = ar.stretch_cost(k, np.where(spec, cmp.c, 1.0), np.where(spec, cmp.v, 1.0))
    out = []
    for shift in ALPHA_SHIFTS:
        moved = np.clip(cmp.alpha + shift, 0.0, 1.0)
        speedup = np.where(spec, ar.expected_tokens(moved, k) / stretch, 1.0)
        mix = ar.blend_speedup(speedup, weights[None, :]) if len(wb.classes) else np.full(len(wb.tiers), np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            out.append(Shifted(speedup, mix, cmp.monthly_cost / mix))
    return out
