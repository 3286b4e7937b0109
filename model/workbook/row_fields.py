"""The fields of each row of a workbook (tier, task class, override, settings) as FieldSpecs, the fields a row must
give, and the words a message names a row with. The checks that use them are model/workbook/validation.py (the one
validator), which re-exports every name here.
"""
from __future__ import annotations

from typing import Any

from model.mechanics import roofline
from model.workbook.field_spec import K_LIMITS, FieldSpec
from model.workbook.rows import (ALPHA_SOURCES, COST_MODELS, CURRENCIES, SPECULATIVE_CHOICES, Override, Settings,
                                 TaskClass, Tier)
from model.workbook.quality_fields import QUALITY_FIELDS
from model.workbook.vendor_terms import MEASURED_TERMS_FIELDS, TERMS_FIELDS, WORKLOAD_FIELDS


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
PROFILE_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("profile", "Acceptance profile", "profile"),
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


def row_label(row: Any, index: int | None = None) -> str:
    word = ROW_WORD[type(row)]
    if isinstance(row, Override):
        return f"{word} ({row.tier!r}, {row.task_class!r})"
    name = getattr(row, "name", "")
    if name:
        return f"{word} {name!r}"
    return f"{word} in row {index + 1}" if index is not None else word
