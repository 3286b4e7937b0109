"""A vendor's terms on a tier beyond one input and one output price: a cached-input price, prices above a context
band's threshold, the share of fast requests the vendor served at standard speed, and the SLA on output speed.

The fields (FieldSpecs the one validator registers), the checks between them, the SLA's verdict and its sentence,
and what a probe's `served` and `sla` records set on a tier. The arithmetic they feed is
docs/design/vendor-terms.md; the comparison reads them in model/comparison/.
"""
from __future__ import annotations

import math
from typing import Any

from model.workbook.field_spec import FieldSpec
from model.workbook.rows import TaskClass, Tier

_PRICE = (0.0, 1e6)

# typed in the window, on the report's Inputs sheet (right of the tiers' own columns) and in price lists
TERMS_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("price_cached_in", "Price cached in /1M", "optional_float", *_PRICE),
    # vendors count this threshold in thousands ("200K" is 200,000 input tokens), not in the 1,024 a context length
    # takes here, so it is a plain number
    FieldSpec("band_threshold", "Long context above (input tokens)", "optional_int", 1, 10_000_000),
    FieldSpec("price_in_long", "Price in /1M, long", "optional_float", *_PRICE),
    FieldSpec("price_out_long", "Price out /1M, long", "optional_float", *_PRICE),
    FieldSpec("price_cached_in_long", "Price cached in /1M, long", "optional_float", *_PRICE),
    FieldSpec("price_source", "Prices as of (date, source)", "text"),
    FieldSpec("downgraded_share", "Downgraded share", "optional_percent", 0.0, 1.0),
    FieldSpec("sla_tokens_per_s", "SLA tokens/s", "optional_float", 0.001, 1e6),
    FieldSpec("sla_share", "SLA share of requests", "optional_percent", 0.0, 1.0),
)

# what a probe measured of them (`probe --json`'s `served` and `sla`), kept beside them
MEASURED_TERMS_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("downgraded_low", "Downgraded share low", "optional_percent", 0.0, 1.0),
    FieldSpec("downgraded_high", "Downgraded share high", "optional_percent", 0.0, 1.0),
    FieldSpec("downgraded_requests", "Fast requests counted", "int", 0, 1e9),
    FieldSpec("sla_measured_share", "SLA share measured", "optional_percent", 0.0, 1.0),
    FieldSpec("sla_share_low", "SLA share measured low", "optional_percent", 0.0, 1.0),
    FieldSpec("sla_share_high", "SLA share measured high", "optional_percent", 0.0, 1.0),
    FieldSpec("sla_requests", "SLA requests measured", "int", 0, 1e9),
)

# the workload's side: how each task class's traffic falls in the bands and how much of its input is cached
WORKLOAD_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("long_share", "Share past the band", "optional_percent", 0.0, 1.0),
    FieldSpec("cached_share", "Cached input share", "percent", 0.0, 1.0),
)

_LABEL = {spec.name: spec.label for spec in TERMS_FIELDS + MEASURED_TERMS_FIELDS}
_LONG = ("price_in_long", "price_out_long")
_MEASURED_SLA = ("sla_measured_share", "sla_share_low", "sla_share_high")


def _both_or_neither(tier: Tier, a: str, b: str) -> list[str]:
    if (getattr(tier, a) is None) != (getattr(tier, b) is None):
        return [f"{_LABEL[a]} and {_LABEL[b]}: give both or neither"]
    return []


def _interval(tier: Tier, value: str, low: str, high: str, what: str) -> list[str]:
    lo, hi, x = getattr(tier, low), getattr(tier, high), getattr(tier, value)
    if lo is None and hi is None:
        return []
    if lo is None or hi is None:
        return [f"{what} interval: give both ends ({_LABEL[low]}, {_LABEL[high]}) or neither"]
    if x is None:
        return [f"{what} interval: given without the share it belongs to ({_LABEL[value]})"]
    if not lo - 1e-12 <= x <= hi + 1e-12:
        return [f"{what} interval: must hold the share itself ({lo:g} to {hi:g} does not hold {x:g})"]
    return []


def terms_problems(tier: Tier) -> list[str]:
    """What is wrong between a tier's terms (each field on its own is checked by its spec); each message names
    the fields, the caller names the tier."""
    out: list[str] = []
    if tier.band_threshold is not None:
        missing = [_LABEL[f] for f in _LONG if getattr(tier, f) is None]
        if missing:
            out.append(f"{_LABEL['band_threshold']}: give the prices above it too ({', '.join(missing)})")
    else:
        given = [_LABEL[f] for f in _LONG + ("price_cached_in_long",) if getattr(tier, f) is not None]
        if given:
            out.append(f"{', '.join(given)}: given without the threshold they start at ({_LABEL['band_threshold']})")
    out += _both_or_neither(tier, "sla_tokens_per_s", "sla_share")
    out += _interval(tier, "downgraded_share", "downgraded_low", "downgraded_high", "Downgraded share")
    out += _interval(tier, "sla_measured_share", "sla_share_low", "sla_share_high", "SLA share measured")
    if tier.sla_measured_share is not None and tier.sla_tokens_per_s is None:
        out.append(f"{_LABEL['sla_measured_share']}: given without the SLA it measures ({_LABEL['sla_tokens_per_s']})")
    return out


# ---- the SLA ------------------------------------------------------------------------------------------------

MET, BREACHED, UNDECIDED = "met", "breached", "undecided"


def sla_verdict(tier: Tier) -> str:
    """met (the measured interval's low end at or above the promise), breached (its high end below), undecided;
    "" where nothing was promised or measured. The one rule: the probe's JSON, the window, `compare`, the report's
    formula and the brief all say what this says."""
    q, low, high = tier.sla_share, tier.sla_share_low, tier.sla_share_high
    if q is None or tier.sla_measured_share is None:
        return ""
    if low is None or high is None:  # a share without an interval decides nothing
        return UNDECIDED
    if low >= q:
        return MET
    if high < q:
        return BREACHED
    return UNDECIDED


def _pct(x: float) -> str:
    """A share as a percentage with the digits it needs: 99%, 99.9%, 75%."""
    text = f"{100 * x:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def _rate(x: float) -> str:
    return f"{x:g}"


def sla_text(tier: Tier) -> str:
    """"SLA: 75% (51–90%) of requests above 80 tok/s against 99% promised: breached"; the promise alone where
    nothing was measured; "" where no SLA was given."""
    if tier.sla_tokens_per_s is None or tier.sla_share is None:
        return ""
    rate, promised = _rate(tier.sla_tokens_per_s), _pct(tier.sla_share)
    if tier.sla_measured_share is None:
        return f"SLA: {promised} of requests above {rate} tok/s promised; not measured"
    interval = (f" ({_pct(tier.sla_share_low).rstrip('%')}\u2013{_pct(tier.sla_share_high)})"
                if tier.sla_share_low is not None and tier.sla_share_high is not None else "")
    over = f" over {tier.sla_requests} requests" if tier.sla_requests else ""
    return (f"SLA: {_pct(tier.sla_measured_share)}{interval} of requests above {rate} tok/s{over} against "
            f"{promised} promised: {sla_verdict(tier)}")


def downgraded_text(tier: Tier) -> str:
    """"25% (14–40%) of fast requests served at standard speed, over 48 requests" ("" where not known)."""
    return downgraded_words(tier.downgraded_share, tier.downgraded_low, tier.downgraded_high, tier.downgraded_requests)


def downgraded_words(d: float | None, low: float | None, high: float | None, requests: int) -> str:
    if d is None:
        return ""
    interval = f" ({_pct(low).rstrip('%')}\u2013{_pct(high)})" if low is not None and high is not None else ""
    over = f", over {requests} requests" if requests else " (typed)"
    return f"{_pct(d)}{interval} of fast requests served at standard speed{over}"


# ---- edits and a probe's records ---------------------------------------------------------------------------

def drop_stale_measurement(tier: Tier, field: str, value: Any) -> None:
    """Before ``field`` is typed as ``value``: a measurement that was about the old value goes. A new SLA
    threshold or promise drops the measured share (it was counted against the old one); a typed downgraded
    share drops the interval and count it no longer belongs to."""
    if field in ("sla_tokens_per_s", "sla_share") and value != getattr(tier, field):
        if field == "sla_tokens_per_s" or value is None:
            tier.sla_measured_share = tier.sla_share_low = tier.sla_share_high = None
            tier.sla_requests = 0
    elif field == "downgraded_share" and value != tier.downgraded_share:
        tier.downgraded_low = tier.downgraded_high = None
        tier.downgraded_requests = 0


def _share(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or not 0.0 <= x <= 1.0:
        return None
    return float(x)


def _pair(x: Any) -> tuple[float, float] | None:
    if not isinstance(x, (list, tuple)) or len(x) != 2:
        return None
    lo, hi = _share(x[0]), _share(x[1])
    return (lo, hi) if lo is not None and hi is not None and lo <= hi else None


def _count(x: Any) -> int:
    return int(x) if isinstance(x, int) and not isinstance(x, bool) and x > 0 else 0


def apply_served(tier: Tier, served: dict[str, Any] | None, sla: dict[str, Any] | None) -> None:
    """Set what a probe measured (its JSON's ``served`` and ``sla`` records, as `probe --json` writes them) on
    ``tier``. A record missing, or without a share, leaves the tier's fields as they were; a share is kept with its
    interval only where the interval holds it. The SLA's threshold and promise come with its measurement (a probe
    run with `--sla` judges the promise it was given)."""
    if isinstance(served, dict) and (d := _share(served.get("downgraded_share"))) is not None:
        pair = _pair(served.get("downgraded_interval"))
        tier.downgraded_share = d
        tier.downgraded_low, tier.downgraded_high = pair if pair and pair[0] <= d <= pair[1] else (None, None)
        tier.downgraded_requests = _count(served.get("fast")) + _count(served.get("standard"))
    if not isinstance(sla, dict):
        return
    rate, promise = sla.get("threshold_tokens_per_s"), _share(sla.get("promised_share"))
    if isinstance(rate, (int, float)) and not isinstance(rate, bool) and math.isfinite(rate) and rate > 0:
        if promise is not None:
            tier.sla_tokens_per_s, tier.sla_share = float(rate), promise
    measured = _share(sla.get("measured_share"))
    if measured is None or tier.sla_tokens_per_s is None or tier.sla_share is None:
        return
    pair = _pair(sla.get("share_interval"))
    # not rounded: the verdict is read from these ends against the promise, as the probe read it
    tier.sla_measured_share = measured
    tier.sla_share_low, tier.sla_share_high = pair if pair and pair[0] <= measured <= pair[1] else (None, None)
    tier.sla_requests = _count(sla.get("requests"))


def class_long_share(c: TaskClass, tier: Tier) -> float:
    """The share of the class's tokens priced at the tier's long-context prices: the class's own share where it
    gives one, else all or none by its context against the tier's threshold; none on a tier without bands."""
    if tier.band_threshold is None:
        return 0.0
    if c.long_share is not None:
        return c.long_share
    return 1.0 if c.context > tier.band_threshold else 0.0
