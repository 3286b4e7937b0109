"""The verdict where a stream hides its steps: about speed alone (docs/design/vendor-speed.md#the-verdict-without-steps).

A closed vendor's stream (several tokens a chunk, no logprobs) cannot show its verify steps, so whether the tier
speculates, its alpha and its profile cannot be read from it. What it does show is speed: the output speed of the
requests served fast against the baseline's, with its interval (model.acceptance.rates.speedup_interval,
requests as the unit). The verdict is then "faster" when the interval's low end is above 1, "not faster" when its
high end is below 1 + NO_GAIN (less than any fast tier claims), else "inconclusive"; the evidence says that
acceptance cannot be read from this API.
"""
from __future__ import annotations

from typing import Sequence

from model.probe.by_load import LevelSpeed
from model.probe.steps import StyleReading
from model.probe.verdict import Verdict

FASTER, NOT_FASTER = "faster", "not faster"
HIDDEN = "Acceptance cannot be read from this API"  # how a speed-alone verdict's evidence begins
SPEED_VERDICTS = (FASTER, NOT_FASTER)
NO_GAIN = 0.10  # a speedup whose interval stays below 1.10 is no fast tier's


def steps_hidden(evidence: str) -> bool:
    """A probe's verdict was about speed alone: its stream hid the steps (its evidence says so first)."""
    return evidence.startswith(HIDDEN)


def speed_only(style: StyleReading, levels: Sequence[LevelSpeed], confidence: float) -> Verdict | None:
    """The speed verdict at the quietest level with a baseline, or None where the steps are visible."""
    if style.steps_visible:
        return None
    head = (f"{HIDDEN} (stream style: {style.style}; {style.evidence}), so the "
            "verdict is about speed alone")
    level = next((x for x in sorted(levels, key=lambda x: x.concurrency) if x.speedup_measured is not None), None)
    if level is None:
        return Verdict("inconclusive", f"{head}, and there is no baseline to compare the speed with.", None)
    s, interval = level.speedup_measured, level.speedup_interval
    where = f"at {level.concurrency} stream{'s' if level.concurrency != 1 else ''}"
    if not interval:
        return Verdict("inconclusive", f"{head}: the tier streamed {s:.2f}x its baseline's output speed {where}, "
                                       "on too few requests for an interval.", None)
    lo, hi = interval
    said = (f"{head}: the requests served fast streamed {s:.2f}x the baseline's output speed {where} "
            f"({lo:.2f}-{hi:.2f} at {confidence:.0%}, requests as the unit; time-weighted: tokens over summed time, so a "
            "slow request weighs by its time, where the SLA counts requests)")
    if lo > 1.0:
        return Verdict(FASTER, said + ".", None)
    if hi < 1.0 + NO_GAIN:
        return Verdict(NOT_FASTER, said + f": under a {NO_GAIN:.0%} gain.", None)
    return Verdict("inconclusive", said + ": the interval holds both no gain and a real one.", None)
