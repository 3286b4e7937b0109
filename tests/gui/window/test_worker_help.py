"""The worker runner (progress, result, error, cancel, one at a time) and the in-app guide."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from PySide6.QtCore import Qt

from gui.worker import TaskRunner

from tests.paths import ROOT  # noqa: E402


def _counting(n, delay=0.0):
    def job(cancel: threading.Event):
        for i in range(n):
            if cancel.is_set():
                return None
            time.sleep(delay)
            yield (i + 1, n)
        return "done"
    return job


def test_progress_then_result(qtbot):
    runner = TaskRunner()
    seen = []
    runner.progressed.connect(seen.append)
    with qtbot.waitSignal(runner.finished, timeout=5000) as blocker:
        assert runner.start("count", _counting(5))
    assert blocker.args == ["done"] and seen[-1] == (5, 5)
    assert not runner.is_busy()


def test_one_task_at_a_time_and_cancel(qtbot):
    runner = TaskRunner()
    assert runner.start("slow", _counting(1000, 0.01))
    assert not runner.start("other", _counting(1))
    with qtbot.waitSignal(runner.errored, timeout=5000) as blocker:
        runner.cancel()
    assert blocker.args == ["cancelled"]
    assert not runner.is_busy()


def test_error_is_reported(qtbot):
    def job(cancel):
        yield 0.5
        raise ValueError("no such model file")
    runner = TaskRunner()
    with qtbot.waitSignal(runner.errored, timeout=5000) as blocker:
        runner.start("broken", job)
    assert "no such model file" in blocker.args[0]


def test_window_shows_progress_and_waits_on_close(qtbot, window):
    assert window.tasks.start("Sampling", _counting(10_000, 0.005))
    qtbot.waitUntil(lambda: window.progress_bar.value() > 0, timeout=5000)
    assert window.progress_bar.isVisible() and window.progress_label.text() == "Sampling"
    assert window.close()
    assert not window.tasks.is_busy()


def test_provider_label_is_settable(window):
    window.set_provider_text("CUDAExecutionProvider")
    assert window.provider_label.text() == "Provider: CUDAExecutionProvider"


def test_results_explain_and_open_the_guide(qtbot, window):
    model = window.results_model
    tip = model.data(model.index(1, 0), Qt.ItemDataRole.ToolTipRole)
    for part in ("K = 5", "c = ", "v = ", "alpha = 80.0%", "source: assumed", "E = (1 - alpha^(K+1))", "Break-even", "F1"):
        assert part in tip
    window.results_view.doubleClicked.emit(model.index(1, 0))
    assert window._help is not None and window._help.isVisible()
    html = window._help.browser.toHtml()
    assert "Trailer fill" in html and "Break-even" in html
    window._help.close()


def test_sampling_panel_docks_on_demand(qtbot, window):
    window.show_sampling_panel()
    dock = window._sampling_dock
    assert dock is not None and dock.isVisible()
    window.sampling_panel.provider_changed.emit("CPU")
    assert window.provider_label.text() == "Provider: CPU"



def test_heavy_modules_stay_unloaded_at_start():
    # a fresh interpreter: this test process has long since imported everything; the guide's Markdown is read
    # when Help first opens
    code = ("import sys; from gui.window.app import application, create_window; app = application(); "
            "w, _ = create_window(None); w.show(); app.processEvents(); "
            "print(sorted(m for m in ('openpyxl', 'onnxruntime', 'model.sampling.run', 'gui.window.guide_text') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}, cwd=str(ROOT))
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr
