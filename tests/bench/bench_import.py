"""Time the price-list import (CSV read, validation, merge into a workbook) at 5k, 20k and 200k rows.

Run: python tests/bench/bench_import.py [sizes...]
Prints, per size, the wall time of read_price_list and of merge_rows, and the time per row relative
to the smallest size: a linear import keeps that ratio near 1 (it was 3 s, 23 s and > 180 s, quadratic).
The 200k list is past the 100,000-row limit for a price list, so it is imported with the limit raised.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from model.report.price_list import merge_rows, read_price_list  # noqa: E402
from model.workbook.rows import Workbook  # noqa: E402


def write_price_list(path: Path, n: int, delimiter: str = ",") -> None:
    d = delimiter
    lines = [d.join(["Tier", "Vendor", "K", "c (draft/target)", "Price out /1M", "Price in /1M", "Notes"])]
    for i in range(n):
        lines.append(d.join([f"tier {i}", f"vendor {i % 37}", str(2 + i % 6), f"0.{1 + i % 8}",
                             f"{10 + i % 90}.5", f"{1 + i % 9}.25", "from the vendor's list"]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(sizes: list[int]) -> None:
    print(f"{'rows':>8} {'read s':>14} {'merge_rows s':>13} {'total s':>8} {'us/row':>8} {'per-row vs first':>17}")
    first = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"list_{n}.csv"
            write_price_list(path, n)
            t0 = time.perf_counter()
            prices = read_price_list(path, "tiers", max_rows=max(n, 100_000))
            t1 = time.perf_counter()
            wb = merge_rows(Workbook(), prices).workbook
            t2 = time.perf_counter()
            assert len(wb.tiers) == n
            per_row = (t2 - t0) / n
            first = first or per_row
            print(f"{n:>8,} {t1 - t0:>14.2f} {t2 - t1:>13.2f} {t2 - t0:>8.2f} {per_row * 1e6:>8.1f} {per_row / first:>16.2f}x")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [5_000, 20_000, 200_000])
