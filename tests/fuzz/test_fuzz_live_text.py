"""Names that look like formulas or cell references stay text wherever they go out: the Measure
panel's Copy (neutralised, one cell per name) and the report's chart titles (literal, no formula)."""
from __future__ import annotations

import io
import re
import warnings
import zipfile

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fuzz.bounds import bounded
from tests.fuzz.strategies import hostile_text

# names a spreadsheet would run or resolve: formulas, DDE, references with and without a sheet
LIVE = st.one_of(
    hostile_text(),
    st.builds(lambda sheet, col, row: f"{sheet}!{col}{row}", st.text(alphabet="AbZ =!'$", min_size=1, max_size=6),
              st.text(alphabet="ABCZ$", min_size=1, max_size=3), st.integers(0, 10**6)),
    st.sampled_from(["=HYPERLINK(\"http://x\")", "+cmd|' /C calc'!A0", "@SUM(1)", "-1+1", "\t=1", "\r=1", "a\tb"]),
)


@settings(max_examples=80, deadline=None)
@given(names=st.lists(LIVE, min_size=1, max_size=5))
def test_measure_copy_keeps_names_inert_and_in_their_cells(names: list[str]) -> None:
    from gui.sampling.results import SamplingResultsModel
    from gui.tables.spreadsheet_view import parse_tsv
    from model.common.formatting import spreadsheet_safe_text
    from tests.gui.sampling.test_speed_spread_shown import _result

    model = SamplingResultsModel()
    model.set_results([_result(task_class=n) for n in names])
    with bounded():
        rows = parse_tsv(model.as_tsv())
    assert len(rows) == 1 + len(names)
    for name, row in zip(names, rows[1:]):
        assert len(row) == model.columnCount() and row[0] == spreadsheet_safe_text(name), (name, row)


@settings(max_examples=15, deadline=None)
@given(name=st.builds(lambda sheet, col, row: f"{sheet}!{col}{row}",
                      st.text(alphabet="Tubro =$", min_size=1, max_size=6), st.sampled_from(["B", "$B", "XFD"]),
                      st.integers(1, 10**6)))
def test_chart_titles_stay_literal(name: str) -> None:
    from model.report.export import build_report
    from tests.excel_cases import demo

    wb = demo()
    wb.rename_tier(next(t.name for t in wb.tiers if t.speculative == "yes"), name.strip() or "x!B2")
    with bounded(), warnings.catch_warnings():
        warnings.simplefilter("error")
        data, _ = build_report(wb, "w.json")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for part in (n for n in z.namelist() if n.startswith("xl/charts/chart")):
            for title in re.findall(r"<c:title>.*?</c:title>", z.read(part).decode(), re.S):
                assert "<c:f>" not in title, title[:300]
