"""The Comparison sheet's rows: one per (tier, class) of live formulas over Inputs, written block by block of
columns (the acceptance, the mechanics, the interval, the optimum, the verdicts, the spread, the flag, the shifts).

The cells of a row are written left to right in the order they always were: a cell's look takes its place in the
file's list of looks when it is first written, so the order keeps the file as it was.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from model.mechanics import arithmetic as ar
from model.comparison import BREAK_EVEN_NAMES, VALUE_NAMES, VERDICT_NAMES, Comparison
from model.acceptance.interval import z_quantile
from model.comparison.verdicts import labelled
from model.report import styles as st
from model.report.comparison_sheet import (COL, DASH, EXTRAPOLATED_WORD, HEADER_ROW, MODELLED, NA, NOT_GIVEN_WORDS,
                                           OPT_STALE, PRICE_FIELDS, PRICED, PRICE_STALE, REFUSED_INPUT, SHIFT_COLUMNS, STALE, WIDTHS,
                                           cost_formula, cost_weights, end_value, grey_word, letter,
                                           override_refused, price_moved, priced_weight, roofline_costs,
                                           source_formula, source_lines, speed_verdict_formula, tokens_formula,
                                           too_few_suffix, value_formula)
from model.report.inputs_sheet import InputRefs
from model.report.profiles_table import ProfileRow
from model.report.layout import ALPHA_SHIFTS, SUMMARY
from model.report.notes_sheet import NotesRefs
from model.report.sensitivity import Shifted, shifted_tokens_formula
from model.workbook.rows import TaskClass, Tier, Workbook

_WRAPPED = {"text_wrap": True, "valign": "vcenter"}
Put = Callable[..., None]


class _Writers:
    """The cells' writers by look, made in the order the file lists the looks; while `dashed` (a made-up tier's
    rows are written, or a row whose class's acceptance or context nobody gave) the modelled columns read a dash,
    and while `unpriced` (a fast tier's row of a class whose tokens nobody gave, or any row of a tier whose list
    prices nobody typed: the words why) the priced ones."""

    def __init__(self, sheet: st.SheetWriter) -> None:
        self.sheet, self.dashed, self.unpriced = sheet, False, ""
        w, d = sheet.writer, self._or_dash
        self.name, self.k, self.pct = w(), w("0", st.RIGHT), w(st.PERCENT)
        self.pct_r = w(st.PERCENT, st.RIGHT)
        self.num, self.num_grey = w(st.NUMBER), w(st.NUMBER, st.COMPUTED)
        self.margin = w(st.SIGNED_PERCENT, st.RIGHT)
        self.e = w("0.000")
        self.x, self.x_r = w(st.TIMES), w(st.TIMES, st.RIGHT)
        self.e_r = w("0.000", st.RIGHT)
        self.price_len = w('"E* "0.000', st.RIGHT)
        self.word = w(None, st.CENTRE)
        self.word_wrapped = w(None, st.CENTRE, _WRAPPED)
        self.source, self.source_wrapped = w(None, st.INDENT), w(None, st.INDENT, {"text_wrap": True})
        self.grey_pct, self.grey_k, self.grey_x, self.grey_alpha = (sheet.computed_writer(f) for f in (
            st.PERCENT, "0", st.TIMES, st.ALPHA_PERCENT))
        self.margin, self.e, self.x, self.x_r, self.e_r, self.price_len, self.word, self.pct_r = (d(p) for p in (
            self.margin, self.e, self.x, self.x_r, self.e_r, self.price_len, self.word, self.pct_r))
        self.grey_pct, self.grey_k, self.grey_x, self.grey_alpha, self.num = (d(p) for p in (
            self.grey_pct, self.grey_k, self.grey_x, self.grey_alpha, self.num))

    def _or_dash(self, put: Put) -> Put:
        def write(row: int, col: int, *args: object) -> None:
            if self.dashed and col in MODELLED or self.unpriced and col in PRICED:
                self.sheet.text(row, col, DASH, st.CENTRE)
            else:
                put(row, col, *args)
        return write


@dataclass
class _Sheet:
    """What every row reads: the workbook, its comparison, the cells on Inputs and Notes, the writers."""

    sheet: st.SheetWriter
    cmp: Comparison
    refs: InputRefs
    notes: NotesRefs
    shifted: list[Shifted]
    put: _Writers
    n_c: int
    last: int
    raw_c: np.ndarray
    raw_v: np.ndarray
    flops: np.ndarray

    def __post_init__(self) -> None:
        self.band, self.confidence = self.refs.setting("marginal_band"), self.refs.setting("confidence")
        self.shift_cols = [(COL[name], f"{shift:+g}") for shift, name in zip(ALPHA_SHIFTS, SHIFT_COLUMNS)]
        self.speeds = f"${letter('Speedup')}${HEADER_ROW + 1}:${letter('Speedup')}${self.last}"
        self.k_max_changed = self.notes.k_max_changed()


@dataclass
class _TierCells:
    """One tier's cells on Inputs and Notes, and what its rows share."""

    i: int
    tier: Tier
    spec: str  # its "speculative" cell
    cm: str  # its cost model cell
    is_spec: bool
    made_up: str  # Tier.defaulted: mechanics nobody gave, in the words the Summary and the app say
    at: str  # its baseline's position (0 for none), on the Summary
    base_ok: str  # a formula: the baseline gives a speed to compare with
    ok: bool  # base_ok at export

    @property
    def roof(self) -> bool:
        return self.tier.cost_model == "roofline"


@dataclass
class _Row:
    """The (tier, class) row being written."""

    row: int
    j: int
    cls: TaskClass
    shape: ProfileRow | None  # the profile or length its E comes from; None for an alpha
    tall: int = 1  # the lines its Alpha source takes
    # why its class gives the row no number (Comparison.cell_not_given: "acceptance not given"), and whether the
    # class's alpha is a placeholder, on any tier (docs/design/verdicts.md#a-class-nobody-described)
    why: str = ""
    no_alpha: bool = False

    def at(self, *names: str) -> Any:
        """The row's cells under the headers `names` (one name: one cell)."""
        cells = tuple(letter(name) + str(self.row) for name in names)
        return cells[0] if len(cells) == 1 else cells


def write_rows(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs, notes: NotesRefs,
               shifted: list[Shifted], baseline_at: str, summary_first: int, last: int) -> dict[int, int]:
    """One row per (tier, class), tier-major, from the row under the header to `last`; returns the first row of
    each tier's block. `baseline_at`: the Summary column (letter) holding each tier's baseline position, 0 for
    none; the Summary lists tier i on row summary_first + i."""
    x = _Sheet(sheet, cmp, refs, notes, shifted, _Writers(sheet), len(wb.classes), last, *roofline_costs(wb))
    first_rows: dict[int, int] = {}
    row = HEADER_ROW + 1
    for i, tier in enumerate(wb.tiers):
        first_rows[i] = row
        t = _tier_cells(x, i, tier, f"{SUMMARY}!${baseline_at}${summary_first + i}")
        for j, cls in enumerate(wb.classes):
            r = _Row(row, j, cls, refs.shape(tier.name, cls.name), why=cmp.cell_not_given(i, j),
                     no_alpha=math.isnan(cmp.cells.alpha[i, j]) and "alpha" in cls.defaulted_fields())
            x.put.dashed = bool(t.made_up or r.why)
            # compare() prices no traffic nobody gave, nor any at prices nobody typed (their placeholder 0)
            x.put.unpriced = (cmp.prices_not_given(i) or "tokens not given" if t.is_spec and cls.tokens_not_given()
                              else cmp.prices_not_given(i))
            _write_row(x, t, r)
            row += 1
    return first_rows


def _tier_cells(x: _Sheet, i: int, tier: Tier, at: str) -> _TierCells:
    cmp = x.cmp
    spec, is_spec = x.refs.tier(i, "speculative"), bool(cmp.tiers.speculative[i])
    # a baseline whose mechanics were made up gives no speed over it, nor a value verdict (compare() says why)
    base_ok = "FALSE" if cmp.baseline_withheld(i) else f'AND({spec}<>"no",{at}>0)'
    ok = not cmp.baseline_withheld(i) and is_spec and int(cmp.tiers.baseline_index[i]) >= 0
    made_up = cmp.tiers.incomplete[i] if cmp.tiers.incomplete else ""
    return _TierCells(i, tier, spec, x.refs.tier(i, "cost_model"), is_spec, made_up, at, base_ok, ok)


def _write_row(x: _Sheet, t: _TierCells, r: _Row) -> None:
    """The row's blocks of columns, left to right."""
    _write_acceptance(x, t, r)
    _write_mechanics(x, t, r)
    _write_interval(x, t, r)
    _write_optimum(x, t, r)
    _write_verdicts(x, t, r)
    _write_spread(x, t, r)
    _write_flag(x, t, r)
    _write_shifts(x, t, r)


def _write_acceptance(x: _Sheet, t: _TierCells, r: _Row) -> None:
    """Tier, class, K, the acceptance and where it comes from."""
    cmp, refs, put, row, j, shape = x.cmp, x.refs, x.put, r.row, r.j, r.shape
    tier, cls = t.tier, r.cls
    put.name(row, COL["Tier"], f'={refs.tier(t.i, "name")}&""', tier.name)
    put.name(row, COL["Task class"], f'={refs.cls(j, "name")}&""', cls.name)
    put.k(row, COL["K"], f"={refs.tier(t.i, 'k')}", tier.k)
    alpha_ref = refs.override_alpha(tier.name, cls.name) or refs.cls(j, "alpha")
    if r.no_alpha:  # a placeholder feeds no formula
        for name, look in (("Acceptance alpha", st.CENTRE), ("Alpha source", st.INDENT)):
            x.sheet.text(row, COL[name], NOT_GIVEN_WORDS, look)
        return
    put.pct(row, COL["Acceptance alpha"], f"={alpha_ref}", float(cmp.cells.alpha[t.i, j]))
    # the longest words the source can read (the analyst may pick another on Inputs) wrap within the column
    r.tall = source_lines(refs, tier.name, cls.name)
    (put.source if r.tall == 1 else put.source_wrapped)(
        row, COL["Alpha source"], source_formula(refs, tier.name, cls.name, j),
        cmp.cells.alpha_source[t.i][j] + (f" · {shape.kind}" if shape else ""))
    if r.tall > 1:
        x.sheet.ws.set_row(row - 1, 15 * r.tall)


def _write_mechanics(x: _Sheet, t: _TierCells, r: _Row) -> None:
    """c and v (the roofline's, grey, or the typed ones), the break-even, E, the trailer and the speedup."""
    cmp, put, row, i, j, shape, spec = x.cmp, x.put, r.row, t.i, r.j, r.shape, t.spec
    K, A, C, V, BE, E, G = r.at("K", "Acceptance alpha", "c (draft / target)", "v (verify / step)",
                                "Break-even alpha (SpecLedger)", "Tokens per stretch E", "Grey values")
    put_cost = put.num_grey if t.roof else put.num
    rc, rv, flops = float(x.raw_c[i, j]), float(x.raw_v[i, j]), float(x.flops[i])
    c_ref, v_ref = x.refs.tier(i, "c"), x.refs.tier(i, "v")
    if r.why and "context" in r.cls.defaulted_fields():  # c and v at a context nobody gave: none
        for name in ("c (draft / target)", "v (verify / step)"):
            x.sheet.text(row, COL[name], DASH, st.CENTRE)
    else:
        put_cost(row, COL["c (draft / target)"], cost_formula(t.cm, rc, c_ref), rc if t.roof else t.tier.c)
        put_cost(row, COL["v (verify / step)"], cost_formula(t.cm, rv, v_ref), rv if t.roof else t.tier.v)
    put_cost(row, COL["c FLOPs"], cost_formula(t.cm, flops, C), flops if t.roof else t.tier.c)
    kind = BREAK_EVEN_NAMES[int(cmp.cells.break_even_kind[i, j])]
    # alpha* is the i.i.d. translation of E* = K c + v: it says nothing of a profile or a length
    put.grey_pct(row, COL["Break-even alpha (SpecLedger)"], f"n/a: a {shape.kind}" if shape and t.is_spec else
                 float(cmp.cells.break_even_alpha[i, j]) if kind in ("always", "root") else kind)
    be_len = float(cmp.cells.break_even_length[i, j])
    put.e_r(row, COL["Break-even length E*"], f'=IF({spec}="no","{NA}",{K}*{C}+{V})',
            NA if math.isnan(be_len) else be_len)
    margin = float(cmp.cells.margin[i, j])
    put.margin(row, COL["Margin over break-even"], f'=IF({G}="{STALE}","",IF(ISNUMBER({BE}),{A}-{BE},"{NA}"))',
               NA if math.isnan(margin) else margin)
    put.e(row, COL["Tokens per stretch E"],
          f'=IF({spec}="no",1,{shape.tokens(K) if shape else tokens_formula(A, K)})',
          float(cmp.cells.tokens_per_stretch[i, j]))
    extrapolated = bool(cmp.cells.extrapolated[i, j])
    if shape:
        put.word(row, COL["E extrapolated"],
                 f'=IF({spec}="no","",IF({shape.extrapolated(K)},"{EXTRAPOLATED_WORD}",""))',
                 EXTRAPOLATED_WORD if extrapolated else "")
    fill = float(cmp.cells.trailer_fill[i, j])
    put.pct_r(row, COL["Trailer fill"], f'=IF({spec}="no","{NA}",({E}-1)/{K})', NA if math.isnan(fill) else fill)
    put.x(row, COL["Speedup"], f'=IF({spec}="no",1,{E}/({K}*{C}+{V}))', float(cmp.cells.speedup[i, j]))


def _write_interval(x: _Sheet, t: _TierCells, r: _Row) -> None:
    """The interval: its ends are inputs on Inputs (the override's, or the class's), carried through live to E
    and the speedup."""
    cmp, put, row, i, j, shape, spec = x.cmp, x.put, r.row, t.i, r.j, r.shape, t.spec
    K, C, V, E, ALO, AHI, ELO, EHI = r.at("K", "c (draft / target)", "v (verify / step)", "Tokens per stretch E",
                                          "Alpha low", "Alpha high", "E, low end", "E, high end")
    a_lo, a_hi, conf = (x.refs.acceptance(j, t.tier.name, r.cls.name, f)
                        for f in ("alpha_low", "alpha_high", "alpha_confidence"))
    lo_a, hi_a = float(cmp.cells.alpha_low[i, j]), float(cmp.cells.alpha_high[i, j])
    if not shape:  # an interval on alpha says nothing of a profile or a length (compare() gives it none)
        put.pct_r(row, COL["Alpha low"], f'=IF(OR({spec}="no",{a_lo}="",{a_hi}=""),"",{a_lo})', end_value(lo_a))
        put.pct_r(row, COL["Alpha high"], f'=IF(OR({spec}="no",{a_lo}="",{a_hi}=""),"",{a_hi})', end_value(hi_a))
    put.pct_r(row, COL["Interval confidence"],
              f'=IF(ISNUMBER({ELO if shape else ALO}),IF({conf}="",{x.confidence},{conf}),"")',
              end_value(cmp.cells.alpha_confidence[i, j]))
    if shape:  # a profile's or a length's own interval on E (Inputs), carried to this K as the core does
        for name, end, e_val in (("E, low end", shape.low, cmp.cells.tokens_per_stretch_low[i, j]),
                                 ("E, high end", shape.high, cmp.cells.tokens_per_stretch_high[i, j])):
            put.e_r(row, COL[name], f'=IF({spec}="no","",{shape.tokens_end(end, E, K)})', end_value(e_val))
    else:
        for name, a_cell, a_val in (("E, low end", ALO, lo_a), ("E, high end", AHI, hi_a)):
            put.e_r(row, COL[name], f'=IF(ISNUMBER({a_cell}),{tokens_formula(a_cell, K)},"")',
                    end_value(float(ar.expected_tokens(a_val, t.tier.k))) if math.isfinite(a_val) else "")
    put.x_r(row, COL["Speedup, low end"], f'=IF(ISNUMBER({ELO}),{ELO}/({K}*{C}+{V}),"")',
            end_value(cmp.cells.speedup_low[i, j]))
    put.x_r(row, COL["Speedup, high end"], f'=IF(ISNUMBER({EHI}),{EHI}/({K}*{C}+{V}),"")',
            end_value(cmp.cells.speedup_high[i, j]))


def _write_optimum(x: _Sheet, t: _TierCells, r: _Row) -> None:
    """The optimal K and its speedup (SpecLedger's, grey), and the cost factor."""
    cmp, put, row, i, j = x.cmp, x.put, r.row, t.i, r.j
    K, CF, E = r.at("K", "c FLOPs", "Tokens per stretch E")
    if t.is_spec:
        put.grey_k(row, COL["Optimal K (SpecLedger)"], int(cmp.cells.optimal_k[i, j]))
        put.grey_x(row, COL["Speedup at optimal K (SpecLedger)"], float(cmp.cells.optimal_speedup[i, j]))
    else:
        put.grey_k(row, COL["Optimal K (SpecLedger)"], NA)
        put.grey_x(row, COL["Speedup at optimal K (SpecLedger)"], NA)
    put.x(row, COL["Cost factor (FLOPs / token)"], f'=IF({t.spec}="no",1,({K}*{CF}+{K}+1)/{E})',
          float(cmp.cells.cost_factor[i, j]))


def _write_verdicts(x: _Sheet, t: _TierCells, r: _Row) -> None:
    """The speed verdict, the price's break-even, the cost weights and the baseline's speedup the value verdict
    reads, the value verdict, and the speedup over the baseline."""
    cmp, sheet, put, row, i, j = x.cmp, x.sheet, x.put, r.row, t.i, r.j
    K, C, V, S, SLO, SHI = r.at("K", "c (draft / target)", "v (verify / step)", "Speedup", "Speedup, low end",
                                "Speedup, high end")
    few = too_few_suffix(SLO, x.refs.acceptance(j, t.tier.name, r.cls.name, "alpha_method"))
    thin = cmp.too_few(i, j)
    put_verdict = put.word_wrapped if thin else put.word
    speed_words = labelled(VERDICT_NAMES[int(cmp.cells.verdict[i, j])], thin)
    value_words = labelled(VALUE_NAMES[int(cmp.cells.value_verdict[i, j])], thin)
    withheld = t.made_up or r.why
    if withheld:  # no verdicts from values nobody gave: the words the Summary and the app say
        sheet.text(row, COL["Speed verdict"], withheld, st.CENTRE, st.VERDICT_LOOKS["incomplete"], _WRAPPED)
        sheet.ws.set_row(row - 1, 15 * max(r.tall, st.wrapped_lines(withheld, WIDTHS["Speed verdict"] * 0.8)))
    else:
        put_verdict(row, COL["Speed verdict"],
                    f'=IF({t.spec}="no","{NA}",{speed_verdict_formula(S, x.band, SLO, SHI)}&{few})', speed_words)
    p_len = float(cmp.cells.price_break_even_length[i, j])
    cost, base_cost, base_speed = _write_price_weights(x, t, r, p_len)
    has_base = f"ISNUMBER({base_cost})"
    if withheld or x.put.unpriced and t.is_spec:
        sheet.text(row, COL["Value verdict"], "incomplete" if t.made_up else r.why or x.put.unpriced, st.CENTRE,
                   st.VERDICT_LOOKS["incomplete"], *(() if t.made_up else (_WRAPPED,)))
    else:
        put_verdict(row, COL["Value verdict"],
                    value_formula(S, cost, base_speed, base_cost, has_base, SLO, SHI, few), value_words)
        if thin:  # the labelled words wrap in the verdict columns and the row grows for them
            sheet.ws.set_row(row - 1, 15 * max(r.tall, *(st.wrapped_lines(words, WIDTHS[name] * 0.8) for words, name
                                                        in ((speed_words, "Speed verdict"),
                                                            (value_words, "Value verdict")))))
    # the price's break-even as an acceptance length: the speedup over the baseline the price needs, in E
    put.e_r(row, COL["Price break-even length E*"],
            f'=IF({has_base},IF(AND({cost}=0,{base_cost}=0),"",IF({base_cost}=0,"{NA}",'
            f'{cost}/{base_cost}*{base_speed}*({K}*{C}+{V}))),"")',
            "" if math.isnan(p_len) else NA if math.isinf(p_len) else p_len)
    # the speedup over the baseline on this class, at the interval's ends too (the baseline held at its value)
    VS = r.at("Speedup vs baseline")
    put.x_r(row, COL["Speedup vs baseline"],
            f'=IF({has_base},IF(AND({cost}=0,{base_cost}=0),"",{S}/{base_speed}),"")',
            end_value(cmp.cells.speedup_vs_baseline[i, j]))
    for name, end, want in (("Speedup vs baseline, low end", SLO, cmp.cells.speedup_vs_baseline_low[i, j]),
                            ("Speedup vs baseline, high end", SHI, cmp.cells.speedup_vs_baseline_high[i, j])):
        put.x_r(row, COL[name], f'=IF(AND(ISNUMBER({VS}),ISNUMBER({end})),{end}/{base_speed},"")', end_value(want))


def _write_price_weights(x: _Sheet, t: _TierCells, r: _Row, p_len: float) -> tuple[str, str, str]:
    """The price's break-even acceptance (grey), then the class's tokens at the tier's and at its baseline's
    prices (the prices alone where it has no tokens) and the baseline's speedup on the class: the cells the value
    columns read, returned."""
    cmp, refs, put, row, i, j = x.cmp, x.refs, x.put, r.row, t.i, r.j
    c_grey = COL["Price break-even acceptance (SpecLedger)"]
    if r.shape and t.is_spec:  # no alpha for a profile or a length: the price's E*, live, as the window shows it
        PL = r.at("Price break-even length E*")
        put.price_len(row, c_grey, f'=IF(ISNUMBER({PL}),{PL},"{NA}")', p_len if math.isfinite(p_len) else NA)
    else:
        put.grey_alpha(row, c_grey, grey_word(cmp.cells.price_break_even_kind[i, j], cmp.cells.price_break_even_alpha[i, j]))
    cost, base_cost, base_speed = r.at("Cost weight on tier", "Cost weight on baseline", "Baseline speedup")
    weights = cost_weights(cmp, i, j, int(cmp.tiers.baseline_index[i]))
    own = {name: refs.tier(i, name) for name in PRICE_FIELDS}
    on_base = {name: f"INDEX({refs.tier_column(name)},{t.at})" for name in PRICE_FIELDS}
    # by band and cache (docs/design/vendor-terms.md); no tokens: the output price alone
    on_class = (refs.cls(j, "tokens_out"), refs.cls(j, "tokens_in"), refs.cls(j, "cached_share"),
                refs.cls(j, "long_share"), refs.cls(j, "context"))
    put.num(row, COL["Cost weight on tier"], f"={priced_weight(own, *on_class)}", weights[0])
    put.num(row, COL["Cost weight on baseline"],
            f'=IF({t.base_ok},{priced_weight(on_base, *on_class)},"")', weights[1] if t.ok else "")
    # the cells after read the baseline's weight being a number as base_ok: one cell, not its expression
    put.num(row, COL["Baseline speedup"],
            f'=IF(ISNUMBER({base_cost}),INDEX({x.speeds},({t.at}-1)*{x.n_c}+{j + 1}),"")',
            float(cmp.cells.speedup[int(cmp.tiers.baseline_index[i]), j]) if t.ok else "")
    return cost, base_cost, base_speed


def _write_spread(x: _Sheet, t: _TierCells, r: _Row) -> None:
    """The standard deviation of log S each end of the interval implies (propagate.mix_interval): the Summary's
    mix interval reads them."""
    cmp, i, j = x.cmp, t.i, r.j
    S, SLO, SHI = r.at("Speedup", "Speedup, low end", "Speedup, high end")
    has = math.isfinite(cmp.cells.speedup_low[i, j]) and math.isfinite(cmp.cells.alpha_confidence[i, j])
    z = float(z_quantile(cmp.cells.alpha_confidence[i, j])) if has else 1.0
    log_s = math.log(float(cmp.cells.speedup[i, j])) if not t.made_up else math.nan
    for name, gap, want in (
            ("Log-speedup sd, low", f"LN({S})-LN({SLO})", log_s - math.log(cmp.cells.speedup_low[i, j]) if has else 0.0),
            ("Log-speedup sd, high", f"LN({SHI})-LN({S})", math.log(cmp.cells.speedup_high[i, j]) - log_s if has else 0.0)):
        x.put.e(r.row, COL[name],
                f'=IF(ISNUMBER({SLO}),({gap})/NORMINV(0.5+{r.at("Interval confidence")}/2,0,1),0)', want / z)


def _write_flag(x: _Sheet, t: _TierCells, r: _Row) -> None:
    """'Grey values': what of the row's grey values the inputs changed since export made stale, or an input out
    of range."""
    notes, shape, i, j = x.notes, r.shape, t.i, r.j
    A, at_export = r.at("Acceptance alpha", "Alpha at export")
    prices_moved = price_moved(notes, x.refs, x.n_c, i, j, int(x.cmp.tiers.baseline_index[i]), t.is_spec)
    # optimal K is n/a on a tier that does not run speculative decoding (one switched on is "stale")
    profile_moved = f',{shape.changed}<>""' if shape and shape.kind == "profile" else ""
    opt_moved = f'OR({x.k_max_changed}<>"",{A}<>{at_export}{profile_moved})' if t.is_spec else "FALSE"
    # a length carried to another K rests on SpecLedger's alpha for it (grey on Inputs)
    length_moved = f',{shape.changed}<>""' if shape and shape.kind == "length" else ""
    refused = (f'OR({notes.tier_refused(i)}<>"",{notes.class_refused(j)}<>""'
               f'{override_refused(x.refs, t.tier.name, r.cls.name)})')
    x.put.word(r.row, COL["Grey values"], f'=IF({refused},"{REFUSED_INPUT}",'
               f'IF(OR({notes.tier_changed(i)}<>"",AND({t.cm}="roofline",{notes.class_changed(j)}<>"")'
               f'{length_moved}),"{STALE}",'
               f'IF({prices_moved},"{PRICE_STALE}",'
               f'IF({opt_moved},"{OPT_STALE}",""))))', "")


def _write_shifts(x: _Sheet, t: _TierCells, r: _Row) -> None:
    """The speedups at alpha moved (the Sensitivity sheet's mixes read them), and the alpha at export (hidden)."""
    shape, row = r.shape, r.row
    K, A, C, V = r.at("K", "Acceptance alpha", "c (draft / target)", "v (verify / step)")
    for n, (c_n, shift) in enumerate(x.shift_cols):
        # alpha moved; a profile's or a length's every conditional rate moved (sensitivity.SHIFT_MEANING)
        moved = (shifted_tokens_formula(shape, K, shift) if shape
                 else tokens_formula(f"MIN(1,MAX(0,{A}{shift}))", K))
        x.put.x(row, c_n, f'=IF({t.spec}="no",1,({moved})/({K}*{C}+{V}))', float(x.shifted[n].speedup[t.i, r.j]))
    if r.no_alpha:
        x.sheet.text(row, COL["Alpha at export"], NOT_GIVEN_WORDS)
    else:
        x.sheet.number(row, COL["Alpha at export"], float(x.cmp.cells.alpha[t.i, r.j]), st.PERCENT)
