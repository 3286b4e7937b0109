"""The report's Comparison sheet: its columns, the words its cells say, and the live formulas over Inputs its rows
are made of, which the Summary, Sensitivity, Grid, Charts, Curves and Context sheets share. comparison_table.py
writes the sheet, comparison_rows.py its rows.

c and v follow the tier's cost model as set on Inputs: typed, they are Inputs'
c and v; roofline, they are SpecLedger's values at the class's context (no
closed form). The break-even and optimal K are SpecLedger's too; the "Grey
values" column says when the inputs they came from changed since export, and
the margin over break-even goes blank then rather than subtract a stale number.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from model.comparison import BREAK_EVEN_NAMES, VALUE_NAMES, Comparison
from model.comparison import UNDECIDED as UNDECIDED_CODE
from model.mechanics.tier_costs import TierCosts
from model.comparison.verdicts import TOO_FEW_KEY, TOO_FEW_LABEL
from model.report import styles as st
from model.report.inputs_sheet import InputRefs, refused_test
from model.report.layout import COMPARISON_COLUMNS, OVERRIDE_COLUMNS
from model.report.notes_sheet import NotesRefs
from model.workbook.rows import ALPHA_SOURCES, Workbook

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
COL = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
SHIFT_COLUMNS = ("Speedup, alpha -20 pts", "Speedup, alpha -10 pts", "Speedup, alpha +10 pts")
# by header, so a column added in between does not shift the others' widths; wide enough for each bold header
# word ("Acceptance", "(SpecLedger)") beside its filter button
WIDTHS = {"Tier": 20, "Task class": 13, "K": 5, "Acceptance alpha": 12, "Alpha source": 17, "c (draft / target)": 9,
           "v (verify / step)": 9, "c FLOPs": 9, "Break-even alpha (SpecLedger)": 13, "Break-even length E*": 8,
           "Margin over break-even": 10,
           "Tokens per stretch E": 10, "Trailer fill": 8, "Speedup": 9, "Speedup, low end": 8,
           "Speedup, high end": 8, "Optimal K (SpecLedger)": 12, "Speedup at optimal K (SpecLedger)": 12,
           "Cost factor (FLOPs / token)": 10, "Speed verdict": 10, "Price break-even acceptance (SpecLedger)": 13,
           "Value verdict": 16, "Grey values": 17, **{name: 10 for name in SHIFT_COLUMNS},
           **{name: 12 for name in COMPARISON_COLUMNS[COMPARISON_COLUMNS.index("Alpha at export") + 1:]}}

# an override's numbers the rows read: its alpha and its interval (the class's are checked on Notes)
_OVERRIDE_CHECKED = [spec for spec in OVERRIDE_COLUMNS if spec.name.startswith("alpha")
                     and spec.kind in ("percent", "optional_percent", "int")]
# what a row models from its tier's K, c and v: a tier whose mechanics nobody gave (Tier.defaulted) shows a dash
# there, as compare() models nothing from them (its verdict columns say why)
MODELLED = frozenset(COL[n] for n in (
    "Break-even alpha (SpecLedger)", "Break-even length E*", "Margin over break-even", "Tokens per stretch E",
    "E extrapolated", "Trailer fill", "Speedup", "E, low end", "E, high end", "Speedup, low end", "Speedup, high end",
    "Optimal K (SpecLedger)", "Speedup at optimal K (SpecLedger)", "Cost factor (FLOPs / token)",
    "Price break-even length E*", "Price break-even acceptance (SpecLedger)", "Speedup vs baseline",
    "Speedup vs baseline, low end", "Speedup vs baseline, high end", "Log-speedup sd, low", "Log-speedup sd, high",
    *SHIFT_COLUMNS))
DASH = "–"
NOT_GIVEN_WORDS = "not given"  # a class's acceptance nobody gave, where its alpha would be (the app's word)
# what a row prices from its class's tokens: a class whose tokens nobody gave (TaskClass.defaulted) shows a dash
# there, as compare() gives it no price ratio or value verdict
PRICED = frozenset(COL[n] for n in (
    "Cost weight on tier", "Cost weight on baseline", "Baseline speedup", "Price break-even length E*",
    "Price break-even acceptance (SpecLedger)", "Speedup vs baseline", "Speedup vs baseline, low end",
    "Speedup vs baseline, high end"))

def letter(name: str) -> str:
    return st.col_name(COL[name])


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
    cost = cmp.cells.class_cost
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


def source_formula(refs: InputRefs, tier: str, cls: str, j: int) -> str:
    """Where the row's acceptance comes from, as compare() words it, following the source picked on Inputs;
    and its kind where it is not one alpha (a profile, a length: the profiles table on Inputs)."""
    override = refs.override(tier, cls, "alpha_source")
    shape = refs.shape(tier, cls)
    kind = f'&" · {shape.kind}"' if shape else ""
    return f'={override}&" (tier override)"{kind}' if override else f'={refs.cls(j, "alpha_source")}&""{kind}'


def source_lines(refs: InputRefs, tier: str, cls: str) -> int:
    """The lines the row's Alpha source takes at its column's width, for the longest source it can show: the
    longest choice, "(tier override)" where an override sets it, its kind where it is a profile or a length
    ("imported (tier override) · profile" was cut to "imported (tier overri"). The indent takes a unit."""
    shape = refs.shape(tier, cls)
    words = (max(ALPHA_SOURCES, key=len) + (" (tier override)" if refs.override(tier, cls, "alpha_source") else "")
             + (f" · {shape.kind}" if shape else ""))
    return st.wrapped_lines(words, WIDTHS["Alpha source"] - 1)


def cost_formula(cost_model: str, roof_value: float, typed_ref: str) -> str:
    return f'=IF({cost_model}="roofline",{roof_value!r},{typed_ref})'


def override_refused(refs: InputRefs, tier: str, cls: str) -> str:
    """The row's acceptance is the override's where there is one: its test (the class's is on Notes)."""
    if refs.override_alpha(tier, cls) is None:
        return ""
    return "".join("," + refused_test(spec, refs.override(tier, cls, spec.name), {}) for spec in _OVERRIDE_CHECKED)


def price_moved(notes: NotesRefs, refs: InputRefs, n_c: int, i: int, j: int, b: int, is_spec: bool) -> str:
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
            f'{notes.tokens_changed(j)}<>"",{letter("Acceptance alpha")}{b_row}<>{letter("Alpha at export")}{b_row})')
