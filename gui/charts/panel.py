"""The charts beside the tables: trailer fill, speedup over acceptance, over context, over concurrency, and
acceptance per draft position (of the selected class: ``set_class_row``).

The main window calls ``ChartsPanel.show_result`` after every recompute and when the
selected tier changes. Only the chart in the visible tab redraws then (its persistent
items, in place); the hidden ones keep the result and draw it when their tab is shown,
which halves the time from an edit to an updated window.
"""
from __future__ import annotations

from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from model.comparison import Comparison
from model.workbook.rows import Workbook

from gui.charts.alpha import AlphaChart
from gui.charts.context import ContextChart
from gui.charts.load import LoadChart
from gui.charts.positions import PositionChart
from gui.charts.trailer import TrailerChart


class ChartsPanel(QWidget):
    """Five charts in tabs, all following the selected tier; the per-position one the selected class too."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.trailer_chart = TrailerChart()
        self.alpha_chart = AlphaChart()
        self.context_chart = ContextChart()
        self.load_chart = LoadChart()
        self.position_chart = PositionChart()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        # short labels, so all five tabs show in the chart pane of a 1366-wide screen (the long ones scrolled the
        # last out of sight); each chart's title and the tab's tooltip give the full name
        for chart, label, full in ((self.trailer_chart, "Trailer fill", "Trailer fill per task class"),
                                   (self.alpha_chart, "vs α", "Speedup vs acceptance α"),
                                   (self.context_chart, "vs context", "Speedup vs context"),
                                   (self.load_chart, "vs load", "Speedup vs concurrency (load)"),
                                   (self.position_chart, "per position", "Acceptance per draft position (a class's profile)")):
            self.tabs.setTabToolTip(self.tabs.addTab(chart, label), full)
        self._last: tuple[Workbook, Comparison, int] | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self.tabs.currentChanged.connect(self._on_current_tab_changed)

    def show_result(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> None:
        """Show ``tier_row`` (an index into workbook.tiers; -1 for none): the visible chart now, the others when shown."""
        self._last = (workbook, comparison, tier_row)
        for chart in self.charts():
            chart.set_result(workbook, comparison, tier_row)
        self.current_chart().bring_up_to_date()

    def set_class_row(self, row: int) -> None:
        """The class the per-position chart follows (-1: the first with a profile); redrawn now if shown."""
        if self.position_chart.set_class_row(row) and self._last is not None:
            self.position_chart.set_result(*self._last)
            if self.current_chart() is self.position_chart:
                self.position_chart.bring_up_to_date()

    def current_chart(self) -> TrailerChart | AlphaChart | ContextChart | LoadChart | PositionChart:
        return self.tabs.currentWidget()  # type: ignore[return-value]

    def flush(self) -> None:
        """Draw every chart's pending result now (tests, screenshots of all tabs)."""
        for chart in self.charts():
            chart.bring_up_to_date()

    def _on_current_tab_changed(self, _index: int) -> None:
        # currentChanged arrives before the newly shown tab paints, so it never shows stale data
        chart = self.current_chart()
        if chart is not None:
            chart.bring_up_to_date()

    def charts(self) -> list[TrailerChart | AlphaChart | ContextChart | LoadChart | PositionChart]:
        return [self.trailer_chart, self.alpha_chart, self.context_chart, self.load_chart, self.position_chart]
