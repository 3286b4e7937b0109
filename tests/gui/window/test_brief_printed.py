"""The brief as a person checks it: printed by LibreOffice from the Excel report and by Qt (File > Export brief as
PDF…), each turned into an image and its text and fonts read back. For eight fast tiers both are one portrait A4
page with no text under 9 points (the Excel Brief printed landscape at about 5.5 points; Qt's ran to two pages
with a tier split across the break)."""
from __future__ import annotations

import copy
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gui.window.brief_pdf import brief_pdf
from model.comparison import compare
from model.comparison.brief import brief
from model.report.export import export_report
from model.workbook.json_file import load_demo
from tests.excel_cases import long_named
from tests.office import calibri_metrics, convert, printed_pages, soffice

SMALLEST_PT = 9.0


def eight_fast_tiers():
    """The demo's four fast tiers and four more with longer names, one measured off the model's speed."""
    wb = load_demo()
    fast = [t for t in wb.tiers if t.speculative != "no"]
    for n, t in enumerate(fast):
        extra = copy.deepcopy(t)
        extra.renew_identity()
        extra.name, extra.vendor = f"{t.name} Enterprise {n}", f"{t.vendor} International"
        extra.price_out *= 1.1 + 0.1 * n
        wb.tiers.append(extra)
    turbo = wb.tiers[wb.tier_index("Northwind Turbo")]
    turbo.measured_speedup, turbo.measured_note = 2.65, "probed 2026-12-02 at 4K, against Northwind Standard"
    return wb


def _tool(name: str) -> str:
    exe = shutil.which(name)
    if exe is None:
        pytest.skip(f"{name} (poppler-utils) is not installed: the printed page is not read back")
    return exe


def font_sizes(pdf: Path, first: int, last: int) -> list[float]:
    """Every font size printed on pages first..last, in points (pdftohtml's, at half-point resolution)."""
    xml = subprocess.run([_tool("pdftohtml"), "-xml", "-i", "-zoom", "2", "-f", str(first), "-l", str(last),
                          "-stdout", str(pdf)], capture_output=True, text=True, timeout=120).stdout
    return [int(size) / 2 for size in re.findall(r'<fontspec id="\d+" size="(\d+)"', xml)]


def as_image(pdf: Path, page: int, out: Path) -> Path:
    """The page as a PNG, as a person would look at it (kept beside the PDF)."""
    subprocess.run([_tool("pdftoppm"), "-r", "60", "-png", "-f", str(page), "-l", str(page), str(pdf),
                    str(out)], check=True, timeout=120)
    return next(out.parent.glob(f"{out.name}*.png"))


@pytest.mark.parametrize("workbook", [eight_fast_tiers, long_named])
def test_qt_prints_eight_fast_tiers_on_one_page_at_9_points_or_more(qapp, tmp_path: Path, workbook):
    wb = workbook()
    assert len(brief(wb, compare(wb))) == 8
    pdf = tmp_path / "brief.pdf"
    pdf.write_bytes(brief_pdf(wb, compare(wb)))
    text = subprocess.run([_tool("pdftotext"), "-layout", str(pdf), "-"], capture_output=True, text=True,
                          timeout=60).stdout
    assert text.count("\f") == 1, "more than one page"  # pdftotext ends each page with a form feed
    for entry in brief(wb, compare(wb)):
        assert entry.tier in text
    sizes = font_sizes(pdf, 1, 1)
    assert sizes and min(sizes) >= SMALLEST_PT, sizes
    assert as_image(pdf, 1, tmp_path / "qt").stat().st_size > 10_000  # a page with text on it, not a blank


def test_libreoffice_prints_the_excel_brief_on_one_portrait_page_at_9_points_or_more(tmp_path: Path):
    soffice()
    calibri_metrics()
    wb = eight_fast_tiers()
    xlsx = tmp_path / "report.xlsx"
    export_report(wb, xlsx)
    run = convert([xlsx], "pdf", tmp_path, tmp_path / "lo_profile")
    pdf = tmp_path / "report.pdf"
    assert pdf.exists(), run.stderr
    pages = printed_pages(pdf)
    brief_pages = [n for n, p in enumerate(pages, 1) if p.sheet == "Brief"]
    assert brief_pages == [1], [p.sheet for p in pages[:3]]
    for entry in brief(wb, compare(wb)):
        assert f"{entry.tier} ({entry.vendor})" in pages[0].text
    info = subprocess.run([_tool("pdfinfo"), "-f", "1", "-l", "1", str(pdf)], capture_output=True, text=True,
                          timeout=60).stdout
    width, height = (float(x) for x in re.search(r"Page\s+1 size:\s+([\d.]+) x ([\d.]+)", info).groups())
    assert height > width, "the Brief prints landscape"
    sizes = font_sizes(pdf, 1, 1)
    assert sizes and min(sizes) >= SMALLEST_PT, sizes
    assert as_image(pdf, 1, tmp_path / "lo").stat().st_size > 10_000
