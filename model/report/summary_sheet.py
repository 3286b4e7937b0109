"""The report's Summary sheet: its columns, and the formula helpers its rows share with the Sensitivity sheet
(sensitivity_sheet.py) and the charts. summary_table.py writes the sheet, summary_rows.py its rows.

The assumptions live on the Notes sheet, so only the title rows and the table's
header are frozen and the table scrolls into view on a laptop screen.
"""
from __future__ import annotations

from model.comparison import Comparison
from model.comparison.guarantee import ALPHA_UNIT
from model.report import styles as st
from model.report.comparison_sheet import grey_word

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
COL = {name: i + 1 for i, name in enumerate(SUMMARY_COLUMNS)}
# by header, so a column added in between does not shift the others' widths
WIDTHS = {"Tier": 20, "Vendor": 13, "Speculative": 20, "Baseline": 16, "Claimed speedup": 9, "Claim context": 9,
           "Mix speedup": 9, "Mix low": 7, "Mix high": 7, "Monthly cost": 12,
           "Speedup vs baseline, low end": 10, "Speedup vs baseline, high end": 10, "Premium over baseline": 10, "Speedup vs baseline": 10,
           "Cost per 1x speedup": 11, "Alpha the claim needs (SpecLedger)": 12,
           "Claim holds": 8, "Speed verdict": 9, "Price break-even acceptance (SpecLedger)": 13, "Value verdict": 16,
           "Grey values": 18,  # the longest flag word, "price break-even stale"
           "SLA": 11, "Downgraded share": 11}
LENGTH = '"AL "0.00'  # a mean acceptance length, tokens per verify step (model/comparison/guarantee.py)


def context_label(ref: str) -> str:
    """A context length as the app writes it: 4K for 4096, the number otherwise."""
    return f'IF(MOD({ref},1024)=0,{ref}/1024&"K",{ref}&"")'


def served_formula(fast: str, d: str, std: str) -> str:
    """The as-served mix of a fast mix (model/comparison/terms.as_served): time per token adds up over the requests
    served fast and the share d downgraded to the standard tier's speed."""
    return f"IF({d}>0,1/((1-{d})/{fast}+{d}/{std}),{fast})"


def mix_formula(weights: str, s_range: str) -> str:
    return (f"=IF(SUM({weights})>0,SUM({weights})/SUMPRODUCT({weights}/{s_range}),"
            f"COUNT({s_range})/SUMPRODUCT(1/{s_range}))")


def guarantee_cell(cmp: Comparison, i: int, runs_like: bool = False) -> tuple[float | str, str]:
    """The acceptance to guarantee (or the one the mix runs like now) and its cell format: an alpha, or where a
    class is a profile or a length the mean acceptance length at the tier's K (model/comparison/guarantee.py)."""
    g = cmp.tier_parts[i].guarantee
    if g.unit == ALPHA_UNIT:
        return (float(g.runs_like) if runs_like else grey_word(g.kind, g.value)), st.ALPHA_PERCENT
    if runs_like:
        return float(g.runs_like), LENGTH
    word = grey_word(g.kind, g.value)  # never / n/a in words; 'always' pays from a length of 1, any acceptance
    return (word if isinstance(word, str) else max(word, 1.0)), LENGTH
