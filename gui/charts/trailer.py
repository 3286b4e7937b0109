"""Trailer fill: each task class as a trailer of K draft slots, cargo coloured, empty slots hatched.

A class whose acceptance is a per-position profile fills each slot by its own share: slot i holds the share of
steps that accepted position i (r_i = p_1 ... p_i), so the cargo thins towards the end of the trailer, as it
does on a real draft; the slots past the measured positions (extrapolated by the profile's rule) are paler.
A class given as one alpha or one mean length has no per-position shape: its cargo is drawn packed, E - 1 slots.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics
from PySide6.QtWidgets import QWidget

from model.mechanics import arithmetic as ar
from model.common import formatting as fmt
from model.curves.chart_data import break_even_fill
from model.comparison import Comparison
from model.workbook.rows import Workbook

from gui.charts.row_items import RowBars, RowLabelAxis
from gui.charts.style import (BREAK_EVEN, INK, ChartView, FedItems, array_bytes, class_brushes, class_color,
                              html_text, up_to_date)
from gui.tables import acceptance_text

BAR_HEIGHT = 0.62
WASTE_BRUSH = QBrush(QColor(150, 150, 150), Qt.BrushStyle.BDiagPattern)
TRAILER_BRUSH = QBrush(QColor(236, 236, 236))


class TrailerChart(ChartView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("trailer_fill", "draft slots per stretch (tokens)", "", parent=parent)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.showGrid(x=False, y=False)
        # 0 and K sit on the plot's edges; pyqtgraph would drop them as overlapping at laptop widths
        self.plot.getAxis("bottom").setStyle(hideOverlappingLabels=False)
        # class names on the left axis, each class's numbers on the right one: axes size
        # themselves to their labels, where text inside the plot would be cut at narrow widths;
        # a label per row, an edit repainting the rows whose words changed (row_items.RowLabelAxis)
        self.plot.setAxisItems({"left": RowLabelAxis("left"), "right": RowLabelAxis("right")})
        self.plot.showAxis("right")
        for side in ("left", "right"):
            axis = self.plot.getAxis(side)
            axis.setStyle(tickLength=0)
            axis.setPen(pg.mkPen(None))
            axis.setTextPen(pg.mkPen(INK))
        self._trailers = pg.BarGraphItem(x0=[], width=[], y=[], height=BAR_HEIGHT, brush=TRAILER_BRUSH, pen=pg.mkPen(INK, width=1))
        # what an edit of one class moves (its row) repaints that row alone (row_items.RowBars)
        self._waste = RowBars(x0=[], width=[], y=[], height=BAR_HEIGHT, brush=WASTE_BRUSH, pen=pg.mkPen(None))
        self._cargo = RowBars(x0=[], width=[], y=[], height=BAR_HEIGHT, brushes=[], pen=pg.mkPen(None))
        # slot walls and break-even ticks are many short segments: one item each, drawn as pairs
        self._walls = pg.PlotDataItem([], [], connect="pairs", pen=pg.mkPen(INK, width=1))
        # break-even ticks: bars of no width, drawn by their pen; the legend shows them as a line (a sample)
        self._needed = RowBars(x0=[], width=[], y=[], height=[], brush=None, pen=pg.mkPen(BREAK_EVEN, width=3))
        self._needed_sample = pg.PlotDataItem([], [], pen=pg.mkPen(BREAK_EVEN, width=3))
        # a profile's slots, each filled from the bottom to its own share, the rest hatched
        self._slot_waste = RowBars(x0=[], width=[], y=[], height=[], brush=WASTE_BRUSH, pen=pg.mkPen(None))
        self._slot_cargo = RowBars(x0=[], width=[], y=[], height=[], brushes=[], pen=pg.mkPen(None))
        for z, item in enumerate((self._trailers, self._waste, self._cargo, self._slot_waste, self._slot_cargo,
                                  self._walls, self._needed)):
            item.setZValue(z)
            self.plot.addItem(item)
        self._note = pg.TextItem(anchor=(0.5, 0.5))
        self.plot.addItem(self._note)
        # the note wraps to the plot's width: at a laptop's chart width one line was cut on both sides
        self.plot.vb.sigResized.connect(self._on_view_resized)
        # legend samples: the cargo sample stands for every class colour
        self._cargo_sample = pg.BarGraphItem(x=[0], height=[1], width=1, brush=class_color(0), pen=pg.mkPen(None))
        self._waste_sample = pg.BarGraphItem(x=[0], height=[1], width=1, brush=WASTE_BRUSH, pen=pg.mkPen(INK))
        self.legend.addItem(self._cargo_sample, "cargo: accepted draft tokens")
        self.legend.addItem(self._waste_sample, "empty slots: drafted, paid for, discarded")
        self.legend.addItem(self._needed_sample, "fill needed to break even")
        # said only while a profile's slots are drawn
        self._slot_sample = pg.BarGraphItem(x=[0], height=[1], width=1, brush=class_brushes(1, pale=True)[0], pen=pg.mkPen(None))
        self._slot_entry = False
        self._shown: dict[str, tuple[float, float, int]] = {}  # class -> (fill, alpha, K) as drawn
        self._slot_shares: dict[str, list[float]] = {}  # profile class -> share of steps filling each slot
        self._numbers: list[str] = []
        self._ticks: dict[str, list[tuple[float, str]]] = {}  # axis -> ticks shown
        self._ranges: tuple[int, int] | None = None  # (K, classes) the view's ranges were set for
        self._frame: tuple[int, int] | None = None  # (K, classes) the trailers and walls were drawn for
        self._fed = FedItems()
        self._marks = np.zeros(0)  # x of each class's break-even tick
        self.fit_legend()

    def data_key(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> object:
        if not 0 <= tier_row < len(comparison.tier_names):
            return (tier_row, tuple(comparison.class_names))
        i = tier_row
        return (i, comparison.tier_names[i], tuple(comparison.class_names), bool(comparison.tiers.speculative[i]),
                bool(comparison.tiers.unconfirmed[i]),
                array_bytes(comparison.tiers.k[i], comparison.cells.trailer_fill[i], comparison.cells.alpha[i], comparison.cells.speedup[i],
                            comparison.cells.break_even_alpha[i], comparison.cells.break_even_kind[i],
                            comparison.cells.tokens_per_stretch[i], *_lengths(comparison, i), *_shapes(comparison, i)))

    def update_result(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> None:
        names = comparison.class_names
        n = len(names)
        tier = comparison.tier_names[tier_row] if 0 <= tier_row < len(comparison.tier_names) else None
        self.export_subject = tier or ""
        if tier is None or not comparison.tiers.speculative[tier_row] or n == 0 or comparison.made_up(tier_row):
            self._show_note(tier, n, comparison.made_up(tier_row) if tier is not None else "")
            return
        k = int(comparison.tiers.k[tier_row])
        fill = comparison.cells.trailer_fill[tier_row]
        alpha = comparison.cells.alpha[tier_row]
        speedup = comparison.cells.speedup[tier_row]
        rows = np.arange(n - 1, -1, -1, dtype=np.float64)  # first class on top, as in the table
        cargo = fill * k
        slots = _profile_slots(comparison, tier_row, k, n)
        packed = np.array([j not in slots for j in range(n)], dtype=bool)  # a profile's row is drawn by slot
        if (k, n) != self._frame:  # the empty trailers and their slot walls follow K and the classes' count only
            self._trailers.setOpts(x0=np.zeros(n), width=np.full(n, float(k)), y=rows, height=BAR_HEIGHT)
            self._walls.setData(*self._wall_segments(rows, k))
            self._frame = (k, n)
            # every bar stays within the trailers: bounds that do not move with them let a bar repaint alone
            frame = QRectF(-0.5, -1.0, k + 1.0, n + 1.0)
            for item in (self._waste, self._cargo, self._needed, self._slot_cargo, self._slot_waste):
                item.set_frame(frame)
        # each item is set only when its own numbers moved: setOpts/setData redraw an item even with the same data
        # (a class's context edit moves its speedup, not any profile's slots)
        waste, width = np.where(packed, k - cargo, 0.0), np.where(packed, cargo, 0.0)
        if self._fed.changed(self._waste, cargo, waste, rows):
            self._waste.set_bars(cargo, waste, rows, BAR_HEIGHT)
        if self._fed.changed(self._cargo, width, rows):
            self._cargo.set_bars(np.zeros(n), width, rows, BAR_HEIGHT, class_brushes(n))
        self._draw_slots(slots, rows, k)
        lengths = _lengths(comparison, tier_row)
        needed = break_even_fill(comparison.cells.break_even_alpha[tier_row], k, lengths[0] if lengths else None) * k
        if self._fed.changed(self._needed, needed, rows):
            self._needed.set_bars(needed, 0.0, rows, 0.84)
        self._marks = np.array(needed, dtype=np.float64)
        never = comparison.cells.break_even_kind[tier_row] == ar.NEVER
        self._numbers = [
            # a tree draft refuses a per-token alpha (comparison.TREE_NEEDS_LENGTH): say so, not "– full"
            f"α {alpha[j]:.2f} · a tree needs a length" if comparison.is_refused(tier_row, j) else
            # a class nobody filled in: no fill from its placeholders (TaskClass.defaulted)
            comparison.cell_not_given(tier_row, j) if comparison.cell_not_given(tier_row, j) else
            # a profile or a length decides E there, not the alpha kept beside it: its mean acceptance length
            (acceptance_text.acceptance_cell(comparison, tier_row, j) if acceptance_text.shape(comparison, tier_row, j)
             else f"α {alpha[j]:.2f}") + f" · {fmt.pct(fill[j], 0)} full · {fmt.times(speedup[j])}"
            + (" · never pays" if never[j] else "")
            for j in range(n)
        ]
        self._set_row_labels("left", rows, names)
        self._set_row_labels("right", rows, self._numbers)
        self._set_ticks("bottom", [(float(i), str(i)) for i in range(k + 1)])
        ranges = (k, n)
        if ranges != self._ranges:
            self.plot.setXRange(0, k, padding=0.02)
            self.plot.setYRange(-0.6, n - 0.4, padding=0)
            self._ranges = ranges
            # the view applies new ranges as it paints, and the items it moves then ask for a second paint:
            # applied now, one paint shows them (a K edit of the shown tier painted the plot twice)
            self.plot.vb.updateMatrix()
        self._note.setVisible(False)
        self._show_axes(True)
        for item in (self._trailers, self._waste, self._cargo, self._walls):
            item.setVisible(True)
        unconfirmed = " (unconfirmed)" if comparison.tiers.unconfirmed[tier_row] else ""
        self.set_title(f"Trailer fill — {tier}, K = {k}{unconfirmed}")
        self._shown = {names[j]: (float(fill[j]), float(alpha[j]), k) for j in range(n)}
        self._slot_shares = {names[j]: [float(x) for x in share[:k]] for j, (share, _) in slots.items()}

    def _draw_slots(self, slots: dict[int, tuple[np.ndarray, np.ndarray]], rows: np.ndarray, k: int) -> None:
        """Each profile row's K slots: cargo from the slot's floor up to its share r_i, hatched above it."""
        if slots:
            classes = np.fromiter(slots, dtype=np.int64, count=len(slots))
            share = np.array([slots[j][0][:k] for j in classes], dtype=np.float64)  # profile rows x K
            extrapolated = np.array([slots[j][1][:k] for j in classes], dtype=bool)
        else:
            classes, share, extrapolated = np.zeros(0, np.int64), np.zeros((0, k)), np.zeros((0, k), bool)
        if self._fed.changed(self._slot_cargo, classes, share, extrapolated, rows):
            filled = BAR_HEIGHT * share
            bottom = (rows[classes] - BAR_HEIGHT / 2)[:, None]
            x0 = np.broadcast_to(np.arange(k, dtype=np.float64), share.shape).ravel()
            ones = np.ones(x0.size)
            solid, pale = class_brushes(len(rows)), class_brushes(len(rows), pale=True)
            brushes = [(pale if out else solid)[j] for j, out in zip(np.repeat(classes, k), extrapolated.ravel())]
            self._slot_cargo.set_bars(x0, ones, (bottom + filled / 2).ravel(), filled.ravel(), brushes)
            self._slot_waste.set_bars(x0, ones, (bottom + (filled + BAR_HEIGHT) / 2).ravel(), (BAR_HEIGHT - filled).ravel())
        for item in (self._slot_cargo, self._slot_waste):
            item.setVisible(bool(slots))
        if bool(slots) != self._slot_entry:
            if slots:
                # two short lines: one long line set the legend's width, and with it the chart's, past a laptop's
                # pane (the right-hand numbers ran 11 px past the edge at 460 px)
                self.legend.addItem(self._slot_sample, "profile: slot i filled by the share of<br>"
                                                       "steps accepting it (paler: extrapolated)")
            else:
                self.legend.removeItem(self._slot_sample)
            self._slot_entry = bool(slots)
            self.fit_legend()

    @up_to_date
    def slot_shares(self) -> dict[str, list[float]]:
        """What each profile row's slots show now: class -> the share of steps filling slot 1..K."""
        return dict(self._slot_shares)

    def _on_view_resized(self, *_args: object) -> None:
        if self._note.isVisible():
            self._note.setTextWidth(max(80.0, self.plot.vb.width() - 16.0))

    @up_to_date
    def break_even_marks(self) -> np.ndarray:
        """Where each class's break-even tick is drawn, in draft slots from the trailer's start (first class first)."""
        return self._marks.copy()

    @up_to_date
    def row_labels(self) -> list[str]:
        """The numbers printed right of each trailer, first class first."""
        return list(self._numbers)

    def _set_ticks(self, side: str, ticks: list[tuple[float, str]]) -> bool:
        """Set an axis's ticks unless it shows them already (a new set redraws the axis); True if set."""
        if self._ticks.get(side) == ticks:
            return False
        self.plot.getAxis(side).setTicks([ticks, []])
        self._ticks[side] = ticks
        return True

    def _set_row_labels(self, side: str, rows: np.ndarray, labels: list[str]) -> None:
        axis = self.plot.getAxis(side)
        if not axis.set_rows(rows, labels):
            return
        # an axis does not widen for long tick labels by itself: they would be dropped
        metrics = QFontMetrics(axis.font())
        width = min(240, max((metrics.horizontalAdvance(t) for t in labels), default=0) + 12)
        if width != axis.fixedWidth:  # setWidth redraws the axis and lays the plot out again, even at the same width
            axis.setWidth(width)

    def _show_axes(self, shown: bool) -> None:
        """Show or hide the three axes, touching them only on a change: showAxis on a shown axis still clears
        its drawing, and each edit then redrew the class names and the K ticks that had not changed."""
        for side in ("left", "right", "bottom"):
            if self.plot.getAxis(side).isVisible() != shown:
                (self.plot.showAxis if shown else self.plot.hideAxis)(side)

    @up_to_date
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

    def _show_note(self, tier: str | None, n_classes: int, made_up: str = "") -> None:
        for item in (self._trailers, self._waste, self._cargo, self._walls, self._slot_cargo, self._slot_waste):
            item.setVisible(False)
        self._slot_shares = {}
        if self._slot_entry:  # no slots drawn: no key to them (it stayed on a plain tier's note)
            self.legend.removeItem(self._slot_sample)
            self._slot_entry = False
        # emptied rather than hidden: a hidden item shows as "switched off" in the legend
        self._needed.set_bars([], [], [], [])
        self._fed.forget(self._needed)
        self._marks = np.zeros(0)
        if tier is None:
            text = "Select a tier to see its trailers."
        elif n_classes == 0:
            text = "Add a task class to see its trailer."
        elif made_up:
            text = f"{tier}: no trailers, {made_up}.\nType its K, c and v in the Tiers table."
        else:
            text = f"{tier} does not run speculative decoding:\nno draft, no trailers — every class runs at 1.00x."
        self._note.setHtml(f'<div style="text-align:center">{html_text(text).replace(chr(10), "<br>")}</div>')
        self._note.setPos(0.5, 0.5)
        self._note.setVisible(True)
        self._numbers = []
        self._ranges = None
        for side in ("left", "right"):
            self.plot.getAxis(side).set_rows([], [])
        self._set_ticks("bottom", [])
        # no axes to label: the note gets the plot's whole width
        self._show_axes(False)
        self._on_view_resized()
        self.plot.setXRange(0, 1, padding=0)
        self.plot.setYRange(0, 1, padding=0)
        self.set_title(f"Trailer fill — {tier}" if tier else "Trailer fill")
        self._shown = {}


def _lengths(comparison: Comparison, i: int) -> tuple[np.ndarray, ...]:
    """Tier i's break-evens in tokens per step (E*), where the comparison has them."""
    return (comparison.cells.break_even_length[i],)


def _profile_slots(comparison: Comparison, i: int, k: int, n: int) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Per profile class j of tier i: the share of steps filling each of the K slots, and which were extrapolated."""
    grid = comparison.cells.acceptance
    if grid is None or not (grid.kind[i] == 2).any():
        return {}
    out = {}
    for j in range(n):
        rates = grid.position_rates(i, j, k)
        if rates is not None:
            out[j] = (rates.cumulative[:k], rates.extrapolated[:k])
    return out


def _shapes(comparison: Comparison, i: int) -> tuple[np.ndarray, ...]:
    """Tier i's profiles and kinds, for the data key: the slots' shares follow the profile, not only its E."""
    grid = comparison.cells.acceptance
    return () if grid is None or not grid.any_beyond_alpha else (grid.kind[i], grid.profile[i])
