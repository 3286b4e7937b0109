"""What the three charts share: colours per task class, a plot with its legend below, export actions."""
from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QMessageBox, QWidget

from model.comparison import Comparison
from model.workbook.rows import Workbook

from gui.charts.export import ask_export_path, export_chart

# Okabe-Ito and Tableau hues, dark enough on white; classes beyond these cycle through hues
# so a class keeps the same colour in every chart (it is chosen by the class's row).
_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9",
            "#8C564B", "#7F7F00", "#9467BD", "#17BECF")
INK = QColor("#222222")
FAINT = QColor(120, 120, 120, 90)
BREAK_EVEN = QColor("#C0392B")
CLAIM = QColor("#6A1B9A")
TEXT_SIZE = "9pt"
# past this many classes a legend entry per class would crowd out the plot; the colours
# still match the trailer chart, which names every class on its axis
MAX_CLASS_ENTRIES = 12

_Reader = TypeVar("_Reader", bound=Callable[..., Any])


def up_to_date(reader: _Reader) -> _Reader:
    """For a chart's readers (curve_data, fill_data, export_to...): apply a pending result first,
    so what they report is what the chart would show, even while its tab is hidden."""

    @functools.wraps(reader)
    def wrapper(self: "ChartView", *args: Any, **kwargs: Any) -> Any:
        self.bring_up_to_date()
        return reader(self, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


def class_color(row: int) -> QColor:
    if row < len(_PALETTE):
        return QColor(_PALETTE[row])
    return pg.intColor(row - len(_PALETTE), hues=13, values=1, minValue=160, maxValue=160)


@functools.lru_cache(maxsize=8)
def class_brushes(count: int, pale: bool = False) -> tuple[QBrush, ...]:
    """The brushes of classes 0..count-1, made once: a bar item given colours makes a brush of each on every set.
    Pale: the same hues see-through (what a trailer chart draws for extrapolated slots)."""
    colours = [class_color(j) for j in range(count)]
    for colour in colours if pale else ():
        colour.setAlpha(110)
    return tuple(QBrush(colour) for colour in colours)


class FedItems:
    """What each plot item was last fed, so an item whose numbers did not move is not set again: pyqtgraph's
    setData/setOpts clear an item's drawing and repaint it (its axes too, when its bounds move) even when the
    numbers are the ones it shows."""

    def __init__(self) -> None:
        self._keys: dict[int, bytes] = {}

    def changed(self, item: object, *arrays: Any) -> bool:
        """True (and remembered) when ``arrays`` differ from what ``item`` was last fed."""
        key = array_bytes(*arrays)
        if self._keys.get(id(item)) == key:
            return False
        self._keys[id(item)] = key
        return True

    def forget(self, item: object) -> None:
        """The item was emptied or fed elsewhere: the next ``changed`` is True."""
        self._keys.pop(id(item), None)


def html_text(text: str, color: QColor = INK) -> str:
    """TextItem HTML: the colour and size every chart annotation uses."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f'<span style="color:{color.name()}; font-size:{TEXT_SIZE}">{escaped}</span>'


class ChartView(pg.GraphicsLayoutWidget):
    """A white plot with labelled axes, the legend in its own row below (so it never covers
    data), and "Export chart as PNG/SVG" in the plot's context menu."""

    def __init__(self, export_name: str, x_label: str, y_label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setBackground("w")
        self.setMinimumSize(320, 260)
        self.export_name = export_name
        self.export_subject = ""  # the selected tier, to name exported files
        # the latest (workbook, comparison, tier_row) not drawn yet: a chart in a hidden tab
        # waits until it is shown, since drawing it would cost the edit time nobody sees
        self._pending: tuple[Any, Any, int] | None = None
        self._drawn_key: Any = None  # data_key of what is drawn now
        # the title sits in the layout above the plot, not in the plot: a plot's own title
        # claims its width from the view box column and squeezes the axes out of a narrow panel
        self.title_label: pg.LabelItem = self.ci.addLabel("", row=0, col=0, color=INK.name(), size="10pt")
        self.plot: pg.PlotItem = self.ci.addPlot(row=1, col=0)
        self.plot.hideButtons()
        self.plot.showGrid(x=True, y=True, alpha=0.12)
        for side in ("left", "bottom"):
            axis = self.plot.getAxis(side)
            axis.setPen(pg.mkPen(INK))
            axis.setTextPen(pg.mkPen(INK))
            # major ticks only: the minor grid lines doubled the time to paint a chart
            axis.setStyle(maxTickLevel=0)
        self.plot.setLabel("bottom", x_label, color=INK.name())
        self.plot.setLabel("left", y_label, color=INK.name())
        self.legend = pg.LegendItem(horSpacing=14, verSpacing=-6, labelTextColor=INK, labelTextSize="8pt")
        self.ci.addItem(self.legend, row=2, col=0)
        self.ci.layout.setRowStretchFactor(1, 10)
        menu = self.plot.getViewBox().menu
        menu.addSeparator()
        self.export_actions = {
            kind: menu.addAction(f"Export chart as {kind.upper()}…", self._export_slot(kind)) for kind in ("png", "svg")
        }

    def update_result(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> None:
        raise NotImplementedError

    def data_key(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> Any:
        """Everything update_result reads, as a value compared with ==; None draws every time.

        An edit that leaves a chart's data as it was (another tier's K, a price) then costs
        no redraw: setting the same data again still repaints the plot and its axes, which
        was about half the time from an edit to an updated window.
        """
        return None

    def set_result(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> None:
        """Remember what to draw; bring_up_to_date() (or any reader) draws it."""
        self._pending = (workbook, comparison, tier_row)

    @property
    def stale(self) -> bool:
        return self._pending is not None

    def bring_up_to_date(self) -> None:
        pending, self._pending = self._pending, None
        if pending is None:
            return
        key = self.data_key(*pending)
        if key is not None and key == self._drawn_key:
            return
        self._drawn_key = None  # a failed draw must not leave the old key claiming the new data
        self.update_result(*pending)
        # the view would apply a new auto-range (and the items' new geometry) while painting, and what that moves
        # then was left unrepainted: the vs-alpha chart's axis numbers stayed at the old range after a K edit of
        # the shown tier (tests/gui/window/test_edit_repaints.py). Applied now, the one paint shows it all.
        with warnings.catch_warnings():
            # a scatter whose points are all NaN (a tree tier's alpha classes) has no bounds: pyqtgraph says so
            # with numpy's all-NaN warning, and leaves it out of the range, as it should
            warnings.simplefilter("ignore", RuntimeWarning)
            self.plot.getViewBox().prepareForPaint()
        self._drawn_key = key

    def resizeEvent(self, ev) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(ev)
        self.fit_legend()

    def fit_legend(self) -> None:
        """As many legend columns (up to 3) as fit the width, so no entry is cut off."""
        legend = getattr(self, "legend", None)  # pyqtgraph resizes once before __init__ ends
        if legend is None:
            return
        widths = [label.itemRect().width() for _, label in legend.items]
        if not widths:
            return
        per_column = max(widths) + 20 + 14 + 8  # label, sample, spacing, margin
        columns = max(1, min(3, int((self.width() - 16) // per_column)))
        if columns != legend.columnCount:
            legend.setColumnCount(columns)
            # the layout was last fitted to the view while the legend had its old columns, and a
            # layout never goes below its minimum: fit it again, or the right edge stays cut off
            self.ci.setGeometry(QRectF(0, 0, self.width(), self.height()))

    def set_title(self, text: str) -> None:
        if text != self.title_label.text:
            self.title_label.setText(text, color=INK.name(), size="10pt")

    @up_to_date
    def export_to(self, path: str | Path) -> Path:
        """Export plot and legend to ``path`` (.png or .svg) without asking anything."""
        # a chart in a hidden tab has not been painted yet, so its lazy auto-range is stale
        self.plot.getViewBox().prepareForPaint()
        return export_chart(self.ci, path)

    def _export_slot(self, kind: str) -> Callable[[], None]:
        return lambda: self._on_export_requested(kind)

    @up_to_date
    def _on_export_requested(self, kind: str) -> None:
        name = f"{self.export_name} {self.export_subject}".strip()
        suggested = re.sub(r"[^\w.-]+", "_", name).strip("_") or "chart"
        path = ask_export_path(self, kind, suggested)
        if path is None:
            return
        try:
            self.export_to(path)
        except (OSError, ValueError) as exc:
            QMessageBox.warning(self, "Export failed", f"Could not write {path}:\n{exc}")


def array_bytes(*arrays: Any) -> bytes:
    """Numbers as bytes for a data_key: equal bytes are equal numbers, NaN included (NaN != NaN)."""
    parts = [np.ascontiguousarray(a, dtype=np.float64).ravel() for a in arrays]
    # each part's length first, so two splits of the same numbers differ
    return b"".join(np.float64(p.size).tobytes() + p.tobytes() for p in parts)


# the fields of a tier a chart's curves depend on (its speed and its claim); prices and notes are not
CURVE_FIELDS = ("name", "speculative", "k", "cost_model", "c", "v", "gpu", "pair", "batch", "claimed_speedup",
                "claim_context", "tree_size")


def curve_inputs(tier: Any) -> tuple:
    """A tier's CURVE_FIELDS, for a data_key: a price edit then redraws no chart."""
    return tuple(getattr(tier, name) for name in CURVE_FIELDS)


def resize_pool(plot: pg.PlotItem, pool: list, count: int, factory: Callable[[int], pg.GraphicsObject]) -> bool:
    """Grow or shrink a list of plot items to ``count``; True when it changed.

    Items are kept between updates and fed with setData, so only a change in the number
    of tiers or classes adds or removes anything from the scene.
    """
    changed = False
    while len(pool) > count:
        plot.removeItem(pool.pop())
        changed = True
    while len(pool) < count:
        item = factory(len(pool))
        plot.addItem(item)
        pool.append(item)
        changed = True
    return changed
