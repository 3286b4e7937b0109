"""Recompute time of the priced comparison, and the vectorised break-even solve against a per-cell loop.

Run: python tests/bench/bench_compare.py [EDITS]   (prints figures measured side by side in one run)

"After an edit": the edit sequence of bench_gui.py (a class's alpha, or its context where every class is a
profile, then a tier's K, by turns), each edit's recompute timed twice in turn (which goes first alternates):
a full compare(wb) and compare(wb, cache) with the window's PairCache, which recomputes only the rows and
columns the edit changed (model/comparison/cells.py). CPU time of this thread (time.thread_time), which other
processes on a shared machine move less than the wall clock.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from model.mechanics import arithmetic as ar  # noqa: E402
from model.comparison import PairCache, compare  # noqa: E402
from model.workbook.validation import workbook_problems  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from tests.bench.workbooks import large_workbook, profile_workbook  # noqa: E402


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


def edited(wb, i: int, class_field: str):  # noqa: ANN001, ANN201
    """bench_gui.py's edit number ``i`` made on a copy of ``wb``: a class's field (even i) or a tier's K."""
    wb = wb.copy()
    if i % 2 == 0:
        row = wb.classes[i % len(wb.classes)]
        if class_field == "alpha":
            alpha = 0.40 + (i % 50) / 100
            row.alpha = alpha + 0.005 if abs(row.alpha - alpha) < 1e-9 else alpha
        else:
            context = 1024 * (1 + i % 31)
            row.context = context + 512 if row.context == context else context
    else:
        tier = wb.tiers[1 + i % (len(wb.tiers) - 1)]
        tier.k = 2 + i % 7 + (1 if tier.k == 2 + i % 7 else 0)
    return wb


def after_edits(edits: int) -> None:
    print(f"\nrecompute after an edit, {edits} edits, CPU ms (full compare vs with the cache, in turns in one run):")
    print(f"{'workbook':<34}{'full median':>12}{'p95':>7}{'cached median':>15}{'p95':>7}{'ratio':>8}")
    for label, wb, field in (("demo (8 x 6)", load_demo(), "alpha"), ("100 x 30", large_workbook(100, 30), "alpha"),
                             ("100 x 30, 16-position profiles", profile_workbook(100, 30, 16), "context")):
        cache = PairCache()
        compare(wb, cache)
        compare(wb)
        full, cached = [], []
        for i in range(edits):
            wb = edited(wb, i, field)
            runs = [(full, lambda: compare(wb)), (cached, lambda: compare(wb, cache))]
            for out, run in (runs if i % 2 else runs[::-1]):
                t0 = time.thread_time()
                run()
                out.append((time.thread_time() - t0) * 1e3)
        f, c = np.array(full), np.array(cached)
        print(f"{label:<34}{np.median(f):>12.2f}{np.percentile(f, 95):>7.2f}{np.median(c):>15.2f}"
              f"{np.percentile(c, 95):>7.2f}{np.median(c) / np.median(f):>7.2f}x")


def main() -> None:
    demo = load_demo()
    big = large_workbook(100, 30)
    print(f"{'case':<42}{'median ms':>10}{'p95 ms':>9}")
    for label, wb in (("compare(): demo (8 tiers x 6 classes)", demo), ("compare(): 100 tiers x 30 classes", big)):
        t = timings(lambda wb=wb: compare(wb), 50)
        print(f"{label:<42}{np.median(t):>10.2f}{np.percentile(t, 95):>9.2f}")
    # every class and override a 16-position profile (falling from its alpha), beside the all-alpha book
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
    after_edits(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
