"""How one input cell is shown and how it is offered for editing/copying, per field.

Display text is for reading (78.0%, $20.00, 120M, 16K); edit text is what the
validator reads back without loss (78%, 20, 120000000, 16384), so a copy/paste
round trip through Excel changes nothing.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from model.common import formatting as fmt
from model.workbook.validation import FieldSpec

# fields whose display gets a special format beyond what their kind implies
_MONEY = {"price_out", "price_in"}
_TOKENS = {"tokens_out", "tokens_in"}
_CONTEXT = {"context", "claim_context"}
NUMERIC_KINDS = {"int", "float", "percent", "optional_float"}


def display_text(spec: FieldSpec, value: Any, currency: str = "USD") -> str:
    if value is None:
        return ""
    if spec.kind == "percent":
        return fmt.pct(value, 1)
    if spec.name in _MONEY:
        return fmt.money(value, currency, 2)
    if spec.name in _TOKENS:
        return fmt.tokens(value)
    if spec.name in _CONTEXT:
        return fmt.context(value)
    if spec.name == "claimed_speedup":
        return fmt.times(value, 2)
    if spec.kind == "float":
        return f"{value:.4g}"
    return str(value)


def percent_edit_text(value: float) -> str:
    """The shortest 'NN.N%' that reads back as exactly `value` (0.8723404255319149 keeps every digit).

    Ten digits read well; more are added only where the value needs them. A share no percent text
    reads back exactly (the /100 rounds) is given as the plain fraction, which always does.
    """
    for digits in range(10, 18):
        text = f"{value * 100:.{digits}g}"
        if float(text) / 100.0 == value:
            return text + "%"
    return repr(float(value))


def float_edit_text(value: float) -> str:
    """The shortest text (12 significant digits or more) that reads back as exactly `value`."""
    for digits in range(12, 18):
        text = f"{value:.{digits}g}"
        if float(text) == value:
            return text
    return repr(float(value))


def locale_decimal() -> str:
    """The decimal mark of the user's locale (Qt's QLocale): "," in much of Europe, else "."."""
    from PySide6.QtCore import QLocale

    return "," if QLocale().decimalPoint() == "," else "."


def edit_text(spec: FieldSpec, value: Any, decimal: str = ".") -> str:
    # what the editor and Ctrl+C offer: it must read back as the same value, under the decimal mark
    # `decimal`, or a copy and paste onto the same cell would change it (and make an undo step)
    if value is None:
        return ""
    if spec.kind == "percent":
        return with_mark(percent_edit_text(value), decimal)
    if spec.kind in ("float", "optional_float"):
        return with_mark(float_edit_text(value), decimal)
    return str(value)


def with_mark(text: str, decimal: str) -> str:
    """A number's text with `decimal` as its decimal mark, in a form that reads only one way."""
    if decimal == "." or "." not in text:
        return text
    text = text.replace(".", ",")
    whole, _, frac = text.partition(",")
    digits = whole.lstrip("-")
    tail = frac.rstrip("%")
    # "1,500" reads two ways and the validator refuses it; "1,5000" reads one way
    if digits.isdigit() and 1 <= len(digits) <= 3 and not digits.startswith("0") and len(tail) == 3 and tail.isdigit():
        text = f"{whole},{tail}0{frac[len(tail):]}"
    return text


def cleared_text(spec: FieldSpec, row_type: type) -> str:
    """What Delete puts in a cell: blank where blank is allowed, else the field's default."""
    if spec.kind in ("text", "optional_float"):
        return ""
    for f in dataclasses.fields(row_type):
        if f.name == spec.name and f.default is not dataclasses.MISSING:
            return edit_text(spec, f.default)
    return ""
