"""Acceptance per draft position for one class on the selected tier: where its draft stops being right.

Two series over positions 1..K: the conditional rate p_i (accepted at i, given 1..i-1 were) and the share of
steps accepting through i, r_i = p_1 ... p_i (the slot's fill in the trailer chart; E = 1 + the sum of r_i).
Measured positions are drawn solid with filled markers; positions past them, extended by the profile's stated
rule, dashed with hollow markers. A class given as one alpha or one length has no per-position shape: the chart
says so rather than draw the i.i.d. model's flat line as if it were measured.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from model.acceptance.profiles import PositionRates
from model.comparison import Comparison
from model.workbook.rows import Workbook

from gui.charts.not_given import mechanics_not_given, not_given_key
from gui.charts.style import INK, ChartView, array_bytes, class_color, html_text, up_to_date

CONDITIONAL, CUMULATIVE = "o", "s"


class PositionChart(ChartView):
    """Follows the selected tier and the selected class (``set_class_row``; -1: the first with a profile)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("acceptance_per_position", "draft position", "acceptance", parent=parent)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.setYRange(0.0, 1.05, padding=0)
        self.class_row = -1
        self._series: dict[tuple[str, bool], pg.PlotDataItem] = {}
        for symbol in (CONDITIONAL, CUMULATIVE):
            for extrapolated in (False, True):
                item = pg.PlotDataItem([], [])
                item.setZValue(10 + (symbol == CONDITIONAL))
                self.plot.addItem(item)
                self._series[symbol, extrapolated] = item
        self._note = pg.TextItem(anchor=(0.0, 0.0))
        self._note.setParentItem(self.plot.getViewBox())
        self._note.setPos(6, 4)
        self._samples = {name: pg.PlotDataItem([], []) for name in ("conditional", "cumulative", "extrapolated")}
        self.legend.addItem(self._samples["conditional"], "p_i: accepted at i, given 1..i−1 were")
        self.legend.addItem(self._samples["cumulative"], "r_i = p_1…p_i: steps filling slot i")
        self.legend.addItem(self._samples["extrapolated"], "dashed, hollow: extrapolated")
        self._extrapolated_label = self.legend.items[-1][1]
        self._drawn: tuple[str, PositionRates] | None = None
        self.fit_legend()

    def set_class_row(self, row: int) -> bool:
        """Follow another class; True when that changes what the chart should show."""
        if row == self.class_row:
            return False
        self.class_row = row
        return True

    def _pick(self, comparison: Comparison, tier_row: int) -> tuple[int, PositionRates | None]:
        """The class shown and its rates at the tier's K: the selected class, or the first with a profile."""
        grid = comparison.cells.acceptance
        n = len(comparison.class_names)
        if grid is None or not (0 <= tier_row < len(comparison.tier_names)) or not comparison.tiers.speculative[tier_row]:
            return (self.class_row if 0 <= self.class_row < n else -1), None
        k = int(comparison.tiers.k[tier_row])
        if 0 <= self.class_row < n:  # none from a class nobody filled in (TaskClass.defaulted)
            return self.class_row, (None if comparison.cell_not_given(tier_row, self.class_row)
                                    else grid.position_rates(tier_row, self.class_row, k))
        for j in range(n):
            rates = None if comparison.cell_not_given(tier_row, j) else grid.position_rates(tier_row, j, k)
            if rates is not None:
                return j, rates
        return -1, None

    def data_key(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> object:
        j, rates = self._pick(comparison, tier_row)
        valid = 0 <= tier_row < len(comparison.tier_names)
        shape = (array_bytes(rates.conditional, rates.extrapolated), rates.measured) if rates is not None else None
        return (tier_row, comparison.tier_names[tier_row] if valid else None, j,
                comparison.class_names[j] if j >= 0 else None, int(comparison.tiers.k[tier_row]) if valid else 0,
                bool(comparison.tiers.speculative[tier_row]) if valid else False, shape, not_given_key(comparison, tier_row))

    def update_result(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> None:
        valid = 0 <= tier_row < len(comparison.tier_names)
        tier = comparison.tier_names[tier_row] if valid else None
        self.export_subject = tier or ""
        j, rates = self._pick(comparison, tier_row)
        if rates is None:
            self._show_note(comparison, tier_row, tier, j)
            return
        name = comparison.class_names[j]
        k = int(comparison.tiers.k[tier_row])
        x = np.arange(1, rates.conditional.size + 1, dtype=np.float64)
        m = rates.measured
        color = class_color(j)
        for symbol, y in ((CONDITIONAL, rates.conditional), (CUMULATIVE, rates.cumulative)):
            solid = pg.mkPen(color, width=2.5 if symbol == CONDITIONAL else 1.5)
            dashed = pg.mkPen(color, width=1.5, style=Qt.PenStyle.DashLine)
            self._series[symbol, False].setData(x[:m], y[:m], pen=solid, symbol=symbol, symbolSize=9,
                                                symbolBrush=color, symbolPen=pg.mkPen("w"))
            # the dashed part starts at the last measured point, so the two join
            self._series[symbol, True].setData(x[m - 1:], y[m - 1:], pen=dashed, symbol=symbol, symbolSize=9,
                                               symbolBrush=pg.mkBrush(None), symbolPen=pg.mkPen(color, width=1.5))
            self._series[symbol, True].setVisible(x.size > m)
            self._series[symbol, False].setVisible(True)
        self._set_samples(color)
        self.plot.getAxis("bottom").setTicks([[(float(i), str(i)) for i in range(1, int(x.size) + 1)], []])
        self.plot.setXRange(0.6, x.size + 0.4, padding=0)
        # short: a long title widens the chart past a laptop's pane; the legend says measured and extrapolated
        self.set_title(f"Per position — {name}, {tier}, K = {k}")
        self._set_extrapolated_words(f"dashed, hollow: past the {m} measured, {rates.rule} rule" if x.size > m
                                     else f"all {m} positions measured")
        self._note.setVisible(False)
        self._drawn = (name, rates)

    def _set_samples(self, color: object) -> None:
        self._samples["conditional"].setData([], [], pen=pg.mkPen(color, width=2.5), symbol=CONDITIONAL,
                                             symbolBrush=color, symbolPen=pg.mkPen("w"))
        self._samples["cumulative"].setData([], [], pen=pg.mkPen(color, width=1.5), symbol=CUMULATIVE,
                                            symbolBrush=color, symbolPen=pg.mkPen("w"))
        self._samples["extrapolated"].setData([], [], pen=pg.mkPen(INK, width=1.5, style=Qt.PenStyle.DashLine),
                                              symbol=CONDITIONAL, symbolBrush=pg.mkBrush(None), symbolPen=pg.mkPen(INK))

    def _set_extrapolated_words(self, text: str) -> None:
        if text != self._extrapolated_label.text:
            self._extrapolated_label.setText(text, color=INK.name())
            self.fit_legend()  # a longer line needs fewer columns, or the pane cuts the legend and the plot's edge

    def _show_note(self, comparison: Comparison, tier_row: int, tier: str | None, j: int) -> None:
        for item in self._series.values():
            item.setVisible(False)
        self._drawn = None
        # no positions: no position ticks either (pyqtgraph's own read 0.2, 0.4, … under the note) and no words
        # about a class no longer drawn
        self.plot.getAxis("bottom").setTicks([[], []])
        self._set_extrapolated_words("dashed, hollow: extrapolated")
        not_given = mechanics_not_given(comparison, tier_row, tier) if tier is not None else []
        if tier is None:
            text = "Select a tier to see its acceptance per position."
        elif not_given:  # it may well be speculative: say what is missing, not "no draft positions"
            text = "\n".join(not_given)
        elif not comparison.tiers.speculative[tier_row]:
            text = f"{tier} does not run speculative decoding: no draft positions."
        elif j >= 0 and comparison.cell_not_given(tier_row, j):
            text = f"{comparison.class_names[j]}: {comparison.cell_not_given(tier_row, j)}.\nType it in the Task classes table."
        elif j >= 0:
            grid = comparison.cells.acceptance
            what = "a mean acceptance length" if grid is not None and grid.kind[tier_row, j] == 1 else "one α"
            text = (f"{comparison.class_names[j]} has no per-position profile on {tier}: its acceptance is {what}.\n"
                    "A probe, a sampling run or imported engine metrics measure one.")
        else:
            text = f"No task class has a per-position profile on {tier}."
        self._note.setHtml(html_text(text).replace("\n", "<br>"))
        self._note.setVisible(True)
        self.set_title(f"Per position — {tier}" if tier else "Per position")

    @up_to_date
    def shown(self) -> tuple[str, PositionRates] | None:
        """The class drawn now and its rates; None while the chart shows a note."""
        return self._drawn
