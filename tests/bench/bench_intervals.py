"""Intervals on acceptance against known truth: coverage, width, and deciding until decided, old design vs new.

Run: python tests/bench/bench_intervals.py [RUNS] [--against COMMIT] [--cap N]   (default 1000 simulated probes per cell,
against a158bd9's design, which like any from before the skewness correction decides on the plain interval;
prints tables; tests/bench/decide_sim.py simulates and decides, vectorised and checked against
model.acceptance's own interval and side_at_look on the first runs)

Each simulated probe sends requests of 256 output tokens to a tier drafting K = 4. Each request (prompt) has its
own acceptance, drawn from a Beta around the class mean with a standard deviation of 0.05, 0.10 or 0.15 between
prompts; within a request every draft is accepted with that probability (i.i.d.), a stretch emits its accepted
drafts plus the target's token, and only stretches with room for K + 1 tokens count (as the probe counts them).
The truth a probe estimates is the class's alpha as the ML rule reads it over unlimited prompts (sum of accepted
over sum of trials, from 50,000 simulated requests), which is what the comparison uses.

Table 1: coverage of the 95% interval (model.acceptance: cluster-robust log-odds, prompts as clusters) and of a
naive token-level interval, and the median half-width, at 5, 10, 20 and 40 requests. Goal: 93-97% from 10 up.

Table 2: --until-decided against the price break-even alpha* = 0.65, truths 2, 5, 10 and 15 points above or below
it and ON it, cap 160 requests; the design now (model.acceptance.sequential) and at --against, side by side on the
same simulated requests. Per cell: the share decided correctly and wrongly (on the break-even, where either
decision is a coin's call, the share decided above / below: a truth a hair below or above it is wrongly decided
as often, so the goal "wrong at most 5%" must hold for each of the two there), and the mean tokens. Token
savings: a fixed plan's tokens over until-decided's, for two fixed plans, printed side by side:
- "95% power": the old yardstick, kept so that nobody can say it changed silently: the least n whose 95% interval
  (the comparison's verdict) decides the classes 5 points from alpha* correctly 95% of the time;
- "matched": the least n whose 95% interval, in both cells 5 points from alpha* (above and below), decides
  correctly at least as often AND wrongly no more often than until-decided does there (each design gets its own).
  This is "a fixed plan that reaches the same error rate": until-decided with its cap decides those classes
  correctly 94-100% of the time, and a plan right only 95% of the time is a weaker plan, so the 95%-power
  yardstick flatters the fixed plan wherever until-decided does better than 95%. The GOAL (at least 2x fewer
  tokens) is read on this one. Both are sized on the 5-point classes and used for the classes farther out too:
  a fixed plan is chosen before the data, so it must be big enough for the nearest class it is to decide;
- "oracle" (for reference): the matched plan sized in each cell for that cell's own truth, which no analyst could
  choose (it knows the margin); it is the hardest yardstick and the goal is not read on it.

Table 3: the break-even at other alphas (0.30, 0.50, 0.80, 0.90): decided above / below on the break-even.

Table 4: a profile class decided on E (tokens per verify step) against a break-even length E* = 2.60 at K 4:
each prompt's per-position rates move together on the log-odds (spread 0.3, 0.6 or 0.9 between prompts) around
rates (0.80, 0.72, 0.68, 0.65); truths 0.10, 0.25 and 0.50 tokens per step from E* (0.25 is about 5 points of
alpha here) and on it; the same columns, the fixed plans sized on the 0.25 classes. The truth ON the break-even
is E over 200,000 simulated requests (20,000 left it 0.004 off in fill in one cell, tilting its two sides).

Last measured (1000 runs, --against 6cc1235: share 0.8 spent as the square of the share of log requests, each
look's end toward the break-even corrected for the prompts' skewness, against share 0.6 spent evenly and no
correction): table 1 94.0-96.6%; on the break-even at most 5.0% each way in tables 2-4 (before: up to 7.9% at
alpha* 0.9 with 0.10, 6.2% for E); at 5 points against the matched plan 2.54x / 2.21x (below / above) with 0.05
between prompts (before 2.87x / 2.67x), 3.69x / 2.82x with 0.10 (3.01x / 2.62x), 2.08x / 1.66x with 0.15
(1.63x / 1.58x); E at 0.25 tokens per step 3.24x / 2.47x, 3.16x / 2.17x, 2.03x / 1.44x at spreads 0.3, 0.6, 0.9.

The cap decides the saving where it binds. With 0.15 between prompts, a class 5 points above alpha* needs about
80 requests on average, and a cap of 160 stops 6% of its runs undecided: until-decided is then right only ~94% of
the time there, so the matched fixed plan has only that to match (141 requests, 1.73x at 4,000 runs a cell). With
--cap 320 the same runs are right 99.8% of the time and the plan that matches them needs 252 (2.57x, 4,000 runs).
Measured at --cap 320 (1000 runs, tables 2-4; same design and --against 6cc1235): at 5 points against the matched
plan 2.59x / 2.20x (below / above) with 0.05 between prompts, 3.28x / 2.68x with 0.10, 3.40x / 2.62x with 0.15; E
at 0.25 tokens per step 2.78x / 2.22x, 3.44x / 2.45x, 3.27x / 2.15x at spreads 0.3, 0.6, 0.9; on the break-even at
most 5.0% each way in tables 3 and 4 and in table 2 except one cell, 0.05 between prompts decided below 5.6%,
which at 4,000 runs reads 3.6% above / 3.2% below.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from model.acceptance.interval import alpha_interval, token_level_interval  # noqa: E402
from model.acceptance import sequential  # noqa: E402
from tests.bench.decide_sim import (K, TOKENS, Looks, SkewFactors, check_against, design_at, least_n,  # noqa: E402
                                    simulate, simulate_steps)

MEAN, THRESHOLD, CAP = 0.70, 0.65, 160
SDS = (0.05, 0.10, 0.15)
DELTAS = (-0.15, -0.10, -0.05, -0.02, 0.0, 0.02, 0.05, 0.10, 0.15)
RATES = np.array([0.80, 0.72, 0.68, 0.65])
E_STAR, E_SPREADS, E_DELTAS = 2.60, (0.3, 0.6, 0.9), (-0.5, -0.25, -0.10, 0.0, 0.10, 0.25, 0.5)


def truth(rng: np.random.Generator, mean: float, sd: float) -> float:
    a, n = simulate(rng, 50_000, mean, sd)
    return float(a.sum() / n.sum())


def class_mean_for(rng: np.random.Generator, target: float, sd: float) -> tuple[float, float]:
    """The class mean whose ML truth is ``target`` (the Beta's spread moves it a little), and that truth."""
    mean = target
    for _ in range(2):
        mean = min(max(mean + target - truth(rng, mean, sd), 0.05), 0.95)
    return mean, truth(rng, mean, sd)


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


Design = tuple[str, list[int], list[float], SkewFactors | None]  # name, looks, each look's confidence, skew rule


def designs(against: str) -> list[Design]:
    old = design_at(against)
    looks = sequential.look_schedule(CAP)
    return [("now", looks, sequential.look_confidences(0.95, looks), sequential.skew_factors),
            (against[:7], old.look_schedule(CAP), old.look_confidences(0.95, old.look_schedule(CAP)),
             getattr(old, "skew_factors", None))]  # a design before the skewness correction decides plain


def alpha_cells(rng: np.random.Generator, runs: int, sd: float, targets: dict[float, float], threshold: float
                ) -> dict[float, tuple[float, Looks]]:
    out = {}
    for key, target in targets.items():
        mean, true = class_mean_for(rng, target, sd)
        a, t = simulate(rng, runs * CAP, mean, sd)
        a, t = a.reshape(runs, CAP), t.reshape(runs, CAP)
        looks = Looks.of(a, t)
        check_against(looks, a, t, threshold)
        out[key] = (true, looks)
    return out


def decision_rows(label: str, cells: dict[float, tuple[float, Looks]], threshold: float, near: float,
                  ds: list[Design], diff: Callable[[float], str]) -> list[str]:
    """One line per cell: each design's outcome, and the fixed plans' tokens over until-decided's."""
    runs: dict[tuple[str, float], tuple[float, float, float]] = {}  # (design, delta) -> right, wrong, requests
    for name, looks, confs, skew in ds:
        for delta, (true, lk) in cells.items():  # on the break-even: exactly on the truth
            side, sent = lk.until_decided(looks, confs, threshold if delta else true, skew)
            want = 1 if delta > 0 else -1
            runs[name, delta] = (float(np.mean(side == want)), float(np.mean(side == -want)), float(sent.mean()))
    fixed: dict[tuple[float, int], np.ndarray] = {}

    def fixed_side(delta: float, n: int) -> np.ndarray:
        if (delta, n) not in fixed:
            fixed[delta, n] = cells[delta][1].side(n, 0.95, threshold)
        return fixed[delta, n]

    def matches(delta: float, n: int, right: float, wrong: float) -> bool:
        s, want = fixed_side(delta, n), (1 if delta > 0 else -1)
        return bool(np.mean(s == want) >= right and np.mean(s == -want) <= wrong)

    power = least_n(lambda n: min(np.mean(fixed_side(d, n) == (1 if d > 0 else -1)) for d in (near, -near)) >= 0.95,
                    CAP)
    matched = {name: least_n(lambda n: all(matches(d, n, *runs[name, d][:2]) for d in (near, -near)), CAP)
               for name, *_ in ds}
    out = []
    for delta, (true, _) in cells.items():
        cols = []
        for name, *_ in ds:
            right, wrong, req = runs[name, delta]
            res = f"{wrong:>6.1%}{right:>6.1%}" if delta == 0 else f"{right:>6.1%}{wrong:>6.1%}"
            cols.append(f"{res}{req * TOKENS:>8,.0f}")
        now, old = ds[0][0], ds[1][0]

        def x(n: int | None, name: str) -> str:
            return f"{n / runs[name, delta][2]:>6.2f}x" if n else f"{'-':>7}"
        oracle = (least_n(lambda n: matches(delta, n, *runs[now, delta][:2]), CAP)
                  if abs(delta) >= near - 1e-9 else None)
        fx = (f"{power or '>' + str(CAP):>5}{x(power, now)}{x(power, old)} |{matched[now] or '>' + str(CAP):>5}"
              f"{x(matched[now], now)}{matched[old] or '>' + str(CAP):>5}{x(matched[old], old)} |"
              f"{oracle or '':>5}{x(oracle, now) if oracle else '':>7}")
        out.append(f"{label:>6}{diff(true) if delta else 'on it':>9} |" + " |".join(cols) + f" |{fx}")
    return out


HEADER = ("  per design: right, wrong (on the break-even: above, below), mean tokens; fixed plans: n, then the fixed "
          "plan's tokens over until-decided's\n"
          f"{'':>15} |{'now':^20} |{'old':^20} |{'fixed, 95% power':^19} |{'fixed, matched':^24} |{'oracle':^12}\n"
          f"{'':>6}{'truth':>9} |{'right':>6}{'wrong':>6}{'tokens':>8} |{'right':>6}{'wrong':>6}{'tokens':>8} |"
          f"{'n':>5}{'x now':>7}{'x old':>7} |{'n':>5}{'x now':>7}{'n':>5}{'x old':>7} |{'n':>5}{'x now':>7}")


def sequential_table(rng: np.random.Generator, runs: int, ds: list[Design]) -> None:
    (_, looks, confs, _), (old_name, old_looks, old_confs, _) = ds
    print(f"\nTable 2: until decided against alpha* = {THRESHOLD}, cap {CAP} requests, {runs} runs per cell, "
          f"{TOKENS} tokens a request, the same simulated requests for both designs\n"
          f"  now: {sequential.METHOD}; {len(looks)} looks, each look's interval at {min(confs):.2%} to {max(confs):.2%}\n"
          f"  old ({old_name}): {len(old_looks)} looks, each at {min(old_confs):.2%} to {max(old_confs):.2%}\n" + HEADER)
    for sd in SDS:
        cells = alpha_cells(rng, runs, sd, {d: THRESHOLD + d for d in DELTAS}, THRESHOLD)
        print("\n".join(decision_rows(f"{sd:.2f}", cells, THRESHOLD, 0.05, ds, lambda t: f"{t - THRESHOLD:+.3f}")))


def break_even_table(rng: np.random.Generator, runs: int, ds: list[Design]) -> None:
    print(f"\nTable 3: truth ON the break-even at other alphas, {runs} runs per cell: decided above / below")
    print(f"{'alpha*':>7}{'sd':>6} |{'now: above':>11}{'below':>7} |{'old: above':>11}{'below':>7}")
    for threshold in (0.30, 0.50, 0.80, 0.90):
        for sd in SDS:
            if threshold == 0.90 and sd == 0.15:
                continue  # a Beta of mean 0.9 and sd 0.15 piles half its prompts at 1: not a class anyone probes
            (true, lk), = alpha_cells(rng, runs, sd, {0.0: threshold}, threshold).values()
            cols = []
            for _, looks, confs, skew in ds:
                side, _ = lk.until_decided(looks, confs, true, skew)
                cols.append(f"{np.mean(side == 1):>11.1%}{np.mean(side == -1):>7.1%}")
            print(f"{threshold:>7.2f}{sd:>6.2f} |" + " |".join(cols))


def e_truth(rng: np.random.Generator, shift: float, spread: float, requests: int = 20_000) -> tuple[float, float]:
    """E over ``requests`` simulated requests (1 + accepted drafts per verify step), and the sd of E between
    prompts."""
    a, s = simulate_steps(rng, requests, RATES, shift, spread)
    return 1.0 + float(a.sum() / s.sum()), float(np.std(1.0 + a / s))


def length_table(rng: np.random.Generator, runs: int, ds: list[Design]) -> None:
    fill = (E_STAR - 1.0) / K  # the interval on E is the one on the fill (E - 1) / K, requests as the unit
    print(f"\nTable 4: a profile class decided on E against E* = {E_STAR} tokens per step at K {K}, cap {CAP}, "
          f"{runs} runs per cell (E truth - E* in tokens per step)\n" + HEADER)
    for spread in E_SPREADS:
        cells: dict[float, tuple[float, Looks]] = {}
        sd_e = []
        for delta in E_DELTAS:
            shift, lo, hi = 0.0, -3.0, 3.0
            for _ in range(12):  # bisection on the common log-odds shift (E grows with it)
                shift = (lo + hi) / 2
                e, sd = e_truth(rng, shift, spread)
                lo, hi = (shift, hi) if e < E_STAR + delta else (lo, shift)
                if abs(e - E_STAR - delta) < 0.004:
                    break
            if delta == 0.0:
                # the truth the ON cell is judged against, from 10x the requests: 20,000 left it 0.004 off in
                # fill in one cell (a quarter of a run's standard error at the cap), tilting the two sides
                e, _ = e_truth(rng, shift, spread, 200_000)
            sd_e.append(sd)
            a, s = simulate_steps(rng, runs * CAP, RATES, shift, spread)
            a, t = a.reshape(runs, CAP), K * s.reshape(runs, CAP)
            lk = Looks.of(a, t)
            check_against(lk, a, t, fill)
            cells[delta / K] = ((e - 1.0) / K, lk)  # keyed in fill units, as the threshold is
        print(f"  spread {spread} on the log-odds: E differs between prompts by sd {np.mean(sd_e):.2f} tokens per step")
        print("\n".join(decision_rows(f"{spread:.1f}", cells, fill, 0.25 / K, ds,
                                      lambda f: f"{1.0 + K * f - E_STAR:+.3f}")))


def main() -> None:
    global CAP
    parser = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=1000)
    parser.add_argument("--against", default="a158bd9", help="the commit whose design is measured beside today's")
    parser.add_argument("--cap", type=int, default=CAP,
                        help=f"requests per class a run may send (default {CAP}); the fixed plans are searched up to it")
    args = parser.parse_args()
    if not 2 * sequential.MIN_REQUESTS <= args.cap <= 2000:
        parser.error(f"--cap must be from {2 * sequential.MIN_REQUESTS} to 2000 (got {args.cap})")
    CAP = args.cap
    rng = np.random.default_rng(20261202)
    started = time.perf_counter()
    ds = designs(args.against)
    coverage_table(rng, args.runs)
    sequential_table(rng, args.runs, ds)
    break_even_table(rng, args.runs, ds)
    length_table(rng, args.runs, ds)
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
