"""Speedup versus acceptance: a curve per speculative tier, break-evens, classes and the vendor's claim."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from model.mechanics import arithmetic as ar
from model.common import formatting as fmt
from model.curves.chart_data import AlphaCurves, alpha_curves
from model.comparison import Comparison
from model.workbook.rows import Workbook

from gui.tables import acceptance_text
from gui.charts.curve_layer import CurveLayer
from gui.charts.not_given import classes_not_given, mechanics_not_given, not_given_key
from gui.charts.style import (BREAK_EVEN, CLAIM, FAINT, INK, MAX_CLASS_ENTRIES, ChartView, FedItems, array_bytes,
                              class_color, curve_inputs, html_text, resize_pool, up_to_date)

SELECTED_PEN = pg.mkPen(INK, width=2.5)
OTHER_PEN = pg.mkPen(FAINT, width=1.2)


class AlphaChart(ChartView):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("speedup_vs_acceptance", "acceptance α (per token)", "speedup ×", parent=parent)
        # room right of alpha = 1 so the last tick label and the claim star are not clipped
        self.plot.setXRange(-0.02, 1.07, padding=0)
        self.plot.enableAutoRange(axis="y")
        self._unity = pg.InfiniteLine(pos=1.0, angle=0, pen=pg.mkPen(BREAK_EVEN, width=1, style=Qt.PenStyle.DashLine),
                                      label="1.00x: break-even", labelOpts={"position": 0.97, "color": BREAK_EVEN, "anchors": [(1, 1), (1, 1)]})
        self.plot.addItem(self._unity)
        self._curves: list[pg.PlotDataItem] = []  # one per speculative tier, in workbook order; the selected one shown
        # the other tiers' curves, drawn as one cached layer under the selected one (curve_layer.py): a class's
        # dot moving repaints them from a pixmap rather than stroking each of them again
        self._others = CurveLayer(OTHER_PEN)
        self._others.setZValue(1)
        self.plot.addItem(self._others)
        self._fed = FedItems()
        self._html: dict[int, str] = {}  # id of a text item -> the HTML it shows
        self._curve_names: list[str] = []
        self._selected_curve = -1
        self._be_all = pg.ScatterPlotItem(symbol="o", size=6, pen=pg.mkPen(FAINT), brush=pg.mkBrush(None))
        self._be_sel = pg.PlotDataItem([], [], pen=None, symbol="d", symbolSize=14, symbolBrush=BREAK_EVEN, symbolPen=pg.mkPen("w"))
        self._classes = pg.ScatterPlotItem(symbol="o", size=10, pen=pg.mkPen("w", width=1))
        self._claim = pg.PlotDataItem([], [], pen=None, symbol="star", symbolSize=15, symbolBrush=CLAIM, symbolPen=pg.mkPen("w"))
        self._be_label = pg.TextItem(anchor=(0.5, -0.25))
        self._claim_label = pg.TextItem(anchor=(1.05, 0.5))
        # class markers above the break-even diamond: a class sitting at break-even stays visible
        for z, item in enumerate((self._be_all, self._be_sel, self._classes, self._claim, self._be_label, self._claim_label)):
            item.setZValue(20 + z)
            self.plot.addItem(item)
        # the note sits in the view's corner whatever the axis ranges, so it is parented to the view box
        self._note = pg.TextItem(anchor=(0.0, 0.0))
        self._note.setParentItem(self.plot.getViewBox())
        self._note.setPos(6, 4)
        # legend samples that are not plotted: they carry a label for a group of items
        self._selected_sample = pg.PlotDataItem([], [], pen=SELECTED_PEN)
        self.legend.addItem(self._selected_sample, "selected tier")
        self._selected_label = self.legend.items[-1][1]
        self.legend.addItem(pg.PlotDataItem([], [], pen=OTHER_PEN), "other speculative tiers")
        self.legend.addItem(self._be_sel, "break-even α*")
        self.legend.addItem(self._claim, "vendor claim")
        # the curve is at the claim's context (in the title), each class's dot at the class's own context
        # (its speedup in the results grid): a roofline tier's dots sit off the curve, and this says why
        self.legend.addItem(pg.ScatterPlotItem(symbol="o", size=9, brush=INK, pen=pg.mkPen("w")),
                            "class at its own context")
        self._class_samples: list[pg.ScatterPlotItem] = []
        self._class_names: list[str] = []
        self._class_brushes: list = []

    def data_key(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> object:
        # every tier's curve is drawn, so every tier's inputs count (rows are never edited in place)
        valid = 0 <= tier_row < len(comparison.tier_names)
        i = tier_row if valid else 0
        row = (array_bytes(comparison.tiers.k[i], comparison.cells.alpha[i], comparison.cells.speedup[i], comparison.claims.speedup[i],
                           comparison.claims.alpha[i], comparison.tiers.unconfirmed[i]) if valid else b"")
        return (tier_row, not_given_key(comparison, tier_row), tuple(curve_inputs(t) for t in workbook.tiers), tuple(comparison.tier_names),
                tuple(comparison.class_names), row)

    def update_result(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> None:
        data = alpha_curves(workbook.tiers)
        n = len(data.tier_names)
        if resize_pool(self.plot, self._curves, n, lambda _: self._new_curve()):
            self._curve_names = [""] * n
            self._selected_curve = -1
        for i, curve in enumerate(self._curves):
            y = data.speedup[i]
            # a typed edit changes one tier: leave the other curves' geometry alone
            if self._curve_names[i] != data.tier_names[i] or not np.array_equal(curve.yData, y):
                curve.setData(data.alphas, y)
                self._curve_names[i] = data.tier_names[i]
        be = data.break_even_alpha
        ok = ~np.isnan(be)
        if self._fed.changed(self._be_all, be[ok]):
            self._be_all.setData(be[ok], np.ones(int(ok.sum())))
        hits = np.flatnonzero(data.tier_index == tier_row)
        selected = int(hits[0]) if hits.size else -1
        self._select_curve(selected)
        for i, curve in enumerate(self._curves):
            curve.setVisible(i == selected)
        self._others.set_curves([(data.alphas, data.speedup[i]) for i in range(n) if i != selected])
        self._update_class_legend(comparison.class_names)
        valid = 0 <= tier_row < len(comparison.tier_names)
        tier_name = comparison.tier_names[tier_row] if valid else ""
        self.export_subject = tier_name
        label = f"{tier_name} (selected)" if selected >= 0 else "selected tier"
        if label != self._selected_label.text:
            self._selected_label.setText(label, color=INK.name())
            self.fit_legend()
        if selected < 0:
            tree = valid and workbook.tiers[tier_row].tree_size is not None and workbook.tiers[tier_row].speculative != "no"
            self._hide_selection(tier_name if valid else None, n, tree,
                                 mechanics_not_given(comparison, tier_row, tier_name) if valid else [])
            return
        self._show_selection(comparison, tier_row, selected, data)

    @up_to_date
    def curve_data(self, tier_name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The plotted (alpha, speedup) of one tier's curve; None if it has none (not speculative)."""
        for name, curve in zip(self._curve_names, self._curves):
            if name == tier_name:
                x, y = curve.getData()
                return np.array(x), np.array(y)
        return None

    @up_to_date
    def class_points(self) -> dict[str, tuple[float, float]]:
        """The plotted class markers on the selected tier: class -> (alpha, speedup)."""
        x, y = self._classes.getData()
        return {name: (float(a), float(s)) for name, a, s in zip(self._class_names, x, y)} if self._classes.isVisible() else {}

    @up_to_date
    def break_even_point(self) -> float | None:
        """The selected tier's marked break-even alpha; None when it never pays at K (or no tier)."""
        x, _ = self._be_sel.getData()
        return float(x[0]) if x is not None and len(x) else None

    @up_to_date
    def claim_point(self) -> tuple[float, float] | None:
        x, y = self._claim.getData()
        return (float(x[0]), float(y[0])) if x is not None and len(x) else None

    def _new_curve(self) -> pg.PlotDataItem:
        curve = pg.PlotDataItem([], [], pen=OTHER_PEN, antialias=True)
        curve.setZValue(1)
        return curve

    def _select_curve(self, index: int) -> None:
        if index == self._selected_curve:
            return
        if 0 <= self._selected_curve < len(self._curves):
            self._curves[self._selected_curve].setPen(OTHER_PEN)
            self._curves[self._selected_curve].setZValue(1)
        if index >= 0:
            self._curves[index].setPen(SELECTED_PEN)
            self._curves[index].setZValue(10)
        self._selected_curve = index

    def _update_class_legend(self, names: list[str]) -> None:
        if names == self._class_names:
            return
        if len(names) != len(self._class_names):
            for sample in self._class_samples:
                self.legend.removeItem(sample)
            many = len(names) > MAX_CLASS_ENTRIES
            self._class_samples = [
                pg.ScatterPlotItem(symbol="o", size=9, brush=class_color(j), pen=pg.mkPen("w"))
                for j in range(1 if many else len(names))
            ]
            labels = [f"{len(names)} task classes, coloured as in the trailer chart"] if many else names
            for sample, name in zip(self._class_samples, labels):
                self.legend.addItem(sample, name)
            self.fit_legend()
        elif len(names) <= MAX_CLASS_ENTRIES:
            for sample, name in zip(self._class_samples, names):
                label = self.legend.getLabel(sample)
                if label is not None:
                    label.setText(name, color=INK.name())
        self._class_names = list(names)
        self._class_brushes = [pg.mkBrush(class_color(j)) for j in range(len(names))]

    def _show_selection(self, comparison: Comparison, tier_row: int, selected: int, data: AlphaCurves) -> None:
        alpha, speedup = comparison.cells.alpha[tier_row], comparison.cells.speedup[tier_row]
        self._classes.setData(alpha, speedup, brush=self._class_brushes)
        self._classes.setVisible(True)
        be, kind = data.break_even_alpha[selected], int(data.break_even_kind[selected])
        k = int(comparison.tiers.k[tier_row])
        notes = []
        if kind == ar.NEVER:
            self._be_sel.setData([], [])
            self._be_label.setVisible(False)
            notes.append(f"never pays at K = {k}: no α reaches 1.00x")
        else:
            self._be_sel.setData([be], [1.0])
            text = "α* 0: always pays" if kind == ar.ALWAYS else f"α* {be:.2f}"
            self._set_html(self._be_label, html_text(text, BREAK_EVEN))
            self._be_label.setPos(be, 1.0)
            self._be_label.setVisible(True)
        claimed, claim_alpha = comparison.claims.speedup[tier_row], comparison.claims.alpha[tier_row]
        if np.isnan(claimed):
            self._claim.setData([], [])
            self._claim_label.setVisible(False)
        elif np.isnan(claim_alpha):
            self._claim.setData([], [])
            self._claim_label.setVisible(False)
            notes.append(f"claim {fmt.times(claimed)} is {fmt.OUT_OF_REACH} at any α")
        else:
            self._claim.setData([claim_alpha], [claimed])
            self._set_html(self._claim_label, html_text(f"claim {fmt.times(claimed)} needs α {claim_alpha:.2f}", CLAIM))
            self._claim_label.setPos(claim_alpha, claimed)
            self._claim_label.setVisible(True)
        notes += shape_notes(comparison, tier_row) + classes_not_given(comparison, tier_row)
        self._set_note(notes)
        ctx = fmt.context(float(data.context[selected]))
        unconfirmed = " (unconfirmed)" if comparison.tiers.unconfirmed[tier_row] else ""
        self.set_title(f"Speedup vs acceptance — {comparison.tier_names[tier_row]}, K = {k}, at {ctx}{unconfirmed}")

    def _hide_selection(self, tier_name: str | None, n_curves: int, tree: bool = False,
                        not_given: list[str] | None = None) -> None:
        for item in (self._be_sel, self._claim):
            item.setData([], [])
        for item in (self._classes, self._be_label, self._claim_label):
            item.setVisible(False)
        if tier_name is None:
            self._set_note([])
        elif not_given:  # it may well be speculative: nothing is modelled from placeholders
            self._set_note(not_given)
        elif tree:
            self._set_note([f"{tier_name} drafts a tree: a per-token α describes a chain,",
                            "so it has no curve here (its classes need a length or a profile)"])
        else:
            self._set_note([f"{tier_name} does not run speculative decoding:", "1.00x at any α"])
        self.set_title("Speedup vs acceptance" + ("" if n_curves else " — no speculative tier"))

    def _set_note(self, lines: list[str]) -> None:
        self._note.setVisible(bool(lines))
        if lines:
            self._set_html(self._note, "<br>".join(html_text(line, BREAK_EVEN) for line in lines))

    def _set_html(self, item: pg.TextItem, html: str) -> None:
        # setHtml lays the text out and repaints it even when it reads the same
        if self._html.get(id(item)) != html:
            item.setHtml(html)
            self._html[id(item)] = html


def shape_notes(comparison: Comparison, i: int, most: int = 2) -> list[str]:
    """The classes of tier i given as a profile or a length: alpha does not apply to them, so their markers sit
    at a summary alpha; what decides is their length against the break-even, both in tokens per step."""
    names = [j for j in range(len(comparison.class_names)) if acceptance_text.shape(comparison, i, j)]
    if not names:
        return []
    said = ", ".join(f"{comparison.class_names[j]} {acceptance_text.acceptance_cell(comparison, i, j)} vs "
                     f"{acceptance_text.break_even_cell(comparison, i, j)}" for j in names[:most])
    more = f" and {len(names) - most} more" if len(names) > most else ""
    # the star's meaning on a line of its own: at the end of the classes' line it ran past the chart's edge ('(* ex')
    star = ["* extrapolated past the K measured;"] if any("*" in acceptance_text.acceptance_cell(comparison, i, j)
                                                         for j in names) else []
    return [f"{said}{more};", *star, "a profile or a length has no α: drawn at a summary α"]
