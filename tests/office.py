"""LibreOffice and poppler for the report tests: recalculate or print a report as a spreadsheet program would.

Missing, they skip the test with the package to install; with SPECLEDGER_REQUIRE_LIBREOFFICE=1 (CI) they fail it.
"""
from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest


def _tool(names: tuple[str, ...], reason: str) -> str:
    for name in names:
        exe = shutil.which(name)
        if exe:
            return exe
    if os.environ.get("SPECLEDGER_REQUIRE_LIBREOFFICE") == "1":
        pytest.fail(reason + " (SPECLEDGER_REQUIRE_LIBREOFFICE=1 makes this a failure)")
    pytest.skip(reason)


def soffice() -> str:
    return _tool(("soffice", "libreoffice"), "LibreOffice (soffice) is not installed; install "
                 "libreoffice-calc-nogui to recalculate the report")


def pdftotext() -> str:
    return _tool(("pdftotext",), "pdftotext (poppler-utils) is not installed; it reads the printed pages")


def calibri_metrics() -> None:
    """The report is laid out in Calibri, Excel's default; LibreOffice prints it at Excel's scale only with a
    font of the same metrics (Carlito). With a wider stand-in every sheet prints smaller than in Excel."""
    match = subprocess.run(["fc-match", "Calibri"], capture_output=True, text=True).stdout if shutil.which(
        "fc-match") else ""
    if "Carlito" not in match:
        reason = f"no font with Calibri's metrics (fc-match Calibri: {match.strip() or 'none'}); install fonts-crosextra-carlito"
        if os.environ.get("SPECLEDGER_REQUIRE_LIBREOFFICE") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


def convert(files: list[Path], to: str, outdir: Path, profile: Path) -> subprocess.CompletedProcess:
    """One LibreOffice run converting every file (to 'xlsx' recalculates, to 'pdf' prints), in its own profile."""
    cmd = [soffice(), f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore",
           "--convert-to", to, "--outdir", str(outdir), *map(str, files)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=240)


@dataclass(frozen=True)
class Page:
    sheet: str  # the sheet's name, from the page header's right end
    text: str
    text_height: float  # the median height of the page's words, in points: how large its text prints


def printed_pages(pdf: Path) -> list[Page]:
    """Every page of a printed report, with the sheet it comes from and how large its text is."""
    exe = pdftotext()
    texts = subprocess.run([exe, "-layout", str(pdf), "-"], capture_output=True, text=True,
                           timeout=120).stdout.split("\f")
    boxes = subprocess.run([exe, "-bbox", str(pdf), "-"], capture_output=True, text=True,
                           timeout=120).stdout.split("<page ")[1:]
    pages = []
    for text, box in zip(texts, boxes):
        heights = [float(b) - float(a) for a, b in re.findall(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)"', box)]
        first = next((line for line in text.splitlines() if line.strip()), "")
        pages.append(Page(first.split()[-1] if first else "", text, statistics.median(heights) if heights else 0.0))
    return pages


def printed_report(wb: Any, folder: Path, name: str) -> list[Page]:
    """The pages of `wb`'s report as LibreOffice prints it (Calibri's metrics required), written in `folder`."""
    from model.report.export import export_report

    calibri_metrics()
    xlsx = folder / f"{name}.xlsx"
    export_report(wb, xlsx, f"{name}.json")
    run = convert([xlsx], "pdf", folder, folder / "lo_profile")
    assert (folder / f"{name}.pdf").exists(), f"LibreOffice did not print {name}: {run.stderr}"
    return printed_pages(folder / f"{name}.pdf")
