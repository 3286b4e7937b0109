"""Time ChartsPanel.show_result alone on the demo and on a 100-tier x 30-class workbook.

Run: QT_QPA_PLATFORM=offscreen python tests/bench/bench_charts.py [repeats]
Each timed call follows a real edit (one tier's batch or one class's alpha changes, the
comparison is recomputed outside the timer), so the charts have new data every time.
Further series: an edit that moves every curve (all tiers' K), re-selecting tiers (the
other call the main window makes), and for scale an edit with the visible chart's repaint.
"""
from __future__ import annotations

import dataclasses
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtWidgets import QApplication  # noqa: E402

from gui.charts.panel import ChartsPanel  # noqa: E402
from model.comparison import compare  # noqa: E402
from model.workbook.rows import Workbook  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402


def big_workbook(n_tiers: int = 100, n_classes: int = 30) -> Workbook:
    """The demo's rows repeated under unique names (baselines point inside each copy)."""
    demo = load_demo()
    wb = demo.copy()
    wb.tiers, wb.classes, wb.overrides = [], [], []
    for i in range(n_tiers):
        t = demo.tiers[i % len(demo.tiers)]
        copy_no = i // len(demo.tiers)
        base = f"{t.baseline} #{copy_no}" if t.baseline else ""
        wb.tiers.append(dataclasses.replace(t, name=f"{t.name} #{copy_no}", baseline=base))
    for j in range(n_classes):
        c = demo.classes[j % len(demo.classes)]
        wb.classes.append(dataclasses.replace(c, name=f"{c.name} #{j // len(demo.classes)}"))
    return wb


def _stats(ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return f"median {statistics.median(ms):6.2f} ms   p95 {p95:6.2f} ms   (n={len(ms)})"


def bench(label: str, wb: Workbook, repeats: int) -> None:
    app = QApplication.instance() or QApplication([])
    panel = ChartsPanel()
    panel.resize(520, 460)
    panel.show()
    spec_rows = [i for i, t in enumerate(wb.tiers) if t.speculative != "no"]
    row = spec_rows[0]
    panel.show_result(wb, compare(wb), row)
    app.processEvents()
    edits, selects = [], []
    for n in range(repeats):
        # an edit: alternate between the selected tier's batch (its roofline c and v) and a class's acceptance
        if n % 2:
            wb.tiers[row].batch = 1 + n % 16
        else:
            wb.classes[n % len(wb.classes)].alpha = 0.4 + 0.005 * (n % 100)
        cmp = compare(wb)
        t0 = time.perf_counter()
        panel.show_result(wb, cmp, row)
        edits.append((time.perf_counter() - t0) * 1e3)
        app.processEvents()  # paint between edits, as the window would
    every, painted = [], []
    for n in range(repeats):
        # worst case: every speculative tier's curve and every class curve changes
        for t in wb.tiers:
            t.k = 3 + n % 4
        cmp = compare(wb)
        t0 = time.perf_counter()
        panel.show_result(wb, cmp, row)
        every.append((time.perf_counter() - t0) * 1e3)
        app.processEvents()
    for n in range(repeats):
        # for scale only: the same edit with the visible chart's repaint included
        wb.classes[n % len(wb.classes)].alpha = 0.4 + 0.005 * (n % 100)
        cmp = compare(wb)
        panel.tabs.setCurrentIndex(n % 3)
        app.processEvents()
        t0 = time.perf_counter()
        panel.show_result(wb, cmp, row)
        panel.tabs.currentWidget().viewport().repaint()  # the view paints in its viewport, synchronously here
        painted.append((time.perf_counter() - t0) * 1e3)
    cmp = compare(wb)
    for n in range(repeats):
        sel = spec_rows[n % len(spec_rows)] if n % 3 else n % len(wb.tiers)  # some non-speculative
        t0 = time.perf_counter()
        panel.show_result(wb, cmp, sel)
        selects.append((time.perf_counter() - t0) * 1e3)
        app.processEvents()
    print(f"{label:<18} one edit        {_stats(edits)}")
    print(f"{label:<18} all tiers edit  {_stats(every)}")
    print(f"{label:<18} select a tier   {_stats(selects)}")
    print(f"{label:<18} edit + repaint  {_stats(painted)}   (show_result + repaint of the visible chart)")
    panel.close()


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    print(f"ChartsPanel.show_result alone, {os.cpu_count()} CPUs, {repeats} calls per series")
    bench("demo (8 x 6)", load_demo(), repeats)
    bench("large (100 x 30)", big_workbook(), repeats)


if __name__ == "__main__":
    main()
