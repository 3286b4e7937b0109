"""Recompute time of the priced comparison, and the vectorised break-even solve against a per-cell loop.

Run: python tests/bench/bench_compare.py   (prints figures measured side by side in one run)
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from model import arithmetic as ar  # noqa: E402
from model.comparison import compare  # noqa: E402
from model.workbook.validation import workbook_problems  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from tests.bench.workbooks import large_workbook  # noqa: E402


def timings(fn, repeats: int) -> np.ndarray:
    fn()  # warm caches and imports
    out = np.empty(repeats)
    for i in range(repeats):
        t0 = time.perf_counter()
        fn()
        out[i] = time.perf_counter() - t0
    return out * 1e3


def scalar_break_even(k: np.ndarray, c: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The plain per-cell Python loop the vectorised solver replaces (same bisection, floats only)."""
    out = np.empty(k.size)
    for i in range(k.size):
        kk, target = float(k[i]), float(k[i] * c[i] + v[i])
        if target <= 1.0 or target >= kk + 1.0:
            out[i] = np.nan
            continue
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            e = (1.0 - mid ** (kk + 1.0)) / (1.0 - mid)
            if e < target:
                lo = mid
            else:
                hi = mid
        out[i] = 0.5 * (lo + hi)
    return out


def main() -> None:
    demo = load_demo()
    big = large_workbook(100, 30)
    print(f"{'case':<42}{'median ms':>10}{'p95 ms':>9}")
    for label, wb in (("compare(): demo (8 tiers x 6 classes)", demo), ("compare(): 100 tiers x 30 classes", big)):
        t = timings(lambda wb=wb: compare(wb), 50)
        print(f"{label:<42}{np.median(t):>10.2f}{np.percentile(t, 95):>9.2f}")
    # issue 22: every class and override a 16-position profile (falling from its alpha), beside the all-alpha book
    profiled = big.copy()
    for row in profiled.classes + profiled.overrides:
        row.profile = tuple(float(x) for x in row.alpha * 0.97 ** np.arange(16))
    t_alpha = timings(lambda: compare(big), 50)
    t_prof = timings(lambda: compare(profiled), 50)
    print(f"{'compare(): 100 x 30, 16-position profiles':<42}{np.median(t_prof):>10.2f}{np.percentile(t_prof, 95):>9.2f}"
          f"   ratio to all-alpha (same run) {np.median(t_prof) / np.median(t_alpha):.2f}x (goal <= 1.5x)")
    t = timings(lambda: workbook_problems(big), 20)
    print(f"{'validate 100 x 30 workbook':<42}{np.median(t):>10.2f}{np.percentile(t, 95):>9.2f}")

    rng = np.random.default_rng(0)
    n = 3000
    k = rng.integers(1, 12, n).astype(float)
    c = rng.uniform(0.0, 0.5, n)
    v = rng.uniform(0.9, 1.3, n)
    vec = timings(lambda: ar.break_even(k, c, v), 20)
    loop = timings(lambda: scalar_break_even(k, c, v), 3)
    same = np.allclose(np.where(ar.break_even(k, c, v).kind == ar.ROOT, ar.break_even(k, c, v).alpha, np.nan),
                       scalar_break_even(k, c, v), equal_nan=True, atol=1e-12)
    print(f"break-even, {n} cells: vectorised {np.median(vec):.2f} ms, per-cell loop {np.median(loop):.1f} ms, "
          f"ratio {np.median(loop) / np.median(vec):.0f}x (results equal: {same})")


if __name__ == "__main__":
    main()
