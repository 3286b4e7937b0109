"""File > Import measured acceptance…: the dialog shows every source, asks for K, and applies in one undo step."""
from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from gui.metrics.dialog import ImportMetricsDialog
from model.workbook import row_edits
from tests.model.metrics.engine_files import iid_steps, trtllm_scrape, vllm_scrape


def _scrape(tmp_path: Path, name: str, alpha: float, k: int = 4) -> str:
    path = tmp_path / name
    path.write_text(vllm_scrape({"llama": iid_steps(alpha, k, 20_000)}))
    return str(path)


def _read(dialog: ImportMetricsDialog, qtbot, change) -> None:  # noqa: ANN001
    """Make a change that reads the files (on the dialog's worker) and wait until the read has ended."""
    with qtbot.waitSignal(dialog.read_done, timeout=20_000):
        change()


def _dialog(window, qtbot) -> ImportMetricsDialog:  # noqa: ANN001
    action = next(a for a in window.menuBar().actions()[0].menu().actions() if "measured acceptance" in a.text())
    action.trigger()
    dialog = window.findChild(ImportMetricsDialog)
    assert dialog is not None
    qtbot.addWidget(dialog)
    return dialog


def test_the_file_menu_opens_it_and_apply_is_one_undo_step(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    dialog = _dialog(window, qtbot)
    _read(dialog, qtbot, lambda: dialog.add_files([_scrape(tmp_path, "code.prom", 0.9)]))
    _read(dialog, qtbot, lambda: dialog.class_combo.setCurrentText("code"))
    assert dialog.table.rowCount() == 1 and dialog.table.item(0, 3).text() == "code"
    assert dialog.table.item(0, 6).text() == "90.0%"  # α per token, next to the other two conventions
    assert "Mean acceptance length" in [dialog.table.horizontalHeaderItem(c).text() for c in range(dialog.table.columnCount())]
    before = window.document.workbook.classes[window.document.workbook.class_index("code")].alpha
    depth = window.document.undo_stack.count()
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    code = window.document.workbook.classes[window.document.workbook.class_index("code")]
    assert code.alpha == pytest.approx(0.9, abs=1e-3) and code.alpha_source == "imported"
    assert code.source_note == f"imported: vllm code.prom {date.today().isoformat()}"
    assert window.document.undo_stack.count() == depth + 1
    window.document.undo_stack.undo()
    assert window.document.workbook.classes[window.document.workbook.class_index("code")].alpha == before


def test_k_is_asked_for_and_a_tier_override_can_be_the_target(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    dialog = _dialog(window, qtbot)
    path = tmp_path / "trt.prom"
    path.write_text(trtllm_scrape(30_000, 18_000))
    dialog.class_combo.setCurrentText("prose")
    _read(dialog, qtbot, lambda: dialog.add_files([str(path)]))
    assert "enter K" in dialog.message_label.text() and not dialog.apply_button.isEnabled()
    _read(dialog, qtbot, lambda: dialog.k_spin.setValue(3))
    assert dialog.apply_button.isEnabled()
    tier = window.document.workbook.tiers[1].name
    assert dialog.apply(tier=tier)
    override = window.document.workbook.override_for(tier, "prose")
    assert override is not None and override.alpha_source == "imported"


def test_a_bad_file_is_one_line_and_nothing_applies(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    dialog = _dialog(window, qtbot)
    bad = tmp_path / "notes.txt"
    bad.write_text("not metrics at all\n")
    depth = window.document.undo_stack.count()
    _read(dialog, qtbot, lambda: dialog.add_files([_scrape(tmp_path, "ok.prom", 0.7), str(bad)]))
    assert "notes.txt: none of the formats read" in dialog.message_label.text() and dialog.table.rowCount() == 0
    assert not dialog.apply(None) and window.document.undo_stack.count() == depth


def test_dropping_a_scrape_opens_the_dialog_with_it(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    path = _scrape(tmp_path, "dropped.prom", 0.8)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(path)])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    dialog = window.findChild(ImportMetricsDialog)
    assert dialog is not None
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 1 and not dialog.reading, timeout=20_000)
    assert dialog.files() == [path]
    assert window.document.path is None or not window.document.path.endswith(".prom")  # not opened as a workbook


def test_the_target_tier_is_kept_by_identity_and_another_workbook_clears_the_files(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001,E501
    dialog = _dialog(window, qtbot)
    _read(dialog, qtbot, lambda: dialog.add_files([_scrape(tmp_path, "code.prom", 0.9)]))
    _read(dialog, qtbot, lambda: dialog.class_combo.setCurrentText("code"))
    doc = window.document
    dialog.target_combo.setCurrentIndex(dialog.target_combo.findText("Overrides of tier “Apex Express”"))
    doc.apply("rename", lambda wb: wb.rename_tier("Apex Express", "Apex X"))
    doc.flush()
    assert dialog.target_combo.currentText() == "Overrides of tier “Apex X”"  # was: the dialog's stale list
    doc.apply("delete", lambda wb: row_edits.delete_rows(wb, "tiers", [wb.tier_index("Apex X")]))
    doc.flush()
    assert not dialog.apply_button.isEnabled() and "no longer in the workbook" in dialog.target_combo.currentText()
    doc.undo_stack.undo()
    doc.flush()
    assert dialog.apply_button.isEnabled()
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert doc.workbook.override_for("Apex X", "code").alpha_source == "imported"
    doc.replace(doc.workbook.copy(), None)
    assert dialog.files() == [] and not dialog.apply_button.isEnabled()


def test_a_big_log_reads_on_the_worker_with_progress_and_cancel(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    from tests.model.metrics import log_files as lf
    dialog = _dialog(window, qtbot)
    path = tmp_path / "server.log"
    block = "\n".join(lf.noise(99) + [lf.vllm_v1_line([10, 15, 20, 25, 30])]) + "\n"
    path.write_text(block * 4_000)  # about 40 MB: long enough to cancel while it reads
    dialog.add_files([str(path)])
    assert dialog.reading and dialog.progress.isVisible() and dialog.cancel_button.isVisible()
    with qtbot.waitSignal(dialog.read_done, timeout=20_000):
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert not dialog.reading and "cancelled" in dialog.message_label.text() and dialog.table.rowCount() == 0
    _read(dialog, qtbot, lambda: dialog.k_spin.setValue(4))  # any change reads the files again, to the end
    assert dialog.table.rowCount() == 1 and dialog.sources[0].counts.steps == 4_000 * 100


def test_every_reader_error_is_shown_in_the_dialog(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    from tests.model.metrics import log_files as lf
    dialog = _dialog(window, qtbot)
    path = tmp_path / "bad.log"
    path.write_text(lf.vllm_v1_line([10, 15, 20, 25, 30]).replace("Mean acceptance length: 3.50",
                                                                   "Mean acceptance length: 1.2.3") + "\n")
    _read(dialog, qtbot, lambda: dialog.add_files([str(path)]))
    text = dialog.message_label.text()
    assert "bad.log:1: Mean acceptance length: '1.2.3' is not a number" in text and dialog.table.rowCount() == 0


def test_a_dropped_llamacpp_log_shows_all_three_conventions(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    from tests.model.metrics import log_files as lf
    path = tmp_path / "llama-server.log"
    path.write_text("\n".join(lf.noise(200) + [lf.llamacpp_request(42, [10, 15, 20, 25, 30]),
                                               lf.llamacpp_request(43, [20, 10, 10, 5, 5])]) + "\n")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    window.dropEvent(QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier))
    dialog = window.findChild(ImportMetricsDialog)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 1 and not dialog.reading, timeout=20_000)
    cells = [dialog.table.item(0, c).text() for c in range(dialog.table.columnCount())]
    # 315 accepted of 600 drafted in 150 steps, histogram 30, 25, 30, 30, 35: alpha 315 / 430
    assert cells[1] == "llamacpp" and cells[4] == "4" and cells[6:9] == ["73.3%", "52.5%", "3.10"]
    assert "Read as: llama.cpp server log" in dialog.notes.toPlainText()


def test_a_task_map_gives_each_llamacpp_request_its_class(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    from tests.model.metrics import log_files as lf
    dialog = _dialog(window, qtbot)
    log = tmp_path / "server.log"
    log.write_text("\n".join([lf.llamacpp_request(1, [10, 15, 20, 25, 30]), lf.llamacpp_request(2, [20, 10, 10, 5, 5])]))
    _read(dialog, qtbot, lambda: dialog.add_files([str(log)]))
    assert dialog.table.rowCount() == 1
    mapping = tmp_path / "tasks.csv"
    mapping.write_text("1,code\n2,prose\n")
    _read(dialog, qtbot, lambda: dialog.set_task_map(str(mapping)))
    rows = {dialog.table.item(r, 3).text(): dialog.table.item(r, 8).text() for r in range(dialog.table.rowCount())}
    assert rows == {"code": "3.50", "prose": "2.30"} and dialog.task_map_button.text() == "Task map: tasks.csv"
    mapping.write_text("1\n")  # a broken map is said in the dialog
    _read(dialog, qtbot, lambda: dialog.set_task_map(str(mapping)))
    assert "tasks.csv:1: task '1': expected a task class name" in dialog.message_label.text()


def test_enter_in_the_class_box_takes_the_class_and_opens_no_file_chooser(window, qtbot, tmp_path: Path,
                                                                         monkeypatch) -> None:  # noqa: ANN001
    # QA under Xvfb at 1366x768: typing a class and pressing Enter opened 'Add files…' (the dialog's first button
    # was Enter's default)
    from PySide6.QtWidgets import QFileDialog
    asked: list[object] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(lambda *a, **k: (asked.append(a), ([], ""))[1]))
    dialog = _dialog(window, qtbot)
    _read(dialog, qtbot, lambda: dialog.add_files([_scrape(tmp_path, "code.prom", 0.9)]))
    editor = dialog.class_combo.lineEdit()
    editor.setFocus()
    _read(dialog, qtbot, lambda: qtbot.keyClicks(editor, "json"))
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.wait(50)
    assert asked == [] and dialog.isVisible()
    assert dialog.class_combo.currentText() == "json"
    qtbot.keyClick(dialog.k_spin, Qt.Key.Key_Return)
    assert asked == [] and dialog.isVisible()


def test_the_status_line_says_a_profile_was_imported(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    # a vLLM scrape with per-position counters applies a profile: the line said 'Imported measured α'
    dialog = _dialog(window, qtbot)
    _read(dialog, qtbot, lambda: dialog.add_files([_scrape(tmp_path, "code.prom", 0.8, k=3)]))
    _read(dialog, qtbot, lambda: dialog.class_combo.setCurrentText("code"))
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    code = window.document.workbook.classes[window.document.workbook.class_index("code")]
    assert len(code.profile) == 3
    message = window.statusBar().currentMessage()
    assert message.startswith("Imported measured acceptance into 1 class (as a per-position profile).")


def test_apply_says_where_a_tier_uses_the_profile_at_another_k(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    # a K = 3 scrape onto Northwind Turbo (K = 5): its numbers there are extrapolated, and the dialog says so
    dialog = _dialog(window, qtbot)
    _read(dialog, qtbot, lambda: dialog.add_files([_scrape(tmp_path, "code.prom", 0.8, k=3)]))
    _read(dialog, qtbot, lambda: dialog.class_combo.setCurrentText("code"))
    assert dialog.apply(tier="Northwind Turbo")
    text = dialog.message_label.text()
    assert ("code on Northwind Turbo: K mismatch: measured at K = 3 in the engine's metrics, the workbook's tier has "
            "K = 5") in text and "labelled extrapolated" in text


def test_timings_as_copied_show_the_bounds_of_the_length(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    import json
    # 240 drafted, 177 accepted, 300 generated: steps at most 300 - 1 - 177 = 122, so E >= 1 + 177 / 122 = 2.45;
    # with K = 4 in the field, steps >= 60 and E <= 1 + 177 / 60 = 3.95
    path = tmp_path / "timings.json"
    path.write_text(json.dumps({"predicted_n": 300, "draft_n": 240, "draft_n_accepted": 177}))
    dialog = _dialog(window, qtbot)
    _read(dialog, qtbot, lambda: dialog.add_files([str(path)]))
    headers = [dialog.table.horizontalHeaderItem(i).text() for i in range(dialog.table.columnCount())]
    col = next(i for i, h in enumerate(headers) if "length" in h.lower() or h.startswith("AL") or h == "E")
    assert dialog.table.item(0, col).text() == "≥ 2.45"
    _read(dialog, qtbot, lambda: dialog.k_spin.setValue(4))
    assert dialog.table.item(0, col).text() == "2.45–3.95"


def test_k_per_drafter_in_the_window(window, qtbot, tmp_path: Path) -> None:  # noqa: ANN001
    from tests.model.metrics import log_files as lf
    from tests.model.metrics.test_llamacpp_formats import _stats
    path = tmp_path / "two.log"
    path.write_text("\n".join(lf.noise(10) + _stats()) + "\n")
    dialog = _dialog(window, qtbot)
    _read(dialog, qtbot, lambda: dialog.add_files([str(path)]))
    assert [s.counts.k for s in dialog.sources] == [None, None] and "draft-mtp" in dialog.message_label.text()

    def name_k(text: str) -> None:
        dialog.k_names_edit.setText(text)
        dialog.k_names_edit.editingFinished.emit()
    _read(dialog, qtbot, lambda: name_k("draft-mtp=2"))
    assert [(s.model, s.counts.k) for s in dialog.sources] == [("draft-mtp", 2), ("ngram-simple", None)]
    name_k("draft-mtp=two")
    assert "expected NAME=K" in dialog.message_label.text()


def test_a_probe_run_file_is_read_by_the_probes_reader(window, qtbot, tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    import gui.metrics.reading as reading_module  # the dialog's read (gui/metrics/reading.py)
    from model.probe import run_counts
    from tests.model.metrics.log_files import probe_run

    asked: list[str] = []

    def spy(path):  # noqa: ANN001, ANN202
        asked.append(str(path))
        return run_counts.reported_counts_steps(path)
    monkeypatch.setattr(reading_module, "reported_counts_steps", spy)
    run = tmp_path / "probe.run.jsonl"
    run.write_text(probe_run([("fast", "code", [6, 10, 12, 12]), ("fast", "prose", [30, 10, 0, 0])]), encoding="utf-8")
    dialog = _dialog(window, qtbot)
    _read(dialog, qtbot, lambda: dialog.add_files([str(run)]))
    assert asked == [str(run)]
    assert sorted(dialog.table.item(r, 3).text() for r in range(dialog.table.rowCount())) == ["code", "prose"]
    assert dialog.table.item(0, 6).text() != "–"  # K from the run's counts: alpha shown
