"""The priced comparison: every (tier, class) and every tier, computed at once as arrays.

``compare`` is here, its steps (the workload, the mix, the terms as served, the baseline, the value verdicts, the
claim) in model/comparison/steps.py; what it returns (``Comparison`` and its JSON records) is in
model/comparison/result.py, the verdict codes and rules in model/comparison/verdicts.py, each tier's c and v in
model/mechanics/tier_costs.py. Outside this package, import them from the front door, ``model.comparison``.
"""
from __future__ import annotations

import numpy as np

from model.mechanics import arithmetic as ar
from model.acceptance.profiles import AcceptanceGrid
from model.comparison.cells import Pairs, PairCache, acceptance_grid, pair_block, profile_width, search_top
from model.comparison.result import (CellResult, ClaimResult, Comparison, FairPrice, ProbedResult, TermsResult,
                                     TierResult)
from model.mechanics.solves import SolveBatch
from model.comparison.guarantee import guarantee_lengths, length_unit
from model.mechanics.tier_costs import TierCosts
from model.comparison.verdicts import NOT_APPLICABLE, on_cells, speed_verdicts
from model.comparison.quality import quality_fields
from model.comparison.terms import terms_fields
from model.workbook.rows import Workbook
from model.comparison.steps import Baseline, Claim, ClassValue, Mix, Served, TierValue, Workload


def compare(wb: Workbook, cache: PairCache | None = None) -> Comparison:
    """The whole comparison for a (validated) workbook.

    With ``cache`` (one per open workbook: gui/document.py), the per-(tier, class) cells of the rows and columns
    an edit left as they were are taken from the last comparison made with it (model/comparison/cells.py); the
    result is the same to the last bit.

    The steps, in order: the workbook's numbers as arrays; the cells (every (tier, class)); each tier's mix of its
    classes; the mix and the bill as served under the vendor's terms; the baseline, premium and speed over it; the
    value verdict per class, then per tier; the claim. Every solve of E(alpha, K) = target they need is gathered in
    one batch and run once, before the result is put together.
    """
    w = Workload.of(wb)
    costs = cache.costs(wb.tiers) if cache is not None else TierCosts(wb.tiers)
    cells = _cells(wb, cache, costs)
    grid = (cache.grid(wb.tiers, wb.classes, wb.overrides) if cache is not None
            else acceptance_grid(wb.tiers, wb.classes, wb.overrides))
    fast = Mix.of(wb, w, cells)
    served = Served.of(wb, w, fast, cache)
    base = Baseline.of(wb, w, fast, served, cells)
    solves = SolveBatch(cache.solves if cache is not None else None)
    value = ClassValue.of(w, cells, fast, served, base, solves)
    tier_value = TierValue.of(w, cells, fast, served, base, solves)
    claim = Claim.of(wb.tiers, w, costs, solves, cache)
    solves.run()
    return _result(wb, w, cells, grid, fast, served, base, value, tier_value, claim, solves)


def _cells(wb: Workbook, cache: PairCache | None, costs: TierCosts) -> Pairs:
    """Every (tier, class) cell's numbers (model/comparison/cells.py), from the cache where the edit left them."""
    tiers, classes, s = wb.tiers, wb.classes, wb.settings
    k_top, width = search_top(tiers, s), profile_width(classes, wb.overrides)
    return (cache.pairs(tiers, classes, wb.overrides, s, k_top, width, costs) if cache is not None
            else pair_block(tiers, classes, wb.overrides, s, k_top, width, costs))


def _result(wb: Workbook, w: Workload, cells: Pairs, grid: AcceptanceGrid, fast: Mix, served: Served,
            base: Baseline, value: ClassValue, tier_value: TierValue, claim: Claim,
            solves: SolveBatch) -> Comparison:
    """The Comparison from the steps' arrays and the batch's solves, once it has run: each group of the result
    (model/comparison/result.py) from the steps that make it."""
    tiers, classes, s = wb.tiers, wb.classes, wb.settings
    return Comparison(
        tier_names=[t.name for t in tiers], class_names=[c.name for c in classes], currency=s.currency,
        confidence=s.confidence, equal_weights=bool(w.n_c) and not w.tokens_out.sum() > 0,
        cells=_cell_result(w, cells, grid, fast, served, value, solves),
        tiers=_tier_result(wb, w, cells, grid, fast, served, base, tier_value, solves),
        fair=FairPrice(tier_value.fair, tier_value.fair_low, tier_value.fair_in, tier_value.fair_out,
                       tier_value.fair_in_low, tier_value.fair_out_low),
        claims=_claim_result(w, fast, claim, solves, s.claim_tolerance),
        terms=TermsResult(**terms_fields(tiers), mix_speedup_fast=fast.speedup, mix_speedup_fast_low=fast.low,
                          mix_speedup_fast_high=fast.high, monthly_cost_fast=served.monthly_fast,
                          price_unit_fast=tier_value.unit_fast, price_unit=tier_value.unit),
        probed=ProbedResult(
            speedup=np.array([np.nan if t.measured_speedup is None else t.measured_speedup for t in tiers],
                             dtype=np.float64),
            note=[t.measured_note for t in tiers], concurrency=np.array([t.concurrency for t in tiers], dtype=np.int64),
            by_concurrency=[t.measured_by_concurrency for t in tiers], **quality_fields(tiers)),
    )


def _cell_result(w: Workload, cells: Pairs, grid: AcceptanceGrid, fast: Mix, served: Served, value: ClassValue,
                 solves: SolveBatch) -> CellResult:
    """Every (tier, class): the cells' numbers (a non-speculative tier's row as plain decoding), the value
    verdict's, and nothing modelled from a made-up tier's mechanics."""
    p, notes, source = cells.arrays, cells.lists["notes"], cells.lists["source"]
    spec, sp_row, kk, n_c, made_up = w.spec, w.spec[:, None], w.k[:, None], w.n_c, fast.made_up
    nan = np.full((w.n_t, n_c), np.nan)
    p_alpha, p_kind = on_cells(value.ok, solves[value.solve])
    p_alpha = np.where(p["is_alpha"], p_alpha, np.nan)
    verdict, class_value = p["verdict"], value.verdict
    e, speedup, s_lo, s_hi, cf, stretch, refused = (p[x] for x in ("e", "speedup", "s_lo", "s_hi", "cf", "stretch",
                                                                    "refused"))
    # a made-up tier's cells get no verdicts either (its mix, and so its tier's, is withheld), and no number
    # modelled from the made-up mechanics: speedup, its interval, E, fill, best K, break-evens
    if made_up.any():
        verdict = np.where(made_up[:, None], NOT_APPLICABLE, verdict).astype(np.int8)
        class_value = np.where(made_up[:, None], NOT_APPLICABLE, class_value).astype(np.int8)
        p, e, speedup, s_lo, s_hi, cf, stretch = _withhold_cells(made_up, p, e, speedup, s_lo, s_hi, cf, stretch)
    return CellResult(
        alpha=p["alpha"], alpha_source=source, alpha_low=np.where(sp_row, p["a_lo"], np.nan),
        alpha_high=np.where(sp_row, p["a_hi"], np.nan), alpha_confidence=np.where(sp_row, p["a_conf"], np.nan),
        alpha_note=[row if spec[i] else [""] * n_c for i, row in enumerate(notes)], acceptance=grid, refused=refused,
        c=np.where(sp_row, p["c"], nan), v=np.where(sp_row, p["v"], nan),
        tokens_per_stretch=np.where(sp_row, e, 1.0),
        tokens_per_stretch_low=np.where(sp_row, p["tokens_lo"], np.nan),
        tokens_per_stretch_high=np.where(sp_row, p["tokens_hi"], np.nan),
        extrapolated=np.where(sp_row, p["extrapolated"], False), trailer_fill=np.where(sp_row, e - 1.0, np.nan) / kk,
        break_even_alpha=p["be_alpha"], break_even_kind=p["be_kind"],
        break_even_length=np.where(sp_row, stretch, np.nan), margin=p["margin"],
        speedup=speedup, speedup_low=s_lo, speedup_high=s_hi, verdict=verdict,
        optimal_k=p["opt_k"], optimal_speedup=np.where(sp_row, p["opt_s"], 1.0),
        optimal_k_extrapolated=np.where(sp_row, p["opt_x"], False), cost_factor=np.where(sp_row, cf, 1.0),
        not_given=p["not_given"], class_cost=served.class_cost, price_ratio=value.ratio, price_break_even_alpha=p_alpha,
        price_break_even_kind=p_kind, price_break_even_length=np.where(value.ok, value.needed * stretch, np.nan),
        value_verdict=class_value, speedup_vs_baseline=np.where(value.ok, value.vs, np.nan),
        speedup_vs_baseline_low=np.where(value.ok, value.vs_low, np.nan),
        speedup_vs_baseline_high=np.where(value.ok, value.vs_high, np.nan))


def _tier_result(wb: Workbook, w: Workload, cells: Pairs, grid: AcceptanceGrid, fast: Mix, served: Served,
                 base: Baseline, tier_value: TierValue, solves: SolveBatch) -> TierResult:
    """Every tier: its mix as served, bill, speed over the baseline, and the value verdict with the acceptance to
    guarantee; a made-up tier's only where a probe's measured speed stands in for its mechanics."""
    s, spec, made_up = wb.settings, w.spec, fast.made_up
    modelled = tier_value.ok & ~made_up  # the solves of the mechanics: none for a tier judged on its measured speed
    mix_p_alpha, mix_p_kind = on_cells(modelled, solves[tier_value.solve])
    eff_alpha, eff_lo, eff_hi = (np.where(spec & ~made_up & has, np.where(x.kind == ar.NEVER, 1.0, x.alpha), np.nan)
                                 for has, x in zip((~np.isnan(fast.speedup), np.isfinite(fast.low), np.isfinite(fast.high)),
                                                   (solves[h] for h in tier_value.effective_solves)))
    mix_cf = np.where(made_up, np.nan, base.mix_cost_factor) if made_up.any() else base.mix_cost_factor
    return TierResult(
        speculative=spec, unconfirmed=w.unconfirmed, k=w.k, baseline_index=served.base, incomplete=fast.incomplete,
        baseline_incomplete=base.withheld, on_measured=fast.on_measured, mix_not_described=fast.not_described,
        unpriced=[t.missing_prices() for t in wb.tiers],
        mix_speedup=served.speedup, mix_speedup_low=served.low, mix_speedup_high=served.high,
        verdict=speed_verdicts(served.speedup, spec & (~made_up | fast.on_measured), s.marginal_band, served.low,
                               served.high),
        monthly_cost=served.monthly, premium=base.premium, price_per_speedup=base.per_speed, cost_factor=mix_cf,
        speedup_vs_baseline=base.vs, speedup_vs_baseline_low=base.vs_low, speedup_vs_baseline_high=base.vs_high,
        price_ratio=tier_value.ratio, price_break_even_alpha=mix_p_alpha, price_break_even_kind=mix_p_kind,
        effective_alpha=eff_alpha, effective_alpha_low=eff_lo, effective_alpha_high=eff_hi,
        # the acceptance to guarantee in tokens per verify step (model/comparison/guarantee.py derives it)
        **guarantee_lengths(tier_value.needed_fast, fast.speedup, fast.low, fast.high, tier_value.mean_stretch,
                            modelled, length_unit(grid.kind, cells.arrays["refused"])),
        value_verdict=tier_value.verdict)


def _claim_result(w: Workload, fast: Mix, claim: Claim, solves: SolveBatch, tolerance: float) -> ClaimResult:
    """The claim, the alpha it implies (none from made-up c and v), and whether the requests served fast reach it."""
    solved = solves[claim.solve]
    has_claim = ~np.isnan(claim.claimed) & w.spec
    return ClaimResult(claim.claimed, claim.context, np.where(has_claim & ~fast.made_up, solved.alpha, np.nan),
                       solved.kind, claim.holds(fast.speedup, w.spec, tolerance))


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
