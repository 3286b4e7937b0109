"""The result of the comparison, in typed parts: every (tier, class), every tier, and each tier's parts in words.

``compare`` (model/comparison/compute.py) builds a ``Comparison`` once; the window, the charts, the report and
``compare --json`` (through model/comparison/records.py) read it and compute nothing of their own. Its numbers sit
in groups whose type says their shape: ``cells`` (``CellResult``, tiers x classes), ``tiers`` (``TierResult``, one
per tier), and the per-tier ``fair`` price, ``claims``, vendor's ``terms`` and what a probe measured (``probed``).
Its per-tier parts in words (``TierParts``: the measured speed, the speed at the tier's load, the guarantee) are
built once, when it is made; nothing reads back into the model to make them again. NaN where a number does not
exist. docs/dev/layout.md#the-comparisons-result lists the groups.
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

Floats = NDArray[np.float64]
Flags = NDArray[np.bool_]
Codes = NDArray[np.int8]


@dataclass
class CellResult:
    """Every (tier, class) cell: each array is (tiers x classes), each list is [tier][class].

    Speed verdicts are GAIN / MARGINAL / TAX / UNDECIDED / NOT_APPLICABLE and value verdicts WORTH / NOT_WORTH /
    UNDECIDED / NOT_APPLICABLE (model/comparison/verdicts.py); a break-even's kind is ar.ALWAYS / ROOT / NEVER, -1
    for none. A non-speculative tier's row reads plain decoding (speedup 1, no acceptance or interval)."""

    # the acceptance: alpha, where it came from, its interval at its confidence (NaN ends: none) and why it has
    # none ("" where it has one); the grid holds each cell's kind (alpha, length, profile) beyond one alpha
    alpha: Floats
    alpha_source: list[list[str]]
    alpha_low: Floats
    alpha_high: Floats
    alpha_confidence: Floats
    alpha_note: list[list[str]]
    acceptance: AcceptanceGrid
    # a per-token alpha on a tree draft, refused (no E, speedup or verdicts from it: cells.py's TREE_NEEDS_LENGTH);
    # its class's acceptance or context not given (TaskClass.defaulted; alpha_note says which): no number from the
    # placeholders
    refused: Flags
    not_given: Flags
    # the mechanics (c and v at the class's context), E at the tier's K (tokens per verify step) with its interval,
    # whether E was extrapolated past what was measured, and the trailer's fill (E - 1) / K
    c: Floats
    v: Floats
    tokens_per_stretch: Floats
    tokens_per_stretch_low: Floats
    tokens_per_stretch_high: Floats
    extrapolated: Flags
    trailer_fill: Floats
    # the speed: its break-even (alpha* and E* = K c + v), the margin over it, the speedup with its interval, the
    # speed verdict, the best K and its speedup, and FLOPs per token
    break_even_alpha: Floats
    break_even_kind: Codes
    break_even_length: Floats
    margin: Floats
    speedup: Floats
    speedup_low: Floats
    speedup_high: Floats
    verdict: Codes
    optimal_k: NDArray[np.int64]
    optimal_speedup: Floats
    optimal_k_extrapolated: Flags
    cost_factor: Floats
    # the value: the class's traffic priced on the tier (per 1M tokens, by band and cache), the price ratio over
    # the baseline, the acceptance (and E) where the speed over the baseline pays it, the value verdict, and the
    # speedup over the baseline's speedup on that class with its interval
    class_cost: Floats
    price_ratio: Floats
    price_break_even_alpha: Floats
    price_break_even_kind: Codes
    price_break_even_length: Floats
    value_verdict: Codes
    speedup_vs_baseline: Floats
    speedup_vs_baseline_low: Floats
    speedup_vs_baseline_high: Floats


@dataclass
class TierResult:
    """Every tier: each array is (tiers,) and each list has one entry per tier.

    The mix is the tier's classes combined by their output tokens (every class alike where none are entered), as
    served: under a vendor's terms the downgraded share runs at the standard tier's speed (``terms`` holds the mix
    on the requests served fast). Verdict codes as in ``CellResult``."""

    # the tier itself: computed as speculative (yes or unknown), marked unknown, its K, its baseline (-1: none);
    # "" or why it has no modelled numbers (mechanics an import made up: "incomplete: needs c and v"), "" or why its
    # value verdict is withheld though its own speed stands (the baseline's made-up mechanics or a missing price),
    # and whether its mix and verdicts rest on a probe's measured speed instead (model/comparison/on_measured.py);
    # "" or the class nobody described in full that its mix, and every tier verdict and price from the mix, waits
    # for (docs/design/verdicts.md#a-class-nobody-described); "" or "prices not given" (Tier.missing_prices): its
    # bill, premium, cost per 1x, price ratios, fair price, and those of every tier priced against it, are NaN
    # (docs/design/verdicts.md#prices-nobody-gave)
    speculative: Flags
    unconfirmed: Flags
    k: Floats
    baseline_index: NDArray[np.int64]
    incomplete: list[str]
    baseline_incomplete: list[str]
    on_measured: Flags
    mix_not_described: list[str]
    unpriced: list[str]
    # the speed: the mix with its interval (the classes combined as independent) and the speed verdict
    mix_speedup: Floats
    mix_speedup_low: Floats
    mix_speedup_high: Floats
    verdict: Codes
    # the bill: monthly cost (as billed), premium over the baseline's, cost per 1x of speed, FLOPs per token
    monthly_cost: Floats
    premium: Floats
    price_per_speedup: Floats
    cost_factor: Floats
    # the value: speed over the baseline with its interval, the price ratio (monthly cost over the baseline's),
    # the one acceptance that, held by every class, pays it (alpha, or E in tokens per verify step at the tier's
    # K) and the one the workload runs like now, with its interval; whether the guarantee is stated as that
    # length (model/comparison/guarantee.py); the value verdict
    speedup_vs_baseline: Floats
    speedup_vs_baseline_low: Floats
    speedup_vs_baseline_high: Floats
    price_ratio: Floats
    price_break_even_alpha: Floats
    price_break_even_kind: Codes
    price_break_even_length: Floats
    effective_alpha: Floats
    effective_alpha_low: Floats
    effective_alpha_high: Floats
    effective_length: Floats
    effective_length_low: Floats
    effective_length_high: Floats
    guarantee_is_length: Flags
    value_verdict: Codes


@dataclass
class FairPrice:
    """Per tier (tiers,): the factor on both list prices at which speed over the baseline equals the price ratio,
    and the prices it gives (docs/design/verdicts.md#the-fair-price); ``_low`` at the pessimistic end of the mix's
    interval (NaN without one), NaN where the tier has no value verdict."""

    factor: Floats
    factor_low: Floats
    price_in: Floats
    price_out: Floats
    price_in_low: Floats
    price_out_low: Floats


@dataclass
class ClaimResult:
    """Per tier (tiers,): the vendor's claimed speedup (NaN: none) at its context, the alpha it implies and that
    solve's kind (NEVER: out of reach at any acceptance), and whether the requests served fast reach it (None:
    nothing to judge)."""

    speedup: Floats
    context: Floats
    alpha: Floats
    kind: Codes
    holds: list[bool | None]


@dataclass
class TermsResult:
    """Per tier (tiers,), a vendor's terms (model/comparison/terms.py, docs/design/vendor-terms.md): the downgraded
    share with its interval (NaN: not known) and the requests it was counted on; the mix (with its interval) and the
    monthly cost on the requests served fast; what the mix's price ratio divides (the monthly cost, or per output
    token with no tokens entered) on those and as billed; the SLA's sentence, verdict and record ("", "", None
    without one); where the list prices came from."""

    downgraded_share: Floats
    downgraded_low: Floats
    downgraded_high: Floats
    downgraded_requests: NDArray[np.int64]
    mix_speedup_fast: Floats
    mix_speedup_fast_low: Floats
    mix_speedup_fast_high: Floats
    monthly_cost_fast: Floats
    price_unit_fast: Floats
    price_unit: Floats
    sla: list[str]
    sla_verdict: list[str]
    sla_record: list[dict[str, Any] | None]
    price_source: list[str]


@dataclass
class ProbedResult:
    """Per tier (tiers,), what a probe measured as the workbook holds it: the speedup over the baseline (NaN: none)
    and where and when it was measured; the parallel streams the analyst runs and the speedups measured per
    concurrency (the tier's text, read by model/comparison/load_speed.py); the quality verdict ("lossy", "worse",
    "undecided", "lossless" or "") and its sentence (model/comparison/quality.py)."""

    speedup: Floats
    note: list[str]
    concurrency: NDArray[np.int64]
    by_concurrency: list[str]
    quality_verdict: list[str]
    quality_note: list[str]


@dataclass(frozen=True)
class TierParts:
    """What the comparison says of one tier beyond its numbers, each a typed part built once by ``Comparison``."""

    measured: MeasuredSpeed  # a probe's speedup beside the modelled one, in words
    at_load: LoadSpeed  # the speedup measured at the tier's own concurrency, and the value verdict there
    guarantee: Guarantee  # the acceptance to guarantee, in the unit that holds for the tier's draft


GROUPS = ("cells", "tiers", "fair", "claims", "terms", "probed")


@dataclass
class Comparison:
    """The whole comparison of a workbook: its names, the groups of numbers, and each tier's parts in words."""

    tier_names: list[str]
    class_names: list[str]
    currency: str
    confidence: float  # the workbook's: of the intervals and of the verdicts (docs/design/intervals.md)
    equal_weights: bool  # no output tokens entered: the mix weighs every class the same
    cells: CellResult
    tiers: TierResult
    fair: FairPrice
    claims: ClaimResult
    terms: TermsResult
    probed: ProbedResult
    # per tier, built once from the groups above: the measured speedup beside the modelled one, the speedup at the
    # tier's own load with its value verdict there, and the acceptance to guarantee in its unit
    tier_parts: list[TierParts] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.tier_parts = [TierParts(self._measured(i), self._at_load(i), self._guarantee(i))
                           for i in range(len(self.tier_names))]

    def array(self, path: str) -> Any:
        """A group's field by its path, "cells.speedup" or "tiers.k": what the window's tables name to diff and copy."""
        group, name = path.split(".")
        return getattr(getattr(self, group), name)

    def _measured(self, i: int) -> MeasuredSpeed:
        tiers = self.tiers
        measured, note = finite_or_none(self.probed.speedup[i]), self.probed.note[i]
        b = int(tiers.baseline_index[i])
        modelled = finite_or_none(tiers.speedup_vs_baseline[i]) if b >= 0 else finite_or_none(tiers.mix_speedup[i])
        sources = self.cells.alpha_source[i]
        if self.judged_on_measured(i):  # its mix is the measured speed: no model beside it
            return measured_speed(measured, note, None, sources, bool(tiers.speculative[i]), judged=True)
        return measured_speed(measured, note, modelled, sources, bool(tiers.speculative[i]))

    def _at_load(self, i: int) -> LoadSpeed:
        ratio = finite_or_none(self.tiers.price_ratio[i]) if int(self.tiers.baseline_index[i]) >= 0 else None
        return load_speed(int(self.probed.concurrency[i]), self.probed.by_concurrency[i], ratio,
                          bool(self.tiers.speculative[i]))

    def _guarantee(self, i: int) -> Guarantee:
        t = self.tiers
        k, kind = int(t.k[i]), int(t.price_break_even_kind[i])
        if bool(t.guarantee_is_length[i]):
            return Guarantee(LENGTH_UNIT, kind, float(t.price_break_even_length[i]), float(t.effective_length[i]),
                             float(t.effective_length_low[i]), float(t.effective_length_high[i]), k)
        return Guarantee(ALPHA_UNIT, kind, float(t.price_break_even_alpha[i]), float(t.effective_alpha[i]),
                         float(t.effective_alpha_low[i]), float(t.effective_alpha_high[i]), k)

    def made_up(self, i: int) -> str:
        """Why tier i has no modelled numbers (per-class speedups and verdicts, break-evens): its own made-up
        mechanics ("" if none). Its tier-level mix and verdicts may still stand on a measured speed: tier_made_up."""
        return self.tiers.incomplete[i]

    def judged_on_measured(self, i: int) -> bool:
        """Tier i's mechanics are not given and its mix and verdicts rest on a probe's measured speed."""
        return bool(self.tiers.on_measured[i])

    def tier_made_up(self, i: int) -> str:
        """Why tier i has no mix, speed over its baseline or tier verdicts: its made-up mechanics, unless a measured
        speed stands in for them ("" then, and when complete)."""
        return "" if self.judged_on_measured(i) else self.made_up(i)

    def cell_not_given(self, i: int, j: int) -> str:
        """Why cell (i, j) has no speed: "acceptance not given" and the like ("" when it has its inputs)."""
        return self.cells.alpha_note[i][j] if bool(self.cells.not_given[i, j]) else ""

    def mix_waits(self, i: int) -> str:
        """Why tier i has no mix over the classes, nor the verdicts, fair price and claim from it: a class nobody
        described in full ("class 'X': acceptance not given"); "" when none."""
        return self.tiers.mix_not_described[i]

    def tier_withheld(self, i: int) -> str:
        """Why tier i has no mix or tier verdicts: its made-up mechanics, or a class its mix waits for; ""."""
        return self.tier_made_up(i) or self.mix_waits(i)

    def prices_not_given(self, i: int) -> str:
        """"prices not given" where tier i's list prices are placeholders nobody typed (a free tier typed 0 is
        priced); "" otherwise."""
        return self.tiers.unpriced[i]

    def baseline_withheld(self, i: int) -> str:
        """Why tier i has no value verdict or speed over its baseline: the baseline's made-up mechanics."""
        return self.tiers.baseline_incomplete[i]

    def value_withheld(self, i: int) -> str:
        """What a front end shows for tier i's value verdict when one is withheld: "incomplete" or the
        baseline's reason; "" when the verdict stands."""
        return "incomplete" if self.tier_made_up(i) else self.baseline_withheld(i)

    def too_few(self, i: int, j: int) -> bool:
        """Cell (i, j)'s verdicts rest on an acceptance measured from too few requests for an interval: the
        measured point's verdicts, which no interval decided (model.comparison.verdicts.labelled says so where shown)."""
        return (bool(self.tiers.speculative[i]) and not math.isfinite(self.cells.speedup_low[i, j])
                and rests_on_too_few(self.cells.alpha_note[i][j]))

    def too_few_classes(self, i: int) -> list[str]:
        """The classes whose verdicts on tier i rest on too few requests for an interval (the mix's interval
        counts no uncertainty from them)."""
        return [name for j, name in enumerate(self.class_names) if self.too_few(i, j)]

    def basis(self, i: int, j: int) -> str | None:
        """What cell (i, j)'s verdicts rest on (model.comparison.verdicts.verdict_basis); None where it has none."""
        cells = self.cells
        if int(cells.verdict[i, j]) == NOT_APPLICABLE:
            return None
        return verdict_basis(math.isfinite(cells.speedup_low[i, j]), cells.alpha_note[i][j], cells.alpha_source[i][j])

    def own_tokens(self, i: int) -> NDArray[np.float64] | None:
        """Per class of tier ``i``: E at its K where the acceptance is a profile or a length, NaN where it is one
        alpha; None where every class is an alpha (model.curves.speedup.context_curves' ``tokens``)."""
        grid = self.cells.acceptance
        if not grid.any_beyond_alpha:
            return None
        return np.where(grid.kind[i] != 0, self.cells.tokens_per_stretch[i], np.nan)

    def is_refused(self, i: int, j: int) -> bool:
        return bool(self.cells.refused[i, j])

    def refused_classes(self, i: int) -> list[str]:
        """The classes whose per-token alpha tier i's tree draft refused (its mix waits for their lengths)."""
        return [name for name, r in zip(self.class_names, self.cells.refused[i]) if r]
