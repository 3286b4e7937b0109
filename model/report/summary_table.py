"""The Summary sheet as written: its heading, its rows (summary_rows.py), the table's colours, and under it the
measured speeds, the vendors' terms, quality, the verdicts resting on too few requests and the fair prices; then
widths and the printed page. Its columns and shared formulas are in summary_sheet.py."""
from __future__ import annotations

import math

from model.comparison import Comparison
from model.comparison.guarantee import ALPHA_UNIT
from model.comparison.quality import quality_line
from model.comparison.terms import terms_words
from model.report import styles as st
from model.report.comparison_sheet import (FLAG_LOOKS, INCOMPLETE_MEANING, UNDECIDED_MEANING, NOT_WORTH, UNDECIDED,
                                           WORTH, banner_formula, end_value, name_width)
from model.report.inputs_sheet import InputRefs
from model.report.notes_sheet import NotesRefs
from model.report.summary_rows import Fair, name_lines, write_rows
from model.report.summary_sheet import (COL, DASH, HEADER_ROW, LENGTH, SUMMARY_COLUMNS, WIDTHS, guarantee_cell)
from model.comparison.verdicts import TOO_FEW_LABEL, TOO_FEW_MEANING
from model.workbook.rows import Workbook

_HIDDEN = ("Baseline position", "Mix speedup, served fast", "Mix low, served fast", "Mix high, served fast",
           "Monthly cost, served fast", "Price unit, served fast", "Price unit")
_TEXT_COLUMNS = {"Tier", "Vendor", "Baseline"}
_ACCEPT_COL = SUMMARY_COLUMNS.index("Monthly cost") + 1  # the fair-price table's acceptances sit under it and the next
# the key to the verdicts' colours (the Grid words its own); teal: mechanics an import made up (Tier.defaulted)
SUMMARY_LEGEND = [("gain", "gain, worth it, yes"), ("marginal", "marginal"), ("tax", "tax, not worth it, no"),
                  ("undecided", "undecided"), ("incomplete", "incomplete")]
_CENTRED_COLUMNS = {"Speed verdict", "Value verdict", "Claim holds", "Speculative", "Grey values"}


def _long_line(sheet: st.SheetWriter, row: int, text: str) -> None:
    """Words under the table from column B to the printed edge, wrapped there: run on over empty cells they were
    cut at the page's edge ('... ask the vend')."""
    last = COL["Grey values"]
    width = sum(w for name, w in WIDTHS.items() if 2 <= COL[name] <= last and name not in _HIDDEN)
    sheet.ws.merge_range(row - 1, 1, row - 1, last - 1, text, sheet.formats.get(None, st.WRAP))
    sheet.ws.set_row(row - 1, 15 * st.wrapped_lines(text, width * 0.9))


def write_summary(sheet: st.SheetWriter, wb: Workbook, cmp: Comparison, refs: InputRefs, notes: NotesRefs,
                  cmp_rows: dict[int, int], heading: tuple[str, str]) -> int:
    """`heading`: the line under the title as SpecLedger writes it, and a note to end it. Returns the last row."""
    first = HEADER_ROW + 1
    last = max(first + len(wb.tiers) - 1, first)
    col = {name: st.col_name(i) for name, i in COL.items()}
    flags = f"${col['Grey values']}${first}:${col['Grey values']}${last}"
    _write_heading(sheet, refs, notes, heading, flags)
    money = st.money_format(wb.settings.currency)
    said, fair = write_rows(sheet, wb, cmp, refs, notes, cmp_rows, last, money, name_widths(wb))
    _write_table_looks(sheet, wb, refs, col, last, flags)
    tiers_end = last + 2  # the colours' key under the rows
    last = _measured_lines(sheet, said, last + 2)
    last = _terms_lines(sheet, cmp, last)
    last = _quality_lines(sheet, cmp, last)
    fair_top = _too_few_lines(sheet, cmp, last) + 2
    last = _fair_prices(sheet, wb, cmp, refs, fair, col, fair_top - 2, money)
    _write_widths_and_print(sheet, wb, last)
    _page_titles_and_breaks(sheet, tiers_end, fair_top, last)
    return last


def name_widths(wb: Workbook) -> dict[str, float]:
    """The name columns' widths: Vendor as wide as its longest name (up to 24: 'Northwind AI International' printed
    cut to 'Northwind AI Inte' at 13), but never past what keeps the sheet one page wide at a readable scale
    (styles.MIN_PRINT_SCALE): 'Apex Inference Global Partners' printed the Summary two pages wide, its sentences
    under the table cut at the page's edge. A name longer than its column wraps in its cell (summary_rows)."""
    printed = [name for name in SUMMARY_COLUMNS[:COL["Grey values"]] if name not in _HIDDEN and name != "Vendor"]
    used = sum(st.column_px(WIDTHS.get(name, st.DEFAULT_WIDTH)) for name in printed)
    room = math.floor((st.PRINTABLE_PX / st.MIN_PRINT_SCALE - used - 5) / 7)
    vendor = max(WIDTHS["Vendor"], min(name_width([t.vendor for t in wb.tiers], WIDTHS["Vendor"], 24), room))
    return {"Tier": WIDTHS["Tier"], "Vendor": vendor, "Baseline": WIDTHS["Baseline"]}


def _write_heading(sheet: st.SheetWriter, refs: InputRefs, notes: NotesRefs, heading: tuple[str, str],
                   flags: str) -> None:
    """The title, the line under it (live), the stale banner over the flags, a note, and the header row."""
    sheet.text(1, 1, "SpecLedger report: the fast tiers' speed, and what it costs, on this workload", st.TITLE)
    line, tail = heading
    title, currency = refs.setting("title"), refs.setting("currency")
    # title and currency are shaded inputs, so the line follows them; the file and date are Notes' text cells
    sheet.formula(2, 1, f'="Workbook: "&IF({title}="","{DASH}",{title}&"")&"   File: "&{notes.heading["File"]}'
                  f'&"   Exported: "&{notes.heading["Exported"]}&"   Currency: "&{currency}&"{tail}"', line + tail,
                  None, st.NOTE)
    sheet.formula(3, 1, banner_formula(flags), "", None, st.BANNER)
    sheet.text(4, 1, "Mix = harmonic mean over task classes weighted by output tokens; grey = SpecLedger's "
               "(no closed form); the charts are on the Charts sheet, the assumptions and the inputs as exported on Notes.",
               st.NOTE)
    sheet.header_row(HEADER_ROW, SUMMARY_COLUMNS, text_columns=_TEXT_COLUMNS, centred=_CENTRED_COLUMNS)
    sheet.explain_headers(HEADER_ROW, SUMMARY_COLUMNS)
    sheet.ws.set_row(HEADER_ROW - 1, 58)


def _write_table_looks(sheet: st.SheetWriter, wb: Workbook, refs: InputRefs, col: dict[str, str], last: int,
                       flags: str) -> None:
    """The rows as a table, their verdicts, claims and flags coloured, money in the currency, the key."""
    first = HEADER_ROW + 1
    sheet.table("SummaryTable", HEADER_ROW, last, SUMMARY_COLUMNS, filters=False)
    sheet.colour_verdicts(f"{col['Speed verdict']}{first}:{col['Speed verdict']}{last}")
    sheet.colour_words(f"{col['Value verdict']}{first}:{col['Value verdict']}{last}",
                       {WORTH: "gain", NOT_WORTH: "tax", UNDECIDED: "undecided"})
    sheet.colour_words(f"{col['Claim holds']}{first}:{col['Claim holds']}{last}", {"yes": "gain", "no": "tax"})
    sheet.colour_words(flags.replace("$", ""), FLAG_LOOKS)
    sheet.money_follows_currency(f"{col['Monthly cost']}{first}:{col['Monthly cost']}{last} "
                                 f"{col['Cost per 1x speedup']}{first}:{col['Cost per 1x speedup']}{last}",
                                 refs.setting("currency"), wb.settings.currency)
    sheet.colour_legend(last + 2, SUMMARY_LEGEND, {COL[name]: w for name, w in WIDTHS.items()},
                        f"{UNDECIDED_MEANING}; {INCOMPLETE_MEANING}")


def _measured_lines(sheet: st.SheetWriter, said: list[tuple[str, str]], last: int) -> int:
    """Under the table, not a column (the words are long and the table prints one page wide): each tier's measured
    speed, and at its load, in words. Returns the last row used."""
    sheet.text(last + 2, 1, "Measured speed (a probe: tokens per second over the baseline's), beside the model's "
               "'Speedup vs baseline', and at each tier's load (parallel streams)", st.HEADING)
    if not said:
        sheet.text(last + 3, 1, "No tier has a measured speed yet: probe it from the app (Tools > Probe a tier) "
                   "and apply the result.", st.NOTE)
    for n, (name, words) in enumerate(said):
        sheet.text(last + 3 + n, 1, name, st.LABEL, st.WRAP)
        _long_line(sheet, last + 3 + n, words[:1].upper() + words[1:])
    return last + 2 + max(1, len(said))


def _write_widths_and_print(sheet: st.SheetWriter, wb: Workbook, last: int) -> None:
    """Panes, widths, the hidden columns, and the printed page down to `last`."""
    sheet.ws.freeze_panes(HEADER_ROW, 1)
    sheet.widths({COL[name]: width for name, width in WIDTHS.items()})
    sheet.widths({COL["Vendor"]: name_widths(wb)["Vendor"]})
    for name in _HIDDEN:
        sheet.hide(COL[name], 8)
    sheet.print_last_col = COL["Grey values"]  # the interval's vs-baseline ends feed the fair price below
    sheet.ws.print_area(0, 0, last - 1, COL["Grey values"] - 1)


def _page_titles_and_breaks(sheet: st.SheetWriter, tiers_end: int, top: int, end: int) -> None:
    """Each printed page headed by its own table's header. The tier table's header row repeats on later pages only
    where the tier table itself runs past the first (rows `tiers_end` and above); repeated on a sheet whose tiers fit
    one page it headed the fair prices' continuation ('Claimed speedup' over '1.04x $14.62'). A page break before
    the fair-price table (heading at `top`, last row `end`) where it would run over a page's end: its own header
    row heads it."""
    tall = st.PRINTABLE_HEIGHT_PX / sheet.print_layout()[1]
    if sheet.rows_px(1, tiers_end) > tall:
        sheet.ws.repeat_rows(HEADER_ROW - 1)
    used = sheet.rows_px(1, top - 1) % tall  # of the page the heading would start on (rows as whole pixels)
    if used and used + sheet.rows_px(top, end) > tall:
        sheet.ws.set_h_pagebreaks([top - 1])


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
                 fair: list[Fair], col: dict[str, str], last: int, money: str) -> int:
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
    widths = [WIDTHS.get(SUMMARY_COLUMNS[c - 1], st.DEFAULT_WIDTH) for c in columns]
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
        sheet.formula(r, 1, f'={refs.tier(i, "name")}&""', wb.tiers[i].name, None, st.WRAP)
        if (lines := name_lines(wb.tiers[i].name, WIDTHS["Tier"])) > 1:  # wrapped whole, as in the table above
            sheet.ws.set_row(r - 1, 15 * lines)
        put_x(r, 2, f"={factor}", float(cmp.fair.factor[i]))
        put_money(r, 3, f"=B{r}*{refs.tier(i, 'price_out')}", float(cmp.fair.price_out[i]))
        put_money(r, 4, f"=B{r}*{refs.tier(i, 'price_in')}", float(cmp.fair.price_in[i]))
        lo = f"{col['Mix low']}{row}"  # live: the interval's ends are inputs on Inputs
        low = float(cmp.fair.factor_low[i])
        put_x_r(r, 5, f'=IF(ISNUMBER({lo}),{factor_at(lo)},"{DASH}")', DASH if math.isnan(low) else low)
        put_money_r(r, 6, f'=IF(ISNUMBER(E{r}),E{r}*{refs.tier(i, "price_out")},"{DASH}")',
                  DASH if math.isnan(low) else float(cmp.fair.price_out_low[i]))
        put_money_r(r, 7, f'=IF(ISNUMBER(E{r}),E{r}*{refs.tier(i, "price_in")},"{DASH}")',
                  DASH if math.isnan(low) else float(cmp.fair.price_in_low[i]))
        if cmp.judged_on_measured(i):  # no mechanics: no acceptance to guarantee, the price rests on the speed measured
            sheet.computed(r, _ACCEPT_COL, "n/a: on the measured speed")
            continue
        sheet.computed(r, _ACCEPT_COL, *guarantee_cell(cmp, i))
        sheet.computed(r, _ACCEPT_COL + 1, *guarantee_cell(cmp, i, runs_like=True))
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
            sheet.formula(r, c, f'=IF(ISNUMBER({end}),{now}*{end}/{mix},"")', end_value(want), LENGTH, st.RIGHT)


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
