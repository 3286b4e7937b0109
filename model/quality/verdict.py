"""The quality verdict at a temperature: lossy, lossless (with the size the run could see) or undecided.

- lossy: the test rejects "same distribution" at the stated confidence;
- lossless: it does not, and the run had at least 80% power against a sharpening of SIZE (q ∝ p^1.1) or smaller;
- undecided: it does not, and the run was too small for that power; ``more_requests`` says how many more would do.
Which test ran, and why, is part of the result (docs/design/quality.md).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

LOSSY, LOSSLESS, UNDECIDED = "lossy", "lossless", "undecided"
SIZE = 1.1  # the sharpening a lossless verdict must have been able to see with 80% power
SCORE_TEST = "logprob score"
TWO_SAMPLE = "two-sample permutation"


@dataclass
class QualityVerdict:
    temperature: float
    test: str
    why: str
    tokens: int | None
    requests: int
    statistic: float
    p_value: float
    verdict: str
    detectable: float | None  # the least beta with 80% power; None: none up to q ∝ p^4
    confidence: float
    size: float = SIZE
    more_requests: int | None = None  # undecided: further requests for 80% power at ``size``

    def detectable_words(self) -> str:
        """The size the run could see, as an analyst reads it."""
        if self.detectable is None:
            return "no sharpening up to q ∝ p^4 had 80% power at this budget"
        text = f"a sharpening to q ∝ p^{self.detectable:.2f} or more"
        if self.temperature > 0:
            text += (f" (sampling as if at temperature {self.temperature / self.detectable:.2f} instead of "
                     f"{self.temperature:g})")
        return text + " had at least 80% power"

    def words(self) -> str:
        """One line: the finding, its p-value, what it means, how small a shift the run could have seen."""
        p = "p < 0.001" if self.p_value < 0.001 else f"p = {self.p_value:.3f}"
        head = f"{self.test} test at temperature {self.temperature:g} ({p}, {self.requests} requests"
        head += f", {self.tokens} tokens)" if self.tokens else ")"
        if self.verdict == LOSSY:
            return (f"{head}: lossy — the fast tier's samples do not come from the standard tier's model "
                    f"({'sharper' if self.statistic > 0 else 'differently spread'} than it); {self.detectable_words()}")
        if self.verdict == LOSSLESS:
            return f"{head}: lossless on this evidence — {self.detectable_words()}"
        more = f"; about {self.more_requests} more requests would see q ∝ p^{self.size:g}" if self.more_requests else ""
        return f"{head}: undecided — {self.detectable_words()}{more}"

    def to_dict(self) -> dict:
        out = asdict(self)
        out["detectable_words"] = self.detectable_words()
        out["words"] = self.words()
        return out


def decide(p_value: float, detectable: float | None, confidence: float, needed_requests: float | None,
           requests: int, size: float = SIZE) -> tuple[str, int | None]:
    """The verdict and, when undecided, the further requests 80% power at ``size`` needs (None: no estimate)."""
    if p_value < 1 - confidence:
        return LOSSY, None
    if detectable is not None and detectable <= size:
        return LOSSLESS, None
    if needed_requests is None or not math.isfinite(needed_requests):
        return UNDECIDED, None
    return UNDECIDED, max(1, math.ceil(needed_requests) - requests)
