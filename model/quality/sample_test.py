"""Without logprobs: are the fast tier's samples distributed as the baseline's on the same prompts?
(docs/design/quality.md)

Both tiers answer each prompt several times at the same temperature. A sharpening (q ∝ p^beta, beta > 1) makes a
tier's samples follow the greedy continuation longer, repeat each other more and often end at another length; a
flattening does the opposite. Per prompt and tier, three statistics of the set of samples:

- agreement: how far each sample follows the greedy continuation (the baseline's temperature-0 answer), in words,
  up to AGREE_WORDS, as a share of that; averaged over the samples;
- distinct: distinct word pairs among all pairs of the set's samples (diversity across samples);
- length: mean words per sample.

Each is averaged over prompts as fast minus baseline. Under "same distribution" the samples of one prompt are
exchangeable between the tiers, so the test permutes the tier labels within each prompt (the prompt is the unit;
prompts are never mixed) and recomputes; each statistic is standardised by its permutation spread and the largest
|z| of the three is the test statistic, its p-value the share of permutations at least as extreme, so the three
looks together keep the stated false alarm rate. ``extra`` features (a per-sample number such as the mean logprob
score when the stream's logprobs do not describe its own draws) join the same way.

Power comes from the agreement statistic alone: each prompt's samples give the chance of staying on the greedy path
word by word (p1); a sharpening to q ∝ p^beta makes it p1^beta / (p1^beta + (1 - p1)^beta), treating the other
words as one (which moves p1 least), so the stated detectable size is conservative.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable, Hashable, Sequence

import numpy as np

from model.quality.score_test import POWER, smallest_detectable

AGREE_WORDS = 16
PERMUTATIONS = 999
STATISTICS = ("agreement", "distinct", "length")
_WORD = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class Sample:
    prompt: Hashable
    fast: bool  # the fast tier's sample, else the baseline's
    text: str
    extra: tuple[float, ...] = ()  # further per-sample statistics, averaged per prompt like length


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def agreement(text: str, greedy: str | None) -> float:
    """The share of the first AGREE_WORDS words of the greedy continuation this sample repeats before it departs."""
    if greedy is None:
        return math.nan
    mine, ref = words(text)[:AGREE_WORDS], words(greedy)[:AGREE_WORDS]
    n = next((i for i, (a, b) in enumerate(zip(mine, ref)) if a != b), min(len(mine), len(ref)))
    return n / max(len(ref), 1)


@dataclass
class _Prompt:
    agree: np.ndarray  # per sample (NaN: no greedy continuation to follow)
    incidence: np.ndarray  # samples x distinct word pairs of the prompt's samples
    pair_counts: np.ndarray
    length: np.ndarray
    extra: np.ndarray  # samples x extras
    fast: np.ndarray  # bool per sample

    def stats(self, masks: np.ndarray) -> np.ndarray:
        """Fast minus baseline of every statistic, one row per labelling in ``masks`` (labellings x samples)."""
        agree = np.nan_to_num(self.agree)
        values = np.column_stack([agree, self.length, self.extra])
        out = []
        for m in (masks, ~masks):
            w = m.astype(float)
            n = w.sum(axis=1, keepdims=True)
            means = (w @ values) / n
            union = ((w @ self.incidence) > 0).sum(axis=1)
            total = w @ self.pair_counts
            distinct = np.divide(union, total, out=np.zeros(len(m)), where=total > 0)
            out.append(np.column_stack([means[:, :1], distinct, means[:, 1:]]))
        return out[0] - out[1]


def _prompt(samples: list[Sample], greedy: str | None, extras: int) -> _Prompt:
    toks = [words(s.text) for s in samples]
    pairs = [set(zip(t, t[1:])) for t in toks]
    index = {pair: i for i, pair in enumerate(set().union(*pairs))}
    incidence = np.zeros((len(samples), max(len(index), 1)))
    for row, mine in enumerate(pairs):
        incidence[row, [index[x] for x in mine]] = 1.0
    return _Prompt(np.asarray([agreement(s.text, greedy) for s in samples]), incidence,
                   np.asarray([max(len(t) - 1, 0) for t in toks], float), np.asarray([len(t) for t in toks], float),
                   np.asarray([s.extra for s in samples], float).reshape(len(samples), extras),
                   np.asarray([s.fast for s in samples]))


@dataclass
class SampleResult:
    statistic: float  # the largest |z|
    p_value: float
    names: tuple[str, ...]
    differences: dict[str, float]  # fast minus baseline, mean over prompts, per statistic
    z: dict[str, float]
    prompts: int
    requests: int
    detectable_beta: float | None = None
    requests_for: Callable[[float, float], float | None] = field(default=lambda beta, conf: None, repr=False)


def sample_test(samples: Sequence[Sample], greedy: dict[Hashable, str], confidence: float = 0.95,
                extra_names: tuple[str, ...] = (), seed: int = 0,
                permutations: int = PERMUTATIONS) -> SampleResult:
    """The stratified permutation test over prompts that both tiers answered (see the module docstring)."""
    by_prompt: dict[Hashable, list[Sample]] = {}
    for s in samples:
        by_prompt.setdefault(s.prompt, []).append(s)
    prompts = [_prompt(mine, greedy.get(key), len(extra_names)) for key, mine in by_prompt.items()
               if any(s.fast for s in mine) and not all(s.fast for s in mine)]
    names = STATISTICS + tuple(extra_names)
    if not prompts:
        return SampleResult(0.0, 1.0, names, {}, {}, 0, 0)
    observed = np.mean([p.stats(p.fast[None, :])[0] for p in prompts], axis=0)
    rng = np.random.default_rng(seed)
    # within each prompt, the tier labels shuffled: one row per permutation
    null = np.mean([p.stats(rng.permuted(np.tile(p.fast, (permutations, 1)), axis=1)) for p in prompts], axis=0)
    sd = null.std(axis=0)
    usable = sd > 0
    z_obs = np.where(usable, np.abs(observed) / np.where(usable, sd, 1), 0.0)
    z_null = np.where(usable, np.abs(null) / np.where(usable, sd, 1), 0.0).max(axis=1)
    t = float(z_obs.max())
    p_value = float((1 + (z_null >= t - 1e-12).sum()) / (permutations + 1))
    signed = np.where(usable, observed / np.where(usable, sd, 1), 0.0)
    result = SampleResult(t, p_value, names, dict(zip(names, map(float, observed))), dict(zip(names, map(float, signed))),
                          len(prompts), sum(len(p.fast) for p in prompts))
    agree_sd = float(sd[0])
    crit = float(np.quantile(z_null, confidence))
    if agree_sd > 0 and any(np.isfinite(p.agree).any() for p in prompts):
        paths = [_stay_chances(p.agree) for p in prompts if np.isfinite(p.agree).any()]
        result.detectable_beta = smallest_detectable(lambda b: _power(paths, b, agree_sd, crit))
        result.requests_for = lambda beta, conf: _requests_for(paths, beta, agree_sd, crit, result.requests)
    return result


def _stay_chances(agree: np.ndarray) -> np.ndarray:
    """Per word position, the chance a sample that followed the greedy path so far stays on it (pooled tiers)."""
    steps = np.round(agree[np.isfinite(agree)] * AGREE_WORDS)
    out = np.ones(AGREE_WORDS)
    for m in range(AGREE_WORDS):
        at = (steps >= m).sum()
        out[m] = (steps >= m + 1).sum() / at if at else out[m - 1] if m else 1.0
    return np.clip(out, 1e-3, 1 - 1e-3)


def _expected_agreement(stay: np.ndarray, beta: float) -> float:
    sharp = stay ** beta / (stay ** beta + (1 - stay) ** beta)
    return float(np.cumprod(sharp).mean())


def _shift(paths: list[np.ndarray], beta: float) -> float:
    return float(np.mean([_expected_agreement(s, beta) - _expected_agreement(s, 1.0) for s in paths]))


def _power(paths: list[np.ndarray], beta: float, sd: float, crit: float) -> float:
    from scipy.stats import norm

    return float(norm.sf(crit - _shift(paths, beta) / sd))


def _requests_for(paths: list[np.ndarray], beta: float, sd: float, crit: float, requests: int) -> float | None:
    """Requests (both tiers, in this run's proportions) for POWER at beta: the spread falls as 1 / sqrt(requests)."""
    from scipy.stats import norm

    shift = _shift(paths, beta)
    if shift <= 0:
        return None
    return requests * ((crit + norm.ppf(POWER)) * sd / shift) ** 2
