"""What a vendor's terms do to the comparison (docs/design/vendor-terms.md): the workload priced by context band and
cached input, downgraded requests in the tier's speed and bill, and the SLA beside the tier's verdicts.

compare() reads these arrays; a tier without terms gets exactly the numbers it got before (one input and one output
price, no downgrade), so these functions are the identity there.
"""
from __future__ import annotations


import numpy as np
from numpy.typing import NDArray

from model.common.formatting import finite_or_none
from model.comparison.result import Comparison
from model.workbook.rows import TaskClass, Tier
from model.workbook.vendor_terms import downgraded_words, sla_text, sla_verdict

Array = NDArray[np.float64]


def _prices(tiers: list[Tier]) -> dict[str, Array]:
    """Per tier, each price with its fallbacks: cached input at the input price of its band, the long band at the
    short band's prices where a tier has no threshold (its long share is 0 then anyway)."""
    po = np.array([t.price_out for t in tiers], dtype=np.float64)
    pi = np.array([t.price_in for t in tiers], dtype=np.float64)

    def given(name: str, fallback: Array) -> Array:
        return np.array([fallback[i] if getattr(t, name) is None else getattr(t, name) for i, t in enumerate(tiers)],
                        dtype=np.float64)

    pc = given("price_cached_in", pi)
    pol, pil = given("price_out_long", po), given("price_in_long", pi)
    return {"po": po, "pi": pi, "pc": pc, "pol": pol, "pil": pil, "pcl": given("price_cached_in_long", pil)}


def priced_cells(tiers: list[Tier], classes: list[TaskClass]) -> Array:
    """(tiers x classes): each class's monthly tokens priced on each tier (currency per month times 1e6: prices
    are per 1M tokens), by band and cache; a class with no tokens entered is priced per output token, as the
    value verdict has always weighed it."""
    n_t, n_c = len(tiers), len(classes)
    if not n_t or not n_c:
        return np.zeros((n_t, n_c))
    p = {k: v[:, None] for k, v in _prices(tiers).items()}
    out = np.array([c.tokens_out for c in classes], dtype=np.float64)[None, :]
    inp = np.array([c.tokens_in for c in classes], dtype=np.float64)[None, :]
    cached = np.array([c.cached_share for c in classes], dtype=np.float64)[None, :]
    long = long_shares(tiers, classes)
    short_cost = out * p["po"] + inp * ((1.0 - cached) * p["pi"] + cached * p["pc"])
    long_cost = out * p["pol"] + inp * ((1.0 - cached) * p["pil"] + cached * p["pcl"])
    no_tokens = (out + inp) == 0
    per_output = (1.0 - long) * p["po"] + long * p["pol"]
    return np.where(no_tokens, per_output, (1.0 - long) * short_cost + long * long_cost)


def priced_cells_key(tiers: list[Tier], classes: list[TaskClass]) -> tuple[int, int, bytes]:
    """Everything priced_cells reads, to the bit (a field not given apart from any number): equal keys, equal prices
    (compare() keeps them between edits of what they do not read: model/comparison/cells.PairCache.kept)."""
    values = [(v is None, 0.0 if v is None else v)
              for t in tiers for v in (t.price_out, t.price_in, t.price_cached_in, t.price_out_long, t.price_in_long,
                                       t.price_cached_in_long, t.band_threshold)]
    values += [(v is None, 0.0 if v is None else v)
               for c in classes for v in (c.tokens_out, c.tokens_in, c.cached_share, c.long_share, c.context)]
    return len(tiers), len(classes), np.array(values, dtype=np.float64).tobytes()


def long_shares(tiers: list[Tier], classes: list[TaskClass]) -> Array:
    """(tiers x classes): model/workbook/vendor_terms.class_long_share for every cell, as arrays (an edit of a
    100 x 30 workbook recomputes them all)."""
    thr = np.array([np.nan if t.band_threshold is None else t.band_threshold for t in tiers], dtype=np.float64)[:, None]
    given = np.array([np.nan if c.long_share is None else c.long_share for c in classes], dtype=np.float64)[None, :]
    context = np.array([c.context for c in classes], dtype=np.float64)[None, :]
    with np.errstate(invalid="ignore"):
        by_context = (context > thr).astype(np.float64)
    return np.where(np.isnan(thr), 0.0, np.where(np.isnan(given), by_context, given))


def downgraded(tiers: list[Tier]) -> tuple[Array, Array, Array]:
    """Per tier the downgraded share and its interval's ends (0 where none is known; the share itself at both
    ends where it has no interval)."""
    d = np.array([t.downgraded_share or 0.0 for t in tiers], dtype=np.float64)
    lo = np.array([t.downgraded_low if t.downgraded_low is not None else d[i] for i, t in enumerate(tiers)],
                  dtype=np.float64)
    hi = np.array([t.downgraded_high if t.downgraded_high is not None else d[i] for i, t in enumerate(tiers)],
                  dtype=np.float64)
    return d, lo, hi


def billed(values: Array, base: NDArray[np.int64], d: Array) -> Array:
    """Per tier: (1 - d) of its traffic at its own prices and d at its baseline's (a downgraded request is billed as
    standard). Without a baseline there is no standard price to bill at: its own."""
    has_base = base >= 0
    if not has_base.any() or not d.any():
        return values
    at_base = values[np.maximum(base, 0)]
    return np.where(has_base & (d > 0), (1.0 - d) * values + d * at_base, values)


def standard_speed(mix_fast: Array, base: NDArray[np.int64]) -> Array:
    """The speed a downgraded request runs at, per tier: its baseline's mix (the standard tier), 1 (plain decoding)
    without a baseline or where the baseline has no mix."""
    if not len(mix_fast):
        return np.ones(0)
    at_base = np.where(base >= 0, mix_fast[np.maximum(base, 0)], 1.0)
    return np.where(np.isfinite(at_base) & (at_base > 0), at_base, 1.0)


def as_served(fast: Array, d: Array, std: Array) -> Array:
    """1 / ((1 - d) / S + d / S_std): time per token adds up over the requests served fast and those downgraded."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(d > 0, 1.0 / ((1.0 - d) / fast + d / std), fast)


def served_interval(low: Array, high: Array, d_lo: Array, d_hi: Array, std: Array) -> tuple[Array, Array]:
    """The as-served interval: the fast mix's ends with the downgraded share's ends, the wider way round (a
    downgrade slows a tier faster than the standard one and speeds up one slower)."""
    corners_lo = [as_served(low, d_lo, std), as_served(low, d_hi, std)]
    corners_hi = [as_served(high, d_lo, std), as_served(high, d_hi, std)]
    with np.errstate(invalid="ignore"):
        return np.fmin(*corners_lo), np.fmax(*corners_hi)


def fast_needed(needed: Array, d: Array, std: Array) -> Array:
    """The mix the requests served fast must reach for the as-served mix to reach ``needed``: (1 - d) /
    (1 / needed - d / S_std); infinite where the downgraded share alone keeps the mix below it."""
    with np.errstate(divide="ignore", invalid="ignore"):
        room = 1.0 / needed - d / std
        return np.where(d > 0, np.where(room > 0, (1.0 - d) / room, np.inf), needed)


def fair_factor(vs_base: Array, ratio_fast: Array, d: Array) -> Array:
    """The factor on the tier's list prices at which its bill over the baseline's equals its speed over it, with a
    share d billed at the baseline's prices anyway: (vs - d) / ((1 - d) r) for the price ratio r of the requests
    served fast; vs / r without a downgrade. None below zero (no price makes it pay)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (vs_base - d) / ((1.0 - d) * ratio_fast)
    return np.where(f >= 0, f, np.nan)


def _or_nan(values: list[float | None]) -> Array:
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def terms_fields(tiers: list[Tier]) -> dict[str, object]:
    """The Comparison's per-tier fields that come from the terms as typed or measured: the downgraded share and its
    interval (NaN: not known), the SLA's sentence and verdict ("" where none is given), where the prices came from."""
    return {"downgraded_share": _or_nan([t.downgraded_share for t in tiers]),
            "downgraded_low": _or_nan([t.downgraded_low for t in tiers]),
            "downgraded_high": _or_nan([t.downgraded_high for t in tiers]),
            "downgraded_requests": np.array([t.downgraded_requests for t in tiers], dtype=np.int64),
            "sla": [sla_text(t) for t in tiers], "sla_verdict": [sla_verdict(t) for t in tiers],
            "price_source": [t.price_source for t in tiers],
            "sla_record": [sla_record(t) for t in tiers]}


def sla_record(tier: Tier) -> dict[str, object] | None:
    """The tier's SLA in `compare --json`, keyed as the probe's `sla` is; None where no SLA is given."""
    if tier.sla_tokens_per_s is None or tier.sla_share is None:
        return None
    interval = ([tier.sla_share_low, tier.sla_share_high]
                if tier.sla_share_low is not None and tier.sla_share_high is not None else None)
    return {"threshold_tokens_per_s": tier.sla_tokens_per_s, "promised_share": tier.sla_share,
            "measured_share": tier.sla_measured_share, "share_interval": interval,
            "requests": tier.sla_requests or None, "verdict": sla_verdict(tier) or None, "text": sla_text(tier)}


def terms_words(cmp: Comparison, i: int) -> list[str]:
    """Tier i's terms in sentences, as `compare`, the window and the brief show them beside its verdicts: the
    downgraded share with the mix and bill as served and on the requests served fast, the SLA, where its prices
    came from (their date shows wherever they are used). Empty for a tier without terms."""
    from model.common import formatting as fmt

    out, terms = [], cmp.terms
    d = float(terms.downgraded_share[i])
    if np.isfinite(d):
        said = downgraded_words(d, finite_or_none(terms.downgraded_low[i]), finite_or_none(terms.downgraded_high[i]),
                                int(terms.downgraded_requests[i]))
        speeds = []
        judged = cmp.judged_on_measured(i)  # its mix is the measured speed (model/comparison/on_measured.py)
        if finite_or_none(cmp.tiers.mix_speedup[i]) is not None:
            speeds.append(f"mix {fmt.times(finite_or_none(cmp.tiers.mix_speedup[i]))} as served "
                          f"({'measured ' if judged else ''}{fmt.times(finite_or_none(terms.mix_speedup_fast[i]))} "
                          "on the requests served fast)")
        measured = finite_or_none(cmp.probed.speedup[i])
        if measured is not None and not judged:  # a probe's speedup over the baseline is on the requests served fast
            served = float(as_served(np.array([measured]), np.array([d]), np.ones(1))[0])
            speeds.append(f"measured {fmt.times(measured)} over the baseline on the requests served fast, "
                          f"{fmt.times(served)} as served")
        monthly, own = (fmt.money(finite_or_none(x[i]), cmp.currency) for x in (cmp.tiers.monthly_cost,
                                                                                 terms.monthly_cost_fast))
        out.append(f"{said}: {', '.join(speeds) + ', ' if speeds else ''}"
                   f"monthly {monthly} with the downgraded ones billed at the standard price ({own} at its own)")
    if terms.sla[i]:
        out.append(terms.sla[i])
    if terms.price_source[i]:
        out.append(f"prices: {terms.price_source[i]}")
    return out

