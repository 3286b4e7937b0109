"""The report's Summary sheet: one row per tier (live names, baselines by name, claims), the sheet's formula helpers shared with the Sensitivity sheet (sensitivity_sheet.py).

The assumptions live on the Notes sheet, so only the title rows and the table's
header are frozen and the table scrolls into view on a laptop screen.
"""
from __future__ import annotations

import math
from typing import Any

from model.comparison import VALUE_NAMES, VERDICT_NAMES, Comparison
from model.common.formatting import OUT_OF_REACH
from model.comparison.guarantee import ALPHA_UNIT
from model.common.formatting import context as context_text
from model.comparison.quality import quality_line
from model.comparison.terms import terms_words
from model.report import styles as st
from model.report.comparison_sheet import (FLAG_LOOKS, INCOMPLETE_MEANING, UNDECIDED_MEANING, NOT_WORTH, OPT_STALE, PRICE_STALE, REFUSED_INPUT, STALE, WORTH,
                                           UNDECIDED, banner_formula, end_value, grey_word, letter,
                                           name_width, speed_verdict_formula, value_formula)
from model.report.inputs_sheet import InputRefs
from model.report.layout import COMPARISON
from model.report.notes_sheet import NotesRefs
from model.comparison.verdicts import TOO_FEW_LABEL, TOO_FEW_MEANING
from model.workbook.rows import Tier, Workbook

DASH = "–"
NA = "n/a"
HEADER_ROW = 5
SUMMARY_COLUMNS = [
    "Tier", "Vendor", "Speculative", "Baseline", "Claimed speedup", "Claim context", "Mix speedup",
    "Mix low", "Mix high", "Monthly cost", "Premium over baseline", "Speedup vs baseline",
    "Cost per 1x speedup", "Alpha the claim needs (SpecLedger)", "Claim holds", "Speed verdict",
    "Price break-even acceptance (SpecLedger)", "Value verdict", "Grey values",
    # right of the printed page: a vendor's terms beside the verdicts (the SLA's verdict, the downgraded share: their
    # sentences are listed under the table), the speedup over the baseline at the interval's ends (the fair price's
    # inputs), and hidden, what the as-served mix and bill are made from (docs/design/vendor-terms.md)
    "SLA", "Downgraded share",
    "Speedup vs baseline, low end", "Speedup vs baseline, high end", "Baseline position",
    "Mix speedup, served fast", "Mix low, served fast", "Mix high, served fast", "Monthly cost, served fast",
    "Price unit, served fast", "Price unit",
]
# hidden: the baseline's place in the list, 0 for none
BASELINE_POSITION = st.col_name(SUMMARY_COLUMNS.index("Baseline position") + 1)
_HIDDEN = ("Baseline position", "Mix speedup, served fast", "Mix low, served fast", "Mix high, served fast",
           "Monthly cost, served fast", "Price unit, served fast", "Price unit")
_SCOL = {name: i + 1 for i, name in enumerate(SUMMARY_COLUMNS)}
_TEXT_COLUMNS = {"Tier", "Vendor", "Baseline"}
# by header, so a column added in between does not shift the others' widths
_WIDTHS = {"Tier": 20, "Vendor": 13, "Speculative": 20, "Baseline": 16, "Claimed speedup": 9, "Claim context": 9,
           "Mix speedup": 9, "Mix low": 7, "Mix high": 7, "Monthly cost": 12,
           "Speedup vs baseline, low end": 10, "Speedup vs baseline, high end": 10, "Premium over baseline": 10, "Speedup vs baseline": 10,
           "Cost per 1x speedup": 11, "Alpha the claim needs (SpecLedger)": 12,
           "Claim holds": 8, "Speed verdict": 9, "Price break-even acceptance (SpecLedger)": 13, "Value verdict": 16,
           "Grey values": 18,  # the longest flag word, "price break-even stale"
           "SLA": 11, "Downgraded share": 11}
# what a tier's made-up mechanics would decide: said in words instead (Tier.defaulted)
_FROM_MECHANICS = ("Mix speedup", "Mix low", "Mix high", "Speedup vs baseline", "Speedup vs baseline, low end",
                   "Speedup vs baseline, high end", "Cost per 1x speedup", "Claim holds", "Mix speedup, served fast",
                   "Mix low, served fast", "Mix high, served fast")
# what a class's tokens nobody gave would bill: no number while they are not given (TaskClass.defaulted)
_FROM_TOKENS = ("Monthly cost", "Premium over baseline", "Cost per 1x speedup", "Monthly cost, served fast",
                "Price unit, served fast", "Price unit")
_WRAPPED = {"text_wrap": True, "valign": "vcenter"}
_LENGTH = '"AL "0.00'  # a mean acceptance length, tokens per verify step (model/comparison/guarantee.py)
_ACCEPT_COL = SUMMARY_COLUMNS.index("Monthly cost") + 1  # the fair-price table's acceptances sit under it and the next
# the key to the verdicts' colours (the Grid words its own); teal: mechanics an import made up (Tier.defaulted)
SUMMARY_LEGEND = [("gain", "gain, worth it, yes"), ("marginal", "marginal"), ("tax", "tax, not worth it, no"),
                  ("undecided", "undecided"), ("incomplete", "incomplete")]
_CENTRED_COLUMNS = {"Speed verdict", "Value verdict", "Claim holds", "Speculative", "Grey values"}


def context_label(ref: str) -> str:
    """A context length as the app writes it: 4K for 4096, the number otherwise."""
    return f'IF(MOD({ref},1024)=0,{ref}/1024&"K",{ref}&"")'


def _long_line(sheet: st.SheetWriter, row: int, text: str) -> None:
    """Words under the table from column B to the printed edge, wrapped there: run on over empty cells they were
    cut at the page's edge ('... ask the vend')."""
    last = _SCOL["Grey values"]
    width = sum(w for name, w in _WIDTHS.items() if 2 <= _SCOL[name] <= last and name not in _HIDDEN)
    sheet.ws.merge_range(row - 1, 1, row - 1, last - 1, text, sheet.formats.get(None, st.WRAP))
    sheet.ws.set_row(row - 1, 15 * st.wrapped_lines(text, width * 0.9))


def write_summary(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs, notes: NotesRefs,
                  cmp_rows: dict[int, int], heading: tuple[str, str]) -> int:
    """`heading`: the line under the title as SpecLedger writes it, and a note to end it. Returns the last row."""
    sheet.text(1, 1, "SpecLedger report: the fast tiers' speed, and what it costs, on this workload", st.TITLE)
    line, tail = heading
    title, currency = refs.setting("title"), refs.setting("currency")
    # title and currency are shaded inputs, so the line follows them; the file and date are Notes' text cells
    sheet.formula(2, 1, f'="Workbook: "&IF({title}="","{DASH}",{title}&"")&"   File: "&{notes.heading["File"]}'
                  f'&"   Exported: "&{notes.heading["Exported"]}&"   Currency: "&{currency}&"{tail}"', line + tail,
                  None, st.NOTE)
    n_t, n_c = len(wb.tiers), len(wb.classes)
    first = HEADER_ROW + 1
    last = max(first + n_t - 1, first)
    col = {name: st.col_name(i) for name, i in _SCOL.items()}
    flags = f"${col['Grey values']}${first}:${col['Grey values']}${last}"
    sheet.formula(3, 1, banner_formula(flags), "", None, st.BANNER)
    sheet.text(4, 1, "Mix = harmonic mean over task classes weighted by output tokens; grey = SpecLedger's "
               "(no closed form); the charts are on the Charts sheet, the assumptions and the inputs as exported on Notes.",
               st.NOTE)
    sheet.header_row(HEADER_ROW, SUMMARY_COLUMNS, text_columns=_TEXT_COLUMNS, centred=_CENTRED_COLUMNS)
    sheet.explain_headers(HEADER_ROW, SUMMARY_COLUMNS)
    sheet.ws.set_row(HEADER_ROW - 1, 58)

    money = st.money_format(wb.settings.currency)
    speed = letter("Speedup")
    flag_col = letter("Grey values")
    weights = refs.class_column("tokens_out")
    tokens_in = refs.class_column("tokens_in")
    names = f"${col['Tier']}${first}:${col['Tier']}${last}"
    def column(name: str) -> str:
        return f"${col[name]}${first}:${col[name]}${last}"
    costs, mixes = column("Monthly cost"), column("Mix speedup")
    fast_mixes, fast_costs = column("Mix speedup, served fast"), column("Monthly cost, served fast")
    units_fast, units = column("Price unit, served fast"), column("Price unit")
    tol, band = refs.setting("claim_tolerance"), refs.setting("marginal_band")
    said: list[tuple[str, str]] = []  # (tier, the measured speed in words), listed under the table
    untold = any(c.tokens_not_given() for c in wb.classes)
    # (tier, its row, its bill on the requests served fast, its baseline's bill, baseline's mix, its downgraded share)
    fair: list[tuple[int, int, str, str, str, str]] = []
    for i, tier in enumerate(wb.tiers):
        row = first + i
        G, H = f"{col['Mix speedup']}{row}", f"{col['Monthly cost']}{row}"
        spec, claim, base = refs.tier(i, "speculative"), refs.tier(i, "claimed_speedup"), refs.tier(i, "baseline")

        # mechanics an import made up (Tier.defaulted), the tier's own or its baseline's: what compare() withholds
        # from them (no mix, speed over the baseline, verdicts or claim) is said in its words, here as in the app
        # (a tier judged on a probe's measured speed has its mix and verdicts from that: model/comparison/on_measured.py)
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
        tall = 0  # the wrapped verdict words' row height, the tallest of them

        def formula(name: str, text: str, value: Any, fmt: str | None = None, *looks: Any) -> None:
            nonlocal tall
            if name in withheld:
                if "verdict" in name:  # the words wrap within the narrow verdict column, the row grows for them
                    sheet.text(row, _SCOL[name], withheld[name], st.CENTRE, st.VERDICT_LOOKS["incomplete"], _WRAPPED)
                    tall = max(tall, 15 * st.wrapped_lines(withheld[name], _WIDTHS[name] * 0.8))
                    sheet.ws.set_row(row - 1, tall)
                else:
                    sheet.text(row, _SCOL[name], withheld[name], st.RIGHT)
            else:
                sheet.formula(row, _SCOL[name], text, value, fmt, *looks)

        formula("Tier", f'={refs.tier(i, "name")}&""', tier.name)
        formula("Baseline position", f'=IF({base}="",0,IFERROR(MATCH({base},{names},0),0))',
                int(cmp.baseline_index[i]) + 1)
        sheet.computed(row, _SCOL["Price break-even acceptance (SpecLedger)"],
                       *(DASH, None) if cmp.made_up(i) or waits else _guarantee(cmp, i))
        formula("Vendor", f'={refs.tier(i, "vendor")}&""', tier.vendor)
        formula("Speculative", f'=IF({spec}="unknown","unknown (unconfirmed)",{spec}&"")',
                "unknown (unconfirmed)" if tier.speculative == "unknown" else tier.speculative, None, st.CENTRE)
        formula("Baseline", f'=IF({base}="","{DASH}",{base}&"")', tier.baseline or DASH)
        formula("Claimed speedup", f'=IF({claim}="","{DASH}",{claim})',
                DASH if tier.claimed_speedup is None else tier.claimed_speedup, st.TIMES1, st.RIGHT)
        formula("Claim context", f"={context_label(refs.tier(i, 'claim_context'))}", context_text(tier.claim_context),
                None, st.RIGHT)
        if n_c:
            r0 = cmp_rows[i]
            s_range = f"{COMPARISON}!${speed}${r0}:${speed}${r0 + n_c - 1}"
            # the vendor's terms (docs/design/vendor-terms.md): the mix and the bill on the requests served fast, and
            # as served with the downgraded share d at the standard tier's speed (its baseline's) and prices
            at = f"{col['Baseline position']}{row}"
            F, MF, UF = (f"{col[n]}{row}" for n in ("Mix speedup, served fast", "Monthly cost, served fast",
                                                    "Price unit, served fast"))
            d_ref, d_lo_ref, d_hi_ref = (refs.tier(i, n) for n in ("downgraded_share", "downgraded_low", "downgraded_high"))
            d = f"N({d_ref})"
            std = f"IF({at}>0,IF(ISNUMBER(INDEX({fast_mixes},{at})),INDEX({fast_mixes},{at}),1),1)"
            no_tokens = f"SUM({weights})+SUM({tokens_in})=0"
            billed = f"AND({d}>0,{at}>0)"
            cw = letter("Cost weight on tier")
            cw_range = f"{COMPARISON}!${cw}${r0}:${cw}${r0 + n_c - 1}"
            formula("Mix speedup, served fast", _measuredmix_formula(tier, std) if cmp.judged_on_measured(i) else
                    mix_formula(weights, s_range), float(cmp.mix_speedup_fast[i]), st.TIMES)
            formula("Mix speedup", f"={served_formula(F, d, std)}", float(cmp.mix_speedup[i]), st.TIMES)
            formula("Monthly cost, served fast", f"=SUMPRODUCT({cw_range},({weights}+{tokens_in}>0)*1)/1000000",
                    float(cmp.monthly_cost_fast[i]), money)
            formula("Monthly cost", f"=IF({billed},(1-{d})*{MF}+{d}*INDEX({fast_costs},{at}),{MF})",
                    float(cmp.monthly_cost[i]), money)
            formula("Price unit, served fast", f"=IF({no_tokens},AVERAGE({cw_range}),{MF})",
                    float(cmp.price_unit_fast[i]), money)
            formula("Price unit", f"=IF({billed},(1-{d})*{UF}+{d}*INDEX({units_fast},{at}),{UF})",
                    float(cmp.price_unit[i]), money)
            found = f"MATCH({base},{names},0)"
            premium = float(cmp.premium[i])
            formula("Premium over baseline", f'=IF({base}="","{DASH}",IF(ISNA({found}),"{DASH}",'
                    f'IF(INDEX({costs},{found})>0,{H}/INDEX({costs},{found})-1,"{DASH}")))',
                    DASH if math.isnan(premium) else premium, st.SIGNED_PERCENT, st.RIGHT)
            vs = float(cmp.speedup_vs_baseline[i])
            # a baseline whose own mechanics are made up has no mix to divide by (it says "–")
            formula("Speedup vs baseline", f'=IF({base}="","{DASH}",IF(ISNA({found}),"{DASH}",'
                    f'IF(ISNUMBER(INDEX({mixes},{found})),{G}/INDEX({mixes},{found}),"{DASH}")))',
                    DASH if math.isnan(vs) else vs, st.TIMES, st.RIGHT)
            formula("Cost per 1x speedup", f"={H}/{G}", float(cmp.price_per_speedup[i]), money)
            lo, hi = f"{col['Mix low']}{row}", f"{col['Mix high']}{row}"
            d_ends = (f'IF({d_lo_ref}="",{d},{d_lo_ref})', f'IF({d_hi_ref}="",{d},{d_hi_ref})')
            for name, sd, sign, fast_end, served, fast_want, want in (
                    ("Mix low", "Log-speedup sd, low", "-", "Mix low, served fast", "MIN",
                     cmp.mix_speedup_fast_low[i], cmp.mix_speedup_low[i]),
                    ("Mix high", "Log-speedup sd, high", "", "Mix high, served fast", "MAX",
                     cmp.mix_speedup_fast_high[i], cmp.mix_speedup_high[i])):
                formula(fast_end, _measured_end(tier, std, sign, refs.setting("confidence")) if cmp.judged_on_measured(i)
                        else _mix_end(weights, s_range, _range(r0, n_c, sd), _range(r0, n_c, "Speedup, low end"),
                                      F, sign, refs.setting("confidence")), end_value(fast_want), st.TIMES, st.RIGHT)
                # the fast mix's end with the downgraded share's ends, the wider way round
                end = f"{col[fast_end]}{row}"
                formula(name, f'=IF(ISNUMBER({end}),{served}({served_formula(end, d_ends[0], std)},{served_formula(end, d_ends[1], std)}),"")',
                        end_value(want), st.TIMES, st.RIGHT)
            for name, end, want in (("Speedup vs baseline, low end", lo, cmp.speedup_vs_baseline_low[i]),
                                    ("Speedup vs baseline, high end", hi, cmp.speedup_vs_baseline_high[i])):
                formula(name, f'=IF(ISNUMBER({end}),IF({base}="","",IF(ISNA({found}),"",'
                        f'IF(ISNUMBER(INDEX({mixes},{found})),{end}/INDEX({mixes},{found}),""))),"")',
                        end_value(want), st.TIMES, st.RIGHT)
            formula("Speed verdict", f'=IF({spec}="no","{NA}",{speed_verdict_formula(G, band, lo, hi)})',
                    VERDICT_NAMES[int(cmp.tier_verdict[i])], None, st.CENTRE)
            cost, base_cost = f"{col['Price unit']}{row}", f"INDEX({units},{at})"
            has_base = f'IF({at}>0,ISNUMBER(INDEX({mixes},{at})),FALSE)'  # nested: INDEX(...,0) is no row
            formula("Value verdict", value_formula(G, cost, f"INDEX({mixes},{at})", base_cost,
                                                   f'AND({spec}<>"no",{has_base})', lo, hi),
                    VALUE_NAMES[int(cmp.tier_value_verdict[i])], None, st.CENTRE)
            if math.isfinite(cmp.fair_price_factor[i]) and (math.isfinite(cmp.effective_alpha[i])
                                                             or cmp.judged_on_measured(i)):
                fair.append((i, row, UF, base_cost, f"INDEX({mixes},{at})", d))
            rows = f"{COMPARISON}!${flag_col}${r0}:${flag_col}${r0 + n_c - 1}"
        else:
            for name in ("Mix speedup", "Premium over baseline", "Speedup vs baseline", "Cost per 1x speedup",
                         "Speed verdict", "Value verdict", "Mix low", "Mix high",
                         "Speedup vs baseline, low end", "Speedup vs baseline, high end", "Mix speedup, served fast",
                         "Mix low, served fast", "Mix high, served fast"):
                sheet.text(row, _SCOL[name], DASH, st.RIGHT)
            for name in ("Monthly cost", "Monthly cost, served fast", "Price unit, served fast", "Price unit"):
                sheet.number(row, _SCOL[name], 0.0, money)
            rows = ""
        # a probe's number, kept on the tier (not an input on Inputs): listed under the table with its words
        measured = cmp.tier_parts[i].measured
        if measured.measured is not None:
            said.append((tier.name, measured.words()))
        at_load = cmp.tier_parts[i].at_load.words()  # the speedup at the tier's concurrency, where it runs
        if at_load:
            said.append((tier.name, at_load))
        claim_alpha = float(cmp.claim_alpha[i])
        if cmp.claim_holds[i] is None or cmp.made_up(i) or waits:  # none solved from values nobody gave
            sheet.computed(row, _SCOL["Alpha the claim needs (SpecLedger)"], DASH)
        else:
            sheet.computed(row, _SCOL["Alpha the claim needs (SpecLedger)"],
                           OUT_OF_REACH if math.isnan(claim_alpha) else claim_alpha, st.PERCENT)
        holds = cmp.claim_holds[i]
        if n_c:  # the vendor's claim is about its fast mode: judged on the requests served fast
            formula("Claim holds", f'=IF(OR({spec}="no",{claim}=""),"{DASH}",IF({col["Mix speedup, served fast"]}{row}>='
                    f'{claim}*(1-{tol}),"yes","no"))',
                    DASH if holds is None else ("yes" if holds else "no"), None, st.CENTRE)
        else:
            sheet.text(row, _SCOL["Claim holds"], DASH, st.CENTRE)
        _terms_cells(sheet, refs, cmp, i, row)
        # the mix's price break-even weighs the same inputs as its classes' (all of them): a row says it
        refused_row, any_row, price_row, opt_row = (f'COUNTIF({rows},"{word}")>0' if rows else "FALSE"
                                                    for word in (REFUSED_INPUT, STALE, PRICE_STALE, OPT_STALE))
        formula("Grey values", f'=IF(OR({notes.tier_refused(i)}<>"",{refused_row}),'
                f'"{REFUSED_INPUT}",IF(OR({notes.claim_changed(i)}<>"",{any_row}),"{STALE}",'
                f'IF({price_row},"{PRICE_STALE}",IF({opt_row},"{OPT_STALE}",""))))', "", None, st.CENTRE)

    sheet.table("SummaryTable", HEADER_ROW, last, SUMMARY_COLUMNS, filters=False)
    sheet.colour_verdicts(f"{col['Speed verdict']}{first}:{col['Speed verdict']}{last}")
    sheet.colour_words(f"{col['Value verdict']}{first}:{col['Value verdict']}{last}",
                       {WORTH: "gain", NOT_WORTH: "tax", UNDECIDED: "undecided"})
    sheet.colour_words(f"{col['Claim holds']}{first}:{col['Claim holds']}{last}", {"yes": "gain", "no": "tax"})
    sheet.colour_words(flags.replace("$", ""), FLAG_LOOKS)
    sheet.money_follows_currency(f"{col['Monthly cost']}{first}:{col['Monthly cost']}{last} "
                                 f"{col['Cost per 1x speedup']}{first}:{col['Cost per 1x speedup']}{last}",
                                 refs.setting("currency"), wb.settings.currency)
    sheet.colour_legend(last + 2, SUMMARY_LEGEND, {_SCOL[name]: w for name, w in _WIDTHS.items()},
                        f"{UNDECIDED_MEANING}; {INCOMPLETE_MEANING}")
    last += 2
    # under the table, not a column: the words are long and the table prints one page wide
    sheet.text(last + 2, 1, "Measured speed (a probe: tokens per second over the baseline's), beside the model's "
               "'Speedup vs baseline', and at each tier's load (parallel streams)", st.HEADING)
    if not said:
        sheet.text(last + 3, 1, "No tier has a measured speed yet: probe it from the app (Tools > Probe a tier) "
                   "and apply the result.", st.NOTE)
    for n, (name, words) in enumerate(said):
        sheet.text(last + 3 + n, 1, name, st.LABEL, st.WRAP)
        _long_line(sheet, last + 3 + n, words[:1].upper() + words[1:])
    last += 2 + max(1, len(said))
    last = _terms_lines(sheet, cmp, last)
    last = _quality_lines(sheet, cmp, last)
    last = _too_few_lines(sheet, cmp, last)
    last = _fair_prices(sheet, wb, cmp, refs, fair, col, last, money)
    sheet.ws.freeze_panes(HEADER_ROW, 1)
    sheet.widths({_SCOL[name]: width for name, width in _WIDTHS.items()})
    # the names whole: 'Northwind AI International' printed cut to 'Northwind AI Inte' at 13 wide
    # (up to 24 wide: wider, a 12-tier table no longer printed one page wide at a readable scale)
    sheet.widths({_SCOL["Vendor"]: name_width([t.vendor for t in wb.tiers], _WIDTHS["Vendor"], 24)})
    for name in _HIDDEN:
        sheet.hide(_SCOL[name], 8)
    sheet.print_last_col = _SCOL["Grey values"]  # the interval's vs-baseline ends feed the fair price below
    sheet.ws.print_area(0, 0, last - 1, _SCOL["Grey values"] - 1)
    return last


def _too_few_lines(sheet: st.SheetWriter, cmp: Comparison, last: int) -> int:
    """Under the table, where any: the tiers whose verdicts rest in part on classes measured from too few requests
    for an interval (the Comparison labels those rows live; this says it where the tier verdicts are read, as the
    window's summary tooltip does). As at export; returns the last row written."""
    few = [(name, cmp.too_few_classes(i)) for i, name in enumerate(cmp.tier_names) if cmp.too_few_classes(i)]
    if not few:
        return last
    sheet.text(last + 2, 1, f"Verdicts resting on {TOO_FEW_LABEL} (at export; the Comparison labels the rows)",
               st.HEADING)
    sheet.text(last + 3, 1, f"These classes were {TOO_FEW_MEANING}. The mix's interval counts no uncertainty from "
               "them.", st.NOTE)
    for n, (name, classes) in enumerate(few):
        sheet.text(last + 4 + n, 1, name, st.LABEL)
        sheet.text(last + 4 + n, 2, ", ".join(classes))
    return last + 3 + len(few)


def _fair_prices(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs,
                 fair: list[tuple[int, int, str, str, str, str]], col: dict[str, str], last: int, money: str) -> int:
    """Under the table: per tier with a baseline, the fair price (speedup over the baseline / price ratio, on both
    list prices) as live formulas, at the pessimistic end of the interval (SpecLedger's mix speedup there), and
    the acceptance to guarantee beside the one the workload runs like."""
    top = last + 2
    sheet.text(top, 1, "Fair price: the price at which the speed over the baseline is exactly worth it (both list "
               "prices times the factor); open the negotiation at the pessimistic end", st.HEADING)
    heads = ["Tier", "Fair price factor", "Fair price out /1M", "Fair price in /1M", "At the pessimistic end",
             "Out /1M there", "In /1M there", "Acceptance to guarantee (SpecLedger)", "Runs like now",
             "Runs like, low end", "Runs like, high end"]
    # the table's header look (wrapped, right over numbers) in the Summary's narrow columns: written as plain
    # labels the long ones ran into each other ("At the pessiOut /1M th")
    # the acceptances skip the two narrow interval columns (Mix low / high) for wider ones
    columns = [1, 2, 3, 4, 5, 6, 7, *range(_ACCEPT_COL, _ACCEPT_COL + 4)]
    sheet.header_row(top + 1, heads[:7], text_columns={"Tier"})
    sheet.header_row(top + 1, heads[7:], first_col=_ACCEPT_COL)
    widths = [_WIDTHS.get(SUMMARY_COLUMNS[c - 1], st.DEFAULT_WIDTH) for c in columns]
    sheet.ws.set_row(top, 15 * max(st.wrapped_lines(h, w) for h, w in zip(heads, widths)))
    if not fair:
        sheet.text(top + 2, 1, "No speculative tier has a baseline to be priced against.", st.NOTE)
        return top + 2
    put_x, put_money = sheet.writer(st.TIMES), sheet.writer(st.money_format(wb.settings.currency, 2))
    put_x_r, put_money_r = sheet.writer(st.TIMES, st.RIGHT), sheet.writer(st.money_format(wb.settings.currency, 2), st.RIGHT)
    for n, (i, row, cost, base_cost, base_mix, d) in enumerate(fair):
        r = top + 2 + n
        G = f"{col['Mix speedup']}{row}"

        # the factor on the tier's list prices with the downgraded share d billed at the baseline's anyway
        # (model/comparison/terms.fair_factor); `cost` is the bill on the requests served fast
        def factor_at(mix: str) -> str:
            return f"({mix}/{base_mix}-{d})/((1-{d})*{cost}/{base_cost})"
        factor = factor_at(G)
        sheet.formula(r, 1, f'={refs.tier(i, "name")}&""', wb.tiers[i].name)
        put_x(r, 2, f"={factor}", float(cmp.fair_price_factor[i]))
        put_money(r, 3, f"=B{r}*{refs.tier(i, 'price_out')}", float(cmp.fair_price_out[i]))
        put_money(r, 4, f"=B{r}*{refs.tier(i, 'price_in')}", float(cmp.fair_price_in[i]))
        lo = f"{col['Mix low']}{row}"  # live: the interval's ends are inputs on Inputs
        low = float(cmp.fair_price_factor_low[i])
        put_x_r(r, 5, f'=IF(ISNUMBER({lo}),{factor_at(lo)},"{DASH}")', DASH if math.isnan(low) else low)
        put_money_r(r, 6, f'=IF(ISNUMBER(E{r}),E{r}*{refs.tier(i, "price_out")},"{DASH}")',
                  DASH if math.isnan(low) else float(cmp.fair_price_out_low[i]))
        put_money_r(r, 7, f'=IF(ISNUMBER(E{r}),E{r}*{refs.tier(i, "price_in")},"{DASH}")',
                  DASH if math.isnan(low) else float(cmp.fair_price_in_low[i]))
        if cmp.judged_on_measured(i):  # no mechanics: no acceptance to guarantee, the price rests on the speed measured
            sheet.computed(r, _ACCEPT_COL, "n/a: on the measured speed")
            continue
        sheet.computed(r, _ACCEPT_COL, *_guarantee(cmp, i))
        sheet.computed(r, _ACCEPT_COL + 1, *_guarantee(cmp, i, runs_like=True))
        # what the workload runs like is read from the requests served fast (the acceptance they show)
        _runs_like_ends(sheet, cmp, i, r, f"{col['Mix speedup, served fast']}{row}",
                        (f"{col['Mix low, served fast']}{row}", f"{col['Mix high, served fast']}{row}"))
    first, end = top + 2, top + 1 + len(fair)
    sheet.money_follows_currency(" ".join(f"{c}{first}:{c}{end}" for c in "CDFG"), refs.setting("currency"),
                                 wb.settings.currency, 2)
    return end


def _runs_like_ends(sheet: st.SheetWriter, cmp: Comparison, i: int, r: int, mix: str, ends: tuple[str, str]) -> None:
    """The interval of what the mix runs like, beside it (compare's text shows it too), blank without one. A
    length is the mix speedup times the token-weighted mean step cost (model/comparison/guarantee.py), so its ends follow
    the Mix low / high cells by formula; a uniform alpha inverts E(alpha, K), which has no closed form: grey."""
    g = cmp.tier_parts[i].guarantee
    now = f"{st.col_name(_ACCEPT_COL + 1)}{r}"
    for n, (end, want) in enumerate(zip(ends, (g.runs_low, g.runs_high))):
        c = _ACCEPT_COL + 2 + n
        if g.unit == ALPHA_UNIT:
            sheet.computed(r, c, float(want) if math.isfinite(want) else None, st.ALPHA_PERCENT)
        else:
            sheet.formula(r, c, f'=IF(ISNUMBER({end}),{now}*{end}/{mix},"")', end_value(want), _LENGTH, st.RIGHT)


def _guarantee(cmp: Comparison, i: int, runs_like: bool = False) -> tuple[float | str, str]:
    """The acceptance to guarantee (or the one the mix runs like now) and its cell format: an alpha, or where a
    class is a profile or a length the mean acceptance length at the tier's K (model/comparison/guarantee.py)."""
    g = cmp.tier_parts[i].guarantee
    if g.unit == ALPHA_UNIT:
        return (float(g.runs_like) if runs_like else grey_word(g.kind, g.value)), st.ALPHA_PERCENT
    if runs_like:
        return float(g.runs_like), _LENGTH
    word = grey_word(g.kind, g.value)  # never / n/a in words; 'always' pays from a length of 1, any acceptance
    return (word if isinstance(word, str) else max(word, 1.0)), _LENGTH


def _range(first: int, n: int, name: str) -> str:
    """One tier's block of a Comparison column."""
    c = letter(name)
    return f"{COMPARISON}!${c}${first}:${c}${first + n - 1}"


def _mix_end(weights: str, s_range: str, sd_range: str, low_range: str, mix: str, sign: str, confidence: str) -> str:
    """One end of the mix's interval (model/acceptance/propagate.mix_interval): the classes' log-speedup sds
    weighted by their shares of the mix's time, combined as independent; blank where no class has an interval."""
    def weighted(term: str) -> str:
        return f"IF(SUM({weights})>0,SUMPRODUCT({term.format(w=weights)}),SUMPRODUCT({term.format(w='1')}))"
    time = weighted(f"{{w}}/{s_range}")
    spread = weighted(f"({{w}}/{s_range})^2*{sd_range}^2")
    return (f'=IF(COUNT({low_range})=0,"",{mix}*EXP({sign}NORMINV(0.5+{confidence}/2,0,1)*SQRT({spread})/{time}))')


def _printed_lines(sheet: st.SheetWriter, heading: str, said: list[tuple[str, str]], last: int) -> int:
    """Under the table: a heading, then one row per (tier, sentence); the last row used."""
    if not said:
        return last
    sheet.text(last + 2, 1, heading, st.HEADING)
    for n, (name, words) in enumerate(said):
        sheet.text(last + 3 + n, 1, name, st.LABEL)
        sheet.text(last + 3 + n, 2, words[:1].upper() + words[1:])
    return last + 2 + len(said)


def _terms_lines(sheet: st.SheetWriter, cmp: Comparison, last: int) -> int:
    """Under the table, printed: each tier's vendor's terms in sentences (model/comparison/terms.terms_words), the
    SLA beside its verdict, the downgraded share with the mix and bill as served, the date of its list prices."""
    return _printed_lines(sheet, "A vendor's terms: requests served at standard speed (the mix and the bill above are "
                          "as served), the SLA, where the list prices came from",
                          [(name, line) for i, name in enumerate(cmp.tier_names) for line in terms_words(cmp, i)], last)


def _quality_lines(sheet: st.SheetWriter, cmp: Comparison, last: int) -> int:
    """Under the table, printed: each probed tier's quality (model/comparison/quality.py), beside its verdicts."""
    return _printed_lines(sheet, "Quality: the fast tier's samples at a temperature against the standard tier's "
                          "model, and its answers to checked tasks",
                          [(name, quality_line(cmp, i)) for i, name in enumerate(cmp.tier_names) if quality_line(cmp, i)],
                          last)


def served_formula(fast: str, d: str, std: str) -> str:
    """The as-served mix of a fast mix (model/comparison/terms.as_served): time per token adds up over the requests
    served fast and the share d downgraded to the standard tier's speed."""
    return f"IF({d}>0,1/((1-{d})/{fast}+{d}/{std}),{fast})"


def _terms_cells(sheet: st.SheetWriter, refs: InputRefs, cmp: Comparison, i: int, row: int) -> None:
    """The SLA's verdict (model/workbook/vendor_terms.sla_verdict, the one rule) and the downgraded share, live."""
    thr, q, measured, low, high, d = (refs.tier(i, n) for n in ("sla_tokens_per_s", "sla_share", "sla_measured_share",
                                                                "sla_share_low", "sla_share_high", "downgraded_share"))
    verdict = cmp.sla_verdict[i] if cmp.sla_verdict else ""
    shown = DASH if not (cmp.sla and cmp.sla[i]) else verdict or "not measured"
    sheet.formula(row, _SCOL["SLA"], f'=IF(OR({thr}="",{q}=""),"{DASH}",IF({measured}="","not measured",'
                  f'IF(OR({low}="",{high}=""),"undecided",IF({low}>={q},"met",IF({high}<{q},"breached","undecided")))))',
                  shown, None, st.CENTRE)
    share = float(cmp.downgraded_share[i]) if cmp.downgraded_share is not None else math.nan
    sheet.formula(row, _SCOL["Downgraded share"], f'=IF({d}="","{DASH}",{d})', DASH if math.isnan(share) else share,
                  st.PERCENT, st.RIGHT)


def _measuredmix_formula(tier: Tier, std: str) -> str:
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


def mix_formula(weights: str, s_range: str) -> str:
    return (f"=IF(SUM({weights})>0,SUM({weights})/SUMPRODUCT({weights}/{s_range}),"
            f"COUNT({s_range})/SUMPRODUCT(1/{s_range}))")
