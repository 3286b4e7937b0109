"""The priced comparison: every (tier, class) and every tier, computed at once as arrays."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np
from numpy.typing import NDArray

from model import arithmetic as ar
from model import roofline
from model.acceptance import acceptance_of
from model.acceptance.profiles import AcceptanceGrid, acceptance_record
from model.acceptance.propagate import mix_interval, speedup_ends
from model.load_speed import load_speed
from model.measured_speed import measured_speed
from model.workbook.rows import Tier, Workbook

# UNDECIDED: the interval at the workbook's confidence reaches both sides of a break-even (DESIGN.md section 7)
GAIN, MARGINAL, TAX, NOT_APPLICABLE, UNDECIDED = 0, 1, 2, 3, 4
VERDICT_NAMES = {GAIN: "gain", MARGINAL: "marginal", TAX: "tax", NOT_APPLICABLE: "n/a", UNDECIDED: "undecided"}
BREAK_EVEN_NAMES = {**ar.KIND_NAMES, -1: "n/a"}
# the value verdict: does the speed over the baseline pay for the price over the baseline?
WORTH, NOT_WORTH = 0, 1
VALUE_NAMES = {WORTH: "worth the premium", NOT_WORTH: "not worth it", NOT_APPLICABLE: "n/a", UNDECIDED: "undecided"}


class TierCosts:
    """c(L) and v(k, L) for a list of tiers, typed or roofline, as (tiers x contexts) arrays."""

    def __init__(self, tiers: list[Tier]) -> None:
        self.roof = np.array([t.cost_model == "roofline" for t in tiers], dtype=bool)[:, None]
        self.typed_c = np.array([t.c for t in tiers], dtype=np.float64)[:, None]
        self.typed_v = np.array([t.v for t in tiers], dtype=np.float64)[:, None]
        self.batch = np.array([t.batch for t in tiers], dtype=np.float64)[:, None]
        # a tree draft verifies tree_size tokens a step and drafts over its width per depth level (K = depth)
        self.tree = np.array([np.nan if t.tree_size is None else float(t.tree_size) for t in tiers], dtype=np.float64)[:, None]
        self.depth = np.array([t.k for t in tiers], dtype=np.float64)[:, None]
        pairs = [roofline.PAIRS.get(t.pair) for t in tiers]
        gpus = [roofline.GPUS.get(t.gpu) for t in tiers]
        # typed tiers never read their preset; any stand-in keeps the arrays rectangular
        default_pair, default_gpu = next(iter(roofline.PAIRS.values())), next(iter(roofline.GPUS.values()))
        pairs = [p or default_pair for p in pairs]
        gpus = [g or default_gpu for g in gpus]
        self.draft = roofline.StackedShapes([p.draft for p in pairs], gpus)
        self.target = roofline.StackedShapes([p.target for p in pairs], gpus)
        self.c_flops = np.where(self.roof[:, 0], [roofline.flops_ratio(p) for p in pairs], self.typed_c[:, 0])[:, None]

    def c(self, context: NDArray[np.float64]) -> NDArray[np.float64]:
        if not self.roof.any():
            return np.broadcast_to(self.typed_c, np.broadcast(self.typed_c, context).shape)
        step = self.target.time(1.0, context, self.batch)
        width = np.where(np.isnan(self.tree), 1.0, np.maximum(1.0, (self.tree - 1.0) / self.depth))
        return np.where(self.roof, self.draft.time(width, context, self.batch) / step, self.typed_c)

    def v(self, k: NDArray[np.float64], context: NDArray[np.float64]) -> NDArray[np.float64]:
        if not self.roof.any():
            return np.broadcast_to(self.typed_v, np.broadcast(self.typed_v, k, context).shape)
        step = self.target.time(1.0, context, self.batch)
        verified = np.where(np.isnan(self.tree), k + 1.0, np.maximum(self.tree, k + 1.0))
        return np.where(self.roof, self.target.time(verified, context, self.batch) / step, self.typed_v)


@dataclass
class Comparison:
    """Arrays are (tiers x classes) unless named per_tier; NaN where a number does not exist."""

    tier_names: list[str]
    class_names: list[str]
    currency: str
    speculative: NDArray[np.bool_]  # per tier: computed as speculative (yes or unknown)
    unconfirmed: NDArray[np.bool_]  # per tier: marked unknown
    k: NDArray[np.float64]  # per tier
    alpha: NDArray[np.float64]
    alpha_source: list[list[str]]
    c: NDArray[np.float64]
    v: NDArray[np.float64]
    break_even_alpha: NDArray[np.float64]
    break_even_kind: NDArray[np.int8]  # ar.ALWAYS / ROOT / NEVER, -1 for non-speculative tiers
    margin: NDArray[np.float64]
    tokens_per_stretch: NDArray[np.float64]
    trailer_fill: NDArray[np.float64]
    speedup: NDArray[np.float64]
    optimal_k: NDArray[np.int64]
    optimal_speedup: NDArray[np.float64]
    cost_factor: NDArray[np.float64]
    verdict: NDArray[np.int8]
    mix_speedup: NDArray[np.float64]  # per tier
    monthly_cost: NDArray[np.float64]
    baseline_index: NDArray[np.int64]  # -1 for none
    premium: NDArray[np.float64]
    speedup_vs_baseline: NDArray[np.float64]
    price_per_speedup: NDArray[np.float64]
    mix_cost_factor: NDArray[np.float64]
    claimed_speedup: NDArray[np.float64]
    claim_context: NDArray[np.float64]
    claim_alpha: NDArray[np.float64]
    claim_kind: NDArray[np.int8]  # NEVER: the claim is out of reach at any acceptance
    claim_holds: list[bool | None]
    tier_verdict: NDArray[np.int8]
    # the value verdict, per (tier, class) and per tier; n/a without a baseline or for a non-speculative tier
    price_ratio: NDArray[np.float64]  # this class's traffic priced on the tier / on its baseline
    price_break_even_alpha: NDArray[np.float64]  # where speedup over the baseline = price_ratio
    price_break_even_kind: NDArray[np.int8]  # ar.ALWAYS / ROOT / NEVER, -1 for n/a
    value_verdict: NDArray[np.int8]  # WORTH / NOT_WORTH / NOT_APPLICABLE
    mix_price_ratio: NDArray[np.float64]  # per tier: monthly cost / baseline's monthly cost
    # per tier: the one acceptance that, held by every class, makes the mix's speedup over the
    # baseline equal mix_price_ratio; next to it the uniform acceptance the workload runs like now
    mix_price_break_even_alpha: NDArray[np.float64]
    mix_price_break_even_kind: NDArray[np.int8]
    effective_alpha: NDArray[np.float64]
    tier_value_verdict: NDArray[np.int8]
    # certainty (DESIGN.md section 7): NaN ends where an acceptance has no interval; speed and value verdicts
    # above are UNDECIDED where the interval reaches both sides of their break-even
    confidence: float  # the workbook's: of the mix's interval and of the verdicts
    alpha_low: NDArray[np.float64]
    alpha_high: NDArray[np.float64]
    alpha_confidence: NDArray[np.float64]  # per cell: the confidence its interval was made at
    alpha_note: list[list[str]]  # why a cell has no interval ("" where it has one)
    speedup_low: NDArray[np.float64]
    speedup_high: NDArray[np.float64]
    pair_vs_baseline: NDArray[np.float64]  # per cell: speedup over the baseline's speedup on that class
    pair_vs_baseline_low: NDArray[np.float64]
    pair_vs_baseline_high: NDArray[np.float64]
    mix_speedup_low: NDArray[np.float64]  # per tier, the classes combined as independent
    mix_speedup_high: NDArray[np.float64]
    speedup_vs_baseline_low: NDArray[np.float64]
    speedup_vs_baseline_high: NDArray[np.float64]
    effective_alpha_low: NDArray[np.float64]
    effective_alpha_high: NDArray[np.float64]
    # the fair price (DESIGN.md section 7): the factor on both list prices at which speed over the baseline
    # equals the price ratio; _low at the pessimistic end of the interval (NaN without one)
    fair_price_factor: NDArray[np.float64]
    fair_price_factor_low: NDArray[np.float64]
    fair_price_in: NDArray[np.float64]
    fair_price_out: NDArray[np.float64]
    fair_price_in_low: NDArray[np.float64]
    fair_price_out_low: NDArray[np.float64]
    equal_weights: bool = False  # no output tokens entered: the mix weighs every class the same
    # per tier: a probe's measured speedup over the baseline (NaN: none) and where/when it was measured;
    # model.measured_speed sets it beside the modelled speedup in words
    measured_speedup: NDArray[np.float64] | None = None
    measured_note: list[str] = field(default_factory=list)
    # per tier: the parallel streams the analyst runs, and a probe's speedups per concurrency (the tier's
    # text); model.load_speed reads the one at the tier's concurrency into a verdict at that load
    concurrency: NDArray[np.int64] | None = None
    measured_by_concurrency: list[str] = field(default_factory=list)
    # per tier: "" or why it has no verdicts: mechanics an import made up ("incomplete: needs c and v")
    incomplete: list[str] = field(default_factory=list)
    # acceptance beyond one alpha (model/acceptance/profiles.py): per cell its kind (alpha, length, profile),
    # whether E at the tier's K (or at the optimal K) was extrapolated past what was measured, and the
    # break-evens in tokens per verify step, E* = K c + v and the price's E at which speed pays the price
    acceptance: AcceptanceGrid | None = None
    extrapolated: NDArray[np.bool_] | None = None
    optimal_k_extrapolated: NDArray[np.bool_] | None = None
    break_even_length: NDArray[np.float64] | None = None
    price_break_even_length: NDArray[np.float64] | None = None

    def pair_records(self) -> list[dict[str, Any]]:
        return list(self.iter_pair_records())

    def iter_pair_records(self) -> Iterator[dict[str, Any]]:
        """The records one at a time: `compare --json` of 300,000 classes x 8 tiers held 2.4 million."""
        for i, tier in enumerate(self.tier_names):
            for j, cls in enumerate(self.class_names):
                yield {
                    "tier": tier, "task_class": cls, "unconfirmed": bool(self.unconfirmed[i]),
                    "k": int(self.k[i]), "alpha": _num(self.alpha[i, j]), "alpha_source": self.alpha_source[i][j],
                    "c": _num(self.c[i, j]), "v": _num(self.v[i, j]),
                    "break_even": BREAK_EVEN_NAMES[int(self.break_even_kind[i, j])],
                    "break_even_alpha": _num(self.break_even_alpha[i, j]), "margin": _num(self.margin[i, j]),
                    "tokens_per_stretch": _num(self.tokens_per_stretch[i, j]),
                    "trailer_fill": _num(self.trailer_fill[i, j]), "speedup": _num(self.speedup[i, j]),
                    "optimal_k": int(self.optimal_k[i, j]) if self.speculative[i] else None,
                    "optimal_speedup": _num(self.optimal_speedup[i, j]),
                    "cost_factor": _num(self.cost_factor[i, j]),
                    "verdict": VERDICT_NAMES[int(self.verdict[i, j])],
                    "price_ratio": _num(self.price_ratio[i, j]),
                    "price_break_even": BREAK_EVEN_NAMES[int(self.price_break_even_kind[i, j])],
                    "price_break_even_alpha": _num(self.price_break_even_alpha[i, j]),
                    "value_verdict": VALUE_NAMES[int(self.value_verdict[i, j])],
                    "alpha_interval": _pair(self.alpha_low[i, j], self.alpha_high[i, j]),
                    "interval_note": self.alpha_note[i][j] or None,
                    "confidence": _num(self.alpha_confidence[i, j]),
                    "speedup_interval": _pair(self.speedup_low[i, j], self.speedup_high[i, j]),
                    "speedup_vs_baseline": _num(self.pair_vs_baseline[i, j]),
                    "speedup_vs_baseline_interval": _pair(self.pair_vs_baseline_low[i, j],
                                                          self.pair_vs_baseline_high[i, j]),
                    **acceptance_record(self, i, j),
                }

    def tier_records(self) -> list[dict[str, Any]]:
        out = []
        for i, tier in enumerate(self.tier_names):
            b = int(self.baseline_index[i])
            out.append({
                "tier": tier, "speculative": bool(self.speculative[i]), "unconfirmed": bool(self.unconfirmed[i]),
                "baseline": self.tier_names[b] if b >= 0 else None,
                "mix_speedup": _num(self.mix_speedup[i]), "monthly_cost": _num(self.monthly_cost[i]),
                "premium": _num(self.premium[i]), "speedup_vs_baseline": _num(self.speedup_vs_baseline[i]),
                "price_per_speedup": _num(self.price_per_speedup[i]), "cost_factor": _num(self.mix_cost_factor[i]),
                "claimed_speedup": _num(self.claimed_speedup[i]), "claim_context": _num(self.claim_context[i]),
                "claim_implied_alpha": _num(self.claim_alpha[i]),
                "claim_reachable": None if math.isnan(self.claimed_speedup[i]) or not self.speculative[i] else bool(self.claim_kind[i] != ar.NEVER),
                "claim_holds": self.claim_holds[i], "verdict": VERDICT_NAMES[int(self.tier_verdict[i])],
                "price_ratio": _num(self.mix_price_ratio[i]),
                "price_break_even": BREAK_EVEN_NAMES[int(self.mix_price_break_even_kind[i])],
                "price_break_even_alpha": _num(self.mix_price_break_even_alpha[i]),
                "effective_alpha": _num(self.effective_alpha[i]),
                "value_verdict": VALUE_NAMES[int(self.tier_value_verdict[i])],
                "incomplete": (self.incomplete[i] or None) if self.incomplete else None,
                **measured_speed(self, i).record(),
                "confidence": self.confidence,
                "alpha_interval": _pair(self.effective_alpha_low[i], self.effective_alpha_high[i]),
                "speedup_interval": _pair(self.mix_speedup_low[i], self.mix_speedup_high[i]),
                "speedup_vs_baseline_interval": _pair(self.speedup_vs_baseline_low[i], self.speedup_vs_baseline_high[i]),
                "fair_price_factor": _num(self.fair_price_factor[i]),
                "fair_price_factor_low": _num(self.fair_price_factor_low[i]),
                "fair_price_in": _num(self.fair_price_in[i]), "fair_price_out": _num(self.fair_price_out[i]),
                "fair_price_in_low": _num(self.fair_price_in_low[i]),
                "fair_price_out_low": _num(self.fair_price_out_low[i]),
                "acceptance_to_guarantee": _num(self.mix_price_break_even_alpha[i]),
                **load_speed(self, i).record(),
            })
        return out


def _num(x: Any) -> float | None:
    x = float(x)
    # JSON has no infinity either: a free baseline's infinite price ratio is said by its verdict
    return x if math.isfinite(x) else None


def _pair(low: Any, high: Any) -> list[float] | None:
    lo, hi = _num(low), _num(high)
    return None if lo is None or hi is None else [lo, hi]


def _verdicts(s: NDArray[np.float64], applicable: NDArray[np.bool_], band: float,
              low: NDArray[np.float64] | None = None, high: NDArray[np.float64] | None = None) -> NDArray[np.int8]:
    v = np.where(s < 1.0, TAX, np.where(s < 1.0 + band, MARGINAL, GAIN))
    if low is not None and high is not None:
        # the verdict of either end; where they differ the interval reaches across a line: undecided
        with np.errstate(invalid="ignore"):
            v_lo = np.where(low < 1.0, TAX, np.where(low < 1.0 + band, MARGINAL, GAIN))
            v_hi = np.where(high < 1.0, TAX, np.where(high < 1.0 + band, MARGINAL, GAIN))
        v = np.where(np.isfinite(low) & np.isfinite(high) & (v_lo != v_hi), UNDECIDED, v)
    # NaN (a tier with no task classes has no mix speedup) is no verdict, not a gain
    return np.where(applicable & ~np.isnan(s), v, NOT_APPLICABLE).astype(np.int8)


def _ratio(cost: NDArray[np.float64], base_cost: NDArray[np.float64]) -> NDArray[np.float64]:
    """cost / base_cost, where a free baseline makes any price infinitely dear and two free tiers no ratio."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(base_cost > 0, cost / np.where(base_cost > 0, base_cost, 1.0),
                        np.where(cost > 0, np.inf, np.nan))


def _price_solve(needed: NDArray[np.float64], k: NDArray[np.float64], stretch: NDArray[np.float64],
                 applicable: NDArray[np.bool_]) -> tuple[NDArray[np.float64], NDArray[np.int8]]:
    """The acceptance at which E / stretch reaches the speedup ``needed``: the claim's solver, kinds kept."""
    needed, k, stretch, applicable = np.broadcast_arrays(needed, k, stretch, applicable)
    alpha = np.full(needed.shape, np.nan)
    kind = np.full(needed.shape, -1, dtype=np.int8)
    # only the cells with a verdict are solved (plain tiers and tiers without a baseline are many)
    # an infinite need (free baseline) is out of reach: capped above K + 1, which the solver calls NEVER
    tokens = np.minimum(needed[applicable] * stretch[applicable], k[applicable] + 2.0)
    solve = ar.solve_alpha_for_tokens(tokens, k[applicable])
    alpha[applicable], kind[applicable] = solve.alpha, solve.kind
    return alpha, kind


def _value_verdicts(speedup: NDArray[np.float64], needed: NDArray[np.float64], applicable: NDArray[np.bool_],
                    low: NDArray[np.float64] | None = None, high: NDArray[np.float64] | None = None) -> NDArray[np.int8]:
    with np.errstate(invalid="ignore"):
        worth = speedup >= needed
        # decided only when the whole interval is on one side of the price break-even
        undecided = (np.isfinite(low) & np.isfinite(high) & (low < needed) & (high >= needed)
                     if low is not None and high is not None else np.zeros(np.shape(worth), dtype=bool))
    v = np.where(undecided, UNDECIDED, np.where(worth, WORTH, NOT_WORTH))
    return np.where(applicable, v, NOT_APPLICABLE).astype(np.int8)


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
    source = [[c.alpha_source for c in classes] for _ in tiers]
    acc = [[acceptance_of(c, s.confidence) for c in classes] for _ in tiers]
    t_index = {t.name: i for i, t in enumerate(tiers)}
    c_index = {c.name: j for j, c in enumerate(classes)}
    cells: dict[tuple[int, int], Any] = {}
    for o in wb.overrides:
        i, j = t_index.get(o.tier), c_index.get(o.task_class)
        if i is not None and j is not None:
            cells[i, j] = o
            alpha[i, j] = o.alpha
            source[i][j] = f"{o.alpha_source} (tier override)"
            acc[i][j] = acceptance_of(o, s.confidence)  # the override's own interval, or none: not the class's
    grid = AcceptanceGrid.of(classes, cells, n_t)
    a_lo = np.array([[a.low if a.has_interval else np.nan for a in row] for row in acc], dtype=np.float64).reshape(n_t, n_c)
    a_hi = np.array([[a.high if a.has_interval else np.nan for a in row] for row in acc], dtype=np.float64).reshape(n_t, n_c)
    a_conf = np.array([[a.confidence if a.has_interval else np.nan for a in row] for row in acc],
                      dtype=np.float64).reshape(n_t, n_c)

    costs = TierCosts(tiers)
    kk = k[:, None]
    c = np.array(costs.c(context), dtype=np.float64).reshape(n_t, n_c) if n_t and n_c else np.zeros((n_t, n_c))
    v = np.array(costs.v(kk, context), dtype=np.float64).reshape(n_t, n_c) if n_t and n_c else np.zeros((n_t, n_c))
    be = ar.break_even(kk, c, v)
    e, extrapolated = grid.tokens(alpha, kk)  # a profile's or a length's E where a cell has one
    if grid.any_beyond_alpha:
        # an interval on alpha says nothing of a profile or a length: none for those cells
        a_lo, a_hi, a_conf = (np.where(grid.is_alpha, x, np.nan) for x in (a_lo, a_hi, a_conf))
    sp = e / ar.stretch_cost(kk, c, v)
    # search at least up to the tier's own K, so "optimal K" is never worse than it
    k_top = max(s.k_max, int(k.max()) if n_t else 1)
    ks = np.arange(1, k_top + 1, dtype=np.float64)[:, None, None]
    e_all, x_all = grid.tokens(alpha[None], ks)
    s_all = e_all / ar.stretch_cost(ks, c[None], costs.v(ks, context[None]) if n_t else v[None])
    # each tier searches 1..max(K max, its own K): another tier's larger K is no option for this one
    allowed = ks <= np.maximum(s.k_max, k)[None, :, None]
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
    be_alpha = np.where(sp_row & grid.is_alpha, be.alpha, np.nan)
    be_kind = np.where(sp_row, be.kind, -1).astype(np.int8)
    # margin: how far above (or below) the break-even this class runs; a never-paying
    # setting has no break-even, so no margin either
    margin = np.where(sp_row & (be.kind != ar.NEVER) & grid.is_alpha, alpha - be.alpha, np.nan)
    stretch = ar.stretch_cost(kk, c, v)
    s_lo, s_hi = speedup_ends(a_lo, a_hi, kk, stretch)
    s_lo, s_hi = np.where(sp_row, s_lo, np.nan), np.where(sp_row, s_hi, np.nan)
    verdict = _verdicts(speedup, np.broadcast_to(sp_row, (n_t, n_c)), s.marginal_band, s_lo, s_hi)

    weights = tokens_out if tokens_out.sum() > 0 else np.ones(n_c)
    mix = ar.blend_speedup(speedup, weights[None, :]) if n_c else np.full(n_t, np.nan)
    mix_lo, mix_hi = (mix_interval(speedup, s_lo, s_hi, weights[None, :], a_conf, s.confidence) if n_c
                      else (np.full(n_t, np.nan), np.full(n_t, np.nan)))
    monthly = (tokens_out[None, :] * np.array([t.price_out for t in tiers])[:, None]
               + tokens_in[None, :] * np.array([t.price_in for t in tiers])[:, None]).sum(axis=1) / 1e6
    base = np.array([t_index.get(t.baseline, -1) if t.baseline else -1 for t in tiers], dtype=np.int64)
    has_base = base >= 0
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
    ratio = np.where(has_base[:, None], _ratio(class_cost, class_cost[b0]), np.nan)
    base_speed = speedup[b0]
    pair_ok = sp_row & has_base[:, None] & ~np.isnan(ratio)
    needed = ratio * base_speed
    p_alpha, p_kind = _price_solve(needed, np.broadcast_to(kk, (n_t, n_c)), stretch, pair_ok)
    p_alpha = np.where(grid.is_alpha, p_alpha, np.nan)
    value = _value_verdicts(speedup, needed, pair_ok, s_lo, s_hi)
    with np.errstate(divide="ignore", invalid="ignore"):
        pair_base = np.where(has_base[:, None], base_speed, np.nan)
        pair_vs, pair_vs_lo, pair_vs_hi = speedup / pair_base, s_lo / pair_base, s_hi / pair_base

    # the mix: monthly cost over the baseline's; with no tokens at all, the output price as per class.
    # One alpha cannot describe a workload whose classes differ, so the mix's break-even is the uniform
    # acceptance that would do it: with every class at one alpha the mix speedup is E(alpha) / (the
    # token-weighted mean stretch cost), so the same solver applies. effective_alpha is the uniform
    # acceptance giving the mix speedup the workload has now: worth it where it clears the break-even.
    all_empty = bool(no_tokens.all()) if n_c else False
    mix_ratio = np.where(has_base, _ratio(price_out, price_out[b0]) if all_empty else _ratio(monthly, monthly[b0]), np.nan)
    mix_needed = mix_ratio * mix[b0]
    mean_stretch = (stretch * weights[None, :]).sum(axis=1) / weights.sum() if n_c else np.full(n_t, np.nan)
    tier_ok = spec & has_base & ~np.isnan(mix_ratio) & ~np.isnan(mix) & ~np.isnan(mix_needed)
    mix_p_alpha, mix_p_kind = _price_solve(mix_needed, k, np.nan_to_num(mean_stretch, nan=1.0), tier_ok)
    eff = ar.solve_alpha_for_tokens(np.nan_to_num(mix * mean_stretch, nan=1.0), k)
    eff_alpha = np.where(spec & ~np.isnan(mix), np.where(eff.kind == ar.NEVER, 1.0, eff.alpha), np.nan)
    tier_value = _value_verdicts(mix, mix_needed, tier_ok, mix_lo, mix_hi)
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
    claim_alpha = np.where(has_claim, claim.alpha, np.nan)
    holds = [bool(mix[i] >= claimed[i] * (1.0 - s.claim_tolerance)) if has_claim[i] and not np.isnan(mix[i]) else None
             for i in range(n_t)]

    # a tier whose mechanics an import made up (Tier.defaulted) gets no verdicts from them
    incomplete = [t.missing_mechanics() for t in tiers]
    made_up = np.array([bool(w) for w in incomplete], dtype=bool)
    if made_up.any():
        verdict = np.where(made_up[:, None], NOT_APPLICABLE, verdict).astype(np.int8)
        value = np.where(made_up[:, None], NOT_APPLICABLE, value).astype(np.int8)
        tier_value = np.where(made_up, NOT_APPLICABLE, tier_value).astype(np.int8)
        holds = [None if made_up[i] else h for i, h in enumerate(holds)]
        fair, fair_lo = np.where(made_up, np.nan, fair), np.where(made_up, np.nan, fair_lo)  # no price from them

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
        tier_verdict=_verdicts(mix, spec & ~made_up, s.marginal_band, mix_lo, mix_hi),
        price_ratio=ratio, price_break_even_alpha=p_alpha, price_break_even_kind=p_kind, value_verdict=value,
        mix_price_ratio=mix_ratio, mix_price_break_even_alpha=mix_p_alpha, mix_price_break_even_kind=mix_p_kind,
        effective_alpha=eff_alpha, tier_value_verdict=tier_value,
        confidence=s.confidence, alpha_low=np.where(sp_row, a_lo, np.nan), alpha_high=np.where(sp_row, a_hi, np.nan),
        alpha_confidence=np.where(sp_row, a_conf, np.nan),
        alpha_note=[[a.note if spec[i] else "" for a in row] for i, row in enumerate(acc)],
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
        incomplete=incomplete,
        acceptance=grid, extrapolated=np.where(sp_row, extrapolated, False),
        optimal_k_extrapolated=np.where(sp_row, opt_x, False),
        break_even_length=np.where(sp_row, stretch, np.nan),
        price_break_even_length=np.where(pair_ok, needed * stretch, np.nan),
    )
