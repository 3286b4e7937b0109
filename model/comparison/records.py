"""The comparison as records: what `compare --json` and `--csv` write, one place for every key.

``pair_records`` gives one record per (tier, class), ``tier_records`` one per tier; both read a finished
``Comparison`` (its arrays and its typed per-tier parts) and compute nothing. Every row of a kind has the same keys
(compare --csv writes one header), a number that is not finite is null (JSON has no NaN or infinity: a free
baseline's infinite price ratio is said by its verdict), and an interval is [low, high] or null.
"""
from __future__ import annotations

import math
from typing import Any, Iterator

from model.common.formatting import finite_or_none as num
from model.common.formatting import finite_pair
from model.mechanics import arithmetic as ar
from model.acceptance.value import ALPHA, LENGTH, PROFILE
from model.comparison.guarantee import ALPHA_WITHHELD, LENGTH_UNIT
from model.comparison.load_speed import LoadSpeed
from model.comparison.measured_speed import MeasuredSpeed
from model.comparison.quality import quality_note, quality_verdict
from model.comparison.result import Comparison
from model.comparison.verdicts import BREAK_EVEN_NAMES, VALUE_NAMES, VERDICT_NAMES


def pair_records(cmp: Comparison) -> list[dict[str, Any]]:
    return list(iter_pair_records(cmp))


def iter_pair_records(cmp: Comparison) -> Iterator[dict[str, Any]]:
    """The records one at a time: `compare --json` of 300,000 classes x 8 tiers held 2.4 million."""
    for i, tier in enumerate(cmp.tier_names):
        for j, cls in enumerate(cmp.class_names):
            yield {
                "tier": tier, "task_class": cls, "unconfirmed": bool(cmp.tiers.unconfirmed[i]),
                "k": int(cmp.tiers.k[i]), "alpha": num(cmp.cells.alpha[i, j]),
                "alpha_source": cmp.cells.alpha_source[i][j],
                "c": num(cmp.cells.c[i, j]), "v": num(cmp.cells.v[i, j]),
                "break_even": BREAK_EVEN_NAMES[int(cmp.cells.break_even_kind[i, j])],
                "break_even_alpha": num(cmp.cells.break_even_alpha[i, j]), "margin": num(cmp.cells.margin[i, j]),
                "tokens_per_stretch": num(cmp.cells.tokens_per_stretch[i, j]),
                "trailer_fill": num(cmp.cells.trailer_fill[i, j]), "speedup": num(cmp.cells.speedup[i, j]),
                "optimal_k": (int(cmp.cells.optimal_k[i, j]) if cmp.tiers.speculative[i] and not cmp.is_refused(i, j)
                              and not cmp.cell_not_given(i, j) else None),
                "optimal_speedup": num(cmp.cells.optimal_speedup[i, j]),
                "cost_factor": num(cmp.cells.cost_factor[i, j]),
                "verdict": VERDICT_NAMES[int(cmp.cells.verdict[i, j])],
                "price_ratio": num(cmp.cells.price_ratio[i, j]),
                "price_break_even": BREAK_EVEN_NAMES[int(cmp.cells.price_break_even_kind[i, j])],
                "price_break_even_alpha": num(cmp.cells.price_break_even_alpha[i, j]),
                "value_verdict": VALUE_NAMES[int(cmp.cells.value_verdict[i, j])],
                "verdict_basis": cmp.basis(i, j),
                "alpha_interval": finite_pair(cmp.cells.alpha_low[i, j], cmp.cells.alpha_high[i, j]),
                "interval_note": cmp.cells.alpha_note[i][j] or None,
                "confidence": num(cmp.cells.alpha_confidence[i, j]),
                "speedup_interval": finite_pair(cmp.cells.speedup_low[i, j], cmp.cells.speedup_high[i, j]),
                "speedup_vs_baseline": num(cmp.cells.speedup_vs_baseline[i, j]),
                "speedup_vs_baseline_interval": finite_pair(cmp.cells.speedup_vs_baseline_low[i, j],
                                                            cmp.cells.speedup_vs_baseline_high[i, j]),
                **acceptance_record(cmp, i, j),
                "quality_verdict": quality_verdict(cmp, i) or None, "quality_note": quality_note(cmp, i) or None,
            }


def acceptance_record(cmp: Comparison, i: int, j: int) -> dict[str, Any]:
    """The acceptance fields of one (tier, class).

    E (mean_acceptance_length) sits next to the break-even in the same unit, tokens per verify step;
    a profile's or a length's break-even alpha is null, and break_even_alpha_note says why.
    """
    grid = cmp.cells.acceptance
    kind = grid.KIND_CODES[int(grid.kind[i, j])]
    spec = bool(cmp.tiers.speculative[i])
    out: dict[str, Any] = {
        "acceptance_kind": kind,
        "mean_acceptance_length": num(cmp.cells.tokens_per_stretch[i, j]),
        "extrapolated": bool(spec and cmp.cells.extrapolated[i, j]),
        "optimal_k_extrapolated": bool(spec and cmp.cells.optimal_k_extrapolated[i, j]),
        "break_even_length": num(cmp.cells.break_even_length[i, j]),
        "price_break_even_length": num(cmp.cells.price_break_even_length[i, j]),
        "profile": grid.profile_list(i, j),
        "mean_acceptance_length_interval": (finite_pair(cmp.cells.tokens_per_stretch_low[i, j],
                                                        cmp.cells.tokens_per_stretch_high[i, j]) if spec else None),
    }
    # the same keys on every row (compare --csv writes one header for all)
    out["acceptance_measured_k"] = None
    out["break_even_alpha_note"] = None
    out["acceptance_refused"] = cmp.cells.alpha_note[i][j] if cmp.is_refused(i, j) else None
    # the class's acceptance or context nobody gave (TaskClass.defaulted): no number from its placeholders
    out["acceptance_not_given"] = cmp.cell_not_given(i, j) or None
    if out["acceptance_refused"]:
        out["break_even_alpha_note"] = ("does not apply: a tree draft's break-even is break_even_length (tokens per "
                                        "step); its acceptance must be a length or a per-depth profile")
    if kind != ALPHA:
        out["acceptance_measured_k"] = int(grid.length_k[i, j]) if kind == LENGTH else int(grid.positions[i, j])
        what = "a per-position profile" if kind == PROFILE else "a mean acceptance length"
        out["break_even_alpha_note"] = (f"does not apply: the acceptance is {what}, not one per-token alpha; "
                                        "compare mean_acceptance_length with break_even_length")
    return out


def tier_records(cmp: Comparison) -> list[dict[str, Any]]:
    out = []
    for i, tier in enumerate(cmp.tier_names):
        b = int(cmp.tiers.baseline_index[i])
        parts = cmp.tier_parts[i]
        out.append({
            "tier": tier, "speculative": bool(cmp.tiers.speculative[i]), "unconfirmed": bool(cmp.tiers.unconfirmed[i]),
            "baseline": cmp.tier_names[b] if b >= 0 else None,
            "mix_speedup": num(cmp.tiers.mix_speedup[i]), "monthly_cost": num(cmp.tiers.monthly_cost[i]),
            "premium": num(cmp.tiers.premium[i]), "speedup_vs_baseline": num(cmp.tiers.speedup_vs_baseline[i]),
            "price_per_speedup": num(cmp.tiers.price_per_speedup[i]), "cost_factor": num(cmp.tiers.cost_factor[i]),
            "claimed_speedup": num(cmp.claims.speedup[i]), "claim_context": num(cmp.claims.context[i]),
            "claim_implied_alpha": num(cmp.claims.alpha[i]),
            "claim_reachable": (None if math.isnan(cmp.claims.speedup[i]) or not cmp.tiers.speculative[i]
                                or cmp.made_up(i) else bool(cmp.claims.kind[i] != ar.NEVER)),
            "claim_holds": cmp.claims.holds[i], "verdict": VERDICT_NAMES[int(cmp.tiers.verdict[i])],
            "price_ratio": num(cmp.tiers.price_ratio[i]),
            "price_break_even": BREAK_EVEN_NAMES[int(cmp.tiers.price_break_even_kind[i])],
            "price_break_even_alpha": num(cmp.tiers.price_break_even_alpha[i]),
            "effective_alpha": num(cmp.tiers.effective_alpha[i]),
            "value_verdict": VALUE_NAMES[int(cmp.tiers.value_verdict[i])],
            "incomplete": cmp.tier_made_up(i) or None,
            # mechanics not given, the tier judged on a probe's measured speed (model/comparison/on_measured.py)
            "judged_on_measured": cmp.judged_on_measured(i),
            "mechanics_not_given": cmp.made_up(i) or None,
            "baseline_incomplete": cmp.baseline_withheld(i) or None,
            # list prices nobody typed: no bill, premium, cost per 1x, price ratio or fair price (null above)
            "prices_not_given": bool(cmp.prices_not_given(i)),
            "acceptance_refused": cmp.refused_classes(i) or None,
            # a class nobody filled in: no mix, verdicts, fair price or claim (docs/design/verdicts.md)
            "mix_waits_for": cmp.mix_waits(i) or None,
            "too_few_requests": cmp.too_few_classes(i) or None,
            **measured_record(parts.measured),
            "confidence": cmp.confidence,
            "alpha_interval": finite_pair(cmp.tiers.effective_alpha_low[i], cmp.tiers.effective_alpha_high[i]),
            "speedup_interval": finite_pair(cmp.tiers.mix_speedup_low[i], cmp.tiers.mix_speedup_high[i]),
            "speedup_vs_baseline_interval": finite_pair(cmp.tiers.speedup_vs_baseline_low[i],
                                                        cmp.tiers.speedup_vs_baseline_high[i]),
            "fair_price_factor": num(cmp.fair.factor[i]),
            "fair_price_factor_low": num(cmp.fair.factor_low[i]),
            "fair_price_in": num(cmp.fair.price_in[i]), "fair_price_out": num(cmp.fair.price_out[i]),
            "fair_price_in_low": num(cmp.fair.price_in_low[i]),
            "fair_price_out_low": num(cmp.fair.price_out_low[i]),
            "acceptance_to_guarantee": num(cmp.tiers.price_break_even_alpha[i]),
            **load_record(parts.at_load),
            **guarantee_record(cmp, i),
            **terms_record(cmp, i),
            "quality_verdict": quality_verdict(cmp, i) or None, "quality_note": quality_note(cmp, i) or None,
        })
    return out


def terms_record(cmp: Comparison, i: int) -> dict[str, Any]:
    """Tier i's downgraded share, mix and bill on the requests served fast, SLA and price source."""
    terms = cmp.terms
    return {
        "downgraded_share": num(terms.downgraded_share[i]),
        "downgraded_interval": finite_pair(terms.downgraded_low[i], terms.downgraded_high[i]),
        "mix_speedup_served_fast": num(terms.mix_speedup_fast[i]),
        "monthly_cost_served_fast": num(terms.monthly_cost_fast[i]),
        "sla": terms.sla_record[i],
        "price_source": terms.price_source[i] or None,
    }


def measured_record(m: MeasuredSpeed) -> dict[str, Any]:
    return {"measured_speedup": m.measured, "measured_note": m.note or None,
            "modelled_speedup": m.modelled, "measured_vs_modelled": m.agreement or None,
            "measured_doubt": m.doubt or None}


def load_record(at: LoadSpeed) -> dict[str, Any]:
    return {"concurrency": at.concurrency, "speedup_at_concurrency": at.speedup,
            "speedup_at_concurrency_source": at.source,
            "value_verdict_at_concurrency": at.value or None,
            "measured_by_concurrency": [{"concurrency": n, "speedup_measured": s, "throttled": t}
                                        for n, (s, t) in at.levels.items()]}


def guarantee_record(cmp: Comparison, i: int) -> dict[str, Any]:
    """The per-tier guarantee fields: the length always (where the tier has a value verdict), the alpha only for an
    all-alpha mix (null with guarantee_note otherwise)."""
    g = cmp.tier_parts[i].guarantee
    t = cmp.tiers
    out: dict[str, Any] = {
        "guarantee_unit": g.unit,
        "guarantee_length": num(t.price_break_even_length[i]),
        "runs_like_length": num(t.effective_length[i]),
        "runs_like_length_interval": finite_pair(t.effective_length_low[i], t.effective_length_high[i]),
        "guarantee_note": None,
    }
    if g.unit == LENGTH_UNIT:
        out.update({"acceptance_to_guarantee": None, "price_break_even_alpha": None, "effective_alpha": None,
                    "alpha_interval": None, "guarantee_note": ALPHA_WITHHELD})
    return out
