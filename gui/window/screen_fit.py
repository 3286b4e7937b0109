"""Keeping the window on a laptop's screen: side panels give way, then the charts step aside.

A mixin of MainWindow (it needs its splitter, charts, charts_action and show_message); kept apart
because it is about geometry, not about what the window shows.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget

_NARROW_TABLES = 560  # below this the tables show too little to read beside the charts and a panel


class ScreenFit:
    def _make_room_for_dock(self) -> None:
        self.fit_to_screen()
        left = self.splitter.sizes()[0]
        if self._charts_shown() and left < _NARROW_TABLES:
            # a laptop screen cannot hold tables, charts and the panel side by side: the charts step aside
            self.set_charts_visible(False)
            self.show_message("Charts hidden to make room for the panel: View > Charts brings them back.", 10000)

    def set_charts_visible(self, visible: bool) -> None:
        """View > Charts: hidden, not just squeezed, so the tables may take the whole width of a small screen."""
        sizes = self.splitter.sizes()
        total = sum(sizes)
        if visible:
            width = min(self._chart_width, max(total // 2, 1))
            self.charts.show()
            self.splitter.setSizes([max(total - width, 1), width])
        else:
            if sizes[1] > 0:
                self._chart_width = sizes[1]
            self.charts.hide()
        self.charts_action.setChecked(visible)

    def _charts_shown(self) -> bool:
        return self.charts.isVisibleTo(self) and self.splitter.sizes()[1] > 0

    def fit_to_screen(self) -> None:
        """Keep the whole window on its screen: a dock opened at its own width must not push it past the edge."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None or self.isMaximized() or self.isFullScreen():
            return
        avail = screen.availableGeometry()
        frame = self.frameGeometry()
        max_w = avail.width() - (frame.width() - self.width())
        max_h = avail.height() - (frame.height() - self.height())
        docks = [d for d in self.findChildren(QDockWidget) if d.isVisible() and not d.isFloating()]
        dock = docks[-1] if docks else None
        docked = dock is not None
        self.layout().activate()
        for charts_may_go in (False, True):
            if self.width() <= max_w or not docked:
                break
            if charts_may_go and self._charts_shown():
                # the tables, the charts and the panel do not fit side by side: the charts step aside
                self.set_charts_visible(False)
                self.show_message("Charts hidden to make room for the panel: View > Charts brings them back.", 10000)
            # the dock gives up what the window cannot have, down to its own minimum
            room = max_w - self.centralWidget().minimumSizeHint().width() - 8
            self.resizeDocks([dock], [max(dock.minimumSizeHint().width(), min(dock.width(), room))],  # type: ignore[union-attr]
                             Qt.Orientation.Horizontal)
            self.layout().activate()
        if self.width() > max_w or self.height() > max_h:
            self.resize(min(self.width(), max_w), min(self.height(), max_h))
        frame = self.frameGeometry()
        dx = min(0, avail.right() - frame.right()) or max(0, avail.left() - frame.left())
        dy = min(0, avail.bottom() - frame.bottom()) or max(0, avail.top() - frame.top())
        if dx or dy:
            self.move(frame.left() + dx, frame.top() + dy)
