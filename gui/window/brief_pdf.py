"""File > Export brief as PDF…: the report's first page (model/comparison/brief.py), printed by Qt for a mail.

QTextDocument lays out the words, QPdfWriter prints them on A4; no new dependency. The PDF is made in
memory and saved through model/common/safe_files.atomic_write, so a failed save leaves no half file.
"""
from __future__ import annotations

from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QSizeF
from PySide6.QtGui import QFont, QPageLayout, QPageSize, QPdfWriter, QTextDocument

from model.comparison.brief import ADVICE, FOOTNOTE, TITLE, brief
from model.comparison import Comparison
from model.common.safe_files import atomic_write, check_output_target
from model.workbook.rows import Workbook

# the report's verdict colours (model/report/brief_sheet.py), so the PDF and the sheet read alike
_LOOK_COLOURS = {"gain": ("#C6EFCE", "#006100"), "marginal": ("#FFEB9C", "#9C5700"), "tax": ("#FFC7CE", "#9C0006"),
                 "undecided": ("#E4DAF4", "#4B2C83")}
# points on paper: every line of the page at least this large (the title larger), as the Excel Brief prints; a
# brief that runs past one page is laid out again a half point smaller, down to the smallest, then with narrower
# margins (long tier and vendor names wrap their advice onto two lines: eight such tiers spilled onto a second page)
_BODY_PT, _TITLE_PT, _SMALLEST_PT = 10.0, 14.0, 9.0
_MARGINS_MM = (15.0, 10.0)


def brief_html(wb: Workbook, cmp: Comparison, when: str, title_pt: float = _TITLE_PT) -> str:
    title = escape(wb.title or "the fast tiers")
    parts = [f"<p style='color:#1F3864; font-size:{title_pt:g}pt'><b>{TITLE}: {title}</b></p>",
             f"<p style='color:#595959'><i>{escape(when)}; prices in {escape(cmp.currency)}. For each fast tier: "
             "whether to take it on your workload, its speed, its cost and the price to ask for.</i></p>"]
    entries = brief(wb, cmp)
    if not entries:
        parts.append("<p><b>No fast tier in this workbook: nothing to decide.</b></p>")
    rows = []
    for entry in entries:
        back, fore = _LOOK_COLOURS[entry.look]
        vendor = f" ({escape(entry.vendor)})" if entry.vendor else ""
        rows.append(f"<tr><td colspan='2' style='padding-top:5px'><b style='color:#1F3864'>{escape(entry.tier)}"
                    f"{vendor}</b></td></tr>"
                    f"<tr><td width='13%'><b>{ADVICE}</b></td><td style='background:{back};color:{fore}'>"
                    f"<b>{escape(entry.headline)}</b></td></tr>")
        rows += [f"<tr><td><b>{escape(label)}</b></td><td>{escape(text)}</td></tr>" for label, text in entry.lines]
    if rows:
        parts.append(f"<table width='100%' cellspacing='0' cellpadding='1'>{''.join(rows)}</table>")
    parts.append(f"<p style='color:#595959'><i>{escape(FOOTNOTE)} (File &gt; Export to Excel)</i></p>")
    return "".join(parts)


def _fitted(writer: QPdfWriter, html: Callable[[float], str]) -> QTextDocument:
    """The brief laid out on the writer's page at the largest size (and widest margins) that keeps it on one page,
    never under _SMALLEST_PT; at the smallest and narrowest it is printed as it falls."""
    sizes = [_BODY_PT - step / 2 for step in range(int((_BODY_PT - _SMALLEST_PT) * 2) + 1)]
    for margin in _MARGINS_MM:
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                                         QMarginsF(margin, margin, margin, margin), QPageLayout.Unit.Millimeter))
        rect = writer.pageLayout().paintRectPixels(writer.resolution())
        for body in sizes:
            doc = QTextDocument()
            # laid out at the writer's resolution: points are points on paper (at the screen's, the text came out tiny)
            doc.documentLayout().setPaintDevice(writer)
            font = QFont(doc.defaultFont().family())
            font.setPointSizeF(body)
            doc.setDefaultFont(font)
            doc.setHtml(html(_TITLE_PT * body / _BODY_PT))
            doc.setPageSize(QSizeF(rect.width(), rect.height()))
            if doc.pageCount() == 1:
                return doc
    return doc


def brief_pdf(wb: Workbook, cmp: Comparison, when: str | None = None) -> bytes:
    """The brief as PDF bytes (A4 portrait, 15 mm margins; smaller type, then 10 mm, where it would not fit a page)."""
    when = when or f"Made {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setTitle(f"SpecLedger brief: {wb.title or 'the fast tiers'}")
    writer.setCreator("SpecLedger")
    writer.setResolution(300)
    doc = _fitted(writer, lambda title_pt: brief_html(wb, cmp, when, title_pt))
    doc.print_(writer)
    del writer  # ends the PDF
    buffer.close()
    return bytes(data.data())


def save_brief_pdf(wb: Workbook, cmp: Comparison, path: str | Path) -> Path:
    """Saved as every export is: a FIFO, a device or a name holding NUL is refused (FileRefused), a symlink's
    target written; the path written."""
    target = check_output_target(path, "brief PDF")
    pdf = brief_pdf(wb, cmp)
    atomic_write(target, lambda tmp: Path(tmp).write_bytes(pdf))
    return target
