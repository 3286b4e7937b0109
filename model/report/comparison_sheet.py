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

from model.mechanics import arithmetic as ar
from model.comparison import BREAK_EVEN_NAMES, VALUE_NAMES, VERDICT_NAMES, Comparison
from model.comparison import UNDECIDED as UNDECIDED_CODE
from model.acceptance.interval import z_quantile
from model.mechanics.tier_costs import TierCosts
from model.comparison.verdicts import TOO_FEW_KEY, TOO_FEW_LABEL, labelled
from model.report import styles as st
from model.report.inputs_sheet import InputRefs, refused_test
from model.report.profiles_table import EXTRAPOLATED
from model.report.layout import ALPHA_SHIFTS, COMPARISON_COLUMNS, SUMMARY
from model.report.notes_sheet import NotesRefs
from model.report.sensitivity import Shifted, shifted_tokens_formula
from model.workbook.rows import ALPHA_SOURCES, Tier, Workbook
from model.report.layout import OVERRIDE_COLUMNS

NA = "n/a"
STALE, PRICE_STALE, OPT_STALE = "stale", "price break-even stale", "optimal K stale"
EXTRAPOLATED_WORD = "extrapolated"  # E at K reaches past the positions (or the K) measured
REFUSED_INPUT = "input out of range"  # a row whose inputs hold what the validator refuses (pasted past validation)
FLAG_LOOKS = {REFUSED_INPUT: "tax", STALE: "tax", PRICE_STALE: "marginal", OPT_STALE: "marginal"}
WORTH, NOT_WORTH = VALUE_NAMES[0], VALUE_NAMES[1]
UNDECIDED = VALUE_NAMES[UNDECIDED_CODE]
TOO_FEW_SUFFIX = f" ({TOO_FEW_LABEL})"
HEADER_ROW = 4
# the key to the verdicts' colours, under the table (the Grid words its own)
COMPARISON_LEGEND = [("gain", "gain, worth it"), ("marginal", "marginal"), ("tax", "tax, not worth it"),
                     ("undecided", "undecided"), ("too few", "too few requests"), ("incomplete", "incomplete")]
# what the colours without a verdict's plain word mean, said beside the key (the Summary's too)
UNDECIDED_MEANING = "undecided: the interval crosses a line (measure more)"
INCOMPLETE_MEANING = "incomplete: c and v made up by an import"
TOO_FEW_MEANING = "too few requests: no interval yet"
_COL = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
# an override's numbers the rows read: its alpha and its interval (the class's are checked on Notes)
_OVERRIDE_CHECKED = [spec for spec in OVERRIDE_COLUMNS if spec.name.startswith("alpha")
                     and spec.kind in ("percent", "optional_percent", "int")]
_SHIFT_COLUMNS = ("Speedup, alpha -20 pts", "Speedup, alpha -10 pts", "Speedup, alpha +10 pts")
# what a row models from its tier's K, c and v: a tier whose mechanics nobody gave (Tier.defaulted) shows a dash
# there, as compare() models nothing from them (its verdict columns say why)
_MODELLED = frozenset(_COL[n] for n in (
    "Break-even alpha (SpecLedger)", "Break-even length E*", "Margin over break-even", "Tokens per stretch E",
    "E extrapolated", "Trailer fill", "Speedup", "E, low end", "E, high end", "Speedup, low end", "Speedup, high end",
    "Optimal K (SpecLedger)", "Speedup at optimal K (SpecLedger)", "Cost factor (FLOPs / token)",
    "Price break-even length E*", "Price break-even acceptance (SpecLedger)", "Speedup vs baseline",
    "Speedup vs baseline, low end", "Speedup vs baseline, high end", "Log-speedup sd, low", "Log-speedup sd, high",
    *_SHIFT_COLUMNS))
_DASH = "–"
# by header, so a column added in between does not shift the others' widths; wide enough for each bold header
# word ("Acceptance", "(SpecLedger)") beside its filter button
_WIDTHS = {"Tier": 20, "Task class": 13, "K": 5, "Acceptance alpha": 12, "Alpha source": 17, "c (draft / target)": 9,
           "v (verify / step)": 9, "c FLOPs": 9, "Break-even alpha (SpecLedger)": 13, "Break-even length E*": 8,
           "Margin over break-even": 10,
           "Tokens per stretch E": 10, "Trailer fill": 8, "Speedup": 9, "Speedup, low end": 8,
           "Speedup, high end": 8, "Optimal K (SpecLedger)": 12, "Speedup at optimal K (SpecLedger)": 12,
           "Cost factor (FLOPs / token)": 10, "Speed verdict": 10, "Price break-even acceptance (SpecLedger)": 13,
           "Value verdict": 16, "Grey values": 17, **{name: 10 for name in _SHIFT_COLUMNS},
           **{name: 12 for name in COMPARISON_COLUMNS[COMPARISON_COLUMNS.index("Alpha at export") + 1:]}}


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


def _speed_words(s: str, band: str) -> str:
    return f'IF({s}<1,"tax",IF({s}<1+{band},"marginal","gain"))'


def speed_verdict_formula(s: str, band: str, lo: str | None = None, hi: str | None = None) -> str:
    """gain / marginal / tax of ``s``; undecided where the cells ``lo`` and ``hi`` (the speedups at the
    interval's ends, live over its ends on Inputs; blank without an interval) fall in different verdicts: where
    a verdict's line (1, 1 + band) lies between them (lo <= hi). One AND: a blank end compared with a number is
    text against a number, no error, and ISNUMBER has already made the AND false."""
    words = _speed_words(s, band)
    if lo is None or hi is None:
        return words
    return (f'IF(AND(ISNUMBER({lo}),ISNUMBER({hi}),OR(AND({lo}<1,{hi}>=1),AND({lo}<1+{band},{hi}>=1+{band}))),'
            f'"{UNDECIDED}",{words})')


def too_few_suffix(lo: str, method: str) -> str:
    """'(too few requests)' after a verdict (model.comparison.verdicts.labelled) where the row has no interval (its low end
    ``lo`` blank) and its acceptance's method on Inputs says it was measured from too few requests for one: live,
    so a range typed on Inputs gives the verdict its interval and takes the label away."""
    return f'IF(ISNUMBER({lo}),"",IF(ISNUMBER(SEARCH("{TOO_FEW_KEY}",{method})),"{TOO_FEW_SUFFIX}",""))'


def value_formula(speed: str, cost: str, base_speed: str, base_cost: str, applicable: str,
                  lo: str | None = None, hi: str | None = None, suffix: str = "") -> str:
    """Worth the premium where speedup over the baseline >= price ratio, written without a division
    (a free baseline makes any price infinitely dear; two free tiers have no ratio). With the cells of the
    interval's ends (blank without one), undecided where the live price ratio falls inside it."""
    verdict = f'IF({speed}*{base_cost}>={cost}*{base_speed},"{WORTH}","{NOT_WORTH}")'
    if lo is not None and hi is not None:
        # one AND evaluates every argument: N() reads a blank end as 0, where a blank times a price is an error
        verdict = (f'IF(AND(ISNUMBER({lo}),ISNUMBER({hi}),N({lo})*{base_cost}<{cost}*{base_speed},'
                   f'N({hi})*{base_cost}>={cost}*{base_speed}),"{UNDECIDED}",{verdict})')
    return (f'=IF(NOT({applicable}),"n/a",IF(AND({cost}=0,{base_cost}=0),"n/a",{verdict}{suffix and "&" + suffix}))')


def name_width(names: list[str], least: float, most: float = 30) -> float:
    """A column wide enough for the longest of `names` on one line (about 1.1 characters a unit, as bold
    headers and wide letters run), from `least` up to `most`."""
    longest = max((len(name) for name in names), default=0)
    return float(max(least, min(most, math.ceil(longest / 1.1) + 1)))


def cost_weights(cmp: Comparison, i: int, j: int, b: int) -> tuple[float, float]:
    """Class j's tokens at tier i's and at baseline b's prices, by band and cache (the output price alone where it
    has no tokens): what the value verdict weighs; the baseline's is nan without one."""
    cost = cmp.class_cost
    assert cost is not None
    return float(cost[i, j]), float(cost[b, j]) if b >= 0 else math.nan


def priced_weight(prices: dict[str, str], to: str, ti: str, cached: str, long: str, context: str) -> str:
    """The class's tokens priced on one tier as a formula (model/comparison/terms.priced_cells): ``prices`` the tier's
    price cells by field (price_out ... price_cached_in_long, band_threshold), the others the class's cells. Cached
    input at the input price of its band where no cached price is given; a blank threshold: one band."""
    po, pi, pc = prices["price_out"], prices["price_in"], prices["price_cached_in"]
    thr, pol, pil, pcl = (prices[n] for n in ("band_threshold", "price_out_long", "price_in_long", "price_cached_in_long"))
    out_share = f"IF({to}+{ti}=0,1,{to})"  # no tokens: the output price alone (ti is 0 there)
    c = f"N({cached})"

    def band(p_out: str, p_in: str, p_cached: str) -> str:
        return f"{out_share}*{p_out}+{ti}*((1-{c})*{p_in}+{c}*{p_cached})"
    short = band(po, pi, f'IF({pc}="",{pi},{pc})')
    long_in = f'IF({pil}="",{pi},{pil})'
    long_ = band(f'IF({pol}="",{po},{pol})', long_in, f'IF({pcl}="",{long_in},{pcl})')
    share = f'IF({long}="",IF({context}>{thr},1,0),{long})'
    return f'IF({thr}="",{short},(1-{share})*({short})+{share}*({long_}))'


# a tier's prices the class's cost weight reads (model/workbook/vendor_terms.py has the band and cached ones)
PRICE_FIELDS = ("price_out", "price_in", "price_cached_in", "band_threshold", "price_out_long", "price_in_long",
                "price_cached_in_long")


def end_value(x: float) -> float | str:
    """An interval end as the report shows it: the number, or blank where there is no interval."""
    return float(x) if math.isfinite(x) else ""


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
    """Where the row's acceptance comes from, as compare() words it, following the source picked on Inputs;
    and its kind where it is not one alpha (a profile, a length: the profiles table on Inputs)."""
    override = refs.override(tier, cls, "alpha_source")
    shape = refs.shape(tier, cls)
    kind = f'&" · {shape.kind}"' if shape else ""
    return f'={override}&" (tier override)"{kind}' if override else f'={refs.cls(j, "alpha_source")}&""{kind}'


def _source_lines(refs: InputRefs, tier: str, cls: str) -> int:
    """The lines the row's Alpha source takes at its column's width, for the longest source it can show: the
    longest choice, "(tier override)" where an override sets it, its kind where it is a profile or a length
    ("imported (tier override) · profile" was cut to "imported (tier overri"). The indent takes a unit."""
    shape = refs.shape(tier, cls)
    words = (max(ALPHA_SOURCES, key=len) + (" (tier override)" if refs.override(tier, cls, "alpha_source") else "")
             + (f" · {shape.kind}" if shape else ""))
    return st.wrapped_lines(words, _WIDTHS["Alpha source"] - 1)


def cost_formula(cost_model: str, roof_value: float, typed_ref: str) -> str:
    return f'=IF({cost_model}="roofline",{roof_value!r},{typed_ref})'


def write_comparison(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs, notes: NotesRefs,
                     shifted: list[Shifted], baseline_at: str, summary_first: int) -> dict[int, int]:
    """`baseline_at`: the Summary column (letter) holding each tier's baseline position, 0 for none;
    the Summary lists tier i on row summary_first + i."""
    """One row per (tier, class), tier-major; returns the first row of each tier's block."""
    sheet.text(1, 1, "Comparison: every tier on every task class", st.TITLE)
    sheet.text(2, 1, "Formulas follow the Inputs sheet. Grey cells are SpecLedger's (no closed form: break-even, "
               "optimal K, roofline c and v at the class's context); 'Grey values' says when they are stale. "
               "E* = K c + v is the break-even as tokens per step, for any draft; an E marked * is extrapolated "
               "past the positions measured.", st.NOTE)
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
    put_x, put_x_r = sheet.writer(st.TIMES), sheet.writer(st.TIMES, st.RIGHT)
    put_e_r = sheet.writer("0.000", st.RIGHT)
    put_price_len = sheet.writer('"E* "0.000', st.RIGHT)
    confidence = refs.setting("confidence")
    put_word = sheet.writer(None, st.CENTRE)
    put_word_wrapped = sheet.writer(None, st.CENTRE, {"text_wrap": True, "valign": "vcenter"})
    put_source = sheet.writer(None, st.INDENT)
    put_source_wrapped = sheet.writer(None, st.INDENT, {"text_wrap": True})
    put_grey_pct, put_grey_k, put_grey_x, put_grey_alpha = (sheet.computed_writer(f) for f in (
        st.PERCENT, "0", st.TIMES, st.ALPHA_PERCENT))
    dashed = [False]  # the row being written is a made-up tier's: its modelled columns read a dash

    def or_dash(put):  # noqa: ANN001, ANN202
        def write(row: int, col: int, *args: object) -> None:
            if dashed[0] and col in _MODELLED:
                sheet.text(row, col, _DASH, st.CENTRE)
            else:
                put(row, col, *args)
        return write

    put_margin, put_e, put_x, put_x_r, put_e_r, put_price_len, put_word, put_pct_r = (or_dash(w) for w in (
        put_margin, put_e, put_x, put_x_r, put_e_r, put_price_len, put_word, put_pct_r))
    put_grey_pct, put_grey_k, put_grey_x, put_grey_alpha = (or_dash(w) for w in (
        put_grey_pct, put_grey_k, put_grey_x, put_grey_alpha))
    shift_cols = [(_COL[name], f"{shift:+g}") for shift, name in zip(ALPHA_SHIFTS, _SHIFT_COLUMNS)]
    speeds = f"${col['Speedup']}${HEADER_ROW + 1}:${col['Speedup']}${last}"
    c_grey, c_value, c_flag = (_COL[n] for n in ("Price break-even acceptance (SpecLedger)", "Value verdict", "Grey values"))
    k_max_changed = notes.k_max_changed()

    def override_refused(tier: str, cls: str) -> str:
        """The row's acceptance is the override's where there is one: its test (the class's is on Notes)."""
        if refs.override_alpha(tier, cls) is None:
            return ""
        return "".join("," + refused_test(spec, refs.override(tier, cls, spec.name), {}) for spec in _OVERRIDE_CHECKED)

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
        made_up = cmp.incomplete[i] if cmp.incomplete else ""  # Tier.defaulted: mechanics nobody gave
        dashed[0] = bool(made_up)
        put_cost = put_num_grey if roof else put_num
        tier_name, changed = refs.tier(i, "name"), notes.tier_changed(i)
        tier_refused = notes.tier_refused(i)
        k_ref, c_ref, v_ref = refs.tier(i, "k"), refs.tier(i, "c"), refs.tier(i, "v")
        at = f"{SUMMARY}!${baseline_at}${summary_first + i}"
        # a baseline whose mechanics were made up gives no speed over it, nor a value verdict (compare() says why)
        base_ok = "FALSE" if cmp.baseline_withheld(i) else f'AND({spec}<>"no",{at}>0)'
        ok = not cmp.baseline_withheld(i) and is_spec and int(cmp.baseline_index[i]) >= 0  # base_ok at export
        own = {name: refs.tier(i, name) for name in PRICE_FIELDS}
        on_base = {name: f"INDEX({refs.tier_column(name)},{at})" for name in PRICE_FIELDS}
        for j, cls in enumerate(wb.classes):
            r = str(row)
            K, A, C, V, CF = (col[n] + r for n in ("K", "Acceptance alpha", "c (draft / target)", "v (verify / step)",
                                                   "c FLOPs"))
            BE, E, S, G = (col[n] + r for n in ("Break-even alpha (SpecLedger)", "Tokens per stretch E", "Speedup",
                                                "Grey values"))
            put_name(row, _COL["Tier"], f'={tier_name}&""', tier.name)
            put_name(row, _COL["Task class"], f'={refs.cls(j, "name")}&""', cls.name)
            put_k(row, _COL["K"], f"={k_ref}", tier.k)
            alpha_ref = refs.override_alpha(tier.name, cls.name) or refs.cls(j, "alpha")
            alpha = float(cmp.alpha[i, j])
            put_pct(row, _COL["Acceptance alpha"], f"={alpha_ref}", alpha)
            shape = refs.shape(tier.name, cls.name)
            # the longest words the source can read (the analyst may pick another on Inputs) wrap within the column
            tall = _source_lines(refs, tier.name, cls.name)
            (put_source if tall == 1 else put_source_wrapped)(
                row, _COL["Alpha source"], _source_formula(refs, tier.name, cls.name, j),
                cmp.alpha_source[i][j] + (f" · {shape.kind}" if shape else ""))
            if tall > 1:
                sheet.ws.set_row(row - 1, 15 * tall)
            rc, rv = float(raw_c[i, j]), float(raw_v[i, j])
            put_cost(row, _COL["c (draft / target)"], cost_formula(cm, rc, c_ref), rc if roof else tier.c)
            put_cost(row, _COL["v (verify / step)"], cost_formula(cm, rv, v_ref), rv if roof else tier.v)
            put_cost(row, _COL["c FLOPs"], cost_formula(cm, float(flops[i]), C), float(flops[i]) if roof else tier.c)
            kind = BREAK_EVEN_NAMES[int(cmp.break_even_kind[i, j])]
            # alpha* is the i.i.d. translation of E* = K c + v: it says nothing of a profile or a length
            put_grey_pct(row, _COL["Break-even alpha (SpecLedger)"], f"n/a: a {shape.kind}" if shape and is_spec else
                         float(cmp.break_even_alpha[i, j]) if kind in ("always", "root") else kind)
            be_len = float(cmp.break_even_length[i, j])
            put_e_r(row, _COL["Break-even length E*"], f'=IF({spec}="no","{NA}",{K}*{C}+{V})',
                    NA if math.isnan(be_len) else be_len)
            margin = float(cmp.margin[i, j])
            put_margin(row, _COL["Margin over break-even"], f'=IF({G}="{STALE}","",IF(ISNUMBER({BE}),{A}-{BE},"{NA}"))',
                       NA if math.isnan(margin) else margin)
            put_e(row, _COL["Tokens per stretch E"],
                  f'=IF({spec}="no",1,{shape.tokens(K) if shape else tokens_formula(A, K)})',
                  float(cmp.tokens_per_stretch[i, j]))
            extrapolated = bool(cmp.extrapolated is not None and cmp.extrapolated[i, j])
            if shape:
                put_word(row, _COL["E extrapolated"], f'=IF({spec}="no","",IF({shape.extrapolated(K)},"{EXTRAPOLATED_WORD}",""))',
                         EXTRAPOLATED_WORD if extrapolated else "")
            fill = float(cmp.trailer_fill[i, j])
            put_pct_r(row, _COL["Trailer fill"], f'=IF({spec}="no","{NA}",({E}-1)/{K})', NA if math.isnan(fill) else fill)
            put_x(row, _COL["Speedup"], f'=IF({spec}="no",1,{E}/({K}*{C}+{V}))', float(cmp.speedup[i, j]))
            # the interval: its ends are inputs on Inputs (the override's, or the class's), carried through live
            a_lo, a_hi, conf = (refs.acceptance(j, tier.name, cls.name, f)
                                for f in ("alpha_low", "alpha_high", "alpha_confidence"))
            ALO, AHI, ELO, EHI, SLO, SHI, VS = (col[n] + r for n in (
                "Alpha low", "Alpha high", "E, low end", "E, high end", "Speedup, low end", "Speedup, high end",
                "Speedup vs baseline"))
            lo_a, hi_a = float(cmp.alpha_low[i, j]), float(cmp.alpha_high[i, j])
            if not shape:  # an interval on alpha says nothing of a profile or a length (compare() gives it none)
                put_pct_r(row, _COL["Alpha low"], f'=IF(OR({spec}="no",{a_lo}="",{a_hi}=""),"",{a_lo})', end_value(lo_a))
                put_pct_r(row, _COL["Alpha high"], f'=IF(OR({spec}="no",{a_lo}="",{a_hi}=""),"",{a_hi})', end_value(hi_a))
            put_pct_r(row, _COL["Interval confidence"], f'=IF(ISNUMBER({ELO if shape else ALO}),IF({conf}="",{confidence},{conf}),"")',
                      end_value(cmp.alpha_confidence[i, j]))
            if shape:  # a profile's or a length's own interval on E (Inputs), carried to this K as the core does
                for name, end, e_val in (("E, low end", shape.low, cmp.tokens_per_stretch_low[i, j]),
                                         ("E, high end", shape.high, cmp.tokens_per_stretch_high[i, j])):
                    put_e_r(row, _COL[name], f'=IF({spec}="no","",{shape.tokens_end(end, E, K)})', end_value(e_val))
            else:
                for name, a_cell, a_val in (("E, low end", ALO, lo_a), ("E, high end", AHI, hi_a)):
                    put_e_r(row, _COL[name], f'=IF(ISNUMBER({a_cell}),{tokens_formula(a_cell, K)},"")',
                            end_value(float(ar.expected_tokens(a_val, tier.k))) if math.isfinite(a_val) else "")
            put_x_r(row, _COL["Speedup, low end"], f'=IF(ISNUMBER({ELO}),{ELO}/({K}*{C}+{V}),"")',
                    end_value(cmp.speedup_low[i, j]))
            put_x_r(row, _COL["Speedup, high end"], f'=IF(ISNUMBER({EHI}),{EHI}/({K}*{C}+{V}),"")',
                    end_value(cmp.speedup_high[i, j]))
            if is_spec:
                put_grey_k(row, _COL["Optimal K (SpecLedger)"], int(cmp.optimal_k[i, j]))
                put_grey_x(row, _COL["Speedup at optimal K (SpecLedger)"], float(cmp.optimal_speedup[i, j]))
            else:
                put_grey_k(row, _COL["Optimal K (SpecLedger)"], NA)
                put_grey_x(row, _COL["Speedup at optimal K (SpecLedger)"], NA)
            put_x(row, _COL["Cost factor (FLOPs / token)"], f'=IF({spec}="no",1,({K}*{CF}+{K}+1)/{E})',
                  float(cmp.cost_factor[i, j]))
            few = too_few_suffix(SLO, refs.acceptance(j, tier.name, cls.name, "alpha_method"))
            thin = cmp.too_few(i, j)
            put_verdict = put_word_wrapped if thin else put_word
            speed_words = labelled(VERDICT_NAMES[int(cmp.verdict[i, j])], thin)
            value_words = labelled(VALUE_NAMES[int(cmp.value_verdict[i, j])], thin)
            if made_up:  # no verdicts from mechanics an import made up: the words the Summary and the app say
                sheet.text(row, _COL["Speed verdict"], made_up, st.CENTRE, st.VERDICT_LOOKS["incomplete"],
                           {"text_wrap": True, "valign": "vcenter"})
                sheet.ws.set_row(row - 1, 15 * max(tall, st.wrapped_lines(made_up, _WIDTHS["Speed verdict"] * 0.8)))
            else:
                put_verdict(row, _COL["Speed verdict"],
                            f'=IF({spec}="no","{NA}",{speed_verdict_formula(S, band, SLO, SHI)}&{few})', speed_words)
            p_len = float(cmp.price_break_even_length[i, j])
            PL = col["Price break-even length E*"] + r
            if shape and is_spec:  # no alpha for a profile or a length: the price's E*, live, as the window shows it
                put_price_len(row, c_grey, f'=IF(ISNUMBER({PL}),{PL},"{NA}")', p_len if math.isfinite(p_len) else NA)
            else:
                put_grey_alpha(row, c_grey, grey_word(cmp.price_break_even_kind[i, j], cmp.price_break_even_alpha[i, j]))
            to, ti = refs.cls(j, "tokens_out"), refs.cls(j, "tokens_in")
            # the class's tokens at the tier's and at its baseline's prices (the prices alone where it has no
            # tokens), and the baseline's speedup on the class: cells the value columns below read
            cost, base_cost, base_speed = (col[n] + r for n in ("Cost weight on tier", "Cost weight on baseline",
                                                                  "Baseline speedup"))
            weights = cost_weights(cmp, i, j, int(cmp.baseline_index[i]))
            # by band and cache (docs/design/vendor-terms.md); no tokens: the output price alone
            on_class = (to, ti, refs.cls(j, "cached_share"), refs.cls(j, "long_share"), refs.cls(j, "context"))
            put_num(row, _COL["Cost weight on tier"], f"={priced_weight(own, *on_class)}", weights[0])
            put_num(row, _COL["Cost weight on baseline"],
                    f'=IF({base_ok},{priced_weight(on_base, *on_class)},"")', weights[1] if ok else "")
            # the cells after read the baseline's weight being a number as base_ok: one cell, not its expression
            has_base = f"ISNUMBER({base_cost})"
            put_num(row, _COL["Baseline speedup"], f'=IF({has_base},INDEX({speeds},({at}-1)*{n_c}+{j + 1}),"")',
                    float(cmp.speedup[int(cmp.baseline_index[i]), j]) if ok else "")
            if made_up:
                sheet.text(row, c_value, "incomplete", st.CENTRE, st.VERDICT_LOOKS["incomplete"])
            else:
                put_verdict(row, c_value, value_formula(S, cost, base_speed, base_cost, has_base, SLO, SHI, few),
                            value_words)
                if thin:  # the labelled words wrap in the verdict columns and the row grows for them
                    sheet.ws.set_row(row - 1, 15 * max(tall, *(st.wrapped_lines(words, _WIDTHS[name] * 0.8) for words, name
                                                              in ((speed_words, "Speed verdict"), (value_words, "Value verdict")))))
            # the price's break-even as an acceptance length: the speedup over the baseline the price needs, in E
            put_e_r(row, _COL["Price break-even length E*"],
                    f'=IF({has_base},IF(AND({cost}=0,{base_cost}=0),"",IF({base_cost}=0,"{NA}",'
                    f'{cost}/{base_cost}*{base_speed}*({K}*{C}+{V}))),"")',
                    "" if math.isnan(p_len) else NA if math.isinf(p_len) else p_len)
            # the speedup over the baseline on this class, at the interval's ends too (the baseline held at its value)
            put_x_r(row, _COL["Speedup vs baseline"],
                    f'=IF({has_base},IF(AND({cost}=0,{base_cost}=0),"",{S}/{base_speed}),"")',
                    end_value(cmp.pair_vs_baseline[i, j]))
            for name, end, want in (("Speedup vs baseline, low end", SLO, cmp.pair_vs_baseline_low[i, j]),
                                    ("Speedup vs baseline, high end", SHI, cmp.pair_vs_baseline_high[i, j])):
                put_x_r(row, _COL[name], f'=IF(AND(ISNUMBER({VS}),ISNUMBER({end})),{end}/{base_speed},"")',
                        end_value(want))
            # the standard deviation of log S each end implies (propagate.mix_interval): the Summary's mix interval
            z = float(z_quantile(cmp.alpha_confidence[i, j])) if math.isfinite(cmp.alpha_confidence[i, j]) else 1.0
            has = math.isfinite(cmp.speedup_low[i, j]) and math.isfinite(cmp.alpha_confidence[i, j])
            z = float(z_quantile(cmp.alpha_confidence[i, j])) if has else 1.0
            log_s = math.log(float(cmp.speedup[i, j])) if not made_up else math.nan
            for name, gap, want in (
                    ("Log-speedup sd, low", f"LN({S})-LN({SLO})", log_s - math.log(cmp.speedup_low[i, j]) if has else 0.0),
                    ("Log-speedup sd, high", f"LN({SHI})-LN({S})", math.log(cmp.speedup_high[i, j]) - log_s if has else 0.0)):
                put_e(row, _COL[name], f'=IF(ISNUMBER({SLO}),({gap})/NORMINV(0.5+{col["Interval confidence"]}{r}/2,0,1),0)',
                      want / z)
            price_moved = price_inputs(i, j, int(cmp.baseline_index[i]), is_spec)
            # optimal K is n/a on a tier that does not run speculative decoding (one switched on is "stale")
            profile_moved = f',{shape.changed}<>""' if shape and shape.kind == "profile" else ""
            opt_moved = (f'OR({k_max_changed}<>"",{A}<>{col["Alpha at export"]}{r}{profile_moved})' if is_spec
                         else "FALSE")
            # a length carried to another K rests on SpecLedger's alpha for it (grey on Inputs)
            length_moved = f',{shape.changed}<>""' if shape and shape.kind == "length" else ""
            refused = f'OR({tier_refused}<>"",{notes.class_refused(j)}<>""{override_refused(tier.name, cls.name)})'
            put_word(row, c_flag, f'=IF({refused},"{REFUSED_INPUT}",'
                     f'IF(OR({changed}<>"",AND({cm}="roofline",{notes.class_changed(j)}<>""){length_moved}),"{STALE}",'
                     f'IF({price_moved},"{PRICE_STALE}",'
                     f'IF({opt_moved},"{OPT_STALE}",""))))', "")
            for n, (c_n, shift) in enumerate(shift_cols):
                # alpha moved; a profile's or a length's every conditional rate moved (sensitivity.SHIFT_MEANING)
                moved = (shifted_tokens_formula(shape, K, shift) if shape
                         else tokens_formula(f"MIN(1,MAX(0,{A}{shift}))", K))
                put_x(row, c_n, f'=IF({spec}="no",1,({moved})/({K}*{C}+{V}))', float(shifted[n].speedup[i, j]))
            sheet.number(row, _COL["Alpha at export"], alpha, st.PERCENT)
            row += 1

    sheet.table("ComparisonTable", HEADER_ROW, last, COMPARISON_COLUMNS)
    sheet.colour_verdicts(f"{col['Speed verdict']}{HEADER_ROW + 1}:{col['Speed verdict']}{last}")
    sheet.colour_words(f"{col['Value verdict']}{HEADER_ROW + 1}:{col['Value verdict']}{last}",
                       {WORTH: "gain", NOT_WORTH: "tax", UNDECIDED: "undecided"})
    sheet.colour_too_few(f"{col['Speed verdict']}{HEADER_ROW + 1}:{col['Speed verdict']}{last}")
    sheet.colour_too_few(f"{col['Value verdict']}{HEADER_ROW + 1}:{col['Value verdict']}{last}")
    sheet.colour_words(flags.replace("$", ""), FLAG_LOOKS)
    if refs.profiles:  # an E reaching past the measured positions reads 2.463*
        e_col, x_col = col["Tokens per stretch E"], col["E extrapolated"]
        sheet.ws.conditional_format(f"{e_col}{HEADER_ROW + 1}:{e_col}{last}", {
            "type": "formula", "criteria": f'=${x_col}{HEADER_ROW + 1}="{EXTRAPOLATED_WORD}"',
            "format": sheet.formats.get('0.000"*"', EXTRAPOLATED)})
    sheet.ws.freeze_panes(HEADER_ROW, 2)
    # wide enough for each bold header word ("Acceptance", "(SpecLedger)") beside its filter button
    sheet.widths({_COL[name]: width for name, width in _WIDTHS.items()})
    # the names in full: 'summarisation #3' printed cut to 'summarisation #' in the 13-wide class column
    sheet.widths({_COL["Tier"]: name_width([t.name for t in wb.tiers], _WIDTHS["Tier"]),
                  _COL["Task class"]: name_width([c.name for c in wb.classes], _WIDTHS["Task class"])})
    sheet.hide(_COL["Alpha at export"], 9)
    # printed one page wide, through the verdicts and flags: the per-class sensitivity speedups to their right
    # feed the Sensitivity sheet, which prints them as mixes
    sheet.colour_legend(last + 2, COMPARISON_LEGEND, {_COL[name]: w for name, w in _WIDTHS.items()},
                        f"{UNDECIDED_MEANING}; {TOO_FEW_MEANING}; {INCOMPLETE_MEANING}")
    sheet.print_last_col = _COL["Grey values"]
    sheet.ws.print_area(0, 0, last + 1, _COL["Grey values"] - 1)
    return first_rows
