"""Tools > Probe a tier…: the probe panel in a dock, built on first use so httpx stays out of start-up."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDockWidget

from gui.docks import scrolled_dock
from gui.tier_choice import choose_tier


def show_probe_panel(window: Any) -> QDockWidget | None:
    """Show (building it once) the probe dock of a MainWindow; it shares the window's task runner."""
    dock = getattr(window, "_probe_dock", None)
    if dock is None:
        try:
            from gui.probe.panel import ProbePanel
        except Exception as exc:  # noqa: BLE001  (the tables must keep working without it)
            window.show_message(f"Probing is not available: {exc}", 15000)
            return None
        panel = ProbePanel(window.document, window, runner=window.tasks)
        panel.status_message.connect(window.show_message)
        # Apply stays in sight below the scrolled form, whatever the screen's height
        dock = scrolled_dock(window, "Probe a tier", "probe_dock", panel, footer=panel.take_footer())
        window._probe_dock = dock
        window.probe_panel = panel
    panel = window.probe_panel
    # the tier selected in the tiers table is the one to probe
    view = getattr(window, "tier_view", None)
    row = view.currentIndex().row() if view is not None else -1
    if 0 <= row < len(window.document.workbook.tiers):
        choose_tier(panel.endpoint.tier_combo, window.document.workbook.tiers[row])
    dock.show()
    dock.raise_()
    if hasattr(window, "_make_room_for_dock"):
        window._make_room_for_dock()
        QTimer.singleShot(0, window.fit_to_screen)
    return dock
