"""The priced comparison: every (tier, class) and every tier, computed at once as arrays.

``compare`` is here; what it returns (``Comparison`` and its JSON records) is in model/comparison_result.py,
the verdict codes and rules in model/verdicts.py, each tier's c and v in model/tier_costs.py. Their names
are imported here too, so ``from model.comparison import Comparison, VERDICT_NAMES, TierCosts`` keeps working.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from model import arithmetic as ar
from model.acceptance import acceptance_of
from model.acceptance.profiles import AcceptanceGrid
from model.acceptance.propagate import mix_interval, speedup_ends
from model.comparison_result import Comparison
from model.tier_costs import TierCosts
from model.verdicts import (BREAK_EVEN_NAMES, GAIN, MARGINAL, NOT_APPLICABLE, NOT_WORTH, TAX, UNDECIDED, VALUE_NAMES,
                            VERDICT_NAMES, WORTH, cost_ratio, solve_price_alpha, speed_verdicts, value_verdicts)
from model.workbook.rows import Workbook

__all__ = ["BREAK_EVEN_NAMES", "GAIN", "MARGINAL", "NOT_APPLICABLE", "NOT_WORTH", "TAX", "UNDECIDED", "VALUE_NAMES",
           "VERDICT_NAMES", "WORTH", "Comparison", "TierCosts", "compare"]


NO_LENGTH_INTERVAL = "no interval on this mean acceptance length"
# a tree verifies N candidate tokens a step over its depth K: a per-token alpha is a chain's (E(alpha, K) counts
# one candidate a position), and no stated rule turns it into a tree's acceptance, so no number is made from it
TREE_NEEDS_LENGTH = ("a tree draft needs its acceptance as a mean acceptance length or a per-depth profile measured "
                     "on a tree: a per-token alpha describes a chain, and E(alpha, K) would understate a tree by an "
                     "unknown amount")


def baseline_withheld(name: str, why: str) -> str:
    """Why a tier has no value verdict when its baseline's mechanics were made up: "baseline X is incomplete:
    needs c and v"; "" when the baseline is complete."""
    if not why:
        return ""
    return f"baseline {name} is {why}" if why.startswith("incomplete") else f"baseline {name}: {why}"


def compare(wb: Workbook) -> Comparison:
    """The whole comparison for a (validated) workbook."""
    tiers, classes, s = wb.tiers, wb.classes, wb.settings
    n_t, n_c = len(tiers), len(classes)
    spec = np.array([t.speculative != "no" for t in tiers], dtype=bool)
    unconfirmed = np.array([t.speculative == "unknown" for t in tiers], dtype=bool)
    k = np.array([t.k for t in tiers], dtype=np.float64)
    context = np.array([c.context for c in classes], dtype=np.float64)[None, :]
    tokens_out = np.array([c.tokens_out for c in classes], dtype=np.float64)
    tokens_in = np.array([c.tokens_in for c in classes], dtype=np.float64)

    alpha = np.tile(np.array([c.alpha for c in classes], dtype=np.float64), (n_t, 1))
    # read once per class and once per override, then laid out per tier: per cell, acceptance_of and its
    # interval's three lists cost 100 x 30 an edit 7 ms of the window's 16 ms frame
    class_acc = [acceptance_of(c, s.confidence) for c in classes]
    class_source = [c.alpha_source for c in classes]
    class_note = [a.note for a in class_acc]
    source = [list(class_source) for _ in tiers]
    notes = [list(class_note) for _ in tiers]
    a_lo, a_hi, a_conf = (np.tile(np.array([getattr(a, end) if a.has_interval else np.nan for a in class_acc],
                                           dtype=np.float64), (n_t, 1)).reshape(n_t, n_c)
                          for end in ("low", "high", "confidence"))
    t_index = {t.name: i for i, t in enumerate(tiers)}
    c_index = {c.name: j for j, c in enumerate(classes)}
    cells: dict[tuple[int, int], Any] = {}
    for o in wb.overrides:
        i, j = t_index.get(o.tier), c_index.get(o.task_class)
        if i is not None and j is not None:
            cells[i, j] = o
            alpha[i, j] = o.alpha
            source[i][j] = f"{o.alpha_source} (tier override)"
            a = acceptance_of(o, s.confidence)  # the override's own interval, or none: not the class's
            notes[i][j] = a.note
            a_lo[i, j], a_hi[i, j], a_conf[i, j] = ((a.low, a.high, a.confidence) if a.has_interval
                                                     else (np.nan, np.nan, np.nan))
    grid = AcceptanceGrid.of(classes, cells, n_t)

    costs = TierCosts(tiers)
    kk = k[:, None]
    c = np.array(costs.c(context), dtype=np.float64).reshape(n_t, n_c) if n_t and n_c else np.zeros((n_t, n_c))
    v = np.array(costs.v(kk, context), dtype=np.float64).reshape(n_t, n_c) if n_t and n_c else np.zeros((n_t, n_c))
    be = ar.break_even(kk, c, v)
    e, extrapolated = grid.tokens(alpha, kk)  # a profile's or a length's E where a cell has one
    # a tree draft given a per-token alpha: refused (TREE_NEEDS_LENGTH), no number made up for it
    refused = spec[:, None] & np.array([t.tree_size is not None for t in tiers], dtype=bool)[:, None] & grid.is_alpha
    any_refused = bool(refused.any())
    if any_refused:
        e = np.where(refused, np.nan, e)
        a_lo, a_hi, a_conf = (np.where(refused, np.nan, x) for x in (a_lo, a_hi, a_conf))
        for i, j in zip(*np.nonzero(refused)):
            notes[i][j] = TREE_NEEDS_LENGTH
    # a profile's or a length's own interval on E, carried to the tier's K (NaN where a cell has none)
    e_lo, e_hi = grid.tokens_interval(e, kk)
    has_e = np.isfinite(e_lo) & np.isfinite(e_hi)
    if grid.any_beyond_alpha:
        # an interval on alpha says nothing of a profile or a length: theirs is on E, at its own confidence
        a_lo, a_hi = (np.where(grid.is_alpha, x, np.nan) for x in (a_lo, a_hi))
        e_conf = np.where(np.isfinite(grid.length_confidence), grid.length_confidence, s.confidence)
        a_conf = np.where(grid.is_alpha, a_conf, np.where(has_e, e_conf, np.nan))
        # why such a cell has no interval: its own on E, or none (an interval on alpha beside it does not count)
        # (plain lists: numpy scalars per cell cost 2.6 ms at 100 x 30 with every cell a profile, lists 0.6 ms)
        has_e_rows = has_e.tolist()
        for i, beyond_row in enumerate((grid.kind != 0).tolist()):
            row, has_row = notes[i], has_e_rows[i]
            for j, beyond in enumerate(beyond_row):
                if beyond:
                    row[j] = "" if has_row[j] else (row[j] or NO_LENGTH_INTERVAL)
    sp = e / ar.stretch_cost(kk, c, v)
    # search at least up to the tier's own K, so "optimal K" is never worse than it
    k_top = max(s.k_max, int(k.max()) if n_t else 1)
    ks = np.arange(1, k_top + 1, dtype=np.float64)[:, None, None]
    e_all, x_all = grid.tokens(alpha[None], ks)
    s_all = e_all / ar.stretch_cost(ks, c[None], costs.v(ks, context[None]) if n_t else v[None])
    # each tier searches 1..max(K max, its own K): another tier's larger K is no option for this one
    allowed = ks <= np.maximum(s.k_max, k)[None, :, None]
    if any_refused:
        s_all = np.where(refused[None], np.nan, s_all)
        allowed = allowed & ~refused[None]
    best = (np.argmax(np.where(allowed, s_all, -np.inf), axis=0) if s.k_max and n_t and n_c
            else np.zeros((n_t, n_c), dtype=np.int64))
    opt_k = best + 1
    opt_s = np.take_along_axis(s_all, best[None], axis=0)[0] if n_t and n_c else np.zeros((n_t, n_c))
    opt_x = np.take_along_axis(x_all, best[None], axis=0)[0] if n_t and n_c else np.zeros((n_t, n_c), dtype=bool)
    cf = (kk * costs.c_flops + kk + 1.0) / e  # arithmetic.flops_factor over this E

    sp_row = spec[:, None]
    nan = np.full((n_t, n_c), np.nan)
    speedup = np.where(sp_row, sp, 1.0)
    # alpha* is the i.i.d. translation of E* = K c + v: it does not apply to a profile or a length
    be_alpha = np.where(sp_row & grid.is_alpha & ~refused, be.alpha, np.nan)
    be_kind = np.where(sp_row, be.kind, -1).astype(np.int8)
    # margin: how far above (or below) the break-even this class runs; a never-paying
    # setting has no break-even, so no margin either
    margin = np.where(sp_row & (be.kind != ar.NEVER) & grid.is_alpha & ~refused, alpha - be.alpha, np.nan)
    stretch = ar.stretch_cost(kk, c, v)
    s_lo, s_hi = speedup_ends(a_lo, a_hi, kk, stretch)
    if has_e.any():
        s_lo, s_hi = np.where(has_e, e_lo / stretch, s_lo), np.where(has_e, e_hi / stretch, s_hi)
    tokens_lo, tokens_hi = (np.where(has_e, e_x, ar.expected_tokens(a_x, kk)) for e_x, a_x in ((e_lo, a_lo), (e_hi, a_hi)))
    s_lo, s_hi = np.where(sp_row, s_lo, np.nan), np.where(sp_row, s_hi, np.nan)
    verdict = speed_verdicts(speedup, np.broadcast_to(sp_row, (n_t, n_c)), s.marginal_band, s_lo, s_hi)

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
    monthly = (tokens_out[None, :] * np.array([t.price_out for t in tiers])[:, None]
               + tokens_in[None, :] * np.array([t.price_in for t in tiers])[:, None]).sum(axis=1) / 1e6
    base = np.array([t_index.get(t.baseline, -1) if t.baseline else -1 for t in tiers], dtype=np.int64)
    has_base = base >= 0
    # a tier priced against a made-up baseline has no speed over it to judge: no value verdicts, per class either
    baseline_incomplete = [baseline_withheld(tiers[b].name, incomplete[b]) if b >= 0 and not incomplete[i] else ""
                           for i, b in enumerate(base.tolist())]
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
    no_tokens = (tokens_out + tokens_in) == 0
    class_cost = np.where(no_tokens[None, :], price_out[:, None],
                          tokens_out[None, :] * price_out[:, None] + tokens_in[None, :] * price_in[:, None])
    ratio = np.where(has_base[:, None], cost_ratio(class_cost, class_cost[b0]), np.nan)
    base_speed = speedup[b0]
    # a cell (or its baseline's) with no speedup has no value verdict either (a refused tree cell)
    pair_ok = (sp_row & (has_base & ~base_made_up)[:, None] & ~np.isnan(ratio) & ~np.isnan(speedup)
               & ~np.isnan(base_speed))
    needed = ratio * base_speed
    p_alpha, p_kind = solve_price_alpha(needed, np.broadcast_to(kk, (n_t, n_c)), stretch, pair_ok)
    p_alpha = np.where(grid.is_alpha, p_alpha, np.nan)
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
    mix_ratio = np.where(has_base, cost_ratio(price_out, price_out[b0]) if all_empty else cost_ratio(monthly, monthly[b0]), np.nan)
    mix_needed = mix_ratio * mix[b0]
    mean_stretch = (stretch * weights[None, :]).sum(axis=1) / weights.sum() if n_c else np.full(n_t, np.nan)
    tier_ok = spec & has_base & ~np.isnan(mix_ratio) & ~np.isnan(mix) & ~np.isnan(mix_needed)
    mix_p_alpha, mix_p_kind = solve_price_alpha(mix_needed, k, np.nan_to_num(mean_stretch, nan=1.0), tier_ok)
    eff = ar.solve_alpha_for_tokens(np.nan_to_num(mix * mean_stretch, nan=1.0), k)
    eff_alpha = np.where(spec & ~np.isnan(mix), np.where(eff.kind == ar.NEVER, 1.0, eff.alpha), np.nan)
    tier_value = value_verdicts(mix, mix_needed, tier_ok, mix_lo, mix_hi)
    # the uniform acceptance the interval's ends run like (where the mix has an interval)
    ends = [ar.solve_alpha_for_tokens(np.nan_to_num(m * mean_stretch, nan=1.0), k) for m in (mix_lo, mix_hi)]
    eff_lo, eff_hi = (np.where(spec & np.isfinite(m), np.where(e.kind == ar.NEVER, 1.0, e.alpha), np.nan)
                      for m, e in zip((mix_lo, mix_hi), ends))
    # the fair price: speed over the baseline / price ratio scales both list prices (DESIGN.md section 7)
    with np.errstate(divide="ignore", invalid="ignore"):
        fair = np.where(tier_ok, vs_base / mix_ratio, np.nan)
        fair_lo = np.where(tier_ok, vs_base_lo / mix_ratio, np.nan)
        # a free tier priced against a paid baseline has an infinite factor: times a zero price, no price
        fair_in, fair_out = fair * price_in, fair * price_out
        fair_in_lo, fair_out_lo = fair_lo * price_in, fair_lo * price_out

    claimed = np.array([np.nan if t.claimed_speedup is None else t.claimed_speedup for t in tiers], dtype=np.float64)
    claim_ctx = np.array([t.claim_context for t in tiers], dtype=np.float64)
    c_claim = np.asarray(costs.c(claim_ctx[:, None]), dtype=np.float64).reshape(n_t)
    v_claim = np.asarray(costs.v(kk, claim_ctx[:, None]), dtype=np.float64).reshape(n_t)
    claim = ar.implied_alpha(np.nan_to_num(claimed, nan=1.0), k, c_claim, v_claim)
    has_claim = ~np.isnan(claimed) & spec
    claim_alpha = np.where(has_claim & ~made_up, claim.alpha, np.nan)  # made-up c and v imply no alpha either
    holds = [bool(mix[i] >= claimed[i] * (1.0 - s.claim_tolerance)) if has_claim[i] and not np.isnan(mix[i]) else None
             for i in range(n_t)]

    # a made-up tier's cells get no verdicts either (its mix, and so its tier's, is withheld above)
    if made_up.any():
        verdict = np.where(made_up[:, None], NOT_APPLICABLE, verdict).astype(np.int8)
        value = np.where(made_up[:, None], NOT_APPLICABLE, value).astype(np.int8)
        mix_cf = np.where(made_up, np.nan, mix_cf)  # K and c_flops are among what was made up

    return Comparison(
        tier_names=[t.name for t in tiers], class_names=[c.name for c in classes], currency=s.currency,
        speculative=spec, unconfirmed=unconfirmed, k=k, alpha=alpha, alpha_source=source,
        c=np.where(sp_row, c, nan), v=np.where(sp_row, v, nan),
        break_even_alpha=be_alpha, break_even_kind=be_kind, margin=margin,
        tokens_per_stretch=np.where(sp_row, e, 1.0), trailer_fill=np.where(sp_row, e - 1.0, np.nan) / kk,
        speedup=speedup, optimal_k=opt_k, optimal_speedup=np.where(sp_row, opt_s, 1.0),
        cost_factor=np.where(sp_row, cf, 1.0), verdict=verdict,
        mix_speedup=mix, monthly_cost=monthly, baseline_index=base, premium=premium,
        speedup_vs_baseline=vs_base, price_per_speedup=per_speed, mix_cost_factor=mix_cf,
        claimed_speedup=claimed, claim_context=claim_ctx, claim_alpha=claim_alpha,
        claim_kind=claim.kind, claim_holds=holds,
        tier_verdict=speed_verdicts(mix, spec & ~made_up, s.marginal_band, mix_lo, mix_hi),
        price_ratio=ratio, price_break_even_alpha=p_alpha, price_break_even_kind=p_kind, value_verdict=value,
        mix_price_ratio=mix_ratio, mix_price_break_even_alpha=mix_p_alpha, mix_price_break_even_kind=mix_p_kind,
        effective_alpha=eff_alpha, tier_value_verdict=tier_value,
        confidence=s.confidence, alpha_low=np.where(sp_row, a_lo, np.nan), alpha_high=np.where(sp_row, a_hi, np.nan),
        alpha_confidence=np.where(sp_row, a_conf, np.nan),
        alpha_note=[row if spec[i] else [""] * n_c for i, row in enumerate(notes)],
        tokens_per_stretch_low=np.where(sp_row, tokens_lo, np.nan), tokens_per_stretch_high=np.where(sp_row, tokens_hi, np.nan),
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
        acceptance=grid, extrapolated=np.where(sp_row, extrapolated, False),
        optimal_k_extrapolated=np.where(sp_row, opt_x, False),
        break_even_length=np.where(sp_row, stretch, np.nan),
        price_break_even_length=np.where(pair_ok, needed * stretch, np.nan),
    )
