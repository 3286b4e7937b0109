"""The Excel report on paper: pages and text size per sheet, for the demo and a 100 x 30 workbook.

Run: python tests/bench/report_pages.py [WORKBOOK.json ...]
Exports each workbook, prints it to PDF with LibreOffice (headless; Carlito gives
it Calibri's metrics, as Excel lays the pages out) and reads the pages back with
pdftotext. Per sheet: pages, and the smallest page's text as a share of the text
on a page printed at 100% (the Sensitivity sheet), which is the print scale.
"""
from __future__ import annotations

import collections
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from model.report.export import export_report  # noqa: E402
from model.report.layout import SENSITIVITY  # noqa: E402
from model.workbook.json_file import load_demo, load_workbook  # noqa: E402
from tests.bench.workbooks import large_workbook  # noqa: E402
from tests.office import convert, printed_pages  # noqa: E402


def main() -> None:
    books = ({Path(p).stem: load_workbook(p) for p in sys.argv[1:]} if len(sys.argv) > 1 else
             {"demo": load_demo(), "100x30": large_workbook(100, 30)})
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, wb in books.items():
            export_report(wb, folder / f"{name}.xlsx")
        convert([folder / f"{name}.xlsx" for name in books], "pdf", folder, folder / "profile")
        for name in books:
            pages = printed_pages(folder / f"{name}.pdf")
            full = max(p.text_height for p in pages if p.sheet == SENSITIVITY)
            by_sheet: dict[str, list[float]] = collections.defaultdict(list)
            for page in pages:
                by_sheet[page.sheet].append(page.text_height / full)
            print(f"{name}: {len(pages)} pages; " + "; ".join(f"{sheet} {len(shares)} p at {min(shares):.0%}"
                                                          for sheet, shares in by_sheet.items()))


if __name__ == "__main__":
    main()
