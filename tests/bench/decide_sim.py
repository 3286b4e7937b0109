"""Simulated probes for bench_intervals.py: per-request counts with known truth, and until-decided and fixed plans
run on them as model.acceptance decides, vectorised over runs (one interval per run and look would take an hour).

``Looks.side`` reproduces model.acceptance.interval.alpha_interval's interval (cluster-robust log-odds, CR1,
binomial floor, t(G - 1)) and model.acceptance.sequential.side on it for every run at once, and with a design's
``skew_factors`` its side_at_look (the end toward the break-even moved farther by the residuals' skewness);
``check_against`` compares it with the product's own functions on the first runs, so the bench cannot drift from
what it measures.
"""
from __future__ import annotations

import math
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable

import numpy as np

K, TOKENS = 4, 256
SkewFactors = Callable[[np.ndarray, int, float], tuple[np.ndarray, np.ndarray]]
ROOT = Path(__file__).resolve().parents[2]


def beta_params(mean: float, sd: float) -> tuple[float, float]:
    c = mean * (1 - mean) / sd ** 2 - 1
    return mean * c, (1 - mean) * c


def simulate(rng: np.random.Generator, n: int, mean: float, sd: float) -> tuple[np.ndarray, np.ndarray]:
    """Accepted drafts and trials of ``n`` requests of TOKENS tokens at K, each request's alpha from a Beta (mean,
    sd), i.i.d. drafts within it; full stretches only (room for K + 1 tokens), as the probe counts them."""
    out_a, out_t = [], []
    a, b = beta_params(mean, sd)
    for start in range(0, n, 8192):
        m = min(8192, n - start)
        alpha = rng.beta(a, b, size=m)
        acc = np.minimum(rng.geometric(1 - alpha[:, None], size=(m, TOKENS)) - 1, K).astype(np.int16)
        emitted = acc + 1
        before = np.cumsum(emitted, axis=1, dtype=np.int32) - emitted
        full = before + K + 1 <= TOKENS
        accepted = (acc * full).sum(axis=1)
        out_a.append(accepted.astype(float))
        out_t.append((accepted + ((acc < K) & full).sum(axis=1)).astype(float))
    return np.concatenate(out_a), np.concatenate(out_t)


def simulate_steps(rng: np.random.Generator, n: int, rates: np.ndarray, shift: float, spread: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Accepted drafts and verify steps of ``n`` requests drafting K from a position-dependent profile: draft
    position i is accepted (given 1..i-1 were) at expit(logit(rates[i]) + shift + b), b ~ N(0, spread) per prompt
    (prompts differ, and the whole profile moves with them); full steps only."""
    out_a, out_s = [], []
    base = np.log(rates / (1 - rates)) + shift
    for start in range(0, n, 4096):
        m = min(4096, n - start)
        p = 1 / (1 + np.exp(-(base[None, :] + rng.normal(0, spread, size=(m, 1)))))  # (m, K)
        took = rng.random((m, TOKENS, K)) < p[:, None, :]
        acc = np.cumprod(took, axis=2).sum(axis=2).astype(np.int16)  # leading accepted positions
        emitted = acc + 1
        before = np.cumsum(emitted, axis=1, dtype=np.int32) - emitted
        full = before + K + 1 <= TOKENS
        out_a.append((acc * full).sum(axis=1).astype(float))
        out_s.append(full.sum(axis=1).astype(float))
    return np.concatenate(out_a), np.concatenate(out_s)


@dataclass
class Looks:
    """Per run and per request count n (columns 0..cap): the interval's centre on the log-odds, its standard
    error there, and the point, for the first n requests of each run (trials: the proportion's denominators)."""

    mid: np.ndarray
    se: np.ndarray
    point: np.ndarray
    skew: np.ndarray  # the sample skewness of the residuals (model.acceptance.interval.residual_skewness)

    @classmethod
    def of(cls, accepted: np.ndarray, trials: np.ndarray) -> "Looks":
        runs, cap = accepted.shape
        if np.any(trials <= 0):
            raise ValueError("every simulated request needs a trial")
        mid, se, point, skew = (np.full((runs, cap + 1), np.nan) for _ in range(4))
        big_a, big_n = np.cumsum(accepted, axis=1), np.cumsum(trials, axis=1)
        for n in range(2, cap + 1):
            s_a, s_n = big_a[:, n - 1], big_n[:, n - 1]
            p = s_a / s_n
            c = np.where((s_a > 0) & (s_a < s_n), p, (s_a + 0.5) / (s_n + 1.0))
            resid = accepted[:, :n] - c[:, None] * trials[:, :n]
            var = np.maximum(n / (n - 1.0) * (resid ** 2).sum(axis=1) / s_n ** 2, c * (1 - c) / s_n)
            mid[:, n], se[:, n], point[:, n] = np.log(c / (1 - c)), np.sqrt(var) / (c * (1 - c)), p
            m2 = (resid ** 2).mean(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                skew[:, n] = np.where(m2 > 0, (resid ** 3).mean(axis=1) / m2 ** 1.5, 0.0)
        return cls(mid, se, point, skew)

    def side(self, n: int, confidence: float, threshold: float, skew_factors: SkewFactors | None = None
             ) -> np.ndarray:
        """+1 where the interval at ``confidence`` over the first n requests lies at or above ``threshold``, -1
        wholly below, 0 where it straddles (model.acceptance.sequential.side); with ``skew_factors`` (a design's
        model.acceptance.sequential.skew_factors) the end toward the break-even confirmed farther out, as
        side_at_look does."""
        from model.acceptance.interval import t_quantile

        t = t_quantile(confidence, n - 1)
        half = t * self.se[:, n]
        low = np.minimum(_expit(self.mid[:, n] - half), self.point[:, n])
        high = np.maximum(_expit(self.mid[:, n] + half), self.point[:, n])
        above, below = low >= threshold, high < threshold
        if skew_factors is not None:
            low_f, high_f = skew_factors(self.skew[:, n], n, t)
            with np.errstate(divide="ignore", invalid="ignore"):
                mid, at = _logit(self.point[:, n]), _logit(threshold)
                above &= ~(mid + low_f * (_logit(low) - mid) < at)  # a non-finite log-odds keeps the plain side
                below &= ~(mid + high_f * (_logit(high) - mid) >= at)
        return np.where(above, 1, np.where(below, -1, 0))

    def until_decided(self, looks: list[int], confidences: list[float], threshold: float,
                      skew_factors: SkewFactors | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Each run's side (+1, -1, 0 undecided at the cap) and the requests it sent."""
        runs = self.mid.shape[0]
        side, sent = np.zeros(runs, dtype=int), np.full(runs, looks[-1])
        going = np.ones(runs, dtype=bool)
        for n, conf in zip(looks, confidences):
            s = self.side(n, conf, threshold, skew_factors)
            now = going & (s != 0)
            side[now], sent[now] = s[now], n
            going &= ~now
        return side, sent


def _expit(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _logit(x: np.ndarray | float) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return np.log(x / (1.0 - x))


def check_against(looks: Looks, accepted: np.ndarray, trials: np.ndarray, threshold: float, runs: int = 30) -> None:
    """The vectorised sides equal model.acceptance's own on the first ``runs`` runs at a few looks and confidences,
    plain (side) and as a run until decided reads them (side_at_look)."""
    from model.acceptance.interval import alpha_interval
    from model.acceptance.sequential import ABOVE, BELOW, side, side_at_look, skew_factors

    code = {ABOVE: 1, BELOW: -1}
    for n in (5, 9, 20, accepted.shape[1]):
        for conf in (0.95, 0.985):
            for rule, factors in ((side, None), (side_at_look, skew_factors)):
                mine = looks.side(n, conf, threshold, factors)[:runs]
                theirs = [code.get(rule(alpha_interval(accepted[i, :n], trials[i, :n], conf), threshold), 0)
                          for i in range(min(runs, len(mine)))]
                if list(mine) != theirs:
                    raise AssertionError(f"vectorised {rule.__name__} differs from the product's at {n} requests, "
                                         f"{conf:.1%}")


def least_n(ok: "callable", cap: int) -> int | None:
    """The least request count from 5 to ``cap`` for which ``ok(n)`` holds (None if none does)."""
    return next((n for n in range(5, cap + 1) if ok(n)), None)


def design_at(commit: str) -> ModuleType:
    """model.acceptance.sequential as it was at ``commit`` (git show), loaded beside today's under another name."""
    import importlib.util

    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:model/acceptance/sequential.py"],
                          capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / f"sequential_{commit[:10]}.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"sequential_{commit[:10]}", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[spec.name] = module  # type: ignore[union-attr]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def logit(x: float) -> float:
    return math.log(x / (1 - x))
