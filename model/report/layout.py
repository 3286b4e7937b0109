"""Where things sit in the report's Inputs sheet; shared by export and import so they cannot drift.

No openpyxl here: import reads the sheet by these labels, export writes them.
"""
from __future__ import annotations

import functools

from dataclasses import dataclass

from model.workbook.validation import (ACCEPTANCE_FIELDS, CLASS_FIELDS, CLASS_NOT_GIVEN_FIELDS, MEASURED_TERMS_FIELDS,
                                       OVERRIDE_FIELDS,
                                       TERMS_FIELDS, TIER_FIELDS, WORKLOAD_FIELDS, FieldSpec)

SUMMARY, CHARTS, GRID, SENSITIVITY, COMPARISON, INPUTS, CURVES, NOTES = (
    "Summary", "Charts", "Grid", "Sensitivity", "Comparison", "Inputs", "Curves", "Notes")
BRIEF = "Brief"  # first: the page a manager reads (words only; no formula reads it)

# The settings block: a label in column A, its value in column B.
SETTINGS_TITLE_ROW = 4
SETTING_LABELS: dict[str, str] = {
    "title": "Workbook title",
    "currency": "Currency",
    "marginal_band": "Marginal band",
    "claim_tolerance": "Claim tolerance",
    "k_max": "K max (optimal K search)",
    "confidence": "Confidence of intervals",  # of the mix's interval and of every typed range without its own
}
SETTINGS_FIRST_ROW = SETTINGS_TITLE_ROW + 1
SETTING_ROWS: dict[str, int] = {key: SETTINGS_FIRST_ROW + i for i, key in enumerate(SETTING_LABELS)}

TIERS_HEADING = "Tiers"
CLASSES_HEADING = "Task classes"
OVERRIDES_HEADING = "Acceptance overrides (one task class on one tier's draft)"


def column_of(specs: tuple[FieldSpec, ...], name: str) -> int:
    """1-based column of a field in its Inputs table."""
    for i, spec in enumerate(specs):
        if spec.name == name:
            return i + 1
    raise KeyError(name)


def header_labels(specs: tuple[FieldSpec, ...]) -> list[str]:
    return [spec.label for spec in specs]


@dataclass(frozen=True)
class InputsLayout:
    """Rows of the three stacked tables for a workbook of the given size."""

    n_tiers: int
    n_classes: int
    n_overrides: int

    # the headers are asked for some 100,000 times in a 100 x 30 report: worked out once per layout
    @functools.cached_property
    def tier_header(self) -> int:
        return max(SETTING_ROWS.values()) + 3

    def tier_row(self, i: int) -> int:
        return self.tier_header + 1 + i

    @functools.cached_property
    def class_header(self) -> int:
        # heading, header, rows (at least one, as a table needs one), two blank rows
        return self.tier_header + max(self.n_tiers, 1) + 4

    def class_row(self, j: int) -> int:
        return self.class_header + 1 + j

    @functools.cached_property
    def override_header(self) -> int:
        return self.class_header + max(self.n_classes, 1) + 4

    def override_row(self, m: int) -> int:
        return self.override_header + 1 + m

    @functools.cached_property
    def profile_header(self) -> int:
        """The profiles and lengths table (model/report/profiles_table.py), under the overrides."""
        return self.override_header + max(self.n_overrides, 1) + 4


# the class and override tables carry the acceptance's interval right of their own columns: the range's ends
# (inputs the report's interval formulas read) and what a measurement made it from, so the round trip keeps them
# ... and after it the workload's bands and cache; the tiers table carries the vendor's terms (cached and
# long-context prices, the downgraded share, the SLA) and what a probe measured of them, right of its own columns
# (model/workbook/vendor_terms.py): inputs the Summary's cost and SLA formulas read. A report older than them has
# none, and its rows take the defaults
CLASS_COLUMNS = CLASS_FIELDS + ACCEPTANCE_FIELDS + WORKLOAD_FIELDS + CLASS_NOT_GIVEN_FIELDS
OVERRIDE_COLUMNS = OVERRIDE_FIELDS + ACCEPTANCE_FIELDS
TIER_COLUMNS = TIER_FIELDS + TERMS_FIELDS + MEASURED_TERMS_FIELDS
TABLES = (
    (TIERS_HEADING, TIER_COLUMNS),
    (CLASSES_HEADING, CLASS_COLUMNS),
    (OVERRIDES_HEADING, OVERRIDE_COLUMNS),
)
# an older report's tables end before the interval columns: these many leading columns find a table on import
REQUIRED_COLUMNS = {TIERS_HEADING: len(TIER_FIELDS), CLASSES_HEADING: len(CLASS_FIELDS),
                    OVERRIDES_HEADING: len(OVERRIDE_FIELDS)}

# the Comparison sheet's columns, in order: the export writes them, the charts and context blocks look them up
COMPARISON_COLUMNS = [
    "Tier", "Task class", "K", "Acceptance alpha", "Alpha source", "c (draft / target)", "v (verify / step)",
    "Break-even alpha (SpecLedger)", "Break-even length E*", "Margin over break-even", "Tokens per stretch E",
    "Trailer fill", "Speedup", "Speedup, low end", "Speedup, high end", "Optimal K (SpecLedger)",
    "Speedup at optimal K (SpecLedger)", "Cost factor (FLOPs / token)", "Speed verdict",
    "Price break-even acceptance (SpecLedger)", "Value verdict", "Grey values",
    # right of the printed columns: the draft's FLOPs (the cost factor's input), then the sensitivity speedups
    "c FLOPs", "Speedup, alpha -20 pts", "Speedup, alpha -10 pts", "Speedup, alpha +10 pts", "Alpha at export",
    # the interval carried through, live over its ends on Inputs (right of the printed columns)
    "Alpha low", "Alpha high", "Interval confidence", "E, low end", "E, high end", "Speedup vs baseline",
    "Speedup vs baseline, low end", "Speedup vs baseline, high end", "Log-speedup sd, low", "Log-speedup sd, high",
    # acceptance lengths (model/report/profiles_table.py): E reaches past the measured positions; the price's E*
    "E extrapolated", "Price break-even length E*",
    # what the value columns weigh, once per row (they read these cells rather than repeat the expressions: the
    # value verdict's formula ran to 1,800 characters, a third of a 100 x 30 report's XML)
    "Cost weight on tier", "Cost weight on baseline", "Baseline speedup",
]
ALPHA_SHIFTS = (-0.2, -0.1, 0.1)  # the sensitivity block: every class's acceptance moved by these

# the profiles and lengths table under the overrides (model/report/profiles_table.py writes it, the importer reads it)
PROFILES_HEADING = "Acceptance profiles and lengths (task classes and overrides that have one)"
PROFILE_HEADERS = ["Task class", "Tier (override)", "Mean acceptance length", "At K", "Positions measured",
                   "Decay past them (per position)", "Changed since export", "E low (at the K measured)",
                   "E high (at the K measured)"]
# the table's headers before the interval ends on E were added: an older report's table is read without them
PROFILE_HEADERS_V1 = PROFILE_HEADERS[:7]
