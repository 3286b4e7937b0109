"""A side panel as a dock: the one way the window's panels (Measure acceptance, Probe a tier) are docked."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import (QAbstractSpinBox, QComboBox, QDockWidget, QMainWindow, QScrollArea, QVBoxLayout,
                               QWidget)


class _WheelScrollsTheDock(QObject):
    """The wheel over a box the user has not clicked into scrolls the dock instead of changing the box: scrolling
    a laptop's dock back up with the pointer passing over Against set it to "(none)", unseen."""

    def __init__(self, scroll: QScrollArea, panel: QWidget) -> None:
        super().__init__(scroll)
        self._bar = scroll.verticalScrollBar()
        for box in [*panel.findChildren(QComboBox), *panel.findChildren(QAbstractSpinBox)]:
            box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # not WheelFocus: the wheel no longer gives it the keys
            box.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) and not watched.hasFocus():
            QCoreApplication.sendEvent(self._bar, event)
            return True
        return False


def scrolled_dock(window: QMainWindow, title: str, object_name: str, panel: QWidget,
                  footer: QWidget | None = None) -> QDockWidget:
    """Dock `panel` on the right of `window`, inside a scroll area, with `footer` (if any) below it, in sight.

    The scroll area is why: a panel's form has a minimum width of its own, and docked bare it would push
    the window past a laptop's screen; scrolled, the window decides the width and the form scrolls. The
    footer holds what must be reachable without scrolling (the probe's Apply: at 1366 x 768 it sat
    140 px below the dock's visible height, under the form and the results).
    """
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setWidget(panel)
    scroll.setMinimumWidth(260)
    _WheelScrollsTheDock(scroll, panel)
    content: QWidget = scroll
    if footer is not None:
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll, 1)
        box = QVBoxLayout()
        box.setContentsMargins(9, 4, 9, 6)  # the panel's own margins, so the footer lines up with the form
        box.addWidget(footer)
        layout.addLayout(box)
    dock = QDockWidget(title, window)
    dock.setObjectName(object_name)  # saveState/restoreState find it by this name
    dock.setWidget(content)
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    return dock


def bring_into_view(widget: QWidget) -> None:
    """Scroll the scroll area `widget` sits in (a scrolled dock's) until it shows, once the layout has placed it:
    a message shown below the visible part of a laptop's dock was a click with no visible answer."""
    def scroll() -> None:
        area = widget.parentWidget()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parentWidget()
        if area is None or not widget.isVisible():
            return
        if area.widget() is not None and area.widget().layout() is not None:
            area.widget().layout().activate()  # where the widget is now, not before it was shown
        area.ensureWidgetVisible(widget, 0, 10)
    QTimer.singleShot(0, widget, scroll)  # dropped if the widget is gone by then
