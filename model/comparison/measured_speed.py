"""The measured speedup (a probe's, kept on its tier) beside the modelled one and the claim, in words.

A probe measures the fast tier's tokens per second over its baseline's: that is the number the model's
"speedup over the baseline" predicts from c, v and the acceptance. Where the two disagree, one of those
inputs is wrong, and which one to doubt depends on where the acceptance came from: an assumed acceptance is
the first suspect; a measured (or probed) one leaves c and v, the cost of the draft and of the verify pass.

Until a measured speedup carries an interval (the confidence work), two numbers agree when they are within
AGREE_WITHIN of each other, relative: a probe's timing on a shared endpoint moves by about that much.
"""
from __future__ import annotations

from dataclasses import dataclass

from model.common import formatting as fmt

AGREE_WITHIN = 0.10
AGREES, ABOVE, BELOW = "agrees", "above the model", "below the model"


@dataclass(frozen=True)
class MeasuredSpeed:
    measured: float | None  # the probe's speedup over the baseline, None when nothing was measured
    note: str  # where and when: "probed 2026-11-30 at 4K, against Northwind Standard"
    modelled: float | None  # the model's speedup over the baseline (over plain decoding without a baseline)
    agreement: str  # AGREES / ABOVE / BELOW, "" when there is nothing to compare
    doubt: str  # which inputs to doubt, in words; "" when they agree or nothing was measured
    judged: bool = False  # no mechanics given: the tier's verdicts rest on this measured speed

    def words(self) -> str:
        """One sentence: the measured speed, where and when, against the model; '' when none was measured."""
        if self.measured is None:
            return ""
        where = f" ({self.note})" if self.note else ""
        text = f"measured {fmt.times(self.measured)}{where}"
        if self.judged:
            return text + ("; how its fast mode runs is not given, so its mix, verdicts and fair price rest on this "
                           "measured speed.")
        if self.modelled is None:
            return text + "; no modelled speed to compare."
        text += f"; modelled {fmt.times(self.modelled)}"
        if self.agreement == AGREES:
            return text + f": they agree (within {AGREE_WITHIN:.0%})."
        return text + f": measured {self.agreement}. {self.doubt}"


def measured_speed(measured: float | None, note: str, modelled: float | None, sources: list[str],
                   speculative: bool, judged: bool = False) -> MeasuredSpeed:
    """A tier's measured speedup beside its modelled one (over the baseline, or over plain decoding without one),
    with words on what to doubt when they differ. ``sources`` are its classes' acceptance sources ("assumed", ...)."""
    if measured is None or modelled is None or modelled <= 0:
        return MeasuredSpeed(measured, note, modelled, "", "", judged=judged and measured is not None)
    ratio = measured / modelled
    if abs(ratio - 1.0) <= AGREE_WITHIN:
        return MeasuredSpeed(measured, note, modelled, AGREES, "")
    return MeasuredSpeed(measured, note, modelled, ABOVE if ratio > 1 else BELOW,
                         _doubt(sources, speculative, above=ratio > 1, ratio=ratio))


def _doubt(sources: list[str], speculative: bool, above: bool, ratio: float) -> str:
    kinds = {s.split(" ")[0] for s in sources}
    assumed = not kinds or "assumed" in kinds
    off = f"{abs(ratio - 1.0):.0%} {'faster' if above else 'slower'} than modelled"
    if not speculative:
        return (f"It runs {off} while marked not speculative: check the Speculative flag "
                "(a probe's verdict) before the prices.")
    if assumed:
        low = "too low" if above else "too high"
        return (f"It runs {off}: doubt the acceptance first (some classes' α is assumed and may be {low} "
                "for this vendor's draft); measure it, then check c and v.")
    cheaper = "cheaper" if above else "dearer"
    return (f"It runs {off} with a measured acceptance: doubt c and v (the draft and the verify pass are "
            f"{cheaper} than the model says: ask the vendor for the draft model and GPU, or use the roofline), "
            "or the context the probe ran at.")

