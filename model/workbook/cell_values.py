"""How one typed value reads, before any field's rules: numbers in a stated decimal convention (never a
guess: `2,50` is not 250), percents and suffixes, and text free of control characters and lone surrogates.

Part of the one validator (`validation` re-exports these); kept apart because every reader of numbers
and text (cells, JSON, CSV, xlsx, the CLI) needs exactly this and nothing of the field specs.
"""
from __future__ import annotations

import re
from typing import Any


_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9}
_NUMBER = re.compile(r"^\s*([-+]?)([0-9.,_]*[0-9][0-9.,_]*)([eE][-+]?[0-9]+)?\s*([kKmMbBgG%x]?)\s*$")
DECIMAL_MARKS = (".", ",")


class NumberFormatError(ValueError):
    """Text that looks like a number but is refused for a reason worth saying (a decimal comma where
    the convention is a point, an ambiguous separator, a percent for a field that is not a share)."""


def _strip_currency(text: str) -> str:
    # "$2.50", "2.50 USD", and "12,50 €" as much of Europe writes it (a price list reads it so too)
    return re.sub(r"^\s*[$€£¥]\s*|\s*(USD|EUR|GBP|[$€£¥])\s*$", "", text, flags=re.IGNORECASE)


# digits grouped by a space or an apostrophe: "1 234,5" (French, with a no-break or narrow no-break
# space), "1'234.5" (Swiss). Refused with the number to write instead, wherever it is typed or read
_GROUP_MARKS = {" ": "a space", "\u00a0": "a no-break space (U+00A0)", "\u202f": "a narrow no-break space (U+202F)",
                "\u2009": "a thin space (U+2009)", "'": "an apostrophe", "\u2019": "an apostrophe (U+2019)"}
_SPACE_GROUPED = re.compile(r"\s*([-+]?)([1-9][0-9]{0,2}(?:[ \u00a0\u202f\u2009'\u2019][0-9]{3})+)([.,][0-9]+)?"
                            r"\s*([kKmMbBgG%x]?)\s*")


def _refuse_space_groups(text: str, decimal: str) -> None:
    m = _SPACE_GROUPED.fullmatch(text)
    if m is None:
        return
    sign, whole, frac, suffix = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    mark = next(ch for ch in whole if not ch.isdigit())
    digits = "".join(ch for ch in whole if ch.isdigit())
    write = f"{sign}{digits}{decimal + frac[1:] if frac else ''}{suffix}"
    raise NumberFormatError(f"groups its digits with {_GROUP_MARKS[mark]}, which numbers here do not; write {write}")


def _grouped(text: str, mark: str) -> bool:
    """Digits in thousands groups (1,500 / 1.234.567), the only place a group mark may stand."""
    return re.fullmatch(rf"[1-9][0-9]{{0,2}}(?:{re.escape(mark)}[0-9]{{3}})+", text) is not None


def _mantissa(text: str, decimal: str) -> str:
    """The digits of a number as Python reads them ("1234.5"), under the decimal mark `decimal`.

    The other mark may only group thousands. What reads two ways is refused, never guessed:
    with a decimal comma, "1,500" (1.5, or 1500 pasted from an English list) and "1.500". A lone
    mark that cannot group thousands is read as a decimal mark only where that is unambiguous and
    harmless: a decimal point ("0.8") under a comma convention is read (the app itself shows and
    saves points); a decimal comma ("2,50") under a point convention is refused with the fix.
    """
    group = "," if decimal == "." else "."
    digits = text.replace("_", "")
    n_dec, n_group = digits.count(decimal), digits.count(group)
    if n_dec > 1:
        raise NumberFormatError(f"{decimal!r} appears more than once, and it is the decimal mark here")
    if n_dec == 1:
        whole, frac = digits.split(decimal)
        if n_group:
            if not _grouped(whole, group):
                raise NumberFormatError(f"{group!r} can only group thousands before the decimal mark {decimal!r}")
            whole = whole.replace(group, "")
        if not whole.isdigit() and whole or not frac.isdigit() and frac:
            raise NumberFormatError("not a number")
        if decimal == "," and not n_group and re.fullmatch(r"[1-9][0-9]{0,2}", whole) and len(frac) == 3:
            raise NumberFormatError(f"is ambiguous: {whole}.{frac} with a decimal comma, {whole}{frac} with a "
                                    f"thousands comma; write {whole},{frac}0 or {whole}{frac}")
        return f"{whole or '0'}.{frac or '0'}"
    if not n_group:
        return digits
    if _grouped(digits, group):
        if decimal == "," and n_group == 1:
            whole, frac = digits.split(".")
            raise NumberFormatError(f"is ambiguous: {whole}.{frac} with a decimal point, {whole}{frac} with a "
                                    f"thousands point; write {whole},{frac}0 or {whole}{frac}")
        return digits.replace(group, "")
    if n_group == 1:
        whole, frac = digits.split(group)
        if group == "." and (whole.isdigit() or not whole) and frac.isdigit():
            return f"{whole or '0'}.{frac}"  # "0.8" with a decimal comma convention
        if group == "," and (whole.isdigit() or not whole) and frac.isdigit():
            raise NumberFormatError(f"has a decimal comma, but numbers here use a decimal point; write "
                                    f"{whole or '0'}.{frac} (a comma only groups thousands: 1,500)")
    raise NumberFormatError(f"{group!r} can only group thousands (1{group}500{group}000)")


def parse_number(value: Any, *, percent: bool = False, context: bool = False, decimal: str = ".") -> float:
    """A number from a float, int or text such as '78%', '1.5M', '$2.50', '32K', '2.4x'.

    `decimal` is the decimal mark text follows ("." or ","; see _mantissa). A percent sign is taken
    only with `percent` (shares). For context lengths a K suffix means 1024 tokens, as in '128K context'.
    """
    if decimal not in DECIMAL_MARKS:
        raise ValueError(f"the decimal mark must be '.' or ',' (got {decimal!r})")
    if isinstance(value, bool):
        raise ValueError("a yes/no value is not a number")
    if isinstance(value, (int, float)):
        try:
            return float(value)
        except OverflowError:  # an int from a JSON file too large for a float
            raise ValueError("too large") from None
    text = _strip_currency(str(value))
    if len(text) <= 100:
        _refuse_space_groups(text, decimal)
    m = _NUMBER.match(text) if len(text) <= 100 else None
    if not m:
        raise ValueError("not a number")
    sign, body, exponent, suffix = m.group(1), m.group(2), m.group(3) or "", m.group(4).lower()
    if suffix == "%" and not percent:
        raise NumberFormatError("is a percentage, which only a share takes (an acceptance, a band); "
                                "write the number itself")
    number = float(sign + _mantissa(body, decimal) + exponent)
    if suffix == "%":
        return number / 100.0
    if suffix == "x":
        return number
    if suffix:
        if context and suffix == "k":
            return number * 1024.0
        return number * _SUFFIX[suffix]
    return number


# C0 and C1 control characters, lone surrogates and the two non-characters XML refuses; a field that
# holds several lines (notes) still takes tab and line breaks
_BAD_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_BAD_CHARS_MULTILINE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_CHAR_NAMES = {0: "NUL", 9: "tab", 10: "line break", 11: "vertical tab (Word's line break)", 13: "carriage return",
               27: "ESC", 127: "DEL"}


def bad_character(text: str, multiline: bool = False) -> str | None:
    """What is wrong with the first character a file or report cannot hold, or None."""
    m = (_BAD_CHARS_MULTILINE if multiline else _BAD_CHARS).search(text)
    if m is None:
        return None
    code = ord(m.group())
    if 0xD800 <= code <= 0xDFFF:
        what = f"a lone surrogate (U+{code:04X}, half of a character)"
    elif code in (0xFFFE, 0xFFFF):
        what = f"the non-character U+{code:04X}"
    else:
        name = _CHAR_NAMES.get(code)
        what = f"a control character (U+{code:04X}{', ' + name if name else ''})"
    return f"contains {what} at position {m.start() + 1}"


def shown(value: Any, limit: int = 60) -> str:
    """A value as error messages echo it: repr (one line, escapes visible), cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"
