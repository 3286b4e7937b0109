"""File > Export brief as PDF…: the report's first page, printed by Qt, one A4 page for the demo."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def test_the_file_menu_exports_the_brief_as_one_pdf_page(window, tmp_path: Path):
    menu = window.menuBar().actions()[0].menu()
    assert any(a.text() == "Export &brief as PDF…" for a in menu.actions())
    out = tmp_path / "brief"
    assert window.files.export_brief_pdf(str(out))
    pdf = tmp_path / "brief.pdf"
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and b"SpecLedger brief" in data
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) not installed: the PDF's text is not read back")
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, timeout=60).stdout
    assert text.count("\f") <= 1  # one page
    for words in ("Advice", "Orbital Rapid (Orbital Labs)", "Take it", "Ask for", "Take it only for code"):
        assert words in text, words
    assert list(tmp_path.iterdir()) == [pdf]  # saved atomically: no temporary file left beside it


@pytest.mark.parametrize("kind", ["fifo", "nul"])
def test_the_brief_is_refused_where_no_file_can_be_saved_as_every_export_is(window, tmp_path: Path, monkeypatch, kind):
    import os
    import stat

    errors: list[str] = []
    monkeypatch.setattr(window.files, "_error", lambda title, exc: errors.append(f"{title}: {exc}"))
    if kind == "fifo":
        target = tmp_path / "pipe.pdf"
        os.mkfifo(target)
    else:
        target = tmp_path / "a\x00b.pdf"
    assert window.files.export_brief_pdf(str(target)) is False
    assert len(errors) == 1 and errors[0].startswith("Cannot export the brief") and "\n" not in errors[0], errors
    if kind == "fifo":
        assert stat.S_ISFIFO(os.lstat(target).st_mode)  # still a FIFO, not replaced by a plain file
        assert "FIFO" in errors[0] or "fifo" in errors[0].lower()
