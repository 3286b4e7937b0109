"""The window's side of sampling: the status bar follows the run, errors are worded, the form is remembered."""
from __future__ import annotations

import threading

import pytest

from gui.window.main_window import MainWindow
from gui.sampling.panel import SamplingPanel
from model.sampling.prompts import DEMO_DRAFT
from model.workbook.json_file import load_demo

sampling = pytest.importorskip("model.sampling.run")


def _panel(window: MainWindow) -> SamplingPanel:
    window.show_sampling_panel()
    panel = window.findChild(SamplingPanel)
    assert panel is not None
    return panel


def test_status_bar_progress_follows_the_prompts_done(qtbot, window) -> None:
    loaded, halfway = threading.Event(), threading.Event()

    def job(cancel):
        yield sampling.SamplingProgress(0, 4, 0.0, None, 0.0, "loading models")
        loaded.wait(5)
        yield sampling.SamplingProgress(2, 4, 120.0, 3.0, 1.5)
        halfway.wait(5)
        return "done"

    assert window.tasks.start("Measuring acceptance", job)
    bar = window.progress_bar
    qtbot.waitUntil(lambda: bar.maximum() == 4, timeout=5000)
    assert bar.isVisible() and bar.value() == 0
    assert window.progress_label.text() == "Measuring acceptance: loading models"
    loaded.set()
    qtbot.waitUntil(lambda: bar.value() == 2, timeout=5000)
    assert bar.text() == "2/4 prompts" and window.progress_label.text() == "Measuring acceptance"
    with qtbot.waitSignal(window.tasks.finished, timeout=5000):
        halfway.set()
    assert not bar.isVisible()


@pytest.mark.parametrize("error, shown", [
    (FileNotFoundError("prompts.jsonl: no such file"), "Measuring acceptance failed: prompts.jsonl: no such file"),
    (RuntimeError("unexpected"), "Measuring acceptance failed: RuntimeError: unexpected"),  # unexpected keeps its type
])
def test_status_bar_errors_are_worded(qtbot, window, error, shown) -> None:
    def job(cancel):
        yield 0.1
        raise error

    with qtbot.waitSignal(window.tasks.errored, timeout=5000):
        assert window.tasks.start("Measuring acceptance", job)
    assert window.statusBar().currentMessage() == shown
    assert not window.progress_bar.isVisible()


def test_the_form_is_remembered_between_sessions(qtbot, window, settings, tmp_path) -> None:
    panel = _panel(window)
    assert panel.draft_edit.text() == str(DEMO_DRAFT)  # nothing remembered yet: the demo pair
    panel.draft_edit.setText(str(tmp_path / "my_draft"))
    panel.prompts_edit.setText(str(tmp_path / "mine.jsonl"))
    panel.k_spin.setValue(7)
    panel.tokens_spin.setValue(96)
    panel.temperature_spin.setValue(0.7)
    panel.seed_spin.setValue(42)
    panel.provider_combo.setCurrentIndex(panel.provider_combo.findData("cpu"))
    remembered = panel.params()

    again = MainWindow(load_demo(), None, settings)
    qtbot.addWidget(again, before_close_func=lambda w: w.tasks.wait())
    assert _panel(again).params() == remembered


def test_remembered_nonsense_is_ignored(qtbot, settings) -> None:
    for key, value in (("k", "many"), ("temperature", "warm"), ("provider", "tpu"), ("draft_dir", ""),
                       ("seed", "12"), ("max_new_tokens", 2.5)):
        settings.setValue(f"sampling/{key}", value)
    win = MainWindow(load_demo(), None, settings)
    qtbot.addWidget(win, before_close_func=lambda w: w.tasks.wait())
    params = _panel(win).params()
    assert (params.k, params.temperature, params.provider, params.draft_dir) == (4, 0.0, "auto", str(DEMO_DRAFT))
    assert params.seed == 12 and params.max_new_tokens == 48
