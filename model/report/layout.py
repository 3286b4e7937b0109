"""Where things sit in the report's Inputs sheet; shared by export and import so they cannot drift.

No openpyxl here: import reads the sheet by these labels, export writes them.
"""
from __future__ import annotations

from dataclasses import dataclass

from model.workbook.validation import CLASS_FIELDS, OVERRIDE_FIELDS, TIER_FIELDS, FieldSpec

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

    @property
    def tier_header(self) -> int:
        return SETTING_ROWS["k_max"] + 3

    def tier_row(self, i: int) -> int:
        return self.tier_header + 1 + i

    @property
    def class_header(self) -> int:
        # heading, header, rows (at least one, as a table needs one), two blank rows
        return self.tier_header + max(self.n_tiers, 1) + 4

    def class_row(self, j: int) -> int:
        return self.class_header + 1 + j

    @property
    def override_header(self) -> int:
        return self.class_header + max(self.n_classes, 1) + 4

    def override_row(self, m: int) -> int:
        return self.override_header + 1 + m


TABLES = (
    (TIERS_HEADING, TIER_FIELDS),
    (CLASSES_HEADING, CLASS_FIELDS),
    (OVERRIDES_HEADING, OVERRIDE_FIELDS),
)

# the Comparison sheet's columns, in order: the export writes them, the charts and context blocks look them up
COMPARISON_COLUMNS = [
    "Tier", "Task class", "K", "Acceptance alpha", "Alpha source", "c (draft / target)", "v (verify / step)",
    "c FLOPs", "Break-even alpha (SpecLedger)", "Margin over break-even", "Tokens per stretch E",
    "Trailer fill", "Speedup", "Optimal K (SpecLedger)", "Speedup at optimal K (SpecLedger)",
    "Cost factor (FLOPs / token)", "Speed verdict", "Price break-even alpha (SpecLedger)", "Value verdict",
    "Grey values", "Speedup, alpha -20 pts", "Speedup, alpha -10 pts", "Speedup, alpha +10 pts", "Alpha at export",
]
ALPHA_SHIFTS = (-0.2, -0.1, 0.1)  # the sensitivity block: every class's acceptance moved by these
