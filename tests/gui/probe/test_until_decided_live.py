"""Run until decided in the probe dock, watched as it runs (QA under Xvfb at 1366x768): the table showed nothing
until a whole round (5 requests a class, 30 on the demo's six classes) had come back, and the verdict line said
'96 requests planned' (one fixed run's count) while the bar counted to 120."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("uvicorn")

from tests.gui.probe.test_probe_panel import RUN_TIMEOUT_MS, panel, server  # noqa: E402,F401  (fixtures)


def until_decided_on_code(panel, tmp_path, server) -> None:  # noqa: ANN001
    """The panel set to run Northwind Turbo until decided (at most 10 a class) on 8 code prompts of the demo server."""
    prompts = tmp_path / "code.jsonl"
    prompts.write_text("".join(json.dumps({"task_class": "code", "prompt": f"def parse_{i}(orders):\n    result = []\n"})
                               + "\n" for i in range(8)))
    panel.run_form.prompts_edit.setText(str(prompts))
    panel.endpoint.tier_combo.setCurrentIndex(panel.endpoint.tier_combo.findText("Northwind Turbo"))
    panel.endpoint.url_edit.setText(server.base_url)
    panel.endpoint.model_edit.setText("demo-fast")
    panel.endpoint.baseline_combo.setCurrentIndex(0)  # (none): until decided sends the tier alone
    panel.run_form.decide_check.setChecked(True)
    panel.run_form.max_requests_spin.setValue(10)


def test_the_table_fills_as_the_first_rounds_requests_complete(qtbot, panel, tmp_path, server):  # noqa: F811
    until_decided_on_code(panel, tmp_path, server)
    seen: list[tuple[int, int]] = []  # (requests done, rows in the table) at each progress, after the panel's slot
    panel.runner.progressed.connect(lambda e: seen.append((e.requests_done, panel.results_model.rowCount())))
    totals: set[int] = set()  # what the bar counts to as the run reports progress (240 under Xvfb for the demo's 48)
    panel.runner.progressed.connect(lambda e: totals.add(e.requests_total))
    said_during: list[str] = []
    panel.runner.progressed.connect(lambda e: said_during.append(panel.run_row.progress_bar.text()))
    with qtbot.waitSignal(panel.runner.finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_row.run_button, Qt.MouseButton.LeftButton)
        # at most 8: a class stops once its 8 distinct prompts are sent, whatever the cap of 10 (it said 10, and
        # 240 for the demo's six classes of 8 prompts at a cap of 40)
        assert "until decided" in panel.verdict_label.text() and "at most 8 requests" in panel.verdict_label.text()
        assert panel.run_row.progress_bar.maximum() == 8
    assert totals == {8}, totals
    # one plan counted from the words before the run to the bar's end: 'at most 8', never 'N of N' once it stops
    assert "of at most 8 requests" in said_during[0], said_during
    bar = panel.run_row.progress_bar
    assert bar.maximum() == 8 and bar.text() == f"done after {bar.value()} of at most 8 requests", bar.text()
    first_round = [rows for done, rows in seen if 0 < done < 5]  # the first look is at 5 requests a class
    assert first_round and max(first_round) == 1, seen
    assert panel.decided is not None and panel.report is not None
