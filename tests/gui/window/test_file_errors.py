"""Damaged files given to every file action: one line in a dialog, the open workbook kept, nothing out of a slot."""
from __future__ import annotations

import zipfile

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QFileDialog

from gui.window.app import first_workbook
from model.report.export import export_report
from model.workbook.json_file import load_demo


@pytest.fixture(scope="module")
def good_xlsx(tmp_path_factory):
    path = tmp_path_factory.mktemp("xlsx") / "good.xlsx"
    export_report(load_demo(), path)
    return path


def _rezip(src, dst, change):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = change(item.filename, zin.read(item.filename))
            if data is not None:
                zout.writestr(item, data)
    return dst


def _damaged(kind: str, good, tmp_path):
    if kind == "bit-flipped zip":
        # flipped inside every worksheet's compressed data, so the damage hits the sheet an import reads
        # (wherever the writer happens to put it in the file)
        data = bytearray(good.read_bytes())
        with zipfile.ZipFile(good) as z:
            entries = [i for i in z.infolist() if i.filename.startswith("xl/worksheets/sheet")]
        for info in entries:
            at = info.header_offset
            start = at + 30 + int.from_bytes(data[at + 26:at + 28], "little") + int.from_bytes(data[at + 28:at + 30], "little")
            middle = start + info.compress_size // 2
            for i in range(middle, min(middle + 16, start + info.compress_size)):
                data[i] ^= 0xFF
        path = tmp_path / "flipped.xlsx"
        path.write_bytes(bytes(data))
        return path
    if kind == "missing styles.xml":
        return _rezip(good, tmp_path / "nostyles.xlsx", lambda name, data: None if name == "xl/styles.xml" else data)
    if kind == "bad XML":
        return _rezip(good, tmp_path / "badxml.xlsx",
                      lambda name, data: b"<workbook><sheets" if name == "xl/workbook.xml" else data)
    if kind == "not a zip":
        path = tmp_path / "text.xlsx"
        path.write_text("Tier,K\nA,4\n")
        return path
    raise AssertionError(kind)


KINDS = ["bit-flipped zip", "missing styles.xml", "bad XML", "not a zip"]


@pytest.fixture
def shown(window, monkeypatch):
    # the dialog itself (a modal QMessageBox) would block; what it would say is recorded instead
    said: list[tuple[str, str]] = []
    real = window.files._error

    def record(title, exc):
        from model.common.messages import one_line, worded

        said.append((title, one_line(worded(exc))))
    monkeypatch.setattr(window.files, "_error", record)
    assert real  # the real one is exercised by test_error_dialog_text_is_one_line
    return said


def _assert_refused(window, shown, before, result):
    assert result is False
    assert window.document.workbook is before
    assert len(shown) == 1
    title, text = shown[0]
    assert title.startswith("Cannot") and text and "\n" not in text


@pytest.mark.parametrize("kind", KINDS)
def test_open_keeps_the_workbook(window, shown, good_xlsx, tmp_path, kind):
    before = window.document.workbook
    _assert_refused(window, shown, before, window.files.open_path(str(_damaged(kind, good_xlsx, tmp_path)), ask=False))


@pytest.mark.parametrize("kind", KINDS)
def test_import_from_excel_keeps_the_workbook(window, shown, good_xlsx, tmp_path, monkeypatch, kind):
    path = _damaged(kind, good_xlsx, tmp_path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    before = window.document.workbook
    _assert_refused(window, shown, before, window.files.import_excel())


@pytest.mark.parametrize("kind", KINDS)
def test_import_tiers_keeps_the_workbook(window, shown, good_xlsx, tmp_path, monkeypatch, kind):
    path = _damaged(kind, good_xlsx, tmp_path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    before = window.document.workbook
    _assert_refused(window, shown, before, window.files.import_rows("tiers"))
    assert window.document.undo_stack.count() == 0


def test_csv_field_over_128_kb_is_refused_in_one_line(window, shown, tmp_path):
    path = tmp_path / "huge.csv"
    path.write_text("Tier,K\n\"" + "x" * 200_000 + "\",4\n")
    before = window.document.workbook
    _assert_refused(window, shown, before, window.files.import_rows_path(str(path), "classes"))


@pytest.mark.parametrize("kind", KINDS)
def test_dropped_damaged_file_keeps_the_workbook(qtbot, window, shown, good_xlsx, tmp_path, kind):
    path = _damaged(kind, good_xlsx, tmp_path)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    before = window.document.workbook
    window.dropEvent(event)
    assert window.document.workbook is before and len(shown) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_first_workbook_opens_the_demo_and_says_why(good_xlsx, tmp_path, kind):
    workbook, opened, error = first_workbook(str(_damaged(kind, good_xlsx, tmp_path)))
    assert opened is None and workbook.tiers and error and "\n" not in error


def test_error_dialog_text_is_one_line(window, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    texts = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: texts.append(box.text()) or 0)
    window.files._error("Cannot open workbook", OSError(40, "Too many levels of symbolic links", "loop.json"))
    assert texts == ["loop.json: a symbolic link loop (the link points back to itself)"]


def test_ctrl_d_on_a_tier_with_a_long_name_duplicates_with_a_valid_name(qtbot, window):
    from model.workbook.validation import check_workbook

    model = window.tier_model
    long_name = "N" * 199
    assert model.setData(model.index(0, model.column_of("name")), long_name)
    window.document.flush()
    window.input_tabs.setCurrentWidget(window.tier_view)
    window.tier_view.setFocus()
    n = len(window.document.workbook.tiers)
    for _ in range(2):  # the second copy needs a number as well
        window.tier_view.select_block(0, 0, 0, 0)
        qtbot.keyClick(window.tier_view, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
        window.document.flush()
    tiers = window.document.workbook.tiers
    assert len(tiers) == n + 2
    copies = [t.name for t in tiers if t.name != long_name and t.name.startswith("NNN")]
    assert len(copies) == 2 and all(len(c) <= 200 for c in copies)
    assert copies[0].endswith("(copy)") or copies[1].endswith("(copy)")
    check_workbook(window.document.workbook)  # the one validator takes the result whole


def test_a_refused_row_edit_is_a_message_not_an_exception(window, monkeypatch):
    from model.workbook import row_edits
    from model.workbook.validation import ValidationError

    def refuse(*_a):
        raise ValidationError("Tier 'X': Name is longer than 200 characters")

    monkeypatch.setattr(row_edits, "duplicate_rows", refuse)
    before = window.document.workbook
    window.tier_view.setCurrentIndex(window.tier_model.index(0, 0))
    window.duplicate_rows()
    assert window.document.workbook is before
    assert "longer than 200" in window.statusBar().currentMessage()
