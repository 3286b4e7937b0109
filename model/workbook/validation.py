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
from model.workbook.cell_values import (NumberFormatError, parse_number, bad_character, shown)  # noqa: F401  (re-exported: the one validator)
from model.workbook.rows import (ALPHA_SOURCES, COST_MODELS, CURRENCIES, SPECULATIVE_CHOICES, Override, Settings, TaskClass, Tier,
                       Workbook)


class ValidationError(ValueError):
    """A value was refused; the message is meant for the user as it stands."""


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    kind: str  # text, int, float, percent, choice, optional_float, optional_percent, optional_int, and the kinds in _OWN_PARSERS
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


# the largest workbook read or kept: past these a comparison takes minutes and gigabytes (300,000
# classes x 8 tiers took 2.9 GB in `compare --json`, 60,000 tiers x 6 classes over 120 s).
# tests/bench/bench_big_workbooks.py measures time and peak memory up to them
MAX_TIERS = 5_000
MAX_CLASSES = 20_000
MAX_PAIRS = 250_000  # tiers x task classes (and overrides); as many rows as a report's Inputs sheet reads


def size_problems(n_tiers: int, n_classes: int, n_overrides: int = 0) -> list[str]:
    """What is too big about a workbook of these counts (empty when within the limits)."""
    problems = []
    if n_tiers > MAX_TIERS:
        problems.append(f"{n_tiers:,} tiers, over the {MAX_TIERS:,} a workbook may hold")
    if n_classes > MAX_CLASSES:
        problems.append(f"{n_classes:,} task classes, over the {MAX_CLASSES:,} a workbook may hold")
    if n_tiers * n_classes > MAX_PAIRS:
        problems.append(f"{n_tiers:,} tiers x {n_classes:,} task classes = {n_tiers * n_classes:,} tier-class pairs, "
                        f"over the {MAX_PAIRS:,} a workbook may hold; split it into several workbooks")
    if n_overrides > MAX_PAIRS:
        problems.append(f"{n_overrides:,} overrides, over the {MAX_PAIRS:,} a workbook may hold")
    return problems


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


def _load_speedups_text(value: Any) -> str:
    from model.workbook.load_speedups import LoadSpeedupError, format_speedups, parse_speedups

    try:
        return format_speedups(parse_speedups(value))
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
        raise ValidationError(f"must be {_PROFILE.describe()} (got {shown(value)})")
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


_OWN_PARSERS: dict[str, Callable[[Any], Any]] = {"json_object": _json_object_text, "env_name": _env_var_name,
                                                 "url": _url_text, "by_concurrency": _load_speedups_text,
                                                 "profile": _profile_value}

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

# The load a tier runs at, and what a probe measured at each load: optional, edited in the probe dock
LOAD_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("concurrency", "Concurrency (parallel streams)", "int", 1, 4096),
    FieldSpec("measured_by_concurrency", "Measured speedup by concurrency", "by_concurrency"),
    FieldSpec("claim_concurrency", "Claim concurrency (streams)", "int", 1, 4096),
    FieldSpec("defaulted", "Made up by an import (enter these)", "text"),
)

# A tree draft (schema 2): optional, blank for a chain
TREE_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("tree_size", "Tree size (tokens verified per step)", "optional_int", 2, 4096),
)

# Acceptance beyond one alpha (schema 2), on a task class and on an override: optional, and checked
# together by acceptance_problems (a length needs its K; a profile or a length, not both)
_PROFILE = FieldSpec("profile", "Acceptance profile", "profile")
PROFILE_FIELDS: tuple[FieldSpec, ...] = (
    _PROFILE,
    FieldSpec("acceptance_length", "Mean acceptance length", "optional_float", 1.0, K_LIMITS[1] + 1.0),
    FieldSpec("acceptance_length_k", "K of the acceptance length", "optional_int", *K_LIMITS),
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

# The interval kept with an acceptance (task class and override): not columns of the tables; a typed range
# (alpha_low, alpha_high) or what a measurement found. alpha_range_problems below checks them together.
ACCEPTANCE_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("alpha_low", "Alpha low", "optional_percent", 0.0, 1.0),
    FieldSpec("alpha_high", "Alpha high", "optional_percent", 0.0, 1.0),
    FieldSpec("alpha_confidence", "Interval confidence", "optional_percent", 0.5, 1.0, below_maximum=True),
    FieldSpec("alpha_requests", "Requests measured", "int", 0, 1e9),
    FieldSpec("alpha_steps", "Steps measured", "int", 0, 1e12),
    FieldSpec("alpha_method", "Interval method", "text"),
)

# the confidence of every interval and verdict; not in SETTINGS_FIELDS (the settings dialog's and the
# report's settings block), a workbook-wide setting all the same
CONFIDENCE_FIELD = FieldSpec("confidence", "Interval confidence", "percent", 0.5, 1.0, below_maximum=True)

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
    Tier: {f.name: f for f in TIER_FIELDS + ENDPOINT_FIELDS + LOAD_FIELDS + TREE_FIELDS},
    TaskClass: {f.name: f for f in CLASS_FIELDS + ACCEPTANCE_FIELDS + PROFILE_FIELDS},
    Override: {f.name: f for f in OVERRIDE_FIELDS + ACCEPTANCE_FIELDS + PROFILE_FIELDS},
    Settings: {f.name: f for f in SETTINGS_FIELDS + (CONFIDENCE_FIELD,)},
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
    if row_type in (TaskClass, Override) and (given.get("profile") or given.get("acceptance_length") is not None):
        out.remove("alpha")  # schema 2: a profile or a length stands instead of alpha, which is derived from it
        if given.get("acceptance_length") is not None:
            out.append("acceptance_length_k")
    if row_type is Tier and given.get("speculative") != "no":
        out += ["k", "cost_model"]
        if given.get("cost_model") == "typed":
            out += ["c", "v"]
        elif given.get("cost_model") == "roofline":
            out += ["gpu", "pair", "batch"]
        if given.get("claimed_speedup") is not None:
            out.append("claim_context")
    return tuple(out)


_NUMBER_KINDS = ("int", "float", "percent", "optional_float", "optional_percent", "optional_int")


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


def alpha_range_problems(row: Any, index: int | None = None) -> list[str]:
    """A task class's or override's range: both ends or neither, low <= alpha <= high."""
    low, high = getattr(row, "alpha_low", None), getattr(row, "alpha_high", None)
    if low is None and high is None:
        return []
    where = f"{row_label(row, index)}, Alpha range"
    if low is None or high is None:
        return [f"{where}: give both ends (alpha low and alpha high) or neither"]
    try:
        if not low <= row.alpha <= high:
            return [f"{where}: must hold the acceptance itself ({shown(low)} to {shown(high)} does not hold "
                    f"{shown(row.alpha)})"]
    except TypeError:  # a wrong type is reported by the field's own check
        return []
    return []


def check_row(row: Any, index: int | None = None) -> list[str]:
    """Every field of one row through its spec; returns messages (empty when valid)."""
    problems = []
    for name, spec in SPECS[type(row)].items():
        value = getattr(row, name)
        try:
            # a stored number must be a number already: text such as "16" parses, but would break the arithmetic
            if spec.kind in _NUMBER_KINDS and value is not None and (
                    isinstance(value, bool) or not isinstance(value, int if spec.kind in ("int", "optional_int") else (int, float))):
                raise ValidationError(f"must be {spec.describe()} (got {value!r})")
            spec.parse(value)
        except ValidationError as exc:
            problems.append(f"{row_label(row, index)}, {spec.label}: {exc}")
    if not problems and isinstance(row, (TaskClass, Override)):
        problems.extend(alpha_range_problems(row, index))
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

    problems = size_problems(len(wb.tiers), len(wb.classes), len(wb.overrides))
    if problems:  # checking every row of such a workbook would itself take minutes
        return problems
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
    for rows in (wb.classes, wb.overrides):
        for row in rows:
            problems.extend(f"{row_label(row)}, {p}" for p in acceptance_problems(row))
    for t in wb.tiers:
        if t.tree_size is not None and t.tree_size < t.k + 1:
            problems.append(f"{row_label(t)}, {TREE_FIELDS[0].label}: a tree of depth K = {t.k} verifies at least "
                            f"K + 1 = {t.k + 1} tokens a step (got {t.tree_size})")
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


def acceptance_problems(row: TaskClass | Override) -> list[str]:
    """What is wrong between a row's acceptance fields (each field on its own is checked by its spec)."""
    length, k = row.acceptance_length, row.acceptance_length_k
    out = []
    if row.profile and length is not None:
        out.append(f"{_PROFILE.label}: give a profile or a mean acceptance length, not both")
    if length is not None and k is None:
        out.append("Mean acceptance length: give the K it was measured at (acceptance_length_k)")
    elif k is not None and length is None:
        out.append("K of the acceptance length: given without a mean acceptance length")
    elif length is not None and k is not None and length > k + 1.0 + 1e-12:
        out.append(f"Mean acceptance length: at K = {k} it is at most K + 1 = {k + 1}, bonus token included "
                   f"(got {length:g})")
    return out


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
