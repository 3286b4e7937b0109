"""The Summary running past one page down, as LibreOffice prints it: each page's header belongs to the table under
it. Seen with sixteen tiers: the tier table's header row, repeated as the sheet's print title, headed the page that
carried on the fair prices ("Claimed speedup ... Monthly cost" over "1.04x $14.62 $3.66 ... α 64.1%")."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

pytest.importorskip("xlsxwriter")

from model.report.export import export_report  # noqa: E402
from model.report.layout import SUMMARY  # noqa: E402
from model.report.summary_sheet import HEADER_ROW  # noqa: E402
from model.workbook.rows import Workbook  # noqa: E402
from tests.bench.workbooks import large_workbook  # noqa: E402
from tests.excel_cases import demo, long_named  # noqa: E402
from tests.office import printed_report  # noqa: E402


def _sixteen_tiers() -> Workbook:
    """The eight long-named fast tiers and four more copies: the Summary's tables run to a second page."""
    wb = long_named()
    for n, t in enumerate([t for t in wb.tiers if t.speculative != "no"][:4]):
        extra = copy.deepcopy(t)
        extra.renew_identity()
        extra.name = f"Extra {n} {t.name}"
        wb.tiers.append(extra)
    return wb


def _fair_heading_row(ws) -> int:
    return next(r for r in range(1, ws.max_row + 1) if str(ws.cell(r, 1).value or "").startswith("Fair price:"))


def test_the_summary_repeats_no_header_and_breaks_before_a_fair_price_table_that_would_run_over(tmp_path: Path):
    openpyxl = pytest.importorskip("openpyxl")
    for name, wb in (("long", _sixteen_tiers()), ("demo", demo())):
        export_report(wb, tmp_path / f"{name}.xlsx", f"{name}.json")
        ws = openpyxl.load_workbook(tmp_path / f"{name}.xlsx")[SUMMARY]
        assert not ws.print_title_rows, (name, ws.print_title_rows)
        breaks = [b.id for b in ws.row_breaks.brk]
        # the demo fits one page: no break; the long book's fair prices start a page of their own
        assert breaks == ([_fair_heading_row(ws) - 1] if name == "long" else []), (name, breaks)


def test_a_tier_table_longer_than_a_page_repeats_its_header(tmp_path: Path):
    openpyxl = pytest.importorskip("openpyxl")
    export_report(large_workbook(70, 3), tmp_path / "many.xlsx", "many.json")
    ws = openpyxl.load_workbook(tmp_path / "many.xlsx")[SUMMARY]
    assert ws.print_title_rows == f"${HEADER_ROW}:${HEADER_ROW}", ws.print_title_rows


@pytest.mark.libreoffice
def test_every_printed_summary_page_is_headed_by_its_own_table(tmp_path: Path):
    wb = _sixteen_tiers()
    summary = [p for p in printed_report(wb, tmp_path, "sixteen") if p.sheet == SUMMARY]
    assert len(summary) >= 2, "the case no longer runs past one page"
    assert "Claimed" in summary[0].text and "Fair price factor" not in summary[0].text
    for n, page in enumerate(summary[1:], 2):
        assert "Claimed" not in page.text, f"Summary page {n} headed by the tier table's header"
    fair = [p for p in summary if "$" in p.text and "Fair price factor" in p.text]
    assert len(fair) == 1, "the fair-price table split over pages or without its header"
    flat = " ".join(fair[0].text.split())
    assert all(t.name.split()[0] in flat for t in wb.tiers if t.speculative != "no")
