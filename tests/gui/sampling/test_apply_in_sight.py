"""At 1366 x 768 the Measure panel's Apply is in sight without scrolling, as the probe dock's is: docked, the
panel's form, results table and histogram pushed the apply row below the dock's visible height (the
screenshot --panel at 1366x768 ended at the histogram's axis)."""
from __future__ import annotations

from gui.sampling.dock import show_sampling_panel


def test_apply_is_in_sight_in_the_measure_dock_at_1366x768(qtbot, window):
    window.resize(1366, 768)
    show_sampling_panel(window)
    qtbot.wait(50)
    panel = window.sampling_panel
    for widget in (panel.apply_button, panel.apply_target_combo):
        assert widget.isVisible()
        # nothing of it clipped by a scroll area, and all of it inside the window
        assert widget.visibleRegion().boundingRect().size() == widget.size(), widget.visibleRegion().boundingRect()
        assert window.rect().contains(widget.mapTo(window, widget.rect().topLeft()))
        assert window.rect().contains(widget.mapTo(window, widget.rect().bottomRight()))
    assert panel.form.isVisible()  # the form above it still scrolls, in the dock's own scroll area
