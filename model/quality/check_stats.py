"""Pass rates of checked answers per class and tier, with the prompt as the unit, and the fast tier's against the
baseline's at a margin (docs/design/quality.md).

A prompt's answers (its repeats, its greedy one) are one unit: its pass share. A tier's rate is the mean share over
the class's prompts, its interval Student's t over prompts; the difference is paired by prompt (fast share minus
baseline share). With few prompts the shares often agree exactly (every answer passes on both tiers), and a t
interval of zero width would claim a certainty no handful of prompts gives: the standard error is never taken
below that of two independent proportions with one pass and one failure added to each tier (Agresti and Caffo's
adjustment), so eight prompts that all pass still leave the difference undecided at a two-point margin.

An answer cut at the token budget (the stream's finish reason "length") that fails its check is too short to judge:
code cut inside a statement fails to parse whatever its quality, and the rest might have held the text a regex
looks for. It counts in neither tier's rate, and the class says how many it left out. A cut answer that passes
counts as passed: the text a regex or a `contains` found stays found
(docs/guide/quality.md#answers-cut-at-the-token-budget).

Verdicts at a margin m (points, default 2): `same` when the difference's lower end is at least -m (not worse by
more than the margin); `worse` when its upper end is below -m; otherwise `undecided`.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Hashable, Sequence

SAME, WORSE, UNDECIDED = "same", "worse", "undecided"
MARGIN_POINTS = 2.0


@dataclass(frozen=True)
class ScoredAnswer:
    task_class: str
    prompt: Hashable
    fast: bool
    passed: bool
    cut: bool = False  # failing, stopped at the token budget: too short to judge, in no rate


@dataclass
class TierRate:
    rate: float
    low: float
    high: float
    answers: int
    passed: int
    prompts: int


@dataclass
class ClassChecks:
    task_class: str
    fast: TierRate | None
    baseline: TierRate | None
    difference: float | None  # fast minus baseline, a share
    low: float | None
    high: float | None
    verdict: str | None  # None without a baseline
    margin_points: float
    prompts: int
    cut: int = 0  # failing answers of both tiers cut at the token budget, left out as too short to judge
    answers: int = 0  # every checked answer of both tiers, cut or not

    def to_dict(self) -> dict:
        return asdict(self)

    def words(self) -> str:
        def rate(r: TierRate | None) -> str:
            return "–" if r is None else f"{r.rate:.0%} ({r.low:.0%}–{r.high:.0%})"
        text = f"{self.task_class}: fast {rate(self.fast)}, baseline {rate(self.baseline)}"
        if self.difference is not None:
            text += (f"; difference {100 * self.difference:+.1f} points ({100 * self.low:+.1f} to "
                     f"{100 * self.high:+.1f}): {self.verdict} at a {self.margin_points:g}-point margin")
        text += f" [{self.prompts} prompts]"
        if self.cut:
            text += (f"; {self.cut} of {self.answers} answers cut at max tokens before the check could pass: too "
                     "short to judge, in no rate (raise max tokens)")
        return text


def _t(n: int, confidence: float) -> float:
    from scipy.stats import t

    return float(t.ppf(1 - (1 - confidence) / 2, max(n - 1, 1)))


def _shares(answers: Sequence[ScoredAnswer]) -> dict[Hashable, float]:
    by: dict[Hashable, list[bool]] = {}
    for a in answers:
        by.setdefault(a.prompt, []).append(a.passed)
    return {k: sum(v) / len(v) for k, v in by.items()}


def _adjusted_var(shares: Sequence[float]) -> float:
    n = len(shares)
    p = (sum(shares) + 1) / (n + 2)
    return p * (1 - p) / (n + 2)


def tier_rate(answers: Sequence[ScoredAnswer], confidence: float) -> TierRate | None:
    shares = list(_shares(answers).values())
    if not shares:
        return None
    n = len(shares)
    mean = sum(shares) / n
    var = sum((s - mean) ** 2 for s in shares) / (n - 1) / n if n > 1 else 0.0
    half = _t(n, confidence) * math.sqrt(max(var, _adjusted_var(shares)))
    return TierRate(mean, max(0.0, mean - half), min(1.0, mean + half), len(answers),
                    sum(a.passed for a in answers), n)


def class_checks(answers: Sequence[ScoredAnswer], confidence: float = 0.95,
                 margin_points: float = MARGIN_POINTS) -> list[ClassChecks]:
    """Per class (in first-seen order): each tier's pass rate, and the paired difference with its verdict."""
    out = []
    for name in dict.fromkeys(a.task_class for a in answers):
        every = [a for a in answers if a.task_class == name]
        mine = [a for a in every if not a.cut]
        fast, base = [a for a in mine if a.fast], [a for a in mine if not a.fast]
        fast_rate, base_rate = tier_rate(fast, confidence), tier_rate(base, confidence)
        result = ClassChecks(name, fast_rate, base_rate, None, None, None, None, margin_points,
                             len({a.prompt for a in mine}), len(every) - len(mine), len(every))
        f_shares, b_shares = _shares(fast), _shares(base)
        paired = [k for k in f_shares if k in b_shares]
        if paired:
            d = [f_shares[k] - b_shares[k] for k in paired]
            n = len(d)
            mean = sum(d) / n
            var = sum((x - mean) ** 2 for x in d) / (n - 1) / n if n > 1 else 0.0
            floor = _adjusted_var([f_shares[k] for k in paired]) + _adjusted_var([b_shares[k] for k in paired])
            half = _t(n, confidence) * math.sqrt(max(var, floor))
            low, high = max(-1.0, mean - half), min(1.0, mean + half)
            m = margin_points / 100
            verdict = SAME if low >= -m else WORSE if high < -m else UNDECIDED
            result.difference, result.low, result.high, result.verdict = mean, low, high, verdict
        out.append(result)
    return out
