"""The sampling panel: runs on a worker thread, shows results, applies them as one undo step, cancels fast."""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from tests.onnx_tiny import write_model_folder  # noqa: E402
from tests.paths import ROOT  # noqa: E402

from gui.document import Document  # noqa: E402
from gui.sampling.panel import SamplingPanel  # noqa: E402
from model.sampling.prompts import DEMO_DRAFT, DEMO_PROMPTS, DEMO_TARGET  # noqa: E402
from model.sampling.run import SamplingProgress  # noqa: E402
from model.workbook import row_edits  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402

HAVE_DEMO = all(p.exists() for p in (DEMO_DRAFT / "tokenizer.json", DEMO_TARGET / "tokenizer.json", DEMO_PROMPTS))
RUN_TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """A bigram pair whose draft disagrees with its target now and then; classes differ from the demo's in case."""
    base = tmp_path_factory.mktemp("pair")
    rng = np.random.default_rng(7)
    table = rng.normal(size=(5, 5)).astype(np.float32)
    write_model_folder(base / "draft", table + rng.normal(0, 0.6, size=(5, 5)).astype(np.float32))
    write_model_folder(base / "target", table)
    write_model_folder(base / "other_vocab", table, tokens=["v", "w", "x", "y", "z"])
    rows = [("Code", "a b"), ("prose", "c"), ("poetry", "d e"), ("Code", "e a")]
    (base / "prompts.jsonl").write_text("".join(json.dumps({"task_class": c, "prompt": p}) + "\n" for c, p in rows))
    (base / "empty.jsonl").write_text("\n")
    not_lm = base / "not_lm"
    not_lm.mkdir()
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "not_lm",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8),
              str(not_lm / "model.onnx"))
    for name in ("tokenizer.json", "config.json"):
        (not_lm / name).write_bytes((base / "target" / name).read_bytes())
    return base


@pytest.fixture
def panel(qtbot):
    widget = SamplingPanel(Document(load_demo()))
    qtbot.addWidget(widget)
    widget.resize(900, 760)
    widget.show()
    yield widget
    widget.runner.wait()


def _use(panel: SamplingPanel, draft: Path, target: Path, prompts: Path, k: int = 3, tokens: int = 12) -> None:
    panel.draft_edit.setText(str(draft))
    panel.target_edit.setText(str(target))
    panel.prompts_edit.setText(str(prompts))
    panel.k_spin.setValue(k)
    panel.tokens_spin.setValue(tokens)
    panel.provider_combo.setCurrentIndex(panel.provider_combo.findData("cpu"))


def _run(qtbot, panel: SamplingPanel) -> None:
    with qtbot.waitSignal(panel.runner.finished, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)


@pytest.mark.skipif(not HAVE_DEMO, reason="demo pair not built yet")
def test_demo_pair_run_shows_table_histogram_and_provider(qtbot, panel):
    panel.tokens_spin.setValue(8)
    panel.provider_combo.setCurrentIndex(panel.provider_combo.findData("cpu"))
    assert panel.draft_edit.text() == str(DEMO_DRAFT)  # the defaults are the demo pair and prompts
    with qtbot.waitSignal(panel.provider_changed, timeout=RUN_TIMEOUT_MS) as provider:
        _run(qtbot, panel)
    assert provider.args[0].startswith("CPU")
    result = panel.result
    assert panel.results_model.rowCount() == len(result.classes) >= 2
    assert panel.progress_bar.value() == panel.progress_bar.maximum() == len(result.prompts)
    bars, predicted = panel.histogram.plotted()
    assert len(bars) == len(predicted) == result.k + 1
    assert sum(bars) == pytest.approx(100.0)
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()


def test_tiny_run_then_apply_is_one_undo_step(qtbot, panel, tiny):
    _use(panel, tiny / "draft", tiny / "target", tiny / "prompts.jsonl")
    _run(qtbot, panel)
    doc = panel.document
    measured = {c.task_class: c for c in panel.result.classes}
    assert set(measured) == {"Code", "prose", "poetry"}
    before = {c.name: (c.alpha, c.alpha_source) for c in doc.workbook.classes}

    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert doc.undo_stack.count() == 1
    after = {c.name: c for c in doc.workbook.classes}
    for name, source in (("code", "Code"), ("prose", "prose")):  # matched ignoring case, workbook name kept
        assert after[name].alpha == pytest.approx(measured[source].alpha)
        assert after[name].alpha_source == "measured"
        assert "draft → " in after[name].source_note and "K=3" in after[name].source_note
    assert "poetry" not in after and "poetry (not in workbook)" in panel.message_label.text()
    assert after["json"].alpha == before["json"][0]  # unmeasured classes untouched

    doc.undo_stack.undo()
    assert {c.name: (c.alpha, c.alpha_source) for c in doc.workbook.classes} == before
    doc.undo_stack.redo()
    assert doc.workbook.classes[doc.workbook.class_index("code")].alpha_source == "measured"


def test_apply_to_one_tier_and_add_missing(qtbot, panel, tiny):
    _use(panel, tiny / "draft", tiny / "target", tiny / "prompts.jsonl")
    _run(qtbot, panel)
    doc = panel.document
    doc.flush()  # the tier list in the combo follows the document
    index = panel.apply_target_combo.findText("Overrides of tier “Helix Fast”")
    assert index > 0
    panel.apply_target_combo.setCurrentIndex(index)
    panel.add_missing_check.setChecked(True)
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    wb = doc.workbook
    assert doc.undo_stack.count() == 1
    assert wb.override_for("Helix Fast", "code").alpha_source == "measured"
    assert wb.override_for("Helix Fast", "poetry") is not None and wb.class_index("poetry") is not None
    assert wb.classes[wb.class_index("code")].alpha_source == "assumed"  # the class itself is left alone
    doc.undo_stack.undo()
    assert doc.workbook.class_index("poetry") is None and doc.workbook.override_for("Helix Fast", "code") is None


def _slow_job(params, cancel: threading.Event):
    """Stands in for a long run: one step every 20 ms, checking the flag as run_sampling does."""
    for done in range(1, 10_000):
        if cancel.is_set():
            return None
        time.sleep(0.02)
        yield SamplingProgress(done, 10_000, 50.0, 100.0, done * 0.02, "code")
    return None


def test_cancel_stops_within_a_second(qtbot, panel):
    panel.job_factory = _slow_job
    with qtbot.waitSignal(panel.runner.progressed, timeout=5_000):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert panel.is_running() and panel.cancel_button.isEnabled()
    assert "tokens/s" in panel.rate_label.text()
    with qtbot.waitSignal(panel.runner.errored, timeout=1_000) as stopped:
        start = time.perf_counter()
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    assert time.perf_counter() - start < 1.0
    assert stopped.args[0] == "cancelled"
    assert not panel.is_running() and panel.run_button.isEnabled()
    assert panel.message_label.text().startswith("Cancelled")


@pytest.mark.skipif(not HAVE_DEMO, reason="demo pair not built yet")
def test_cancel_a_real_run_within_a_second(qtbot, panel):
    panel.tokens_spin.setValue(150)  # the demo's context is 256 tokens; 48 prompts of this take many seconds
    panel.provider_combo.setCurrentIndex(panel.provider_combo.findData("cpu"))
    with qtbot.waitSignal(panel.runner.progressed, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.wait(300)  # let it get into the decoding loop
    start = time.perf_counter()
    with qtbot.waitSignal(panel.runner.errored, timeout=2_000):
        panel.cancel_button.click()
    assert time.perf_counter() - start < 1.0
    assert panel.message_label.text().startswith("Cancelled") and panel.run_button.isEnabled()


@pytest.mark.parametrize("case, expected", [
    ("missing_draft", "model folder not found"),
    ("empty_prompts", "has no prompts"),
    ("other_vocab", "tokenizers differ"),
    ("not_lm", "is not a causal language model"),
])
def test_errors_are_worded_and_the_panel_stays_usable(qtbot, panel, tiny, tmp_path, case, expected):
    draft = {"missing_draft": tmp_path / "nope", "other_vocab": tiny / "other_vocab",
             "not_lm": tiny / "not_lm"}.get(case, tiny / "draft")
    prompts = tiny / ("empty.jsonl" if case == "empty_prompts" else "prompts.jsonl")
    _use(panel, draft, tiny / "target", prompts)
    with qtbot.waitSignal(panel.runner.errored, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    text = panel.message_label.text()
    assert panel.message_label.isVisible() and expected in text.lower()
    assert "Error:" not in text  # the model's own wording, not a Python class name
    assert panel.run_button.isEnabled() and not panel.is_running()
    _use(panel, tiny / "draft", tiny / "target", tiny / "prompts.jsonl")
    _run(qtbot, panel)  # and it runs again afterwards
    assert panel.results_model.rowCount() == 3


def test_selecting_a_class_redraws_its_histogram(qtbot, panel, tiny):
    _use(panel, tiny / "draft", tiny / "target", tiny / "prompts.jsonl")
    _run(qtbot, panel)
    shown = []
    for row in range(panel.results_model.rowCount()):
        panel.table.selectRow(row)
        bars, predicted = panel.histogram.plotted()
        c = panel.result.classes[row]
        assert bars == pytest.approx([100 * n / c.stretches for n in c.histogram])
        assert len(predicted) == panel.result.k + 1
        shown.append(panel.histogram.getPlotItem().titleLabel.text)
    assert len(set(shown)) == len(shown)  # each title names its class


def test_in_the_window_with_its_shared_runner(qtbot, window, tiny):
    """The panel as Tools > Measure acceptance docks it: the window's document, runner and status bar."""
    window.show_sampling_panel()
    panel = window.findChild(SamplingPanel)
    assert panel is not None and panel.document is window.document and panel.runner is window.tasks
    _use(panel, tiny / "draft", tiny / "target", tiny / "prompts.jsonl")
    _run(qtbot, panel)
    assert window.provider_label.text().startswith("Provider: CPU")
    # another job on the shared runner: the panel neither starts over it nor takes its result
    gate = threading.Event()

    def other_job(cancel):
        gate.wait(5)
        yield 0.5
        return "not a sampling result"

    assert window.tasks.start("Export", other_job)
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert "Another long task" in panel.message_label.text() and not panel.is_running()
    with qtbot.waitSignal(window.tasks.finished, timeout=5_000):
        gate.set()
    assert panel.results_model.rowCount() == 3 and panel.result.k == 3
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert window.document.undo_stack.count() == 1
    window.document.undo_stack.undo()
    assert window.document.workbook.classes[0].alpha_source == "assumed"


@pytest.mark.skipif(not HAVE_DEMO, reason="demo pair not built yet")
def test_prompt_longer_than_the_context_is_worded(qtbot, panel):
    panel.tokens_spin.setValue(400)
    with qtbot.waitSignal(panel.runner.errored, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    text = panel.message_label.text()
    assert "demo.jsonl, line 1: prompt is" in text and "256-token context" in text
    assert panel.run_button.isEnabled()


def test_copy_table_and_save_json(qtbot, panel, tiny, tmp_path):
    from PySide6.QtWidgets import QApplication

    _use(panel, tiny / "draft", tiny / "target", tiny / "prompts.jsonl")
    _run(qtbot, panel)
    panel.table.setFocus()
    qtbot.keyClick(panel.table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    lines = QApplication.clipboard().text().splitlines()
    assert lines[0].startswith("Task class\tPrompts\tStretches\tα per token") and len(lines) == 4
    assert lines[1].split("\t")[0] == "Code" and lines[3].endswith("not in workbook")
    panel.save_json(str(tmp_path / "r.json"))
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["k"] == 3 and {c["task_class"] for c in saved["classes"]} == {"Code", "prose", "poetry"}


def test_importing_the_panel_leaves_onnxruntime_unloaded():
    import subprocess
    import sys

    code = ("import sys, gui.sampling.panel; "
            "print(sorted(m for m in ('onnxruntime', 'tokenizers', 'model.sampling.onnx_lm') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_a_refused_apply_changes_nothing_and_says_why(qtbot, panel, tiny, monkeypatch):
    from model.workbook.validation import ValidationError

    _use(panel, tiny / "draft", tiny / "target", tiny / "prompts.jsonl")
    _run(qtbot, panel)

    def refuse(*_args):
        raise ValidationError("task class 'code': refused for the test")

    monkeypatch.setattr("gui.sampling.panel.apply_plan", refuse)
    before = panel.document.workbook
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert panel.document.workbook is before and panel.document.undo_stack.count() == 0
    assert "Not applied" in panel.message_label.text() and "refused for the test" in panel.message_label.text()


def test_undoing_an_apply_shows_the_cells_it_changed(qtbot, window, tiny):
    # before: the apply had no place to show, so Ctrl+Z left the view wherever it was
    window.show_sampling_panel()
    panel = window.sampling_panel
    _use(panel, tiny / "draft", tiny / "target", tiny / "prompts.jsonl")
    _run(qtbot, panel)
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    window.document.flush()
    window.input_tabs.setCurrentWidget(window.tier_view)
    window.undo_action.trigger()
    window.document.flush()
    view, alpha = window.class_view, window.class_model.column_of("alpha")
    assert window.input_tabs.currentWidget() is view
    assert (view.currentIndex().row(), view.currentIndex().column()) == (0, alpha)  # code
    selected = {(i.row(), i.column()) for i in view.selectionModel().selectedIndexes()}
    assert selected == {(r, alpha) for r in range(5)}  # code .. prose, the measured classes
    # to one tier: the tier's row of the override grid
    panel.apply_target_combo.setCurrentIndex(panel.apply_target_combo.findText("Overrides of tier “Helix Fast”"))
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    window.document.flush()
    window.input_tabs.setCurrentWidget(window.tier_view)
    window.undo_action.trigger()
    window.document.flush()
    grid = window.override_view
    assert window.input_tabs.currentWidget() is grid
    row = window.document.workbook.tier_index("Helix Fast")
    assert {(i.row(), i.column()) for i in grid.selectionModel().selectedIndexes()} == {(row, c) for c in range(5)}


def test_the_chosen_tier_follows_a_rename_and_a_delete_turns_apply_off(qtbot, panel, tiny):
    """By identity: a rename keeps 'Apply to' on its tier (it fell back to the classes' α), a delete turns Apply
    off with a reason instead of writing elsewhere, undo brings it back, and File > Open clears the result."""
    _use(panel, tiny / "draft", tiny / "target", tiny / "prompts.jsonl")
    _run(qtbot, panel)
    doc = panel.document
    panel.apply_target_combo.setCurrentIndex(panel.apply_target_combo.findText("Overrides of tier “Helix Fast”"))
    doc.apply("rename", lambda wb: wb.rename_tier("Helix Fast", "Helix Quick"))
    doc.flush()
    assert panel.apply_target_combo.currentText() == "Overrides of tier “Helix Quick”"
    assert panel.chosen_target() == "Helix Quick" and panel.apply_button.isEnabled()
    doc.apply("delete", lambda wb: row_edits.delete_rows(wb, "tiers", [wb.tier_index("Helix Quick")]))
    doc.flush()
    assert not panel.apply_button.isEnabled() and "no longer" in panel.apply_button.toolTip()
    assert "no longer in the workbook" in panel.apply_target_combo.currentText()
    doc.undo_stack.undo()
    doc.flush()
    assert panel.chosen_target() == "Helix Quick" and panel.apply_button.isEnabled()
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert doc.workbook.override_for("Helix Quick", "prose").alpha_source == "measured"
    doc.replace(load_demo(), None)
    doc.flush()
    assert panel.result is None and panel.results_model.rowCount() == 0 and not panel.apply_button.isEnabled()
    assert panel.apply_target_combo.currentIndex() == 0
