"""A vendor's terms and the workload's bands through the report (export then import) and a price list."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("openpyxl")

from model.report.export import export_report  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.report.price_list import merge_rows, read_price_list  # noqa: E402
from model.workbook.json_file import load_demo  # noqa: E402
from model.workbook.validation import WorkbookError  # noqa: E402


def _with_terms():
    wb = load_demo()
    t = wb.tiers[1]
    t.price_cached_in, t.band_threshold, t.price_in_long, t.price_out_long = 0.4, 200_000, 8.0, 30.0
    t.price_cached_in_long, t.price_source = 0.8, "list prices as read 2026-12-06 from the vendor's page"
    t.downgraded_share, t.downgraded_low, t.downgraded_high, t.downgraded_requests = 0.25, 0.14, 0.4, 48
    t.sla_tokens_per_s, t.sla_share, t.sla_measured_share = 80.0, 0.99, 0.75
    t.sla_share_low, t.sla_share_high, t.sla_requests = 0.51, 0.9, 20
    wb.tiers[2].downgraded_share = 0.1  # typed: no interval
    wb.classes[0].long_share, wb.classes[0].cached_share = 0.3, 0.5
    wb.classes[1].cached_share = 0.2
    return wb


def test_terms_and_bands_survive_export_then_import(tmp_path: Path):
    wb = _with_terms()
    export_report(wb, tmp_path / "r.xlsx")
    back = import_report(tmp_path / "r.xlsx")
    assert back.tiers == wb.tiers and back.classes == wb.classes


def test_a_price_list_sets_band_prices_cached_price_and_the_sla(tmp_path: Path):
    path = tmp_path / "prices.csv"
    # by the labels the window shows, a currency in the header as price lists write it
    path.write_text('Tier,Price in /1M,Price out /1M,Price cached in (USD),Long context above (input tokens),'
                    '"Price in /1M, long","Price out /1M, long",SLA tokens/s,SLA share of requests\n'
                    "Northwind Turbo,5,30,0.5,200K,10,45,80,99%\n", encoding="utf-8")
    t = merge_rows(load_demo(), read_price_list(path, "tiers")).workbook.tiers[1]
    assert (t.price_cached_in, t.band_threshold, t.price_in_long, t.price_out_long) == (0.5, 200_000, 10.0, 45.0)
    assert (t.sla_tokens_per_s, t.sla_share) == (80.0, pytest.approx(0.99))
    # by the field names, with the prices' date and source
    path.write_text("Tier,Price in /1M,Price out /1M,price_cached_in,band_threshold,price_in_long,price_out_long,"
                    "sla_tokens_per_s,sla_share,price_source\n"
                    "Northwind Turbo,5,30,0.5,200K,10,45,80,99%,\"2026-12-06, vendor page\"\n", encoding="utf-8")
    result = merge_rows(load_demo(), read_price_list(path, "tiers"))
    t = result.workbook.tiers[1]
    assert (t.price_cached_in, t.band_threshold, t.price_in_long, t.price_out_long) == (0.5, 200_000, 10.0, 45.0)
    assert (t.sla_tokens_per_s, t.sla_share, t.price_source) == (80.0, pytest.approx(0.99), "2026-12-06, vendor page")
    assert "Long context above (input tokens)" in result.changed_columns


def test_a_price_list_with_a_threshold_but_no_long_prices_is_refused(tmp_path: Path):
    path = tmp_path / "prices.csv"
    path.write_text("Tier,band_threshold\nNorthwind Turbo,200000\n", encoding="utf-8")
    with pytest.raises(WorkbookError, match="give the prices above it too"):
        merge_rows(load_demo(), read_price_list(path, "tiers"))


def test_a_class_list_sets_the_workloads_bands_and_cache(tmp_path: Path):
    wb = load_demo()
    name = wb.classes[0].name
    path = tmp_path / "classes.csv"
    path.write_text(f"Task class,Share past the band,Cached input share\n{name},20%,0.6\n", encoding="utf-8")
    c = merge_rows(wb, read_price_list(path, "classes")).workbook.classes[0]
    assert (c.long_share, c.cached_share) == (pytest.approx(0.2), pytest.approx(0.6))
