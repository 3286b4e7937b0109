"""Export then import keeps every tier field, also those not on Inputs: the probe's endpoint, the
measured speedup and its note, the load. Before, an import gave them their defaults."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("openpyxl")

from model.report.export import export_report  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.report.kept_fields import kept_specs  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from model.workbook.validation import WorkbookError  # noqa: E402


def _probed():
    wb = load_demo()
    t = wb.tiers[1]
    t.endpoint_url, t.endpoint_model, t.api_key_env = "https://api.example.test/v1", "turbo-1", "NORTHWIND_KEY"
    t.keyring_service, t.keyring_user, t.extra_body = "", "", '{"service_tier":"priority"}'  # as the validator keeps it
    t.measured_speedup, t.measured_note = 2.32, "probed 2026-11-30 at 4K, against Northwind Standard"
    wb.tiers[3].keyring_service, wb.tiers[3].keyring_user = "helix", "analyst"
    return wb


def test_every_tier_field_survives_export_then_import(tmp_path: Path):
    wb = _probed()
    export_report(wb, tmp_path / "r.xlsx")
    back = import_report(tmp_path / "r.xlsx")
    assert {s.name for s in kept_specs()} >= {"endpoint_url", "measured_speedup", "measured_note", "extra_body"}
    assert back.tiers == wb.tiers  # every field, Inputs' and the kept ones


def test_a_tier_renamed_on_inputs_keeps_its_fields(tmp_path: Path):
    import openpyxl
    from model.report.layout import INPUTS
    wb = _probed()
    export_report(wb, tmp_path / "r.xlsx")
    book = openpyxl.load_workbook(tmp_path / "r.xlsx")
    ws = book[INPUTS]
    cell = next(c for row in ws.iter_rows() for c in row if c.value == "Northwind Turbo")
    cell.value = "Northwind Turbo 2"
    book.save(tmp_path / "renamed.xlsx")
    back = import_report(tmp_path / "renamed.xlsx")
    tier = back.tiers[back.tier_index("Northwind Turbo 2")]
    assert tier.measured_speedup == 2.32 and tier.endpoint_model == "turbo-1"


def test_a_kept_value_the_validator_refuses_is_named_by_its_cell(tmp_path: Path):
    import openpyxl
    from model.report.layout import NOTES
    export_report(_probed(), tmp_path / "r.xlsx")
    book = openpyxl.load_workbook(tmp_path / "r.xlsx")
    ws = book[NOTES]
    cell = next(c for row in ws.iter_rows() for c in row if c.value == "NORTHWIND_KEY")
    cell.value = "sk-not a name"
    book.save(tmp_path / "bad.xlsx")
    with pytest.raises(WorkbookError, match=f"sheet {NOTES}, cell {cell.coordinate}"):
        import_report(tmp_path / "bad.xlsx")
