"""What a chart says for a tier whose mechanics nobody gave (Tier.defaulted: a price list's missing columns, a
vendor preset, a row added by Add row or a paste).

Such a tier may well run speculative decoding: compare() only models nothing from its placeholders
(docs/design/verdicts.md, "incomplete"), so a chart must not call it "not speculative, 1.00x" either. A probe's
measured speed still judges it (Comparison.judged_on_measured), and the note says so.
"""
from __future__ import annotations

import math

from model.common import formatting as fmt
from model.comparison import Comparison


def mechanics_not_given(comparison: Comparison, tier_row: int, tier: str) -> list[str]:
    """The note's lines for tier_row when its mechanics were not given; [] when they were."""
    why = comparison.made_up(tier_row)
    if not why:
        return []
    lines = [f"{tier}: mechanics not given ({why}),", "so nothing is modelled here.",
             "Type its K, c and v (or GPU and pair) in the Tiers table."]
    if comparison.judged_on_measured(tier_row):
        measured = comparison.probed.speedup[tier_row]
        speed = f" ({fmt.times(float(measured))})" if math.isfinite(measured) else ""
        lines.append(f"It is judged on its measured speed{speed}.")
    return lines


def classes_not_given(comparison: Comparison, tier_row: int) -> list[str]:
    """A line per task class with no point on tier_row's charts because its acceptance or context was not given
    (TaskClass.defaulted: a row added by Add row or a paste): "New class: acceptance not given"."""
    if not 0 <= tier_row < len(comparison.tier_names):
        return []
    return [f"{name}: {why}, so not drawn" for j, name in enumerate(comparison.class_names)
            if (why := comparison.cell_not_given(tier_row, j))]


def not_given_key(comparison: Comparison, tier_row: int) -> tuple:
    """The inputs of those notes, for a chart's data_key (an edit that gives the mechanics or a class's acceptance
    redraws it); no NaN in it, or two equal keys would differ."""
    if not 0 <= tier_row < len(comparison.tier_names):
        return ()
    classes = tuple(classes_not_given(comparison, tier_row))
    if not comparison.made_up(tier_row):
        return classes
    return (comparison.made_up(tier_row), "\n".join(mechanics_not_given(comparison, tier_row, "")), classes)
