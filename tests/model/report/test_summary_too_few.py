"""The Summary says where its tier verdicts rest in part on classes measured from too few requests for an
interval (the Comparison labels those rows; the Summary's verdicts are the mix's)."""
from __future__ import annotations

import io

import pytest

openpyxl = pytest.importorskip("openpyxl")

from tests.excel_cases import demo, too_few  # noqa: E402
from model.report.export import build_report  # noqa: E402
from model.report.layout import SUMMARY  # noqa: E402
from model.comparison.verdicts import TOO_FEW_LABEL  # noqa: E402


def _summary_text(wb) -> dict[str, list[str]]:
    """Column B's text on every row, by column A's."""
    data, _ = build_report(wb, "wb.json")
    ws = openpyxl.load_workbook(io.BytesIO(data))[SUMMARY]
    rows: dict[str, list[str]] = {}
    for r in range(1, ws.max_row + 1):
        if isinstance(ws.cell(r, 1).value, str):
            rows.setdefault(ws.cell(r, 1).value, []).append(str(ws.cell(r, 2).value or ""))
    return rows


def test_the_summary_names_the_classes_resting_on_too_few_requests() -> None:
    rows = _summary_text(too_few())
    assert any(label.startswith(f"Verdicts resting on {TOO_FEW_LABEL}") for label in rows)
    assert any(label.startswith("These classes were measured from fewer than 5 distinct prompts") for label in rows)
    assert "code, json" in rows["Northwind Turbo"] and "code, json" in rows["Orbital Rapid"]
    assert not any(label.startswith("Verdicts resting on") for label in _summary_text(demo()))
