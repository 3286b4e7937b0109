"""Typing while a probe runs loses no keystroke ('NT Renamed' became 'Named' at 30 ms a key). The probe
runs against the demo server (the ONNX demo pair, in this process: the worst case for the GUI thread) while a
tier's name is typed at 20 ms a key into its cell editor; every character arrives."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

pytest.importorskip("uvicorn")

from gui.probe.dock import show_probe_panel  # noqa: E402
from gui.window.main_window import MainWindow  # noqa: E402
from model.probe.demo_server import LoopbackServer  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from tests.probe_servers import demo_app  # noqa: E402

TYPED = "NT Renamed"


def _discard_and_stop(window: MainWindow) -> None:
    window.document.undo_stack.setClean()  # closing a dirty window would ask, and block the test
    window.tasks.wait()


def test_every_key_typed_during_a_probe_run_arrives(qtbot, tmp_path):
    app, _ = demo_app("vllm")
    with LoopbackServer(app) as server:
        window = MainWindow(load_demo(), None, QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
        qtbot.addWidget(window, before_close_func=_discard_and_stop)
        window.resize(1366, 768)
        window.show()
        qtbot.waitExposed(window)
        window.tier_view.setCurrentIndex(window.tier_model.index(1, 0))
        show_probe_panel(window)
        panel = window.probe_panel
        panel.run_folder = tmp_path
        panel.confirm = lambda text: True
        panel.endpoint.url_edit.setText(server.base_url)
        panel.endpoint.model_edit.setText("demo-fast")
        panel.endpoint.baseline_combo.setCurrentIndex(0)
        panel.run_form.tokens_spin.setValue(48)
        panel.run_form.repeats_spin.setValue(3)
        done: list[object] = []
        window.tasks.finished.connect(done.append)
        window.tasks.errored.connect(done.append)
        try:
            panel.run_row.run_button.click()
            assert window.tasks.is_busy()
            # wait for the first request to be under way, then type into the tier's name cell
            qtbot.waitUntil(lambda: panel.run_row.progress_bar.value() >= 1 or bool(done), timeout=60_000)
            assert not done, "the run ended before the typing could start; give it more work"
            view = window.tier_view
            window.activateWindow()
            view.setFocus()
            view.setCurrentIndex(window.tier_model.index(2, 0))
            # as a user types on a spreadsheet: the first key opens the editor, the rest go where the focus is
            for key in TYPED:
                qtbot.keyClick(QApplication.focusWidget(), key)
                qtbot.wait(20)
            busy_while_typing = window.tasks.is_busy()
            qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)
            # the delegate commits on Enter through a queued call: let the event loop deliver it
            qtbot.waitUntil(lambda: view.state() != view.State.EditingState
                            and window.frozen_columns[0].frozen.state() != view.State.EditingState, timeout=5_000)
            window.document.flush()
            assert window.document.workbook.tiers[2].name == TYPED
            assert busy_while_typing, "the probe finished before the last key: the test did not type during a run"
        finally:  # never leave the run going: the server and the window close after it
            window.tasks.cancel()
            window.tasks.wait(30_000)
            window.document.undo_stack.setClean()
