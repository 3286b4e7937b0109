"""The result of the comparison: every (tier, class) and every tier as arrays, and each tier's typed parts.

``compare`` (model/comparison/compute.py) fills a ``Comparison``; the window, the charts, the report and
``compare --json`` (through model/comparison/records.py) read it. Its per-tier parts (``TierParts``: the measured
speed, the speed at the tier's load, the guarantee) are built once, when it is made; nothing reads back into the
model to make them again.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from model.common.formatting import finite_or_none
from model.acceptance.profiles import AcceptanceGrid
from model.comparison.guarantee import ALPHA_UNIT, LENGTH_UNIT, Guarantee
from model.comparison.load_speed import LoadSpeed, load_speed
from model.comparison.measured_speed import MeasuredSpeed, measured_speed
from model.comparison.verdicts import NOT_APPLICABLE, rests_on_too_few, verdict_basis


@dataclass(frozen=True)
class TierParts:
    """What the comparison says of one tier beyond its numbers, each a typed part built once by ``Comparison``."""

    measured: MeasuredSpeed  # a probe's speedup beside the modelled one, in words
    at_load: LoadSpeed  # the speedup measured at the tier's own concurrency, and the value verdict there
    guarantee: Guarantee  # the acceptance to guarantee, in the unit that holds for the tier's draft


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
    # certainty (docs/design/intervals.md#undecided-verdicts): NaN ends where an acceptance has no interval; speed
    # and value verdicts above are UNDECIDED where the interval reaches both sides of their break-even
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
    # the fair price (docs/design/verdicts.md#the-fair-price): the factor on both list prices at which speed over
    # the baseline equals the price ratio; _low at the pessimistic end of the interval (NaN without one)
    fair_price_factor: NDArray[np.float64]
    fair_price_factor_low: NDArray[np.float64]
    fair_price_in: NDArray[np.float64]
    fair_price_out: NDArray[np.float64]
    fair_price_in_low: NDArray[np.float64]
    fair_price_out_low: NDArray[np.float64]
    equal_weights: bool = False  # no output tokens entered: the mix weighs every class the same
    # per tier: a probe's measured speedup over the baseline (NaN: none) and where/when it was measured;
    # model.comparison.measured_speed sets it beside the modelled speedup in words
    measured_speedup: NDArray[np.float64] | None = None
    measured_note: list[str] = field(default_factory=list)
    # per tier: the parallel streams the analyst runs, and a probe's speedups per concurrency (the tier's
    # text); model.comparison.load_speed reads the one at the tier's concurrency into a verdict at that load
    concurrency: NDArray[np.int64] | None = None
    measured_by_concurrency: list[str] = field(default_factory=list)
    # per tier: "" or why it has no verdicts: mechanics an import made up ("incomplete: needs c and v")
    incomplete: list[str] = field(default_factory=list)
    # per tier: "" or why it has no value verdict though complete itself: its baseline's mechanics were made
    # up ("baseline X is incomplete: needs c and v"); its speed over that baseline is withheld too
    baseline_incomplete: list[str] = field(default_factory=list)
    # acceptance beyond one alpha (model/acceptance/profiles.py): per cell its kind (alpha, length, profile),
    # whether E at the tier's K (or at the optimal K) was extrapolated past what was measured, and the
    # break-evens in tokens per verify step, E* = K c + v and the price's E at which speed pays the price
    acceptance: AcceptanceGrid | None = None
    extrapolated: NDArray[np.bool_] | None = None
    optimal_k_extrapolated: NDArray[np.bool_] | None = None
    break_even_length: NDArray[np.float64] | None = None
    price_break_even_length: NDArray[np.float64] | None = None
    # the interval on E at the tier's K (NaN without one): alpha's carried through E(alpha, K), or a profile's
    # or a length's own (AcceptanceGrid.tokens_interval); the speed and value verdicts use its ends
    tokens_per_stretch_low: NDArray[np.float64] | None = None
    tokens_per_stretch_high: NDArray[np.float64] | None = None
    # per cell: a per-token alpha on a tree draft, refused (no E, speedup or verdicts from it: cells.py's
    # TREE_NEEDS_LENGTH says why); the tier's mix has none while any of its classes is refused
    refused: NDArray[np.bool_] | None = None
    # per tier (model/comparison/guarantee.py): the mix's price break-even and the length it runs like now, in tokens per
    # verify step at the tier's K, and whether the guarantee is stated as that length (a class not an alpha)
    mix_price_break_even_length: NDArray[np.float64] | None = None
    effective_length: NDArray[np.float64] | None = None
    effective_length_low: NDArray[np.float64] | None = None
    effective_length_high: NDArray[np.float64] | None = None
    guarantee_is_length: NDArray[np.bool_] | None = None
    # a vendor's terms (model/comparison/terms.py, docs/design/vendor-terms.md): each class's traffic priced on each
    # tier by band and cache (per 1M tokens, the value verdict's weights), the mix and the monthly cost on the
    # requests served fast (mix_speedup and monthly_cost above are as served: the downgraded share at the standard
    # tier's speed and prices), the downgraded share and its interval, the SLA's sentence, verdict and record, and
    # where each tier's list prices came from
    class_cost: NDArray[np.float64] | None = None
    mix_speedup_fast: NDArray[np.float64] | None = None
    monthly_cost_fast: NDArray[np.float64] | None = None
    mix_speedup_fast_low: NDArray[np.float64] | None = None
    mix_speedup_fast_high: NDArray[np.float64] | None = None
    # what the mix's price ratio divides: the monthly cost (per output token, the classes alike, where no tokens are
    # entered), on the requests served fast and as billed
    price_unit_fast: NDArray[np.float64] | None = None
    price_unit: NDArray[np.float64] | None = None
    downgraded_share: NDArray[np.float64] | None = None
    downgraded_low: NDArray[np.float64] | None = None
    downgraded_high: NDArray[np.float64] | None = None
    downgraded_requests: NDArray[np.int64] | None = None
    sla: list[str] = field(default_factory=list)
    sla_verdict: list[str] = field(default_factory=list)
    sla_record: list[dict[str, Any] | None] = field(default_factory=list)
    price_source: list[str] = field(default_factory=list)
    # per tier, as a probe found it (model/comparison/quality.py): "lossy", "worse", "undecided", "lossless" or ""
    quality_verdict: list[str] = field(default_factory=list)
    quality_note: list[str] = field(default_factory=list)
    # per tier: its mechanics are not given but a probe measured its speed, and its mix, speed and value verdicts,
    # fair price and claim rest on that measured speed (model/comparison/on_measured.py); its per-class cells and
    # every solve of the mechanics stay withheld
    on_measured: NDArray[np.bool_] | None = None
    # per cell: its class's acceptance or context is not given (TaskClass.defaulted; alpha_note says which): no
    # number from the placeholders; and per tier: "" or the class nobody described in full that its mix, and every
    # tier verdict and price from the mix, waits for (docs/design/verdicts.md#a-class-nobody-described)
    not_given: NDArray[np.bool_] | None = None
    mix_not_described: list[str] = field(default_factory=list)
    # per tier: "" or "prices not given" (Tier.missing_prices): its bill, premium, cost per 1x, price ratios, fair
    # price, and those of every tier priced against it, are NaN (docs/design/verdicts.md#prices-nobody-gave)
    unpriced: list[str] = field(default_factory=list)
    # per tier, built once from the arrays above: the measured speedup beside the modelled one, the speedup at the
    # tier's own load with its value verdict there, and the acceptance to guarantee in its unit
    tier_parts: list[TierParts] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.tier_parts = [TierParts(self._measured(i), self._at_load(i), self._guarantee(i))
                           for i in range(len(self.tier_names))]

    def _measured(self, i: int) -> MeasuredSpeed:
        measured = finite_or_none(self.measured_speedup[i]) if self.measured_speedup is not None else None
        note = self.measured_note[i] if self.measured_note else ""
        b = int(self.baseline_index[i])
        modelled = finite_or_none(self.speedup_vs_baseline[i]) if b >= 0 else finite_or_none(self.mix_speedup[i])
        sources = self.alpha_source[i] if self.alpha_source else []
        if self.judged_on_measured(i):  # its mix is the measured speed: no model beside it
            return measured_speed(measured, note, None, sources, bool(self.speculative[i]), judged=True)
        return measured_speed(measured, note, modelled, sources, bool(self.speculative[i]))

    def _at_load(self, i: int) -> LoadSpeed:
        concurrency = int(self.concurrency[i]) if self.concurrency is not None and len(self.concurrency) > i else 1
        text = self.measured_by_concurrency[i] if len(self.measured_by_concurrency) > i else ""
        ratio = finite_or_none(self.mix_price_ratio[i]) if int(self.baseline_index[i]) >= 0 else None
        return load_speed(concurrency, text, ratio, bool(self.speculative[i]))

    def _guarantee(self, i: int) -> Guarantee:
        is_length = self.guarantee_is_length is not None and bool(self.guarantee_is_length[i])
        k, kind = int(self.k[i]), int(self.mix_price_break_even_kind[i])
        if is_length:
            assert self.mix_price_break_even_length is not None and self.effective_length is not None
            assert self.effective_length_low is not None and self.effective_length_high is not None
            return Guarantee(LENGTH_UNIT, kind, float(self.mix_price_break_even_length[i]),
                             float(self.effective_length[i]), float(self.effective_length_low[i]),
                             float(self.effective_length_high[i]), k)
        return Guarantee(ALPHA_UNIT, kind, float(self.mix_price_break_even_alpha[i]), float(self.effective_alpha[i]),
                         float(self.effective_alpha_low[i]), float(self.effective_alpha_high[i]), k)

    def made_up(self, i: int) -> str:
        """Why tier i has no modelled numbers (per-class speedups and verdicts, break-evens): its own made-up
        mechanics ("" if none). Its tier-level mix and verdicts may still stand on a measured speed: tier_made_up."""
        return self.incomplete[i] if self.incomplete else ""

    def judged_on_measured(self, i: int) -> bool:
        """Tier i's mechanics are not given and its mix and verdicts rest on a probe's measured speed."""
        return self.on_measured is not None and bool(self.on_measured[i])

    def tier_made_up(self, i: int) -> str:
        """Why tier i has no mix, speed over its baseline or tier verdicts: its made-up mechanics, unless a measured
        speed stands in for them ("" then, and when complete)."""
        return "" if self.judged_on_measured(i) else self.made_up(i)

    def cell_not_given(self, i: int, j: int) -> str:
        """Why cell (i, j) has no speed: "acceptance not given" and the like ("" when it has its inputs)."""
        return self.alpha_note[i][j] if self.not_given is not None and bool(self.not_given[i, j]) else ""

    def mix_waits(self, i: int) -> str:
        """Why tier i has no mix over the classes, nor the verdicts, fair price and claim from it: a class nobody
        described in full ("class 'X': acceptance not given"); "" when none."""
        return self.mix_not_described[i] if self.mix_not_described else ""

    def tier_withheld(self, i: int) -> str:
        """Why tier i has no mix or tier verdicts: its made-up mechanics, or a class its mix waits for; ""."""
        return self.tier_made_up(i) or self.mix_waits(i)

    def prices_not_given(self, i: int) -> str:
        """"prices not given" where tier i's list prices are placeholders nobody typed (a free tier typed 0 is
        priced); "" otherwise."""
        return self.unpriced[i] if self.unpriced else ""

    def baseline_withheld(self, i: int) -> str:
        """Why tier i has no value verdict or speed over its baseline: the baseline's made-up mechanics."""
        return self.baseline_incomplete[i] if self.baseline_incomplete else ""

    def value_withheld(self, i: int) -> str:
        """What a front end shows for tier i's value verdict when one is withheld: "incomplete" or the
        baseline's reason; "" when the verdict stands."""
        return "incomplete" if self.tier_made_up(i) else self.baseline_withheld(i)

    def too_few(self, i: int, j: int) -> bool:
        """Cell (i, j)'s verdicts rest on an acceptance measured from too few requests for an interval: the
        measured point's verdicts, which no interval decided (model.comparison.verdicts.labelled says so where shown)."""
        return (bool(self.speculative[i]) and not math.isfinite(self.speedup_low[i, j])
                and rests_on_too_few(self.alpha_note[i][j]))

    def too_few_classes(self, i: int) -> list[str]:
        """The classes whose verdicts on tier i rest on too few requests for an interval (the mix's interval
        counts no uncertainty from them)."""
        return [name for j, name in enumerate(self.class_names) if self.too_few(i, j)]

    def basis(self, i: int, j: int) -> str | None:
        """What cell (i, j)'s verdicts rest on (model.comparison.verdicts.verdict_basis); None where it has none."""
        if int(self.verdict[i, j]) == NOT_APPLICABLE:
            return None
        return verdict_basis(math.isfinite(self.speedup_low[i, j]), self.alpha_note[i][j], self.alpha_source[i][j])

    def own_tokens(self, i: int) -> NDArray[np.float64] | None:
        """Per class of tier ``i``: E at its K where the acceptance is a profile or a length, NaN where it is one
        alpha; None where every class is an alpha (model.curves.speedup.context_curves' ``tokens``)."""
        grid = self.acceptance
        if grid is None or not grid.any_beyond_alpha:
            return None
        return np.where(grid.kind[i] != 0, self.tokens_per_stretch[i], np.nan)

    def is_refused(self, i: int, j: int) -> bool:
        return self.refused is not None and bool(self.refused[i, j])

    def refused_classes(self, i: int) -> list[str]:
        """The classes whose per-token alpha tier i's tree draft refused (its mix waits for their lengths)."""
        if self.refused is None:
            return []
        return [name for name, r in zip(self.class_names, self.refused[i]) if r]
