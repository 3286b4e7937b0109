"""The report's Inputs sheet: settings and the three input tables, laid out for editing in Excel.

Every formula elsewhere in the report points at these cells, so an analyst who
changes an acceptance, a price, a baseline or a name here sees the other sheets
follow. Data validation holds each cell to the ranges and choices of the one
validator (model/workbook/validation.py), so Excel refuses an alpha of 1.5 or a
K of 0 as SpecLedger would.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from model.report import styles as st
from model.report.profiles_table import ProfileRow, write_profiles
from model.report.layout import (CLASS_COLUMNS, INPUTS, OVERRIDE_COLUMNS, SETTING_LABELS, SETTING_ROWS,
                                 SETTINGS_TITLE_ROW, TABLES, TIER_COLUMNS, InputsLayout, column_of, header_labels)
from model.workbook.validation import CLASS_FIELDS, CONFIDENCE_FIELD, OVERRIDE_FIELDS, SETTINGS_FIELDS, FieldSpec
from model.workbook.row_edits import PLACEHOLDER_CLASS
from model.workbook.rows import Workbook

# how each numeric input reads; text and choice fields are written as text
_FORMATS = {
    "k": "0", "c": st.NUMBER, "v": st.NUMBER, "batch": "0", "claimed_speedup": st.TIMES1,
    "claim_context": st.INTEGER, "tokens_out": st.INTEGER, "tokens_in": st.INTEGER,
    "context": st.INTEGER, "alpha": st.PERCENT, "alpha_low": st.PERCENT, "alpha_high": st.PERCENT,
    "alpha_confidence": st.PERCENT, "alpha_requests": st.INTEGER, "alpha_steps": st.INTEGER,
    "alpha_prompts": st.INTEGER, "band_threshold": st.INTEGER, "downgraded_share": st.PERCENT,
    "downgraded_low": st.PERCENT, "downgraded_high": st.PERCENT, "downgraded_requests": st.INTEGER,
    "sla_tokens_per_s": st.NUMBER, "sla_share": st.PERCENT, "sla_measured_share": st.PERCENT,
    "sla_share_low": st.PERCENT, "sla_share_high": st.PERCENT, "sla_requests": st.INTEGER,
    "long_share": st.PERCENT, "cached_share": st.PERCENT,
}
_PRICES = ("price_out", "price_in", "price_cached_in", "price_in_long", "price_out_long", "price_cached_in_long")
# The three tables share columns. A text longer than its column (a note, a source note, an interval's method,
# a long name) wraps inside it and its row grows: text running into the next cell is cut there, on screen
# and on paper.
_TOP = {"valign": "top"}  # a row grown for a wrapped note reads along its first line
_WRAP = {"text_wrap": True, "valign": "top"}
# the tiers table prints two pages across at a readable scale (styles.MIN_PRINT_SCALE); columns 5 and 7 are the
# overrides' and the classes' source notes, wide enough that a sentence takes a few lines, not ten
_WIDTHS = {1: 22, 2: 15, 3: 12, 4: 9, 5: 20, 6: 14, 7: 40, 8: 12, 9: 18, 10: 11, 11: 10, 12: 10,
           13: 11, 14: 11, 15: 20, 16: 30,
           # right of the tiers' own columns: the vendor's terms and what a probe measured of them, two header lines
           **{col: 17 for col in range(17, len(TIER_COLUMNS) + 1)}}


@dataclass(frozen=True)
class InputRefs:
    """Absolute references into Inputs that the report's formulas use."""

    layout: InputsLayout
    override_rows: dict[tuple[str, str], int]
    profiles: dict[tuple[str, str], ProfileRow]  # (tier or "", class) -> its row of the profiles table

    def tier(self, i: int, field: str) -> str:
        return _ref(_TIER_COLUMN[field], self.layout.tier_row(i))

    def cls(self, j: int, field: str) -> str:
        return _ref(_CLASS_COLUMN[field], self.layout.class_row(j))

    def override_alpha(self, tier: str, cls: str) -> str | None:
        return self.override(tier, cls, "alpha")

    def override(self, tier: str, cls: str, field: str) -> str | None:
        """A field of the override of `cls` on `tier`'s draft, None where there is none."""
        row = self.override_rows.get((tier, cls))
        return None if row is None else _ref(column_of(OVERRIDE_COLUMNS, field), row)

    def shape(self, tier: str, cls: str) -> ProfileRow | None:
        """The profile or length the (tier, class) row's E comes from; None for an alpha. An override replaces
        the class's acceptance, kind and all (model/acceptance/profiles.py)."""
        if (tier, cls) in self.override_rows:
            return self.profiles.get((tier, cls))
        return self.profiles.get(("", cls))

    def acceptance(self, j: int, tier: str, cls: str, field: str) -> str:
        """A field of the acceptance the (tier, class) row uses: the override's where there is one (its own
        interval or none, never the class's), else the class's."""
        return self.override(tier, cls, field) or self.cls(j, field)

    def class_column(self, field: str) -> str:
        """The whole column of one class field, e.g. every class's monthly output tokens."""
        col = st.col_name(column_of(CLASS_FIELDS, field))
        n = max(self.layout.n_classes, 1)
        return f"{INPUTS}!${col}${self.layout.class_row(0)}:${col}${self.layout.class_row(n - 1)}"

    def tier_column(self, field: str) -> str:
        """The whole column of one tier field, in tier order (the Summary lists tiers in the same order)."""
        col = st.col_name(column_of(TIER_COLUMNS, field))
        n = max(self.layout.n_tiers, 1)
        return f"{INPUTS}!${col}${self.layout.tier_row(0)}:${col}${self.layout.tier_row(n - 1)}"

    def setting(self, key: str) -> str:
        return _ref(2, SETTING_ROWS[key])


# a 100 x 30 report asks for some 20,000 references into Inputs, most of them many times over
_TIER_COLUMN = {spec.name: column_of(TIER_COLUMNS, spec.name) for spec in TIER_COLUMNS}
_CLASS_COLUMN = {spec.name: column_of(CLASS_COLUMNS, spec.name) for spec in CLASS_COLUMNS}


@functools.lru_cache(maxsize=65536)
def _ref(col: int, row: int) -> str:
    return f"{INPUTS}!${st.col_name(col)}${row}"


def write_inputs(sheet: st.SheetWriter, wb: Workbook, choices: dict[str, str]) -> InputRefs:
    """`choices`: field name -> a range (on the Notes sheet) listing its choices, for the drop-downs."""
    layout = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    sheet.text(1, 1, "Inputs", st.TITLE)
    sheet.text(2, 1, "Edit the shaded cells; the Summary, Comparison and Curves sheets follow (grey values say "
               "when they are stale).", st.NOTE)
    sheet.text(3, 1, "SpecLedger's File > Import from Excel reads this sheet back, also rows you add right under "
               "a table; import and export again to bring added rows into the report.", st.NOTE)
    sheet.text(SETTINGS_TITLE_ROW, 1, "Settings", st.HEADING)
    s = wb.settings
    values: dict[str, Any] = {"title": wb.title, "currency": s.currency, "marginal_band": s.marginal_band,
                              "claim_tolerance": s.claim_tolerance, "k_max": s.k_max, "confidence": s.confidence}
    formats = {"marginal_band": st.PERCENT, "claim_tolerance": st.PERCENT, "k_max": "0", "confidence": st.PERCENT}
    settings_specs = {spec.name: spec for spec in SETTINGS_FIELDS + (CONFIDENCE_FIELD,)}
    for key, label in SETTING_LABELS.items():
        row = SETTING_ROWS[key]
        sheet.text(row, 1, label, st.LABEL)
        if key in ("title", "currency"):
            sheet.text(row, 2, values[key], st.INPUT)
        else:
            sheet.number(row, 2, values[key], formats[key], st.INPUT)
        if key in settings_specs:
            _validate(sheet, settings_specs[key], row, row, 2, choices)

    price = st.money_format(s.currency, 2)
    number_formats = {**_FORMATS, **{name: price for name in _PRICES}}
    names = {"baseline": _names_range(layout.tier_row(0), max(layout.n_tiers, 1)),
             "tier": _names_range(layout.tier_row(0), max(layout.n_tiers, 1)),
             "task_class": _names_range(layout.class_row(0), max(layout.n_classes, 1))}
    headers = (layout.tier_header, layout.class_header, layout.override_header)
    all_rows = (wb.tiers, wb.classes, wb.overrides)
    for (heading, specs), header, rows, table in zip(TABLES, headers, all_rows, ("Tiers", "TaskClasses", "Overrides")):
        _table(sheet, header, heading, specs, rows, table, number_formats)
        for col, spec in enumerate(specs, start=1):
            _validate(sheet, spec, header + 1, header + max(len(rows), 1), col, {**choices, **names})

    if wb.tiers:
        prices = [st.col_name(column_of(TIER_COLUMNS, f)) for f in _PRICES]
        first, last = layout.tier_row(0), layout.tier_row(len(wb.tiers) - 1)
        sheet.money_follows_currency(" ".join(f"{c}{first}:{c}{last}" for c in prices),
                                     f"${st.col_name(2)}${SETTING_ROWS['currency']}", s.currency, 2)
    _mark_not_given(sheet, layout, wb)
    sheet.widths(_WIDTHS)
    sheet.ws.freeze_panes(0, 1)  # three stacked tables share no header row; the name column stays in view
    override_rows = {(o.tier, o.task_class): layout.override_row(m) for m, o in enumerate(wb.overrides)}
    profiles = write_profiles(sheet, wb, layout, override_rows)
    return InputRefs(layout, override_rows, profiles)


# a cell of a class's field nobody gave reads "not given" (its placeholder is the value beneath, as in the app)
# while the row's Not given cell lists it and the placeholder is still there: a number typed over it shows, and the
# import reads it as given (row_edits.typed_over_placeholders); the placeholder itself typed counts once the list is
# cleared
_NOT_GIVEN_LOOK = {"italic": True, "font_color": st.GREY_TEXT}
_NOT_GIVEN_FORMAT = '"not given";"not given";"not given";"not given"'  # numbers of any sign, zero and text


def _mark_not_given(sheet: st.SheetWriter, layout: InputsLayout, wb: Workbook) -> None:
    """The classes' not-given cells (TaskClass.defaulted: docs/design/verdicts.md#a-class-nobody-described)."""
    listed = st.col_name(_CLASS_COLUMN["defaulted"])
    fields = {"alpha": ("alpha", "alpha_source"), "context": ("context",), "tokens_out": ("tokens_out",),
              "tokens_in": ("tokens_in",)}
    look = sheet.formats.get(_NOT_GIVEN_FORMAT, _NOT_GIVEN_LOOK)
    for j, cls in enumerate(wb.classes):
        row = layout.class_row(j)
        for field in cls.defaulted_fields():
            still = f"{st.col_name(_CLASS_COLUMN[field])}{row}={getattr(PLACEHOLDER_CLASS, field)!r}"
            for name in fields.get(field, ()):
                cell = f"{st.col_name(_CLASS_COLUMN[name])}{row}"
                sheet.ws.conditional_format(cell, {"type": "formula", "format": look, "criteria":
                                                   f'=AND(ISNUMBER(SEARCH("{field}",${listed}${row})),{still})'})


def _names_range(first_row: int, n: int) -> str:
    return f"=${st.col_name(1)}${first_row}:${st.col_name(1)}${first_row + n - 1}"


def _table(sheet: st.SheetWriter, header_row: int, heading: str, specs: tuple[FieldSpec, ...], rows: list[Any],
           name: str, number_formats: dict[str, str]) -> None:
    sheet.text(header_row - 1, 1, heading, st.HEADING)
    labels = header_labels(specs)
    sheet.header_row(header_row, labels, text_columns={sp.label for sp in specs if sp.kind in ("text", "choice")})
    for i, row in enumerate(rows):
        r = header_row + 1 + i
        lines = 1
        for col, spec in enumerate(specs, start=1):
            value = getattr(row, spec.name)
            if spec.kind in ("text", "choice"):
                n = st.wrapped_lines(value, _WIDTHS.get(col, st.DEFAULT_WIDTH) - 2) if value else 1  # - the indent
                # a multiline field always wraps: an analyst's edit in Excel may lengthen it
                sheet.text(r, col, value, st.INPUT, st.INDENT, _WRAP if spec.multiline or n > 1 else _TOP)
                lines = max(lines, n)
            else:
                sheet.number(r, col, value, number_formats.get(spec.name), st.INPUT, _TOP)
        if lines > 1:  # neither Excel nor LibreOffice grows a row for wrapped text on opening
            sheet.ws.set_row(r - 1, 15 * lines)
    sheet.table(name, header_row, header_row + len(rows), labels, filters=False)
    sheet.ws.set_row(header_row - 1, 30)


_NUMBER_KINDS = ("int", "float", "percent", "optional_float", "optional_percent", "optional_int")


def _validate(sheet: st.SheetWriter, spec: FieldSpec, first: int, last: int, col: int, lists: dict[str, str]) -> None:
    """Excel data validation for one column of one table, from the validator's own field spec."""
    message = f"{spec.label} must be {spec.describe()}."[:255]
    options: dict[str, Any] = {"error_title": spec.label[:32], "error_message": message, "ignore_blank": True}
    if spec.kind in _NUMBER_KINDS and spec.minimum is not None:
        options.update(validate="integer" if spec.kind in ("int", "optional_int") else "decimal", criteria="between",
                       minimum=spec.minimum, maximum=spec.maximum)
        if spec.below_maximum:
            options["maximum"] = spec.maximum - 1e-9
        # a required number left blank imports as an error; say so at the cell
        options["ignore_blank"] = spec.kind.startswith("optional")
    elif spec.name in lists:
        options.update(validate="list", source=lists[spec.name])
        if spec.kind == "text":  # a baseline or a name typed in full is fine too; the drop-down only helps
            options.update(error_type="warning", ignore_blank=True)
    else:
        return
    sheet.ws.data_validation(first - 1, col - 1, last - 1, col - 1, options)


def refused_test(spec: FieldSpec, ref: str, lists: dict[str, str]) -> str | None:
    """An Excel test, TRUE where the cell holds what the validator refuses: data validation stops a value
    typed, not one pasted or filled, so the report says so itself. None for a field that takes any text.

    Nested IFs, not one OR: Excel evaluates every argument of OR, and INT of a text is an error.
    """
    if spec.kind in _NUMBER_KINDS and spec.minimum is not None:
        high = f"{ref}>={spec.maximum!r}" if spec.below_maximum else f"{ref}>{spec.maximum!r}"
        tests = [f"{ref}<{spec.minimum!r}", high] + ([f"{ref}<>INT({ref})"] if spec.kind in ("int", "optional_int") else [])
        checked = f"IF(ISNUMBER({ref}),OR({','.join(tests)}),TRUE)"
        return f'IF({ref}="",FALSE,{checked})' if spec.kind.startswith("optional") else checked
    if spec.kind == "choice" and spec.name in lists:
        return f"ISNA(MATCH({ref},{lists[spec.name].lstrip('=')},0))"
    if spec.kind == "text" and spec.required:
        return f'TRIM({ref}&"")=""'
    return None


def choice_fields() -> dict[str, tuple[str, ...]]:
    """Every choice field's list (the drop-downs read these from the Notes sheet: some pass Excel's 255 characters)."""
    out: dict[str, tuple[str, ...]] = {}
    for specs in (TIER_COLUMNS, CLASS_FIELDS, OVERRIDE_FIELDS, SETTINGS_FIELDS):
        for spec in specs:
            if spec.kind == "choice":
                out[spec.name] = spec.choice_list()
    return out

