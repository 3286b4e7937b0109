"""The arithmetic of speculative decoding, vectorised over numpy arrays.

Notation follows docs/design/arithmetic.md#notation: ``k`` draft tokens per stretch, ``alpha``
the per-token acceptance probability (i.i.d. model), ``c`` one draft forward
relative to one target decode step, ``v`` one target verify pass over k + 1
tokens relative to one target decode step. Every function broadcasts its
arguments like a numpy ufunc.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

# How a solve for alpha came out; kept as small ints so whole grids stay arrays.
ALWAYS = 0  # the target is reached at alpha = 0: the mechanism always pays
ROOT = 1  # exactly one alpha in (0, 1) reaches the target
NEVER = 2  # not even alpha = 1 reaches the target at this k
KIND_NAMES = {ALWAYS: "always", ROOT: "root", NEVER: "never"}

# Below this distance from alpha = 1 the closed form loses digits to cancellation,
# so the first two terms of its Taylor series are used instead.
_NEAR_ONE = 1e-7


def _f(x: ArrayLike) -> NDArray[np.float64]:
    return np.asarray(x, dtype=np.float64)


def expected_tokens(alpha: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """Tokens emitted per stretch, the target's bonus token included: E = (1 - a^(k+1)) / (1 - a)."""
    # what depends on alpha alone is computed at alpha's shape, before broadcasting against k: the optimal-K
    # search asks for 16 K per cell (the same numbers, element for element, at a fraction of the work)
    a, kk = _f(alpha), _f(k)
    q = 1.0 - a
    near = np.abs(q) < _NEAR_ONE
    safe_q = np.where(near, 1.0, q)
    with np.errstate(divide="ignore"):  # log(0) = -inf at alpha = 0 gives E = 1 exactly
        closed = -np.expm1((kk + 1.0) * np.log1p(-np.where(near, 0.0, q))) / safe_q
    out = closed  # already at the broadcast shape: kk and q both take part
    if near.any():
        series = (kk + 1.0) - q * kk * (kk + 1.0) / 2.0
        out = np.where(near, series, closed)
    return out if out.ndim else out[()]


def accepted_per_stretch(alpha: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """Draft tokens accepted per stretch: A = E - 1."""
    return expected_tokens(alpha, k) - 1.0


def trailer_fill(alpha: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    """Share of the k drafted slots that carried cargo: F = (E - 1) / k."""
    return accepted_per_stretch(alpha, k) / _f(k)


def stretch_cost(k: ArrayLike, c: ArrayLike, v: ArrayLike = 1.0) -> NDArray[np.float64]:
    """Time of one stretch in target decode steps: k drafts plus one verify pass."""
    return _f(k) * _f(c) + _f(v)


def speedup(alpha: ArrayLike, k: ArrayLike, c: ArrayLike, v: ArrayLike = 1.0) -> NDArray[np.float64]:
    """Speedup over plain target decoding: S = E / (k c + v)."""
    return expected_tokens(alpha, k) / stretch_cost(k, c, v)


def flops_factor(alpha: ArrayLike, k: ArrayLike, c_flops: ArrayLike) -> NDArray[np.float64]:
    """Arithmetic per emitted token relative to plain decoding: (k c_flops + k + 1) / E.

    The verify pass computes k + 1 target positions whatever is accepted, so this
    is what the speed costs in compute ("the cost including the draft").
    """
    kk = _f(k)
    return (kk * _f(c_flops) + kk + 1.0) / expected_tokens(alpha, k)


@dataclass(frozen=True)
class AlphaSolve:
    """Result of solving E(alpha, k) = target for alpha.

    ``alpha`` is 0 where ``kind`` is ALWAYS, the root where ROOT, and NaN where
    NEVER; callers branch on ``kind``, never on NaN.
    """

    alpha: NDArray[np.float64]
    kind: NDArray[np.int8]

    def kind_name(self, index: int | tuple = ()) -> str:
        return KIND_NAMES[int(np.asarray(self.kind)[index])]


def _tokens_and_slope(q: NDArray[np.float64], kk: NDArray[np.float64], k1: NDArray[np.float64],
                      series_slope: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """E and dE/dq at q = 1 - alpha in (0, 1]: E = (1 - (1 - q)^(k+1)) / q (call under np.errstate).

    Written in q with log1p/expm1 so that E keeps its digits as alpha nears 1, where the roots
    of a large E sit; at q = 1 (alpha = 0) log1p gives -inf and E = 1. The closed-form slope
    cancels for q k below ~1e-4, where the first two terms of its series are exact enough.
    """
    log_a = np.log1p(-q)
    one_minus_p = -np.expm1(k1 * log_a)  # 1 - alpha^(k+1)
    e = one_minus_p / q
    slope = (k1 * q * np.exp(kk * log_a) - one_minus_p) / (q * q)
    return e, np.where(q * kk < 1e-4, series_slope[0] + q * series_slope[1], slope)


def solve_alpha_for_tokens(target_e: ArrayLike, k: ArrayLike, max_iterations: int = 60) -> AlphaSolve:
    """Solve E(alpha, k) = target_e on [0, 1], vectorised Newton in q = 1 - alpha.

    E rises strictly from 1 at alpha = 0 to k + 1 at alpha = 1, so the root is unique when it
    exists. As a function of q, E is convex and decreasing, so Newton started below the root
    climbs to it without overshooting. Two points below it are known in closed form: the
    tangent at alpha = 1, q = (k + 1 - target) / (k (k + 1) / 2), and one Newton step from
    q = 1 / target (E without its alpha^(k+1) term, at or above the root); the larger of the
    two is the start. A handful of steps reach float64 resolution where 54 halvings did
    (the solver was the largest cost of an edit's recompute: five solves a comparison).
    """
    t, kk = np.broadcast_arrays(_f(target_e), _f(k))
    kind = np.full(t.shape, ROOT, dtype=np.int8)
    kind[t <= 1.0] = ALWAYS
    kind[t >= kk + 1.0] = NEVER
    kind[np.isnan(t)] = NEVER
    root = kind == ROOT
    # cells without a root are solved at a harmless stand-in and overwritten below
    tt = np.where(root, t, np.minimum(1.5, 1.0 + 0.5 * kk))
    k1 = kk + 1.0
    series = (-kk * k1 / 2.0, k1 * kk * (kk - 1.0) / 3.0)  # dE/dq = -k(k+1)/2 + q (k+1) k (k-1) / 3 + ...
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q_tangent = (k1 - tt) / (-series[0])
        q_right = 1.0 / tt
        e, slope = _tokens_and_slope(q_right, kk, k1, series)
        q = np.maximum(q_tangent, q_right - (e - tt) / slope)
        # each cell stops at its own convergence, so a cell's root does not depend on which cells are solved
        # with it (model/comparison/cells.py solves a workbook's cells in blocks and must match a full solve)
        active = np.ones(q.shape, dtype=bool)
        for _ in range(max_iterations):
            e, slope = _tokens_and_slope(q, kk, k1, series)
            step = (e - tt) / slope
            q = np.where(active, q - step, q)
            # E's rounding (a few ulp of E) moves the root by about that much over the slope:
            # below it a step is noise, so Newton has converged
            active &= ~(np.abs(step) <= 1e-15 * (q - tt / slope))
            if not active.any():
                break
    # the root is strictly inside (0, 1): keep it there where 1 - q rounds to 0 or 1
    alpha = np.clip(1.0 - q, np.finfo(np.float64).tiny, np.nextafter(1.0, 0.0))
    alpha = np.where(kind == ALWAYS, 0.0, alpha)
    alpha = np.where(kind == NEVER, np.nan, alpha)
    return AlphaSolve(alpha=alpha, kind=kind)


def break_even(k: ArrayLike, c: ArrayLike, v: ArrayLike = 1.0) -> AlphaSolve:
    """The acceptance at which a stretch's cost equals its output: E(alpha*, k) = k c + v."""
    kk = _f(k)
    return solve_alpha_for_tokens(stretch_cost(kk, c, v), kk)


def implied_alpha(claimed_speedup: ArrayLike, k: ArrayLike, c: ArrayLike, v: ArrayLike = 1.0) -> AlphaSolve:
    """The acceptance a vendor's claimed speedup needs: S(alpha; k, c, v) = claimed.

    NEVER here means the claim is out of reach at any acceptance.
    """
    kk = _f(k)
    return solve_alpha_for_tokens(_f(claimed_speedup) * stretch_cost(kk, c, v), kk)


def optimal_k(alpha: ArrayLike, c: ArrayLike, v: ArrayLike = 1.0, k_max: int = 16) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The integer k in 1..k_max that maximises S, and that S."""
    a, cc, vv = np.broadcast_arrays(_f(alpha), _f(c), _f(v))
    ks = np.arange(1, int(k_max) + 1, dtype=np.float64).reshape((-1,) + (1,) * a.ndim)
    s = speedup(a[None], ks, cc[None], vv[None])
    best = np.argmax(s, axis=0)
    best_s = np.take_along_axis(s, best[None], axis=0)[0]
    return best + 1, best_s


# --- the three acceptance conventions -------------------------------------------------
# per-token alpha (this note), draft acceptance rate = accepted / drafted (vLLM; equals
# the trailer fill F), mean acceptance length = 1 + accepted / stretches (equals E).

def alpha_to_draft_acceptance_rate(alpha: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    return trailer_fill(alpha, k)


def alpha_to_mean_acceptance_length(alpha: ArrayLike, k: ArrayLike) -> NDArray[np.float64]:
    return expected_tokens(alpha, k)


def mean_acceptance_length_to_alpha(length: ArrayLike, k: ArrayLike) -> AlphaSolve:
    """Inverse of E: NEVER marks a length above k + 1, which no alpha gives."""
    length_f = _f(length)
    solve = solve_alpha_for_tokens(length_f, k)
    # a length of exactly k + 1 is alpha = 1, a real value rather than "never"
    at_top = np.isclose(length_f, _f(k) + 1.0, rtol=0, atol=1e-12) & (solve.kind == NEVER)
    alpha = np.where(at_top, 1.0, solve.alpha)
    kind = np.where(at_top, ROOT, solve.kind).astype(np.int8)
    return AlphaSolve(alpha=alpha, kind=kind)


def draft_acceptance_rate_to_alpha(rate: ArrayLike, k: ArrayLike) -> AlphaSolve:
    return mean_acceptance_length_to_alpha(1.0 + _f(rate) * _f(k), k)


# --- measured acceptance ----------------------------------------------------------------

def histogram_alpha(histogram: ArrayLike) -> float:
    """Maximum-likelihood alpha from counts of stretches by accepted drafts (index 0..k).

    Under the i.i.d. model each accepted draft is a success and each stretch that
    stopped short of k is one failure: alpha = sum(a) / (sum(a) + #(a < k)).
    """
    h = _f(histogram)
    if h.ndim != 1 or h.size < 2 or np.any(h < 0):
        raise ValueError("histogram must be a 1-D array of k + 1 >= 2 non-negative counts")
    accepted = float(np.dot(np.arange(h.size), h))
    failures = float(h[:-1].sum())
    if accepted + failures == 0:
        raise ValueError("histogram is empty: no stretches were recorded")
    return accepted / (accepted + failures)


def histogram_tokens_per_stretch(histogram: ArrayLike) -> float:
    """Empirical E = mean(a + 1), which needs no i.i.d. assumption."""
    h = _f(histogram)
    n = h.sum()
    if n <= 0:
        raise ValueError("histogram is empty: no stretches were recorded")
    return float(np.dot(np.arange(h.size) + 1.0, h) / n)


def histogram_position_acceptance(histogram: ArrayLike) -> NDArray[np.float64]:
    """P(draft i accepted | drafts before it accepted) for i = 1..k; NaN where no stretch got that far."""
    h = _f(histogram)
    reached = np.cumsum(h[::-1])[::-1]  # reached[i] = stretches with a >= i
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(reached[:-1] > 0, reached[1:] / reached[:-1], np.nan)


def iid_histogram(alpha: float, k: int) -> NDArray[np.float64]:
    """The share of stretches with 0..k accepted drafts that the i.i.d. model predicts."""
    a = np.arange(k + 1)
    p = (alpha ** a) * (1.0 - alpha)
    p[-1] = alpha ** k
    return p


# --- profiles: acceptance per draft position (docs/design/arithmetic.md#profiles-and-mean-acceptance-lengths)
# p_i is the conditional acceptance at position i (accepted at i, given 1..i-1 accepted),
# position 1 first along the last axis; r_i = prod_{j<=i} p_j is the cumulative rate that
# vLLM's per-position counter over drafts measures. E = 1 + sum_{k} r_k, bonus token included.
EXTEND_RULES = ("geometric", "hold")


def conditional_to_cumulative(profile: ArrayLike) -> NDArray[np.float64]:
    """r_i = p_1 ... p_i: the share of stretches that got position i accepted."""
    return np.cumprod(_f(profile), axis=-1)


def cumulative_to_conditional(cumulative: ArrayLike) -> NDArray[np.float64]:
    """p_i = r_i / r_(i-1), r_0 = 1; NaN where r_(i-1) = 0 (no stretch got that far)."""
    r = _f(cumulative)
    before = np.concatenate([np.ones(r.shape[:-1] + (1,)), r[..., :-1]], axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(before > 0, r / np.where(before > 0, before, 1.0), np.nan)


def profile_tokens(profile: ArrayLike, k: ArrayLike | None = None) -> NDArray[np.float64]:
    """E at k drafts from a conditional profile: 1 + sum_{i<=k} prod_{j<=i} p_j (k defaults to its length).

    ``k`` may be an array broadcast against the profile's leading axes; each k must be at
    most the profile's length (extend_profile first).
    """
    p = _f(profile)
    lengths = np.concatenate([np.ones(p.shape[:-1] + (1,)), 1.0 + np.cumsum(np.cumprod(p, axis=-1), axis=-1)], axis=-1)
    if k is None:
        return lengths[..., -1] if lengths.ndim > 1 else lengths[-1]
    kk = np.asarray(k, dtype=np.int64)
    if np.any(kk < 0) or np.any(kk > p.shape[-1]):
        raise ValueError(f"k must be within 0..{p.shape[-1]}, the profile's positions; extend it first")
    shape = np.broadcast_shapes(kk.shape, p.shape[:-1])
    picked = np.take_along_axis(np.broadcast_to(lengths, shape + lengths.shape[-1:]), np.broadcast_to(kk, shape)[..., None], axis=-1)
    out = picked[..., 0]
    return out if out.ndim else out[()]


def extend_profile(profile: ArrayLike, k: int, rule: str = "geometric") -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The profile at positions 1..k, and per position whether it was extrapolated.

    Positions past the measured ones follow a stated rule. "hold": the last measured rate
    is held. "geometric": the rates fall on from the last measured one by the decay ratio
    d of a least-squares line through log p_i over the measured positions (p_(m+j) = p_m d^j),
    with d at most 1: a rising fit is held flat, never extrapolated upward. A NaN marks a
    position not measured (a shorter profile in a stack padded with NaN): it and every
    later position count as unmeasured.
    """
    if rule not in EXTEND_RULES:
        raise ValueError(f"rule must be one of {', '.join(EXTEND_RULES)} (got {rule!r})")
    p = _f(profile)
    measured = np.cumprod(np.isfinite(p), axis=-1).astype(bool)
    m = measured.sum(axis=-1)  # measured positions per profile
    if np.any(m == 0):
        raise ValueError("a profile needs at least its first position measured")
    width = max(int(k), p.shape[-1])
    pad = np.full(p.shape[:-1] + (width - p.shape[-1],), np.nan)
    full = np.concatenate([np.where(measured, p, np.nan), pad], axis=-1)
    pos = np.arange(1, width + 1, dtype=np.float64)
    last = np.take_along_axis(full, (m - 1)[..., None], axis=-1)  # p_m, shape (..., 1)
    if rule == "hold":
        ratio = np.ones_like(last)
    else:
        fit = np.concatenate([measured, np.zeros(pad.shape, dtype=bool)], axis=-1) & (np.nan_to_num(full) > 0)
        n = fit.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            y = np.where(fit, np.log(np.where(fit, full, 1.0)), 0.0)
            x_mean = (pos * fit).sum(axis=-1, keepdims=True) / n
            y_mean = y.sum(axis=-1, keepdims=True) / n
            dx = np.where(fit, pos - x_mean, 0.0)
            slope = (dx * (y - y_mean)).sum(axis=-1, keepdims=True) / (dx * dx).sum(axis=-1, keepdims=True)
        # fewer than two usable positions fit no line: hold
        ratio = np.where((n >= 2) & np.isfinite(slope), np.exp(np.minimum(slope, 0.0)), 1.0)
    steps = pos - m[..., None]  # how far past the last measured position
    extended = last * ratio ** np.maximum(steps, 0.0)
    beyond = steps > 0
    out = np.where(beyond, extended, full)[..., : int(k)]
    return out, beyond[..., : int(k)]


def profile_optimal_k(profile: ArrayLike, c: ArrayLike, v: ArrayLike, k_max: int,
                      rule: str = "geometric") -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.bool_]]:
    """The k in 1..k_max maximising E(k) / (k c + v), its speedup, and whether that k was extrapolated.

    ``v`` may vary with k: give it with a last axis of length k_max (v at k = 1..k_max).
    """
    ext, beyond = extend_profile(profile, k_max, rule)
    ks = np.arange(1, int(k_max) + 1, dtype=np.float64)
    e = 1.0 + np.cumsum(np.cumprod(ext, axis=-1), axis=-1)  # E at k = 1..k_max
    cc = _f(c)[..., None]
    vv = _f(v)
    vv = vv if vv.ndim and vv.shape[-1] == int(k_max) else vv[..., None]
    s = e / (ks * cc + vv)
    best = np.argmax(s, axis=-1)
    best_s = np.take_along_axis(s, best[..., None], axis=-1)[..., 0]
    extrapolated = np.take_along_axis(np.broadcast_to(beyond, s.shape), best[..., None], axis=-1)[..., 0]
    return best + 1, best_s, extrapolated


def length_at_k(length: ArrayLike, measured_k: ArrayLike, k: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """A mean acceptance length measured at measured_k, carried to k, and whether it was extrapolated.

    A length alone says nothing of how acceptance falls along the stretch, so the stated rule
    is the i.i.d. one: the alpha with E(alpha, measured_k) = length gives E(alpha, k). At k =
    measured_k that is the length itself.
    """
    lf, mk, kk = np.broadcast_arrays(_f(length), _f(measured_k), _f(k))
    alpha = mean_acceptance_length_to_alpha(lf, mk).alpha
    out = np.where(kk == mk, lf, expected_tokens(np.nan_to_num(alpha, nan=1.0), kk))
    return out, kk != mk


def break_even_length(k: ArrayLike, c: ArrayLike, v: ArrayLike = 1.0) -> NDArray[np.float64]:
    """E* = k c + v: the tokens a verify step must deliver for the draft to pay, for any draft, chain or tree.

    A tree draft of depth d is k = d here (one draft pass per depth level) with v its verify
    pass over the tree's tokens. Its kind: always where E* <= 1, never where E* >= d + 1
    (the longest path a step can accept), otherwise a length to reach.
    """
    return stretch_cost(k, c, v)


def length_kind(needed: ArrayLike, depth: ArrayLike) -> NDArray[np.int8]:
    """ALWAYS / ROOT / NEVER for a needed acceptance length with at most depth + 1 tokens a step."""
    n, d = np.broadcast_arrays(_f(needed), _f(depth))
    kind = np.where(n <= 1.0, ALWAYS, np.where((n >= d + 1.0) | np.isnan(n), NEVER, ROOT)).astype(np.int8)
    return kind if kind.ndim else kind[()]


# --- workload ---------------------------------------------------------------------------

def blend_speedup(speedups: ArrayLike, weights: ArrayLike, axis: int = -1) -> NDArray[np.float64]:
    """Speedup of a mix: time adds, speed does not, so a weighted harmonic mean."""
    s, w = np.broadcast_arrays(_f(speedups), _f(weights))
    total = w.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / (w / s).sum(axis=axis)
