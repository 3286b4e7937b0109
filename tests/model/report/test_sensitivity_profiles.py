"""The sensitivity columns for acceptance beyond one alpha: a per-position profile moves every conditional rate by
the shift, a length its flat i.i.d. alpha; a flat profile equals the alpha it is. LibreOffice's
recalculation of the same cells is held to these numbers by test_excel_recalc's "profiled" case."""
from __future__ import annotations

import io

import numpy as np
import pytest

from model.mechanics import arithmetic as ar
from model.comparison import compare
from model.report.export import COMPARISON_COLUMNS, COMPARISON_HEADER_ROW, build_report
from model.report.layout import ALPHA_SHIFTS, COMPARISON
from model.report.sensitivity import sensitivity
from tests.excel_cases import profiled


def _stretch(cmp, i, j):
    return ar.stretch_cost(cmp.tiers.k[i], cmp.cells.c[i, j], cmp.cells.v[i, j])


def test_a_flat_profile_moves_as_its_alpha_and_a_profile_moves_every_rate():
    wb = profiled()
    wb.classes[3].profile = (0.7,) * 3  # summarisation: a flat profile of 3 positions
    wb.classes[3].alpha = 0.2  # an alpha beside a profile decides nothing
    as_alpha = profiled()
    as_alpha.classes[3].alpha = 0.7  # the same acceptance as one alpha
    cmp = compare(wb)
    shifted, shifted_alpha = sensitivity(wb, cmp), sensitivity(as_alpha, compare(as_alpha))
    spec = [i for i in range(len(wb.tiers)) if cmp.tiers.speculative[i]]
    assert spec
    for n, shift in enumerate(ALPHA_SHIFTS):
        # flat past its 3 positions too (the geometric rule holds a flat fit): E(0.7 + shift, K), as the alpha
        np.testing.assert_allclose(shifted[n].speedup[:, 3], shifted_alpha[n].speedup[:, 3], rtol=1e-12)
        for i in spec:
            k = int(cmp.tiers.k[i])
            # code: 0.95, 0.9, 0.82 extended to K by the rule, every rate moved and clipped
            ext, _ = ar.extend_profile([0.95, 0.9, 0.82], k)
            e = 1.0 + np.cumprod(np.clip(ext + shift, 0.0, 1.0)).sum()
            assert shifted[n].speedup[i, 0] == pytest.approx(e / _stretch(cmp, i, 0), rel=1e-12)
            # json: a length of 2.9 at K = 3 moves its flat i.i.d. alpha
            a = float(ar.mean_acceptance_length_to_alpha(2.9, 3).alpha)
            want = ar.expected_tokens(min(1.0, max(0.0, a + shift)), k) / _stretch(cmp, i, 1)
            assert shifted[n].speedup[i, 1] == pytest.approx(want, rel=1e-12)
    # the class's own alpha (0.2) is not what moved
    i = spec[0]
    moved_alpha = ar.expected_tokens(0.3, int(cmp.tiers.k[i])) / _stretch(cmp, i, 3)
    assert abs(shifted[2].speedup[i, 3] - moved_alpha) > 1e-3


def test_the_comparison_sheets_shift_cells_are_formulas_over_the_profiles_rates():
    openpyxl = pytest.importorskip("openpyxl")
    wb = profiled()
    data, expected = build_report(wb, "p.json")
    ws = openpyxl.load_workbook(io.BytesIO(data))[COMPARISON]
    col = COMPARISON_COLUMNS.index("Speedup, alpha +10 pts") + 1
    cmp = compare(wb)
    shifted = sensitivity(wb, cmp)
    i = next(i for i in range(len(wb.tiers)) if cmp.tiers.speculative[i])
    for j, cls in enumerate(wb.classes):
        row = COMPARISON_HEADER_ROW + 1 + i * len(wb.classes) + j
        cell = ws.cell(row, col)
        formula = str(cell.value)
        beyond = bool(cls.profile) or cls.acceptance_length is not None
        # a profile's or a length's: the rates on Inputs moved, not the class's alpha
        assert ("MIN(1,MAX(0,Inputs!" in formula) == beyond, (cls.name, formula)
        assert expected[(COMPARISON, cell.coordinate)] == pytest.approx(float(shifted[2].speedup[i, j]), rel=1e-12)
