"""The main window's charts: their pane, built after the first paint, following the tier and class shown.

The charts (pyqtgraph, a third of start-up's imports) are built once the window has painted, or when first asked
for (``charts``); until then their pane holds their room. A mixin of MainWindow (it needs its document,
charts_pane and fit_to_screen, and keeps _charts, _tier_row, _class_row and _after_charts there); kept apart
because it is about when the charts exist and what they follow, not about the tables.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject, QSize, QTimer
from PySide6.QtWidgets import QDockWidget, QLabel, QVBoxLayout, QWidget

from gui.document import Document


class AfterFirstPaint(QObject):
    """Calls ``callback`` once, as soon as the event loop is free after ``window``'s first paint."""

    def __init__(self, window: QWidget, callback: Callable[[], object]) -> None:
        super().__init__(window)
        self._callback = callback
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self._callback)
        return False


class ChartsPane(QWidget):
    """Where the charts go. Until they are built it holds their room, ChartsPanel's size hints (its plots'
    320 x 260 minimum, the tab bar, the frame), so the splitter, the window's fit to its screen and a panel opened
    beside it come out as they do with the charts in it."""

    def __init__(self) -> None:
        super().__init__()
        QVBoxLayout(self).setContentsMargins(0, 0, 0, 0)

    def sizeHint(self) -> QSize:
        return super().sizeHint() if self.layout().count() else QSize(604, 510)

    def minimumSizeHint(self) -> QSize:
        return super().minimumSizeHint() if self.layout().count() else QSize(324, 290)


class WindowCharts:
    """The charts side of MainWindow: built once, shown for the current tier, following the class selected."""

    document: Document
    charts_pane: ChartsPane
    _charts: QWidget | None
    _tier_row: int
    _class_row: int
    _after_charts: list[Callable[[], None]]

    @property
    def charts(self) -> QWidget:
        """The charts panel, built now if the first paint has not built it yet."""
        if self._charts is None:
            self._charts = self._build_charts()
            callbacks, self._after_charts = self._after_charts, []
            for callback in callbacks:
                callback()
        return self._charts

    def _build_charts(self) -> QWidget:
        try:  # the charts are another module; the tables must work even if it fails to import
            from gui.charts.panel import ChartsPanel
        except Exception:  # noqa: BLE001
            panel: QWidget = QLabel("Charts are not available.")
            self.charts_pane.layout().addWidget(panel)
            return panel
        panel = ChartsPanel()
        self.charts_pane.layout().addWidget(panel)
        panel.show()  # now, not when the layout gets round to it: the pane's size and the window's fit count it
        self._charts = panel
        self._refresh_charts()
        if self._class_row >= 0:
            panel.set_class_row(self._class_row)
        if any(d.isVisible() and not d.isFloating() for d in self.findChildren(QDockWidget)):
            self.fit_to_screen()  # a panel opened beside the empty pane: with the charts in it, all must still fit
        return panel

    def after_charts(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the charts are built (now, if they are)."""
        if self._charts is not None:
            callback()
        else:
            self._after_charts.append(callback)

    def _refresh_charts(self) -> None:
        charts = self._charts
        if charts is None or not hasattr(charts, "show_result"):
            return  # not built yet: building draws the current tier
        wb = self.document.workbook
        row = self._tier_row if 0 <= self._tier_row < len(wb.tiers) else (0 if wb.tiers else -1)
        charts.show_result(wb, self.document.comparison, row)

    def _on_current_tier_changed(self, current, _previous) -> None:  # noqa: ANN001
        if current.isValid() and current.row() != self._tier_row:
            self._tier_row = current.row()
            self._refresh_charts()

    def _on_current_class(self, row: int) -> None:
        if row >= 0:
            self._class_row = row
            if self._charts is not None and hasattr(self._charts, "set_class_row"):
                self._charts.set_class_row(row)
