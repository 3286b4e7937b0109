"""Every formula in the report, recalculated by a real spreadsheet engine (LibreOffice), equals SpecLedger.

One LibreOffice run per module converts all the files at once: the demo report,
the edge-case report, and the demo report with inputs edited the way an analyst
would (with openpyxl, which keeps the formulas and drops cached values, so the
engine has to recompute everything on load).
"""
from __future__ import annotations

import math
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

openpyxl = pytest.importorskip("openpyxl")

from tests.excel_cases import demo, edge_workbook  # noqa: E402
from model.comparison import VERDICT_NAMES, compare  # noqa: E402
from model.report.export import COMPARISON_COLUMNS, COMPARISON_HEADER_ROW, build_report, export_report  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.curves import CONTEXT_GRID, context_curves  # noqa: E402
from model.report.layout import COMPARISON, CURVES, INPUTS, SUMMARY, InputsLayout, column_of  # noqa: E402
from model.workbook.validation import CLASS_FIELDS, OVERRIDE_FIELDS, TIER_FIELDS  # noqa: E402
from model.workbook.rows import Workbook  # noqa: E402

pytestmark = pytest.mark.libreoffice
REL_TOL = 1e-9


def _soffice() -> str:
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    if exe:
        return exe
    reason = "LibreOffice (soffice) is not installed; install libreoffice-calc-nogui to recalculate the report"
    if os.environ.get("SPECLEDGER_REQUIRE_LIBREOFFICE") == "1":
        pytest.fail(reason + " (SPECLEDGER_REQUIRE_LIBREOFFICE=1 makes this a failure)")
    pytest.skip(reason)


@dataclass
class Case:
    original: Path
    recalculated: Path
    expected: dict  # (sheet, cell) -> SpecLedger's value
    workbook: Workbook


def _edit(src: Path, dst: Path) -> Workbook:
    """Change inputs like an analyst would; returns the edited workbook and its expected formula values."""
    wb = demo()
    layout = InputsLayout(len(wb.tiers), len(wb.classes), len(wb.overrides))
    book = openpyxl.load_workbook(src)
    ws = book[INPUTS]
    helix = wb.tier_index("Helix Fast")
    north = wb.tier_index("Northwind Turbo")
    changes = [  # (row, field specs, field, new value); roofline K is not edited: v(K) has no closed form
        (layout.class_row(wb.class_index("code")), CLASS_FIELDS, "alpha", 0.55),
        (layout.class_row(wb.class_index("prose")), CLASS_FIELDS, "tokens_out", 2.5e8),
        (layout.tier_row(helix), TIER_FIELDS, "k", 7),
        (layout.tier_row(helix), TIER_FIELDS, "c", 0.2),
        (layout.tier_row(north), TIER_FIELDS, "price_out", 31.0),
        (layout.override_row(0), OVERRIDE_FIELDS, "alpha", 0.6),
    ]
    for row, specs, field, value in changes:
        ws.cell(row, column_of(specs, field)).value = value
    book.save(dst)
    wb.classes[wb.class_index("code")].alpha = 0.55
    wb.classes[wb.class_index("prose")].tokens_out = 2.5e8
    wb.tiers[helix].k = 7
    wb.tiers[helix].c = 0.2
    wb.tiers[north].price_out = 31.0
    wb.overrides[0].alpha = 0.6
    return wb


def _edited_expectation(original: Path, edited: Workbook) -> dict:
    """SpecLedger's values for the edited workbook, except where a formula reads a grey value.

    The margin is the live alpha minus the break-even SpecLedger wrote at export;
    after K or c changed in the spreadsheet that break-even is the exported one
    (documented: grey cells do not follow), so the margin must use it too.
    """
    expected = build_report(edited)[1]
    ws = openpyxl.load_workbook(original)[COMPARISON]
    col = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
    cmp = compare(edited)
    for i in range(len(edited.tiers)):
        for j in range(len(edited.classes)):
            row = COMPARISON_HEADER_ROW + 1 + i * len(edited.classes) + j
            be = ws.cell(row, col["Break-even alpha (SpecLedger)"]).value
            key = (COMPARISON, ws.cell(row, col["Margin over break-even"]).coordinate)
            expected[key] = float(cmp.alpha[i, j]) - be if isinstance(be, (int, float)) else "n/a"
    return expected


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    exe = _soffice()
    src = tmp_path_factory.mktemp("reports")
    out = tmp_path_factory.mktemp("recalculated")
    profile = tmp_path_factory.mktemp("lo_profile")
    cases: dict[str, Case] = {}
    for name, wb in (("demo", demo()), ("edge", edge_workbook())):
        path = src / f"{name}.xlsx"
        export_report(wb, path, f"{name}.json")
        cases[name] = Case(path, out / path.name, build_report(wb)[1], wb)
    edited = _edit(cases["demo"].original, src / "edited.xlsx")
    cases["edited"] = Case(src / "edited.xlsx", out / "edited.xlsx", _edited_expectation(cases["demo"].original, edited),
                           edited)
    cmd = [exe, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore",
           "--convert-to", "xlsx", "--outdir", str(out)] + [str(c.original) for c in cases.values()]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    missing = [c.recalculated.name for c in cases.values() if not c.recalculated.exists()]
    assert not missing, f"LibreOffice did not convert {missing}: {run.stdout} {run.stderr}"
    return cases


def _check_all_formulas(original: Path, recalculated: Path, expected: dict) -> tuple[int, float]:
    formulas = openpyxl.load_workbook(original)
    values = openpyxl.load_workbook(recalculated, data_only=True)
    count, worst, problems = 0, 0.0, []
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type != "f":
                    continue
                count += 1
                key = (ws.title, cell.coordinate)
                assert key in expected, f"{key} is a formula with no SpecLedger value to check it against"
                got, want = values[ws.title][cell.coordinate].value, expected[key]
                if isinstance(want, str):
                    if got != want:
                        problems.append(f"{key}: engine {got!r}, SpecLedger {want!r} ({cell.value})")
                    continue
                if not isinstance(got, (int, float)) or isinstance(got, bool):
                    problems.append(f"{key}: engine gave {got!r}, SpecLedger {want!r} ({cell.value})")
                    continue
                rel = abs(got - want) / max(abs(want), 1e-300) if want else abs(got)
                worst = max(worst, rel)
                if rel > REL_TOL:
                    problems.append(f"{key}: engine {got!r}, SpecLedger {want!r}, relative error {rel:.2e}")
    assert not problems, "\n".join(problems[:20])
    return count, worst


@pytest.mark.parametrize("case", ["demo", "edge"])
def test_every_formula_equals_specledger(recalculated, case):
    c = recalculated[case]
    count, worst = _check_all_formulas(c.original, c.recalculated, c.expected)
    print(f"{case}: {count} formula cells, max relative error {worst:.2e}")
    assert count == len(c.expected)
    assert count > 40


def test_report_follows_edited_inputs(recalculated):
    c = recalculated["edited"]
    count, worst = _check_all_formulas(c.original, c.recalculated, c.expected)
    print(f"edited: {count} formula cells, max relative error {worst:.2e}")
    # and, said without the report's own bookkeeping: the Summary equals compare() of the edited workbook
    cmp = compare(c.workbook)
    ws = openpyxl.load_workbook(c.recalculated, data_only=True)[SUMMARY]
    header = next(r for r in range(1, 40) if ws.cell(r, 1).value == "Tier" and ws.cell(r, 2).value == "Vendor")
    heads = {ws.cell(header, c).value: c for c in range(1, 20)}
    for i, name in enumerate(cmp.tier_names):
        row = header + 1 + i
        assert ws.cell(row, 1).value == name
        assert math.isclose(ws.cell(row, heads["Mix speedup"]).value, cmp.mix_speedup[i], rel_tol=REL_TOL)
        assert math.isclose(ws.cell(row, heads["Monthly cost"]).value, cmp.monthly_cost[i], rel_tol=REL_TOL)
        assert ws.cell(row, heads["Verdict"]).value == VERDICT_NAMES[int(cmp.tier_verdict[i])]
        if not np.isnan(cmp.premium[i]):
            assert math.isclose(ws.cell(row, heads["Premium over baseline"]).value, cmp.premium[i], rel_tol=REL_TOL)
    before = compare(demo())
    assert not np.allclose(before.mix_speedup, cmp.mix_speedup), "the edits should have moved the report"


def test_context_curves_follow_edited_inputs(recalculated):
    """The speedup-against-context blocks, recalculated after the edits, are what the app draws for the edited workbook.

    The edits change a class's acceptance (every tier's curves) and a typed tier's K and c
    (that tier's whole block); roofline c(L), v(L) are SpecLedger's and were not edited.
    """
    c = recalculated["edited"]
    wb, cmp = c.workbook, compare(c.workbook)
    ws = openpyxl.load_workbook(c.recalculated, data_only=True)[CURVES]
    headers = {ws.cell(r - 1, 1).value: r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "Context (tokens)"}
    spec = [i for i, t in enumerate(wb.tiers) if t.speculative != "no"]
    assert list(headers) == [wb.tiers[i].name for i in spec]
    before = compare(demo())
    for i in spec:
        h = headers[wb.tiers[i].name]
        got = np.array([[ws.cell(h + 1 + n, 4 + j).value for n in range(len(CONTEXT_GRID))]
                        for j in range(len(wb.classes))], dtype=np.float64)
        np.testing.assert_allclose(got, context_curves(wb.tiers[i], cmp.alpha[i]), rtol=REL_TOL)
        assert not np.allclose(got, context_curves(demo().tiers[i], before.alpha[i]), rtol=1e-6)


def test_report_saved_by_libreoffice_imports_back(recalculated):
    for case in ("demo", "edge", "edited"):
        c = recalculated[case]
        assert import_report(c.recalculated) == c.workbook, case
