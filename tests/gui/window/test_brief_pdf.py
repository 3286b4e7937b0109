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
    for words in ("Recommendation", "Orbital Rapid (Orbital Labs)", "Take it", "Ask the vendor for",
                  "Take it only for these classes"):
        assert words in text, words
    assert list(tmp_path.iterdir()) == [pdf]  # saved atomically: no temporary file left beside it
