"""Keeping the window on a laptop's screen: side panels give way, then the charts step aside.

A mixin of MainWindow (it needs its splitter, charts_pane, charts_action and show_message); kept apart
because it is about geometry, not about what the window shows.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget

_NARROW_TABLES = 560  # below this the tables show too little to read beside the charts and a panel
PREFERRED_SIZE = (1600, 980)  # the first start's size where the screen has room for it
# a window manager's title bar and borders, unknown until the window is shown: left free on a first start
_FRAME_ALLOWANCE = (16, 48)


def first_start_geometry(avail: QRect) -> QRect:
    """The first start's window (no saved settings): the preferred size, or what the available area holds
    with room for a window manager's frame, centred in it (1366 x 768 less a panel included)."""
    w = min(PREFERRED_SIZE[0], max(avail.width() - _FRAME_ALLOWANCE[0], 320))
    h = min(PREFERRED_SIZE[1], max(avail.height() - _FRAME_ALLOWANCE[1], 240))
    x = avail.left() + max(0, (avail.width() - w) // 2)
    # below a title bar's height from the top, so the frame a window manager adds stays on screen too
    y = avail.top() + max(0, min(avail.height() - h, _FRAME_ALLOWANCE[1] - 8))
    return QRect(x, y, w, h)


def clamped_geometry(window: QRect, avail: QRect) -> QRect:
    """A saved window moved, and shrunk where needed, into the screen's available area (a laptop after a monitor)."""
    w, h = min(window.width(), avail.width()), min(window.height(), avail.height())
    x = min(max(window.left(), avail.left()), avail.right() + 1 - w)
    y = min(max(window.top(), avail.top()), avail.bottom() + 1 - h)
    return QRect(x, y, w, h)


class ScreenFit:
    def place_on_screen(self, restored: bool) -> None:
        """After restoreGeometry (restored) or on a first start: the whole window inside the available area."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is None:
            self.resize(*PREFERRED_SIZE)
            return
        avail = screen.availableGeometry()
        if not restored:
            self.setGeometry(first_start_geometry(avail))
        elif not self.isMaximized() and not self.isFullScreen():
            frame, inner = self.frameGeometry(), self.geometry()
            fit = clamped_geometry(frame, avail)
            if fit != frame:  # the frame's margins stay as they were; the window inside shrinks and moves
                self.setGeometry(QRect(fit.left() + inner.left() - frame.left(), fit.top() + inner.top() - frame.top(),
                                       fit.width() - (frame.width() - inner.width()),
                                       fit.height() - (frame.height() - inner.height())))

    def _make_room_for_dock(self) -> None:
        self.fit_to_screen()
        left = self.splitter.sizes()[0]
        if self._charts_shown() and left < _NARROW_TABLES:
            # a laptop screen cannot hold tables, charts and the panel side by side: the charts step aside
            self.set_charts_visible(False, remember=False)
            self.show_message("Charts hidden to make room for the panel: View > Charts brings them back.", 10000)

    def set_charts_visible(self, visible: bool, remember: bool = True) -> None:
        """View > Charts: hidden, not just squeezed, so the tables may take the whole width of a small screen.

        A panel that pushes the charts aside hides them with ``remember`` off: by then the panel has squeezed the
        pane, and View > Charts after the panel closed brought it back at that squeezed width (324 px for 454)."""
        sizes = self.splitter.sizes()
        total = sum(sizes)
        if visible:
            # the width the pane had, as long as the tables keep room to be read beside it
            width = max(1, min(self._chart_width, max(total - _NARROW_TABLES, total // 2)))
            # a hidden pane's handle comes back with it and takes its few pixels from the tables, not the charts
            handle = 0 if self.charts_pane.isVisibleTo(self) else self.splitter.handleWidth()
            self.charts_pane.show()
            self.splitter.setSizes([max(total - handle - width, 1), width])
        else:
            if sizes[1] > 0 and remember:
                self._chart_width = sizes[1]
            self.charts_pane.hide()
        self.charts_action.setChecked(visible)
        self.refit_panes_later()

    def refit_panes_later(self) -> None:
        """The tables' heights to their rows again once the layout has settled: the charts coming back narrow the
        results grid (a scroll bar, the legend on two lines) and an Apply widens its cells; fitted at start-up
        only, the grid showed 7 of its 8 rows at 1350 x 720."""
        fit = getattr(self, "fit_pane_heights", None)
        if fit is not None:
            QTimer.singleShot(0, fit)

    def _on_splitter_moved(self, _pos: int, _index: int) -> None:
        self.charts_action.setChecked(self._charts_shown())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # the pane's width is the one it had when a drag of the handle began, and the one it has when the drag
        # ends if it is still open: taken on every move, a drag to the edge left the last width before the pane
        # snapped shut (about 320 px), and View > Charts brought it back at that instead of its former width
        if watched is self.splitter.handle(1) and event.type() in (QEvent.Type.MouseButtonPress,
                                                                   QEvent.Type.MouseButtonRelease) \
                and self._charts_shown():
            self._chart_width = self.splitter.sizes()[1]
        return super().eventFilter(watched, event)

    def _charts_shown(self) -> bool:
        return self.charts_pane.isVisibleTo(self) and self.splitter.sizes()[1] > 0

    def fit_to_screen(self) -> None:
        """Keep the whole window on its screen: a dock opened at its own width must not push it past the edge; then
        the tables' heights to their rows (MainWindow.fit_pane_heights)."""
        self._fit_to_screen()
        fit = getattr(self, "fit_pane_heights", None)
        if fit is not None:
            fit()

    def _fit_to_screen(self) -> None:
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
                self.set_charts_visible(False, remember=False)
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
