"""The Measure panel's "Run on a Ray cluster": remembered with the form, worded when Ray is missing, and a
real run on the session's Ray (tests/conftest.py) on the panel's worker, with progress and cancel."""
from __future__ import annotations

import sys
import time

import pytest
from PySide6.QtCore import QSettings, Qt

from gui.document import Document
from gui.sampling.form import RunParams, load_params, save_params
from gui.sampling.panel import SamplingPanel
from model.sampling.run import run_sampling, run_to_end
from model.workbook.json_file import load_demo
from tests.ray_procs import alive, worker_pids

RUN_TIMEOUT_MS = 180_000  # Ray workers load the pair first; a shared 2-core machine is slow


@pytest.fixture
def panel(qtbot):
    widget = SamplingPanel(Document(load_demo()))
    qtbot.addWidget(widget)
    widget.resize(900, 760)
    widget.show()
    yield widget
    widget.runner.wait()


def _use_ray(panel: SamplingPanel, tokens: int) -> None:
    panel.tokens_spin.setValue(tokens)
    panel.provider_combo.setCurrentIndex(panel.provider_combo.findData("cpu"))
    panel.ray_check.setChecked(True)


def test_the_ray_choice_is_remembered_with_the_form(tmp_path, qtbot):
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    default = RunParams("d", "t", "p", 4, 48, 0.0, 0, "auto")
    assert default.ray is False and load_params(settings, default) == default
    save_params(settings, RunParams("d", "t", "p", 4, 48, 0.0, 0, "cpu", True, "ray://head:10001"))
    settings.sync()
    again = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)  # strings from the INI file
    loaded = load_params(again, default)
    assert loaded.ray is True and loaded.ray_address == "ray://head:10001"
    again.setValue("sampling/ray", "perhaps")
    assert load_params(again, default).ray is False  # what does not convert keeps the default
    widget = SamplingPanel(Document(load_demo()), settings=again)
    qtbot.addWidget(widget)
    assert widget.ray_address_edit.text() == "ray://head:10001"
    widget.ray_check.setChecked(False)
    assert not widget.ray_address_edit.isEnabled()


def test_without_ray_installed_the_panel_says_what_to_install(qtbot, panel, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    _use_ray(panel, 8)
    with qtbot.waitSignal(panel.runner.errored, timeout=30_000):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    text = panel.message_label.text()
    assert text == ("The measurement could not run: Ray is not installed here (needed to run on a Ray cluster): "
                    "pip install -e '.[ray]'")
    assert panel.run_button.isEnabled() and not panel.is_running()


@pytest.mark.timeout(300)
def test_a_ray_run_in_the_panel_equals_the_local_one_and_cancels(qtbot, panel, ray_local):
    _use_ray(panel, 8)
    seen = []
    panel.runner.progressed.connect(lambda e: seen.append(panel.rate_label.text()))
    with qtbot.waitSignal(panel.runner.finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    local = run_to_end(run_sampling(max_new_tokens=8, provider="cpu"))
    assert [(c.task_class, c.histogram, c.alpha) for c in panel.result.classes] == \
        [(c.task_class, c.histogram, c.alpha) for c in local.classes]
    assert "On Ray (local): 2 workers on 1 node, 0 prompts retried" in panel.heading_label.text()
    assert any("2 workers alive" in text for text in seen)

    panel.tokens_spin.setValue(150)  # long enough to be cancelled mid-run
    with qtbot.waitSignal(panel.runner.progressed, timeout=RUN_TIMEOUT_MS,
                          check_params_cb=lambda e: e.prompts_done >= 1):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    pids = worker_pids()
    start = time.perf_counter()
    with qtbot.waitSignal(panel.runner.errored, timeout=5_000):
        panel.cancel_button.click()
    assert time.perf_counter() - start < 3.0
    kept = len(panel.result.prompts)
    assert panel.message_label.text() == (f"Cancelled. The {kept} prompts measured before the cancel are kept "
                                          "and shown.") and 1 <= kept < 48
    assert panel.result.ray["cancelled"] and panel.run_button.isEnabled()
    stop_by = time.monotonic() + 10
    while any(alive(p) for p in pids) and time.monotonic() < stop_by:
        qtbot.wait(200)
    assert len(pids) == 2 and not any(alive(p) for p in pids)  # every worker stopped
