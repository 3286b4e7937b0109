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

Table 2: --until-decided on classes whose truth is 2, 5, 10 and 15 points above or below the price break-even
alpha* = 0.65 (the class mean set so that the ML truth is there), cap 160 requests: side by side, the method now
(model.acceptance.sequential: group-sequential, Pocock-type alpha spending over dense looks, 1 - confidence on each
side) and the first version (Bonferroni over looks at 5, 10, 20, ..., 2.5% a side): the share decided, the share
decided wrongly (goal: at most 5%), the mean tokens; against fixed plans: the least fixed number of requests whose
interval decides the classes 5 points from the break-even correctly 95% of the time (a plan is sized before the
data, for the nearest class it must decide), with the 95% interval the comparison's verdict uses and with the 90%
one (wrong at most 5%, the same error the method now allows). Goal: at least 2x fewer tokens on classes 5 points
or more from the break-even.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from model.acceptance.interval import alpha_interval, token_level_interval  # noqa: E402
from model.acceptance.sequential import (ABOVE, BELOW, METHOD, OPEN, look_confidences, look_schedule,  # noqa: E402
                                         side)

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


def _seq(a: np.ndarray, t: np.ndarray, looks: list[int], confidences: list[float]) -> tuple[str, int]:
    for n, conf in zip(looks, confidences):
        s = side(alpha_interval(a[:n], t[:n], conf), THRESHOLD)
        if s != OPEN:
            return s, n
    return OPEN, looks[-1]


def bonferroni_looks(cap: int) -> tuple[list[int], list[float]]:
    """The first version, for comparison: looks at 5, 10, 20, ..., the cap, 5% split equally over them and
    over both sides (each look's two-sided interval at 1 - 0.05 / looks)."""
    looks = [5]
    while looks[-1] * 2 < cap:
        looks.append(looks[-1] * 2)
    looks.append(cap)
    return looks, [1 - 0.05 / len(looks)] * len(looks)


CAP = 160
DELTAS = (-0.15, -0.10, -0.05, -0.02, 0.02, 0.05, 0.10, 0.15)


def class_mean_for(rng: np.random.Generator, delta: float, sd: float) -> tuple[float, float]:
    """The class mean whose ML truth is ``delta`` from the break-even (the Beta spread moves it a little), and
    that truth: two corrections of mean by the shift measured over 50,000 simulated requests."""
    mean = THRESHOLD + delta
    for _ in range(2):
        true = truth(rng, mean, sd)
        mean = min(max(mean + THRESHOLD + delta - true, 0.05), 0.95)
    return mean, truth(rng, mean, sd)


def least_fixed_n(sims: dict[float, list[tuple[np.ndarray, np.ndarray]]], confidence: float) -> int | None:
    """The least number of requests whose interval at ``confidence`` decides the classes 5 points from the
    break-even, on either side, correctly 95% of the time (a plan is sized before the data, for the nearest class
    it must decide): on a grid of 5, then the requests just below the first n that passes."""
    def passes(n: int) -> bool:
        return min(np.mean([side(alpha_interval(a[:n], t[:n], confidence), THRESHOLD) == want for a, t in sims[d]])
                   for d, want in ((0.05, ABOVE), (-0.05, BELOW))) >= 0.95
    coarse = next((n for n in range(5, CAP + 1, 5) if passes(n)), None)
    if coarse is None:
        return None
    return next(n for n in range(max(5, coarse - 4), coarse + 1) if passes(n))


def sequential_table(rng: np.random.Generator, runs: int) -> None:
    looks = look_schedule(CAP)
    confs = look_confidences(0.95, looks)
    old_looks, old_confs = bonferroni_looks(CAP)
    print(f"\nTable 2: until decided against alpha* = {THRESHOLD}, cap {CAP} requests, {runs} runs per cell, "
          f"{TOKENS} tokens a request.\n"
          f"  now: {METHOD}; {len(looks)} looks ({', '.join(map(str, looks[:8]))}, ..., {looks[-1]}), each "
          f"look's interval at {min(confs):.2%} to {max(confs):.2%}\n"
          f"  v1:  Bonferroni over looks at {old_looks}, each at {old_confs[0]:.2%} (wrong at most 2.5%)\n"
          "  fixed 95%: the least n whose 95% interval (the comparison's verdict) decides the classes 5 points from "
          "alpha* correctly 95% of the time (wrong at most 2.5%);\n"
          "  fixed 90%: the same with the 90% interval (wrong at most 5%, the error the new method allows)\n"
          "  tokens are means per class; x: the fixed plan's tokens over until-decided's")
    print(f"{'sd':>5}{'truth-a*':>9} |{'now: decided':>13}{'wrong':>7}{'tokens':>9} |{'v1: wrong':>10}{'tokens':>9} |"
          f"{'fixed95 n':>10}{'tokens':>9}{'x now':>7}{'x v1':>6} |{'fixed90 n':>10}{'x now':>7}")
    for sd in SDS:
        rows = []
        sims: dict[float, list[tuple[np.ndarray, np.ndarray]]] = {}
        truths: dict[float, float] = {}
        for delta in DELTAS:
            mean, truths[delta] = class_mean_for(rng, delta, sd)
            a_all, t_all = simulate(rng, runs * CAP, mean, sd)
            sims[delta] = [(a_all[i * CAP:(i + 1) * CAP], t_all[i * CAP:(i + 1) * CAP]) for i in range(runs)]
            above = truths[delta] >= THRESHOLD
            cells = []
            for lk, cf in ((looks, confs), (old_looks, old_confs)):
                out = [_seq(a, t, lk, cf) for a, t in sims[delta]]
                decided = np.mean([s != OPEN for s, _ in out])
                wrong = np.mean([s != OPEN and (s == ABOVE) != above for s, _ in out])
                cells.append((decided, wrong, float(np.mean([n for _, n in out]))))
            rows.append((delta, cells))
        fixed95, fixed90 = least_fixed_n(sims, 0.95), least_fixed_n(sims, 0.90)
        for delta, ((dec, wrong, req), (_, v1_wrong, v1_req)) in rows:
            f95 = (f"{fixed95:>10}{fixed95 * TOKENS:>9,}{fixed95 / req:>6.2f}x{fixed95 / v1_req:>5.2f}x" if fixed95
                   else f"{'>' + str(CAP):>10}{'':>9}{'':>7}{'':>6}")
            f90 = f"{fixed90:>10}{fixed90 / req:>6.2f}x" if fixed90 else f"{'>' + str(CAP):>10}{'':>7}"
            print(f"{sd:>5.2f}{truths[delta] - THRESHOLD:>+9.3f} |{dec:>13.1%}{wrong:>7.1%}{req * TOKENS:>9,.0f} |"
                  f"{v1_wrong:>10.1%}{v1_req * TOKENS:>9,.0f} |{f95} |{f90}")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = np.random.default_rng(20261202)
    started = time.perf_counter()
    coverage_table(rng, runs)
    sequential_table(rng, runs)
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
