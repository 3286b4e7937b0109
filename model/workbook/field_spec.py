"""How one field is read: a FieldSpec turns what a user typed (text, or a number from a file) into the stored
value, or raises ValidationError saying what would be accepted; and the parsers of the fields that are not a plain
number, share or text (a JSON object, an environment variable's name, a URL, speedups by load, a profile).

The tables of fields and the checks of whole rows and workbooks are model/workbook/validation.py (the one
validator every entry point uses, which re-exports these names).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable

from model.workbook.cell_values import NumberFormatError, bad_character, parse_number, shown

# draft tokens per stretch, wherever K is given (a tier's K, K max, `calc --k`, `sample --k`): one range
K_LIMITS = (1, 64)


class ValidationError(ValueError):
    """A value was refused; the message is meant for the user as it stands."""


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    kind: str  # text, int, float, percent, choice, optional_float, optional_percent, optional_int, and the kinds in OWN_PARSERS
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | Callable[[], tuple[str, ...]] = ()
    required: bool = False
    context: bool = False  # number is a context length (K = 1024)
    below_maximum: bool = False  # the maximum itself is refused (a tolerance of 100% would accept anything)
    multiline: bool = False  # text that may hold tabs and line breaks (notes)

    def choice_list(self) -> tuple[str, ...]:
        return self.choices() if callable(self.choices) else self.choices

    def describe(self) -> str:
        if self.kind in ("choice",):
            return "one of " + ", ".join(self.choice_list())
        if self.kind == "text":
            return "a non-empty text" if self.required else "any text"
        if self.kind == "profile":
            return ("blank or the acceptance at each draft position, position 1 first, as shares "
                    f"(0.77, 0.58, 0.53 or 77% 58% 53%; 1 to {K_LIMITS[1]} positions)")
        what = {"int": "a whole number", "percent": "a share (0.78 or 78%)"}.get(self.kind, "a number")
        lo, hi = self.minimum, self.maximum
        if self.kind == "optional_float":
            what = "blank or a number"
        elif self.kind == "optional_percent":
            what = "blank or a share (0.78 or 78%)"
        elif self.kind == "optional_int":
            what = "blank or a whole number"
        if lo is not None and hi is not None:
            return f"{what} from {_fmt(lo)} to {'below ' if self.below_maximum else ''}{_fmt(hi)}"
        if lo is not None:
            return f"{what} of at least {_fmt(lo)}"
        return what

    def parse(self, value: Any, decimal: str = ".") -> Any:
        """The stored value for `value`, or ValidationError naming what is expected.

        `decimal` is the decimal mark typed text follows: the window's locale, a file's convention.
        """
        if self.kind in OWN_PARSERS:
            return OWN_PARSERS[self.kind](value)
        if isinstance(value, (list, tuple, dict, set)):  # only a file can give these; str() would accept them
            raise ValidationError(f"must be {self.describe()} (got a {type(value).__name__})")
        if self.kind in ("text", "choice"):
            if isinstance(value, bool) or (value is not None and not isinstance(value, (str, int, float))):
                raise ValidationError(f"must be {self.describe()} (got {shown(value)})")
            text = "" if value is None else str(value)
            # a multi-line note keeps its leading tabs and line breaks (an indented list): only a blank one is
            # emptied; a one-line field is trimmed
            text = (text if text.strip() else "") if self.multiline else text.strip()
            if len(text) > 200:
                raise ValidationError(f"is longer than 200 characters ({len(text):,})")
            bad = bad_character(text, self.multiline)
            if bad:
                raise ValidationError(f"{bad}; type or paste it without (got {shown(text)})")
            if self.kind == "choice":
                for choice in self.choice_list():
                    if text.lower() == choice.lower():
                        return choice
                raise ValidationError(f"must be {self.describe()} (got {shown(text)})")
            if self.required and not text:
                raise ValidationError("must not be empty")
            return text
        if self.kind in ("optional_float", "optional_percent", "optional_int") and (value is None or (isinstance(value, str) and not value.strip())):
            return None
        try:
            number = parse_number(value, context=self.context, percent=self.kind in ("percent", "optional_percent"),
                                  decimal=decimal)
        except NumberFormatError as exc:
            raise ValidationError(f"must be {self.describe()}; {shown(value)} {exc}") from None
        except ValueError:
            raise ValidationError(f"must be {self.describe()} (got {shown(value)})") from None
        if not math.isfinite(number):
            raise ValidationError(f"must be {self.describe()} (got {shown(value)})")
        if self.kind in ("int", "optional_int"):
            if abs(number - round(number)) > 1e-9:
                raise ValidationError(f"must be {self.describe()} (got {shown(value)})")
            number = int(round(number))
        too_high = self.maximum is not None and (number >= self.maximum if self.below_maximum else number > self.maximum)
        if (self.minimum is not None and number < self.minimum) or too_high:
            raise ValidationError(f"must be {self.describe()} (got {shown(value)})")
        return number


def _fmt(x: float) -> str:
    return f"{x:g}"


def _json_object_text(value: Any) -> str:
    """Extra request fields: a JSON object (from a file) or its text; stored as compact JSON text."""
    import json

    if value is None or (isinstance(value, str) and not value.strip()):
        return ""
    if isinstance(value, str):
        if len(value) > 2000:
            raise ValidationError(f"is longer than 2000 characters ({len(value):,})")
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"must be a JSON object (not valid JSON: {exc.msg}, column {exc.colno})") from None
        except RecursionError:
            raise ValidationError("must be a JSON object (nested too deeply)") from None
    if not isinstance(value, dict):
        raise ValidationError('must be a JSON object such as {"service_tier": "priority"}')
    try:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError, RecursionError):  # NaN, or a structure nested past what JSON can write
        raise ValidationError("must be a JSON object of plain values") from None
    bad = bad_character(text)
    if bad:  # a control character or lone surrogate inside a JSON string, which json.dumps keeps as it is
        raise ValidationError(bad)
    if len(text) > 2000:
        raise ValidationError("is longer than 2000 characters")
    return text


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


def _env_var_name(value: Any) -> str:
    """The *name* of an environment variable; something shaped like a key itself is refused."""
    if value is not None and not isinstance(value, str):
        raise ValidationError(f"must be the name of an environment variable (got {shown(value)})")
    text = "" if value is None else value.strip()
    if text and not _ENV_NAME.fullmatch(text):
        raise ValidationError("must be the name of an environment variable (letters, digits, _), not the key itself")
    return text


def _url_text(value: Any) -> str:
    if value is not None and not isinstance(value, str):
        raise ValidationError(f"must be an http(s):// URL (got {shown(value)})")
    text = "" if value is None else value.strip()
    bad = bad_character(text)
    if bad:
        raise ValidationError(bad)
    if text and not re.match(r"^https?://[^\s/]+", text, flags=re.IGNORECASE):
        raise ValidationError("must be an http(s):// URL such as https://api.vendor.example/v1")
    if len(text) > 500:
        raise ValidationError("is longer than 500 characters")
    return text


def _load_speedups_text(value: Any) -> str:
    from model.workbook.load_speedups import (LoadSpeedupError, format_speedups, parse_speedup_intervals,
                                              parse_speedups)

    try:
        return format_speedups(parse_speedups(value), parse_speedup_intervals(value))
    except LoadSpeedupError as exc:
        raise ValidationError(str(exc)) from None


def _profile_value(value: Any) -> tuple[float, ...]:
    """A per-position profile: a list from a file, or text as typed ("0.77, 0.58, 0.53", "77% 58% 53%")."""
    if value is None or (isinstance(value, (str, list, tuple)) and not (value.strip() if isinstance(value, str) else value)):
        return ()
    if isinstance(value, str):
        if len(value) > 2000:
            raise ValidationError(f"is longer than 2000 characters ({len(value):,})")
        bad = bad_character(value)
        if bad:
            raise ValidationError(bad)
        # commas separate positions here, so a decimal comma is written as a percentage (77% 58%)
        inner = value.strip().strip("[]()").strip()  # "[0.9, 0.8]" or "(0.9, 0.8)" as a list is printed
        if not inner:
            return ()
        items: list[Any] = [part for part in re.split(r"[,;\s]+", inner) if part]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise ValidationError(f"must be {FieldSpec('profile', '', 'profile').describe()} (got {shown(value)})")
    if not 1 <= len(items) <= K_LIMITS[1]:
        raise ValidationError(f"must have 1 to {K_LIMITS[1]} positions (got {len(items)})")
    rates = []
    for i, item in enumerate(items, start=1):
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            raise ValidationError(f"position {i} must be a share from 0 to 1 (got {shown(item)})")
        try:
            rate = parse_number(item, percent=True)
        except ValueError:
            raise ValidationError(f"position {i} must be a share from 0 to 1 (got {shown(item)})") from None
        if not (math.isfinite(rate) and 0.0 <= rate <= 1.0):
            raise ValidationError(f"position {i} must be a share from 0 to 1 (got {shown(item)})")
        rates.append(float(rate))
    return tuple(rates)


# the APIs a tier's endpoint may speak (model.probe.apis has a dialect for each); "" is the first
ENDPOINT_APIS = ("openai-chat", "openai-responses", "anthropic-messages")


def _endpoint_api(value: Any) -> str:
    if value is not None and not isinstance(value, str):
        raise ValidationError(f"must be one of {', '.join(ENDPOINT_APIS)} (got {shown(value)})")
    text = (value or "").strip().lower()
    if text and text not in ENDPOINT_APIS:
        raise ValidationError(f"must be one of {', '.join(ENDPOINT_APIS)} (got {shown(value)})")
    return "" if text == ENDPOINT_APIS[0] else text


def _headers_value(value: Any) -> str:
    """Request headers: text of 'Name: value' lines, or an object from a file; stored as the lines."""
    from model.workbook.endpoint_headers import HeaderError, headers_text, parse_headers

    if value is None or (isinstance(value, str) and not value.strip()):
        return ""
    if not isinstance(value, (str, dict)):
        raise ValidationError(f"must be 'Name: value' lines (got {shown(value)})")
    try:
        return headers_text(parse_headers(value, "header"))
    except HeaderError as exc:
        raise ValidationError(str(exc)) from None


OWN_PARSERS: dict[str, Callable[[Any], Any]] = {"json_object": _json_object_text, "env_name": _env_var_name,
                                                "url": _url_text, "by_concurrency": _load_speedups_text,
                                                "profile": _profile_value, "endpoint_api": _endpoint_api,
                                                "headers": _headers_value}
