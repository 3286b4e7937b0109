"""At 1366 x 768 the probe dock's Apply is in sight without scrolling (it sat below the dock's visible
height, under the endpoint form, the run form and the results). The dock keeps the apply row below its scrolled
form; tests/x11/test_probe_dock_x.py checks the same on a real X screen with a window manager after a run."""
from __future__ import annotations

from gui.probe.dock import show_probe_panel


def test_apply_is_in_sight_in_the_probe_dock_at_1366x768(qtbot, window):
    window.resize(1366, 768)
    show_probe_panel(window)
    qtbot.wait(50)
    button = window.probe_panel.apply_row.apply_button
    assert button.isVisible()
    # nothing of it clipped by a scroll area, and all of it inside the window
    assert button.visibleRegion().boundingRect().size() == button.size(), button.visibleRegion().boundingRect()
    top_left = button.mapTo(window, button.rect().topLeft())
    assert window.rect().contains(top_left) and window.rect().contains(button.mapTo(window, button.rect().bottomRight()))
    # the form above it still scrolls, in the dock's own scroll area
    assert window.probe_panel.endpoint.isVisible()
