"""Speedup against concurrency for the selected tier: measured points, the claim, the roofline by batch.

The numbers come from model.comparison.load_curve; this chart only draws them. The x axis is parallel streams on
a log scale: the probe's levels (the analyst's concurrency) and, for a roofline tier, the server's
batch on the same axis as a dashed line, labelled as the server's (the help says why they differ).
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from model.common import formatting as fmt
from model.comparison import Comparison
from model.comparison.load_curve import BATCH_GRID, LoadCurve, load_curve
from model.workbook.rows import Workbook

from gui.charts.style import (BREAK_EVEN, CLAIM, INK, ChartView, array_bytes, class_color, curve_inputs, html_text,
                              up_to_date)

TICKS = [1, 2, 4, 8, 16, 32, 64, 128, 256]
MEASURED = class_color(0)
ROOF = class_color(2)
PRICE = class_color(4)
THROTTLED_INK = BREAK_EVEN


class LoadChart(ChartView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("speedup_vs_concurrency", "parallel streams (your concurrency; dashed: server batch)",
                         "speedup over the baseline ×", parent=parent)
        self.plot.setLogMode(x=True, y=False)
        self.plot.getAxis("bottom").setTicks([[(math.log10(n), str(n)) for n in TICKS], []])
        self.plot.setXRange(math.log10(BATCH_GRID[0]) - 0.08, math.log10(BATCH_GRID[-1]) + 0.08, padding=0)
        self.plot.enableAutoRange(axis="y")
        self.plot.setMouseEnabled(x=False, y=True)
        unity_pen = pg.mkPen(BREAK_EVEN, width=1, style=Qt.PenStyle.DashDotLine)
        self._unity = pg.InfiniteLine(pos=1.0, angle=0, pen=unity_pen)
        self._unity_sample = pg.PlotDataItem([], [], pen=unity_pen)
        price_pen = pg.mkPen(PRICE, width=1, style=Qt.PenStyle.DotLine)
        self._price = pg.InfiniteLine(angle=0, pen=price_pen, label="",
                                      labelOpts={"position": 0.72, "color": PRICE, "anchors": [(0.5, 1.0), (0.5, 1.0)]})
        self._price_sample = pg.PlotDataItem([], [], pen=price_pen)
        self._load_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(INK, width=1, style=Qt.PenStyle.DotLine), label="",
                                          labelOpts={"position": 0.95, "color": INK, "anchors": [(-0.05, 0), (-0.05, 0)]})
        self._roof = pg.PlotDataItem([], [], pen=pg.mkPen(ROOF, width=2, style=Qt.PenStyle.DashLine), antialias=True)
        self._measured = pg.PlotDataItem([], [], pen=pg.mkPen(MEASURED, width=2), symbol="o", symbolSize=9,
                                         symbolBrush=MEASURED, symbolPen=pg.mkPen("w"), antialias=True)
        self._throttled = pg.PlotDataItem([], [], pen=None, symbol="x", symbolSize=11, symbolBrush=THROTTLED_INK,
                                          symbolPen=pg.mkPen(THROTTLED_INK, width=2))
        self._claim = pg.PlotDataItem([], [], pen=None, symbol="star", symbolSize=15, symbolBrush=CLAIM,
                                      symbolPen=pg.mkPen("w"))
        # the probe's interval per level (requests as the unit); x in log10 by hand: an ErrorBarItem does
        # not follow the plot's log mode as data items do
        self._bars = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), top=np.zeros(0), bottom=np.zeros(0),
                                     beam=0.04, pen=pg.mkPen(MEASURED, width=1.5))
        for z, item in enumerate((self._unity, self._price, self._load_line, self._roof, self._bars, self._measured,
                                  self._throttled, self._claim)):
            item.setZValue(10 + z)
            self.plot.addItem(item)
        # top right: the claim's star and the load line's label sit at the left, at one stream
        self._note = pg.TextItem(anchor=(1.0, 0.0))
        self._note.setParentItem(self.plot.getViewBox())
        self.plot.vb.sigResized.connect(self._on_view_resized)
        for sample, label in ((self._measured, "measured (probe; bar: its interval)"), (self._throttled, "throttled (429s): not used"),
                              (self._claim, "vendor claim (at its streams)"),
                              (self._roof, "roofline by server batch"), (self._price_sample, "price ratio"),
                              (self._unity_sample, "1.00x")):
            self.legend.addItem(sample, label)
        self.fit_legend()
        self.curve: LoadCurve | None = None
        self._bar_data: tuple[np.ndarray, np.ndarray, np.ndarray] = (np.zeros(0), np.zeros(0), np.zeros(0))

    def data_key(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> object:
        if not 0 <= tier_row < len(workbook.tiers):
            return tier_row
        tier = workbook.tiers[tier_row]
        return (tier_row, curve_inputs(tier), tier.concurrency, tier.measured_by_concurrency, tier.claim_concurrency,
                tuple((c.context, c.tokens_out) for c in workbook.classes),
                array_bytes(comparison.cells.alpha[tier_row], comparison.tiers.price_ratio[tier_row],
                            comparison.tiers.baseline_index[tier_row]))

    def update_result(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> None:
        if not 0 <= tier_row < len(workbook.tiers):
            self.curve = None
            for item in (self._measured, self._throttled, self._claim, self._roof):
                item.setData([], [])
            self._set_bars(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0))
            self._price.setVisible(False)
            self._load_line.setVisible(False)
            self._set_note("Select a tier to see its speedup by concurrency.")
            self.set_title("Speedup vs concurrency")
            return
        tier = workbook.tiers[tier_row]
        self.export_subject = tier.name
        ratio = float(comparison.tiers.price_ratio[tier_row]) if comparison.tiers.baseline_index[tier_row] >= 0 else None
        curve = self.curve = load_curve(workbook, comparison.cells.alpha[tier_row], ratio, tier_row)
        ok = ~curve.throttled
        self._measured.setData(curve.levels[ok], curve.measured[ok])
        self._throttled.setData(curve.levels[~ok], curve.measured[~ok])
        self._set_bars(curve.levels[ok], curve.measured[ok], curve.low[ok], curve.high[ok])  # a throttled one: not used
        has_claim = curve.claim is not None
        self._claim.setData([float(curve.claim_concurrency)] if has_claim else [], [curve.claim] if has_claim else [])
        if curve.roofline is not None:
            self._roof.setData(curve.batches, curve.roofline)
        else:
            self._roof.setData([], [])
        self._price.setVisible(curve.price_ratio is not None)
        if curve.price_ratio is not None:
            self._price.setValue(curve.price_ratio)
            self._price.label.setFormat(f"price ratio {fmt.times(curve.price_ratio)}: worth it above")
        self._load_line.setVisible(True)
        self._load_line.setValue(math.log10(max(1, curve.concurrency)))
        self._load_line.label.setFormat(f"your load: {curve.concurrency}")
        self._set_note(curve.note)
        self.set_title(f"Speedup vs concurrency — {tier.name}")

    @up_to_date
    def measured_points(self) -> tuple[np.ndarray, np.ndarray] | None:
        x, y = self._measured.getOriginalDataset()
        return (np.array(x), np.array(y)) if x is not None and len(x) else None

    @up_to_date
    def interval_bars(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(levels, low, high) of the error bars drawn."""
        x, low, high = self._bar_data
        return (x, low, high) if len(x) else None

    def _set_bars(self, levels: np.ndarray, measured: np.ndarray, low: np.ndarray, high: np.ndarray) -> None:
        has = np.isfinite(low) & np.isfinite(high) if len(levels) else np.zeros(0, dtype=bool)
        x, y, lo, hi = levels[has], measured[has], low[has], high[has]
        self._bar_data = (x, lo, hi)
        self._bars.setData(x=np.log10(x) if len(x) else x, y=y, top=hi - y, bottom=y - lo)

    @up_to_date
    def roofline_line(self) -> tuple[np.ndarray, np.ndarray] | None:
        x, y = self._roof.getOriginalDataset()
        return (np.array(x), np.array(y)) if x is not None and len(x) else None

    @up_to_date
    def claim_point(self) -> tuple[float, float] | None:
        x, y = self._claim.getOriginalDataset()
        return (float(x[0]), float(y[0])) if x is not None and len(x) else None

    def _set_note(self, text: str) -> None:
        self._note.setVisible(bool(text))
        if text:
            # one note a line, wrapped within the plot: on one line they ran past the pane's edge at 1366 x 768
            lines = "<br>".join(html_text(line, BREAK_EVEN) for line in text.split("; "))
            self._note.setHtml(f'<div style="text-align:right">{lines}</div>')
            self._on_view_resized()

    def _on_view_resized(self, *_args: object) -> None:
        width = self.plot.vb.width()
        self._note.setTextWidth(max(80.0, 0.75 * width))
        self._note.setPos(width - 4, 4)
