"""The one validator: every entry point (GUI cells, CLI, JSON and Excel import) goes through it.

This module holds the fields of each row (tier, task class, override, settings) as FieldSpecs, which fields a row
must give, and the checks of a row and of a whole workbook; each message names the row and the field and says
what would be accepted. How one field is parsed (FieldSpec, ValidationError, the parsers of the fields that are
not a plain number or text) is model/workbook/field_spec.py, re-exported here.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

from model.mechanics import roofline
from model.mechanics.arithmetic import profile_tokens
from model.workbook.acceptance_fields import contradiction_words
from model.workbook.cell_values import (NumberFormatError, parse_number, bad_character, shown)  # noqa: F401  (re-exported: the one validator)
from model.workbook.field_spec import K_LIMITS, FieldSpec, ValidationError  # noqa: F401  (re-exported)
from model.workbook.rows import (ALPHA_SOURCES, COST_MODELS, CURRENCIES, NOT_GIVEN_ON_NEW_CLASS, SPECULATIVE_CHOICES,
                                 Override, Settings, TaskClass, Tier, Workbook)
from model.workbook.quality_fields import QUALITY_FIELDS
from model.workbook.vendor_terms import (MEASURED_TERMS_FIELDS, TERMS_FIELDS, WORKLOAD_FIELDS,  # noqa: F401  (re-exported)
                                         terms_problems)


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

# A tier's endpoint: optional, not columns of the tiers table (the probe dialog edits them)
ENDPOINT_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("endpoint_url", "Base URL", "url"),
    FieldSpec("endpoint_model", "Model", "text"),
    FieldSpec("api_key_env", "API key env var", "env_name"),
    FieldSpec("keyring_service", "Keyring service", "text"),
    FieldSpec("keyring_user", "Keyring user", "text"),
    FieldSpec("extra_body", "Extra request fields", "json_object"),
    FieldSpec("endpoint_api", "API", "endpoint_api"),
    FieldSpec("endpoint_headers", "Request headers", "headers"),
    FieldSpec("measured_speedup", "Measured speedup", "optional_float", 0.0, 1000.0),
    FieldSpec("measured_note", "Measured note", "text"),
    FieldSpec("measured_speedup_low", "Measured speedup low", "optional_float", 0.0, 1000.0),
    FieldSpec("measured_speedup_high", "Measured speedup high", "optional_float", 0.0, 1000.0),
    FieldSpec("measured_speedup_confidence", "Measured speedup confidence", "optional_percent", 0.5, 1.0,
              below_maximum=True),
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
    FieldSpec("acceptance_length_low", "Mean acceptance length low", "optional_float", 1.0, K_LIMITS[1] + 1.0),
    FieldSpec("acceptance_length_high", "Mean acceptance length high", "optional_float", 1.0, K_LIMITS[1] + 1.0),
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

# what nobody gave of a task class (TaskClass.defaulted): not a column of the classes table (its cells read "not
# given"); the report's Inputs holds it last in the classes' table, so an older report's reads without it
CLASS_NOT_GIVEN_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("defaulted", "Not given (type these)", "text"),
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
    # last: an older report's tables end at the method, and the importer reads trailing columns while they follow
    FieldSpec("alpha_prompts", "Prompts measured", "optional_int", 0, 1e9),
)

# the confidence of every interval and verdict; not in SETTINGS_FIELDS (the settings dialog's and the
# report's settings block), a workbook-wide setting all the same
# at most 99.99%: past it the two-sided quantile a run turns it into runs out of float precision (0.9999999999999999
# leaves no tail at all), so every interval, look and verdict would fail after the requests were sent
MAX_CONFIDENCE = 0.9999
CONFIDENCE_FIELD = FieldSpec("confidence", "Interval confidence", "percent", 0.5, MAX_CONFIDENCE)
# a run until decided may stop a class once its interval is this narrow either side (the probe dock; not a
# workbook field): 0.03 or 3% is 3 points, blank for none
HALF_WIDTH_FIELD = FieldSpec("half_width", "Half-width", "optional_percent", 0.001, 0.5, below_maximum=True)
# ... and a class judged on E (a profile or a length) once E's interval at the tier's K is this narrow, in tokens
# per verify step (E runs from 1 to K+1, so half of K max is already no target at all)
LENGTH_HALF_WIDTH_FIELD = FieldSpec("length_half_width", "E half-width", "optional_float", 0.001, K_LIMITS[1] / 2)
# a run until decided stops before a round would pass this cost, in the workbook's currency (blank: no cap)
MAX_COST_FIELD = FieldSpec("max_cost", "Max cost", "optional_float", 0.0, 1e12)

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
    Tier: {f.name: f for f in TIER_FIELDS + ENDPOINT_FIELDS + LOAD_FIELDS + TREE_FIELDS + TERMS_FIELDS
           + MEASURED_TERMS_FIELDS + QUALITY_FIELDS},
    TaskClass: {f.name: f for f in CLASS_FIELDS + ACCEPTANCE_FIELDS + PROFILE_FIELDS + WORKLOAD_FIELDS
                + CLASS_NOT_GIVEN_FIELDS},
    Override: {f.name: f for f in OVERRIDE_FIELDS + ACCEPTANCE_FIELDS + PROFILE_FIELDS},
    Settings: {f.name: f for f in SETTINGS_FIELDS + (CONFIDENCE_FIELD,)},
}
ROW_WORD = {Tier: "Tier", TaskClass: "Task class", Override: "Override", Settings: "Settings"}

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
    word = ROW_WORD[type(row)]
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
        where = f"{ROW_WORD[row_type]} {row_name!r}, " if row_name else ("Settings, " if row_type is Settings else "")
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


def not_given_problems(row: TaskClass, index: int | None = None) -> list[str]:
    """A task class's not-given list names only what a class can lack: its acceptance, context and tokens."""
    unknown = [f for f in row.defaulted_fields() if f not in NOT_GIVEN_ON_NEW_CLASS]
    if not unknown:
        return []
    return [f"{row_label(row, index)}, {CLASS_NOT_GIVEN_FIELDS[0].label}: {', '.join(map(repr, unknown))} cannot be "
            f"not given; list some of {', '.join(NOT_GIVEN_ON_NEW_CLASS)}, or leave it blank"]


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
    if not problems and isinstance(row, TaskClass):
        problems.extend(not_given_problems(row, index))
    if not problems and isinstance(row, Tier):  # a vendor's terms: bands, SLA, downgrade (model/workbook/vendor_terms.py)
        problems.extend(f"{row_label(row, index)}, {p}" for p in terms_problems(row))
    return problems


# check_row's answer per row value: an edit changes one row of hundreds and every edit checks them all
# (Document.apply), 3.5 ms of a 100 x 30 workbook's frame. The key holds every attribute's type and value
# (1, 1.0 and True differ; a zero's sign and any unhashable value skip the cache) and the index the
# messages name; the presets the choices come from clear it when they change.
_ROW_PROBLEMS: dict[Any, list[str]] = {}
_ROW_PROBLEMS_PRESETS: list[Any] = [None]
_ROW_PROBLEMS_LIMIT = 20_000


def _value_key(value: Any) -> Any:
    if type(value) is float and value == 0.0:
        return float, math.copysign(1.0, value)
    if type(value) is tuple:  # a profile: its numbers' types count as well
        return tuple, tuple(map(_value_key, value))
    return type(value), value


def check_row_cached(row: Any, index: int | None = None) -> list[str]:
    """check_row, remembered for rows of the same value at the same index."""
    presets = (tuple(roofline.GPUS), tuple(roofline.PAIRS))
    if _ROW_PROBLEMS_PRESETS[0] != presets:
        _ROW_PROBLEMS.clear()
        _ROW_PROBLEMS_PRESETS[0] = presets
    key = (type(row), index, tuple(map(_value_key, vars(row).values())))
    try:
        found = _ROW_PROBLEMS.get(key)
    except TypeError:  # an unhashable value (a list a file put there): checked, never remembered
        return check_row(row, index)
    if found is None:
        if len(_ROW_PROBLEMS) >= _ROW_PROBLEMS_LIMIT:
            _ROW_PROBLEMS.clear()
        found = _ROW_PROBLEMS[key] = check_row(row, index)
    return list(found)


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
            problems.extend(check_row_cached(row, i))
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
        problems.extend(f"{row_label(t)}, {p}" for p in measured_interval_problems(t))
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


def measured_interval_problems(t: Tier) -> list[str]:
    """A measured speedup's interval: both ends or neither, low <= the speedup <= high, only beside a speedup."""
    lo, hi = t.measured_speedup_low, t.measured_speedup_high
    if lo is None and hi is None:
        return []
    if lo is None or hi is None or t.measured_speedup is None:
        return ["Measured speedup low/high: give both ends, beside a measured speedup, or neither"]
    if not lo <= t.measured_speedup <= hi:
        return [f"Measured speedup low/high: {lo:g} to {hi:g} must hold the measured speedup {t.measured_speedup:g}"]
    return []


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
    out.extend(length_range_problems(row))
    if not out:  # the profile or the length is the measurement; the alpha beside it only summarises it
        out.extend(filter(None, [contradiction_words(row)]))
    return out


def length_range_problems(row: TaskClass | Override) -> list[str]:
    """The interval on E: both ends or neither, only beside a profile or a length, holding its E at the K measured."""
    low, high = row.acceptance_length_low, row.acceptance_length_high
    if low is None and high is None:
        return []
    where = "Mean acceptance length range"
    if low is None or high is None:
        return [f"{where}: give both ends (low and high) or neither"]
    if row.profile:
        e, k = float(profile_tokens(list(row.profile))), len(row.profile)
    elif row.acceptance_length is not None and row.acceptance_length_k is not None:
        e, k = float(row.acceptance_length), int(row.acceptance_length_k)
    else:
        return [f"{where}: given without a profile or a mean acceptance length it belongs to"]
    if not low - 1e-9 <= e <= high + 1e-9:
        return [f"{where}: must hold the length itself ({low:g} to {high:g} does not hold {e:.4g})"]
    if high > k + 1.0 + 1e-12:
        return [f"{where}: at K = {k} it is at most K + 1 = {k + 1} (got {high:g})"]
    return []


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
