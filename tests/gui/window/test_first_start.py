"""The first start (no saved settings) fits the screen's available area, 1366 x 768 included, and a size saved
on a larger screen is clamped to this one (it opened at 1600 x 980, the charts and the status bar
off a laptop's screen)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QSettings
from PySide6.QtGui import QGuiApplication

from gui.window.main_window import MainWindow
from gui.window.screen_fit import clamped_geometry, first_start_geometry
from model.workbook.json_file import load_demo


@pytest.mark.parametrize("avail", [QRect(0, 0, 1366, 768), QRect(0, 27, 1366, 741), QRect(0, 0, 1280, 720),
                                   QRect(1920, 0, 1366, 768), QRect(0, 0, 2560, 1440)])
def test_the_first_start_fits_the_available_area_with_room_for_a_frame(avail):
    g = first_start_geometry(avail)
    assert avail.contains(g)
    assert g.top() - avail.top() >= 30 or g.height() == 980  # a title bar above it stays on screen
    assert g.width() <= 1600 and g.height() <= 980
    if avail.width() >= 1616 and avail.height() >= 1028:
        assert (g.width(), g.height()) == (1600, 980)


def test_a_saved_window_larger_than_the_screen_is_clamped_into_it():
    avail = QRect(0, 0, 1366, 740)
    assert clamped_geometry(QRect(200, 100, 1600, 980), avail) == QRect(0, 0, 1366, 740)
    assert clamped_geometry(QRect(1200, 500, 800, 600), avail) == QRect(566, 140, 800, 600)
    assert clamped_geometry(QRect(10, 10, 800, 600), avail) == QRect(10, 10, 800, 600)


def test_a_window_with_no_saved_settings_opens_inside_the_screen(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "fresh.ini"), QSettings.Format.IniFormat)
    window = MainWindow(load_demo(), None, settings)
    qtbot.addWidget(window)
    avail = (window.screen() or QGuiApplication.primaryScreen()).availableGeometry()
    assert avail.contains(window.geometry()), (window.geometry(), avail)
    # a geometry saved on a bigger screen: clamped when restored here
    window.setGeometry(QRect(avail.left() + 50, avail.top() + 50, avail.width() + 900, avail.height() + 600))
    settings.setValue("window/geometry", window.saveGeometry())
    window.document.undo_stack.setClean()
    again = MainWindow(load_demo(), None, settings)
    qtbot.addWidget(again)
    assert avail.contains(again.geometry()), (again.geometry(), avail)
