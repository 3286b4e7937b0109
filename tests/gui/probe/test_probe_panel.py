"""Tools > Probe a tier…: a run against the demo app on loopback shows the verdict and the table; Apply is one
undo step; the endpoint is saved to the tier through the validator; cancel keeps the completed requests."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("uvicorn")

from gui.document import Document  # noqa: E402
from gui.probe.panel import ProbePanel  # noqa: E402
from model.probe.demo_server import LoopbackServer  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from tests.probe_servers import bad_app, demo_app  # noqa: E402

RUN_TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def server():
    app, _ = demo_app("vllm")
    with LoopbackServer(app) as s:
        yield s


@pytest.fixture
def panel(qtbot, tmp_path, server):
    wb = load_demo()
    base = wb.tiers[0].baseline or wb.tiers[1].name
    for t in wb.tiers:
        if t.name == base:
            t.endpoint_url, t.endpoint_model = server.base_url, "demo-standard"
    widget = ProbePanel(Document(wb))
    widget.run_folder = tmp_path
    widget.confirm = lambda text: True
    qtbot.addWidget(widget)
    widget.endpoint.tier_combo.setCurrentIndex(0)
    widget.endpoint.url_edit.setText(server.base_url)
    widget.endpoint.model_edit.setText("demo-fast")
    widget.endpoint.baseline_combo.setCurrentIndex(widget.endpoint.baseline_combo.findText(base))
    widget.run_form.tokens_spin.setValue(16)
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"task_class": "code", "prompt": "def parse_orders(orders):\\n    result = []\\n    for item in"}\n'
                       '{"task_class": "prose", "prompt": "The morning was"}\n')
    widget.run_form.prompts_edit.setText(str(prompts))
    yield widget
    widget.runner.wait()


def test_a_run_shows_the_verdict_and_apply_is_one_undo_step(qtbot, panel):
    with qtbot.waitSignal(panel.runner.finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
    assert panel.report is not None and panel.results_model.rowCount() == 2
    assert "Runs speculative decoding" in panel.verdict_label.text()
    assert panel.apply_row.apply_button.isEnabled()
    doc = panel.document
    tier = panel.endpoint.tier_combo.currentText()
    name = next(c.name for c in doc.workbook.classes if c.name.lower() == "code")
    before = doc.undo_stack.count()
    qtbot.mouseClick(panel.apply_row.apply_button, Qt.MouseButton.LeftButton)
    assert doc.undo_stack.count() == before + 1
    o = doc.workbook.override_for(tier, name)
    assert o is not None and o.alpha_source == "probed"
    doc.undo_stack.undo()
    assert doc.workbook.override_for(tier, name) is None or doc.workbook.override_for(tier, name).alpha_source != "probed"


def test_the_endpoint_is_saved_through_the_validator(qtbot, panel):
    panel.endpoint.key_env_edit.setText("sk-not-a-name")
    qtbot.mouseClick(panel.endpoint.save_endpoint_button, Qt.MouseButton.LeftButton)
    assert "Not saved" in panel.message_label.text()
    panel.endpoint.key_env_edit.setText("VENDOR_KEY")
    qtbot.mouseClick(panel.endpoint.save_endpoint_button, Qt.MouseButton.LeftButton)
    tier = panel.document.workbook.tiers[0]
    assert (tier.endpoint_model, tier.api_key_env) == ("demo-fast", "VENDOR_KEY")


def test_cancel_keeps_the_requests_that_completed(qtbot, panel, tmp_path):
    with LoopbackServer(bad_app()) as bad:
        panel.endpoint.baseline_combo.setCurrentIndex(0)
        panel.endpoint.url_edit.setText(bad.base_url)
        panel.endpoint.model_edit.setText("endless")  # the first request behaves, the second never ends
        with qtbot.waitSignal(panel.runner.progressed, timeout=RUN_TIMEOUT_MS,
                              check_params_cb=lambda e: getattr(e, "requests_done", 0) == 1):
            qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
        with qtbot.waitSignal(panel.runner.errored, timeout=10_000):
            qtbot.mouseClick(panel.run_row.cancel_button, Qt.MouseButton.LeftButton)
    assert "1 request that completed is shown" in panel.message_label.text(), (panel._partial, panel.run_row.rate_label.text())
    assert panel.report is not None and panel.report.requests == 1
    bar = panel.run_row.progress_bar  # it read "0 of 1 requests" after a cancel
    assert bar.text() == f"cancelled after 1 of {bar.maximum()} requests" and bar.maximum() == 2


def test_tools_menu_opens_the_probe_dock_on_the_selected_tier(qtbot, tmp_path):
    from PySide6.QtCore import QSettings

    from gui.window.main_window import MainWindow
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    window = MainWindow(load_demo(), None, settings)
    qtbot.addWidget(window)
    window.tier_view.setCurrentIndex(window.tier_model.index(1, 0))
    action = next(a for m in window.menuBar().actions() if m.text() == "&Tools"
                  for a in m.menu().actions() if a.text() == "&Probe a tier…")
    action.trigger()
    assert window._probe_dock.isVisible() or not window.isVisible()
    assert window.probe_panel.endpoint.tier_combo.currentText() == window.document.workbook.tiers[1].name
    window.document.undo_stack.setClean()


def test_the_dock_probes_at_several_concurrencies_and_saves_the_tiers_load(qtbot, panel):
    asked: list[str] = []
    panel.confirm = lambda text: asked.append(text) or True
    panel.run_form.levels_edit.setText("1,2")
    with qtbot.waitSignal(panel.runner.finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
    assert "1 stream: 4 requests" in asked[0] and "2 streams: 4 requests" in asked[0]
    assert [x.concurrency for x in panel.report.by_concurrency] == [1, 2]
    assert "by parallel streams: 1: " in panel.verdict_label.text()
    panel.endpoint.load_spin.setValue(2)
    panel.endpoint.claim_load_spin.setValue(4)
    qtbot.mouseClick(panel.endpoint.save_endpoint_button, Qt.MouseButton.LeftButton)
    assert (panel.document.workbook.tiers[0].concurrency, panel.document.workbook.tiers[0].claim_concurrency) == (2, 4)
    qtbot.mouseClick(panel.apply_row.apply_button, Qt.MouseButton.LeftButton)
    levels = panel.document.workbook.tiers[0].measured_by_concurrency
    assert levels.startswith("1: ") and ", 2: " in levels
    panel.run_form.levels_edit.setText("1,x")
    qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
    assert "--concurrency" in panel.message_label.text() or "concurrency" in panel.message_label.text()


def test_run_until_decided_in_the_dock_shows_intervals_and_each_class_outcome(qtbot, panel, tmp_path, server):
    import json

    from gui.probe.results import COLUMNS

    prompts = tmp_path / "code.jsonl"
    prompts.write_text("".join(json.dumps({"task_class": "code", "prompt": f"def parse_{i}(orders):\n    result = []\n"})
                               + "\n" for i in range(8)))
    panel.run_form.prompts_edit.setText(str(prompts))
    panel.endpoint.tier_combo.setCurrentIndex(panel.endpoint.tier_combo.findText("Northwind Turbo"))
    panel.endpoint.url_edit.setText(server.base_url)  # choosing the tier loads its (empty) endpoint
    panel.endpoint.model_edit.setText("demo-fast")
    panel.endpoint.baseline_combo.setCurrentIndex(0)  # (none): until decided sends the tier alone
    panel.run_form.decide_check.setChecked(True)
    panel.run_form.max_requests_spin.setValue(10)
    asked: list[str] = []
    panel.confirm = lambda text: asked.append(text) or True
    errors: list[str] = []
    panel.runner.errored.connect(errors.append)
    with qtbot.waitSignal(panel.runner.finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
        assert panel.message_label.text().startswith("Raw run"), panel.message_label.text()
    assert not errors
    assert "until each class is decided at 95%: at most 10 requests a class" in asked[0]
    assert "Only the tier is probed" in asked[0] and "not measured in this run" in asked[0]  # nor the baseline
    assert panel.decided is not None
    [c] = panel.decided.classes
    # decided at a look (6 on these prompts: the first look's 5 are skewed, four alike and one apart), or stopped
    assert c.threshold is not None and 5 <= c.requests <= 10 and c.stopped in ("decided", "max requests")
    assert panel.report is not None and panel.report.requests == c.requests
    col = COLUMNS.index("α interval")
    text = panel.results_model.data(panel.results_model.index(0, col))
    assert text.endswith("%") and "–" in text
    assert "Until decided: code" in panel.message_label.text()


def test_the_default_run_folder_names_the_app_once(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    widget = ProbePanel(Document(load_demo()))
    qtbot.addWidget(widget)
    assert widget.run_folder == tmp_path / "SpecLedger" / "probe-runs"
