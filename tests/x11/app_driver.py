"""The window as `specledger` starts it (gui.window.app.run_app), plus a line protocol on stdin/stdout for the
X tests: they set up a probe run here and read back what the window shows, and do all the user's input through
the X server with xdotool. Run as a script by tests/x11/xsession.App; one JSON line answers each command.

Commands: state | save-to PATH | edit-title WORDS | dialog settings|about | dialogs | lag SECONDS (how late a 10 ms timer fires on the GUI thread, answered after SECONDS) | probe URL TOKENS REPEATS | cell tiers|classes ROW [COL] | where tiers|classes ROW [COL] | metric KEY | shot PATH (the whole X screen, frames included) | quit
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSocketNotifier, Qt, QTimer
from PySide6.QtWidgets import QApplication

from gui.window.app import application, run_app


def _window() -> Any:
    from gui.window.main_window import MainWindow
    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)), None)


def _rect(r: Any) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def _where(w: Any, table: str, row: str, col: str = "0") -> dict[str, Any]:
    """Where on the screen a cell shows (a name: in the frozen column over the table), for xdotool to click."""
    view = w.tier_view if table == "tiers" else w.class_view
    w.input_tabs.setCurrentWidget(view)
    index = view.model().index(int(row), int(col))
    shown = next((f.frozen for f in getattr(w, "frozen_columns", []) if f.view is view and f.frozen.isVisible()
                  and index.column() == 0), view)
    shown.scrollTo(index)
    centre = shown.viewport().mapToGlobal(shown.visualRect(index).center())
    bar = view.horizontalScrollBar()
    slider = bar.mapToGlobal(bar.rect().center())
    head = view.horizontalHeader()
    edge = head.mapToGlobal(head.rect().topLeft())
    right = head.sectionViewportPosition(index.column()) + head.sectionSize(index.column()) - 1
    # the right edge of the first column shown whole beside the frozen names (the one the frozen column would cover)
    first = next((c for c in range(1, head.count()) if head.sectionViewportPosition(c) >= view.columnWidth(0)), 1)
    beside = head.sectionViewportPosition(first) + head.sectionSize(first) - 1
    return {"x": centre.x(), "y": centre.y(), "bar": [bar.mapToGlobal(bar.rect().topLeft()).x(), slider.y(),
                                                      bar.width()],
            "header_edge": [edge.x() + right, edge.y() + head.height() // 2],
            "beside_edge": [edge.x() + beside, edge.y() + head.height() // 2]}


def _half_covered(w: Any) -> list[str]:
    """The Tiers table's columns lying partly under the frozen name column."""
    view = w.tier_view
    frozen = next((f.frozen for f in getattr(w, "frozen_columns", []) if f.view is view), None)
    if frozen is None:
        return []
    model, edge = view.model(), frozen.width()
    return [f"{model.headerData(c, Qt.Orientation.Horizontal)}: {r.left()}..{r.right()} under {edge} px"
            for c in range(1, model.columnCount()) for r in [view.visualRect(model.index(0, c))]
            if r.left() < edge <= r.right()]


def _apply_in_sight(w: Any) -> Any:
    """Whether the probe dock shows its Apply button whole without scrolling (None: no dock)."""
    panel = getattr(w, "probe_panel", None)
    if panel is None or not panel.isVisible():
        return None
    from PySide6.QtWidgets import QScrollArea
    scroll = next((p for p in _parents(panel) if isinstance(p, QScrollArea)), None)
    button = _part(panel, "apply_button")
    if scroll is not None:
        scroll.verticalScrollBar().setValue(0)  # as the dock opens: not scrolled
    # the part of the button its parents do not clip (a scroll area's viewport clips what is scrolled out of it)
    shown = button.visibleRegion().boundingRect()
    top_left = button.mapToGlobal(button.rect().topLeft())
    screen = w.screen().availableGeometry()
    return {"visible": button.isVisible() and shown.size() == button.size()
            and screen.contains(top_left) and screen.contains(button.mapToGlobal(button.rect().bottomRight())),
            "shown": [shown.x(), shown.y(), shown.width(), shown.height()],
            "global": [top_left.x(), top_left.y(), button.width(), button.height()]}


def _parents(widget: Any) -> list[Any]:
    out = []
    while widget is not None:
        out.append(widget)
        widget = widget.parentWidget()
    return out


def _state(w: Any) -> dict[str, Any]:
    if hasattr(w.document, "flush"):
        w.document.flush()  # a pending recompute, as the next turn of the event loop would run it
    panel = getattr(w, "probe_panel", None)
    view, results = w.tier_view, w.results_view
    focus = QApplication.focusWidget()
    return {
        "winid": int(w.winId()), "frame": _rect(w.frameGeometry()), "geometry": _rect(w.geometry()),
        "avail": _rect(w.screen().availableGeometry()), "visible": w.isVisible(),
        "tiers": [t.name for t in w.document.workbook.tiers],
        "classes": [c.name for c in w.document.workbook.classes],
        "apply_in_sight": _apply_in_sight(w),
        "busy": w.tasks.is_busy(), "undo_steps": w.document.undo_stack.count(),
        "progress": _part(panel, "progress_bar").value() if panel is not None else None,
        "editing": view.state() == view.State.EditingState,
        "focus": type(focus).__name__ if focus is not None else None,
        "active": QApplication.activeWindow() is w,
        "half_covered": _half_covered(w), "tier_scroll": w.tier_view.horizontalScrollBar().value(),
        "tier_scroll_max": w.tier_view.horizontalScrollBar().maximum(),
        "splitter": w.splitter.sizes(), "charts_visible": w.charts.isVisible(),
        "results_widths": [results.columnWidth(c) for c in range(results.model().columnCount())],
        "results_hints": [results.sizeHintForColumn(c) for c in range(results.model().columnCount())],
        "results_heads": [results.horizontalHeader().sectionSizeHint(c) for c in range(results.model().columnCount())],
        "splitter_handle": _rect(w.splitter.handle(1).geometry()),
        "splitter_origin": [w.splitter.mapToGlobal(w.splitter.rect().topLeft()).x(),
                            w.splitter.mapToGlobal(w.splitter.rect().topLeft()).y()],
    }


def _part(panel: Any, name: str) -> Any:
    """A widget of the probe panel, on the panel itself or on one of its forms (the panel was split in two)."""
    owners = [panel] + [getattr(panel, o) for o in ("endpoint", "run_form", "run_row", "apply_row") if hasattr(panel, o)]
    return next(getattr(o, name) for o in owners if hasattr(o, name))


def _probe(w: Any, url: str, tokens: str, repeats: str) -> dict[str, Any]:
    from gui.probe.dock import show_probe_panel
    w.tier_view.setCurrentIndex(w.tier_model.index(1, 0))  # the demo's fast tier
    show_probe_panel(w)
    panel = w.probe_panel
    panel.run_folder = Path.cwd() / "probe-runs"
    panel.confirm = lambda text: True  # the cost question is the user's; here it would wait for a click
    _part(panel, "url_edit").setText(url.rstrip("/") + "/v1")
    _part(panel, "model_edit").setText("demo-fast")
    _part(panel, "baseline_combo").setCurrentIndex(0)
    _part(panel, "tokens_spin").setValue(int(tokens))
    _part(panel, "repeats_spin").setValue(int(repeats))
    _part(panel, "run_button").click()
    return {"started": w.tasks.is_busy()}


def _cell(w: Any, table: str, row: str, col: str = "0") -> dict[str, Any]:
    """Make a cell of the Tiers or Task classes table current, as a click on it would (without typing)."""
    view = w.tier_view if table == "tiers" else w.class_view
    w.input_tabs.setCurrentWidget(view)
    view.setFocus()
    view.setCurrentIndex(view.model().index(int(row), int(col)))
    return _state(w)


def _measure_lag(seconds: float) -> None:
    """A 10 ms timer on the GUI thread for ``seconds``: how late each tick came is how long the thread was kept
    from its events (keys included); answers max, p95 and mean lateness in ms."""
    import time
    late: list[float] = []
    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(10)
    start = last = time.perf_counter()

    def tick() -> None:
        nonlocal last
        now = time.perf_counter()
        late.append(max(0.0, (now - last) * 1000 - 10))
        last = now
        if now - start >= seconds:
            timer.stop()
            ordered = sorted(late)
            print(json.dumps({"ticks": len(late), "max_ms": round(ordered[-1], 2),
                              "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
                              "mean_ms": round(sum(late) / len(late), 2)}), flush=True)
            _timers.discard(timer)
    timer.timeout.connect(tick)
    _timers.add(timer)  # kept alive until it stops
    timer.start()


_timers: set[Any] = set()


def _on_command(app: QApplication) -> None:
    line = sys.stdin.readline()
    words = line.split()
    w = _window()
    if not words or w is None:
        reply: dict[str, Any] = {"error": "no window" if w is None else "empty command"}
    elif words[0] == "state":
        reply = _state(w)
    elif words[0] == "probe":
        reply = _probe(w, *words[1:4])
    elif words[0] == "cell":
        reply = _cell(w, *words[1:4])
    elif words[0] == "lag":
        _measure_lag(float(words[1]))
        return  # answered when the measurement ends
    elif words[0] == "where":
        reply = _where(w, *words[1:4])
    elif words[0] == "metric":
        w.metric_combo.setCurrentIndex(w.metric_combo.findData(words[1]))
        reply = _state(w)
    elif words[0] == "close-probe-dock":
        dock = getattr(w, "_probe_dock", None)
        if dock is not None:
            dock.close()
        reply = _state(w)
    elif words[0] == "save-to":  # the workbook saved there, so Ctrl+S writes it without asking where
        reply = {"saved": w.files.save_to(words[1])}
    elif words[0] == "edit-title":  # an edit with no dialog: the workbook is dirty, Ctrl+S has something to write
        title = " ".join(words[1:])
        w.document.apply("Edit title", lambda wb: setattr(wb, "title", title))
        reply = _state(w)
    elif words[0] == "dialog":  # a dialog as its menu item opens it (after this answer: exec() would block it)
        QTimer.singleShot(0, {"settings": w.edit_settings, "about": w._on_about_requested}[words[1]])
        reply = {"opening": words[1]}
    elif words[0] == "dialogs":  # the dialogs up, with their window ids for xdotool
        reply = {"dialogs": [{"title": d.windowTitle(), "wid": int(d.winId())} for d in QApplication.topLevelWidgets()
                             if d.isWindow() and d.isVisible() and d is not w]}
    elif words[0] == "shot":
        reply = {"saved": w.screen().grabWindow(0).save(words[1])}
    elif words[0] == "quit":
        w.tasks.wait(10_000)
        w.document.undo_stack.setClean()  # nothing to save: closing must not ask
        w.close()
        reply = {"quit": True}
    else:
        reply = {"error": f"unknown command {words[0]!r}"}
    print(json.dumps(reply), flush=True)


def main() -> int:
    app = application()
    notifier = QSocketNotifier(sys.stdin.fileno(), QSocketNotifier.Type.Read)
    notifier.activated.connect(lambda *_: _on_command(app))

    def ready() -> None:
        w = _window()
        if w is None or not w.isVisible():
            QTimer.singleShot(50, ready)
            return
        # after run_app's start-up fit (300 ms after show), which may re-split the left pane: a test must not
        # measure where a scroll bar is and then drag where it was
        QTimer.singleShot(400, lambda: print(json.dumps({"winid": int(w.winId())}), flush=True))
    QTimer.singleShot(0, ready)
    return run_app(None)


if __name__ == "__main__":
    sys.exit(main())
