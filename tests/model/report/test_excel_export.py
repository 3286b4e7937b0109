"""The report's shape and safety: sheets, tables, formats, charts, inert user text, atomic writes."""
from __future__ import annotations

import io
import os
import re
import zipfile
from pathlib import Path

import pytest

openpyxl = pytest.importorskip("openpyxl")

import numpy as np  # noqa: E402

from model.comparison import compare  # noqa: E402
from model.report.summary_sheet import SUMMARY_COLUMNS  # noqa: E402
from model.curves.speedup import context_curves  # noqa: E402
from model.report.export import build_report, export_report  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.report.context_sheet import CONTEXTS  # noqa: E402
from model.report.styles import wrapped_lines  # noqa: E402
from model.report.layout import CHARTS, COMPARISON, CURVES, GRID, INPUTS, NOTES, SENSITIVITY, SUMMARY  # noqa: E402
from model.workbook.validation import TIER_FIELDS, WorkbookError  # noqa: E402
from tests.bench.workbooks import large_workbook  # noqa: E402
from tests.excel_cases import INJECTIONS, demo, edge_workbook, made_up  # noqa: E402


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


def test_sheets_tables_frozen_headers_and_print_setup(demo_report):
    book = openpyxl.load_workbook(demo_report)
    assert book.sheetnames == ["Brief", SUMMARY, CHARTS, GRID, SENSITIVITY, COMPARISON, INPUTS, CURVES, NOTES]
    tables = {name for ws in book.worksheets for name in ws.tables}
    assert {"SummaryTable", "ComparisonTable", "Tiers", "TaskClasses", "Overrides"} <= tables
    # only titles and the header row freeze: the Summary's table is in view on a 768-pixel screen
    assert book[SUMMARY].freeze_panes == "B6" and book[COMPARISON].freeze_panes == "C5"
    assert book[CURVES].freeze_panes == "B1"  # no header row over blocks whose columns mean other things
    for name in (COMPARISON, GRID, SENSITIVITY):
        assert book[name].print_title_rows, f"{name} prints no header row on its later pages"
    # the demo's eight tiers fit the Summary's first page: nothing repeats (test_summary_pages)
    assert not book[SUMMARY].print_title_rows
    for ws in book.worksheets:
        assert "&P" in ws.oddFooter.right.text and "exported" in ws.oddFooter.left.text
        if ws.title == "Brief":  # portrait at a set scale, never fitted below 9 points (test_brief_printed)
            assert ws.page_setup.orientation == "portrait" and not ws.sheet_properties.pageSetUpPr.fitToPage
            continue
        # one page wide
        assert ws.sheet_properties.pageSetUpPr.fitToPage and ws.page_setup.fitToHeight in (0,)
        assert ws.page_setup.orientation == "landscape"
    assert book.properties.creator == "SpecLedger" and book.properties.title == demo().title
    assert book[COMPARISON].column_dimensions["A"].width >= 20


def test_saved_values_read_without_recalculation(demo_report):
    """What a mail preview, pandas or openpyxl(data_only) sees: SpecLedger's numbers, not blanks."""
    cmp = compare(demo())
    ws = openpyxl.load_workbook(demo_report, data_only=True)[SUMMARY]
    rows = {r[0]: r for r in ws.iter_rows(min_row=6, max_row=5 + len(cmp.tier_names), values_only=True)}
    for i, name in enumerate(cmp.tier_names):
        assert rows[name][SUMMARY_COLUMNS.index("Mix speedup")] == pytest.approx(cmp.tiers.mix_speedup[i], rel=1e-12)
        assert rows[name][SUMMARY_COLUMNS.index("Monthly cost")] == pytest.approx(cmp.tiers.monthly_cost[i], rel=1e-12)
    with zipfile.ZipFile(demo_report) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    assert charts and all("<c:numCache>" in xml and "<c:pt idx=" in xml for xml in charts)


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


def test_inputs_refuse_what_the_validator_refuses(demo_report):
    """Excel's data validation holds K, alpha and the choices to the validator's ranges and lists."""
    ws = openpyxl.load_workbook(demo_report)[INPUTS]
    rules = {(dv.type, dv.formula1, dv.formula2) for dv in ws.data_validations.dataValidation}
    k = next(spec for spec in TIER_FIELDS if spec.name == "k")
    assert ("whole", f"{k.minimum:g}", f"{k.maximum:g}") in rules  # K, as the validator takes it
    assert ("decimal", "0.0", "1.0") in rules  # acceptance
    lists = [dv.formula1 for dv in ws.data_validations.dataValidation if dv.type == "list"]
    assert any(f.startswith(f"{NOTES}!") for f in lists) and any(f.startswith("$A$") for f in lists)  # choices, baselines


def _charts_per_sheet(path: Path) -> dict[str, int]:
    """Sheet name -> how many charts its drawing holds, read from the package's relationships."""
    with zipfile.ZipFile(path) as z:
        names = re.findall(r'<sheet name="([^"]+)" sheetId="\d+" r:id="rId(\d+)"', z.read("xl/workbook.xml").decode())
        out = {}
        for name, rid in names:
            rels = f"xl/worksheets/_rels/sheet{rid}.xml.rels"
            drawing = re.search(r'drawings/(drawing\d+\.xml)', z.read(rels).decode()) if rels in z.namelist() else None
            out[name] = z.read(f"xl/drawings/_rels/{drawing.group(1)}.rels").decode().count("Target=\"../charts/chart") if drawing else 0
    return out


def test_charts_have_a_sheet_of_their_own(demo_report):
    """Every picture prints on the Charts sheet, each page whole, under no table header: the three, then a context
    chart per speculative tier (beside its block on Curves, a chart was cut between two pages across)."""
    n_spec = sum(t.speculative != "no" for t in demo().tiers)
    assert _charts_per_sheet(demo_report) == {"Brief": 0, SUMMARY: 0, CHARTS: 3 + n_spec, GRID: 0, SENSITIVITY: 0, COMPARISON: 0,
                                              INPUTS: 0, CURVES: 0, NOTES: 0}
    ws = openpyxl.load_workbook(demo_report)[CHARTS]
    assert not ws.print_title_rows and ws.page_setup.orientation == "landscape"
    # the value chart (row 36) starts a page, the first two fill one; the context charts (heading at row 68,
    # four to a page) start the next
    assert [b.id for b in ws.row_breaks.brk] == [35, 67]


def test_a_wide_report_keeps_every_chart_on_the_charts_sheet_four_context_charts_a_page(tmp_path):
    path = tmp_path / "wide.xlsx"
    export_report(large_workbook(40, 30), path)
    ws = openpyxl.load_workbook(path)[CHARTS]
    assert [b.id for b in ws.row_breaks.brk] == [35, 67, 68 + 2 * 19]  # 8 context charts: two pages of four
    assert _charts_per_sheet(path)[CURVES] == 0


def test_value_chart_says_when_it_shows_only_some_tiers(tmp_path):
    path = tmp_path / "big.xlsx"
    export_report(large_workbook(30, 3), path)  # 15 speculative tiers, each with a baseline
    with zipfile.ZipFile(path) as z:
        xml = "".join(z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart"))
    assert "the first 12 of 15 tiers with a baseline" in xml and "the best 8 of 15 tiers by mix speedup" in xml


def test_native_charts_reference_cells(demo_report):
    n_spec = sum(t.speculative != "no" for t in demo().tiers)
    with zipfile.ZipFile(demo_report) as z:
        charts = [n for n in z.namelist() if n.startswith("xl/charts/chart")]
        # acceptance, trailer fill and the value picture on Charts, one context chart per tier
        assert len(charts) == 3 + n_spec
        xml = "".join(z.read(n).decode() for n in charts)
    assert "<c:scatterChart>" in xml and "<c:barChart>" in xml
    assert "Curves!$" in xml  # series are ranges on the Curves sheet, not pasted numbers
    assert xml.count('<c:logBase val="2"') == n_spec  # context on a log axis, as in the app


def _context_blocks(ws, names) -> dict[str, int]:
    """Tier name -> header row of its block in the Curves sheet's context section."""
    return {names.cell(r - 1, 1).value: r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "Context"}


def test_curves_sheet_has_speedup_against_context_per_tier(demo_report):
    """One block per speculative tier, best mix speedup first: contexts in K down, classes across, what the app draws."""
    wb = demo()
    cmp = compare(wb)
    ws = openpyxl.load_workbook(demo_report)[CURVES]
    blocks = _context_blocks(ws, openpyxl.load_workbook(demo_report, data_only=True)[CURVES])
    _, expected = build_report(wb)
    spec = sorted((i for i, t in enumerate(wb.tiers) if t.speculative != "no"), key=lambda i: -cmp.tiers.mix_speedup[i])
    assert list(blocks) == [wb.tiers[i].name for i in spec]
    for i in spec:
        tier, header = wb.tiers[i], blocks[wb.tiers[i].name]
        n_c = len(wb.classes)
        assert [ws.cell(header, 4 + j).value for j in range(n_c + 1)] == [c.name for c in wb.classes] + ["Break-even (1.0x)"]
        assert {ws.cell(header + 1 + n, 4 + n_c).value for n in range(len(CONTEXTS))} == {1.0}
        grid = [ws.cell(header + 1 + n, 1).value for n in range(len(CONTEXTS))]
        np.testing.assert_allclose(np.array(grid) * 1024, CONTEXTS, rtol=1e-15)  # in K, as the app writes them
        assert ws.cell(header + 1, 1).number_format == '0.#"K"'
        assert ws.cell(header + 1 + len(CONTEXTS), 1).value is None  # the block ends with the grid
        want = context_curves(tier, cmp.cells.alpha[i], contexts=CONTEXTS)
        got = np.array([[expected[(CURVES, ws.cell(header + 1 + n, 4 + j).coordinate)] for n in range(len(CONTEXTS))]
                        for j in range(len(wb.classes))])
        np.testing.assert_allclose(got, want, rtol=1e-12)
        first = ws.cell(header + 1, 4)
        assert first.data_type == "f" and first.value.startswith(f"={COMPARISON}!") and first.number_format == '0.00"x"'
        c_cell = ws.cell(header + 1, 2)
        # c follows the cost model set on Inputs: Inputs' c when typed, SpecLedger's roofline number otherwise
        assert c_cell.data_type == "f" and f"{INPUTS}!" in c_cell.value and '="roofline"' in c_cell.value
        if tier.cost_model == "roofline":
            assert c_cell.fill.fgColor.rgb.endswith("E7E6E6")  # grey: no closed form
            assert "SpecLedger" in ws.cell(header - 1, 5).value
            assert want[0, 0] > want[0, -1]  # the roofline's point: longer context, less speedup
        else:  # typed c and v do not move with the context
            np.testing.assert_allclose(want, want[:, :1] * np.ones_like(want))
        assert ws.cell(header - 1, 3).value.startswith(f"={INPUTS}!")  # K


def _load(data: bytes):
    import io

    return openpyxl.load_workbook(io.BytesIO(data))


def test_every_formula_has_a_checked_value_and_no_user_text():
    for wb in (demo(), edge_workbook()):
        data, expected = build_report(wb)
        book = _load(data)
        formulas = [(ws.title, c) for ws in book.worksheets for row in ws.iter_rows() for c in row if c.data_type == "f"]
        assert {(t, c.coordinate) for t, c in formulas} == set(expected)
        names = [t.name for t in wb.tiers] + [c.name for c in wb.classes]
        for _, cell in formulas:
            assert not any(name in cell.value for name in names if len(name) > 3), cell.value


def test_formulas_are_written_as_xlsxwriter_would_write_them():
    """ReportSheet skips XlsxWriter's scans for newer and dynamic-array functions; on the report's formulas
    neither scan would change anything."""
    from xlsxwriter.worksheet import Worksheet, re_dynamic_function

    plain = Worksheet()
    plain.use_future_functions = True  # the widest scan
    seen = 0
    for wb in (demo(), edge_workbook()):
        book = _load(build_report(wb)[0])
        for ws in book.worksheets:
            for row in ws.iter_rows():
                for cell in row:
                    if cell.data_type == "f":
                        seen += 1
                        assert plain._prepare_formula(cell.value) == cell.value[1:], cell.value
                        assert not re_dynamic_function.search(cell.value), cell.value
                        assert not cell.value.startswith("={"), cell.value
    assert seen > 1000


@pytest.mark.parametrize("make", [demo, edge_workbook, lambda: large_workbook(7, 5)], ids=["demo", "edge", "7x5"])
def test_report_sheet_writes_the_xml_plain_xlsxwriter_writes(make, monkeypatch):
    """The short path for formula and number cells gives the same file, part by part and byte for byte, as
    XlsxWriter's own Worksheet: hostile names (& < > quotes), text results, blanks, numbers, n/a words."""
    import datetime as dt

    from xlsxwriter.worksheet import Worksheet

    from model.report import styles

    when = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)
    fast, _ = build_report(make(), "source.json", when)
    monkeypatch.setattr(styles, "ReportSheet", Worksheet)
    plain, _ = build_report(make(), "source.json", when)
    with zipfile.ZipFile(io.BytesIO(fast)) as a, zipfile.ZipFile(io.BytesIO(plain)) as b:
        assert a.namelist() == b.namelist()
        for name in a.namelist():
            assert a.read(name) == b.read(name), f"{name} differs from plain XlsxWriter's"


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

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("model.common.safe_files.os.fsync", full_disk)
    with pytest.raises(WorkbookError, match="cannot be written.*No space left"):
        export_report(demo(), target)
    assert target.read_bytes() == b"the analyst's previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.xlsx"]  # no temporary file left behind


def test_export_leaves_no_temporary_files(tmp_path, monkeypatch):
    import tempfile

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    out = tmp_path / "out"
    out.mkdir()
    export_report(demo(), out / "r.xlsx")
    assert list(scratch.iterdir()) == [] and [p.name for p in out.iterdir()] == ["r.xlsx"]


def test_huge_workbook_is_refused_up_front_in_one_line(tmp_path):
    from tests.bench.workbooks import large_workbook

    wb = large_workbook(2000, 100)
    with pytest.raises(WorkbookError) as err:
        export_report(wb, tmp_path / "huge.xlsx")
    message = str(err.value)
    assert "\n" not in message and "2,000 tiers x 100 task classes" in message and "at most 20,000" in message
    assert list(tmp_path.iterdir()) == []


def test_escape_like_text_stays_literal(tmp_path):
    """Excel reads _x0041_ as an escaped "A"; a name that really says _x0041_ must come back as it was."""
    wb = demo()
    wb.rename_tier("Helix Fast", "Helix _x0041_ Fast")
    wb.classes[0].source_note = "see _x000D_ and _X0042_"
    path = tmp_path / "r.xlsx"
    export_report(wb, path)
    assert import_report(path) == wb
    cmp_ws = openpyxl.load_workbook(path, data_only=True)[COMPARISON]
    assert "Helix _x0041_ Fast" in {cmp_ws.cell(r, 1).value for r in range(5, cmp_ws.max_row + 1)}  # saved results too


def test_control_characters_are_refused_not_crashed_on(tmp_path):
    wb = demo()
    wb.tiers[3].vendor = "Helix\x1b[31m"
    with pytest.raises(WorkbookError) as err:
        export_report(wb, tmp_path / "r.xlsx")
    assert "control character" in str(err.value) and "\n" not in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_open_elsewhere_or_unwritable_target_is_refused(tmp_path):
    target = tmp_path / "report.xlsx"
    target.write_bytes(b"old")
    lock = tmp_path / ".~lock.report.xlsx#"
    lock.write_text("someone,host,...")
    with pytest.raises(WorkbookError, match="open in another program"):
        export_report(demo(), target)
    assert target.read_bytes() == b"old"
    lock.unlink()
    with pytest.raises(ValueError, match="does not exist"):
        export_report(demo(), tmp_path / "no such folder" / "report.xlsx")
    with pytest.raises(ValueError, match="is a folder"):
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
    assert openpyxl.load_workbook(tmp_path / "empty.xlsx").sheetnames[:2] == ["Brief", SUMMARY]


def test_unconfirmed_tier_is_flagged_on_the_summary(demo_report):
    book = openpyxl.load_workbook(demo_report, data_only=True)
    rows = {r[0]: r for r in book[SUMMARY].iter_rows(min_row=6, max_row=13, values_only=True)}
    assert rows["Helix Fast"][2] == "unknown (unconfirmed)"  # the demo marks it unknown
    assert rows["Northwind Turbo"][2] == "yes"
    assert any(r[0] == "Unconfirmed" for r in book[NOTES].iter_rows(min_row=1, max_row=30, values_only=True))


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


def test_the_fair_price_header_wraps_within_its_columns(demo_report):
    # its long headers ("Acceptance to guarantee (SpecLedger)") sit over the Summary's narrow numeric columns:
    # unwrapped they ran into each other when printed
    summary = openpyxl.load_workbook(demo_report)[SUMMARY]
    heading = next(c for row in summary.iter_rows() for c in row
                   if isinstance(c.value, str) and c.value.startswith("Fair price: "))
    head_row = heading.row + 1
    heads = [summary.cell(head_row, c) for c in range(1, 20) if summary.cell(head_row, c).value]
    assert heads[0].value == "Tier" and heads[-1].value == "Runs like, high end" and len(heads) == 11
    height = summary.row_dimensions[head_row].height
    for cell in heads:
        width = summary.column_dimensions[cell.column_letter].width
        assert cell.alignment.wrap_text, cell.value
        assert height >= 15 * wrapped_lines(cell.value, width), (cell.value, width, height)


def test_notes_explain_undecided_intervals_and_the_fair_price(demo_report):
    # the Summary shows undecided verdicts and a fair-price table; the Notes named gain/marginal/tax only
    notes = openpyxl.load_workbook(demo_report)[NOTES]
    said = {r[0].value: r[1].value for r in notes.iter_rows(max_col=2) if isinstance(r[0].value, str)}
    assert "undecided" in said["Verdict"] and "undecided" in said["Value verdict"]
    assert "interval" in said["Intervals"] and "negotiation" in said["Fair price"]


def test_a_tier_with_made_up_mechanics_gets_words_not_verdicts_or_a_mix(tmp_path: Path):
    """A price list's new tier whose c and v (or speculative flag) were made up: the Comparison says
    'incomplete: needs c and v' / 'speculative unknown' where its verdicts were, as the Summary does, and the
    Summary shows no mix speedup, interval or cost per speedup from them (a formula would compute them)."""
    wb = made_up()
    data = build_report(wb)[0]
    book = _load(data)
    cmp_ws, summary = book[COMPARISON], book[SUMMARY]
    heads = {cmp_ws.cell(4, c).value: c for c in range(1, cmp_ws.max_column + 1)}
    n_c = len(wb.classes)
    words = {"Zeta Fast": "incomplete: needs c and v", "Zeta Maybe": "speculative unknown"}
    for name, word in words.items():
        i = wb.tier_index(name)
        for j in range(n_c):
            row = 5 + i * n_c + j
            assert cmp_ws.cell(row, heads["Speed verdict"]).value == word, (name, j)
            assert cmp_ws.cell(row, heads["Value verdict"]).value == "incomplete", (name, j)
    s_heads = {summary.cell(5, c).value: c for c in range(1, summary.max_column + 1)}
    for name, word in words.items():
        row = 6 + wb.tier_index(name)
        got = {h: summary.cell(row, s_heads[h]).value for h in ("Mix speedup", "Mix low", "Cost per 1x speedup",
                                                                "Speed verdict", "Value verdict", "Claim holds")}
        assert got == {"Mix speedup": "–", "Mix low": "–", "Cost per 1x speedup": "–", "Speed verdict": word,
                       "Value verdict": "incomplete", "Claim holds": "–"}, name
    # a tier priced against one whose mechanics were made up has no speed over it to judge: no verdict (the
    # saved values; LibreOffice computes the same, test_excel_recalc)
    import io
    summary = openpyxl.load_workbook(io.BytesIO(data), data_only=True)[SUMMARY]
    row = 6 + wb.tier_index("Zeta Over Maybe")
    assert summary.cell(row, s_heads["Speedup vs baseline"]).value == "–"
    assert summary.cell(row, s_heads["Value verdict"]).value == "baseline Zeta Maybe: speculative unknown"
    # per class too, as compare() withholds them (the baseline's per-class speeds are as made up as its mix)
    cmp_ws = openpyxl.load_workbook(io.BytesIO(data), data_only=True)[COMPARISON]
    for j in range(n_c):
        r = 5 + wb.tier_index("Zeta Over Maybe") * n_c + j
        assert cmp_ws.cell(r, heads["Value verdict"]).value == "n/a"
        assert cmp_ws.cell(r, heads["Speedup vs baseline"]).value in (None, "")


def test_every_alpha_source_reads_whole_in_its_column():
    """'assumed (tier override) · profile' printed cut to 'assumed (tier overri' (Comparison, 17 wide): a source
    longer than its column wraps, its row as tall as its lines, for the longest choice the analyst can pick."""
    from tests.excel_cases import profiled
    wb = profiled()
    wb.overrides[0].alpha_source = "imported"  # the longest choice, on the override with a profile
    ws = openpyxl.load_workbook(io.BytesIO(build_report(wb)[0]), data_only=True)[COMPARISON]
    col = next(c for c in range(1, ws.max_column + 1) if ws.cell(4, c).value == "Alpha source")
    width = ws.column_dimensions[ws.cell(4, col).column_letter].width
    seen = set()
    for row in range(5, 5 + len(wb.tiers) * len(wb.classes)):
        cell = ws.cell(row, col)
        words = re.sub(r"^\w+", "imported", cell.value)  # what it reads if Inputs picks the longest source
        seen.add(cell.value)
        lines = wrapped_lines(words, width - 1)
        if lines > 1:
            assert cell.alignment.wrap_text, (row, cell.value)
            assert (ws.row_dimensions[row].height or 15) >= 15 * lines, (row, cell.value)
    assert "imported (tier override) · profile" in seen


@pytest.mark.parametrize("name", [SUMMARY, COMPARISON])
def test_the_verdict_sheets_have_a_colour_key(demo_report, name):
    """The Summary and Comparison shade verdicts (violet undecided, sand too few requests, ...): each has a key row
    naming every colour it uses, on that colour, within the printed page, as the Grid has one."""
    from model.report.styles import VERDICT_LOOKS
    ws = openpyxl.load_workbook(demo_report)[name]
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "Colours")
    fills = {}
    for col in range(2, 30):
        cell = ws.cell(row, col)
        if cell.value and cell.fill.fgColor.rgb not in (None, "00000000"):
            fills[cell.fill.fgColor.rgb[-6:].upper()] = cell.value
    wanted = ["gain", "marginal", "tax", "undecided", "incomplete"] + (["too few"] if name == COMPARISON else [])
    for look in wanted:
        assert VERDICT_LOOKS[look]["bg_color"][1:].upper() in fills, (look, fills)
    assert "undecided" in fills[VERDICT_LOOKS["undecided"]["bg_color"][1:].upper()]
    area = ws.print_area if isinstance(ws.print_area, str) else ws.print_area[0]
    assert row <= int(re.search(r"(\d+)$", area).group(1)), (row, area)


def test_the_summary_prints_long_vendor_names_and_the_measured_words_whole(tmp_path: Path):
    """'Northwind AI International' printed cut to 'Northwind AI Inte'; the measured-speed words ran past the
    printed edge ('... ask the vend')."""
    wb = demo()
    wb.tiers[1].vendor = "Northwind AI International"
    wb.tiers[1].measured_speedup, wb.tiers[1].measured_note = 2.9, "probed 2026-12-02 at 4K"
    data = build_report(wb)[0]
    ws = openpyxl.load_workbook(io.BytesIO(data))[SUMMARY]
    heads = {ws.cell(5, c).value: c for c in range(1, ws.max_column + 1)}
    vendor = ws.cell(5, heads["Vendor"]).column_letter
    # whole on one line, or (where a wider column would print the sheet two pages wide) wrapped in a taller row
    listed = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == wb.tiers[1].name)
    width = ws.column_dimensions[vendor].width
    assert width * 1.1 >= len("Northwind AI International") or (
        ws.cell(listed, heads["Vendor"]).alignment.wrap_text and ws.row_dimensions[listed].height >= 30), width
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == wb.tiers[1].name
               and isinstance(ws.cell(r, 2).value, str) and ws.cell(r, 2).value.startswith("Measured"))
    merged = next(m for m in ws.merged_cells.ranges if m.min_row == row and m.min_col == 2)
    assert merged.max_col >= heads["Value verdict"] and ws.cell(row, 2).alignment.wrap_text
