"""Open, save, recent files, the unsaved-changes prompt, drag and drop, the screenshot command."""
from __future__ import annotations

import argparse

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QFileDialog, QMessageBox

from commands.screenshot import add_screenshot_arguments, run_screenshot
from model.workbook.json_file import load_demo, load_workbook


def _edit_k(window, value="7"):
    model = window.tier_model
    assert model.setData(model.index(1, model.column_of("k")), value)
    window.document.flush()


def test_save_as_then_open(qtbot, window, tmp_path, monkeypatch):
    path = tmp_path / "mine.json"
    _edit_k(window)
    assert window.isWindowModified()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "mine"), ""))
    assert window.files.save_as()
    assert load_workbook(path).tiers[1].k == 7
    assert not window.isWindowModified() and window.windowTitle().startswith("mine.json")
    assert window.files.recent_files() == [str(path)]

    _edit_k(window, "2")
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a) or QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    window.files.open()
    assert asked and window.document.workbook.tiers[1].k == 7
    assert window.document.undo_stack.count() == 0 and not window.isWindowModified()


def test_bad_file_keeps_the_current_workbook(qtbot, window, tmp_path, monkeypatch):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "specledger-workbook", "schema_version": 1, "tiers": [{"name": "A", "k": 0}]}')
    shown = []
    monkeypatch.setattr(window.files, "_error", lambda title, exc: shown.append(str(exc)))
    _edit_k(window)
    before = window.document.workbook
    assert not window.files.open_path(str(bad), ask=False)
    assert window.document.workbook is before and window.isWindowModified()
    assert "bad.json" in shown[0] and "k" in shown[0]


def test_close_with_changes_asks(qtbot, window, tmp_path, monkeypatch):
    _edit_k(window)
    answers = [QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save]
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: answers.pop(0))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "kept.json"), ""))
    assert not window.close()  # Cancel keeps the window open
    assert window.isVisible()
    assert window.close()  # Save writes the file, then closes
    assert load_workbook(tmp_path / "kept.json").tiers[1].k == 7
    assert window.settings.value("window/geometry") is not None


def test_new_workbook_and_undo_history_reset(qtbot, window):
    _edit_k(window)
    window.document.undo_stack.setClean()
    window.files.new()
    assert window.tier_model.rowCount() == 0 and window.results_model.rowCount() == 0
    assert not window.undo_action.isEnabled()
    window.add_row()
    assert [t.name for t in window.document.workbook.tiers] == ["New tier"]


def test_drop_a_workbook_file_opens_it(qtbot, window, tmp_path):
    path = tmp_path / "dropped.json"
    window.files.save_to(str(path))
    window.files.new()
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    assert len(window.document.workbook.tiers) == 8 and window.document.path == str(path)


def test_excel_export_import_round_trip_or_clear_message(qtbot, window, tmp_path, monkeypatch):
    pytest.importorskip("openpyxl")
    out = tmp_path / "report.xlsx"
    errors = []
    monkeypatch.setattr(window.files, "_error", lambda title, exc: errors.append(f"{title}: {exc}"))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    with qtbot.waitSignal(window.tasks.finished, timeout=60_000):
        assert window.files.export_excel(), errors
    assert out.exists() and not errors
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(out), ""))
    assert window.files.import_excel(), errors
    assert [t.name for t in window.document.workbook.tiers][:2] == ["Northwind Standard", "Northwind Turbo"]
    assert window.document.path is None


def test_screenshot_command_writes_a_png(qtbot, tmp_path):
    parser = argparse.ArgumentParser()
    add_screenshot_arguments(parser)
    out = tmp_path / "shot.png"
    assert run_screenshot(parser.parse_args([str(out), "--size", "1000x700"])) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_recent_menu_and_geometry_persist(qtbot, window, settings, tmp_path):
    from gui.window.main_window import MainWindow
    from model.workbook.json_file import load_demo

    paths = []
    for name in ("a.json", "b.json"):
        paths.append(str(tmp_path / name))
        window.files.save_to(paths[-1])
    menu = window.files.recent_menu
    menu.aboutToShow.emit()
    assert [a.toolTip() for a in menu.actions()] == [paths[1], paths[0]]
    window.resize(1234, 777)
    assert window.close()
    again = MainWindow(load_demo(), None, settings)
    qtbot.addWidget(again)
    # offscreen, Qt clamps a restored geometry to its small virtual screen; what matters is
    # that the saved geometry was used instead of the first-run default of 1600 x 980
    assert again.size().width() != 1600 and again.files.recent_files()[0] == paths[1]


def test_launching_on_a_report_imports_it_as_open_does(tmp_path):
    # `specledger report.xlsx` (and screenshot) went through the JSON loader: "cannot be read (UnicodeDecodeError ...)"
    from gui.window.app import first_workbook
    from model.report.export import export_report
    from model.workbook.json_file import load_demo

    report = tmp_path / "report.xlsx"
    export_report(load_demo(), report)
    wb, opened, error = first_workbook(str(report))
    assert error == "" and wb.tiers == load_demo().tiers
    assert opened is None  # a new, unsaved workbook: Save asks where, never writes JSON over the report
    bad = tmp_path / "bad.xlsx"
    bad.write_bytes(b"not a zip")
    _wb, opened, error = first_workbook(str(bad))
    assert opened is None and "is not an Excel .xlsx file" in error


def test_excel_export_runs_on_the_worker_and_a_cancel_writes_nothing(qtbot, window, tmp_path, monkeypatch):
    from tests.bench.workbooks import large_workbook

    out = tmp_path / "big.xlsx"
    errors = []
    monkeypatch.setattr(window.files, "_error", lambda title, exc: errors.append(f"{title}: {exc}"))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    window.document.replace(large_workbook(100, 30), None)
    with qtbot.waitSignal(window.tasks.errored, timeout=60_000) as blocker:
        assert window.files.export_excel()
        assert window.tasks.is_busy()  # the window is not frozen while the report is built
        window.tasks.cancel()
    assert blocker.args == ["cancelled"]
    assert not out.exists() and list(tmp_path.iterdir()) == [] and not errors
    # the worker is free again, and a failing export says why without a class name
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "no" / "dir" / "r.xlsx"), ""))
    window.document.replace(load_demo(), None)
    with qtbot.waitSignal(window.tasks.errored, timeout=60_000):
        assert window.files.export_excel()
    assert errors and errors[0].startswith("Cannot export to Excel:") and "WorkbookError" not in errors[0]
