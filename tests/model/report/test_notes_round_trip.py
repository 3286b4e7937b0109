"""Notes keep their leading tabs and carriage returns through an export and an import of the report."""
from __future__ import annotations

import pytest

pytest.importorskip("openpyxl")

from model.report.export import export_report  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402


def test_leading_tabs_and_carriage_returns_in_notes_come_back(tmp_path):
    wb = load_demo()
    wb.tiers[0].notes = "\tindented: the vendor's words"
    wb.tiers[1].notes = "\rafter a carriage return\r\n\t- a list"
    wb.classes[0].source_note = "\t\tmeasured 2026-12-01"
    export_report(wb, tmp_path / "r.xlsx")
    back = import_report(tmp_path / "r.xlsx")
    assert back.tiers[0].notes == wb.tiers[0].notes
    assert back.tiers[1].notes == wb.tiers[1].notes
    assert back.classes[0].source_note == wb.classes[0].source_note
    assert back == wb
