"""What a sampling run measured, shown: a table per task class and a histogram against the i.i.d. model.

Only display lives here. The figures come from `model.sampling.run.ClassResult` and the
prediction from `model.mechanics.arithmetic.iid_histogram`; nothing is recomputed.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from gui.tables.spreadsheet_view import to_tsv
from model.common import formatting as fmt
from model.mechanics.arithmetic import iid_histogram

if TYPE_CHECKING:  # the real import pulls in the sampler; the GUI must start without it
    from model.sampling.run import ClassResult

_Index = QModelIndex | QPersistentModelIndex
NOT_IN_WORKBOOK = "not in workbook"


def _finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def _measured_speedup_text(c: "ClassResult") -> str:
    low, high = getattr(c, "speedup_measured_low", None), getattr(c, "speedup_measured_high", None)
    spread = f" ({fmt.fixed(low)}–{fmt.fixed(high)})" if _finite(low) and _finite(high) else ""
    return fmt.times(c.speedup_measured) + spread


# (header, tooltip, text of a ClassResult, raw value for sorting/tests)
_Column = tuple[str, str, Callable[["ClassResult"], str]]
_COLUMNS: tuple[_Column, ...] = (
    ("Task class", "Task class named in the prompt file", lambda c: c.task_class),
    ("Prompts", "Prompts of this class that ran", lambda c: str(c.prompts)),
    ("Stretches", "Draft stretches: each drafts K tokens and has the target verify them once",
     lambda c: f"{c.stretches:,}"),
    ("α\nper token", "Per-token acceptance α: the maximum-likelihood fit of the i.i.d. model to the "
     "histogram. This is the number the workbook's arithmetic uses.", lambda c: fmt.pct(c.alpha)),
    ("Draft\nacceptance", "Accepted drafts / drafted tokens (vLLM's 'draft acceptance rate'). "
     "Lower than α because a rejection ends the stretch.", lambda c: fmt.pct(c.draft_acceptance_rate)),
    ("Mean accept.\nlength", "Tokens emitted per target pass: 1 + accepted / stretches "
     "(vLLM, Spec-Bench 'mean acceptance length')", lambda c: fmt.fixed(c.mean_acceptance_length)),
    ("c\nmeasured", "Median draft forward time / median target decode-step time, on this machine",
     lambda c: fmt.fixed(c.c_measured, 3)),
    ("Speedup\nmeasured", "Target-only decode time per token / speculative time per token, same prompts, "
     "timed interleaved prompt by prompt. In brackets the spread over prompts (25th to 75th percentile). "
     "On tiny models and a shared CPU these timings are mostly noise (Python and scheduling, not the "
     "models): runs of the same seed differ. The acceptance α is the measurement; the predicted speedup "
     "is what it implies.", _measured_speedup_text),
    ("Speedup\npredicted", "What the arithmetic predicts from the measured α, K, c and v",
     lambda c: fmt.times(c.speedup_predicted)),
)
WORKBOOK_COLUMN = len(_COLUMNS)
_WORKBOOK_TIP = "The class's current α in the workbook, matched by name ignoring case"


class SamplingResultsModel(QAbstractTableModel):
    """One row per measured task class; read-only. The last column shows the workbook's α for it."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[ClassResult] = []
        self._workbook_alpha: dict[str, tuple[float, str]] = {}  # lower-case name -> (alpha, source)

    def set_results(self, rows: Sequence[ClassResult]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def set_workbook_alphas(self, alphas: dict[str, tuple[float, str]]) -> None:
        """Refresh only the workbook column, so a selection in the view survives an edit elsewhere."""
        self._workbook_alpha = dict(alphas)
        if self._rows:
            self.dataChanged.emit(self.index(0, WORKBOOK_COLUMN), self.index(len(self._rows) - 1, WORKBOOK_COLUMN))

    def row_result(self, row: int) -> ClassResult | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def as_tsv(self) -> str:
        """The table as shown, tab-separated with a header row: what Excel takes from a paste."""
        cols = range(self.columnCount())
        rows = [[str(self.headerData(c, Qt.Orientation.Horizontal)).replace("\n", " ") for c in cols]]
        # as the main tables copy: a class named =HYPERLINK(...) reaches Excel as text, and a tab or
        # newline in a name stays inside its (quoted) cell
        rows += [[fmt.spreadsheet_safe_text(str(self.data(self.index(r, c)))) for c in cols]
                 for r in range(self.rowCount())]
        return to_tsv(rows)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(_COLUMNS) + 1

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, col = self._rows[index.row()], index.column()
        in_book = self._workbook_alpha.get(row.task_class.lower())
        if role == Qt.ItemDataRole.DisplayRole:
            if col < len(_COLUMNS):
                return _COLUMNS[col][2](row)
            return NOT_IN_WORKBOOK if in_book is None else f"{fmt.pct(in_book[0])} ({in_book[1]})"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            left = col == 0 or col == WORKBOOK_COLUMN
            horizontal = Qt.AlignmentFlag.AlignLeft if left else Qt.AlignmentFlag.AlignRight
            return horizontal | Qt.AlignmentFlag.AlignVCenter
        if role == Qt.ItemDataRole.ForegroundRole and col == WORKBOOK_COLUMN and in_book is None:
            return QColor("#a05a00")  # amber: applying will skip it unless the user adds it
        if role == Qt.ItemDataRole.ToolTipRole:
            return _COLUMNS[col][1] if col < len(_COLUMNS) else _WORKBOOK_TIP
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return _COLUMNS[section][0] if section < len(_COLUMNS) else "α in\nworkbook"
        if role == Qt.ItemDataRole.ToolTipRole:
            return _COLUMNS[section][1] if section < len(_COLUMNS) else _WORKBOOK_TIP
        return None


_MEASURED = QColor("#0072B2")
_PREDICTED = QColor("#D55E00")


class AcceptanceHistogram(pg.PlotWidget):
    """Share of stretches by accepted drafts (0..K) for one class, bars, against the i.i.d. prediction.

    The items are made once and updated with setOpts/setData, so switching classes does not flicker.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent, background="w")
        plot = self.getPlotItem()
        plot.setMenuEnabled(False)
        plot.showGrid(y=True, alpha=0.25)
        plot.setLabel("bottom", "accepted drafts in a stretch", color="#222222")
        plot.setLabel("left", "share of stretches (%)", color="#222222")
        for side in ("left", "bottom"):
            plot.getAxis(side).setPen("#888888")  # setPen also recolours the label, so the text pen goes last
            plot.getAxis(side).setTextPen("#222222")
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        legend = plot.addLegend(offset=(-8, 8), labelTextColor="#222222", brush=pg.mkBrush(255, 255, 255, 220))
        self._bars = pg.BarGraphItem(x=[], height=[], width=0.7, brush=pg.mkBrush(_MEASURED.lighter(130)),
                                     pen=pg.mkPen(_MEASURED, width=1), name="measured share")
        self._predicted = pg.PlotDataItem([], [], pen=pg.mkPen(_PREDICTED, width=2), symbol="o", symbolSize=8,
                                          symbolBrush=pg.mkBrush(_PREDICTED), symbolPen=pg.mkPen("w"),
                                          name="i.i.d. prediction from α")
        plot.addItem(self._bars)
        plot.addItem(self._predicted)
        legend.setColumnCount(2)  # one short row; show_result leaves headroom for it above the bars
        self._legend = legend
        self.clear_result()

    def clear_result(self) -> None:
        self._bars.setOpts(x=[], height=[])
        self._predicted.setData([], [])
        self._legend.setVisible(False)  # a key to nothing only confuses
        plot = self.getPlotItem()
        plot.setXRange(-0.6, 4.6, padding=0)  # the empty frame of a K = 4 run, not Qt's default 0..1
        plot.setYRange(0, 100, padding=0)
        plot.getAxis("bottom").setTicks([[(i, str(i)) for i in range(5)]])
        self.getPlotItem().setTitle("<span style='color:#555'>Run a measurement to see the histogram</span>")

    def show_result(self, result: ClassResult, k: int) -> None:
        counts = np.asarray(result.histogram, dtype=float)
        total = counts.sum()
        x = np.arange(len(counts))
        share = counts / total * 100 if total else np.zeros_like(counts)
        predicted = iid_histogram(result.alpha, k) * 100 if _finite(result.alpha) else np.zeros(0)
        self._bars.setOpts(x=x, height=share)
        self._legend.setVisible(True)
        self._predicted.setData(x[:len(predicted)], predicted)
        plot = self.getPlotItem()
        top = max(float(share.max(initial=0)), float(predicted.max(initial=0)))
        plot.setXRange(-0.6, k + 0.6, padding=0)
        plot.setYRange(0, max(top * 1.3, 5), padding=0)
        # the legend goes in the upper corner away from the tall bars (high α piles up at K)
        half = (k + 1) // 2
        right_heavy = share[half:].sum() + predicted[half:].sum() > share[:half].sum() + predicted[:half].sum()
        corner = (0, 0) if right_heavy else (1, 0)
        self._legend.anchor(itemPos=corner, parentPos=corner, offset=(8, 8) if right_heavy else (-8, 8))
        plot.getAxis("bottom").setTicks([[(i, str(i)) for i in range(k + 1)]])
        plot.setTitle(f"<span style='color:#222'><b>{result.task_class}</b>: α = {fmt.pct(result.alpha)}, "
                      f"K = {k}, {int(total):,} stretches</span>")

    def plotted(self) -> tuple[list[float], list[float]]:
        """The measured and predicted shares now drawn (tests read them instead of pixels)."""
        bars = list(np.asarray(self._bars.opts.get("height", []), dtype=float))
        y = self._predicted.yData
        return bars, list(y) if y is not None else []
