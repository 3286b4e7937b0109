"""The priced comparison: every (tier, class) and every tier, computed at once as arrays.

``compare`` is here; what it returns (``Comparison`` and its JSON records) is in model/comparison/result.py,
the verdict codes and rules in model/comparison/verdicts.py, each tier's c and v in model/mechanics/tier_costs.py.
Outside this package, import them from the front door, ``model.comparison``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, TypeVar

import numpy as np
from numpy.typing import NDArray

from model.mechanics import arithmetic as ar
from model.acceptance.profiles import AcceptanceGrid
from model.acceptance.propagate import mix_interval
from model.comparison.cells import (Pairs, PairCache, acceptance_grid, override_cells, pair_block, profile_width,
                                    search_top)
from model.comparison.result import (CellResult, ClaimResult, Comparison, FairPrice, ProbedResult, TermsResult,
                                     TierResult)
from model.mechanics.solves import SolveBatch
from model.comparison.guarantee import guarantee_lengths, length_unit
from model.mechanics.tier_costs import TierCosts
from model.comparison.verdicts import (NOT_APPLICABLE, cost_ratio, on_cells, price_targets, speed_verdicts,
                                       value_verdicts)
from model.comparison.quality import quality_fields
from model.comparison.on_measured import judged_on_measured, mix_from_measured
from model.comparison.terms import (as_served, billed, downgraded, fair_factor, fast_needed, priced_cells,
                                      priced_cells_key, served_interval, standard_speed, terms_fields)
from model.workbook.rows import Tier, Workbook

T = TypeVar("T")


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


Floats = NDArray[np.float64]
Flags = NDArray[np.bool_]


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
    w = _Workload.of(wb)
    costs = cache.costs(wb.tiers) if cache is not None else TierCosts(wb.tiers)
    cells = _cells(wb, cache, costs)
    grid = (cache.grid(wb.tiers, wb.classes, wb.overrides) if cache is not None
            else acceptance_grid(wb.tiers, wb.classes, wb.overrides))
    fast = _Mix.of(wb, w, cells)
    served = _Served.of(wb, w, fast, cache)
    base = _Baseline.of(wb, w, fast, served, cells)
    solves = SolveBatch(cache.solves if cache is not None else None)
    value = _ClassValue.of(w, cells, fast, served, base, solves)
    tier_value = _TierValue.of(w, cells, fast, served, base, solves)
    claim = _Claim.of(wb.tiers, w, costs, solves, cache)
    solves.run()
    return _result(wb, w, cells, grid, fast, served, base, value, tier_value, claim, solves)


@dataclass
class _Workload:
    """The workbook's numbers as arrays: per tier (spec, unconfirmed, K, list prices) and per class (tokens)."""

    n_t: int
    n_c: int
    spec: Flags
    unconfirmed: Flags
    k: Floats
    tokens_out: Floats
    tokens_in: Floats
    no_tokens: Flags  # per class: no tokens entered
    untold: Flags  # per class: its tokens are not given (TaskClass.defaulted): the bill waits for them
    weights: Floats  # the mix's weights: output tokens, every class the same when none are entered
    price_out: Floats
    price_in: Floats
    # per tier: a list price nobody gave (Tier.missing_prices: a new row's placeholder 0, not a free tier typed 0):
    # its traffic is priced at nothing, so no bill, premium, price ratio or fair price rests on it
    unpriced: Flags

    @classmethod
    def of(cls, wb: Workbook) -> _Workload:
        tiers, classes = wb.tiers, wb.classes
        tokens_out = np.array([c.tokens_out for c in classes], dtype=np.float64)
        tokens_in = np.array([c.tokens_in for c in classes], dtype=np.float64)
        return cls(
            n_t=len(tiers), n_c=len(classes),
            spec=np.array([t.speculative != "no" for t in tiers], dtype=bool),
            unconfirmed=np.array([t.speculative == "unknown" for t in tiers], dtype=bool),
            k=np.array([t.k for t in tiers], dtype=np.float64),
            tokens_out=tokens_out, tokens_in=tokens_in, no_tokens=(tokens_out + tokens_in) == 0,
            untold=np.array([c.tokens_not_given() for c in classes], dtype=bool),
            weights=tokens_out if tokens_out.sum() > 0 else np.ones(len(classes)),
            price_out=np.array([t.price_out for t in tiers], dtype=np.float64),
            price_in=np.array([t.price_in for t in tiers], dtype=np.float64),
            unpriced=np.array([bool(t.missing_prices()) for t in tiers], dtype=bool))


def _kept(cache: PairCache | None, name: str, key: Any, make: Callable[[], T]) -> T:
    """``make()``, kept in ``cache`` between edits that leave ``key`` as it was (PairCache.kept)."""
    return make() if cache is None else cache.kept(name, key, make)


def _cells(wb: Workbook, cache: PairCache | None, costs: TierCosts) -> Pairs:
    """Every (tier, class) cell's numbers (model/comparison/cells.py), from the cache where the edit left them."""
    tiers, classes, s = wb.tiers, wb.classes, wb.settings
    k_top, width = search_top(tiers, s), profile_width(classes, wb.overrides)
    return (cache.pairs(tiers, classes, wb.overrides, s, k_top, width, costs) if cache is not None
            else pair_block(tiers, classes, wb.overrides, s, k_top, width, costs))


@dataclass
class _Mix:
    """Each tier's classes combined by their token weights, with the interval, on the requests served fast;
    withheld where the tier's mechanics were made up."""

    speedup: Floats
    low: Floats
    high: Floats
    incomplete: list[str]  # per tier: "" or why its mechanics are made up
    made_up: Flags
    # per tier: made up, but judged on a probe's measured speed (model/comparison/on_measured.py): its mix is that
    on_measured: Flags
    # per speculative tier: "" or the class nobody described in full that its mix waits for
    not_described: list[str]

    @classmethod
    def of(cls, wb: Workbook, w: _Workload, cells: Pairs) -> _Mix:
        p = cells.arrays
        speedup, weights = p["speedup"], w.weights[None, :]
        mix = ar.blend_speedup(speedup, weights) if w.n_c else np.full(w.n_t, np.nan)
        mix_lo, mix_hi = (mix_interval(speedup, p["s_lo"], p["s_hi"], weights, p["a_conf"], wb.settings.confidence)
                          if w.n_c else (np.full(w.n_t, np.nan), np.full(w.n_t, np.nan)))
        # a tier whose mechanics an import made up (Tier.defaulted) has no mix from them: nor, through it, its
        # interval, speed over the baseline, cost per 1x, claim, verdicts or price (the one rule; the report reads it)
        incomplete = [t.missing_mechanics() for t in wb.tiers]
        made_up = np.array([bool(why) for why in incomplete], dtype=bool)
        if made_up.any():
            mix, mix_lo, mix_hi = (np.where(made_up, np.nan, x) for x in (mix, mix_lo, mix_hi))
        # unless a probe measured its speed: then the mix, and all that follows from it, is the measured one
        t_index = {t.name: i for i, t in enumerate(wb.tiers)}
        base = np.array([t_index.get(t.baseline, -1) if t.baseline else -1 for t in wb.tiers], dtype=np.int64)
        on_measured = judged_on_measured(wb.tiers, made_up, base)
        mix, mix_lo, mix_hi = mix_from_measured(on_measured, wb.tiers, wb.settings.confidence, base, mix, mix_lo, mix_hi)
        # a class nobody described in full (its acceptance, context or tokens): no tier's mix over the classes
        # (docs/design/verdicts.md#a-class-nobody-described), measured or modelled; a plain tier's stays 1
        waits = _not_described(wb, w)
        if any(waits):
            mix, mix_lo, mix_hi = (np.where([bool(x) for x in waits], np.nan, x) for x in (mix, mix_lo, mix_hi))
        return cls(mix, mix_lo, mix_hi, incomplete, made_up, on_measured, waits)


def _not_described(wb: Workbook, w: _Workload) -> list[str]:
    """Per tier: "" or the first class its mix waits for, "class 'X': acceptance and tokens not given" ("and 2 more
    classes"); a plain tier waits for none (its speedup is 1 whatever the class)."""
    out = [""] * w.n_t
    if not any(c.defaulted for c in wb.classes):
        return out
    overridden = override_cells(wb.tiers, wb.classes, wb.overrides)
    for i in np.nonzero(w.spec)[0].tolist():
        waits = [(c.name, why) for j, c in enumerate(wb.classes) if (why := c.not_described((i, j) in overridden))]
        if waits:
            more = f" (and {len(waits) - 1} more class{'es' if len(waits) > 2 else ''})" if len(waits) > 1 else ""
            out[i] = f"class {waits[0][0]!r}: {waits[0][1]}{more}"
    return out


@dataclass
class _Served:
    """A vendor's terms (docs/design/vendor-terms.md): the traffic priced by band and cache, and a share d of fast
    requests served at the standard tier's speed and billed at its prices. The mix, its interval and the bill are
    the as-served ones from here on; the mix on requests served fast (``_Mix``) is kept for the acceptance solves."""

    base: NDArray[np.int64]  # each tier's baseline, -1 for none
    class_cost: Floats  # per cell: the class's traffic priced on the tier
    monthly_fast: Floats
    monthly: Floats
    d: Floats  # the downgraded share
    std: Floats  # the standard tier's speed the downgraded requests run at
    speedup: Floats
    low: Floats
    high: Floats

    @classmethod
    def of(cls, wb: Workbook, w: _Workload, fast: _Mix, cache: PairCache | None = None) -> _Served:
        tiers = wb.tiers
        t_index = {t.name: i for i, t in enumerate(tiers)}
        base = np.array([t_index.get(t.baseline, -1) if t.baseline else -1 for t in tiers], dtype=np.int64)
        # no price of a tier nobody priced (docs/design/verdicts.md#prices-nobody-gave): NaN, not its placeholder 0
        class_cost = _kept(cache, "class_cost", (priced_cells_key(tiers, wb.classes), w.unpriced.tobytes()),
                           lambda: np.where(w.unpriced[:, None], np.nan, priced_cells(tiers, wb.classes)))
        monthly_fast = np.where(w.no_tokens[None, :], 0.0, class_cost).sum(axis=1) / 1e6
        if w.untold.any():  # no bill while a class's tokens are not given
            monthly_fast = np.full(w.n_t, np.nan)
        monthly_fast = np.where(w.unpriced, np.nan, monthly_fast)
        d, d_lo, d_hi = downgraded(tiers)
        std = standard_speed(fast.speedup, base)
        if not (d.any() or d_lo.any() or d_hi.any()):  # nothing downgraded: as served is as fast, to the bit
            return cls(base, class_cost, monthly_fast, monthly_fast, d, std, fast.speedup.copy(), fast.low.copy(),
                       fast.high.copy())
        low, high = served_interval(fast.low, fast.high, d_lo, d_hi, std)
        return cls(base, class_cost, monthly_fast, billed(monthly_fast, base, d), d, std,
                   as_served(fast.speedup, d, std), low, high)


@dataclass
class _Baseline:
    """Each tier against its baseline: why a value verdict is withheld, the premium and the speed over it."""

    has: Flags
    withheld: list[str]  # per tier: "" or why its value verdict is withheld though its own speed stands
    withheld_any: Flags
    premium: Floats
    vs: Floats
    vs_low: Floats
    vs_high: Floats
    per_speed: Floats
    mix_cost_factor: Floats

    @classmethod
    def of(cls, wb: Workbook, w: _Workload, fast: _Mix, served: _Served, cells: Pairs) -> _Baseline:
        base, n_t, monthly, mix = served.base, w.n_t, served.monthly, served.speedup
        has_base = base >= 0
        # a tier priced against a made-up baseline has no speed over it to judge: no value verdicts, per class either
        withheld = [_value_withheld(wb.tiers, i, b, fast.incomplete) for i, b in enumerate(base.tolist())]
        base_cost = np.where(has_base, monthly[np.maximum(base, 0)] if n_t else 0.0, np.nan)
        base_mix = np.where(has_base, mix[np.maximum(base, 0)] if n_t else 0.0, np.nan)
        cf, weights = cells.arrays["cf"], w.weights
        with np.errstate(divide="ignore", invalid="ignore"):
            premium = np.where(has_base & (base_cost > 0), monthly / base_cost - 1.0, np.nan)
            vs_base = np.where(has_base, mix / base_mix, np.nan)
            # the baseline is held at its own value while the tier's acceptance moves (as in the value verdict)
            vs_lo = np.where(has_base, served.low / base_mix, np.nan)
            vs_hi = np.where(has_base, served.high / base_mix, np.nan)
            per_speed = monthly / mix
            mix_cf = (np.where(w.spec, (np.where(w.spec[:, None], cf, 1.0) * weights).sum(axis=1) / weights.sum(), 1.0)
                      if w.n_c else np.full(n_t, np.nan))
        return cls(has_base, withheld, np.array([bool(why) for why in withheld], dtype=bool), premium, vs_base, vs_lo,
                   vs_hi, per_speed, mix_cf)


@dataclass
class _ClassValue:
    """The value verdict per (tier, class), and the class's speed over the baseline's on that class."""

    ratio: Floats
    ok: Flags
    needed: Floats
    verdict: NDArray[np.int8]
    vs: Floats
    vs_low: Floats
    vs_high: Floats
    solve: int  # the price break-even's solve in the batch

    @classmethod
    def of(cls, w: _Workload, cells: Pairs, fast: _Mix, served: _Served, base: _Baseline,
           solves: SolveBatch) -> _ClassValue:
        # Price ratio per class: that class's traffic (input and output) priced on the tier over the same traffic
        # on its baseline; a class with no tokens entered is priced per output token, which is what the speed buys.
        # Worth the premium where speedup over the baseline >= price ratio, i.e. the price per 1x of speed is no
        # higher than the baseline's. The baseline's own speedup (1 unless it is speculative too) is held at its
        # value while the tier's acceptance moves.
        p = cells.arrays
        speedup = p["speedup"]
        b0 = np.maximum(served.base, 0)
        # and none for a class whose tokens nobody gave (their placeholder 0 would price it per output token)
        ratio = np.where(base.has[:, None] & ~w.untold[None, :], cost_ratio(served.class_cost, served.class_cost[b0]),
                         np.nan)
        base_speed = speedup[b0]
        # a cell (or its baseline's) with no speedup has no value verdict either (a refused tree cell)
        ok = (w.spec[:, None] & (base.has & ~base.withheld_any & ~fast.made_up)[:, None] & ~np.isnan(ratio)
              & ~np.isnan(speedup) & ~np.isnan(base_speed) & ~w.untold[None, :])
        needed = ratio * base_speed
        # every solve of the priced numbers is gathered and run as one call (model/mechanics/solves.py)
        solve = solves.add(*price_targets(needed, w.k[:, None], p["stretch"], ok))
        verdict = value_verdicts(speedup, needed, ok, p["s_lo"], p["s_hi"])
        with np.errstate(divide="ignore", invalid="ignore"):
            pair_base = np.where(base.has[:, None], base_speed, np.nan)
            vs, vs_lo, vs_hi = speedup / pair_base, p["s_lo"] / pair_base, p["s_hi"] / pair_base
        return cls(ratio, ok, needed, verdict, vs, vs_lo, vs_hi, solve)


@dataclass
class _TierValue:
    """The value verdict per tier: its mix as served against the price ratio of its bill, the acceptance the
    requests served fast must reach and the one they run like, and the fair price."""

    unit_fast: Floats  # the price of the tier's traffic on the requests served fast
    unit: Floats  # and as billed
    ratio: Floats
    needed: Floats
    needed_fast: Floats
    mean_stretch: Floats
    ok: Flags
    verdict: NDArray[np.int8]
    fair: Floats  # the factor on both list prices at which the tier is worth its price (NaN: no value verdict)
    fair_low: Floats  # at the pessimistic end of the mix's interval
    fair_in: Floats
    fair_out: Floats
    fair_in_low: Floats
    fair_out_low: Floats
    solve: int  # the mix's price break-even
    effective_solves: list[int]  # the uniform acceptance the mix runs like, at the mix and its interval's ends

    @classmethod
    def of(cls, w: _Workload, cells: Pairs, fast: _Mix, served: _Served, base: _Baseline,
           solves: SolveBatch) -> _TierValue:
        # the mix: monthly cost over the baseline's; with no tokens at all, the output price as per class.
        # One alpha cannot describe a workload whose classes differ, so the mix's break-even is the uniform
        # acceptance that would do it: with every class at one alpha the mix speedup is E(alpha) / (the
        # token-weighted mean stretch cost), so the same solver applies. effective_alpha is the uniform
        # acceptance giving the mix speedup the workload has now: worth it where it clears the break-even.
        b0, d, std, mix = np.maximum(served.base, 0), served.d, served.std, served.speedup
        all_empty = bool(w.no_tokens.all()) if w.n_c else False
        # the price of the tier's traffic (per output token, the classes alike, when no tokens are entered), on the
        # requests served fast and as billed with the downgraded share at the baseline's prices
        unit_fast = served.class_cost.mean(axis=1) if all_empty else served.monthly_fast
        unit = billed(unit_fast, served.base, d)
        ratio = np.where(base.has, cost_ratio(unit, unit[b0]), np.nan)
        needed = ratio * mix[b0]
        # the mix the requests served fast must reach for the as-served mix to pay the price: what acceptance solves for
        needed_fast = fast_needed(needed, d, std)
        stretch = cells.arrays["stretch"]
        mean_stretch = ((stretch * w.weights[None, :]).sum(axis=1) / w.weights.sum() if w.n_c
                        else np.full(w.n_t, np.nan))
        ok = w.spec & base.has & ~base.withheld_any & ~np.isnan(ratio) & ~np.isnan(mix) & ~np.isnan(needed)
        # nothing is solved from mechanics nobody gave (a tier judged on its measured speed has its verdict all the same)
        solve = solves.add(*price_targets(needed_fast, w.k, np.nan_to_num(mean_stretch, nan=1.0), ok & ~fast.made_up))
        # the uniform acceptance the mix runs like, and the interval's ends (where the mix has an interval)
        effective = [solves.add(np.nan_to_num(m * mean_stretch, nan=1.0), w.k) for m in (fast.speedup, fast.low, fast.high)]
        verdict = value_verdicts(mix, needed, ok, served.low, served.high)
        # the fair price: speed over the baseline / price ratio scales both list prices
        # (docs/design/verdicts.md#the-fair-price)
        ratio_fast = np.where(base.has, cost_ratio(unit_fast, unit[b0]), np.nan)
        with np.errstate(divide="ignore", invalid="ignore"):
            fair = np.where(ok, fair_factor(base.vs, ratio_fast, d), np.nan)
            fair_lo = np.where(ok, fair_factor(base.vs_low, ratio_fast, d), np.nan)
            # a free tier priced against a paid baseline has an infinite factor: times a zero price, no price
            fair_in, fair_out = fair * w.price_in, fair * w.price_out
            fair_in_lo, fair_out_lo = fair_lo * w.price_in, fair_lo * w.price_out
        return cls(unit_fast, unit, ratio, needed, needed_fast, mean_stretch, ok, verdict, fair, fair_lo, fair_in,
                   fair_out, fair_in_lo, fair_out_lo, solve, effective)


@dataclass
class _Claim:
    """The vendor's claimed speedup per tier, at its context, and the acceptance it implies."""

    claimed: Floats  # NaN: no claim
    context: Floats
    solve: int

    @classmethod
    def of(cls, tiers: list[Tier], w: _Workload, costs: TierCosts, solves: SolveBatch,
           cache: PairCache | None = None) -> _Claim:
        claimed = np.array([np.nan if t.claimed_speedup is None else t.claimed_speedup for t in tiers], dtype=np.float64)
        context = np.array([t.claim_context for t in tiers], dtype=np.float64)
        # the same TierCosts (the cache keeps one while no tier's mechanics change) at the same contexts and K
        c_claim, v_claim = _kept(cache, "claim_costs", (costs, context.tobytes(), w.k.tobytes()), lambda: (
            np.asarray(costs.c(context[:, None]), dtype=np.float64).reshape(w.n_t),
            np.asarray(costs.v(w.k[:, None], context[:, None]), dtype=np.float64).reshape(w.n_t)))
        solve = solves.add(np.nan_to_num(claimed, nan=1.0) * ar.stretch_cost(w.k, c_claim, v_claim), w.k)  # implied alpha
        return cls(claimed, context, solve)

    def holds(self, mix_fast: Floats, spec: Flags, tolerance: float) -> list[bool | None]:
        """The vendor's claim is about its fast mode: judged on the requests served fast."""
        has = ~np.isnan(self.claimed) & spec
        return [bool(mix_fast[i] >= self.claimed[i] * (1.0 - tolerance)) if has[i] and not np.isnan(mix_fast[i])
                else None for i in range(len(self.claimed))]


def _result(wb: Workbook, w: _Workload, cells: Pairs, grid: AcceptanceGrid, fast: _Mix, served: _Served,
            base: _Baseline, value: _ClassValue, tier_value: _TierValue, claim: _Claim,
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


def _cell_result(w: _Workload, cells: Pairs, grid: AcceptanceGrid, fast: _Mix, served: _Served, value: _ClassValue,
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


def _tier_result(wb: Workbook, w: _Workload, cells: Pairs, grid: AcceptanceGrid, fast: _Mix, served: _Served,
                 base: _Baseline, tier_value: _TierValue, solves: SolveBatch) -> TierResult:
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


def _claim_result(w: _Workload, fast: _Mix, claim: _Claim, solves: SolveBatch, tolerance: float) -> ClaimResult:
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
