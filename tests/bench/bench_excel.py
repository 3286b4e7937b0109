"""Time the Excel report export, today's exporter against the one before the XlsxWriter rewrite, in one run.

Run: python tests/bench/bench_excel.py [repeats]
The old exporter (openpyxl, no saved values) is taken from git commit 8546a61
into a temporary package, so both are timed side by side on the same machine
load. Prints, per workbook, the best and median wall time of export_report
(compare, building the sheets, writing the file atomically) for each, their
ratio, the number of formula cells and the file sizes.
"""
from __future__ import annotations

import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from model.workbook.rows import Workbook  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from tests.bench.workbooks import large_workbook  # noqa: E402

OLD_COMMIT = "8546a61"
OLD_FILES = ("__init__", "charts", "context_sheet", "export", "inputs_sheet", "layout", "styles")


def _old_exporter(folder: Path):  # noqa: ANN202  (the old export module)
    """The exporter as of OLD_COMMIT, as package `old_report` in `folder` (its imports pointed at itself)."""
    package = folder / "old_report"
    package.mkdir()
    for name in OLD_FILES:
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"{OLD_COMMIT}:model/report/{name}.py"],
                              check=True, capture_output=True, text=True).stdout
        (package / f"{name}.py").write_text(text.replace("model.report", "old_report"))
    sys.path.insert(0, str(folder))
    return importlib.import_module("old_report.export")


def _time(fn, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def bench(name: str, wb: Workbook, repeats: int, folder: Path, old, new) -> None:  # noqa: ANN001
    rows = {}
    for label, module in (("old (openpyxl)", old), ("new (XlsxWriter)", new)):
        target = folder / f"{name}-{label.split()[0]}.xlsx"
        module.export_report(wb, target)  # warm-up: imports, caches
        times = _time(lambda: module.export_report(wb, target), repeats)
        rows[label] = times
        print(f"{name:<9} {label:<17} export best {min(times) * 1e3:7.0f} ms  median {statistics.median(times) * 1e3:7.0f} ms"
              f"  {len(module.build_report(wb)[1]):>6} formula cells  {target.stat().st_size / 1024:7.0f} KiB")
    old_best, new_best = (min(t) for t in rows.values())
    print(f"{name:<9} new / old: {new_best / old_best:.2f} (best of {repeats})")


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    t0 = time.perf_counter()
    import model.report.export as new
    print(f"import of the new export modules and XlsxWriter: {(time.perf_counter() - t0) * 1e3:.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        old = _old_exporter(Path(tmp))
        for name, wb in (("demo", load_demo()), ("100 x 30", large_workbook(100, 30))):
            bench(name, wb, repeats, Path(tmp), old, new)


if __name__ == "__main__":
    main()
