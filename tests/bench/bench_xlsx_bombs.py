"""Spreadsheet bombs against the count limits, and what counting costs an honest import.

Prints, side by side in one run: for each of the issue's bombs (7.4 million shared strings, 1.9
million cell formats, 10 million empty rows) and a row of 3 million cells, its size on disk, the
time to refusal and the resident growth while refusing; then the import of a 200 x 100 report with
the counts and without them (the same reader with the two count functions replaced by no-ops).

Run: python tests/bench/bench_xlsx_bombs.py
"""
from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from model.report import importer, sheet_reader  # noqa: E402
from model.report.export import export_report  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from model.workbook.validation import WorkbookError  # noqa: E402
from tests import spreadsheet_bombs as bombs  # noqa: E402
from tests.bench.workbooks import large_workbook  # noqa: E402
from tests.fuzz.bounds import _resident_mb  # noqa: E402


def measured(fn) -> tuple[float, float, str]:  # noqa: ANN001
    """(seconds, peak resident growth MB sampled every 10 ms, outcome) of fn()."""
    start_rss, peak, stop = _resident_mb(), [0.0], threading.Event()

    def watch() -> None:
        while not stop.wait(0.01):
            peak[0] = max(peak[0], _resident_mb() - start_rss)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    t0 = time.perf_counter()
    try:
        fn()
        result = "imported"
    except WorkbookError as exc:
        result = "refused: " + str(exc).split(": ", 1)[1][:70]
    seconds = time.perf_counter() - t0
    stop.set()
    thread.join()
    return seconds, max(peak[0], _resident_mb() - start_rss), result


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        report = folder / "demo.xlsx"
        export_report(load_demo(), report)
        cases = [("7.4M shared strings", bombs.shared_strings, 7_400_000),
                 ("1.9M cell formats", bombs.cell_styles, 1_900_000),
                 ("10M empty rows", lambda s, d, n: bombs.empty_rows(s, d, n, "Inputs"), 10_000_000),
                 ("a row of 3M cells", lambda s, d, n: bombs.wide_row(s, d, n, "Inputs"), 3_000_000)]
        print(f"{'bomb':<22}{'KB':>7}{'s':>7}{'MB grown':>10}  outcome")
        for name, make, n in cases:
            bomb = make(report, folder / "bomb.xlsx", n)
            seconds, grown, result = measured(lambda: importer.import_report(bomb))
            print(f"{name:<22}{bomb.stat().st_size / 1024:>7.0f}{seconds:>7.2f}{grown:>10.0f}  {result}", flush=True)
        big = folder / "big.xlsx"
        export_report(large_workbook(200, 100), big)
        counted, real = [], (sheet_reader.check_part_counts, sheet_reader.check_sheet_counts)
        plain = []
        for _ in range(5):
            counted.append(measured(lambda: importer.import_report(big))[0])
            sheet_reader.check_part_counts = lambda *a, **k: None
            sheet_reader.check_sheet_counts = lambda *a, **k: None
            plain.append(measured(lambda: importer.import_report(big))[0])
            sheet_reader.check_part_counts, sheet_reader.check_sheet_counts = real
        c, p = min(counted), min(plain)
        print(f"import of a 200 x 100 report ({big.stat().st_size / 1e6:.1f} MB), best of 5: with counts {c:.2f} s, "
              f"without {p:.2f} s, ratio {c / p:.2f}")


if __name__ == "__main__":
    main()
