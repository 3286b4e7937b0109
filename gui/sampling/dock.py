"""Tools > Measure acceptance: the sampling panel in a dock, built on first use so onnx-related modules stay
out of start-up; it shares the window's task runner and settings."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer

from gui.docks import scrolled_dock


def show_sampling_panel(window: Any) -> None:
    """Show (building it once) the Measure acceptance dock of a MainWindow."""
    if window._sampling_dock is None:
        try:
            from gui.sampling.panel import SamplingPanel
        except Exception as exc:  # noqa: BLE001  (the tables must keep working without it)
            window.show_message(f"Measuring acceptance is not available: {exc}", 15000)
            return
        panel = SamplingPanel(window.document, window, runner=window.tasks, settings=window.settings)
        panel.provider_changed.connect(window.set_provider_text)
        panel.status_message.connect(window.show_message)
        # Apply stays in sight below the scrolled form and results, whatever the screen's height
        dock = scrolled_dock(window, "Measure acceptance", "sampling_dock", panel, footer=panel.take_footer())
        window._sampling_dock = dock
        window.sampling_panel = panel
        dock.show()
        # the width it had last time (or its own); fit_to_screen below takes back what the screen lacks
        saved = window.settings.value("window/sampling_dock_width")
        try:
            width = int(saved) if saved is not None else panel.sizeHint().width()
        except (TypeError, ValueError):
            width = panel.sizeHint().width()
        window.resizeDocks([dock], [max(width, 1)], Qt.Orientation.Horizontal)
    window._sampling_dock.show()
    window._sampling_dock.raise_()
    window._make_room_for_dock()
    QTimer.singleShot(0, window.fit_to_screen)  # once more after the dock's deferred layout
