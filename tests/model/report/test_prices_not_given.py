"""Tiers whose list prices nobody typed (Tier.defaulted price_out, price_in) in the Excel report: no formula bills
their placeholder 0. Their Summary row reads "not given" for the monthly cost and a dash for what follows from it,
a tier priced against one has no premium, its Comparison rows a dash for the cost weights and the reason for the
value verdict, the Sensitivity sheet no cost per 1x; a price typed as 0 (a free tier) is billed as one; the import
gives the tiers back as they were (tests/model/report/test_recalc_formulas.py recalculates this report in
LibreOffice: every formula there equals compare())."""
from __future__ import annotations

from pathlib import Path

import pytest

openpyxl = pytest.importorskip("openpyxl")

from model.report.export import COMPARISON_COLUMNS, COMPARISON_HEADER_ROW, export_report  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.report.layout import COMPARISON, SENSITIVITY, SUMMARY  # noqa: E402
from model.report.summary_sheet import HEADER_ROW, SUMMARY_COLUMNS  # noqa: E402
from tests.excel_cases import prices_not_given  # noqa: E402
from tests.model.report.test_class_not_given import _rows  # noqa: E402

UNPRICED = ("Helix Standard", "Zephyr Standard", "Zephyr Fast")


def test_the_report_bills_nothing_at_prices_nobody_typed(tmp_path: Path):
    wb = prices_not_given()
    path = tmp_path / "r.xlsx"
    export_report(wb, path)
    values = openpyxl.load_workbook(path, data_only=True)
    summary = {r["Tier"]: r for r in _rows(values[SUMMARY], HEADER_ROW, SUMMARY_COLUMNS)[:len(wb.tiers)]}
    for name in UNPRICED:
        row = summary[name]
        assert row["Monthly cost"] == "not given", name
        assert row["Cost per 1x speedup"] == row["Premium over baseline"] == "–", name
    assert summary["Zephyr Fast"]["Value verdict"] == "its prices not given"
    helix_fast = summary["Helix Fast"]  # its own bill stands; nothing over a baseline nobody priced
    assert isinstance(helix_fast["Monthly cost"], float) and helix_fast["Premium over baseline"] == "–"
    assert helix_fast["Value verdict"] == "baseline Helix Standard: prices not given"
    assert summary["Zephyr Free"]["Monthly cost"] == 0  # typed free: a price
    formulas = openpyxl.load_workbook(path)
    rows = [r for r in _rows(formulas[COMPARISON], COMPARISON_HEADER_ROW, COMPARISON_COLUMNS) if r["Tier"]]
    n_c = len(wb.classes)
    for name in UNPRICED:
        block = rows[wb.tier_index(name) * n_c:(wb.tier_index(name) + 1) * n_c]
        assert {r["Cost weight on tier"] for r in block} == {"–"}, name
    zephyr = rows[wb.tier_index("Zephyr Fast") * n_c]
    assert zephyr["Value verdict"] == "prices not given" and zephyr["Speedup"] != "–"  # its speed stands
    sens = values[SENSITIVITY]
    lines = {row[0].value: [c.value for c in row] for row in sens.iter_rows() if row[0].value in UNPRICED}
    for name in UNPRICED:  # the speeds at every shift, no cost per 1x
        assert lines[name][-4:] == ["–"] * 4, lines[name]
    assert import_report(path) == wb  # what was not given comes back not given


def test_the_premium_chart_plots_no_tier_without_prices(tmp_path: Path):
    """'What the speed costs' listed Helix Fast and Zephyr Fast in its legend with no point (their premium a dash)."""
    import zipfile

    path = tmp_path / "r.xlsx"
    export_report(prices_not_given(), path)
    with zipfile.ZipFile(path) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    value = next(c for c in charts if "What the speed costs" in c)
    assert "Helix Fast" not in value and "Zephyr Fast" not in value
    assert "Northwind Turbo" in value and "Zephyr Paid" in value


def test_prices_typed_on_inputs_over_the_placeholder_import_as_given(tmp_path: Path):
    """A price typed on Inputs for a tier whose prices were not given came back still not given: the typed price
    was never billed. Typed over the placeholder 0, it is given (a 0 typed stays not given while listed)."""
    from tests.model.report.recalc_cases import edit

    src, dst = tmp_path / "r.xlsx", tmp_path / "typed.xlsx"
    export_report(prices_not_given(), src)
    edit(src, dst, [("tier", "Zephyr Standard", "price_out", 5.0), ("tier", "Zephyr Standard", "price_in", 1.0),
                    ("tier", "Zephyr Fast", "price_out", 9.0)], prices_not_given)
    back = import_report(dst)
    standard, fast = (back.tiers[back.tier_index(n)] for n in ("Zephyr Standard", "Zephyr Fast"))
    assert (standard.price_out, standard.price_in) == (5.0, 1.0) and not standard.missing_prices()
    assert "price_out" not in fast.defaulted_fields() and "price_in" in fast.defaulted_fields()
    assert fast.missing_prices()  # its input price is still the placeholder
