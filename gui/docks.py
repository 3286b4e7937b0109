"""A side panel as a dock: the one way the window's panels (Measure acceptance, Probe a tier) are docked."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QScrollArea, QWidget


def scrolled_dock(window: QMainWindow, title: str, object_name: str, panel: QWidget) -> QDockWidget:
    """Dock `panel` on the right of `window`, inside a scroll area.

    The scroll area is why: a panel's form has a minimum width of its own, and docked bare it would push
    the window past a laptop's screen; scrolled, the window decides the width and the form scrolls.
    """
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setWidget(panel)
    scroll.setMinimumWidth(260)
    dock = QDockWidget(title, window)
    dock.setObjectName(object_name)  # saveState/restoreState find it by this name
    dock.setWidget(scroll)
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
    return dock
