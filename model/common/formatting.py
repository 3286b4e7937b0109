"""Numbers as analysts read them: percentages, multipliers, currency, token counts."""
from __future__ import annotations

import math
import re
from typing import Any, TypeVar

T = TypeVar("T")

CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and not math.isfinite(x))


OUT_OF_REACH = "out of reach"  # the one word for a claim (or a price) no acceptance can reach


def count(n: int, one: str, many: str | None = None) -> str:
    """'1 class', '2 classes': a number with its noun in the right number."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def pct(x: float | None, digits: int = 1) -> str:
    return "–" if _missing(x) else f"{x * 100:.{digits}f}%"


def signed_pct(x: float | None, digits: int = 1) -> str:
    return "–" if _missing(x) else f"{x * 100:+.{digits}f}%"


def times(x: float | None, digits: int = 2) -> str:
    return "–" if _missing(x) else f"{x:.{digits}f}x"


def times_interval(x: float | None, low: float | None, high: float | None, digits: int = 2) -> str:
    """1.44x (1.31–1.58); the bare value where there is no interval."""
    if _missing(low) or _missing(high):
        return times(x, digits)
    return f"{times(x, digits)} ({low:.{digits}f}–{high:.{digits}f})"


def pct_interval(x: float | None, low: float | None, high: float | None, digits: int = 0) -> str:
    """68% (62–73%); the bare value where there is no interval."""
    if _missing(low) or _missing(high):
        return pct(x, digits)
    return f"{pct(x, digits)} ({low * 100:.{digits}f}–{high * 100:.{digits}f}%)"


def money(x: float | None, currency: str = "USD", digits: int = 0) -> str:
    if _missing(x):
        return "–"
    symbol = CURRENCY_SYMBOLS.get(currency)
    body = f"{abs(x):,.{digits}f}"
    sign = "-" if x < 0 else ""
    return f"{sign}{symbol}{body}" if symbol else f"{sign}{body} {currency}"


def cost(x: float | None, currency: str = "") -> str:
    """A probe's cost, small amounts included: $0.0034, $1.50, 0.0034 CHF (a currency without a symbol after the
    number), 0.0034 without a currency. Four decimals at most, two at least."""
    if _missing(x):
        return "–"
    body = f"{abs(x):,.4f}"
    body = body.rstrip("0") if "." in body else body
    body = body + "0" * max(0, 2 - len(body.partition(".")[2]))
    sign = "-" if x < 0 else ""
    symbol = CURRENCY_SYMBOLS.get(currency)
    return f"{sign}{symbol}{body}" if symbol else f"{sign}{body} {currency}".rstrip()


def tokens(x: float | None) -> str:
    """1.5M, 200k, 950: how token volumes are quoted."""
    if _missing(x):
        return "–"
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= size:
            return f"{x / size:.4g}{suffix}"
    return f"{x:.4g}"


def context(x: float | None) -> str:
    """Context lengths in K of 1024 tokens, as models advertise them."""
    if _missing(x):
        return "–"
    if x >= 1024 and x % 1024 == 0:
        return f"{int(x) // 1024}K"
    return f"{int(x)}"


def number(x: float | None, digits: int = 3) -> str:
    return "–" if _missing(x) else f"{x:.{digits}g}"


def fixed(x: float | None, digits: int = 2) -> str:
    return "–" if _missing(x) else f"{x:.{digits}f}"


# OWASP "CSV injection": a spreadsheet that opens a field starting with one of these may run it as a
# formula (=HYPERLINK(...), +cmd|...), also after a leading tab or carriage return
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][-+]?\d+)?%?")


def spreadsheet_safe_text(value: T) -> T | str:
    """`value` as a field of a CSV or clipboard text that a spreadsheet will open: a text starting with
    =, +, -, @, tab or CR gets a leading apostrophe (shown as text, never run). Numbers stay numbers:
    non-text values, and texts that are a plain number ("-0.25", "+3", "-12%"), pass unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def printable(text: object, limit: int = 200) -> str:
    """A name read from a file, safe to print on a terminal or a status line: control characters (ESC,
    newline, ...) and other unprintables as escapes, so no colour code runs and no fake line appears;
    cut at `limit` characters."""
    shown = str(text)
    if len(shown) > limit:
        shown = shown[: limit // 2] + "…" + shown[-(limit // 2 - 1):]
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in shown)


def finite_or_none(x: Any) -> float | None:
    """A number to show, or None for what is not one (None, NaN, infinite, not a number at all)."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def finite_pair(low: Any, high: Any) -> list[float] | None:
    """An interval's two ends to show, or None unless both are numbers (JSON's [low, high])."""
    lo, hi = finite_or_none(low), finite_or_none(high)
    return None if lo is None or hi is None else [lo, hi]
