"""The Inputs sheet's table of acceptance profiles and lengths, and the E formulas over it
(docs/design/arithmetic.md#profiles-and-mean-acceptance-lengths).

One row per task class, and per override, whose acceptance is a per-position profile or a mean acceptance
length (model/acceptance/profiles.py). Its columns: the conditional rates p_1..p_W (W the largest K of any
tier, or the longest profile), then their running products r_k = p_1 ... p_k, so that E at a tier's K is
1 + r_1 + ... + r_K: a SUMPRODUCT over the row, live in the rates and in K.

- A profile's measured rates are inputs. The positions past them follow the core's rule (geometric decay,
  arithmetic.extend_profile): p_(m+j) = p_m d^j, with d = exp(min(0, slope)) of a least-squares line through
  ln p_i over the measured positions with p_i > 0 (d = 1 with fewer than two), a live formula too. Those
  cells are shaded as extrapolated, and an E that reaches them is marked with a * on the Comparison.
- A length is an input at its own K, where E is the length itself. At another K the core carries it by the
  i.i.d. alpha with the same E (arithmetic.length_at_k), which needs a solver: SpecLedger's alpha, grey, in
  the rate columns; the row says "changed" when the length or its K is edited, and the rows it feeds say stale.
- The interval on E (acceptance_length_low/_high, at the K measured: the profile's positions or the length's K)
  is two inputs. The Comparison carries it to a tier's K as the core does (AcceptanceGrid.tokens_interval): the
  accepted drafts E - 1 scaled by (E_end - 1) / (E_measured - 1), capped at 1 and K + 1 (``tokens_end``).

The names are formulas over the class and override tables, so a rename on Inputs takes its row along; the
importer reads the rows back by those names (model/report/importer.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from model.mechanics import arithmetic as ar
from model.report import styles as st
from model.report.layout import INPUTS, PROFILE_HEADERS, PROFILES_HEADING, TABLES, InputsLayout
from model.workbook.rows import Workbook
from model.workbook.validation import K_LIMITS

HEADING, HEADERS = PROFILES_HEADING, PROFILE_HEADERS
CHANGED = "changed"
_FIRST_RATE = len(HEADERS) + 1
_SHARED_COLUMNS = max(len(specs) for _, specs in TABLES)  # the widest table above (inputs_sheet._WIDTHS sets them)
EXTRAPOLATED = {"bg_color": "#EDEDED", "font_color": "#7F7F7F", "italic": True}


@dataclass(frozen=True)
class ProfileRow:
    """Where one row's cells are, and what the Comparison's E formula needs of it."""

    row: int
    kind: str  # "profile" or "length"
    positions: int  # measured positions (a profile) or the length's K
    width: int  # rate columns in the table

    def _cell(self, col: int) -> str:
        return f"{INPUTS}!${st.col_name(col)}${self.row}"

    def _products(self) -> str:
        first, last = st.col_name(_FIRST_RATE + self.width), st.col_name(_FIRST_RATE + 2 * self.width - 1)
        return f"{INPUTS}!${first}${self.row}:${last}${self.row}"

    def rate(self, k: int) -> str:
        """The cell of p_k (measured, extrapolated, or a length's grey alpha)."""
        return self._cell(_FIRST_RATE + k - 1)

    @property
    def length(self) -> str:
        return self._cell(3)

    @property
    def length_k(self) -> str:
        return self._cell(4)

    @property
    def changed(self) -> str:
        return self._cell(7)

    @property
    def low(self) -> str:
        return self._cell(8)

    @property
    def high(self) -> str:
        return self._cell(9)

    def measured_tokens(self) -> str:
        """E at the K measured: the length itself, or 1 + the running products over the measured positions."""
        return self.length if self.kind == "length" else self.tokens(str(self.positions))

    def tokens_end(self, end: str, e: str, k: str) -> str:
        """One end of the interval on E carried to the K in cell ``k`` from E there (cell ``e``); "" without an
        interval (or a measured E of 1, which nothing scales)."""
        em = self.measured_tokens()
        return (f'IF(OR({self.low}="",{self.high}="",{em}<=1),"",'
                f'MIN({k}+1,MAX(1,1+({e}-1)*({end}-1)/({em}-1))))')

    def tokens(self, k: str) -> str:
        """E at the K in cell `k`: one plus the running products up to K (a length at its own K is itself)."""
        products = self._products()
        first = st.col_name(_FIRST_RATE + self.width)
        summed = f"1+SUMPRODUCT({products}*((COLUMN({products})-COLUMN({INPUTS}!${first}${self.row})+1)<={k}))"
        return f"IF({k}={self.length_k},{self.length},{summed})" if self.kind == "length" else summed

    def extrapolated(self, k: str) -> str:
        """TRUE where E at K reaches past what was measured."""
        return f"{k}<>{self.length_k}" if self.kind == "length" else f"{k}>{self.positions}"


def shape_rows(wb: Workbook) -> list[tuple[str, str, Any]]:
    """(tier or "", class, row) for every class and override with a profile or a length, in Inputs' order."""
    out = [("", c.name, c) for c in wb.classes if c.profile or c.acceptance_length is not None]
    return out + [(o.tier, o.task_class, o) for o in wb.overrides if o.profile or o.acceptance_length is not None]


def table_width(wb: Workbook) -> int:
    rows = [r for _, _, r in shape_rows(wb)]
    return max([t.k for t in wb.tiers] + [len(r.profile) for r in rows]
               + [int(r.acceptance_length_k or 1) for r in rows] + [1])


def _decay(measured: str, first: str) -> str:
    """The geometric rule's decay per position over a row of measured rates (arithmetic.extend_profile)."""
    ok = f"({measured}>0)"
    log = f"LN({measured}+({measured}<=0))"  # ln p where p > 0, 0 where not
    pos = f"(COLUMN({measured})-COLUMN({first})+1)"
    n = f"SUMPRODUCT(--{ok})"
    x_mean, y_mean = f"SUMPRODUCT({pos}*{ok})/{n}", f"SUMPRODUCT({log})/{n}"
    slope = (f"SUMPRODUCT({ok}*({pos}-{x_mean})*({log}-{y_mean}))"
             f"/SUMPRODUCT({ok}*({pos}-{x_mean})^2)")
    return f"=IF({n}>=2,EXP(MIN(0,{slope})),1)"


def write_profiles(sheet: st.SheetWriter, wb: Workbook, layout: InputsLayout,
                   override_rows: dict[tuple[str, str], int]) -> dict[tuple[str, str], ProfileRow]:
    """The table under the overrides; returns each row's place by (tier or "", class)."""
    rows = shape_rows(wb)
    width = table_width(wb)
    header = layout.profile_header
    sheet.text(header - 1, 1, HEADING, st.HEADING)
    if not rows:  # no header row either: its dozens of helper columns printed a page of headers over nothing
        sheet.text(header, 1, "None: every acceptance here is one alpha (the Task classes and Overrides tables). "
                   "Give a class a profile or a length in SpecLedger and export again for this table.", st.NOTE)
        return {}
    tail = _write_header(sheet, header, width)
    _validate(sheet, header, header + len(rows), width)
    class_row = {c.name: layout.class_row(j) for j, c in enumerate(wb.classes)}
    put_rate, put_grey = sheet.writer(st.PERCENT, st.INPUT), sheet.computed_writer(st.PERCENT)
    put_ext = sheet.writer(st.PERCENT, EXTRAPOLATED)
    out: dict[tuple[str, str], ProfileRow] = {}
    for n, (tier, cls, r) in enumerate(rows):
        row = header + 1 + n
        if tier:
            o_row = override_rows[(tier, cls)]
            sheet.formula(row, 1, f"={INPUTS}!$B${o_row}&\"\"", cls)
            sheet.formula(row, 2, f"={INPUTS}!$A${o_row}&\"\"", tier)
        else:
            sheet.formula(row, 1, f"={INPUTS}!$A${class_row[cls]}&\"\"", cls)
            sheet.text(row, 2, "")
        for col, end in ((8, r.acceptance_length_low), (9, r.acceptance_length_high)):
            if end is None:
                sheet.text(row, col, "", st.INPUT)
            else:
                sheet.number(row, col, float(end), "0.000", st.INPUT)
        if r.profile:
            rates = _write_profile(sheet, row, r, width, tail, put_ext)
            out[(tier, cls)] = ProfileRow(row, "profile", len(r.profile), width)
        else:
            rates = _write_length(sheet, row, r, width, tail, put_grey)
            out[(tier, cls)] = ProfileRow(row, "length", int(r.acceptance_length_k), width)
        _write_products(sheet, row, rates, width)
    return out


def _rate(k: int, row: int) -> str:
    """The cell of the row's rate at position k."""
    return f"${st.col_name(_FIRST_RATE + k - 1)}${row}"


def _write_header(sheet: st.SheetWriter, header: int, width: int) -> int:
    """The table's header row; returns the first column after the running products (what is kept at export)."""
    labels = HEADERS + [f"p{k}" for k in range(1, width + 1)] + [f"r{k} = p1..p{k}" for k in range(1, width + 1)]
    tail = _FIRST_RATE + 2 * width
    labels += ["Length at export", "K at export", "Rates at export (checksum)"]
    sheet.header_row(header, labels, text_columns=set(HEADERS[:2]))
    sheet.ws.set_row(header - 1, 60)
    # right of the three tables above, these columns are the table's own: wide enough that no header word breaks
    # (the checksum's header, 8 wide, printed as "(checksu / m)"); left of it the tables' widths hold
    sheet.widths({col: 12 for col in range(tail, tail + 3) if col > _SHARED_COLUMNS})
    return tail


def _validate(sheet: st.SheetWriter, header: int, last: int, width: int) -> None:
    """Excel refuses a rate outside 0..100% or a length below 1 as the validator would (typed, not pasted)."""
    for first_col, last_col, options in (
            (_FIRST_RATE, _FIRST_RATE + width - 1, {"validate": "decimal", "criteria": "between", "minimum": 0,
                                                    "maximum": 1, "error_message": "A rate is a share from 0% to 100%."}),
            (3, 3, {"validate": "decimal", "criteria": ">=", "value": 1,
                    "error_message": "A mean acceptance length counts the bonus token: at least 1."}),
            (8, 9, {"validate": "decimal", "criteria": ">=", "value": 1,
                    "error_message": "An end of the interval on E counts the bonus token: at least 1."}),
            (4, 4, {"validate": "integer", "criteria": "between", "minimum": K_LIMITS[0], "maximum": K_LIMITS[1],
                    "error_message": "K is a whole number of draft tokens."})):
        sheet.ws.data_validation(header, first_col - 1, last - 1, last_col - 1, {**options, "ignore_blank": True})


def _write_profile(sheet: st.SheetWriter, row: int, r: Any, width: int, tail: int, put_ext: Any) -> list[float]:
    """A profile's row: its measured rates (inputs), the decay past them and the rates it extends to (formulas),
    its checksum at export; returns the rates to the table's width."""
    m = len(r.profile)
    sheet.text(row, 3, "")
    sheet.text(row, 4, "")
    sheet.number(row, 5, m, "0")
    measured = f"{_rate(1, row)}:{_rate(m, row)}"
    ext, _ = ar.extend_profile(list(r.profile), max(width, m), "geometric")
    sheet.formula(row, 6, _decay(measured, _rate(1, row)), _decay_value(r.profile), "0.0000")
    for k in range(1, width + 1):
        if k <= m:
            sheet.number(row, _FIRST_RATE + k - 1, float(r.profile[k - 1]), st.PERCENT, st.INPUT)
        else:
            put_ext(row, _FIRST_RATE + k - 1, f"={_rate(k - 1, row)}*$F${row}", float(ext[k - 1]))
    checksum = sum(k * p for k, p in enumerate(r.profile, start=1))
    sheet.number(row, tail + 2, round(checksum, 9), "0.0000")  # printed 28.826719819
    sheet.formula(row, 7, f'=IF(ROUND(SUMPRODUCT({measured}*(COLUMN({measured})-COLUMN({_rate(1, row)})+1)),9)'
                  f'<>${st.col_name(tail + 2)}${row},"{CHANGED}","")', "")
    return [float(x) for x in ext[:width]]


def _write_length(sheet: st.SheetWriter, row: int, r: Any, width: int, tail: int, put_grey: Any) -> list[float]:
    """A length's row: the length and its K (inputs), the i.i.d. alpha with the same E as every rate (grey), the
    length and K at export; returns the rates to the table's width."""
    length, k_l = float(r.acceptance_length), int(r.acceptance_length_k)
    sheet.number(row, 3, length, "0.000", st.INPUT)
    sheet.number(row, 4, k_l, "0", st.INPUT)
    sheet.text(row, 5, "")
    alpha = float(ar.mean_acceptance_length_to_alpha(length, k_l).alpha)
    alpha = 1.0 if math.isnan(alpha) else alpha
    sheet.text(row, 6, "i.i.d. alpha:", st.NOTE, st.RIGHT)  # the grey rates: SpecLedger's solve
    for k in range(1, width + 1):
        put_grey(row, _FIRST_RATE + k - 1, alpha)
    sheet.number(row, tail, length, "0.000")
    sheet.number(row, tail + 1, k_l, "0")
    sheet.formula(row, 7, f'=IF(OR($C${row}<>${st.col_name(tail)}${row},$D${row}<>${st.col_name(tail + 1)}'
                  f'${row}),"{CHANGED}","")', "")
    return [alpha] * width


def _write_products(sheet: st.SheetWriter, row: int, rates: list[float], width: int) -> None:
    """The running products r_k = p1..pk, live: E is their sum plus one."""
    product = 1.0
    for k in range(1, width + 1):
        product *= rates[k - 1]
        prev = f"${st.col_name(_FIRST_RATE + width + k - 2)}${row}*" if k > 1 else ""
        sheet.formula(row, _FIRST_RATE + width + k - 1, f"={prev}{_rate(k, row)}", product, st.PERCENT)


def _decay_value(profile: tuple[float, ...]) -> float:
    """The decay cell's saved value: the slope of ln p over the positions with p > 0 (numpy's fit; the E cells
    are held to the core's extend_profile, which makes the same fit)."""
    import numpy as np

    p = np.asarray(profile, dtype=np.float64)
    pos = np.arange(1, len(p) + 1, dtype=np.float64)[p > 0]
    if len(pos) < 2:
        return 1.0
    return float(math.exp(min(0.0, np.polyfit(pos, np.log(p[p > 0]), 1)[0])))
