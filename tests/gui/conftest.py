"""GUI fixtures: a main window on the demo workbook with a throwaway QSettings file."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from gui.window.main_window import MainWindow
from model.workbook.json_file import load_demo


@pytest.fixture(autouse=True)
def no_modal_boxes(monkeypatch):
    """A static message box in a test waits for a click that never comes: fail at once, naming it."""
    def refuse(kind: str):
        def opened(parent, title, text, *args, **kwargs):  # noqa: ANN001, ANN202
            raise AssertionError(f"a modal QMessageBox.{kind} opened in a test: {title!r}: {text!r}")
        return opened
    for kind in ("question", "warning", "information", "critical"):
        monkeypatch.setattr(QMessageBox, kind, staticmethod(refuse(kind)))


@pytest.fixture
def settings(tmp_path):
    # a file of our own, so no test reads or writes the user's real preferences
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def _discard_and_stop(win: MainWindow) -> None:
    # pytest-qt closes widgets before fixtures are torn down: a dirty window would ask
    # "save changes?" and block, so drop the changes and stop any worker first
    win.document.undo_stack.setClean()
    win.tasks.wait()


@pytest.fixture
def window(qtbot, settings):
    win = MainWindow(load_demo(), None, settings)
    qtbot.addWidget(win, before_close_func=_discard_and_stop)
    win.resize(1400, 900)
    win.show()
    qtbot.waitExposed(win)
    win.charts  # built now, as just after the first paint (MainWindow.charts): a window up and settled has them
    return win
