"""The value chart ('What the speed costs') plots each tier's Summary cells by their headers, not by fixed places:
two columns inserted before them (Mix low/high) once moved its points onto Monthly cost and an empty column, and
LibreOffice drew an empty chart with an x axis to 18,000x."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

openpyxl = pytest.importorskip("openpyxl")

from model.report.export import export_report  # noqa: E402
from model.report.layout import SUMMARY  # noqa: E402
from model.report.summary_sheet import HEADER_ROW  # noqa: E402
from tests.excel_cases import demo  # noqa: E402


def _value_chart(path: Path) -> str:
    with zipfile.ZipFile(path) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    return next(xml for xml in charts if "What the speed costs" in xml)


def test_value_chart_points_are_speedup_vs_baseline_against_premium(tmp_path: Path) -> None:
    path = tmp_path / "demo.xlsx"
    wb = demo()
    export_report(wb, path)
    ws = openpyxl.load_workbook(path)[SUMMARY]
    header = {ws.cell(HEADER_ROW, c).value: openpyxl.utils.get_column_letter(c) for c in range(1, ws.max_column + 1)}
    xml = _value_chart(path)
    series = re.findall(r"<c:ser>.*?</c:ser>", xml, re.S)
    tier_series = [s for s in series if f"{SUMMARY}!$" in s]
    assert len(tier_series) == sum(t.baseline is not None and t.baseline != "" for t in wb.tiers) > 0
    for s in tier_series:
        x = re.search(r"<c:xVal>.*?<c:f>([^<]+)</c:f>", s, re.S).group(1)
        y = re.search(r"<c:yVal>.*?<c:f>([^<]+)</c:f>", s, re.S).group(1)
        x_col, y_col = x.split("!$")[1].split("$")[0], y.split("!$")[1].split("$")[0]
        assert x_col == header["Speedup vs baseline"], (x, header)
        assert y_col == header["Premium over baseline"], (y, header)
