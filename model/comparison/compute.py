"""The priced comparison: every (tier, class) and every tier, computed at once as arrays.

``compare`` is here; what it returns (``Comparison`` and its JSON records) is in model/comparison/result.py,
the verdict codes and rules in model/comparison/verdicts.py, each tier's c and v in model/mechanics/tier_costs.py.
Outside this package, import them from the front door, ``model.comparison``.
"""
from __future__ import annotations

import numpy as np

from model.mechanics import arithmetic as ar
from model.acceptance.propagate import mix_interval
from model.comparison.cells import PairCache, acceptance_grid, pair_block, profile_width, search_top
from model.comparison.result import Comparison
from model.mechanics.solves import SolveBatch
from model.comparison.guarantee import guarantee_lengths, length_unit
from model.mechanics.tier_costs import TierCosts
from model.comparison.verdicts import (NOT_APPLICABLE, cost_ratio, on_cells, price_targets, speed_verdicts,
                                       value_verdicts)
from model.comparison.quality import quality_fields
from model.comparison.terms import (as_served, billed, downgraded, fair_factor, fast_needed, priced_cells,
                                      served_interval, standard_speed, terms_fields)
from model.workbook.rows import Workbook


def baseline_withheld(name: str, why: str) -> str:
    """Why a tier has no value verdict when its baseline's mechanics were made up: "baseline X is incomplete:
    needs c and v"; "" when the baseline is complete."""
    if not why:
        return ""
    return f"baseline {name} is {why}" if why.startswith("incomplete") else f"baseline {name}: {why}"


def _value_withheld(tiers: list, i: int, b: int, incomplete: list[str]) -> str:
    """Why tier i, priced against tier b, has no value verdict although its own speed stands: the baseline's
    made-up mechanics, or a price nobody gave (its own or the baseline's); "" when nothing is withheld."""
    if b < 0 or incomplete[i]:
        return ""
    if incomplete[b]:
        return baseline_withheld(tiers[b].name, incomplete[b])
    if tiers[i].missing_prices():
        return f"its {tiers[i].missing_prices()}"
    return f"baseline {tiers[b].name}: {tiers[b].missing_prices()}" if tiers[b].missing_prices() else ""


def compare(wb: Workbook, cache: PairCache | None = None) -> Comparison:
    """The whole comparison for a (validated) workbook.

    With ``cache`` (one per open workbook: gui/document.py), the per-(tier, class) cells of the rows and columns
    an edit left as they were are taken from the last comparison made with it (model/comparison/cells.py); the
    result is the same to the last bit.
    """
    tiers, classes, s = wb.tiers, wb.classes, wb.settings
    n_t, n_c = len(tiers), len(classes)
    spec = np.array([t.speculative != "no" for t in tiers], dtype=bool)
    unconfirmed = np.array([t.speculative == "unknown" for t in tiers], dtype=bool)
    k = np.array([t.k for t in tiers], dtype=np.float64)
    context = np.array([c.context for c in classes], dtype=np.float64)[None, :]
    tokens_out = np.array([c.tokens_out for c in classes], dtype=np.float64)
    tokens_in = np.array([c.tokens_in for c in classes], dtype=np.float64)

    k_top, width = search_top(tiers, s), profile_width(classes, wb.overrides)
    costs = cache.costs(tiers) if cache is not None else TierCosts(tiers)
    pairs = (cache.pairs(tiers, classes, wb.overrides, s, k_top, width, costs) if cache is not None
             else pair_block(tiers, classes, wb.overrides, s, k_top, width, costs))
    p, notes, source = pairs.arrays, pairs.lists["notes"], pairs.lists["source"]
    alpha, speedup, s_lo, s_hi, a_conf, stretch, cf = (p[x] for x in ("alpha", "speedup", "s_lo", "s_hi", "a_conf",
                                                                      "stretch", "cf"))
    verdict, e, refused = p["verdict"], p["e"], p["refused"]
    kk = k[:, None]
    sp_row = spec[:, None]
    nan = np.full((n_t, n_c), np.nan)
    t_index = {t.name: i for i, t in enumerate(tiers)}
    grid = cache.grid(tiers, classes, wb.overrides) if cache is not None else acceptance_grid(tiers, classes, wb.overrides)

    weights = tokens_out if tokens_out.sum() > 0 else np.ones(n_c)
    mix = ar.blend_speedup(speedup, weights[None, :]) if n_c else np.full(n_t, np.nan)
    mix_lo, mix_hi = (mix_interval(speedup, s_lo, s_hi, weights[None, :], a_conf, s.confidence) if n_c
                      else (np.full(n_t, np.nan), np.full(n_t, np.nan)))
    # a tier whose mechanics an import made up (Tier.defaulted) has no mix from them: nor, through it, its
    # interval, speed over the baseline, cost per 1x, claim, verdicts or price (the one rule; the report reads it)
    incomplete = [t.missing_mechanics() for t in tiers]
    made_up = np.array([bool(w) for w in incomplete], dtype=bool)
    if made_up.any():
        mix, mix_lo, mix_hi = (np.where(made_up, np.nan, x) for x in (mix, mix_lo, mix_hi))
    base = np.array([t_index.get(t.baseline, -1) if t.baseline else -1 for t in tiers], dtype=np.int64)
    has_base = base >= 0
    # a vendor's terms (docs/design/vendor-terms.md): the traffic priced by band and cache, and a share d of fast
    # requests served at the standard tier's speed and billed at its prices. The mix, its interval and the bill
    # are the as-served ones from here on; the mix on requests served fast is kept for the acceptance solves
    no_tokens = (tokens_out + tokens_in) == 0
    class_cost = priced_cells(tiers, classes)
    monthly_fast = np.where(no_tokens[None, :], 0.0, class_cost).sum(axis=1) / 1e6
    d, d_lo, d_hi = downgraded(tiers)
    monthly = billed(monthly_fast, base, d)
    mix_fast, mix_fast_lo, mix_fast_hi = mix, mix_lo, mix_hi
    std = standard_speed(mix_fast, base)
    mix = as_served(mix_fast, d, std)
    mix_lo, mix_hi = served_interval(mix_fast_lo, mix_fast_hi, d_lo, d_hi, std)
    # a tier priced against a made-up baseline has no speed over it to judge: no value verdicts, per class either
    baseline_incomplete = [_value_withheld(tiers, i, b, incomplete) for i, b in enumerate(base.tolist())]
    base_made_up = np.array([bool(w) for w in baseline_incomplete], dtype=bool)
    base_cost = np.where(has_base, monthly[np.maximum(base, 0)] if n_t else 0.0, np.nan)
    base_mix = np.where(has_base, mix[np.maximum(base, 0)] if n_t else 0.0, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        premium = np.where(has_base & (base_cost > 0), monthly / base_cost - 1.0, np.nan)
        vs_base = np.where(has_base, mix / base_mix, np.nan)
        # the baseline is held at its own value while the tier's acceptance moves (as in the value verdict)
        vs_base_lo, vs_base_hi = np.where(has_base, mix_lo / base_mix, np.nan), np.where(has_base, mix_hi / base_mix, np.nan)
        per_speed = monthly / mix
        mix_cf = np.where(spec, (np.where(sp_row, cf, 1.0) * weights).sum(axis=1) / weights.sum(), 1.0) if n_c else np.full(n_t, np.nan)

    # the value verdict. Price ratio per class: that class's traffic (input and output) priced on the
    # tier over the same traffic on its baseline; a class with no tokens entered is priced per output
    # token, which is what the speed buys. Worth the premium where speedup over the baseline >= price
    # ratio, i.e. the price per 1x of speed is no higher than the baseline's. The baseline's own speedup
    # (1 unless it is speculative too) is held at its value while the tier's acceptance moves.
    price_out = np.array([t.price_out for t in tiers], dtype=np.float64)
    price_in = np.array([t.price_in for t in tiers], dtype=np.float64)
    b0 = np.maximum(base, 0)
    ratio = np.where(has_base[:, None], cost_ratio(class_cost, class_cost[b0]), np.nan)
    base_speed = speedup[b0]
    # a cell (or its baseline's) with no speedup has no value verdict either (a refused tree cell)
    pair_ok = (sp_row & (has_base & ~base_made_up & ~made_up)[:, None] & ~np.isnan(ratio) & ~np.isnan(speedup)
               & ~np.isnan(base_speed))
    needed = ratio * base_speed
    # every solve of the tier-level numbers is gathered and run as one call (model/mechanics/solves.py)
    solves = SolveBatch(cache.solves if cache is not None else None)
    price_solve = solves.add(*price_targets(needed, kk, stretch, pair_ok))
    value = value_verdicts(speedup, needed, pair_ok, s_lo, s_hi)
    with np.errstate(divide="ignore", invalid="ignore"):
        pair_base = np.where(has_base[:, None], base_speed, np.nan)
        pair_vs, pair_vs_lo, pair_vs_hi = speedup / pair_base, s_lo / pair_base, s_hi / pair_base

    # the mix: monthly cost over the baseline's; with no tokens at all, the output price as per class.
    # One alpha cannot describe a workload whose classes differ, so the mix's break-even is the uniform
    # acceptance that would do it: with every class at one alpha the mix speedup is E(alpha) / (the
    # token-weighted mean stretch cost), so the same solver applies. effective_alpha is the uniform
    # acceptance giving the mix speedup the workload has now: worth it where it clears the break-even.
    all_empty = bool(no_tokens.all()) if n_c else False
    # the price of the tier's traffic (per output token, the classes alike, when no tokens are entered), on the
    # requests served fast and as billed with the downgraded share at the baseline's prices
    unit_fast = class_cost.mean(axis=1) if all_empty else monthly_fast
    unit = billed(unit_fast, base, d)
    mix_ratio = np.where(has_base, cost_ratio(unit, unit[b0]), np.nan)
    mix_needed = mix_ratio * mix[b0]
    # the mix the requests served fast must reach for the as-served mix to pay the price: what acceptance solves for
    needed_fast = fast_needed(mix_needed, d, std)
    mean_stretch = (stretch * weights[None, :]).sum(axis=1) / weights.sum() if n_c else np.full(n_t, np.nan)
    tier_ok = spec & has_base & ~base_made_up & ~np.isnan(mix_ratio) & ~np.isnan(mix) & ~np.isnan(mix_needed)
    mix_price_solve = solves.add(*price_targets(needed_fast, k, np.nan_to_num(mean_stretch, nan=1.0), tier_ok))
    # the uniform acceptance the mix runs like, and the interval's ends (where the mix has an interval)
    eff_solves = [solves.add(np.nan_to_num(m * mean_stretch, nan=1.0), k) for m in (mix_fast, mix_fast_lo, mix_fast_hi)]
    tier_value = value_verdicts(mix, mix_needed, tier_ok, mix_lo, mix_hi)
    # the fair price: speed over the baseline / price ratio scales both list prices
    # (docs/design/verdicts.md#the-fair-price)
    ratio_fast = np.where(has_base, cost_ratio(unit_fast, unit[b0]), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        fair = np.where(tier_ok, fair_factor(vs_base, ratio_fast, d), np.nan)
        fair_lo = np.where(tier_ok, fair_factor(vs_base_lo, ratio_fast, d), np.nan)
        # a free tier priced against a paid baseline has an infinite factor: times a zero price, no price
        fair_in, fair_out = fair * price_in, fair * price_out
        fair_in_lo, fair_out_lo = fair_lo * price_in, fair_lo * price_out

    claimed = np.array([np.nan if t.claimed_speedup is None else t.claimed_speedup for t in tiers], dtype=np.float64)
    claim_ctx = np.array([t.claim_context for t in tiers], dtype=np.float64)
    c_claim = np.asarray(costs.c(claim_ctx[:, None]), dtype=np.float64).reshape(n_t)
    v_claim = np.asarray(costs.v(kk, claim_ctx[:, None]), dtype=np.float64).reshape(n_t)
    claim_solve = solves.add(np.nan_to_num(claimed, nan=1.0) * ar.stretch_cost(k, c_claim, v_claim), k)  # implied_alpha
    solves.run()
    p_alpha, p_kind = on_cells(pair_ok, solves[price_solve])
    p_alpha = np.where(p["is_alpha"], p_alpha, np.nan)
    mix_p_alpha, mix_p_kind = on_cells(tier_ok, solves[mix_price_solve])
    eff_alpha, eff_lo, eff_hi = (np.where(spec & has, np.where(e.kind == ar.NEVER, 1.0, e.alpha), np.nan)
                                 for has, e in zip((~np.isnan(mix_fast), np.isfinite(mix_fast_lo), np.isfinite(mix_fast_hi)),
                                                   (solves[x] for x in eff_solves)))
    claim = solves[claim_solve]
    has_claim = ~np.isnan(claimed) & spec
    claim_alpha = np.where(has_claim & ~made_up, claim.alpha, np.nan)  # made-up c and v imply no alpha either
    # the vendor's claim is about its fast mode: judged on the requests served fast
    holds = [bool(mix_fast[i] >= claimed[i] * (1.0 - s.claim_tolerance)) if has_claim[i] and not np.isnan(mix_fast[i])
             else None for i in range(n_t)]

    # a made-up tier's cells get no verdicts either (its mix, and so its tier's, is withheld above), and no
    # number modelled from the made-up mechanics: speedup, its interval, E, fill, best K, break-evens
    if made_up.any():
        verdict = np.where(made_up[:, None], NOT_APPLICABLE, verdict).astype(np.int8)
        value = np.where(made_up[:, None], NOT_APPLICABLE, value).astype(np.int8)
        mix_cf = np.where(made_up, np.nan, mix_cf)  # K and c_flops are among what was made up
        p, e, speedup, s_lo, s_hi, cf, stretch = _withhold_cells(made_up, p, e, speedup, s_lo, s_hi, cf, stretch)

    return Comparison(
        tier_names=[t.name for t in tiers], class_names=[c.name for c in classes], currency=s.currency,
        speculative=spec, unconfirmed=unconfirmed, k=k, alpha=alpha, alpha_source=source,
        c=np.where(sp_row, p["c"], nan), v=np.where(sp_row, p["v"], nan),
        break_even_alpha=p["be_alpha"], break_even_kind=p["be_kind"], margin=p["margin"],
        tokens_per_stretch=np.where(sp_row, e, 1.0), trailer_fill=np.where(sp_row, e - 1.0, np.nan) / kk,
        speedup=speedup, optimal_k=p["opt_k"], optimal_speedup=np.where(sp_row, p["opt_s"], 1.0),
        cost_factor=np.where(sp_row, cf, 1.0), verdict=verdict,
        mix_speedup=mix, monthly_cost=monthly, baseline_index=base, premium=premium,
        speedup_vs_baseline=vs_base, price_per_speedup=per_speed, mix_cost_factor=mix_cf,
        claimed_speedup=claimed, claim_context=claim_ctx, claim_alpha=claim_alpha,
        claim_kind=claim.kind, claim_holds=holds,
        tier_verdict=speed_verdicts(mix, spec & ~made_up, s.marginal_band, mix_lo, mix_hi),
        price_ratio=ratio, price_break_even_alpha=p_alpha, price_break_even_kind=p_kind, value_verdict=value,
        mix_price_ratio=mix_ratio, mix_price_break_even_alpha=mix_p_alpha, mix_price_break_even_kind=mix_p_kind,
        effective_alpha=eff_alpha, tier_value_verdict=tier_value,
        confidence=s.confidence, alpha_low=np.where(sp_row, p["a_lo"], np.nan), alpha_high=np.where(sp_row, p["a_hi"], np.nan),
        alpha_confidence=np.where(sp_row, a_conf, np.nan),
        alpha_note=[row if spec[i] else [""] * n_c for i, row in enumerate(notes)],
        tokens_per_stretch_low=np.where(sp_row, p["tokens_lo"], np.nan),
        tokens_per_stretch_high=np.where(sp_row, p["tokens_hi"], np.nan),
        refused=refused,
        speedup_low=s_lo, speedup_high=s_hi,
        pair_vs_baseline=np.where(pair_ok, pair_vs, np.nan), pair_vs_baseline_low=np.where(pair_ok, pair_vs_lo, np.nan),
        pair_vs_baseline_high=np.where(pair_ok, pair_vs_hi, np.nan),
        mix_speedup_low=mix_lo, mix_speedup_high=mix_hi, speedup_vs_baseline_low=vs_base_lo,
        speedup_vs_baseline_high=vs_base_hi, effective_alpha_low=eff_lo, effective_alpha_high=eff_hi,
        fair_price_factor=fair, fair_price_factor_low=fair_lo, fair_price_in=fair_in, fair_price_out=fair_out,
        fair_price_in_low=fair_in_lo, fair_price_out_low=fair_out_lo,
        equal_weights=bool(n_c) and not tokens_out.sum() > 0,
        measured_speedup=np.array([np.nan if t.measured_speedup is None else t.measured_speedup for t in tiers],
                                  dtype=np.float64),
        measured_note=[t.measured_note for t in tiers],
        concurrency=np.array([t.concurrency for t in tiers], dtype=np.int64),
        measured_by_concurrency=[t.measured_by_concurrency for t in tiers],
        incomplete=incomplete, baseline_incomplete=baseline_incomplete,
        acceptance=grid, extrapolated=np.where(sp_row, p["extrapolated"], False),
        optimal_k_extrapolated=np.where(sp_row, p["opt_x"], False),
        break_even_length=np.where(sp_row, stretch, np.nan),
        price_break_even_length=np.where(pair_ok, needed * stretch, np.nan),
        # the acceptance to guarantee in tokens per verify step (model/comparison/guarantee.py derives it)
        **guarantee_lengths(needed_fast, mix_fast, mix_fast_lo, mix_fast_hi, mean_stretch, tier_ok,
                            length_unit(grid.kind, refused)),
        class_cost=class_cost, mix_speedup_fast=mix_fast, monthly_cost_fast=monthly_fast,
        mix_speedup_fast_low=mix_fast_lo, mix_speedup_fast_high=mix_fast_hi, price_unit_fast=unit_fast, price_unit=unit,
        **terms_fields(tiers),
        **quality_fields(tiers),
    )


# a cell's acceptance and its interval are the class's (or the override's), given whatever the tier's mechanics
_GIVEN_CELLS = ("alpha", "a_lo", "a_hi", "a_conf")


def _withhold_cells(made_up: np.ndarray, p: dict, *cells: np.ndarray) -> tuple:
    """NaN in the made-up tiers' rows of every modelled cell number (`p`'s float arrays and `cells`); the
    break-even kinds become "none" (-1) so no text reads a solve of made-up numbers."""
    rows = made_up[:, None]
    out = {}
    for key, arr in p.items():
        if key in _GIVEN_CELLS or arr.ndim != 2:
            out[key] = arr
        elif key == "opt_k":
            out[key] = np.where(rows, 0, arr)
        elif key.endswith("_kind"):
            out[key] = np.where(rows, -1, arr).astype(arr.dtype)
        elif arr.dtype.kind == "f":
            out[key] = np.where(rows, np.nan, arr)
        else:
            out[key] = arr
    return (out, *(np.where(rows, np.nan, c) for c in cells))
