"""Inputs edited in the report as an analyst would (baseline, cost model, speculative flag, claim, names, K, c, v,
prices, tokens; values pasted past the data validation), recalculated by LibreOffice: every result follows as
compare() of the same edit says, or its row says it is stale or out of range."""
from __future__ import annotations

import math

import numpy as np
import pytest

openpyxl = pytest.importorskip("openpyxl")

from tests.excel_cases import demo  # noqa: E402
from tests.model.report.recalc_cases import STALE_TIERS  # noqa: E402
from tests.model.report.recalc_checks import all_close, close, grey, moved, table  # noqa: E402
from model.comparison import VALUE_NAMES, VERDICT_NAMES, compare  # noqa: E402
from model.common.formatting import context as context_text  # noqa: E402
from model.report.export import COMPARISON_COLUMNS, COMPARISON_HEADER_ROW  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.report.layout import ALPHA_SHIFTS, COMPARISON, GRID, SENSITIVITY, SUMMARY  # noqa: E402
from model.workbook.validation import WorkbookError  # noqa: E402

pytestmark = pytest.mark.libreoffice


def test_every_shaded_input_drives_the_report_or_says_stale(recalculated):
    """Baseline, cost model, speculative flag, claim, names, K, c and v edited in the file: each result equals
    compare() of the same edit, or its row says it is stale (and its margin is blank, not wrong)."""
    c = recalculated["edited"]
    wb, cmp, before = c.workbook, compare(c.workbook), compare(demo())
    book = openpyxl.load_workbook(c.recalculated, data_only=True)
    ws = book[COMPARISON]
    col = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
    shifted = [compare(moved(wb, shift)) for shift in ALPHA_SHIFTS]  # the whole model, not the report's shortcut
    for i, tier in enumerate(wb.tiers):
        for j, cls in enumerate(wb.classes):
            row = COMPARISON_HEADER_ROW + 1 + i * len(wb.classes) + j
            value = lambda name: ws.cell(row, col[name]).value  # noqa: E731
            where = f"{tier.name}/{cls.name}"
            assert (value("Tier"), value("Task class")) == (tier.name, cls.name), where
            assert value("Alpha source") == cmp.cells.alpha_source[i][j], where
            flag = value("Grey values") or ""
            # the edits move a price, a baseline's speculative flag and a class's tokens, which reach every
            # speculative tier's price break-even; optimal K is n/a on the others, which stay unflagged
            want_flag = ("stale" if tier.name in STALE_TIERS else
                         "price break-even stale" if before.tiers.speculative[i] else "")
            assert flag == want_flag, where
            for name, want in (("Acceptance alpha", cmp.cells.alpha[i, j]), ("Speedup", cmp.cells.speedup[i, j]),
                               ("Tokens per stretch E", cmp.cells.tokens_per_stretch[i, j]),
                               ("Trailer fill", cmp.cells.trailer_fill[i, j]), ("Cost factor (FLOPs / token)", cmp.cells.cost_factor[i, j]),
                               ("Speedup, alpha -20 pts", shifted[0].cells.speedup[i, j]),
                               ("Speedup, alpha +10 pts", shifted[2].cells.speedup[i, j])):
                assert close(value(name), float(want)), (where, name, value(name), want)
            assert value("Speed verdict") == VERDICT_NAMES[int(cmp.cells.verdict[i, j])], where
            assert value("Value verdict") == VALUE_NAMES[int(cmp.cells.value_verdict[i, j])], where
            if flag == "stale":
                assert value("Margin over break-even") in (None, ""), where
            else:
                assert close(value("Margin over break-even"), float(cmp.cells.margin[i, j])), where

    ws = book[SUMMARY]
    assert "Inputs changed since export" in ws.cell(3, 1).value
    header, heads = table(ws, ("Tier", "Vendor"))
    for i, tier in enumerate(wb.tiers):
        row = header + 1 + i
        get = lambda name: ws.cell(row, heads[name]).value  # noqa: E731
        assert get("Tier") == tier.name
        assert get("Speculative") == ("unknown (unconfirmed)" if tier.speculative == "unknown" else tier.speculative)
        assert get("Baseline") == (tier.baseline or "–")
        assert get("Claim context") == context_text(tier.claim_context)
        for name, want in (("Mix speedup", cmp.tiers.mix_speedup[i]), ("Monthly cost", cmp.tiers.monthly_cost[i]),
                           ("Premium over baseline", cmp.tiers.premium[i]), ("Speedup vs baseline", cmp.tiers.speedup_vs_baseline[i]),
                           ("Cost per 1x speedup", cmp.tiers.price_per_speedup[i]),
                           ("Claimed speedup", cmp.claims.speedup[i])):
            assert close(get(name), float(want)), (tier.name, name, get(name), want)
        holds = cmp.claims.holds[i]
        assert get("Claim holds") == ("–" if holds is None else "yes" if holds else "no"), tier.name
        assert get("Speed verdict") == VERDICT_NAMES[int(cmp.tiers.verdict[i])], tier.name
        assert get("Value verdict") == VALUE_NAMES[int(cmp.tiers.value_verdict[i])], tier.name
        want_flag = ("stale" if tier.name in STALE_TIERS else "price break-even stale" if before.tiers.speculative[i] else "")
        assert (get("Grey values") or "") == want_flag, tier.name
    rapid = wb.tier_index("Orbital Rapid")
    # typed c and v took over from the roofline's (the case): the speedup moved, and the claim followed it
    assert not math.isclose(ws.cell(header + 1 + rapid, heads["Mix speedup"]).value,
                            compare(demo()).tiers.mix_speedup[rapid], rel_tol=1e-3)
    sens = book[SENSITIVITY]
    for i in range(len(wb.tiers)):
        assert sens.cell(5 + i, 1).value == wb.tiers[i].name
        got = [sens.cell(5 + i, 2 + m).value for m in range(4)]
        want = [shifted[0].tiers.mix_speedup[i], shifted[1].tiers.mix_speedup[i], cmp.tiers.mix_speedup[i], shifted[2].tiers.mix_speedup[i]]
        all_close(got, want)

    grid = book[GRID]
    all_close([grid.cell(5 + i, 3 + j).value for i in range(len(wb.tiers)) for j in range(len(wb.classes))],
               cmp.cells.speedup)
    assert [grid.cell(4, 3 + j).value for j in range(len(wb.classes))] == [x.name for x in wb.classes]
    assert not np.allclose(before.tiers.mix_speedup, cmp.tiers.mix_speedup), "the edits should have moved the report"


def test_price_break_even_says_stale_exactly_where_its_inputs_moved(recalculated):
    """A class's tokens and a baseline's price edited in the file: the pairs whose price break-even weighs them
    say so, on Comparison and Summary; every other pair's grey value still equals SpecLedger's after the edit."""
    c = recalculated["priced"]
    wb, before, after = c.workbook, compare(demo()), compare(c.workbook)
    book = openpyxl.load_workbook(c.recalculated, data_only=True)
    ws = book[COMPARISON]
    col = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
    grey_col = col["Price break-even acceptance (SpecLedger)"]
    flagged, changed = set(), set()
    for i, tier in enumerate(wb.tiers):
        for j, cls in enumerate(wb.classes):
            row = COMPARISON_HEADER_ROW + 1 + i * len(wb.classes) + j
            flag = ws.cell(row, col["Grey values"]).value or ""
            assert flag in ("", "price break-even stale"), (tier.name, cls.name, flag)
            if flag:
                flagged.add((tier.name, cls.name))
            now = grey(after.cells.price_break_even_kind[i, j], after.cells.price_break_even_alpha[i, j])
            shown = ws.cell(row, grey_col).value
            same = shown == now if isinstance(now, str) else math.isclose(shown, now, rel_tol=1e-12)
            if not same:
                changed.add((tier.name, cls.name))
    spec = [t.name for n, t in enumerate(wb.tiers) if before.tiers.speculative[n] and before.tiers.baseline_index[n] >= 0]
    want = {(t, "prose") for t in spec} | {("Orbital Rapid", cls.name) for cls in wb.classes}
    assert flagged == want
    assert changed and changed <= flagged, "a grey price break-even changed with no flag on its row"
    ws = book[SUMMARY]
    header, heads = table(ws, ("Tier", "Vendor"))
    for i, tier in enumerate(wb.tiers):
        flag = ws.cell(header + 1 + i, heads["Grey values"]).value or ""
        assert flag == ("price break-even stale" if tier.name in spec else ""), tier.name
    assert ws.cell(3, 1).value.startswith("Prices, tokens or baselines changed since export")


def test_an_input_pasted_out_of_range_is_said_on_every_row_it_feeds(recalculated):
    """Data validation stops a value typed, not one pasted: an alpha of 150%, a K of 0, a GPU off the list
    and a cleared price each mark the rows they feed, the banner says so, and the import names the cell."""
    c = recalculated["refused"]
    book = openpyxl.load_workbook(c.recalculated, data_only=True)
    wb = demo()
    ws = book[COMPARISON]
    col = {name: i + 1 for i, name in enumerate(COMPARISON_COLUMNS)}
    bad_tiers = {"Helix Fast", "Orbital Rapid", "Apex Standard"}
    for i, tier in enumerate(wb.tiers):
        for j, cls in enumerate(wb.classes):
            row = COMPARISON_HEADER_ROW + 1 + i * len(wb.classes) + j
            flag = ws.cell(row, col["Grey values"]).value or ""
            want = tier.name in bad_tiers or cls.name == "code"
            assert (flag == "input out of range") == want, (tier.name, cls.name, flag)
    header, heads = table(book[SUMMARY], ("Tier", "Vendor"))
    for i, tier in enumerate(wb.tiers):  # every tier has a code row
        assert book[SUMMARY].cell(header + 1 + i, heads["Grey values"]).value == "input out of range", tier.name
    for name in (SUMMARY, COMPARISON):
        assert book[name].cell(3, 1).value.startswith("An input on the Inputs sheet is outside"), name
    with pytest.raises(WorkbookError) as info:
        import_report(c.recalculated)
    assert "Acceptance alpha" in str(info.value) and "K" in str(info.value)
    # a setting every row reads: every row says so
    book = openpyxl.load_workbook(recalculated["refused setting"].recalculated, data_only=True)
    flags = {book[COMPARISON].cell(COMPARISON_HEADER_ROW + 1 + n, col["Grey values"]).value
             for n in range(len(wb.tiers) * len(wb.classes))}
    assert flags == {"input out of range"}
