"""Intervals on acceptance against known truth: coverage, width, and deciding until decided.

Run: python tests/bench/bench_intervals.py [RUNS]   (default 1000 simulated probes per cell; prints tables)

Each simulated probe sends requests of 256 output tokens to a tier drafting K = 4. Each request (prompt) has its
own acceptance, drawn from a Beta around the class mean with a standard deviation of 0.05, 0.10 or 0.15 between
prompts; within a request every draft is accepted with that probability (i.i.d.), a stretch emits its accepted
drafts plus the target's token, and only stretches with room for K + 1 tokens count (as the probe counts them).
The truth a probe estimates is the class's alpha as the ML rule reads it over unlimited prompts (sum of accepted
over sum of trials, from 50,000 simulated requests), which is what the comparison uses.

Table 1: coverage of the 95% interval (model.acceptance: cluster-robust log-odds, requests as clusters) and of a
naive token-level interval (Wilson over all tokens as if independent), and the median half-width, at 5, 10, 20
and 40 requests. Goal: 93-97% from 10 requests up.

Table 2: --until-decided (model.acceptance.sequential: looks at 5, 10, 20, 40, 80, 160 requests, the 5% error spent
equally over them) on classes whose truth is 2 to 15 points above or below the price break-even alpha* = 0.65:
the share decided, the share decided wrongly (goal: at most 5%), the mean requests and tokens (cap 160 requests),
against a fixed plan: the least fixed number of requests whose 95% interval decides classes 5 points from the
break-even correctly 95% of the time (a plan is sized before the data, for the nearest class it must decide).
Goal: at least 2x fewer tokens on classes 5 points or more from the break-even.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from model.acceptance.interval import alpha_interval, token_level_interval  # noqa: E402
from model.acceptance.sequential import ABOVE, BELOW, OPEN, look_confidence, look_schedule, side  # noqa: E402

K, TOKENS, MEAN, THRESHOLD = 4, 256, 0.70, 0.65
SDS = (0.05, 0.10, 0.15)


def beta_params(mean: float, sd: float) -> tuple[float, float]:
    c = mean * (1 - mean) / sd ** 2 - 1
    return mean * c, (1 - mean) * c


def simulate(rng: np.random.Generator, n: int, mean: float, sd: float) -> tuple[np.ndarray, np.ndarray]:
    """Accepted drafts and trials of ``n`` requests, full stretches only (in chunks: 256 stretches a request)."""
    out_a, out_t = [], []
    a, b = beta_params(mean, sd)
    for start in range(0, n, 8192):
        m = min(8192, n - start)
        alpha = rng.beta(a, b, size=m)
        # at most TOKENS / 1 stretches; a stretch emits at least one token
        acc = np.minimum(rng.geometric(1 - alpha[:, None], size=(m, TOKENS // 1)) - 1, K).astype(np.int16)
        emitted = acc + 1
        before = np.cumsum(emitted, axis=1, dtype=np.int32) - emitted
        full = before + K + 1 <= TOKENS
        accepted = (acc * full).sum(axis=1)
        out_a.append(accepted.astype(float))
        out_t.append((accepted + ((acc < K) & full).sum(axis=1)).astype(float))
    return np.concatenate(out_a), np.concatenate(out_t)


def truth(rng: np.random.Generator, mean: float, sd: float) -> float:
    a, n = simulate(rng, 50_000, mean, sd)
    return float(a.sum() / n.sum())


def coverage_table(rng: np.random.Generator, runs: int) -> None:
    print(f"Table 1: 95% interval on alpha, class mean {MEAN}, K = {K}, {TOKENS} tokens per request, {runs} runs per cell")
    print(f"{'sd':>5}{'requests':>9}{'cluster':>9}{'naive':>8}{'half-width':>12}{'naive hw':>10}")
    for sd in SDS:
        true = truth(rng, MEAN, sd)
        for n in (5, 10, 20, 40):
            hit = naive = 0
            hw, nhw = [], []
            for _ in range(runs):
                a, t = simulate(rng, n, MEAN, sd)
                r = alpha_interval(a, t, 0.95)
                hit += r.low <= true <= r.high
                hw.append(r.half_width)
                lo, hi = token_level_interval(a.sum(), t.sum(), 0.95)
                naive += lo <= true <= hi
                nhw.append((hi - lo) / 2)
            print(f"{sd:>5.2f}{n:>9}{hit / runs:>9.1%}{naive / runs:>8.1%}{np.median(hw):>12.4f}{np.median(nhw):>10.4f}")


def until_decided(a: np.ndarray, t: np.ndarray, threshold: float, looks: list[int], confidence: float) -> tuple[str, int]:
    conf = look_confidence(confidence, len(looks))
    for n in looks:
        s = side(alpha_interval(a[:n], t[:n], conf), threshold)
        if s != OPEN:
            return s, n
    return OPEN, looks[-1]


CAP = 160


def sequential_table(rng: np.random.Generator, runs: int) -> None:
    looks = look_schedule(CAP)
    print(f"\nTable 2: until decided against alpha* = {THRESHOLD} (looks at {looks} requests, each at "
          f"{look_confidence(0.95, len(looks)):.2%}), {runs} runs per cell; fixed plan: the 95% interval at the least n "
          "that decides classes 5 points from alpha* correctly 95% of the time")
    # truth-a*: the ML truth (over 50,000 simulated requests) minus alpha*; the class means are alpha* -0.10 ... +0.15
    print(f"{'sd':>5}{'truth-a*':>9}{'decided':>9}{'wrong':>7}{'mean req':>9}{'tokens':>9}"
          f"{'fixed n':>8}{'fixed wrong':>12}{'fixed tokens':>13}{'fixed/until':>12}")
    for sd in SDS:
        results: dict[float, tuple[float, float, float]] = {}
        truths: dict[float, float] = {}
        sims: dict[float, list[tuple[np.ndarray, np.ndarray]]] = {}
        for delta in (-0.10, -0.05, -0.02, 0.02, 0.05, 0.10, 0.15):
            # the class mean that puts the ML truth delta from the threshold (the Beta spread shifts it a little)
            mean = THRESHOLD + delta
            true = truths[delta] = truth(rng, mean, sd)
            a_all, t_all = simulate(rng, runs * CAP, mean, sd)
            sims[delta] = [(a_all[i * CAP:(i + 1) * CAP], t_all[i * CAP:(i + 1) * CAP]) for i in range(runs)]
            decided = wrong = 0
            requests = []
            for a, t in sims[delta]:
                s, n = until_decided(a, t, THRESHOLD, looks, 0.95)
                requests.append(n)
                if s != OPEN:
                    decided += 1
                    wrong += (s == ABOVE) != (true >= THRESHOLD)
            results[delta] = (decided / runs, wrong / runs, float(np.mean(requests)))
        # the fixed plan sized before the data to decide classes 5 points from the break-even (either side)
        # correctly 95% of the time, the same error rate until-decided holds to: the least n on a grid of 5
        fixed_n = None
        for n in range(5, CAP + 1, 5):
            rate = min(np.mean([side(alpha_interval(a[:n], t[:n], 0.95), THRESHOLD) == want for a, t in sims[d]])
                       for d, want in ((0.05, ABOVE), (-0.05, BELOW)))
            if rate >= 0.95:
                fixed_n = n
                break
        for delta, (dec, wrong, req) in results.items():
            true_above = truths[delta] >= THRESHOLD
            if fixed_n is not None:
                sides = [side(alpha_interval(a[:fixed_n], t[:fixed_n], 0.95), THRESHOLD) for a, t in sims[delta]]
                f_wrong = np.mean([s != OPEN and (s == ABOVE) != true_above for s in sides])
                fixed = f"{fixed_n:>8}{f_wrong:>12.1%}{fixed_n * TOKENS:>13,}{fixed_n / req:>11.2f}x"
            else:
                fixed = f"{'> ' + str(CAP):>8}{'':>12}{'> ' + format(CAP * TOKENS, ','):>13}{'> ' + format(CAP / req, '.2f') + 'x':>12}"
            print(f"{sd:>5.2f}{truths[delta] - THRESHOLD:>+9.3f}{dec:>9.1%}{wrong:>7.1%}{req:>9.1f}{req * TOKENS:>9,.0f}{fixed}")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = np.random.default_rng(20261202)
    started = time.perf_counter()
    coverage_table(rng, runs)
    sequential_table(rng, runs)
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
