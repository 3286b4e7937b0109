"""The keyboard back on the main window whenever a dialog closes, with a window manager or without one.

A window manager gives the focus back to the window under a closed dialog; without one (a kiosk, Xvfb, some
remote desktops) X leaves it nowhere until a click, so Ctrl+S and Ctrl+Z were silently lost after any dialog, and
the title's "*" that would say so has no title bar to show in. QApplication.focusChanged says when the keyboard
leaves a dialog for nowhere: the main window is then activated again and the widget that last had the keyboard
there gets it back. (A signal, not an application-wide event filter: that would run Python on every event.)
"""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget


class FocusReturn(QObject):
    """Gives the keyboard back to ``main`` when it leaves another of the application's windows for none."""

    def __init__(self, main: QWidget) -> None:
        super().__init__(main)
        self._main = main

    def on_focus_changed(self, old: QWidget | None, now: QWidget | None) -> None:
        if now is None and old is not None and old.window() is not self._main:
            # after the closing window's own focus handling; with self as the timer's context, a window deleted
            # meanwhile (its keeper goes with it) cancels the call instead of raising in it
            QTimer.singleShot(0, self, self.take_back)

    def take_back(self) -> None:
        main = self._main
        if not main.isVisible() or QApplication.activeWindow() is not None:
            return  # another window (a dialog still up, the main window itself) has the keyboard
        main.raise_()
        main.activateWindow()
        target = main.focusWidget()
        (target if target is not None and target.isVisible() else main).setFocus()


def install(main: QWidget) -> FocusReturn:
    keeper = FocusReturn(main)
    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.focusChanged.connect(keeper.on_focus_changed)
    return keeper
