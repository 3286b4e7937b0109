"""The steps of the comparison, in the order ``compare`` (model/comparison/compute.py) runs them: the workbook's
numbers as arrays (``Workload``), each tier's mix of its classes (``Mix``), the mix and the bill as served under the
vendor's terms (``Served``), each tier against its baseline (``Baseline``), the value verdict per class and per tier
(``ClassValue``, ``TierValue``) and the claim (``Claim``). Each is a dataclass of arrays built by its ``of``; the
solves of E(alpha, K) = target they need go to the comparison's one batch (model/mechanics/solves.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, TypeVar

import numpy as np
from numpy.typing import NDArray

from model.mechanics import arithmetic as ar
from model.acceptance.propagate import mix_interval
from model.comparison.cells import Pairs, PairCache, override_cells
from model.mechanics.solves import SolveBatch
from model.mechanics.tier_costs import TierCosts
from model.comparison.verdicts import cost_ratio, price_targets, value_verdicts
from model.comparison.on_measured import judged_on_measured, mix_from_measured
from model.comparison.terms import (as_served, billed, downgraded, fair_factor, fast_needed, priced_cells,
                                      priced_cells_key, served_interval, standard_speed)
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


@dataclass
class Workload:
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
    def of(cls, wb: Workbook) -> Workload:
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


@dataclass
class Mix:
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
    def of(cls, wb: Workbook, w: Workload, cells: Pairs) -> Mix:
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


def _not_described(wb: Workbook, w: Workload) -> list[str]:
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
class Served:
    """A vendor's terms (docs/design/vendor-terms.md): the traffic priced by band and cache, and a share d of fast
    requests served at the standard tier's speed and billed at its prices. The mix, its interval and the bill are
    the as-served ones from here on; the mix on requests served fast (``Mix``) is kept for the acceptance solves."""

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
    def of(cls, wb: Workbook, w: Workload, fast: Mix, cache: PairCache | None = None) -> Served:
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
class Baseline:
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
    def of(cls, wb: Workbook, w: Workload, fast: Mix, served: Served, cells: Pairs) -> Baseline:
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
class ClassValue:
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
    def of(cls, w: Workload, cells: Pairs, fast: Mix, served: Served, base: Baseline,
           solves: SolveBatch) -> ClassValue:
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
class TierValue:
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
    def of(cls, w: Workload, cells: Pairs, fast: Mix, served: Served, base: Baseline,
           solves: SolveBatch) -> TierValue:
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
class Claim:
    """The vendor's claimed speedup per tier, at its context, and the acceptance it implies."""

    claimed: Floats  # NaN: no claim
    context: Floats
    solve: int

    @classmethod
    def of(cls, tiers: list[Tier], w: Workload, costs: TierCosts, solves: SolveBatch,
           cache: PairCache | None = None) -> Claim:
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
