"""Words: one word for an impossible claim everywhere, plurals that read right, and a plain note on
the report's jargon headers."""
from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from commands.calc_compare import run_compare
from model.common import formatting as fmt
from model.workbook.json_file import load_demo, save_workbook


def _impossible(tmp_path: Path) -> Path:
    wb = load_demo()
    wb.tiers[wb.tier_index("Apex Express")].claimed_speedup = 40.0  # past K + 1 at any acceptance
    path = tmp_path / "wb.json"
    save_workbook(wb, path)
    return path


def test_counts_read_right():
    assert fmt.count(1, "class", "classes") == "1 class" and fmt.count(3, "class", "classes") == "3 classes"
    assert fmt.count(1, "request") == "1 request" and fmt.count(0, "tier") == "0 tiers"


def test_an_impossible_claim_is_out_of_reach_in_compare_and_the_report(tmp_path: Path):
    path = _impossible(tmp_path)
    out = io.StringIO()
    run_compare(argparse.Namespace(workbook=str(path), json=False, csv=False), out)
    line = next(ln for ln in out.getvalue().splitlines() if ln.startswith("Apex Express"))
    assert fmt.OUT_OF_REACH in line  # it read '–', as if there were no claim
    openpyxl = pytest.importorskip("openpyxl")
    from model.report.export import export_report
    from model.workbook.json_file import load_workbook
    export_report(load_workbook(path), tmp_path / "r.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "r.xlsx")["Summary"]
    assert any(c.value == fmt.OUT_OF_REACH for row in ws.iter_rows() for c in row)


def test_the_reports_jargon_headers_carry_a_plain_note(tmp_path: Path):
    openpyxl = pytest.importorskip("openpyxl")
    from model.report.export import export_report
    export_report(load_demo(), tmp_path / "r.xlsx")
    book = openpyxl.load_workbook(tmp_path / "r.xlsx")
    for sheet in ("Summary", "Comparison"):
        notes = {c.value: c.comment.text for row in book[sheet].iter_rows(max_row=6) for c in row if c.comment}
        assert "Grey values" in notes and "out of date" in notes["Grey values"], sheet
        assert "pays for its price" in notes["Price break-even acceptance (SpecLedger)"], sheet
    assert "claimed speedup would come true" in {c.value: c.comment.text for row in book["Summary"].iter_rows(max_row=6)
                                                 for c in row if c.comment}["Alpha the claim needs (SpecLedger)"]
