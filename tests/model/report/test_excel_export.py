"""The report's shape and safety: sheets, tables, formats, charts, inert user text, atomic writes."""
from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

import pytest

openpyxl = pytest.importorskip("openpyxl")

import numpy as np  # noqa: E402

from model.comparison import compare  # noqa: E402
from model.curves import CONTEXT_GRID, context_curves  # noqa: E402
from model.report.export import build_report, export_report  # noqa: E402
from model.report.layout import COMPARISON, CURVES, INPUTS, SUMMARY  # noqa: E402
from model.workbook.validation import WorkbookError  # noqa: E402
from tests.excel_cases import INJECTIONS, demo, edge_workbook  # noqa: E402


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "demo.xlsx"
    export_report(demo(), path, "demo_workbook.json")
    return path


@pytest.fixture(scope="module")
def edge_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report") / "edge.xlsx"
    export_report(edge_workbook(), path, INJECTIONS[1])
    return path


def test_sheets_tables_and_frozen_headers(demo_report):
    book = openpyxl.load_workbook(demo_report)
    assert book.sheetnames == [SUMMARY, COMPARISON, INPUTS, CURVES]
    tables = {name for ws in book.worksheets for name in ws.tables}
    assert {"SummaryTable", "ComparisonTable", "Tiers", "TaskClasses", "Overrides"} <= tables
    for name in (SUMMARY, COMPARISON, CURVES):
        assert book[name].freeze_panes, f"{name} has no frozen header"
    assert book[COMPARISON].column_dimensions["A"].width >= 20


def test_number_formats_and_verdict_colours(demo_report):
    book = openpyxl.load_workbook(demo_report)
    cmp_ws = book[COMPARISON]
    header = {cmp_ws.cell(4, c).value: c for c in range(1, cmp_ws.max_column + 1)}
    row = 5
    assert cmp_ws.cell(row, header["Acceptance alpha"]).number_format == "0.0%"
    assert cmp_ws.cell(row, header["Speedup"]).number_format == '0.00"x"'
    summary = book[SUMMARY]
    cost = next(c for row in summary.iter_rows() for c in row if c.value == "Monthly cost")
    assert summary.cell(cost.row + 1, cost.column).number_format.startswith('"$"')
    rules = [r for rng in cmp_ws.conditional_formatting for r in rng.rules]
    assert {tuple(r.formula) for r in rules} >= {('"gain"',), ('"marginal"',), ('"tax"',)}


def test_native_charts_reference_cells(demo_report):
    n_spec = sum(t.speculative != "no" for t in demo().tiers)
    with zipfile.ZipFile(demo_report) as z:
        charts = [n for n in z.namelist() if n.startswith("xl/charts/chart")]
        assert len(charts) == 2 + n_spec  # acceptance and trailer fill on Summary, one context chart per tier
        xml = "".join(z.read(n).decode() for n in charts)
    assert "<scatterChart>" in xml and "<barChart>" in xml
    assert "'Curves'!$" in xml  # series are ranges on the Curves sheet, not pasted numbers
    assert xml.count('<logBase val="2"') == n_spec  # context on a log axis, as in the app


def _context_blocks(ws) -> dict[str, int]:
    """Tier name -> header row of its block in the Curves sheet's context section."""
    return {ws.cell(r - 1, 1).value: r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "Context (tokens)"}


def test_curves_sheet_has_speedup_against_context_per_tier(demo_report):
    """One block per speculative tier: the app's context grid down, classes across, what the app draws."""
    wb = demo()
    cmp = compare(wb)
    ws = openpyxl.load_workbook(demo_report)[CURVES]
    _, expected = build_report(wb)
    blocks = _context_blocks(ws)
    spec = [i for i, t in enumerate(wb.tiers) if t.speculative != "no"]
    assert list(blocks) == [wb.tiers[i].name for i in spec]
    for i in spec:
        tier, header = wb.tiers[i], blocks[wb.tiers[i].name]
        n_c = len(wb.classes)
        assert [ws.cell(header, 4 + j).value for j in range(n_c + 1)] == [c.name for c in wb.classes] + ["Break-even (1.0x)"]
        assert {ws.cell(header + 1 + n, 4 + n_c).value for n in range(len(CONTEXT_GRID))} == {1.0}
        grid = [ws.cell(header + 1 + n, 1).value for n in range(len(CONTEXT_GRID))]
        np.testing.assert_allclose(grid, CONTEXT_GRID, rtol=1e-15)  # as written to XML
        assert ws.cell(header + 1 + len(CONTEXT_GRID), 1).value is None  # the block ends with the grid
        want = context_curves(tier, cmp.alpha[i])
        got = np.array([[expected[(CURVES, ws.cell(header + 1 + n, 4 + j).coordinate)] for n in range(len(CONTEXT_GRID))]
                        for j in range(len(wb.classes))])
        np.testing.assert_allclose(got, want, rtol=1e-12)
        first = ws.cell(header + 1, 4)
        assert first.data_type == "f" and first.value.startswith(f"={COMPARISON}!") and first.number_format == '0.00"x"'
        c_cell = ws.cell(header + 1, 2)
        if tier.cost_model == "roofline":  # no closed form: SpecLedger's number, grey
            assert isinstance(c_cell.value, float) and c_cell.fill.fgColor.rgb.endswith("E7E6E6")
            assert "SpecLedger" in ws.cell(header - 1, 5).value
            assert want[0, 0] > want[0, -1]  # the roofline's point: longer context, less speedup
        else:  # typed c and v follow Inputs and do not move with the context
            assert c_cell.data_type == "f" and c_cell.value.startswith(f"={INPUTS}!")
            np.testing.assert_allclose(want, want[:, :1] * np.ones_like(want))
        assert ws.cell(header - 1, 3).value.startswith(f"={INPUTS}!")  # K


def test_every_formula_has_a_checked_value_and_no_user_text():
    for wb in (demo(), edge_workbook()):
        book, expected = build_report(wb)
        formulas = [(ws.title, c) for ws in book.worksheets for row in ws.iter_rows() for c in row if c.data_type == "f"]
        assert {(t, c.coordinate) for t, c in formulas} == set(expected)
        names = [t.name for t in wb.tiers] + [c.name for c in wb.classes]
        for _, cell in formulas:
            assert not any(name in cell.value for name in names if len(name) > 3), cell.value


def test_user_text_is_never_a_formula(edge_report):
    """Hostile names stay strings in the XML: no <f> element carries them, and they read back verbatim."""
    with zipfile.ZipFile(edge_report) as z:
        sheets = {n: z.read(n).decode() for n in z.namelist() if n.startswith("xl/worksheets/sheet")}
        shared = z.read("xl/sharedStrings.xml").decode() if "xl/sharedStrings.xml" in z.namelist() else ""
    formulas = [f for xml in sheets.values() for f in re.findall(r"<f>(.*?)</f>", xml)]
    assert formulas, "the report should have formulas"
    for text in INJECTIONS:
        escaped = text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
        assert not any(text in f or escaped in f for f in formulas), text
        assert escaped in shared or any(escaped in xml or text in xml for xml in sheets.values())
    book = openpyxl.load_workbook(edge_report)
    inputs = book[INPUTS]
    found = {c.value: c for row in inputs.iter_rows() for c in row if isinstance(c.value, str)}
    for text in INJECTIONS:
        assert text in found, text
        assert found[text].data_type == "s"


def test_write_failure_leaves_existing_file_intact(tmp_path, monkeypatch):
    target = tmp_path / "report.xlsx"
    target.write_bytes(b"the analyst's previous report")

    def broken_save(self, filename):
        Path(filename).write_bytes(b"half a zip")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("openpyxl.workbook.workbook.Workbook.save", broken_save)
    with pytest.raises(WorkbookError, match="cannot be written.*No space left"):
        export_report(demo(), target)
    assert target.read_bytes() == b"the analyst's previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.xlsx"]  # no temporary file left behind


def test_open_elsewhere_or_unwritable_target_is_refused(tmp_path):
    target = tmp_path / "report.xlsx"
    target.write_bytes(b"old")
    lock = tmp_path / ".~lock.report.xlsx#"
    lock.write_text("someone,host,...")
    with pytest.raises(WorkbookError, match="open in another program"):
        export_report(demo(), target)
    assert target.read_bytes() == b"old"
    lock.unlink()
    with pytest.raises(WorkbookError, match="cannot be written"):
        export_report(demo(), tmp_path / "no such folder" / "report.xlsx")
    with pytest.raises(WorkbookError, match="is a folder"):
        export_report(demo(), tmp_path)
    if os.geteuid() != 0:  # root writes anywhere, so this part only means something for a normal user
        ro = tmp_path / "ro"
        ro.mkdir()
        (ro / "report.xlsx").write_bytes(b"old")
        ro.chmod(0o500)
        try:
            with pytest.raises(WorkbookError, match="cannot be written"):
                export_report(demo(), ro / "report.xlsx")
            assert (ro / "report.xlsx").read_bytes() == b"old"
        finally:
            ro.chmod(0o700)


def test_invalid_workbook_is_refused_before_writing(tmp_path):
    wb = demo()
    wb.tiers[0].k = 0
    with pytest.raises(WorkbookError, match="K"):
        export_report(wb, tmp_path / "r.xlsx")
    assert not (tmp_path / "r.xlsx").exists()


def test_empty_workbook_exports(tmp_path):
    from model.workbook.rows import Workbook

    export_report(Workbook(), tmp_path / "empty.xlsx")
    assert openpyxl.load_workbook(tmp_path / "empty.xlsx").sheetnames[0] == SUMMARY


def test_direct_cell_writes_equal_openpyxl_public_api():
    """put_value and put_formula skip openpyxl's setter for speed; the cells must be what the setter makes."""
    from openpyxl import Workbook as Book

    from model.report import styles as st

    ours, theirs = Book().active, Book().active
    values = [0.25, 3, -1e300, float("nan"), None, True, np.float64(0.5), "=A1*2"]
    for col, value in enumerate(values, start=1):
        if isinstance(value, str):
            st.put_formula(ours, 7, col, value, st.TIMES)
        else:
            st.put_value(ours, 7, col, value, st.PERCENT, computed=True)
        theirs.cell(7, col).value = value
    assert ours.max_row == theirs.max_row == 7 and ours.max_column == theirs.max_column
    for col in range(1, len(values) + 1):
        a, b = ours.cell(7, col), theirs.cell(7, col)
        assert (a.data_type, type(a.value)) == (b.data_type, type(b.value)), col
        assert a.value == b.value or (a.value != a.value and b.value != b.value), col  # NaN equals NaN here
    first = ours.cell(7, 1)
    st.put_value(ours, 7, 1, 0.75)  # writing again reuses the cell and keeps its look
    assert ours.cell(7, 1) is first and first.value == 0.75 and first.number_format == st.PERCENT
    first.font = st.LABEL_FONT  # a later restyle of one cell leaves the cells that shared its look alone
    assert ours.cell(7, 2).font.b is not True and ours.cell(7, 2).font.i


def test_unconfirmed_tier_is_flagged_on_the_summary(demo_report):
    ws = openpyxl.load_workbook(demo_report)[SUMMARY]
    rows = {r[0]: r for r in ws.iter_rows(values_only=True) if r and isinstance(r[0], str)}
    assert rows["Helix Fast"][2] == "unknown (unconfirmed)"  # the demo marks it unknown
    assert rows["Northwind Turbo"][2] == "yes"
    assert any(r[0] == "Unconfirmed" for r in ws.iter_rows(min_row=1, max_row=20, values_only=True))


def test_export_steps_report_progress_and_a_cancel_writes_nothing(tmp_path):
    from model.report.export import export_steps

    out = tmp_path / "r.xlsx"
    steps = export_steps(demo(), out)
    first = next(steps)
    assert first[0] == 1 and first[1] > 1
    steps.close()  # what a worker does on cancel
    assert not out.exists() and list(tmp_path.iterdir()) == []
    events = list(export_steps(demo(), out))
    assert [e[0] for e in events] == list(range(1, events[0][1] + 1)) and out.exists()
