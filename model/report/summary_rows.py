"""The Summary sheet's rows: one per tier (live names, baselines by name, claims), written block by block of
columns: the names, the mix and the bill, the mix's interval, the verdicts, the claim, the vendor's terms, the flag.

The cells of a row are written in the order they always were: a cell's look takes its place in the file's list of
looks when it is first written, so the order keeps the file as it was.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from model.comparison import VALUE_NAMES, VERDICT_NAMES, Comparison
from model.common.formatting import OUT_OF_REACH
from model.common.formatting import context as context_text
from model.report import styles as st
from model.report.comparison_sheet import (NOT_GIVEN_WORDS, OPT_STALE, PRICE_STALE, REFUSED_INPUT, STALE, end_value,
                                           letter, speed_verdict_formula, value_formula)
from model.report.inputs_sheet import InputRefs
from model.report.layout import COMPARISON
from model.report.notes_sheet import NotesRefs
from model.report.summary_sheet import (COL, DASH, HEADER_ROW, NA, WIDTHS, context_label, guarantee_cell,
                                        mix_formula, served_formula)
from model.workbook.rows import Tier, Workbook

# what a tier's made-up mechanics would decide: said in words instead (Tier.defaulted)
_FROM_MECHANICS = ("Mix speedup", "Mix low", "Mix high", "Speedup vs baseline", "Speedup vs baseline, low end",
                   "Speedup vs baseline, high end", "Cost per 1x speedup", "Claim holds", "Mix speedup, served fast",
                   "Mix low, served fast", "Mix high, served fast")
# what a class's tokens nobody gave would bill: no number while they are not given (TaskClass.defaulted)
_FROM_TOKENS = ("Monthly cost", "Premium over baseline", "Cost per 1x speedup", "Monthly cost, served fast",
                "Price unit, served fast", "Price unit")
_WRAPPED = {"text_wrap": True, "valign": "vcenter"}
_NAME = {"text_wrap": True}
# (tier, its row, its bill on the requests served fast, its baseline's bill, baseline's mix, its downgraded share)
Fair = tuple[int, int, str, str, str, str]


@dataclass
class _Table:
    """What every row reads: the comparison, the cells on Inputs, Notes and the Comparison, whole columns."""

    sheet: st.SheetWriter
    cmp: Comparison
    refs: InputRefs
    notes: NotesRefs
    cmp_rows: dict[int, int]
    n_c: int
    last: int
    money: str
    name_widths: dict[str, float]  # Tier, Vendor, Baseline
    said: list[tuple[str, str]] = field(default_factory=list)  # (tier, its measured speed in words)
    fair: list[Fair] = field(default_factory=list)  # the tiers the fair price table lists

    def column(self, name: str) -> str:
        return f"${st.col_name(COL[name])}${HEADER_ROW + 1}:${st.col_name(COL[name])}${self.last}"

    def __post_init__(self) -> None:
        self.weights, self.tokens_in = self.refs.class_column("tokens_out"), self.refs.class_column("tokens_in")
        self.names, self.costs, self.mixes = (self.column(n) for n in ("Tier", "Monthly cost", "Mix speedup"))
        self.fast_mixes, self.fast_costs = self.column("Mix speedup, served fast"), self.column("Monthly cost, served fast")
        self.units_fast, self.units = self.column("Price unit, served fast"), self.column("Price unit")


@dataclass
class _TierRow:
    """The tier's row being written, and what compare() withholds on it, in words."""

    x: _Table
    i: int
    tier: Tier
    row: int
    withheld: dict[str, str]
    tall: float = 0  # the wrapped verdict words' row height, the tallest of them

    def __post_init__(self) -> None:
        refs, i = self.x.refs, self.i
        self.spec, self.claim, self.base = (refs.tier(i, n) for n in ("speculative", "claimed_speedup", "baseline"))
        self.at = self.cell("Baseline position")
        self.d = f"N({refs.tier(i, 'downgraded_share')})"
        mixes = self.x.fast_mixes
        self.std = f"IF({self.at}>0,IF(ISNUMBER(INDEX({mixes},{self.at})),INDEX({mixes},{self.at}),1),1)"
        self.found = f"MATCH({self.base},{self.x.names},0)"

    def cell(self, name: str) -> str:
        return f"{st.col_name(COL[name])}{self.row}"

    def block(self, name: str) -> str:
        """The tier's block of a Comparison column."""
        first, c = self.x.cmp_rows[self.i], letter(name)
        return f"{COMPARISON}!${c}${first}:${c}${first + self.x.n_c - 1}"

    def put(self, name: str, text: str, value: Any, fmt: str | None = None, *looks: Any) -> None:
        """The column's formula, or the words compare() has in its place."""
        sheet, row = self.x.sheet, self.row
        if name not in self.withheld:
            sheet.formula(row, COL[name], text, value, fmt, *looks)
        elif "verdict" in name:  # the words wrap within the narrow verdict column, the row grows for them
            sheet.text(row, COL[name], self.withheld[name], st.CENTRE, st.VERDICT_LOOKS["incomplete"], _WRAPPED)
            self.tall = max(self.tall, 15 * st.wrapped_lines(self.withheld[name], WIDTHS[name] * 0.8))
            sheet.ws.set_row(row - 1, self.tall)
        else:
            sheet.text(row, COL[name], self.withheld[name], st.RIGHT)


def write_rows(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs, notes: NotesRefs,
               cmp_rows: dict[int, int], last: int, money: str,
               names: dict[str, float]) -> tuple[list[tuple[str, str]], list[Fair]]:
    """One row per tier under the header, to `last`; `names`: the name columns' widths (a longer name wraps, its
    row grows). Returns the measured speeds in words, (tier, words), and the
    tiers the fair price table lists."""
    x = _Table(sheet, cmp, refs, notes, cmp_rows, len(wb.classes), last, money, names)
    untold = any(c.tokens_not_given() for c in wb.classes)
    for i, tier in enumerate(wb.tiers):
        t = _TierRow(x, i, tier, HEADER_ROW + 1 + i, _withheld(cmp, i, untold))
        _write_names(t)
        if x.n_c:
            _write_mix_and_bill(t)
            _write_mix_interval(t)
            _write_verdicts(t)
        else:
            _write_without_classes(t)
        _list_measured(t)
        _write_claim(t)
        _write_terms(t)
        _write_flag(t)
    return x.said, x.fair


def _withheld(cmp: Comparison, i: int, untold: bool) -> dict[str, str]:
    """Mechanics an import made up (Tier.defaulted), the tier's own or its baseline's: what compare() withholds
    from them (no mix, speed over the baseline, verdicts or claim) is said in its words, here as in the app (a tier
    judged on a probe's measured speed has its mix and verdicts from that: model/comparison/on_measured.py).
    `untold`: a class's tokens are not given, so no tier has a bill."""
    made_up, base_why, waits = cmp.tier_made_up(i), cmp.baseline_withheld(i), cmp.mix_waits(i)
    withheld = ({**{name: DASH for name in _FROM_MECHANICS}, "Speed verdict": made_up,
                 "Value verdict": cmp.value_withheld(i)} if made_up else
                # a class nobody filled in: no mix over the classes (docs/design/verdicts.md#a-class-nobody-described)
                {**{name: DASH for name in _FROM_MECHANICS}, "Speed verdict": waits, "Value verdict": waits}
                if waits else
                {"Speedup vs baseline": DASH, "Speedup vs baseline, low end": "",
                 "Speedup vs baseline, high end": "", "Value verdict": base_why} if base_why else {})
    if untold:  # and no bill while a class's tokens are not given
        withheld.update({name: DASH for name in _FROM_TOKENS})
    # nor at list prices nobody typed (docs/design/verdicts.md#prices-nobody-gave): the bill says so, the rest a dash
    if cmp.prices_not_given(i):
        withheld.update({name: NOT_GIVEN_WORDS if name == "Monthly cost" else DASH for name in _FROM_TOKENS})
    b = int(cmp.tiers.baseline_index[i])
    if b >= 0 and cmp.prices_not_given(b):  # its Value verdict says whose
        withheld["Premium over baseline"] = DASH
    return withheld


def name_lines(name: str, width: float) -> int:
    """The lines a name takes wrapped in a column `width` wide, counted with room to spare: LibreOffice wraps
    'Northwind Standard' in the 16-wide Baseline column, where the estimate at 0.9 of the width said one line."""
    return st.wrapped_lines(name, width * 0.8)


def _wrap_names(t: _TierRow) -> None:
    """A name longer than its column wraps there and the row grows for it: cut at the column's edge it printed
    'Quasar Hyperdrive Priorit' (the Summary stays one page wide: summary_table.name_widths)."""
    texts = {"Tier": t.tier.name, "Vendor": t.tier.vendor, "Baseline": t.tier.baseline}
    lines = max(name_lines(text, width) for name, width in t.x.name_widths.items() if (text := texts[name]))
    if lines > 1:
        t.tall = max(t.tall, 15 * lines)
        t.x.sheet.ws.set_row(t.row - 1, t.tall)


def _write_names(t: _TierRow) -> None:
    """The tier, its baseline (by name and place), its price break-even, vendor, speculative flag and claim."""
    cmp, refs, i, tier, base, claim = t.x.cmp, t.x.refs, t.i, t.tier, t.base, t.claim
    _wrap_names(t)
    t.put("Tier", f'={refs.tier(i, "name")}&""', tier.name, None, _NAME)
    t.put("Baseline position", f'=IF({base}="",0,IFERROR(MATCH({base},{t.x.names},0),0))',
          int(cmp.tiers.baseline_index[i]) + 1)
    t.x.sheet.computed(t.row, COL["Price break-even acceptance (SpecLedger)"],
                       *(DASH, None) if cmp.made_up(i) or cmp.mix_waits(i) else guarantee_cell(cmp, i))
    t.put("Vendor", f'={refs.tier(i, "vendor")}&""', tier.vendor, None, _NAME)
    t.put("Speculative", f'=IF({t.spec}="unknown","unknown (unconfirmed)",{t.spec}&"")',
          "unknown (unconfirmed)" if tier.speculative == "unknown" else tier.speculative, None, st.CENTRE)
    t.put("Baseline", f'=IF({base}="","{DASH}",{base}&"")', tier.baseline or DASH, None, _NAME)
    t.put("Claimed speedup", f'=IF({claim}="","{DASH}",{claim})',
          DASH if tier.claimed_speedup is None else tier.claimed_speedup, st.TIMES1, st.RIGHT)
    t.put("Claim context", f"={context_label(refs.tier(i, 'claim_context'))}", context_text(tier.claim_context),
          None, st.RIGHT)


def _write_mix_and_bill(t: _TierRow) -> None:
    """The vendor's terms (docs/design/vendor-terms.md): the mix and the bill on the requests served fast, and as
    served with the downgraded share d at the standard tier's speed (its baseline's) and prices; the premium and
    the speedup over the baseline."""
    x, cmp, i, d, at = t.x, t.x.cmp, t.i, t.d, t.at
    G, H, F, MF, UF = (t.cell(n) for n in ("Mix speedup", "Monthly cost", "Mix speedup, served fast",
                                           "Monthly cost, served fast", "Price unit, served fast"))
    no_tokens = f"SUM({x.weights})+SUM({x.tokens_in})=0"
    billed = f"AND({d}>0,{at}>0)"
    cw_range = t.block("Cost weight on tier")
    t.put("Mix speedup, served fast", _measured_mix_formula(t.tier, t.std) if cmp.judged_on_measured(i) else
          mix_formula(x.weights, t.block("Speedup")), float(cmp.terms.mix_speedup_fast[i]), st.TIMES)
    t.put("Mix speedup", f"={served_formula(F, d, t.std)}", float(cmp.tiers.mix_speedup[i]), st.TIMES)
    t.put("Monthly cost, served fast", f"=SUMPRODUCT({cw_range},({x.weights}+{x.tokens_in}>0)*1)/1000000",
          float(cmp.terms.monthly_cost_fast[i]), x.money)
    t.put("Monthly cost", f"=IF({billed},(1-{d})*{MF}+{d}*INDEX({x.fast_costs},{at}),{MF})",
          float(cmp.tiers.monthly_cost[i]), x.money)
    t.put("Price unit, served fast", f"=IF({no_tokens},AVERAGE({cw_range}),{MF})", float(cmp.terms.price_unit_fast[i]),
          x.money)
    t.put("Price unit", f"=IF({billed},(1-{d})*{UF}+{d}*INDEX({x.units_fast},{at}),{UF})",
          float(cmp.terms.price_unit[i]), x.money)
    base, found = t.base, t.found
    premium = float(cmp.tiers.premium[i])
    t.put("Premium over baseline", f'=IF({base}="","{DASH}",IF(ISNA({found}),"{DASH}",'
          f'IF(INDEX({x.costs},{found})>0,{H}/INDEX({x.costs},{found})-1,"{DASH}")))',
          DASH if math.isnan(premium) else premium, st.SIGNED_PERCENT, st.RIGHT)
    vs = float(cmp.tiers.speedup_vs_baseline[i])
    # a baseline whose own mechanics are made up has no mix to divide by (it says "–")
    t.put("Speedup vs baseline", f'=IF({base}="","{DASH}",IF(ISNA({found}),"{DASH}",'
          f'IF(ISNUMBER(INDEX({x.mixes},{found})),{G}/INDEX({x.mixes},{found}),"{DASH}")))',
          DASH if math.isnan(vs) else vs, st.TIMES, st.RIGHT)
    t.put("Cost per 1x speedup", f"={H}/{G}", float(cmp.tiers.price_per_speedup[i]), x.money)


def _write_mix_interval(t: _TierRow) -> None:
    """The mix's interval, on the requests served fast and as served, and the speedup over the baseline at its
    ends."""
    x, cmp, refs, i, d = t.x, t.x.cmp, t.x.refs, t.i, t.d
    F, lo, hi = t.cell("Mix speedup, served fast"), t.cell("Mix low"), t.cell("Mix high")
    d_lo_ref, d_hi_ref = refs.tier(i, "downgraded_low"), refs.tier(i, "downgraded_high")
    d_ends = (f'IF({d_lo_ref}="",{d},{d_lo_ref})', f'IF({d_hi_ref}="",{d},{d_hi_ref})')
    for name, sd, sign, fast_end, served, fast_want, want in (
            ("Mix low", "Log-speedup sd, low", "-", "Mix low, served fast", "MIN",
             cmp.terms.mix_speedup_fast_low[i], cmp.tiers.mix_speedup_low[i]),
            ("Mix high", "Log-speedup sd, high", "", "Mix high, served fast", "MAX",
             cmp.terms.mix_speedup_fast_high[i], cmp.tiers.mix_speedup_high[i])):
        t.put(fast_end, _measured_end(t.tier, t.std, sign, refs.setting("confidence")) if cmp.judged_on_measured(i)
              else _mix_end(x.weights, t.block("Speedup"), t.block(sd), t.block("Speedup, low end"),
                            F, sign, refs.setting("confidence")), end_value(fast_want), st.TIMES, st.RIGHT)
        # the fast mix's end with the downgraded share's ends, the wider way round
        end = t.cell(fast_end)
        t.put(name, f'=IF(ISNUMBER({end}),{served}({served_formula(end, d_ends[0], t.std)},'
              f'{served_formula(end, d_ends[1], t.std)}),"")', end_value(want), st.TIMES, st.RIGHT)
    for name, end, want in (("Speedup vs baseline, low end", lo, cmp.tiers.speedup_vs_baseline_low[i]),
                            ("Speedup vs baseline, high end", hi, cmp.tiers.speedup_vs_baseline_high[i])):
        t.put(name, f'=IF(ISNUMBER({end}),IF({t.base}="","",IF(ISNA({t.found}),"",'
              f'IF(ISNUMBER(INDEX({x.mixes},{t.found})),{end}/INDEX({x.mixes},{t.found}),""))),"")',
              end_value(want), st.TIMES, st.RIGHT)


def _write_verdicts(t: _TierRow) -> None:
    """The speed and value verdicts over the mix's interval; a tier with a fair price is listed for the table."""
    x, cmp, i, at = t.x, t.x.cmp, t.i, t.at
    G, lo, hi = t.cell("Mix speedup"), t.cell("Mix low"), t.cell("Mix high")
    band = x.refs.setting("marginal_band")
    t.put("Speed verdict", f'=IF({t.spec}="no","{NA}",{speed_verdict_formula(G, band, lo, hi)})',
          VERDICT_NAMES[int(cmp.tiers.verdict[i])], None, st.CENTRE)
    cost, base_cost = t.cell("Price unit"), f"INDEX({x.units},{at})"
    has_base = f'IF({at}>0,ISNUMBER(INDEX({x.mixes},{at})),FALSE)'  # nested: INDEX(...,0) is no row
    t.put("Value verdict", value_formula(G, cost, f"INDEX({x.mixes},{at})", base_cost,
                                         f'AND({t.spec}<>"no",{has_base})', lo, hi),
          VALUE_NAMES[int(cmp.tiers.value_verdict[i])], None, st.CENTRE)
    if math.isfinite(cmp.fair.factor[i]) and (math.isfinite(cmp.tiers.effective_alpha[i])
                                                     or cmp.judged_on_measured(i)):
        x.fair.append((i, t.row, t.cell("Price unit, served fast"), base_cost, f"INDEX({x.mixes},{at})", t.d))


def _write_without_classes(t: _TierRow) -> None:
    """No task class: no mix, verdict or speed over the baseline; a bill of nothing."""
    sheet = t.x.sheet
    for name in ("Mix speedup", "Premium over baseline", "Speedup vs baseline", "Cost per 1x speedup",
                 "Speed verdict", "Value verdict", "Mix low", "Mix high",
                 "Speedup vs baseline, low end", "Speedup vs baseline, high end", "Mix speedup, served fast",
                 "Mix low, served fast", "Mix high, served fast"):
        sheet.text(t.row, COL[name], DASH, st.RIGHT)
    for name in ("Monthly cost", "Monthly cost, served fast", "Price unit, served fast", "Price unit"):
        sheet.number(t.row, COL[name], 0.0, t.x.money)


def _list_measured(t: _TierRow) -> None:
    """A probe's number, kept on the tier (not an input on Inputs): listed under the table with its words."""
    cmp, i = t.x.cmp, t.i
    measured = cmp.tier_parts[i].measured
    if measured.measured is not None:
        t.x.said.append((t.tier.name, measured.words()))
    at_load = cmp.tier_parts[i].at_load.words()  # the speedup at the tier's concurrency, where it runs
    if at_load:
        t.x.said.append((t.tier.name, at_load))


def _write_claim(t: _TierRow) -> None:
    """The acceptance the vendor's claim needs, and whether the claim holds."""
    cmp, sheet, i, row = t.x.cmp, t.x.sheet, t.i, t.row
    claim_alpha = float(cmp.claims.alpha[i])
    if cmp.claims.holds[i] is None or cmp.made_up(i) or cmp.mix_waits(i):  # none solved from values nobody gave
        sheet.computed(row, COL["Alpha the claim needs (SpecLedger)"], DASH)
    else:
        sheet.computed(row, COL["Alpha the claim needs (SpecLedger)"],
                       OUT_OF_REACH if math.isnan(claim_alpha) else claim_alpha, st.PERCENT)
    holds = cmp.claims.holds[i]
    if t.x.n_c:  # the vendor's claim is about its fast mode: judged on the requests served fast
        tol = t.x.refs.setting("claim_tolerance")
        t.put("Claim holds", f'=IF(OR({t.spec}="no",{t.claim}=""),"{DASH}",IF({t.cell("Mix speedup, served fast")}>='
              f'{t.claim}*(1-{tol}),"yes","no"))', DASH if holds is None else ("yes" if holds else "no"), None, st.CENTRE)
    else:
        sheet.text(row, COL["Claim holds"], DASH, st.CENTRE)


def _write_terms(t: _TierRow) -> None:
    """The SLA's verdict (model/workbook/vendor_terms.sla_verdict, the one rule) and the downgraded share, live."""
    cmp, sheet, i, row = t.x.cmp, t.x.sheet, t.i, t.row
    thr, q, measured, low, high, d = (t.x.refs.tier(i, n) for n in (
        "sla_tokens_per_s", "sla_share", "sla_measured_share", "sla_share_low", "sla_share_high", "downgraded_share"))
    verdict = cmp.terms.sla_verdict[i] if cmp.terms.sla_verdict else ""
    shown = DASH if not (cmp.terms.sla and cmp.terms.sla[i]) else verdict or "not measured"
    sheet.formula(row, COL["SLA"], f'=IF(OR({thr}="",{q}=""),"{DASH}",IF({measured}="","not measured",'
                  f'IF(OR({low}="",{high}=""),"undecided",IF({low}>={q},"met",IF({high}<{q},"breached","undecided")))))',
                  shown, None, st.CENTRE)
    share = float(cmp.terms.downgraded_share[i])
    sheet.formula(row, COL["Downgraded share"], f'=IF({d}="","{DASH}",{d})', DASH if math.isnan(share) else share,
                  st.PERCENT, st.RIGHT)


def _write_flag(t: _TierRow) -> None:
    """'Grey values': the mix's price break-even weighs the same inputs as its classes' (all of them): a row of the
    tier's on the Comparison says it."""
    notes, i = t.x.notes, t.i
    rows = t.block("Grey values") if t.x.n_c else ""
    refused_row, any_row, price_row, opt_row = (f'COUNTIF({rows},"{word}")>0' if rows else "FALSE"
                                                for word in (REFUSED_INPUT, STALE, PRICE_STALE, OPT_STALE))
    t.put("Grey values", f'=IF(OR({notes.tier_refused(i)}<>"",{refused_row}),'
          f'"{REFUSED_INPUT}",IF(OR({notes.claim_changed(i)}<>"",{any_row}),"{STALE}",'
          f'IF({price_row},"{PRICE_STALE}",IF({opt_row},"{OPT_STALE}",""))))', "", None, st.CENTRE)


def _mix_end(weights: str, s_range: str, sd_range: str, low_range: str, mix: str, sign: str, confidence: str) -> str:
    """One end of the mix's interval (model/acceptance/propagate.mix_interval): the classes' log-speedup sds
    weighted by their shares of the mix's time, combined as independent; blank where no class has an interval."""
    def weighted(term: str) -> str:
        return f"IF(SUM({weights})>0,SUMPRODUCT({term.format(w=weights)}),SUMPRODUCT({term.format(w='1')}))"
    time = weighted(f"{{w}}/{s_range}")
    spread = weighted(f"({{w}}/{s_range})^2*{sd_range}^2")
    return (f'=IF(COUNT({low_range})=0,"",{mix}*EXP({sign}NORMINV(0.5+{confidence}/2,0,1)*SQRT({spread})/{time}))')


def _measured_mix_formula(tier: Tier, std: str) -> str:
    """A tier judged on its measured speed (model/comparison/on_measured.py): the probe's speedup over the baseline
    (a probe's number kept on the tier, not an input on Inputs) times the baseline's own mix."""
    return f"={tier.measured_speedup!r}*{std}"


def _measured_end(tier: Tier, std: str, sign: str, confidence: str) -> str:
    """One end of the measured speedup's interval, carried from the probe's confidence to the workbook's on the log
    scale (model/comparison/on_measured.measured_ends); blank where the probe gave none."""
    m, end = tier.measured_speedup, tier.measured_speedup_low if sign == "-" else tier.measured_speedup_high
    if m is None or end is None or not end > 0:
        return '=""'
    probe_conf = confidence if tier.measured_speedup_confidence is None else repr(tier.measured_speedup_confidence)
    z = f"NORMINV(0.5+{probe_conf}/2,0,1)"
    return f"={m!r}*({end!r}/{m!r})^(NORMINV(0.5+{confidence}/2,0,1)/{z})*{std}"
