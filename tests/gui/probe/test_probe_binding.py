"""A probe result stays bound to the tier it measured, by identity: through a rename, a row move, a delete and
its undo, and File > Open (which clears it). Before, a rename made the tier box jump to row 1 and Apply wrote
the probed acceptance and Speculative = yes onto that other tier."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytest.importorskip("uvicorn")

from gui.document import Document  # noqa: E402
from gui.probe.panel import ProbePanel  # noqa: E402
from model.probe.demo_server import LoopbackServer  # noqa: E402
from model.workbook import row_edits  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from tests.probe_servers import demo_app  # noqa: E402

RUN_TIMEOUT_MS = 60_000
PROBED = "Northwind Turbo"  # row 1: a rename used to send the box to row 0, a standard tier


@pytest.fixture(scope="module")
def server():
    app, _ = demo_app("vllm")
    with LoopbackServer(app) as s:
        yield s


@pytest.fixture
def probed(qtbot, tmp_path, server):
    widget = ProbePanel(Document(load_demo()))
    widget.run_folder = tmp_path
    widget.confirm = lambda text: True
    qtbot.addWidget(widget)
    widget.endpoint.tier_combo.setCurrentIndex(widget.endpoint.tier_combo.findText(PROBED))
    widget.endpoint.url_edit.setText(server.base_url)
    widget.endpoint.model_edit.setText("demo-fast")
    widget.endpoint.baseline_combo.setCurrentIndex(0)
    widget.run_form.tokens_spin.setValue(16)
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"task_class": "code", "prompt": "def parse(x):\\n    return"}\n')
    widget.run_form.prompts_edit.setText(str(prompts))
    with qtbot.waitSignal(widget.runner.finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(widget.run_row.run_button, Qt.MouseButton.LeftButton)
    assert widget.report is not None and widget.apply_row.apply_button.isEnabled()
    yield widget
    widget.runner.wait()


def _probed_override_tiers(doc: Document) -> set[str]:
    return {o.tier for o in doc.workbook.overrides if o.alpha_source == "probed"}


def test_a_rename_keeps_the_tier_box_and_apply_on_the_probed_tier(probed):
    doc = probed.document
    doc.apply("rename", lambda wb: wb.rename_tier(PROBED, "NT Renamed"))
    doc.flush()
    assert probed.endpoint.tier_combo.currentText() == "NT Renamed"
    assert probed.report_tier_name() == "NT Renamed" and "NT Renamed" in probed.apply_row.apply_label.text()
    probed.apply_row.apply_button.click()
    assert _probed_override_tiers(doc) == {"NT Renamed"}
    assert doc.workbook.tiers[0].speculative == "no"  # row 1's standard tier untouched


def test_a_row_move_keeps_the_binding(probed):
    doc = probed.document
    doc.apply("move", lambda wb: wb.tiers.reverse())
    doc.flush()
    probed.endpoint.tier_combo.setCurrentIndex(0)  # the analyst looks at another tier: Apply still goes to the probed one
    probed.apply_row.apply_button.click()
    assert _probed_override_tiers(doc) == {PROBED}


def test_apply_is_off_with_a_reason_while_the_tier_is_deleted_and_back_after_undo(probed):
    doc = probed.document
    doc.apply("delete", lambda wb: row_edits.delete_rows(wb, "tiers", [wb.tier_index(PROBED)]))
    doc.flush()
    assert not probed.apply_row.apply_button.isEnabled()
    assert "no longer in the workbook" in probed.apply_row.apply_label.text()
    probed._on_apply_clicked()  # even if called: nothing lands on another tier
    assert _probed_override_tiers(doc) == set()
    doc.undo_stack.undo()
    doc.flush()
    assert probed.apply_row.apply_button.isEnabled() and probed.report_tier_name() == PROBED


def test_opening_another_workbook_clears_the_result_and_the_endpoint(probed):
    probed.document.replace(load_demo(), None)  # File > Open of a workbook with the same names
    probed.document.flush()
    assert probed.report is None and probed.results_model.rowCount() == 0
    assert not probed.apply_row.apply_button.isEnabled()
    assert probed.endpoint.url_edit.text() == "" and probed.endpoint.model_edit.text() == ""
    assert "Runs speculative decoding" not in probed.verdict_label.text()


def test_a_new_run_clears_the_previous_verdict_and_the_idle_bar_shows_no_count(qtbot, probed):
    assert "Runs speculative decoding" in probed.verdict_label.text()
    with qtbot.waitSignal(probed.runner.finished, timeout=RUN_TIMEOUT_MS):
        probed.run_row.run_button.click()  # what it shows before the event loop delivers anything of the new run
        verdict, rows, total = (probed.verdict_label.text(), probed.results_model.rowCount(),
                                probed.run_row.progress_bar.maximum())
        assert not probed.apply_row.apply_button.isEnabled()
    assert "Runs speculative decoding" not in verdict and rows == 0 and total == 1  # 1 prompt x 1 context x 1
    fresh = ProbePanel(Document(load_demo()))
    qtbot.addWidget(fresh)
    assert fresh.run_row.progress_bar.text() == "no run yet"
