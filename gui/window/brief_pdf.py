"""File > Export brief as PDF…: the report's first page (model/comparison/brief.py), printed by Qt for a mail.

QTextDocument lays out the words, QPdfWriter prints them on A4; no new dependency. The PDF is made in
memory and saved through model/common/safe_files.atomic_write, so a failed save leaves no half file.
"""
from __future__ import annotations

from datetime import datetime, timezone
from html import escape
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QSizeF
from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter, QTextDocument

from model.comparison.brief import brief
from model.comparison import Comparison
from model.common.safe_files import atomic_write, check_output_target
from model.workbook.rows import Workbook

# the report's verdict colours (model/report/brief_sheet.py), so the PDF and the sheet read alike
_LOOK_COLOURS = {"gain": ("#C6EFCE", "#006100"), "marginal": ("#FFEB9C", "#9C5700"), "tax": ("#FFC7CE", "#9C0006"),
                 "undecided": ("#E4DAF4", "#4B2C83")}
_ROWS = (("Why", "why"), ("Speed", "speed"), ("Cost", "cost"), ("Ask the vendor for", "ask"))


def brief_html(wb: Workbook, cmp: Comparison, when: str) -> str:
    title = escape(wb.title or "the fast tiers")
    parts = [f"<h2 style='color:#1F3864'>Brief: {title}, in a minute</h2>",
             f"<p style='color:#595959'><i>{escape(when)}; prices in {escape(cmp.currency)}. A fast tier is worth it "
             "where its speed over the standard tier pays for its price over it, per task class of your workload. "
             "The full report (File &gt; Export to Excel) holds the numbers.</i></p>"]
    entries = brief(wb, cmp)
    if not entries:
        parts.append("<p><b>No tier runs speculative decoding in this workbook: nothing to decide.</b></p>")
    for entry in entries:
        back, fore = _LOOK_COLOURS[entry.look]
        vendor = f" ({escape(entry.vendor)})" if entry.vendor else ""
        rec = escape(entry.recommendation[:1].upper() + entry.recommendation[1:])
        rows = "".join(f"<tr><td width='22%' valign='top'><b>{label}</b></td><td>{escape(getattr(entry, name))}</td></tr>"
                       for label, name in _ROWS)
        parts.append(f"<h3 style='color:#1F3864'>{escape(entry.tier)}{vendor}</h3>"
                     f"<table width='100%' cellspacing='0' cellpadding='3'>"
                     f"<tr><td width='22%'><b>Recommendation</b></td>"
                     f"<td style='background:{back};color:{fore}'><b>{rec}</b></td></tr>{rows}</table>")
    return "".join(parts)


def brief_pdf(wb: Workbook, cmp: Comparison, when: str | None = None) -> bytes:
    """The brief as PDF bytes (A4 portrait, 15 mm margins)."""
    when = when or f"Made {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setTitle(f"SpecLedger brief: {wb.title or 'the fast tiers'}")
    writer.setCreator("SpecLedger")
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                                     QMarginsF(15, 15, 15, 15), QPageLayout.Unit.Millimeter))
    writer.setResolution(300)
    doc = QTextDocument()
    # laid out at the writer's resolution: points are points on paper (at the screen's, the text came out tiny)
    doc.documentLayout().setPaintDevice(writer)
    doc.setDefaultStyleSheet("body { font-size: 10pt; }")
    doc.setHtml(brief_html(wb, cmp, when))
    rect = writer.pageLayout().paintRectPixels(writer.resolution())
    doc.setPageSize(QSizeF(rect.width(), rect.height()))
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
