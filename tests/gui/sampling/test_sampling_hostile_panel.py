"""The Measure panel given a prompt file that is not a file: a worded error, the window alive, no hang."""
from __future__ import annotations

import os

import numpy as np
import pytest
from PySide6.QtCore import Qt

pytest.importorskip("onnx")
from tests.onnx_tiny import write_model_folder  # noqa: E402

from gui.document import Document  # noqa: E402
from gui.sampling.panel import SamplingPanel  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402


@pytest.fixture
def panel(qtbot, tmp_path):
    table = np.random.default_rng(7).normal(size=(5, 5)).astype(np.float32)
    for name, t in (("draft", table + 0.1), ("target", table), ("nan", np.full((5, 5), np.nan, np.float32))):
        write_model_folder(tmp_path / name, t)
    widget = SamplingPanel(Document(load_demo()))
    qtbot.addWidget(widget)
    widget.show()
    widget.draft_edit.setText(str(tmp_path / "draft"))
    widget.target_edit.setText(str(tmp_path / "target"))
    widget.provider_combo.setCurrentIndex(widget.provider_combo.findData("cpu"))
    widget.k_spin.setValue(2)
    widget.tokens_spin.setValue(8)
    yield widget
    widget.runner.wait()


def _run_expecting_error(qtbot, panel) -> str:
    with qtbot.waitSignal(panel.runner.errored, timeout=30_000):
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    assert panel.run_button.isEnabled() and not panel.is_running()
    return panel.message_label.text()


def test_dev_zero_prompt_file_is_refused_unread(qtbot, panel):
    panel.prompts_edit.setText("/dev/zero")
    text = _run_expecting_error(qtbot, panel)
    assert "/dev/zero" in text and "Error:" not in text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_prompt_file_is_refused_without_hanging(qtbot, panel, tmp_path):
    fifo = tmp_path / "prompts.jsonl"
    os.mkfifo(fifo)
    panel.prompts_edit.setText(str(fifo))
    assert "prompts.jsonl" in _run_expecting_error(qtbot, panel)


def test_nan_logits_are_named_not_alpha_one(qtbot, panel, tmp_path):
    (tmp_path / "p.jsonl").write_text('{"task_class": "code", "prompt": "a b"}\n')
    panel.prompts_edit.setText(str(tmp_path / "p.jsonl"))
    panel.target_edit.setText(str(tmp_path / "nan"))
    text = _run_expecting_error(qtbot, panel)
    assert "nan: the model gives NaN logits" in text and "ModelOutputError" not in text
