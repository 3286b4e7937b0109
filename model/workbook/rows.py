"""The analyst's workbook: vendor tiers, task classes and per-(tier, class) acceptance overrides."""
from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field, fields
from typing import Any

SPECULATIVE_CHOICES = ("yes", "no", "unknown")
# what a tier added by Add row or a paste has not been given until the analyst types it (Tier.defaulted)
NOT_GIVEN_ON_NEW_TIER = ("speculative", "k", "c", "v", "gpu", "pair", "price_out", "price_in")
# ... and a task class (TaskClass.defaulted): its acceptance, its context and its traffic
# (docs/design/verdicts.md#a-class-nobody-described)
NOT_GIVEN_ON_NEW_CLASS = ("alpha", "context", "tokens_out", "tokens_in")
COST_MODELS = ("typed", "roofline")
ALPHA_SOURCES = ("assumed", "measured", "imported", "probed")
# ISO codes the reports format; the first four print with their symbol ($1,000), the rest as "1,000 CHF"
# (a choice, so a typo cannot end up in a report; wide, so a workbook priced elsewhere still opens)
CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "NZD", "CNY", "HKD", "TWD", "SGD", "KRW", "INR",
              "IDR", "MYR", "THB", "PHP", "SEK", "NOK", "DKK", "PLN", "CZK", "HUF", "TRY", "ILS", "AED", "SAR",
              "ZAR", "BRL", "MXN", "ARS", "CLP", "COP")


_IDENTITIES = itertools.count(1)


def _listed(fields_: list[str]) -> str:
    return fields_[0] if len(fields_) == 1 else ", ".join(fields_[:-1]) + " and " + fields_[-1]


class NotGiven:
    """The fields of a row nobody gave (its ``defaulted`` text, "k, c, v"): a new row's placeholders, or an import's
    missing columns. An edit of a field drops it from the list."""

    defaulted: str

    def defaulted_fields(self) -> list[str]:
        return [f.strip() for f in self.defaulted.split(",") if f.strip()]

    def entered(self, field_name: str) -> None:
        """The analyst set `field_name`: it is no longer a made-up value."""
        if field_name in self.defaulted_fields():
            self.defaulted = ", ".join(f for f in self.defaulted_fields() if f != field_name)


@dataclass
class Tier(NotGiven):
    name: str = "New tier"
    vendor: str = ""
    speculative: str = "yes"  # yes / no / unknown: the seed's first advice is to confirm it
    k: int = 4
    cost_model: str = "typed"  # typed: c and v as entered; roofline: from gpu + pair presets
    c: float = 0.1
    v: float = 1.0
    gpu: str = "H100 SXM"
    pair: str = "Llama 1B -> 8B"
    batch: int = 1
    claimed_speedup: float | None = None
    claim_context: int = 4096
    price_out: float = 0.0  # currency per 1M output tokens
    price_in: float = 0.0  # currency per 1M input tokens
    baseline: str = ""  # name of the tier this one is priced against; "" for none
    notes: str = ""
    # Optional, edited in the probe dialog rather than the tiers table: where the tier answers
    # (an OpenAI-compatible base URL and model name), where its API key comes from (the *name* of
    # an environment variable, or a keyring service and user: never the key), and extra request
    # fields as a JSON object text (e.g. {"service_tier": "priority"}). A probe keeps its measured
    # speedup beside the claim. Workbooks without these fields load with them empty.
    endpoint_url: str = ""
    endpoint_model: str = ""
    api_key_env: str = ""
    keyring_service: str = ""
    keyring_user: str = ""
    extra_body: str = ""
    # the API the endpoint speaks ("" is Chat Completions: validation.ENDPOINT_APIS) and its extra request headers,
    # one "Name: value" a line; a secret header (its name says key, token, auth, secret, cookie, password or
    # credential) holds only where its value comes from, env:VAR or keyring:SERVICE/USER
    # (model/workbook/endpoint_headers.py)
    endpoint_api: str = ""
    endpoint_headers: str = ""
    measured_speedup: float | None = None
    measured_note: str = ""
    # the probe's interval on it, at its own confidence (None: none given); a tier whose mechanics nobody gave is
    # judged on the measured speed with this interval (docs/design/vendor-terms.md#judged-on-the-measured-speed)
    measured_speedup_low: float | None = None
    measured_speedup_high: float | None = None
    measured_speedup_confidence: float | None = None
    # A tree draft (schema 2): the tokens the target verifies per step, the last accepted one
    # included; None for a chain, which verifies K + 1. The tier's K is then the tree's depth:
    # its draft passes per step and the longest run one step can accept.
    tree_size: int | None = None
    # The load the analyst will run: parallel streams on this tier (a batch job's workers). A probe
    # at several concurrencies keeps its speedups over the baseline per level, as text
    # "1: 2.31, 4: 1.85, 16: 0.97*" (* marks a level the server throttled with 429s).
    concurrency: int = 1
    measured_by_concurrency: str = ""
    claim_concurrency: int = 1  # the parallel streams the vendor's claim was measured at (a quiet server: 1)
    # The fields nobody gave (an import's file had no column for them, or the row was added by Add row or a
    # paste): "speculative, k, c, v, price_out". Made-up mechanics leave the tier incomplete, with no speed and
    # no verdicts; made-up prices leave it no value verdict; an edit of a field drops it from the list.
    defaulted: str = ""
    # The vendor's terms beyond one input and one output price (docs/design/vendor-terms.md), all optional:
    # a cached-input price, prices above a context band's threshold (input tokens), and where the list prices
    # came from and when (a preset's are never current: the date shows wherever they are used)
    price_cached_in: float | None = None
    band_threshold: int | None = None
    price_in_long: float | None = None
    price_out_long: float | None = None
    price_cached_in_long: float | None = None
    price_source: str = ""
    # the share of fast requests the vendor served at standard speed (billed at the baseline's prices), typed
    # or measured by a probe (then with its interval and the requests it was counted over)
    downgraded_share: float | None = None
    downgraded_low: float | None = None
    downgraded_high: float | None = None
    downgraded_requests: int = 0
    # the SLA: "sla_share of requests above sla_tokens_per_s output tokens/s", and what a probe measured of it
    sla_tokens_per_s: float | None = None
    sla_share: float | None = None
    sla_measured_share: float | None = None
    sla_share_low: float | None = None
    sla_share_high: float | None = None
    sla_requests: int = 0
    # quality at a temperature and on the analyst's checked tasks, as a probe found it (docs/design/quality.md):
    # "lossy", "worse" (on a class's checks), "undecided", "lossless" or "" (not probed), and the sentence saying so
    quality_verdict: str = ""
    quality_note: str = ""

    def missing_mechanics(self) -> str:
        """'speculative unknown', 'incomplete: needs c and v' and the like; '' when complete."""
        made_up = set(self.defaulted_fields())
        if "speculative" in made_up:
            return "speculative unknown"
        if self.speculative == "no":
            return ""
        words = {"k": "K", "c": "c", "v": "v", "gpu": "GPU", "pair": "draft/target pair"}
        need = ["k"] + (["c", "v"] if self.cost_model == "typed" else ["gpu", "pair"])
        missing = [words[f] for f in need if f in made_up]
        if not missing:
            return ""
        return f"incomplete: needs {_listed(missing)}"

    def missing_prices(self) -> str:
        """'prices not given' while a price is one nobody gave (a new row's 0); '' once both are entered."""
        return "prices not given" if {"price_out", "price_in"} & set(self.defaulted_fields()) else ""

    def __post_init__(self) -> None:
        # Which tier a measurement was taken on, through renames, row moves and undo: an attribute, not a
        # field, so it is never saved, compared or shown. Workbook.copy (deepcopy) and undo snapshots keep
        # it; a new row, a duplicate (see renew_identity) and a loaded file get a fresh one.
        self._identity = next(_IDENTITIES)

    @property
    def identity(self) -> int:
        return self._identity

    def renew_identity(self) -> None:
        """A copy made into another tier (Add row, Duplicate) is not the tier it was copied from."""
        self._identity = next(_IDENTITIES)


@dataclass
class MeasuredAcceptance:
    """How a class's acceptance was found and how sure it is, the same on a task class and on an override: where
    alpha came from, its interval, and the acceptance beyond one alpha. ``TaskClass`` and ``Override`` list this
    class first among their bases, so these fields come after their own leading ones (name ... alpha; tier,
    task_class, alpha) and before any a row adds in its body: the order files have always been written in."""

    alpha_source: str = "assumed"
    source_note: str = ""  # e.g. the draft/target pair a measured alpha came from
    # the interval on alpha (docs/design/intervals.md#typed-ranges): a range typed by the analyst (a vendor's stated
    # range, own doubt; no confidence) or the interval measured with it (its confidence, requests, steps and method;
    # without an interval, method says why: too few requests, counts only). None/0/"" in older files.
    alpha_low: float | None = None
    alpha_high: float | None = None
    alpha_confidence: float | None = None
    alpha_requests: int = 0  # requests measured, repeats of a prompt included
    alpha_steps: int = 0
    alpha_method: str = ""
    # distinct prompts among them, the interval's units (repeats of one prompt are one); None: not known (an
    # older file, a typed range, a source that names no prompt: then each request is a unit)
    alpha_prompts: int | None = None
    # Acceptance beyond one alpha (docs/reference/workbook-file.md#profiles-lengths-and-tree-drafts-schema-2): a
    # profile is the conditional acceptance at each draft position, position 1 first; a mean acceptance length
    # (bonus token included, as vLLM, SGLang and Spec-Bench count it) comes with the K it was measured at. alpha
    # stays beside them as the i.i.d. summary (derived from them when a file omits it).
    profile: tuple[float, ...] = ()
    acceptance_length: float | None = None
    acceptance_length_k: int | None = None
    # the interval on E at the K measured (the profile's positions, or acceptance_length_k), the request as the
    # unit; its confidence is alpha_confidence (one measurement, one confidence). None: no interval on E
    acceptance_length_low: float | None = None
    acceptance_length_high: float | None = None


@dataclass
class _ClassLead:
    name: str = "New class"
    tokens_out: float = 0.0  # per month
    tokens_in: float = 0.0  # per month
    context: int = 4096  # typical context length, tokens
    alpha: float = 0.6  # per-token acceptance


@dataclass
class TaskClass(NotGiven, MeasuredAcceptance, _ClassLead):
    """A kind of request the analyst sends: its monthly tokens, its context and its acceptance (alpha, then
    MeasuredAcceptance's fields), then what prices its traffic."""

    # how the class's traffic is priced on a tier with bands (docs/design/vendor-terms.md): the share of its
    # tokens from requests whose input is past the tier's band threshold (None: its context decides, all or
    # none), and the share of its input tokens read from the vendor's cache
    long_share: float | None = None
    cached_share: float = 0.0
    # The fields of NOT_GIVEN_ON_NEW_CLASS nobody gave (a row added by Add row or a paste: "alpha, context,
    # tokens_out, tokens_in"), their values only placeholders: a class whose acceptance or context is not given has
    # no speed on any tier (an override gives a tier its acceptance), and while any class is not described in full
    # no tier has a mix, verdict or fair price over the classes (docs/design/verdicts.md#a-class-nobody-described)
    defaulted: str = ""

    def missing_acceptance(self, overridden: bool = False) -> str:
        """Why this class's cells have no speed: "acceptance not given", "context not given", "acceptance and
        context not given"; "" when both are given (`overridden`: an override gives the cell its acceptance)."""
        made_up = self.defaulted_fields()
        missing = [w for f, w in (("alpha", "acceptance"), ("context", "context")) if f in made_up
                   and not (f == "alpha" and overridden)]
        return f"{_listed(missing)} not given" if missing else ""

    def not_described(self, overridden: bool = False) -> str:
        """Why a tier's mix over the classes waits for this one: "acceptance and tokens not given" and the like;
        "" when described in full (`overridden`: an override gives the tier its acceptance on this class)."""
        made_up = set(self.defaulted_fields()) - ({"alpha"} if overridden else set())
        missing = [w for fs, w in ((("alpha",), "acceptance"), (("context",), "context"),
                                   (("tokens_out", "tokens_in"), "tokens")) if set(fs) & made_up]
        return f"{_listed(missing)} not given" if missing else ""

    def tokens_not_given(self) -> bool:
        return bool({"tokens_out", "tokens_in"} & set(self.defaulted_fields()))


@dataclass
class _OverrideLead:
    tier: str
    task_class: str
    alpha: float


@dataclass
class Override(MeasuredAcceptance, _OverrideLead):
    """Acceptance of one class on one tier's draft, since acceptance depends on the draft (alpha, then
    MeasuredAcceptance's fields)."""


INTERVAL_FIELDS = ("alpha_low", "alpha_high", "alpha_confidence", "alpha_requests", "alpha_steps", "alpha_method",
                   "alpha_prompts")
# what an acceptance is beyond one alpha (schema 2): kept with the row's alpha wherever it is copied or replaced
SHAPE_FIELDS = ("profile", "acceptance_length", "acceptance_length_k", "acceptance_length_low", "acceptance_length_high")


def drop_acceptance_shape(row: MeasuredAcceptance) -> None:
    """A typed alpha replaces the row's profile or length: otherwise the profile would go on deciding E."""
    row.profile, row.acceptance_length, row.acceptance_length_k = (), None, None
    row.acceptance_length_low = row.acceptance_length_high = None


def drop_stale_interval(row: MeasuredAcceptance, alpha: float) -> None:
    """Before ``row.alpha`` is typed as ``alpha``: a measured interval belongs to the measured value and goes;
    a typed range stays while it still holds the new value."""
    measured = row.alpha_confidence is not None or row.alpha_requests > 0 or row.alpha_method not in ("", "typed range")
    outside = row.alpha_low is not None and row.alpha_high is not None and not row.alpha_low <= alpha <= row.alpha_high
    if (measured and alpha != row.alpha) or outside:
        row.alpha_low = row.alpha_high = row.alpha_confidence = None
        row.alpha_requests = row.alpha_steps = 0
        row.alpha_method, row.alpha_prompts = "", None


def type_acceptance(row: MeasuredAcceptance, alpha: float, typed_range: tuple[float, ...]) -> None:
    """An alpha typed with its range ((low, high), or () to have none): the range is the analyst's, so a measured
    interval's confidence, counts and method go unless the text is the measured one unchanged; a changed alpha
    replaces a profile or a length, as a bare alpha does."""
    if alpha != row.alpha:
        drop_acceptance_shape(row)
    kept = (alpha == row.alpha and len(typed_range) == 2
            and (row.alpha_low, row.alpha_high) == (typed_range[0], typed_range[1]))
    if not kept:
        row.alpha_low, row.alpha_high = (typed_range[0], typed_range[1]) if typed_range else (None, None)
        row.alpha_confidence = None
        row.alpha_requests = row.alpha_steps = 0
        row.alpha_method, row.alpha_prompts = "", None
    row.alpha = alpha


@dataclass
class Settings:
    marginal_band: float = 0.05  # a speedup in [1, 1 + band) is "marginal"
    claim_tolerance: float = 0.05  # a claim holds if mix speedup >= claim * (1 - tolerance)
    k_max: int = 16
    currency: str = "USD"
    confidence: float = 0.95  # of every interval made and of the verdicts that read them


@dataclass
class Workbook:
    tiers: list[Tier] = field(default_factory=list)
    classes: list[TaskClass] = field(default_factory=list)
    overrides: list[Override] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)
    title: str = ""

    def copy(self) -> "Workbook":
        """A copy whose rows can be changed without touching this one's (every edit makes one)."""
        return Workbook([_row_copy(t) for t in self.tiers], [_row_copy(c) for c in self.classes],
                        [_row_copy(o) for o in self.overrides], _row_copy(self.settings), copy.deepcopy(self.title))

    def tier_index(self, name: str) -> int | None:
        for i, t in enumerate(self.tiers):
            if t.name == name:
                return i
        return None

    def tier_with_identity(self, identity: int | None) -> Tier | None:
        """The tier a measurement was bound to (Tier.identity), whatever its name or row now; None if gone."""
        for t in self.tiers:
            if t.identity == identity:
                return t
        return None

    def class_index(self, name: str) -> int | None:
        for i, c in enumerate(self.classes):
            if c.name == name:
                return i
        return None

    def override_for(self, tier: str, task_class: str) -> Override | None:
        for o in self.overrides:
            if o.tier == tier and o.task_class == task_class:
                return o
        return None

    def set_override(self, tier: str, task_class: str, alpha: float | None, source: str = "assumed", note: str = "",
                     **interval: Any) -> None:
        """Set, replace or (alpha None) remove the override for one (tier, class); ``interval`` holds
        the alpha_low ... alpha_method fields a measurement gives (none: no interval)."""
        self.overrides = [o for o in self.overrides if not (o.tier == tier and o.task_class == task_class)]
        if alpha is not None:
            self.overrides.append(Override(tier, task_class, float(alpha), source, note, **interval))

    def rename_tier(self, old: str, new: str) -> None:
        """Rename a tier and everything that points at it (baselines, overrides)."""
        for t in self.tiers:
            if t.name == old:
                t.name = new
            elif t.baseline == old:
                t.baseline = new
        for o in self.overrides:
            if o.tier == old:
                o.tier = new

    def rename_class(self, old: str, new: str) -> None:
        for c in self.classes:
            if c.name == old:
                c.name = new
        for o in self.overrides:
            if o.task_class == old:
                o.task_class = new


_ATOMS = (str, int, float, bool, type(None))
_ATOM_TYPES = frozenset(_ATOMS)


def _row_copy(row: Any) -> Any:
    """A row as deepcopy makes it, at a tenth of the time or less: the fields are text, numbers and tuples of
    numbers, shared as they are; anything else (a list a file put there before validation) is deep-copied.
    The attributes beside the fields (Tier's identity) come along, as with deepcopy. (The exact types are
    looked up first, a set lookup, and isinstance only for the rest: every edit copies every row, 0.8 -> 0.3 ms
    at 100 x 30 with profiles.)"""
    out = object.__new__(type(row))
    state = dict(vars(row))
    for name, value in state.items():
        kind = type(value)
        if kind in _ATOM_TYPES or (kind is tuple and all(type(x) in _ATOM_TYPES for x in value)):
            continue
        if not isinstance(value, _ATOMS) and not (isinstance(value, tuple) and all(isinstance(x, _ATOMS) for x in value)):
            state[name] = copy.deepcopy(value)
    out.__dict__.update(state)
    return out


def field_names(row_type: type) -> list[str]:
    return [f.name for f in fields(row_type)]
