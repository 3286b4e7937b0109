"""An alpha cell as typed in the window, with an optional range in brackets: '80% (74–86%)'
(docs/design/intervals.md#typed-ranges).

Each number goes through its FieldSpec (model/workbook/validation.py, the one validator): the alpha, and the ends
as alpha_low and alpha_high; the range must hold the alpha, as alpha_range_problems checks a stored row.
"""
from __future__ import annotations

import re
from typing import Any

from model.workbook.validation import ValidationError, parse_field, shown
from model.workbook.validation import _ROW_WORD  # the words parse_field's messages name a row with

# an alpha as typed in a cell with an optional range in brackets: "80% (74–86%)", "0.8 (0.74 to 0.86)", "80% ()"
_WITH_RANGE = re.compile(r"^(?P<alpha>[^()]*?)\s*\((?P<range>[^()]*)\)\s*$")
_RANGE_ENDS = re.compile(r"\s*(?:–|—|\bto\b|-)\s*")
NO_RANGE: tuple[()] = ()


def parse_alpha_text(row_type: type, value: Any, row_name: str = "",
                     decimal: str = ".") -> tuple[float, tuple[float, float] | tuple[()] | None]:
    """An alpha cell as typed: '80%' -> (0.8, None), no range said; '80% (74–86%)' -> (0.8, (0.74, 0.86)), a typed
    range (a vendor's stated range, the analyst's doubt); '80% ()' -> (0.8, NO_RANGE), the range removed.

    The alpha goes through its FieldSpec, each end through alpha_low's and alpha_high's; the range must hold the
    alpha. ValidationError names the row and the field ("Task class 'code', Alpha range: ...")."""
    text = value if isinstance(value, str) else None
    m = _WITH_RANGE.match(text) if text is not None else None
    if m is None:
        return parse_field(row_type, "alpha", value, row_name, decimal), None
    alpha = parse_field(row_type, "alpha", m.group("alpha"), row_name, decimal)
    inner = m.group("range").strip()
    if not inner or inner.lower() in ("none", "no range"):
        return alpha, NO_RANGE
    where = f"{_ROW_WORD[row_type]} {row_name!r}, Alpha range" if row_name else "Alpha range"
    ends = _RANGE_ENDS.split(inner)
    if len(ends) != 2 or not all(ends):
        raise ValidationError(f"{where}: must be two shares, low to high, such as 74–86% or 0.74-0.86 "
                              f"(got {shown(inner)})")
    if ends[1].endswith("%") and not ends[0].endswith("%"):
        if _share_written(ends[0], decimal):
            # "0.74–86%": a share and a percent; read as one unit it would be 0.74%, which nobody meant
            raise ValidationError(f"{where}: the ends are written in different units ({shown(ends[0])} is a share, "
                                  f"{shown(ends[1])} a percent); write both as percents (74–86%) or both as shares "
                                  f"(0.74–0.86)")
        ends[0] += "%"  # "74–86%": the sign is written once
    low = parse_field(row_type, "alpha_low", ends[0], row_name, decimal)
    high = parse_field(row_type, "alpha_high", ends[1], row_name, decimal)
    if not low <= alpha <= high:
        raise ValidationError(f"{where}: must hold the acceptance itself ({low * 100:g}% to {high * 100:g}% does "
                              f"not hold {alpha * 100:g}%)")
    return alpha, (low, high)


def _share_written(text: str, decimal: str) -> bool:
    """Whether an end typed without a % sign reads as a share: a number from 0 to 1 with a decimal separator."""
    plain = text.strip()
    if decimal not in plain and "." not in plain:
        return False
    try:
        return 0.0 <= float(plain.replace(decimal, ".")) <= 1.0
    except ValueError:
        return False
