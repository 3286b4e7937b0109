"""The Summary of eight fast tiers with long names and vendors, as LibreOffice prints it: one page wide, every
name whole, the measured-speed sentences whole on the page, and no page headed by another table's header.

Seen on a report of the demo plus four tiers named like "Quasar Hyperdrive Priority Max" from vendors like
"Apex Inference Global Partners": the Vendor column grew to 24 and the Summary printed two pages wide, its
measured-speed sentences cut at the page edge ("doubt th" | "he acceptance first"), "Quasar Hyperdrive Priorit"
and "Apex Inference Global Partner" cut, and a page of the fair prices under the tier table's header."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xlsxwriter")

from model.report.layout import SUMMARY  # noqa: E402
from tests.excel_cases import long_named  # noqa: E402
from tests.office import printed_report  # noqa: E402

pytestmark = pytest.mark.libreoffice


def test_a_summary_of_long_names_prints_one_page_wide_with_every_name_whole(tmp_path: Path):
    wb = long_named()
    summary = [p for p in printed_report(wb, tmp_path, "long") if p.sheet == SUMMARY]
    first = summary[0].text
    assert "Grey" in first and "Tier" in first, "the Summary prints more than one page wide"
    # a name wrapped in its cell reads on two lines (at a hyphen too: "Long-" then "Context")
    flat = " ".join(" ".join(p.text for p in summary).split()).replace("- ", "-")
    for tier in wb.tiers:
        assert tier.name in flat or all(word in flat for word in tier.name.split()), tier.name
    for vendor in {t.vendor for t in wb.tiers}:
        assert all(word in flat for word in vendor.split()), vendor
    for words in ("doubt the acceptance first", "measure it, then check c and v"):
        assert flat.count(words) == 2, words  # Northwind Turbo's and Apex Express's sentences, whole
    # and whole in the fair price table below it too ("Quasar Hyperdrive Priori", "Vega Swift Plus Enterprise" cut)
    words = flat.split()
    assert words.count("Priority") == 2 and words.count("Enterprise") == 2, (words.count("Priority"),
                                                                            words.count("Enterprise"))
