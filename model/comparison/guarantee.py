"""The acceptance to guarantee per tier: the mix's price break-even, in the unit that holds for its draft.

Derivation (docs/design/verdicts.md#the-acceptance-to-guarantee), in the notation of
docs/design/arithmetic.md#notation. Class i's verify step costs s_i = K c_i + v_i target decode steps and emits E_i
tokens, so its speedup is S_i = E_i / s_i and its time per token s_i / E_i. Time adds up, so with token shares w_i
the mix speedup is S_mix = sum(w) / sum(w_i s_i / E_i). Held at one acceptance length E on every class, S_mix = E /
s_bar, where s_bar = sum(w_i s_i) / sum(w) is the token-weighted mean step cost. The tier is worth its list price
when its speed over the baseline reaches the price ratio R (monthly cost over the baseline's,
docs/design/verdicts.md#the-value-verdict): S_mix >= R S_base =: S_need. So the acceptance length to guarantee, in
tokens per verify step at the tier's K, is

    E_g = S_need * s_bar,

and the length the workload runs like now is E_now = S_mix * s_bar = sum(w_i s_i) / sum(w_i s_i / E_i), the
step-cost-weighted harmonic mean of the classes' lengths: worth it exactly when E_now >= E_g, the same test as
S_mix >= S_need. Where every class has the same price ratio and baseline speedup, E_g is the token-weighted
mean of the classes' price break-even lengths (Comparison.cells.price_break_even_length). A chain draft of K
emits 1 to K + 1 tokens a step (a tree: 1 to depth + 1, its K being its depth), so E_g <= 1 pays at any
acceptance and E_g >= K + 1 at none: the kinds the comparison's alpha solve of the same target already has.

For classes that are all per-token alphas (i.i.d.), E_g = E(alpha_g, K), and alpha_g (the uniform alpha the
comparison solves, Comparison.tiers.price_break_even_alpha) is kept as the guarantee: it is what a vendor states.
Where any class is a per-position profile or a mean acceptance length (and so on every tree draft, which refuses an
alpha), one alpha describes nothing the vendor runs: the guarantee is E_g, with the alpha withheld and why.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from model.mechanics import arithmetic as ar
from model.common import formatting as fmt

ALPHA_UNIT, LENGTH_UNIT = "alpha", "length"
ALPHA_WITHHELD = ("does not apply: a class's acceptance is a per-position profile or a mean acceptance length "
                  "(or the draft is a tree), not one per-token alpha; compare runs_like_length with guarantee_length")


def guarantee_lengths(mix_needed: NDArray[np.float64], mix: NDArray[np.float64], mix_low: NDArray[np.float64],
                      mix_high: NDArray[np.float64], mean_stretch: NDArray[np.float64], tier_ok: NDArray[np.bool_],
                      length_unit: NDArray[np.bool_]) -> dict[str, NDArray[Any]]:
    """compare()'s per-tier fields (TierResult's): E_g and E_now (with its interval's ends) as derived above, and
    whether the guarantee is stated as a length (any class not an alpha). NaN where the tier has no value verdict."""
    with np.errstate(invalid="ignore", over="ignore"):
        def on(x: NDArray[np.float64]) -> NDArray[np.float64]:
            return np.where(tier_ok & np.isfinite(x), x * mean_stretch, np.nan)
        return {"price_break_even_length": on(mix_needed), "effective_length": on(mix),
                "effective_length_low": on(mix_low), "effective_length_high": on(mix_high),
                "guarantee_is_length": np.asarray(length_unit, dtype=bool)}


def length_unit(kind: NDArray[np.int8], refused: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Per tier: any class a length or a profile (kind != 0), or refused as an alpha on a tree draft."""
    if kind.shape[1] == 0:
        return np.zeros(kind.shape[0], dtype=bool)
    return ((kind != 0) | refused).any(axis=1)


@dataclass(frozen=True)
class Guarantee:
    """Tier i's acceptance to guarantee in its unit, beside what the workload runs like now."""

    unit: str  # ALPHA_UNIT or LENGTH_UNIT
    kind: int  # ar.ALWAYS / ROOT / NEVER, -1: no value verdict
    value: float  # the alpha or E_g (NaN: none)
    runs_like: float
    runs_low: float
    runs_high: float
    k: int

    def text(self, digits: int = 1) -> str:
        """'66.2%' or 'AL 2.91 @K5'; the kind's words where there is no number."""
        if self.kind == ar.ALWAYS:
            return "any (always pays)"
        if self.kind == ar.NEVER:
            return f"none at K={self.k}"
        if self.kind != ar.ROOT or not math.isfinite(self.value):
            return ""
        return fmt.pct(self.value, digits) if self.unit == ALPHA_UNIT else length_text(self.value, self.k)

    def runs_text(self, digits: int = 1) -> str:
        if self.unit == ALPHA_UNIT:
            ends = (fmt.finite_or_none(x) for x in (self.runs_like, self.runs_low, self.runs_high))
            return fmt.pct_interval(*ends, digits=digits)
        text = length_text(self.runs_like, self.k)
        if math.isfinite(self.runs_low) and math.isfinite(self.runs_high):
            text += f" ({self.runs_low:.2f}–{self.runs_high:.2f})"
        return text


def length_text(e: float, k: int) -> str:
    return f"AL {e:.2f} @K{k}" if math.isfinite(e) else ""
