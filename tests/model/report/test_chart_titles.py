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
