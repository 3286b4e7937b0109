"""The report's Notes sheet: the assumptions, the drop-down lists, and the inputs as they were at export.

The grey values (break-even, optimal K, roofline c and v, the alpha a claim
needs) have no closed form, so they cannot follow an edit in Excel. The "as
exported" tables keep the inputs they were computed from, and a formula beside
each row says when Inputs no longer match: the other sheets read those flags to
mark their grey values stale instead of showing them as if they were right.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from model.report import styles as st
from model.report.inputs_sheet import InputRefs, choice_fields, refused_test
from model.report.kept_fields import write_kept
from model.report.layout import CLASS_COLUMNS, NOTES, TIER_COLUMNS
from model.workbook.rows import Tier, Workbook
from model.comparison.verdicts import TOO_FEW_LABEL, TOO_FEW_MEANING
from model.workbook.validation import CONFIDENCE_FIELD, SETTINGS_FIELDS, FieldSpec

CHANGED = "changed"
REFUSED = "out of range"  # an input the validator refuses: pasted past the data validation
_CHOICES_COL = 21  # the drop-down lists sit right of the tables, one list per column, a column apart
_CHOICES_ROW = 4
_TEXT_COLUMNS = {"Tier", "Speculative", "Cost model", "GPU", "Draft -> target", "Baseline"}
_TIER_COLUMNS = ["Tier", "Speculative", "K", "Cost model", "c (draft / target)", "v (verify / step)", "GPU",
                 "Draft -> target", "Batch", "Claimed speedup", "Claim context", "Changed since export",
                 "Claim changed", "Price out /1M", "Price in /1M", "Baseline", "Prices changed", "Baseline changed",
                 "On Inputs now"]

ASSUMPTIONS = [
    ("Acceptance convention", "per-token acceptance alpha (i.i.d. model). Trailer fill = accepted / drafted tokens "
     "(vLLM's draft acceptance rate); tokens per stretch E = mean acceptance length (bonus token included)."),
    ("Profiles and lengths", "a class or override may hold a per-position profile (p_i: position i accepted given "
     "the ones before were) or a mean acceptance length at a stated K, in the table under the overrides on Inputs: "
     "E = 1 + p1 + p1 p2 + ... up to the tier's K (the running products r_k there), live. Past the positions "
     "measured the rates fall by the decay of a line through ln p (geometric, never rising), and a length at "
     "another K is carried by the i.i.d. alpha with the same E (SpecLedger's, grey): an E marked * is "
     "extrapolated. The break-even for any draft is E* = K c + v tokens per step; alpha* does not apply to them."),
    ("Speedup", "S = E / (K c + v), E = (1 - alpha^(K+1)) / (1 - alpha). c = draft forward / target step, "
     "v = verify pass / target step: typed per tier, or from the roofline model at each class's context."),
    ("Mix speedup", "weighted by monthly output tokens, harmonic mean over task classes (time adds up, speed does "
     "not); with no output tokens entered at all, every class weighs the same."),
    ("Cost model", "monthly cost = list prices x monthly tokens; the draft's cost is inside the fast tier's price. "
     "Cost factor = compute per emitted token vs plain decoding, (K c + K + 1) / E."),
    ("Verdict", "tax if S < 1; marginal if 1 <= S < 1 + the marginal band; gain otherwise; undecided where the "
     "speedups at the two ends of the acceptance's interval fall in different verdicts; n/a for tiers that do "
     "not run speculative decoding."),
    ("Value verdict", "worth the premium where the speedup over the baseline is at least the price ratio (the "
     "same traffic priced on the tier over on its baseline), not worth it otherwise, undecided where the "
     "interval's ends fall on both sides of the price ratio; n/a without a baseline."),
    ("Intervals", "a measured acceptance's interval at its confidence (distinct prompts as the unit, Prompts measured; each "
     "request where the source names no prompt), or a range typed "
     "for an assumed one: its ends are Alpha low and Alpha high on Inputs (a typed range without its own confidence "
     "reads at the workbook's). E, the speedup and the speedup over the baseline at both ends are live formulas, "
     "and so is 'undecided': type a narrower range and the verdicts follow. The mix's interval combines the "
     "classes as independent (their log-speedup spreads weighted by their shares of the mix's time)."),
    (f"({TOO_FEW_LABEL})", f"after a verdict: the row's class was {TOO_FEW_MEANING} (its Interval method on Inputs "
     "says so); a range typed for it on Inputs takes the label away."),
    ("Fair price", "speedup over the baseline / price ratio, applied to both list prices: the price at which the "
     "speed is exactly worth it. At the pessimistic end: the same with the mix speedup at the low end of its "
     "interval, the price to open a negotiation with. The acceptance to guarantee is the mix's price "
     "break-even alpha; where a class is a profile or a length, the mean acceptance length at the tier's K that "
     "every class would need (AL, tokens per verify step: the price ratio x the baseline's speedup x the "
     "token-weighted mean step cost K c + v)."),
    ("Unconfirmed", "a tier whose use of speculative decoding the vendor has not confirmed (speculative = unknown) "
     "is computed as if it ran it; confirm it, since the answer changes what the throughput claim measures."),
    ("Claim holds", "mix speedup >= claimed speedup x (1 - claim tolerance); tolerance and band are on the Inputs "
     "sheet."),
    ("Grey cells", "computed by SpecLedger (break-even and claim-implied alpha, roofline c and v, optimal K); a "
     "spreadsheet has no closed form for them. When an input they depend on (K, cost model, GPU, pair, batch, "
     "typed c and v, context, claim, K max) differs from the values below, the row says 'stale' and a banner "
     "says so on top: import into SpecLedger and export again. A price break-even says 'price break-even "
     "stale' where the tier's or its baseline's prices, the baseline, the baseline's speed on that class or "
     "the class's tokens changed. Everything else is a live formula over Inputs."),
    ("Sensitivity", "mix speedup and cost per 1x speedup if every class's acceptance (and every override) moved "
     "by the same number of points, clipped to 0%..100%."),
    ("Out of range", "Excel's data validation stops a value typed outside what SpecLedger accepts, not one pasted. "
     "A row whose inputs hold one (an alpha of 150%, a K of 0, a blank price, a GPU not on the list) says "
     "'input out of range' and a banner says so on top: its numbers are not meaningful until the input is "
     "corrected, and an import names the cell."),
]


@dataclass(frozen=True)
class NotesRefs:
    tier_row0: int
    class_row0: int
    k_max_cell: str
    heading: dict[str, str]  # label -> the absolute reference of its text (File, Exported, ...)

    def tier_changed(self, i: int) -> str:
        return f"{NOTES}!$L${self.tier_row0 + i}"

    def claim_changed(self, i: int) -> str:
        return f"{NOTES}!$M${self.tier_row0 + i}"

    def class_changed(self, j: int) -> str:
        return f"{NOTES}!$C${self.class_row0 + j}"

    def k_max_changed(self) -> str:
        return self.k_max_cell

    def prices_changed(self, i: int) -> str:
        return f"{NOTES}!$Q${self.tier_row0 + i}"

    def baseline_changed(self, i: int) -> str:
        """The tier's baseline was set, cleared or pointed elsewhere, or the tier it named was renamed."""
        return f"{NOTES}!$R${self.tier_row0 + i}"

    def tokens_changed(self, j: int) -> str:
        return f"{NOTES}!$F${self.class_row0 + j}"

    def tier_refused(self, i: int) -> str:
        """Says REFUSED where a field of the tier's row on Inputs, or a setting, holds what the validator refuses."""
        return f"{NOTES}!$S${self.tier_row0 + i}"

    def class_refused(self, j: int) -> str:
        return f"{NOTES}!$G${self.class_row0 + j}"


def choice_ranges() -> dict[str, str]:
    """field name -> the absolute range on Notes listing its choices (where write_notes puts them)."""
    out = {}
    for n, (name, values) in enumerate(choice_fields().items()):
        col = st.col_name(_CHOICES_COL + n)
        out[name] = f"={NOTES}!${col}${_CHOICES_ROW + 1}:${col}${_CHOICES_ROW + len(values)}"
    return out


def write_notes(sheet: st.SheetWriter, wb: Workbook, refs: InputRefs, header: list[tuple[str, str]]) -> NotesRefs:
    """The assumptions, the drop-down lists, the tiers, classes and settings as exported with their flags; returns
    where the flags are, for the other sheets' formulas."""
    lists = choice_ranges()
    settings_checked = [(spec, refs.setting(spec.name)) for spec in SETTINGS_FIELDS + (CONFIDENCE_FIELD,)]
    sheet.text(1, 1, "Notes: what the report assumes, and the inputs as exported", st.TITLE)
    heading = {label: f"{NOTES}!$B${3 + n}" for n, (label, _) in enumerate(header)}
    row = _write_assumptions(sheet, header)
    _write_choices(sheet)
    tier_row0 = _write_tiers(sheet, wb, refs, row + 1, lists, settings_checked)
    class_row0 = _write_classes(sheet, wb, refs, tier_row0 + max(len(wb.tiers), 1) + 1, lists)
    row = class_row0 + max(len(wb.classes), 1) + 1
    sheet.text(row, 1, "K max", st.LABEL)
    sheet.number(row, 2, wb.settings.k_max)
    sheet.formula(row, 3, f'=IF({refs.setting("k_max")}<>$B${row},"{CHANGED}","")', "")
    k_max_row = row
    row += 1
    sheet.text(row, 1, "Settings on Inputs now", st.LABEL)
    sheet.formula(row, 2, _refused_formula(settings_checked, lists), "")
    _write_widths_and_print(sheet, wb, row)
    return NotesRefs(tier_row0, class_row0, f"{NOTES}!$C${k_max_row}", heading)


def _write_assumptions(sheet: st.SheetWriter, header: list[tuple[str, str]]) -> int:
    """The export's header lines (file, date ...) then the assumptions, a label and its words a row; returns the
    row after them."""
    row = 3
    for label, text in [*header, *ASSUMPTIONS]:
        sheet.text(row, 1, label, st.LABEL, st.WRAP)
        sheet.ws.merge_range(row - 1, 1, row - 1, 12, "", sheet.formats.get(None, st.WRAP))
        sheet.text(row, 2, text, st.WRAP)
        sheet.ws.set_row(row - 1, 15 * max(1, math.ceil(len(text) / 150)))  # merged cells do not grow by themselves
        row += 1
    return row


def _write_choices(sheet: st.SheetWriter) -> None:
    """The drop-down lists on Inputs, one a column, right of the tables (choice_ranges says where)."""
    sheet.text(_CHOICES_ROW - 1, _CHOICES_COL, "Drop-down lists on Inputs", st.HEADING)
    for n, (name, values) in enumerate(choice_fields().items()):
        sheet.text(_CHOICES_ROW, _CHOICES_COL + n, name, st.LABEL)
        for m, value in enumerate(values):
            sheet.text(_CHOICES_ROW + 1 + m, _CHOICES_COL + n, value)


def _write_tiers(sheet: st.SheetWriter, wb: Workbook, refs: InputRefs, row: int, lists: dict[str, str],
                 settings_checked: list[tuple[FieldSpec, str]]) -> int:
    """Under a heading on `row`, the tiers as exported, each with its flags (changed since export, claim, prices,
    baseline, out of range); returns the first tier's row."""
    sheet.text(row, 1, "Inputs as exported (the grey values were computed from these)", st.HEADING)
    row += 1
    sheet.header_row(row, _TIER_COLUMNS, text_columns=_TEXT_COLUMNS)
    sheet.ws.set_row(row - 1, 30)  # two lines: a row does not grow for its wrapped headers by itself
    tier_row0 = row + 1
    index = {t.name: i for i, t in enumerate(wb.tiers)}
    price = st.money_format(wb.settings.currency, 2)
    for i, t in enumerate(wb.tiers):
        r = tier_row0 + i
        _write_tier_inputs(sheet, refs, i, t, r)
        sheet.number(r, 14, t.price_out, price)
        sheet.number(r, 15, t.price_in, price)
        sheet.text(r, 16, t.baseline, st.INDENT)
        terms = "".join("," + _moved(refs.tier(i, name), getattr(t, name)) for name in _PRICE_TERMS)
        sheet.formula(r, 17, f'=IF(OR({refs.tier(i, "price_out")}<>$N${r},{refs.tier(i, "price_in")}<>$O${r}{terms}),'
                      f'"{CHANGED}","")', "")
        # the baseline as exported is found by its name then; a rename of that tier on Inputs moves the lookup too
        b = index.get(t.baseline, -1) if t.baseline else -1
        renamed = f',{refs.tier(b, "name")}<>$A${tier_row0 + b}' if b >= 0 else ""
        sheet.formula(r, 18, f'=IF(OR({refs.tier(i, "baseline")}<>$P${r}{renamed}),"{CHANGED}","")', "")
        # the settings too: every row of the tier reads them (and one cell per tier keeps the rows' formulas short)
        # a vendor's terms too (Inputs' columns right of the tier's own)
        sheet.formula(r, 19, _refused_formula([(spec, refs.tier(i, spec.name)) for spec in TIER_COLUMNS]
                                              + settings_checked, lists), "")
    return tier_row0


def _write_tier_inputs(sheet: st.SheetWriter, refs: InputRefs, i: int, t: Tier, r: int) -> None:
    """The tier's mechanics and claim as exported on row `r`, and whether either changed on Inputs since."""
    text_looks = {2: st.INDENT, 4: st.INDENT, 7: st.INDENT, 8: st.INDENT}  # text right after a number
    number_formats = {5: st.NUMBER, 6: st.NUMBER, 9: st.INTEGER, 10: st.TIMES1, 11: st.INTEGER}
    for col, value in enumerate((t.name, t.speculative, t.k, t.cost_model, t.c, t.v, t.gpu, t.pair, t.batch,
                                 t.claimed_speedup, t.claim_context), start=1):
        if isinstance(value, str):
            sheet.text(r, col, value, text_looks.get(col))
        else:
            sheet.number(r, col, value, number_formats.get(col))
    here = {f: f"${st.col_name(c)}${r}" for c, f in enumerate(
        ("name", "speculative", "k", "cost_model", "c", "v", "gpu", "pair", "batch", "claimed_speedup",
         "claim_context"), start=1)}
    now = {f: refs.tier(i, f) for f in here}
    roof = f"OR({now['gpu']}<>{here['gpu']},{now['pair']}<>{here['pair']},{now['batch']}<>{here['batch']})"
    typed = f"OR({now['c']}<>{here['c']},{now['v']}<>{here['v']})"
    sheet.formula(r, 12, f'=IF(OR({now["k"]}<>{here["k"]},{now["cost_model"]}<>{here["cost_model"]},'
                  f'({now["speculative"]}="no")<>({here["speculative"]}="no"),'
                  f'IF({now["cost_model"]}="roofline",{roof},{typed})),"{CHANGED}","")', "")
    sheet.formula(r, 13, f'=IF(OR($L${r}<>"",{now["claimed_speedup"]}<>{here["claimed_speedup"]},'
                  f'{now["claim_context"]}<>{here["claim_context"]}),"{CHANGED}","")', "")


def _write_classes(sheet: st.SheetWriter, wb: Workbook, refs: InputRefs, row: int, lists: dict[str, str]) -> int:
    """Under a header on `row`, the task classes as exported with their flags; returns the first class's row."""
    sheet.header_row(row, ["Task class", "Context", "Changed since export", "Output tokens/month",
                           "Input tokens/month", "Tokens changed", "On Inputs now"], text_columns={"Task class"})
    sheet.ws.set_row(row - 1, 45)
    class_row0 = row + 1
    for j, c in enumerate(wb.classes):
        r = class_row0 + j
        sheet.text(r, 1, c.name)
        sheet.number(r, 2, c.context, st.INTEGER)
        sheet.formula(r, 3, f'=IF({refs.cls(j, "context")}<>$B${r},"{CHANGED}","")', "")
        sheet.number(r, 4, c.tokens_out, st.INTEGER)
        sheet.number(r, 5, c.tokens_in, st.INTEGER)
        shares = "".join("," + _moved(refs.cls(j, name), getattr(c, name)) for name in ("cached_share", "long_share"))
        sheet.formula(r, 6, f'=IF(OR({refs.cls(j, "tokens_out")}<>$D${r},{refs.cls(j, "tokens_in")}<>$E${r}{shares}),'
                      f'"{CHANGED}","")', "")
        sheet.formula(r, 7, _refused_formula([(spec, refs.cls(j, spec.name)) for spec in CLASS_COLUMNS], lists), "")
    return class_row0


def _write_widths_and_print(sheet: st.SheetWriter, wb: Workbook, row: int) -> None:
    """Widths, the fields kept for the round trip, the pane, and the printed page down to `row`."""
    sheet.widths({1: 21, 2: 12, 3: 10, 4: 13, 5: 12, 6: 10, 7: 14, 8: 16, 9: 7, 10: 10, 11: 10, 12: 11, 13: 10, 14: 10,
                  15: 10, 16: 18, 17: 10, 18: 10, 19: 10,
                  **{_CHOICES_COL + n: 16 for n in range(len(choice_fields()))}})
    # the tier fields Inputs does not hold, for the round trip: beside the lists, machinery too
    write_kept(sheet, wb, _CHOICES_ROW - 1, _CHOICES_COL + len(choice_fields()) + 1)
    sheet.ws.freeze_panes(0, 1)
    # printed: the assumptions and the inputs as exported; the drop-down lists are the sheet's machinery
    sheet.print_last_col = len(_TIER_COLUMNS)
    sheet.ws.print_area(0, 0, row - 1, len(_TIER_COLUMNS) - 1)


# a vendor's terms the price break-evens are solved from (docs/design/vendor-terms.md): an edit of one says stale as
# a price's does; the SLA is live and decides no grey value
_PRICE_TERMS = ("price_cached_in", "band_threshold", "price_in_long", "price_out_long", "price_cached_in_long",
                "downgraded_share")


def _moved(ref: str, exported: float | None) -> str:
    """A test, TRUE where the Inputs cell no longer holds the value exported (blank for None): the value is written
    into the formula, as these terms have no column of their own on this sheet."""
    return f'{ref}&""<>""' if exported is None else f'IF(ISNUMBER({ref}),{ref}<>{float(exported)!r},TRUE)'


def _refused_formula(fields: list[tuple[FieldSpec, str]], lists: dict[str, str]) -> str:
    """REFUSED where any of these (field, Inputs cell) holds what the validator refuses, else blank."""
    tests = [t for spec, ref in fields if (t := refused_test(spec, ref, lists)) is not None]
    return f'=IF(OR({",".join(tests)}),"{REFUSED}","")' if tests else '=""'
