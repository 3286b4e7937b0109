"""The K an acceptance was measured at against the K the workbook gives a tier, and what applying it does.

A probe finds K from the steps' timing (the largest step seen, minus the bonus token), from the server's draft
tokens over the steps it saw (llama.cpp), or as the server reports it; an engine's metrics give it as the
positions of their per-position counters or the draft tokens per draft. The workbook's tier has its own K,
typed from a datasheet or a guess. When they differ, every number the comparison makes for the tier is at
the workbook's K: its draft cost K c + v, and E from the measured profile, which past the positions measured is
extended by the stated rule and labelled extrapolated (model/acceptance/profiles.py). So the probe says so, in
its JSON (``k_mismatch``), its text and the dock, and Apply says what it will do; import-metrics --apply says
which tiers use the acceptance at another K.

What Apply does by default: it sets the tier's K to the K measured. The probe measured the tier the vendor
runs; the acceptance it applies (the alpha at that K, the per-position profile up to it) and the measured
speedup belong to that K, and a workbook K that differs prices drafts the vendor does not run and extrapolates
their acceptance. The analyst who keeps the workbook's K on purpose (a what-if) unticks it, and the words say
which numbers are then extrapolated. One undo step either way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from model.acceptance.profiles import EXTEND_RULE

SOURCE_WORDS = {"timing": "from the steps' timing", "server": "from the server's draft tokens over its steps",
                "reported": "as the server reports it", "metrics": "in the engine's metrics"}


@dataclass(frozen=True)
class KMismatch:
    """The K measured (and where it came from) against the tier's K in the workbook; ``positions``: the most
    per-position rates any class's profile measured (0 where no class has a profile)."""

    measured: int
    source: str
    tier: int
    positions: int = 0
    kind: str = ""  # "profile", "length" or "alpha"; "" reads as a profile where there are positions

    @property
    def headline(self) -> str:
        where = SOURCE_WORDS.get(self.source, "")
        who = "measured at" if self.source == "metrics" else "the probe measured"
        return (f"K mismatch: {who} K = {self.measured}{' ' + where if where else ''}, the workbook's "
                f"tier has K = {self.tier}")

    @property
    def text(self) -> str:
        return f"{self.headline}; numbers at K = {self.tier} {self._at_tier_k()}"

    def _at_tier_k(self) -> str:
        if self.kind == "length":  # a length alone says nothing of the shape: the i.i.d. alpha with its E carries it
            return (f"carry the mean acceptance length measured at K = {self.measured} by the i.i.d. alpha with the "
                    "same E and are labelled extrapolated")
        if not self.positions and self.tier > self.measured:  # an alpha alone: the i.i.d. model is the rule
            return f"carry the alpha measured at K = {self.measured} by the i.i.d. model, E(alpha, K)"
        reach = self.positions or self.measured
        if self.tier > reach:
            return (f"extend the profile measured at {reach} position{'s' if reach != 1 else ''} by the "
                    f"{EXTEND_RULE} rule and are labelled extrapolated")
        return (f"use the first {self.tier} of the {self.measured} positions measured, and price {self.tier} "
                f"draft{'s' if self.tier != 1 else ''} a step where the vendor runs {self.measured}")

    def apply_text(self, set_k: bool) -> str:
        """What Apply does about it, in the dock's words."""
        if set_k:
            return (f"Apply sets the tier's K from {self.tier} to {self.measured}, as measured: the acceptance and "
                    f"the speedup applied were measured at K = {self.measured}, and the draft cost K c + v follows "
                    "the K the vendor runs.")
        return f"Apply keeps the tier's K = {self.tier}: numbers there {self._at_tier_k()}."

    def to_dict(self) -> dict[str, Any]:
        return {"measured": self.measured, "source": self.source, "tier": self.tier, "positions": self.positions,
                "text": self.text}


def k_mismatch(measured: int | None, source: str, tier_k: Any, positions: int = 0, kind: str = "") -> KMismatch | None:
    """The mismatch, or None where the probe measured no K, the tier's K is unknown, or they agree."""
    if not measured or tier_k is None:
        return None
    try:
        tier = int(tier_k)
    except (TypeError, ValueError):
        return None
    if tier < 1 or tier == int(measured):
        return None
    return KMismatch(int(measured), source, tier, int(positions), kind)
