"""How a price list's cells name their currency: a symbol ($, €, C$ ...) or an ISO code in the text, or the
currency of an xlsx cell's number format."""
from __future__ import annotations

import re
from typing import Any

from model.workbook.rows import CURRENCIES

# how prices mark their currency; "$" alone is the US dollar (other dollars write C$, A$ or the code)
_SYMBOLS = {"US$": "USD", "C$": "CAD", "CA$": "CAD", "A$": "AUD", "AU$": "AUD", "NZ$": "NZD", "HK$": "HKD",
            "S$": "SGD", "NT$": "TWD", "R$": "BRL", "$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR",
            "₩": "KRW", "₪": "ILS"}
_TOKEN = re.compile(
    "(" + "|".join(re.escape(s) for s in sorted(_SYMBOLS, key=len, reverse=True)) + r"|(?<![A-Za-z])(?:"
    + "|".join(CURRENCIES) + r")(?![A-Za-z]))", re.IGNORECASE)


def currency_in(text: str) -> tuple[str | None, str]:
    """(ISO code, text without it) for a price or header that names a currency; (None, text) otherwise."""
    m = _TOKEN.search(text)
    if m is None:
        return None, text
    token = m.group(1)
    code = _SYMBOLS.get(token) or _SYMBOLS.get(token.upper()) or token.upper()
    return code, (text[:m.start()] + text[m.end():]).strip()


def format_currency(value: Any, number_format: str) -> Any:
    """An xlsx number formatted as money keeps its currency: 9.5 shown as "$9.50" is read as "USD 9.5"."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # "[$€-407]", "\"$\"#,##0.00", "[$USD] #,##0": the currency is quoted or bracketed
        for m in re.finditer(r"\[\$([^\]-]*)|\"([^\"]+)\"", number_format):
            code, _ = currency_in(m.group(1) or m.group(2) or "")
            if code is not None:
                return f"{code} {value!r}"
    return value


def money_currency(raw: Any, column: str | None, row: str | None) -> tuple[str | None, Any]:
    """(currency, the number without it) for one price cell; ("conflict", raw) when they disagree."""
    own, rest = currency_in(raw) if isinstance(raw, str) else (None, raw)
    named = {c for c in (own, column, row) if c is not None}
    if len(named) > 1:
        return "conflict", raw
    return (named.pop() if named else None), rest
