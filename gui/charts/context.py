"""Speedup versus context length for the selected tier: a curve per task class at its acceptance."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from model.common import formatting as fmt
from model.comparison import Comparison
from model.curves.speedup import CONTEXT_GRID, context_curves
from model.workbook.rows import Workbook

from gui.charts.not_given import classes_not_given, mechanics_not_given, not_given_key
from gui.charts.style import (BREAK_EVEN, CLAIM, INK, MAX_CLASS_ENTRIES, ChartView, array_bytes, class_color, curve_inputs,
                              html_text, resize_pool, up_to_date)

TICK_CONTEXTS = [1024 * 2**i for i in range(8)]  # 1K .. 128K, one tick per doubling


class ContextChart(ChartView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("speedup_vs_context", "context length (tokens)", "speedup ×", parent=parent)
        self.plot.setLogMode(x=True, y=False)
        # in log mode the view's x unit is log10(tokens); ticks and lines are placed in it
        self.plot.getAxis("bottom").setTicks([[(math.log10(c), fmt.context(c)) for c in TICK_CONTEXTS], []])
        # extra room on the right so the 128K tick label is not dropped at the edge
        self.plot.setXRange(math.log10(CONTEXT_GRID[0]) - 0.06, math.log10(CONTEXT_GRID[-1]) + 0.12, padding=0)
        self.plot.enableAutoRange(axis="y")
        self.plot.setMouseEnabled(x=False, y=True)
        # the break-even line is named in the legend: a label on it would sit on the slow classes' curves
        unity_pen = pg.mkPen(BREAK_EVEN, width=1, style=Qt.PenStyle.DashLine)
        self._unity = pg.InfiniteLine(pos=1.0, angle=0, pen=unity_pen)
        self._unity_sample = pg.PlotDataItem([], [], pen=unity_pen)
        self._claim_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(CLAIM, width=1, style=Qt.PenStyle.DotLine),
                                           label="", labelOpts={"position": 0.96, "color": CLAIM, "anchors": [(-0.05, 0), (-0.05, 0)]})
        self._own = pg.PlotDataItem([], [], pen=None, symbol="o", symbolSize=9, symbolPen=pg.mkPen("w"), symbolBrush=[])
        self._claim = pg.PlotDataItem([], [], pen=None, symbol="star", symbolSize=15, symbolBrush=CLAIM, symbolPen=pg.mkPen("w"))
        for z, item in enumerate((self._unity, self._claim_line, self._own, self._claim)):
            item.setZValue(20 + z)
            self.plot.addItem(item)
        self._note = pg.TextItem(anchor=(0.0, 0.0))
        self._note.setParentItem(self.plot.getViewBox())
        self._note.setPos(6, 4)
        self._curves: list[pg.PlotDataItem] = []
        self._names: list[str] = []
        self._empty = True  # no tier shown: curves hidden by us, not by the user
        self._own_sample = pg.ScatterPlotItem(symbol="o", size=9, brush=INK, pen=pg.mkPen("w"))
        self._many_sample = pg.PlotDataItem([], [], pen=pg.mkPen(class_color(0), width=2))
        self._fixed_legend = [(self._own_sample, "class at its own context"), (self._claim, "vendor claim"),
                              (self._unity_sample, "1.00x: break-even")]

    def data_key(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> object:
        names = tuple(comparison.class_names)
        if not 0 <= tier_row < len(workbook.tiers) or not names:
            return (tier_row, names)
        i = tier_row
        # the document never edits a row in place: an edit makes new rows, so == sees it
        return (i, names, curve_inputs(workbook.tiers[i]), tuple(c.context for c in workbook.classes),
                bool(comparison.tiers.speculative[i]), bool(comparison.tiers.unconfirmed[i]),
                array_bytes(comparison.cells.alpha[i], comparison.cells.tokens_per_stretch[i], comparison.cells.speedup[i],
                            comparison.claims.speedup[i],
                            comparison.claims.context[i]), not_given_key(comparison, i))

    def update_result(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> None:
        names = comparison.class_names
        n = len(names)
        if resize_pool(self.plot, self._curves, n, self._new_curve):
            self._rebuild_legend(names)
        elif names != self._names and n <= MAX_CLASS_ENTRIES:
            for curve, name in zip(self._curves, names):
                label = self.legend.getLabel(curve)
                if label is not None:
                    label.setText(name, color=INK.name())
        self._names = list(names)
        if not 0 <= tier_row < len(workbook.tiers) or n == 0:
            self._show_empty("Select a tier to see its speedup by context." if n else "Add a task class to see its curve.")
            return
        tier = workbook.tiers[tier_row]
        self.export_subject = tier.name
        not_given = mechanics_not_given(comparison, tier_row, tier.name)
        if not_given:  # no curve from mechanics nobody gave (compare() models none), and no "1.00x" either
            self._show_empty("<br>".join(not_given))
            return
        alphas = comparison.cells.alpha[tier_row]
        speedup = context_curves(tier, alphas, tokens=comparison.own_tokens(tier_row))  # a profile's own E
        if comparison.cells.refused[tier_row].any():
            # a per-token alpha on a tree draft: no curve (comparison.TREE_NEEDS_LENGTH)
            speedup = np.where(comparison.cells.refused[tier_row][:, None], np.nan, speedup)
        for j, curve in enumerate(self._curves):
            # an edit of one class's acceptance moves one curve: leave the others alone
            if curve.yData is None or not np.array_equal(curve.yData, speedup[j]):
                curve.setData(CONTEXT_GRID, speedup[j])
            if self._empty:  # only undo our own hiding: a curve hidden from the legend stays hidden
                curve.setVisible(True)
        self._empty = False
        contexts = np.array([c.context for c in workbook.classes], dtype=np.float64)
        self._own.setData(contexts, comparison.cells.speedup[tier_row], symbolBrush=[class_color(j) for j in range(n)])
        claimed = comparison.claims.speedup[tier_row]
        claim_ctx = float(comparison.claims.context[tier_row])
        has_claim = comparison.tiers.speculative[tier_row] and not np.isnan(claimed)
        self._claim.setData([claim_ctx] if has_claim else [], [claimed] if has_claim else [])
        self._claim_line.setVisible(bool(has_claim))
        if has_claim:
            self._claim_line.setValue(math.log10(claim_ctx))
            self._claim_line.label.setFormat(f"claim {fmt.times(claimed)} at {fmt.context(claim_ctx)}")
        if comparison.tiers.speculative[tier_row]:
            self._set_note("<br>".join(classes_not_given(comparison, tier_row)))
            suffix = " (unconfirmed)" if comparison.tiers.unconfirmed[tier_row] else ""
            self.set_title(f"Speedup vs context — {tier.name}, K = {tier.k}{suffix}")
        else:
            self._set_note(f"{tier.name} does not run speculative decoding:<br>1.00x at every context")
            self.set_title(f"Speedup vs context — {tier.name}")

    @up_to_date
    def curve_data(self, class_name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The plotted (context in tokens, speedup) for one class on the selected tier."""
        for name, curve in zip(self._names, self._curves):
            if name == class_name and not self._empty:
                x, y = curve.getOriginalDataset()
                return np.array(x), np.array(y)
        return None

    @up_to_date
    def claim_point(self) -> tuple[float, float] | None:
        x, y = self._claim.getOriginalDataset()
        return (float(x[0]), float(y[0])) if x is not None and len(x) else None

    def _new_curve(self, j: int) -> pg.PlotDataItem:
        curve = pg.PlotDataItem([], [], pen=pg.mkPen(class_color(j), width=2), antialias=True)
        curve.setZValue(5)
        return curve

    def _rebuild_legend(self, names: list[str]) -> None:
        self.legend.clear()
        if len(names) > MAX_CLASS_ENTRIES:
            self.legend.addItem(self._many_sample, f"{len(names)} task classes, coloured as in the trailer chart")
        else:
            for curve, name in zip(self._curves, names):
                self.legend.addItem(curve, name)
        for sample, label in self._fixed_legend:
            self.legend.addItem(sample, label)
        self.fit_legend()

    def _show_empty(self, text: str) -> None:
        self._empty = True
        for curve in self._curves:
            curve.setVisible(False)
        self._own.setData([], [])
        self._claim.setData([], [])
        self._claim_line.setVisible(False)
        self._set_note(text)
        self.set_title("Speedup vs context")

    def _set_note(self, text: str) -> None:
        self._note.setVisible(bool(text))
        if text:
            self._note.setHtml("<br>".join(html_text(line, BREAK_EVEN) for line in text.split("<br>")))
