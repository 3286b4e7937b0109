"""Time the Excel report export on the demo and on a 100-tier x 30-class workbook.

Run: python tests/bench/bench_excel.py [repeats]
Prints, per workbook, the best and median wall time of export_report (compare,
building the sheets, writing the file atomically), the time of building alone,
the number of formula cells and the file size.
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from model.workbook.rows import Workbook  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from tests.bench.workbooks import large_workbook  # noqa: E402


def _time(fn, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def bench(name: str, wb: Workbook, repeats: int, folder: Path) -> None:
    target = folder / f"{name}.xlsx"
    from model.report.export import build_report, export_report

    export_report(wb, target)  # warm-up: imports openpyxl, fills caches
    full = _time(lambda: export_report(wb, target), repeats)
    build = _time(lambda: build_report(wb), repeats)
    n_formulas = len(build_report(wb)[1])
    print(f"{name:<14} {len(wb.tiers):>4} tiers x {len(wb.classes):>3} classes  "
          f"export best {min(full) * 1e3:8.1f} ms  median {statistics.median(full) * 1e3:8.1f} ms  "
          f"(build only {min(build) * 1e3:7.1f} ms)  {n_formulas:>6} formula cells  "
          f"{target.stat().st_size / 1024:7.1f} KiB")


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    t0 = time.perf_counter()
    import model.report.export  # noqa: F401  (and openpyxl with it)
    print(f"import of the export modules and openpyxl: {(time.perf_counter() - t0) * 1e3:.0f} ms (paid once, on first export)")
    with tempfile.TemporaryDirectory() as tmp:
        bench("demo", load_demo(), repeats, Path(tmp))
        bench("100 x 30", large_workbook(100, 30), repeats, Path(tmp))


if __name__ == "__main__":
    main()
