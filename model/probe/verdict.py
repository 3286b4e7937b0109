"""Does the tier run speculative decoding? yes / no / inconclusive, with the evidence in words.

The test is against the null of one token per verify step. Under the null a step shows more
than one token only when two steps merge by accident (a client that reads late, a proxy that
buffers); allowing that for up to MERGE_RATE of the steps, the number of multi-token steps is
at most Binomial(steps, MERGE_RATE), and the verdict is "yes" when what was seen would be that
unlikely (p < P_YES). A stream that hides its steps is "inconclusive", never a guess.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from model.probe.steps import StepReading, StyleReading
from model.common import formatting as fmt

MERGE_RATE = 0.01
P_YES = 1e-6
MIN_STEPS = 20
NO_SHARE = 0.02  # at most this share of multi-token steps reads as one token per step


@dataclass(frozen=True)
class Verdict:
    verdict: str  # "yes", "no" or "inconclusive"
    evidence: str
    p_value: float | None  # of the multi-token steps under the null; None when no test was made


def binomial_tail(n: int, m: int, p: float) -> float:
    """P(X >= m) for X ~ Binomial(n, p), summed in log space (n in the thousands)."""
    if m <= 0:
        return 1.0
    if m > n:
        return 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    terms = [math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * log_p + (n - k) * log_q
             for k in range(m, n + 1)]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def _p_text(p: float) -> str:
    return "below 1e-300" if p < 1e-300 else f"{p:.1e}"


def decide(style: StyleReading, steps: StepReading, baseline: StepReading | None = None) -> Verdict:
    base = ""
    if baseline is not None and baseline.steps:
        base = (f" The baseline tier shows {baseline.mean_tokens_per_step:.2f} tokens per step over "
                f"{fmt.count(baseline.steps, 'step')}.")
    if not style.steps_visible:
        return Verdict("inconclusive", f"Stream style: {style.style}. {style.evidence}." + base, None)
    n = steps.steps
    if n < MIN_STEPS:
        return Verdict("inconclusive", f"Only {fmt.count(n, 'step')} {'was' if n == 1 else 'were'} seen; at least {MIN_STEPS} are needed."
                       + base, None)
    multi = sum(1 for s in steps.sizes if s > 1)
    # the baseline read the same way shows how often steps merge by chance on this path
    rate = MERGE_RATE
    if baseline is not None and baseline.steps >= MIN_STEPS:
        rate = min(0.5, max(MERGE_RATE, sum(1 for s in baseline.sizes if s > 1) / baseline.steps))
    p = binomial_tail(n, multi, rate)
    largest = max(steps.sizes)
    seen = (f"{multi} of {fmt.count(n, 'step')} carried more than one token (up to {largest}; "
            f"{steps.mean_tokens_per_step:.2f} per step on average)")
    if multi / n > rate and p < P_YES:
        k = f", K about {steps.k_estimate}" if steps.k_estimate else ""
        return Verdict("yes", f"Stream style: {style.style}. {seen}{k}. If the server emitted one token per step "
                              f"and {rate:.1%} of steps merged by chance, this many would have probability "
                              f"{_p_text(p)}." + base, p)
    if multi / n <= max(NO_SHARE, rate):
        return Verdict("no", f"Stream style: {style.style}. {seen}: consistent with one token per step, "
                             "plain decoding." + base, p)
    return Verdict("inconclusive", f"Stream style: {style.style}. {seen}: too many for chance merging, too few "
                                   f"to call it speculation (probability under the null {_p_text(p)})." + base, p)
