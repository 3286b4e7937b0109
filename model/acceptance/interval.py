"""An interval on the per-token acceptance alpha from per-request counts: the request is the unit.

The point is the maximum-likelihood alpha (docs/design/arithmetic.md#acceptance-from-counts), alpha = A / N with A
the accepted drafts and N = A + (stretches that stopped short of K): a ratio of two sums over requests. Tokens
within one request are correlated and acceptance differs from prompt to prompt, so a binomial interval over N tokens
is far too narrow (the token is not the unit that was sampled; the prompt is). The method:

- cluster-robust (sandwich) variance of the ratio A / N, with requests as clusters: the linearised
  residuals e_i = a_i - alpha n_i, var(alpha) = G / (G - 1) * sum(e_i^2) / N^2 (the CR1 small-sample
  factor, G requests). It never falls below the binomial variance alpha (1 - alpha) / N: requests that
  happen to agree closely do not make an interval narrower than the tokens alone allow;
- the interval is built on the log-odds, logit(alpha) +- t * se / (alpha (1 - alpha)), and mapped back, so it
  stays inside (0, 1) and is skewed near the ends as a proportion's should be;
- t is Student's t with G - 1 degrees of freedom (the usual correction when there are few clusters);
  with every draft accepted (or none) the centre is taken at (A + 1/2) / (N + 1) so the log-odds exist.

Clusters are prompts, not requests: repeats of one prompt (--repeats, several concurrency levels, a
probe that cycles its prompts) are correlated (at temperature 0 they are nearly the same draws), and only
distinct prompts carry the between-prompt variation the interval is about. Counting each repeat as its own
cluster makes the interval narrower from the same prompts (the demo's code class: 0.780-0.897 from 8 prompts
sent once, 0.816-0.874 from the same 8 sent three times). So ``clusters`` names each request's prompt, the
requests that share one are summed into one cluster (their A and N added) before the variance is made, and G
and the small-sample rule count distinct prompts. The binomial floor likewise counts one request's tokens per
prompt (its trials over its repeats): a prompt sent three times at temperature 0 is one draw of its tokens,
not three. With repeats that agree, the interval is then exactly the one from the prompts sent once.

Where it stops being trustworthy: with fewer than MIN_REQUESTS requests the spread between prompts cannot be
estimated at all, and no interval is printed (TOO_FEW). tests/bench/bench_intervals.py measures the
coverage against known truth (between-prompt spread sd 0.05 to 0.15, K = 4, 256 tokens per request).
"""
from __future__ import annotations

import dataclasses
import functools
import math
from typing import TYPE_CHECKING, Hashable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from model.acceptance.value import COUNTS_ONLY, LENGTH, TOO_FEW, Acceptance

if TYPE_CHECKING:
    import statistics

MIN_REQUESTS = 5
METHOD = "cluster-robust log-odds, t(G-1), requests as clusters"
PROMPT_METHOD = "cluster-robust log-odds, t(G-1), prompts as clusters"


def by_cluster(clusters: Sequence[Hashable], *columns: ArrayLike) -> tuple[np.ndarray, ...]:
    """Each column summed over the requests that share a cluster key, clusters in order of first sight."""
    keys = list(dict.fromkeys(clusters))
    where = {key: i for i, key in enumerate(keys)}
    index = np.fromiter((where[c] for c in clusters), dtype=np.int64, count=len(clusters))
    out = []
    for col in columns:
        v = np.asarray(col, dtype=np.float64).ravel()
        if v.shape != index.shape:
            raise ValueError("clusters must name one cluster per request")
        out.append(np.bincount(index, weights=v, minlength=len(keys)))
    return tuple(out)


def per_request_counts(accepted_per_stretch: Sequence[Sequence[int]], k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(accepted drafts, Bernoulli trials, stretches) per request, from each request's full stretches.

    A stretch that accepted a < K drafts holds a successes and one failure; one that accepted all K holds K
    successes and no failure (the i.i.d. model's trials, as ar.histogram_alpha counts them).
    """
    acc, trials, steps = [], [], []
    for counts in accepted_per_stretch:
        a = np.minimum(np.asarray(counts, dtype=np.int64), k)
        acc.append(int(a.sum()))
        trials.append(int(a.sum() + (a < k).sum()))
        steps.append(int(a.size))
    return np.asarray(acc, dtype=np.float64), np.asarray(trials, dtype=np.float64), np.asarray(steps, dtype=np.int64)


@functools.lru_cache(maxsize=512)
def t_quantile(confidence: float, df: float) -> float:
    from scipy import stats  # lazy: app start stays fast

    return float(stats.t.ppf(0.5 + 0.5 * confidence, df))


@functools.cache
def _normal() -> statistics.NormalDist:
    import statistics  # lazy, as scipy above: the window's first paint needs no quantile

    return statistics.NormalDist()


def _z(p: float) -> float:
    return _normal().inv_cdf(p) if 0.0 < p < 1.0 else math.nan


def z_quantile(confidence: float | np.ndarray) -> float | np.ndarray:
    """The two-sided normal quantile. The standard library's (Wichura's AS241, about 1e-16 relative), not
    scipy's: every compare() asks for it, and importing scipy.stats cost the window's first paint 1.4 s."""
    p = 0.5 + 0.5 * np.asarray(confidence, dtype=np.float64)
    if p.ndim == 0:
        return np.float64(_z(float(p)))
    # once per distinct confidence (a workbook holds a handful), not once per cell
    values, where = np.unique(p, return_inverse=True)
    return np.array([_z(float(x)) for x in values], dtype=np.float64)[where.reshape(p.shape)]


def alpha_interval(accepted: ArrayLike, trials: ArrayLike, confidence: float = 0.95,
                   steps: ArrayLike | None = None, minimum: int = MIN_REQUESTS,
                   clusters: Sequence[Hashable] | None = None) -> Acceptance:
    """The acceptance of requests with ``accepted[i]`` successes in ``trials[i]`` trials, with its interval.

    Requests without a trial (no full stretch) are left out of the count. Below ``minimum`` requests the
    point is given without an interval and the method says TOO_FEW. With ``clusters`` (one key per request,
    its prompt) the requests of one prompt are summed into one cluster first, and ``requests`` of the result
    counts distinct prompts (the module docstring says why).
    """
    a = np.asarray(accepted, dtype=np.float64).ravel()
    n = np.asarray(trials, dtype=np.float64).ravel()
    if a.shape != n.shape:
        raise ValueError("accepted and trials must hold one number per request")
    if np.any(a < 0) or np.any(a > n):
        raise ValueError("each request's accepted drafts must be from 0 to its trials")
    method, floor_n, n_requests = METHOD, None, None
    if clusters is not None:
        n_requests = int(np.count_nonzero(n > 0))  # the requests, before each prompt's are summed
        s = np.asarray(steps, dtype=np.float64).ravel() if steps is not None else np.zeros_like(a)
        a, n, s, sent = by_cluster(clusters, a, n, s, (n > 0).astype(np.float64))
        # the binomial floor counts one request's tokens per prompt: a repeat re-draws the same tokens
        floor_n = float(np.sum(n[n > 0] / sent[n > 0]))
        steps, method = s, PROMPT_METHOD
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be above 0 and below 1 (got {confidence})")
    keep = n > 0
    a, n = a[keep], n[keep]
    total_steps = int(np.asarray(steps).ravel()[keep].sum()) if steps is not None else 0
    g = int(a.size)
    big_a, big_n = float(a.sum()), float(n.sum())
    point = big_a / big_n if big_n > 0 else math.nan
    if g < minimum:
        return Acceptance(point, None, None, None, g, total_steps, TOO_FEW, sent=n_requests)
    centre = point if 0.0 < big_a < big_n else (big_a + 0.5) / (big_n + 1.0)
    resid = a - centre * n
    var_cluster = g / (g - 1.0) * float(np.sum(resid ** 2)) / big_n ** 2
    var = max(var_cluster, centre * (1.0 - centre) / (floor_n or big_n))
    se_logit = math.sqrt(var) / (centre * (1.0 - centre))
    half = t_quantile(confidence, g - 1) * se_logit
    mid = math.log(centre / (1.0 - centre))
    low, high = _expit(mid - half), _expit(mid + half)
    return Acceptance(point, min(low, point), max(high, point), confidence, g, total_steps, method, sent=n_requests,
                      skew=residual_skewness(resid))


def residual_skewness(resid: np.ndarray) -> float:
    """The sample skewness m3 / m2^(3/2) of the units' linearised residuals (they sum to 0): negative where a
    few units (hard prompts) lie far below the rest. 0 where they do not vary."""
    m2 = float(np.mean(resid ** 2))
    return float(np.mean(resid ** 3)) / m2 ** 1.5 if m2 > 0 else 0.0


LENGTH_METHOD = "cluster-robust log-odds on the fill (E - 1) / K, t(G-1), requests as clusters"


def length_interval(accepted: ArrayLike, steps: ArrayLike, k: int, confidence: float = 0.95,
                    minimum: int = MIN_REQUESTS, clusters: Sequence[Hashable] | None = None) -> Acceptance:
    """The interval on a mean acceptance length E at K from each request's accepted drafts and verify steps.

    E = 1 + A / S is a ratio of two sums over requests, like alpha: the same method applies to the trailer fill F =
    (E - 1) / K = A / (K S), a proportion (accepted drafts of the K S draft slots), and its ends are carried to E =
    1 + K F. The request is the unit for the same reason (docs/design/intervals.md#intervals-on-e). ``kind`` is
    LENGTH and ``point`` is E; the fill's binomial floor treats the slots as independent, which only ever widens the
    interval. ``clusters`` (each request's prompt) as for alpha_interval.
    """
    a = np.asarray(accepted, dtype=np.float64).ravel()
    s = np.asarray(steps, dtype=np.float64).ravel()
    if k < 1:
        raise ValueError(f"K must be at least 1 (got {k})")
    if a.shape != s.shape or np.any(a > k * s) or np.any(a < 0):
        raise ValueError("each request's accepted drafts must be from 0 to K times its steps")
    fill = alpha_interval(a, k * s, confidence, s, minimum, clusters=clusters)

    def to_e(f: float | None) -> float | None:
        return None if f is None else 1.0 + k * float(f)

    return Acceptance(1.0 + k * fill.point, to_e(fill.low), to_e(fill.high), fill.confidence, fill.requests, fill.steps,
                      fill.method if fill.method != METHOD else LENGTH_METHOD, LENGTH, skew=fill.skew)


def token_level_interval(accepted: float, trials: float, confidence: float = 0.95) -> tuple[float, float]:
    """The naive interval that treats every token as independent (Wilson score): for comparison only."""
    z = float(z_quantile(confidence))
    p = accepted / trials
    denom = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return centre - half, centre + half


def _expit(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def alpha_interval_from_reports(requests: Sequence[object], k: int | None, point: float, confidence: float = 0.95,
                                e_matched: bool = False, clusters: Sequence[Hashable] | None = None) -> Acceptance:
    """The interval on an engine-reported alpha from its per-request counts (engines.reports.SpecCounts, read
    by attribute), or COUNTS_ONLY where the source added everything up before we saw it.

    With a histogram per request the ML alpha's own interval applies. Otherwise (or where the applied alpha is
    E-matched, ``e_matched``) the interval is made on the draft acceptance rate accepted / drafted (the same
    ratio estimator, requests as clusters) and its ends carried to alpha through the rate's monotone map at K
    (arithmetic.draft_acceptance_rate_to_alpha, which is the E-matched rule). The interval is widened to hold
    ``point`` where the two rules differ slightly. ``clusters`` (each request's prompt) as for alpha_interval.
    """
    from model.mechanics import arithmetic as ar

    if not requests or not k:
        return Acceptance(point, None, None, None, len(requests), 0, COUNTS_ONLY)
    trials_of = [getattr(r, "alpha_trials", None) for r in requests]  # (accepted, accepted + rejecting steps)
    if not e_matched and all(t is not None for t in trials_of):
        acc = np.array([t[0] for t in trials_of], dtype=np.float64)
        trials = np.array([t[1] for t in trials_of], dtype=np.float64)
        steps = np.array([float(getattr(r, "steps", None) or 0.0) for r in requests])
        return _holding(alpha_interval(acc, trials, confidence, steps, clusters=clusters), point)
    hists = [getattr(r, "histogram", None) for r in requests]
    if not e_matched and all(h is not None and len(h) == k + 1 for h in hists):
        acc = np.array([float(np.dot(np.arange(k + 1), h)) for h in hists])
        trials = acc + np.array([float(np.sum(h[:-1])) for h in hists])
        steps = np.array([float(np.sum(h)) for h in hists])
        out = alpha_interval(acc, trials, confidence, steps, clusters=clusters)
        return _holding(out, point)
    acc_t = [getattr(r, "accepted", getattr(r, "accepted_tokens", None)) for r in requests]
    drafted = [d if (d := getattr(r, "draft_tokens", None)) is not None else
               (s * k if (s := getattr(r, "steps", None)) is not None else None) for r in requests]
    if any(a is None for a in acc_t) or any(d is None for d in drafted):
        return Acceptance(point, None, None, None, len(requests), 0, COUNTS_ONLY)
    steps = np.array([float(getattr(r, "steps", None) or 0.0) for r in requests])
    rate = alpha_interval(np.asarray(acc_t, dtype=np.float64), np.asarray(drafted, dtype=np.float64), confidence, steps,
                          clusters=clusters)
    if not rate.has_interval:
        return Acceptance(point, None, None, None, rate.requests, rate.steps, rate.method, sent=rate.sent)
    ends = ar.draft_acceptance_rate_to_alpha(np.array([rate.low, rate.high]), k)
    low, high = (float(x) for x in ends.alpha)
    return _holding(Acceptance(point, low, high, confidence, rate.requests, rate.steps,
                               rate.method + ", on accepted/drafted carried to alpha at K", sent=rate.sent,
                               skew=rate.skew), point)


def _holding(a: Acceptance, point: float) -> Acceptance:
    if not a.has_interval or not math.isfinite(point):
        return dataclasses.replace(a, point=point)
    return dataclasses.replace(a, point=point, low=min(float(a.low), point), high=max(float(a.high), point))  # type: ignore[arg-type]
