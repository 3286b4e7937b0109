"""Plot items for a chart drawn one row per task class (the trailer chart), that repaint only the rows an edit
moved: an edit of one class changes one row, and repainting the plot's whole area and regenerating an axis of
30 labels was most of the time from that edit to an updated window (tests/bench/bench_gui.py at 100 x 30).

``RowBars`` is a bar item whose ``set_bars`` repaints only the bars that changed while the bars' extent stays;
``RowLabelAxis`` a left or right axis printing one label per row, each laid out once, a changed label
repainting its own row. Both draw exactly what pyqtgraph's BarGraphItem and AxisItem draw for the same data.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QStaticText
from PySide6.QtWidgets import QGraphicsItem

PAD_PX = 3.0  # around a repainted bar: its pen and antialiasing reach past its rect


class RowBars(pg.BarGraphItem):
    """Bars given as x0, width, y (centre), height, and optionally a brush each. With a frame (``set_frame``: the
    rectangle the bars stay in, such as K slots by the classes' rows) the item's bounds are the frame's, so a bar
    that grows past the others still repaints alone."""

    def __init__(self, **opts: Any) -> None:
        self._frame: QRectF | None = None
        super().__init__(**opts)
        self._rects = np.zeros((0, 4))  # x0, y0, x1, y1 of each bar as last set
        self._brush_list: list | None = None

    def set_frame(self, frame: QRectF | None) -> None:
        if frame != self._frame:
            self.prepareGeometryChange()
            self._frame = frame
            self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt override)
        bounds = super().boundingRect()
        return bounds if self._frame is None else self._frame.united(bounds) if bounds.isValid() else QRectF(self._frame)

    def _in_frame(self, rects: np.ndarray, px: float, py: float) -> bool:
        if self._frame is None or not rects.size:
            return False
        low, high = rects[:, :2].min(axis=0), rects[:, 2:].max(axis=0)
        return self._frame.contains(QRectF(QPointF(low[0] - px, low[1] - py), QPointF(high[0] + px, high[1] + py)))

    def set_bars(self, x0: Any, width: Any, y: Any, height: Any, brushes: Sequence | None = None) -> None:
        x0, width = np.asarray(x0, dtype=np.float64), np.asarray(width, dtype=np.float64)
        y, height = np.asarray(y, dtype=np.float64), np.asarray(height, dtype=np.float64)
        n = max(x0.size, width.size, y.size, height.size)
        left, top = np.broadcast_to(x0, n), np.broadcast_to(y - height / 2, n)
        right, bottom = left + np.broadcast_to(width, n), top + np.broadcast_to(height, n)
        rects = np.column_stack((np.minimum(left, right), np.minimum(top, bottom),
                                 np.maximum(left, right), np.maximum(top, bottom)))
        opts: dict[str, Any] = {"x0": x0, "width": width, "y": y, "height": height}
        if brushes is not None:
            opts["brushes"] = list(brushes)
        old, old_brushes = self._rects, self._brush_list
        self._rects = rects
        self._brush_list = opts.get("brushes", old_brushes)
        pixel = self.pixelVectors() if old.shape == rects.shape and n > 0 else (None, None)
        px = py = 0.0
        if pixel[0] is not None and pixel[1] is not None:
            px, py = pixel[0].length() * PAD_PX, pixel[1].length() * PAD_PX
            same_bounds = (self._in_frame(old, px, py) and self._in_frame(rects, px, py)
                           or np.array_equal(old[:, :2].min(axis=0), rects[:, :2].min(axis=0))
                           and np.array_equal(old[:, 2:].max(axis=0), rects[:, 2:].max(axis=0)))
        if pixel[0] is None or pixel[1] is None or not same_bounds:
            self.setOpts(**opts)  # the bounds moved (or the item is not on screen yet): the usual full update
            return
        moved = np.any(old != rects, axis=1)
        if brushes is not None:
            moved |= np.array([old_brushes is None or a is not b for a, b in zip(opts["brushes"], old_brushes or [])]
                              + [True] * max(0, n - len(old_brushes or [])), dtype=bool)[:n]
        if not moved.any():
            return
        # what setOpts does, less prepareGeometryChange and the whole-item update: the bounding rect is the same
        self.opts.update(opts)
        self.picture = None
        self._shape = None
        self._prepareData()
        self._updateColors(opts)
        for i in np.flatnonzero(moved):
            a, b = old[i], rects[i]
            self.update(QRectF(QPointF(min(a[0], b[0]) - px, min(a[1], b[1]) - py),
                               QPointF(max(a[2], b[2]) + px, max(a[3], b[3]) + py)))


class RowLabelAxis(pg.AxisItem):
    """A left or right axis that prints a label beside each row (at y = the row's value in the view): the class
    names, or each class's numbers. Labels that would overlap the one above are left out, as pyqtgraph does."""

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self._rows = np.zeros(0)
        self._labels: list[str] = []
        self._static: list[QStaticText] = []
        self._sizes = np.zeros((0, 2))  # width, height of each label, laid out once

    def labels(self) -> list[str]:
        return list(self._labels)

    def set_rows(self, rows: Any, labels: Sequence[str]) -> bool:
        """Label row y = rows[i] with labels[i]; True when anything shown changed. A new set of rows repaints the
        axis; new words on the same rows repaint those rows alone."""
        rows = np.asarray(rows, dtype=np.float64)
        labels = list(labels)
        if rows.shape != self._rows.shape or not np.array_equal(rows, self._rows):
            self._rows, self._labels = rows.copy(), labels
            self._static = [self._laid_out(text) for text in labels]
            self._sizes = np.array([[s.size().width(), s.size().height()] for s in self._static]).reshape(-1, 2)
            self.update()
            return True
        changed = [i for i, (a, b) in enumerate(zip(self._labels, labels)) if a != b]
        for i in changed:
            old = self._rect(i, self._ys()[i])
            self._labels[i] = labels[i]
            self._static[i] = self._laid_out(labels[i])
            size = self._static[i].size()
            self._sizes[i] = (size.width(), size.height())
            self.update(old.united(self._rect(i, self._ys()[i])))
        return bool(changed)

    def _font(self) -> Any:
        return self.style["tickFont"] or self.font()

    def _laid_out(self, text: str) -> QStaticText:
        static = QStaticText(text)
        static.setTextFormat(Qt.TextFormat.PlainText)
        static.prepare(font=self._font())
        return static

    def _ys(self) -> np.ndarray:
        """Each row's y in this axis's local coordinates (the axis spans the view box's height, as AxisItem
        places its ticks)."""
        bounds = self.mapRectFromParent(self.geometry())
        low, high = self.range
        span = high - low
        if span == 0:
            return np.full(self._rows.shape, bounds.center().y())
        return bounds.bottom() - (self._rows - low) / span * bounds.height()

    def _rect(self, i: int, y: float) -> QRectF:
        bounds = self.mapRectFromParent(self.geometry())
        width, height = self._sizes[i]
        height = max(height, self._line_height())
        offset = self.style["tickTextOffset"][0]
        x = bounds.left() + offset if self.orientation == "right" else bounds.right() - offset - width
        return QRectF(x, y - height / 2, width, height)

    def _line_height(self) -> float:
        return QFontMetricsF(self._font()).height()

    def paint(self, p, opt, widget) -> None:  # noqa: ANN001 (Qt override)
        if not self._labels:
            return
        p.setRenderHint(p.RenderHint.TextAntialiasing, True)
        p.setFont(self._font())
        p.setPen(self.textPen())
        exposed = opt.exposedRect if opt is not None and not opt.exposedRect.isEmpty() else None
        bounds = self.mapRectFromParent(self.geometry())
        p.setClipRect(self.boundingRect())
        ys = self._ys()
        heights = np.maximum(self._sizes[:, 1], self._line_height())
        above = -np.inf
        for i in np.argsort(ys, kind="stable"):
            top, bottom = ys[i] - heights[i] / 2, ys[i] + heights[i] / 2
            if bottom < bounds.top() or top > bounds.bottom():
                continue
            if top < above:
                continue  # overlaps the label above: left out, as pyqtgraph hides overlapping tick labels
            above = bottom
            if exposed is None or (exposed.top() <= bottom and top <= exposed.bottom()):
                rect = self._rect(int(i), float(ys[i]))
                p.drawStaticText(rect.topLeft(), self._static[i])
