"""The one validator: every entry point (GUI cells, CLI, JSON and Excel import) goes through it.

A field spec turns what a user typed (text, or a number from a file) into the
stored value, or raises ValidationError with a message that names the row and
the field and says what would be accepted.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Any, Callable

from model import roofline
from model.workbook.rows import (ALPHA_SOURCES, COST_MODELS, CURRENCIES, SPECULATIVE_CHOICES, Override, Settings, TaskClass, Tier,
                       Workbook)


class ValidationError(ValueError):
    """A value was refused; the message is meant for the user as it stands."""


_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9}
_NUMBER = re.compile(r"^\s*([-+]?)([0-9.,_]*[0-9][0-9.,_]*)([eE][-+]?[0-9]+)?\s*([kKmMbBgG%x]?)\s*$")
DECIMAL_MARKS = (".", ",")


class NumberFormatError(ValueError):
    """Text that looks like a number but is refused for a reason worth saying (a decimal comma where
    the convention is a point, an ambiguous separator, a percent for a field that is not a share)."""


def _strip_currency(text: str) -> str:
    return re.sub(r"^\s*[$€£¥]\s*|\s*(USD|EUR|GBP)\s*$", "", text, flags=re.IGNORECASE)


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


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    kind: str  # text, int, float, percent, choice, optional_float
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
        what = {"int": "a whole number", "percent": "a share (0.78 or 78%)"}.get(self.kind, "a number")
        lo, hi = self.minimum, self.maximum
        if self.kind == "optional_float":
            what = "blank or a number"
        if lo is not None and hi is not None:
            return f"{what} from {_fmt(lo)} to {'below ' if self.below_maximum else ''}{_fmt(hi)}"
        if lo is not None:
            return f"{what} of at least {_fmt(lo)}"
        return what

    def parse(self, value: Any, decimal: str = ".") -> Any:
        """The stored value for `value`, or ValidationError naming what is expected.

        `decimal` is the decimal mark typed text follows: the window's locale, a file's convention.
        """
        if self.kind in _OWN_PARSERS:
            return _OWN_PARSERS[self.kind](value)
        if isinstance(value, (list, tuple, dict, set)):  # only a file can give these; str() would accept them
            raise ValidationError(f"must be {self.describe()} (got a {type(value).__name__})")
        if self.kind in ("text", "choice"):
            if isinstance(value, bool) or (value is not None and not isinstance(value, (str, int, float))):
                raise ValidationError(f"must be {self.describe()} (got {shown(value)})")
            text = "" if value is None else str(value).strip()
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
        if self.kind == "optional_float" and (value is None or (isinstance(value, str) and not value.strip())):
            return None
        try:
            number = parse_number(value, context=self.context, percent=self.kind == "percent", decimal=decimal)
        except NumberFormatError as exc:
            raise ValidationError(f"must be {self.describe()}; {shown(value)} {exc}") from None
        except ValueError:
            raise ValidationError(f"must be {self.describe()} (got {shown(value)})") from None
        if not math.isfinite(number):
            raise ValidationError(f"must be {self.describe()} (got {shown(value)})")
        if self.kind == "int":
            if abs(number - round(number)) > 1e-9:
                raise ValidationError(f"must be {self.describe()} (got {shown(value)})")
            number = int(round(number))
        too_high = self.maximum is not None and (number >= self.maximum if self.below_maximum else number > self.maximum)
        if (self.minimum is not None and number < self.minimum) or too_high:
            raise ValidationError(f"must be {self.describe()} (got {shown(value)})")
        return number


def _fmt(x: float) -> str:
    return f"{x:g}"


# draft tokens per stretch, wherever K is given (a tier's K, K max, `calc --k`, `sample --k`): one range
K_LIMITS = (1, 64)

TIER_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("name", "Tier", "text", required=True),
    FieldSpec("vendor", "Vendor", "text"),
    FieldSpec("speculative", "Speculative", "choice", choices=SPECULATIVE_CHOICES),
    FieldSpec("k", "K", "int", *K_LIMITS),
    FieldSpec("cost_model", "Cost model", "choice", choices=COST_MODELS),
    FieldSpec("c", "c (draft/target)", "float", 0.0, 10.0),
    FieldSpec("v", "v (verify/step)", "float", 0.01, 100.0),
    FieldSpec("gpu", "GPU", "choice", choices=lambda: tuple(roofline.GPUS)),
    FieldSpec("pair", "Draft -> target", "choice", choices=lambda: tuple(roofline.PAIRS)),
    FieldSpec("batch", "Batch", "int", 1, 4096),
    FieldSpec("claimed_speedup", "Claimed speedup", "optional_float", 0.01, 100.0),
    FieldSpec("claim_context", "Claim context", "int", 1, 10_000_000, context=True),
    FieldSpec("price_out", "Price out /1M", "float", 0.0, 1e6),
    FieldSpec("price_in", "Price in /1M", "float", 0.0, 1e6),
    FieldSpec("baseline", "Baseline", "text"),
    FieldSpec("notes", "Notes", "text", multiline=True),
)

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


_OWN_PARSERS: dict[str, Callable[[Any], Any]] = {"json_object": _json_object_text, "env_name": _env_var_name,
                                                 "url": _url_text}

# A tier's endpoint: optional, not columns of the tiers table (the probe dialog edits them)
ENDPOINT_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("endpoint_url", "Base URL", "url"),
    FieldSpec("endpoint_model", "Model", "text"),
    FieldSpec("api_key_env", "API key env var", "env_name"),
    FieldSpec("keyring_service", "Keyring service", "text"),
    FieldSpec("keyring_user", "Keyring user", "text"),
    FieldSpec("extra_body", "Extra request fields", "json_object"),
    FieldSpec("measured_speedup", "Measured speedup", "optional_float", 0.0, 1000.0),
    FieldSpec("measured_note", "Measured note", "text"),
)

CLASS_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("name", "Task class", "text", required=True),
    FieldSpec("tokens_out", "Output tokens/month", "float", 0.0, 1e15),
    FieldSpec("tokens_in", "Input tokens/month", "float", 0.0, 1e15),
    FieldSpec("context", "Context", "int", 1, 10_000_000, context=True),
    FieldSpec("alpha", "Acceptance alpha", "percent", 0.0, 1.0),
    FieldSpec("alpha_source", "Source", "choice", choices=ALPHA_SOURCES),
    FieldSpec("source_note", "Source note", "text", multiline=True),
)

OVERRIDE_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("tier", "Tier", "text", required=True),
    FieldSpec("task_class", "Task class", "text", required=True),
    FieldSpec("alpha", "Acceptance alpha", "percent", 0.0, 1.0),
    FieldSpec("alpha_source", "Source", "choice", choices=ALPHA_SOURCES),
    FieldSpec("source_note", "Source note", "text", multiline=True),
)

# the workbook-wide settings: one "row" of its own, checked like the others
SETTINGS_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("marginal_band", "Marginal band", "percent", 0.0, 1.0),
    FieldSpec("claim_tolerance", "Claim tolerance", "percent", 0.0, 1.0, below_maximum=True),
    FieldSpec("k_max", "K max", "int", *K_LIMITS),
    FieldSpec("currency", "Currency", "choice", choices=CURRENCIES),
)

# the workbook's own name: window title, suggested file name, the report's header
TITLE_FIELD = FieldSpec("title", "Title", "text")

SPECS: dict[type, dict[str, FieldSpec]] = {
    Tier: {f.name: f for f in TIER_FIELDS + ENDPOINT_FIELDS},
    TaskClass: {f.name: f for f in CLASS_FIELDS},
    Override: {f.name: f for f in OVERRIDE_FIELDS},
    Settings: {f.name: f for f in SETTINGS_FIELDS},
}
_ROW_WORD = {Tier: "Tier", TaskClass: "Task class", Override: "Override", Settings: "Settings"}

# What a row in a file must say because no default would be true: a missing price is not 0 and
# a missing acceptance is not 60%. The rest is optional: its default is what a blank cell means
# (no vendor, no claim, no baseline, no notes, acceptance source "assumed"). Fields that only
# matter under another field's value are required only then (c and v for a typed cost model).
REQUIRED_FIELDS: dict[type, tuple[str, ...]] = {
    Tier: ("name", "speculative", "price_out", "price_in"),
    TaskClass: ("name", "tokens_out", "tokens_in", "context", "alpha"),
    Override: ("tier", "task_class", "alpha"),
    Settings: (),
}


def required_fields(row_type: type, given: dict[str, Any]) -> tuple[str, ...]:
    """The fields a row of `row_type` must give, once `given` (its parsed values so far) is known."""
    out = list(REQUIRED_FIELDS[row_type])
    if row_type is Tier and given.get("speculative") != "no":
        out += ["k", "cost_model"]
        if given.get("cost_model") == "typed":
            out += ["c", "v"]
        elif given.get("cost_model") == "roofline":
            out += ["gpu", "pair", "batch"]
        if given.get("claimed_speedup") is not None:
            out.append("claim_context")
    return tuple(out)


_NUMBER_KINDS = ("int", "float", "percent", "optional_float")


def row_label(row: Any, index: int | None = None) -> str:
    word = _ROW_WORD[type(row)]
    if isinstance(row, Override):
        return f"{word} ({row.tier!r}, {row.task_class!r})"
    name = getattr(row, "name", "")
    if name:
        return f"{word} {name!r}"
    return f"{word} in row {index + 1}" if index is not None else word


def parse_field(row_type: type, field_name: str, value: Any, row_name: str = "", decimal: str = ".") -> Any:
    """Validate one cell; the error names the row and field, e.g. "Tier 'Fast', K: must be ..."."""
    spec = SPECS[row_type][field_name]
    try:
        return spec.parse(value, decimal)
    except ValidationError as exc:
        where = f"{_ROW_WORD[row_type]} {row_name!r}, " if row_name else ("Settings, " if row_type is Settings else "")
        raise ValidationError(f"{where}{spec.label}: {exc}") from None


def parse_settings(values: dict[str, Any], base: Settings | None = None) -> Settings:
    """`base` (default settings if None) with `values` (field name -> text or number) validated.

    Raises ValidationError for the first refused value, e.g. "Settings, K max: must be ...".
    """
    out = dataclasses.replace(base) if base is not None else Settings()
    for name, value in values.items():
        setattr(out, name, parse_field(Settings, name, value, ""))
    return out


def check_row(row: Any, index: int | None = None) -> list[str]:
    """Every field of one row through its spec; returns messages (empty when valid)."""
    problems = []
    for name, spec in SPECS[type(row)].items():
        value = getattr(row, name)
        try:
            # a stored number must be a number already: text such as "16" parses, but would break the arithmetic
            if spec.kind in _NUMBER_KINDS and value is not None and (
                    isinstance(value, bool) or not isinstance(value, int if spec.kind == "int" else (int, float))):
                raise ValidationError(f"must be {spec.describe()} (got {value!r})")
            spec.parse(value)
        except ValidationError as exc:
            problems.append(f"{row_label(row, index)}, {spec.label}: {exc}")
    return problems


def title_problems(title: Any) -> list[str]:
    """A workbook's title is text (a file may hold null or a number there), checked like a text cell."""
    if not isinstance(title, str):
        return [f"Title: must be a text (got {shown(title)})"]
    try:
        TITLE_FIELD.parse(title)
    except ValidationError as exc:
        return [f"Title: {exc}"]
    return []


# (table, row index, field name) -> where that cell is in a file, e.g. "sheet Inputs, cell N16"
Place = Callable[[str, int, str], str]


def workbook_problems(wb: Workbook, place: Place | None = None) -> list[str]:
    """All that is wrong with a workbook as a whole, each message naming row and field.

    With `place`, the problems that concern several rows (names, references) say
    where in the file they are, instead of counting rows inside a table.
    """
    def at(table: str, i: int, field_name: str) -> str:
        return f"{place(table, i, field_name)}: " if place else ""

    problems: list[str] = []
    for rows in (wb.tiers, wb.classes, wb.overrides):
        for i, row in enumerate(rows):
            problems.extend(check_row(row, i))
    for rows, word, table in ((wb.tiers, "Tier", "tiers"), (wb.classes, "Task class", "classes")):
        seen: dict[str, int] = {}
        for i, row in enumerate(rows):
            key = row.name.strip().lower()
            if key and key in seen:
                if place:
                    problems.append(f"{at(table, i, 'name')}{word} {row.name!r}: the name is already used in "
                                    f"{place(table, seen[key], 'name').rsplit(', ', 1)[-1]}")
                else:
                    problems.append(f"{word} {row.name!r} in row {i + 1}: the name is already used in row {seen[key] + 1}")
            seen.setdefault(key, i)
    tier_names = {t.name for t in wb.tiers}
    class_names = {c.name for c in wb.classes}
    for i, t in enumerate(wb.tiers):
        if t.baseline and t.baseline not in tier_names:
            problems.append(f"{at('tiers', i, 'baseline')}Tier {t.name!r}, Baseline: no tier is named {t.baseline!r}")
        elif t.baseline == t.name and t.name:
            problems.append(f"{at('tiers', i, 'baseline')}Tier {t.name!r}, Baseline: a tier cannot be its own baseline")
    seen_pairs: set[tuple[str, str]] = set()
    for i, o in enumerate(wb.overrides):
        if o.tier not in tier_names:
            problems.append(f"{at('overrides', i, 'tier')}{row_label(o)}, Tier: no tier is named {o.tier!r}")
        if o.task_class not in class_names:
            problems.append(f"{at('overrides', i, 'task_class')}{row_label(o)}, Task class: no task class is named {o.task_class!r}")
        if (o.tier, o.task_class) in seen_pairs:
            problems.append(f"{at('overrides', i, 'tier')}{row_label(o)}: given twice")
        seen_pairs.add((o.tier, o.task_class))
    problems.extend(check_row(wb.settings))
    problems.extend(title_problems(wb.title))
    return problems


class WorkbookError(ValueError):
    """A workbook (file) that cannot be used; the message lists every problem found."""

    def __init__(self, problems: list[str], source: str = "") -> None:
        self.problems = problems
        head = f"{source}: " if source else ""
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        super().__init__(head + shown)


def check_workbook(wb: Workbook, source: str = "") -> Workbook:
    problems = workbook_problems(wb)
    if problems:
        raise WorkbookError(problems, source)
    return wb
