"""With logprobs: do the sampled tokens come from the distribution the stream reports? (docs/design/quality.md)

Each token's report is the chosen token's log-probability and the top k tokens'. Coarsened to the k top tokens
plus one "other" bin (the mass m the top k leave), the chosen token's bin is a categorical draw whose
probabilities pi the stream itself gives. The distortion tested for is the sharpening (or flattening) q ∝ p^beta a
lenient acceptance rule produces: beta = 1 is exact sampling, beta > 1 keeps likely tokens more often than the
model would. Under any such sharpening the ratio q / p rises with p, so the chosen token's rank is stochastically
smaller; a statistic h(bin) that falls with the rank then drifts upward. The one used is the score of the
sharpening family, h = log p of the bin's token, with the "other" bin's tokens taken at the k-th token's log p
(an upper bound on each of theirs, which keeps h falling with the rank):

    s_t = h(chosen bin) - sum_b pi_b h(b)

Its mean is exactly 0 under exact sampling, and its variance, Var_pi(h), the report gives. Each token's s_t has
mean 0 given everything before it (the next token is drawn after the earlier ones are fixed), so the sum over a
request's tokens is a martingale: tokens of one request are dependent but uncorrelated in s_t, and the exact
variance of the sum is the sum of the per-token variances. The z statistic divides by the larger of that and the
cluster-robust variance with prompts as clusters (the request-as-unit rule of section 7), so a report that is
slightly off inflates the denominator rather than the false alarms. z > 0: sharper than reported.

Power is computed on the same tokens: under q ∝ p^beta each bin's weight is p_j^beta for a top token, and at most
m p_k^(beta - 1) for the other bin (its tokens are each at most p_k likely); taking that most keeps the other bin
as likely as a sharpening can leave it, so the drift, and the power, are understated: the run could see at least
the stated size. The smallest beta with 80% power is found by bisection on a normal tail.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Hashable, Sequence

import numpy as np

FLOOR = 1e-12  # the least probability a bin is given: a report that sums past 1 leaves "other" nothing
POWER = 0.8
MAX_BETA = 4.0  # beyond q ∝ p^4 a sampler is close to greedy: "none within" is said instead


@dataclass(frozen=True)
class TokenReport:
    top: tuple[float, ...]  # the top tokens' log-probabilities, as the stream gave them
    rank: int  # the chosen token's index in ``top``; -1: not among them (the "other" bin)


@dataclass(frozen=True)
class ReportedRequest:
    prompt: Hashable  # the cluster: the prompt's text digest
    tokens: tuple[TokenReport, ...]


def bins(report: TokenReport) -> tuple[np.ndarray, np.ndarray, int]:
    """The bins (top k, most likely first, then "other"): their h (log p; the other bin at the k-th's) and
    their log-weight offset under sharpening (0; log m - log p_k for the other bin), and the chosen bin's index.
    At beta the bins' weights are exp(beta h + offset); at beta = 1 they are the reported probabilities."""
    top = np.exp(np.asarray(report.top, dtype=np.float64))
    order = np.argsort(-top, kind="stable")
    probs = np.maximum(top[order], FLOOR)
    other = max(1.0 - float(probs.sum()), FLOOR)
    total = float(probs.sum()) + other
    probs, other = probs / total, other / total
    h = np.append(np.log(probs), np.log(probs[-1]) if len(probs) else 0.0)
    offset = np.zeros(len(h))
    offset[-1] = np.log(other) - h[-1]
    chosen = len(top) if report.rank < 0 or report.rank >= len(top) else int(np.flatnonzero(order == report.rank)[0])
    return h, offset, chosen


@dataclass(frozen=True)
class Tokens:
    """Every token's bins as rows (padded with -inf weights where a report gave fewer): h, offsets, chosen bin."""
    h: np.ndarray
    offset: np.ndarray
    chosen: np.ndarray

    @classmethod
    def of(cls, reports: Sequence[TokenReport]) -> "Tokens":
        """The table, vectorised over tokens that report the same number of top tokens (bins() is the rule)."""
        by_width: dict[int, list[int]] = {}
        for n, r in enumerate(reports):
            by_width.setdefault(len(r.top), []).append(n)
        width = max(by_width, default=0) + 1
        h = np.zeros((len(reports), width))
        offset = np.full((len(reports), width), -np.inf)
        chosen = np.zeros(len(reports), dtype=int)
        for k, rows in by_width.items():
            if k == 0:
                h[rows, 0], offset[rows, 0] = 0.0, 0.0
                continue
            top = np.exp(np.asarray([reports[n].top for n in rows], dtype=np.float64))
            order = np.argsort(-top, axis=1, kind="stable")
            probs = np.maximum(np.take_along_axis(top, order, axis=1), FLOOR)
            other = np.maximum(1.0 - probs.sum(axis=1), FLOOR)
            total = probs.sum(axis=1) + other
            probs, other = probs / total[:, None], other / total
            h[rows, :k], h[rows, k] = np.log(probs), np.log(probs[:, -1])
            offset[rows, :k], offset[rows, k] = 0.0, np.log(other) - np.log(probs[:, -1])
            rank = np.asarray([reports[n].rank for n in rows])
            inside = (rank >= 0) & (rank < k)
            where = np.argmax(order == np.where(inside, rank, 0)[:, None], axis=1)
            chosen[rows] = np.where(inside, where, k)
        return cls(h, offset, chosen)

    def weights(self, beta: float) -> np.ndarray:
        z = beta * self.h + self.offset
        w = np.exp(z - z.max(axis=1, keepdims=True))
        return w / w.sum(axis=1, keepdims=True)

    def scores(self) -> tuple[np.ndarray, np.ndarray]:
        """Per token: s_t and its variance under exact sampling."""
        pi = self.weights(1.0)
        mean = (pi * self.h).sum(axis=1)
        chosen = self.h[np.arange(len(self.h)), self.chosen]
        return chosen - mean, (pi * self.h ** 2).sum(axis=1) - mean ** 2

    def moments(self, beta: float) -> tuple[float, float]:
        """Sum over tokens of the mean and the variance of s_t when the draw is from the sharpened bins."""
        pi, q = self.weights(1.0), self.weights(beta)
        base = (pi * self.h).sum(axis=1)
        m = (q * self.h).sum(axis=1)
        return float((m - base).sum()), float(((q * self.h ** 2).sum(axis=1) - m ** 2).sum())


@dataclass
class ScoreResult:
    statistic: float  # z: positive when the draws are sharper than reported
    p_value: float
    tokens: int
    requests: int
    prompts: int
    score: float  # the sum of s_t
    null_variance: float  # its exact variance under exact sampling
    cluster_variance: float  # its prompt-clustered estimate
    detectable_beta: float | None  # the least sharpening with POWER at this budget; None: none up to MAX_BETA
    table: Tokens

    @property
    def null_sd(self) -> float:
        return math.sqrt(max(self.null_variance, self.cluster_variance))

    def power(self, beta: float, confidence: float) -> float:
        """The chance this run's test rejects if the draws came from q ∝ p^beta (normal approximation)."""
        return power_at(self.table, beta, self.null_sd, confidence)

    def tokens_for(self, beta: float, confidence: float) -> float | None:
        """Tokens of this run's kind for POWER at q ∝ p^beta; None when these tokens carry no information."""
        return tokens_for_power(self.table, beta, confidence)


def power_at(table: Tokens, beta: float, null_sd: float, confidence: float) -> float:
    from scipy.stats import norm

    if null_sd <= 0:
        return 0.0
    mean, var = table.moments(beta)
    crit = norm.ppf(1 - (1 - confidence) / 2) * null_sd
    sd = math.sqrt(max(var, 1e-300))
    return float(norm.sf((crit - mean) / sd) + norm.cdf((-crit - mean) / sd))


def smallest_detectable(power: Callable[[float], float], low: float = 1.0, high: float = MAX_BETA) -> float | None:
    """The least beta in (low, high] with power(beta) >= POWER, by bisection on a power rising with beta."""
    if power(high) < POWER:
        return None
    while high - low > 1e-3:
        mid = (low + high) / 2
        if power(mid) >= POWER:
            high = mid
        else:
            low = mid
    return high


def tokens_for_power(table: Tokens, beta: float, confidence: float) -> float | None:
    """How many tokens like these give POWER at beta: n with sqrt(n) d - z_c sqrt(v0) = z_p sqrt(v1) per token."""
    from scipy.stats import norm

    n = len(table.h)
    if not n:
        return None
    null_var = float(table.scores()[1].sum()) / n
    mean, var = table.moments(beta)
    mean, var = mean / n, var / n
    if mean <= 0 or null_var <= 0:
        return None
    z_c, z_p = norm.ppf(1 - (1 - confidence) / 2), norm.ppf(POWER)
    return ((z_c * math.sqrt(null_var) + z_p * math.sqrt(max(var, 0.0))) / mean) ** 2


def score_test(requests: Sequence[ReportedRequest], confidence: float = 0.95) -> ScoreResult:
    """The score test over every token of every request, prompts as clusters."""
    from scipy.stats import norm

    table = Tokens.of([t for r in requests for t in r.tokens])
    scores, variances = table.scores()
    by_prompt: dict[Hashable, tuple[float, int]] = {}
    at = 0
    for request in requests:
        n = len(request.tokens)
        score, count = by_prompt.get(request.prompt, (0.0, 0))
        by_prompt[request.prompt] = score + float(scores[at:at + n].sum()), count + n
        at += n
    total, null_var = float(scores.sum()), float(variances.sum())
    g, mean = len(by_prompt), total / max(len(scores), 1)
    # the prompts' residuals about the common mean (the sandwich's), so a real drift does not widen its own test
    cluster = (g / (g - 1) * sum((v - n * mean) ** 2 for v, n in by_prompt.values())) if g > 1 else 0.0
    sd = math.sqrt(max(null_var, cluster))
    z = total / sd if sd > 0 else 0.0
    p = float(2 * norm.sf(abs(z))) if sd > 0 else 1.0
    detectable = smallest_detectable(lambda b: power_at(table, b, sd, confidence)) if sd > 0 else None
    return ScoreResult(z, p, len(scores), len(requests), g, total, null_var, cluster, detectable, table)
