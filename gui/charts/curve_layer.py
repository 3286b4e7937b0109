"""Many curves drawn as one cached layer: the faint curves of every other tier in the speedup-vs-acceptance chart.

Stroking 50 antialiased curves was most of the time from an edit to an updated window with that chart shown at
100 tiers (tests/bench/bench_gui.py's phases, 23 ms a class edit): a class's dot moving repainted the plot under
it, and with it every curve. Here the curves are one item whose drawing Qt keeps as a pixmap at screen
resolution (DeviceCoordinateCache): an edit that leaves them as they were repaints from the pixmap, and only a
change of their data (or of the view's range or size) strokes them again.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem

PAD_PX = 3.0  # a cosmetic pen's half width and antialiasing past the curves' data


class CurveLayer(pg.GraphicsObject):
    """Curves (x, y) in one pen; counts in the view's auto-range like the curves it draws."""

    def __init__(self, pen: QPen) -> None:
        super().__init__()
        self._pen = QPen(pen)
        self._paths: list[QPainterPath] = []
        self._data: list[tuple[np.ndarray, np.ndarray]] = []
        self._bounds: QRectF | None = None  # the data's, without padding
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.strokes = 0  # how many times the curves were stroked (tests: a cached repaint strokes nothing)

    def set_curves(self, curves: Sequence[tuple[Any, Any]]) -> None:
        """Draw these curves (and no others); the same curves again change nothing."""
        data = [(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)) for x, y in curves]
        if len(data) == len(self._data) and all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1], equal_nan=True)
                                                for a, b in zip(data, self._data)):
            return
        self.prepareGeometryChange()
        self._data = data
        self._paths = [pg.arrayToQPath(x, y, connect="finite") for x, y in data if x.size]
        bounds = [path.boundingRect() for path in self._paths if not path.isEmpty()]
        self._bounds = None
        for rect in bounds:
            self._bounds = rect if self._bounds is None else self._bounds.united(rect)
        self.update()
        self.informViewBoundsChanged()

    def curves(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return [(x.copy(), y.copy()) for x, y in self._data]

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange: Any = None) -> tuple[float | None, float | None]:  # noqa: N802, N803
        values = [(x if ax == 0 else y) for x, y in self._data]
        values = [v[np.isfinite(v)] for v in values]
        values = [v for v in values if v.size]
        if not values:
            return None, None
        return float(min(v.min() for v in values)), float(max(v.max() for v in values))

    def pixelPadding(self) -> float:  # noqa: N802 (pyqtgraph's auto-range asks it)
        # as a PlotCurveItem of this pen pads its curve (antialiased), so the axes' range is the one they had
        return self._pen.widthF() * 0.7072 + 1.0

    def viewTransformChanged(self) -> None:  # noqa: N802 (pyqtgraph hook)
        # the padding is in pixels: another scale is another bounding rect (and another cached pixmap)
        self.prepareGeometryChange()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt override)
        if self._bounds is None:
            return QRectF()
        px, py = self.pixelVectors()
        pad_x = 0.0 if px is None else px.length() * PAD_PX
        pad_y = 0.0 if py is None else py.length() * PAD_PX
        return self._bounds.adjusted(-pad_x, -pad_y, pad_x, pad_y)

    def paint(self, p, *_args: Any) -> None:  # noqa: ANN001 (Qt override)
        self.strokes += 1
        p.setRenderHint(p.RenderHint.Antialiasing, True)
        p.setPen(self._pen)
        for path in self._paths:
            p.drawPath(path)
