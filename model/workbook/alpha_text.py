"""An alpha cell as typed in the window, with an optional range in brackets: '80% (74–86%)'
(docs/design/intervals.md#typed-ranges); or, instead of one alpha, a per-position profile ('77% 58% 53%') or a
mean acceptance length at its K ('AL 2.6 @K4'), as the workbook file holds them.

Each number goes through its FieldSpec (model/workbook/validation.py, the one validator): the alpha, and the ends
as alpha_low and alpha_high; the range must hold the alpha, as alpha_range_problems checks a stored row.
"""
from __future__ import annotations

import re
from typing import Any

from model.workbook.acceptance_fields import summary_alpha
from model.workbook.validation import ValidationError, parse_field, shown
from model.workbook.validation import ROW_WORD  # the words parse_field's messages name a row with

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
    where = f"{ROW_WORD[row_type]} {row_name!r}, Alpha range" if row_name else "Alpha range"
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


# a mean acceptance length at its K as typed in an alpha cell: "AL 2.6 @K4", "al 2,6 @ K=4"
_LENGTH = re.compile(r"^\s*AL\s*(?P<length>[^@\s]+)\s*@\s*K\s*=?\s*(?P<k>\S+)\s*$", re.IGNORECASE)


def parse_shape_text(row_type: type, value: Any, row_name: str = "", decimal: str = ".") -> dict[str, Any] | None:
    """A per-position profile ('77% 58% 53%', '0.77 0.58 0.53') or a mean acceptance length at its K ('AL 2.6 @K4')
    typed in an alpha cell, as the workbook file holds them (docs/reference/workbook-file.md): the row's new shape
    fields with the alpha that summarises them; None where the text is neither (one alpha, maybe with a range).

    Each number goes through the field's spec (model/workbook/validation.py), and the length's own check (at most
    K + 1 at its K) as acceptance_problems makes it of a stored row; ValidationError names the row and field."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    where = f"{ROW_WORD[row_type]} {row_name!r}" if row_name else ROW_WORD[row_type]
    m = _LENGTH.match(text)
    if m is not None:
        length = parse_field(row_type, "acceptance_length", m.group("length"), row_name, decimal)
        k = parse_field(row_type, "acceptance_length_k", m.group("k"), row_name, decimal)
        if length > k + 1.0 + 1e-12:
            raise ValidationError(f"{where}, Mean acceptance length: at K = {k} it is at most K + 1 = {k + 1}, "
                                  f"bonus token included (got {length:g})")
        return _shape(profile=(), length=length, k=k)
    if "(" in text:
        return None  # an alpha with a range
    separators = r"[\s;]+" if decimal == "," else r"[\s;,]+"  # a decimal comma is a number's, not a separator
    items = [t for t in re.split(separators, text) if t]
    if len(items) < 2 or not all(any(ch.isdigit() for ch in t) for t in items):
        return None
    if decimal == ",":
        items = [t.replace(",", ".") for t in items]
    profile = parse_field(row_type, "profile", " ".join(items), row_name, decimal)
    return _shape(profile=profile, length=None, k=None)


def _shape(profile: tuple[float, ...], length: float | None, k: int | None) -> dict[str, Any]:
    return {"alpha": summary_alpha(profile, length, k), "profile": tuple(profile), "acceptance_length": length,
            "acceptance_length_k": k, "acceptance_length_low": None, "acceptance_length_high": None}


def type_shape(row: Any, shape: dict[str, Any]) -> None:
    """A typed profile or length onto a class or an override: the analyst's, so any measured interval, range and
    provenance go (a measurement is not what was typed)."""
    for name, value in shape.items():
        setattr(row, name, value)
    row.alpha_low = row.alpha_high = row.alpha_confidence = None
    row.alpha_requests = row.alpha_steps = 0
    row.alpha_method, row.alpha_prompts = "", None
    row.alpha_source, row.source_note = "assumed", "typed"
