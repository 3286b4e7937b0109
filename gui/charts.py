"""The charts beside the tables: trailer fill, speedup over acceptance, speedup over context.

The main window calls ``ChartsPanel.show_result`` after every recompute and when the
selected tier changes; each chart then updates its persistent items in place.
"""
from __future__ import annotations

from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from model.comparison import Comparison
from model.workbook import Workbook

from .chart_alpha import AlphaChart
from .chart_context import ContextChart
from .chart_trailer import TrailerChart


class ChartsPanel(QWidget):
    """Three charts in tabs, all following the selected tier."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.trailer_chart = TrailerChart()
        self.alpha_chart = AlphaChart()
        self.context_chart = ContextChart()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.trailer_chart, "Trailer fill")
        self.tabs.addTab(self.alpha_chart, "Speedup vs acceptance")
        self.tabs.addTab(self.context_chart, "Speedup vs context")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)

    def show_result(self, workbook: Workbook, comparison: Comparison, tier_row: int) -> None:
        """Redraw every chart for ``tier_row`` (an index into workbook.tiers; -1 for none)."""
        for chart in (self.trailer_chart, self.alpha_chart, self.context_chart):
            chart.update_result(workbook, comparison, tier_row)

    def charts(self) -> list[TrailerChart | AlphaChart | ContextChart]:
        return [self.trailer_chart, self.alpha_chart, self.context_chart]
