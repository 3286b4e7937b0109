"""Chart titles are literal text: a tier named like a cell reference never turns one into a formula."""
from __future__ import annotations

import io
import re
import warnings
import zipfile

import pytest

pytest.importorskip("xlsxwriter")

from model.report.export import build_report  # noqa: E402
from tests.excel_cases import demo  # noqa: E402


@pytest.mark.parametrize("name", ["Turbo!B2", "=Sheet1!$A$1", "x!ZZ99 fast"])
def test_a_tier_named_like_a_cell_reference_stays_literal_in_chart_titles(name: str, capfd) -> None:
    wb = demo()
    speculative = next(t.name for t in wb.tiers if t.speculative == "yes")
    wb.rename_tier(speculative, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data, _ = build_report(wb, "w.json")
    out, err = capfd.readouterr()
    assert "Unknown worksheet" not in out + err and name not in out + err, out + err
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    titles = [t for c in charts for t in re.findall(r"<c:title>.*?</c:title>", c, re.S)]
    assert titles
    for t in titles:
        assert "<c:f>" not in t, t[:300]
    escaped = name.replace("&", "&amp;").replace("<", "&lt;")
    assert any(f"Speedup against context: {escaped}" in t for t in titles)


def test_the_trailer_fill_axis_stops_at_100_percent() -> None:
    """A share of the trailer cannot pass 100%; LibreOffice scaled the 12 x 30 report's axis to 120%."""
    with zipfile.ZipFile(io.BytesIO(build_report(demo(), "w.json")[0])) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    fill = [c for c in charts if "Accepted / drafted" in c]
    assert len(fill) == 1
    value_axis = re.search(r"<c:valAx>.*?</c:valAx>", fill[0], re.S).group(0)
    assert '<c:max val="1"/>' in value_axis and '<c:min val="0"/>' in value_axis
