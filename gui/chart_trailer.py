"""Trailer fill: each task class as a trailer of K draft slots, cargo coloured, empty slots hatched."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics
from PySide6.QtWidgets import QWidget

from model import arithmetic as ar
from model import formatting as fmt
from model.chart_data import break_even_fill
from model.comparison import Comparison
from model.workbook import Workbook

from .chart_style import BREAK_EVEN, INK, ChartView, class_color, html_text, resize_pool

BAR_HEIGHT = 0.62
LABEL_ROOM = 0.62  # share of K added right of the trailers for the per-class numbers
WASTE_BRUSH = QBrush(QColor(150, 150, 150), Qt.BrushStyle.BDiagPattern)
TRAILER_BRUSH = QBrush(QColor(236, 236, 236))


class TrailerChart(ChartView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("trailer_fill", "draft slots per stretch (tokens)", "", legend_columns=2, parent=parent)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.showGrid(x=False, y=False)
        self.plot.getAxis("left").setStyle(tickLength=0)
        self._trailers = pg.BarGraphItem(x0=[], width=[], y=[], height=BAR_HEIGHT, brush=TRAILER_BRUSH, pen=pg.mkPen(INK, width=1))
        self._waste = pg.BarGraphItem(x0=[], width=[], y=[], height=BAR_HEIGHT, brush=WASTE_BRUSH, pen=pg.mkPen(None))
        self._cargo = pg.BarGraphItem(x0=[], width=[], y=[], height=BAR_HEIGHT, brushes=[], pen=pg.mkPen(None))
        # slot walls and break-even ticks are many short segments: one item each, drawn as pairs
        self._walls = pg.PlotDataItem([], [], connect="pairs", pen=pg.mkPen(INK, width=1))
        self._needed = pg.PlotDataItem([], [], connect="pairs", pen=pg.mkPen(BREAK_EVEN, width=3), name="fill needed to break even")
        for z, item in enumerate((self._trailers, self._waste, self._cargo, self._walls, self._needed)):
            item.setZValue(z)
            self.plot.addItem(item)
        self._labels: list[pg.TextItem] = []
        self._note = pg.TextItem(anchor=(0.5, 0.5))
        self.plot.addItem(self._note)
        # legend samples: the cargo sample stands for every class colour
        self._cargo_sample = pg.BarGraphItem(x=[0], height=[1], width=1, brush=class_color(0), pen=pg.mkPen(None))
        self._waste_sample = pg.BarGraphItem(x=[0], height=[1], width=1, brush=WASTE_BRUSH, pen=pg.mkPen(INK))
        self.legend.addItem(self._cargo_sample, "cargo: accepted draft tokens")
        self.legend.addItem(self._waste_sample, "empty slots: drafted, paid for, discarded")
        self.legend.addItem(self._needed, "fill needed to break even")
        self._shown: dict[str, tuple[float, float, int]] = {}  # class -> (fill, alpha, K) as drawn

    def update_result(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> None:
        names = comparison.class_names
        n = len(names)
        resize_pool(self.plot, self._labels, n, lambda _: pg.TextItem(anchor=(0.0, 0.5)))
        tier = comparison.tier_names[tier_row] if 0 <= tier_row < len(comparison.tier_names) else None
        if tier is None or not comparison.speculative[tier_row] or n == 0:
            self._show_note(tier, n)
            return
        k = int(comparison.k[tier_row])
        fill = comparison.trailer_fill[tier_row]
        alpha = comparison.alpha[tier_row]
        speedup = comparison.speedup[tier_row]
        rows = np.arange(n - 1, -1, -1, dtype=np.float64)  # first class on top, as in the table
        cargo = fill * k
        self._trailers.setOpts(x0=np.zeros(n), width=np.full(n, float(k)), y=rows, height=BAR_HEIGHT)
        self._waste.setOpts(x0=cargo, width=k - cargo, y=rows, height=BAR_HEIGHT)
        self._cargo.setOpts(x0=np.zeros(n), width=cargo, y=rows, height=BAR_HEIGHT,
                            brushes=[class_color(j) for j in range(n)])
        self._walls.setData(*self._wall_segments(rows, k))
        needed = break_even_fill(comparison.break_even_alpha[tier_row], k) * k
        self._needed.setData(np.repeat(needed, 2), np.column_stack((rows - 0.42, rows + 0.42)).ravel())
        never = comparison.break_even_kind[tier_row] == ar.NEVER
        for j, label in enumerate(self._labels):
            tail = " · never pays at K" if never[j] else ""
            label.setHtml(html_text(f"α {alpha[j]:.2f} · fill {fmt.pct(fill[j], 0)} · {fmt.times(speedup[j])}{tail}", class_color(j)))
            label.setPos(k * 1.02, rows[j])
            label.setVisible(True)
        left = self.plot.getAxis("left")
        left.setTicks([[(float(rows[j]), names[j]) for j in range(n)], []])
        # the axis does not widen for long tick labels by itself: class names would be dropped
        left.setWidth(min(160, max(QFontMetrics(left.font()).horizontalAdvance(name) for name in names) + 14))
        self.plot.getAxis("bottom").setTicks([[(float(i), str(i)) for i in range(k + 1)], []])
        self.plot.setXRange(0, k * (1 + LABEL_ROOM), padding=0.01)
        self.plot.setYRange(-0.6, n - 0.4, padding=0)
        self._note.setVisible(False)
        for item in (self._trailers, self._waste, self._cargo, self._walls):
            item.setVisible(True)
        unconfirmed = " (speculative unconfirmed)" if comparison.unconfirmed[tier_row] else ""
        self.set_title(f"Trailer fill — {tier}, K = {k}{unconfirmed}")
        self._shown = {names[j]: (float(fill[j]), float(alpha[j]), k) for j in range(n)}

    def fill_data(self) -> dict[str, tuple[float, float, int]]:
        """What is drawn now: class -> (trailer fill, alpha, K); empty for a non-speculative tier."""
        return dict(self._shown)

    @staticmethod
    def _wall_segments(rows: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Vertical walls between the K slots of every trailer, as (x, y) pairs."""
        xs = np.arange(1, k, dtype=np.float64)
        x = np.repeat(np.tile(xs, rows.size), 2)
        y = np.column_stack((np.repeat(rows, xs.size) - BAR_HEIGHT / 2, np.repeat(rows, xs.size) + BAR_HEIGHT / 2)).ravel()
        return x, y

    def _show_note(self, tier: str | None, n_classes: int) -> None:
        for item in (self._trailers, self._waste, self._cargo, self._walls, *self._labels):
            item.setVisible(False)
        # emptied rather than hidden: a hidden item shows as "switched off" in the legend
        self._needed.setData([], [])
        if tier is None:
            text = "Select a tier to see its trailers."
        elif n_classes == 0:
            text = "Add a task class to see its trailer."
        else:
            text = f"{tier} does not run speculative decoding:\nno draft, no trailers — every class runs at 1.00x."
        self._note.setHtml(html_text(text).replace("\n", "<br>"))
        self._note.setPos(0.5, 0.5)
        self._note.setVisible(True)
        self.plot.getAxis("left").setTicks([[], []])
        self.plot.getAxis("bottom").setTicks([[], []])
        self.plot.setXRange(0, 1, padding=0)
        self.plot.setYRange(0, 1, padding=0)
        self.set_title(f"Trailer fill — {tier}" if tier else "Trailer fill")
        self._shown = {}
