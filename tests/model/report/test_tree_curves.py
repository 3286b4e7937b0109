"""The report's Curves and Charts sheets for tree drafts: no speedup-against-alpha curve (a per-token alpha
describes a chain, as the window's chart says), but speedup against acceptance length E at the tree's own
verify cost, live over K, c and v, with the break-even E* = K c + v. LibreOffice's recalculation of
these cells equals SpecLedger's: test_excel_recalc's "treed" case."""
from __future__ import annotations

import io

import numpy as np
import pytest

from model.mechanics import arithmetic as ar
from model.comparison import compare
from model.curves.speedup import costs_at
from model.report.export import build_report
from model.report.layout import CHARTS, CURVES
from tests.excel_cases import treed

openpyxl = pytest.importorskip("openpyxl")


@pytest.fixture(scope="module")
def report():
    wb = treed()
    data, expected = build_report(wb, "t.json")
    return wb, openpyxl.load_workbook(io.BytesIO(data)), expected, data


def _find(ws, text: str) -> tuple[int, int]:
    for row in ws.iter_rows():
        for cell in row:
            if isinstance(cell.value, str) and cell.value.startswith(text):
                return cell.row, cell.column
    raise AssertionError(f"{text!r} not on {ws.title}")


def test_tree_tiers_have_no_alpha_curve_and_the_sheet_says_why(report):
    wb, book, expected, _ = report
    ws = book[CURVES]
    header = _find(ws, "Acceptance alpha")[0]
    names = [expected.get((CURVES, ws.cell(header, c).coordinate)) for c in range(2, ws.max_column + 1)]
    shown = " ".join(n for n in names if isinstance(n, str))
    assert "Northwind Turbo" in shown and "Helix Fast" in shown
    assert "Orbital Rapid" not in shown and "Apex Express" not in shown
    row, _ = _find(ws, "Trailer fill: formulas")
    assert "Tree drafts (Orbital Rapid, Apex Express) have no curve here" in ws.cell(row, 1).value


def test_the_tree_block_is_speedup_against_length_at_the_trees_cost(report):
    wb, book, expected, _ = report
    ws = book[CURVES]
    top, _ = _find(ws, "Speedup against acceptance length E (tree drafts)")
    assert "does not apply" in ws.cell(top + 1, 1).value
    header = top + 4
    labels = {ws.cell(r, 1).value: r for r in range(header, header + 40) if isinstance(ws.cell(r, 1).value, str)}
    cmp = compare(wb)
    for m, name in enumerate(["Orbital Rapid", "Apex Express"]):  # best mix speedup first, as the tiers rank
        i = wb.tier_index(name)
        tier = wb.tiers[i]
        e_col, s_col = 2 + 2 * m, 3 + 2 * m
        assert expected[(CURVES, ws.cell(header, s_col).coordinate)].startswith(name)
        c, v = (float(x) for x in costs_at(tier, float(tier.claim_context)))
        got = lambda r, col: expected[(CURVES, ws.cell(r, col).coordinate)]  # noqa: E731
        e = np.array([got(header + 1 + n, e_col) for n in range(21)])
        s = np.array([got(header + 1 + n, s_col) for n in range(21)])
        np.testing.assert_allclose(e, np.linspace(1.0, tier.k + 1.0, 21), rtol=1e-12)
        np.testing.assert_allclose(s, e / (tier.k * c + v), rtol=1e-12)
        # live: E over K on Inputs, the speedup over K, c and v
        assert "*$A" in ws.cell(header + 1, e_col).value and "/(" in ws.cell(header + 1, s_col).value
        be = got(labels["Break-even E* = Kc+v"], e_col)
        assert be == pytest.approx(float(ar.break_even_length(tier.k, c, v)), rel=1e-12)
        assert got(labels["K (depth)"], e_col) == tier.k
        assert ws.cell(labels["Tree size (verified)"], e_col).value == tier.tree_size
        if tier.cost_model == "typed":  # the same c and v at every context: the Comparison's E* on every class
            np.testing.assert_allclose(cmp.cells.break_even_length[i], be, rtol=1e-12)


def test_the_charts_sheet_draws_the_trees_against_length(report):
    *_, data = report
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    tree = [x for x in charts if "Tree drafts: speedup against acceptance length E" in x]
    assert len(tree) == 1 and "Acceptance length E" in tree[0] and "Curves!$" in tree[0]
    alpha = [x for x in charts if "Speedup against acceptance, each tier" in x]
    assert alpha and "Orbital Rapid" not in alpha[0]
