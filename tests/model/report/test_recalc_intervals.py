"""Intervals in the report, recalculated by LibreOffice: undecided verdicts, the fair price and the acceptance to
guarantee follow the ranges typed on Inputs by formula, a profile's rates move E and the speedups, and a verdict
resting on too few requests for an interval says so until a range is typed for it."""
from __future__ import annotations

import pytest

openpyxl = pytest.importorskip("openpyxl")

from tests.excel_cases import ranged  # noqa: E402
from tests.model.report.recalc_checks import close, pairs, table  # noqa: E402
from model.comparison import UNDECIDED, VALUE_NAMES, VERDICT_NAMES, compare  # noqa: E402
from model.report.layout import SUMMARY  # noqa: E402
from model.comparison.verdicts import TOO_FEW_LABEL, labelled  # noqa: E402

pytestmark = pytest.mark.libreoffice


def test_undecided_and_the_fair_price_follow_the_prices_by_formula(recalculated):
    """With intervals, LibreOffice computes the same undecided verdicts and fair prices; the fair price is live."""
    c = recalculated["ranged"]
    values = openpyxl.load_workbook(c.recalculated, data_only=True)
    cmp = compare(c.workbook)
    ws = values[SUMMARY]
    header, cols = table(ws, ("Tier", "Vendor"))
    verdicts = {ws.cell(r, 1).value: ws.cell(r, cols["Value verdict"]).value
                for r in range(header + 1, header + 1 + len(cmp.tier_names))}
    assert verdicts == {t: VALUE_NAMES[int(v)] for t, v in zip(cmp.tier_names, cmp.tiers.value_verdict)}
    assert "undecided" in verdicts.values()
    fair_head = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 2).value == "Fair price factor")
    rows = {ws.cell(r, 1).value: r for r in range(fair_head + 1, ws.max_row + 1) if ws.cell(r, 1).value}
    i = cmp.tier_names.index("Northwind Turbo")
    r = rows["Northwind Turbo"]
    assert close(ws.cell(r, 2).value, cmp.fair.factor[i])
    assert close(ws.cell(r, 5).value, cmp.fair.factor_low[i])
    assert close(ws.cell(r, 3).value, cmp.fair.price_out[i])


def test_the_guarantee_of_a_profiled_mix_is_a_length_after_recalculation(recalculated):
    """Where a class is a profile or a length the Summary's acceptance to guarantee is the mix's price break-even
    length at the tier's K (model/comparison/guarantee.py), grey beside the live fair price; LibreOffice keeps it."""
    c = recalculated["profiled"]
    cmp = compare(c.workbook)
    ws = openpyxl.load_workbook(c.recalculated, data_only=True)[SUMMARY]
    header, heads = table(ws, ("Tier", "Vendor"))
    checked = 0
    for i, tier in enumerate(c.workbook.tiers):
        g = cmp.tier_parts[i].guarantee
        cell = ws.cell(header + 1 + i, heads["Price break-even acceptance (SpecLedger)"])
        if g.unit == "length" and g.text().startswith("AL"):
            assert cell.number_format == '"AL "0.00' and close(cell.value, g.value), tier.name
            checked += 1
    assert checked


@pytest.mark.parametrize("case", ["ranged", "profiled"])
def test_what_the_mix_runs_like_has_its_interval_beside_it(recalculated, case):
    """compare's text gives 'runs like' with its interval; the Summary's fair-price table has the ends beside it,
    and after LibreOffice's recalculation they are compare()'s (a length's by formula over Mix low / high)."""
    c = recalculated[case]
    cmp = compare(c.workbook)
    ws = openpyxl.load_workbook(c.recalculated, data_only=True)[SUMMARY]
    fair_head = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 2).value == "Fair price factor")
    heads = {ws.cell(fair_head, col).value: col for col in range(1, ws.max_column + 1)}
    rows = {ws.cell(r, 1).value: r for r in range(fair_head + 1, ws.max_row + 1) if ws.cell(r, 1).value}
    checked = 0
    for i, name in enumerate(cmp.tier_names):
        if name not in rows:
            continue
        g = cmp.tier_parts[i].guarantee
        for head, want in (("Runs like, low end", g.runs_low), ("Runs like, high end", g.runs_high)):
            got = ws.cell(rows[name], heads[head]).value
            if want == want:
                assert close(got, want), (name, head, got, want)
                checked += 1
            else:
                assert got in (None, ""), (name, head, got)
    assert checked


def test_a_range_typed_on_inputs_moves_the_intervals_and_verdicts(recalculated):
    """The interval's ends are inputs: narrowed on Inputs, LibreOffice's ends, mix intervals and verdicts are
    compare()'s of the narrowed workbook, and the undecided verdicts of the range as exported are decided."""
    c = recalculated["narrowed"]
    cmp, before = compare(c.workbook), compare(ranged())
    book = openpyxl.load_workbook(c.recalculated, data_only=True)
    for i, j, where, value in pairs(book, c.workbook):
        for name, want in (("Speedup, low end", cmp.cells.speedup_low[i, j]), ("Speedup, high end", cmp.cells.speedup_high[i, j]),
                           ("Speedup vs baseline, low end", cmp.cells.speedup_vs_baseline_low[i, j]),
                           ("Speedup vs baseline, high end", cmp.cells.speedup_vs_baseline_high[i, j])):
            assert close(value(name), float(want)), (where, name, value(name), want)
        assert value("Speed verdict") == VERDICT_NAMES[int(cmp.cells.verdict[i, j])], where
        assert value("Value verdict") == VALUE_NAMES[int(cmp.cells.value_verdict[i, j])], where
    ws = book[SUMMARY]
    header, heads = table(ws, ("Tier", "Vendor"))
    for i, tier in enumerate(c.workbook.tiers):
        get = lambda name: ws.cell(header + 1 + i, heads[name]).value  # noqa: E731
        for name, want in (("Mix low", cmp.tiers.mix_speedup_low[i]), ("Mix high", cmp.tiers.mix_speedup_high[i]),
                           ("Speedup vs baseline, low end", cmp.tiers.speedup_vs_baseline_low[i])):
            assert close(get(name), float(want)), (tier.name, name, get(name), want)
        assert get("Value verdict") == VALUE_NAMES[int(cmp.tiers.value_verdict[i])], tier.name
        assert get("Speed verdict") == VERDICT_NAMES[int(cmp.tiers.verdict[i])], tier.name
    was = {t for i, t in enumerate(before.tier_names) if before.tiers.value_verdict[i] == UNDECIDED}
    now = {t for i, t in enumerate(cmp.tier_names) if cmp.tiers.value_verdict[i] == UNDECIDED}
    # the narrower ranges decided Northwind Turbo; Helix Fast stays undecided by its widened override
    assert "Northwind Turbo" in was - now and "Helix Fast" in now, (was, now)
    # the override's range was widened: its class's verdict on that tier went undecided
    o = c.workbook.overrides[0]
    i, j = c.workbook.tier_index(o.tier), c.workbook.class_index(o.task_class)
    assert cmp.cells.value_verdict[i, j] == UNDECIDED != before.cells.value_verdict[i, j] or cmp.cells.verdict[i, j] != before.cells.verdict[i, j]


def test_profile_rates_typed_on_inputs_move_e_and_the_speedups(recalculated):
    """A profile's rates and a tier's K edited on Inputs: E (1 + the running products up to K), its extrapolated
    mark and the speedups are compare()'s of the edited workbook, recalculated by LibreOffice."""
    c = recalculated["profile edited"]
    assert [r.profile for r in c.workbook.classes if r.profile][0] == (0.95, 0.7, 0.82)
    cmp = compare(c.workbook)
    book = openpyxl.load_workbook(c.recalculated, data_only=True)
    for i, j, where, value in pairs(book, c.workbook):
        for name, want in (("Tokens per stretch E", cmp.cells.tokens_per_stretch[i, j]), ("Speedup", cmp.cells.speedup[i, j]),
                           ("Break-even length E*", cmp.cells.break_even_length[i, j]),
                           ("Speedup vs baseline", cmp.cells.speedup_vs_baseline[i, j]),
                           ("E, low end", cmp.cells.tokens_per_stretch_low[i, j]),
                           ("E, high end", cmp.cells.tokens_per_stretch_high[i, j]),
                           ("Speedup, low end", cmp.cells.speedup_low[i, j]), ("Speedup, high end", cmp.cells.speedup_high[i, j])):
            assert close(value(name), float(want)), (where, name, value(name), want)
        if cmp.cells.acceptance.kind[i, j] and cmp.tiers.speculative[i]:
            assert (value("E extrapolated") == "extrapolated") == bool(cmp.cells.extrapolated[i, j]), where
    fast, code = c.workbook.tier_index("Helix Fast"), c.workbook.class_index("code")
    # code's interval on E typed anew on Inputs, carried to K 6 by formula (it was empty for profiles before)
    assert 3.0 < cmp.cells.tokens_per_stretch_low[fast, code] < cmp.cells.tokens_per_stretch_high[fast, code]
    assert cmp.cells.extrapolated[fast, code]  # K 6 past code's three positions: the decay cell carried it
    header, heads = table(book[SUMMARY], ("Tier", "Vendor"))
    for i, tier in enumerate(c.workbook.tiers):
        assert close(book[SUMMARY].cell(header + 1 + i, heads["Mix speedup"]).value, float(cmp.tiers.mix_speedup[i])), tier.name


def _verdicts(recalculated: dict, case: str) -> dict[str, tuple[str, str]]:
    """Northwind Turbo's speed and value verdicts per class, as LibreOffice computed them, and compare()'s
    (labelled where they rest on too few requests) beside them checked equal."""
    c = recalculated[case]
    cmp = compare(c.workbook)
    book = openpyxl.load_workbook(c.recalculated, data_only=True)
    out = {}
    for i, j, where, value in pairs(book, c.workbook):
        speed, worth = value("Speed verdict"), value("Value verdict")
        assert speed == labelled(VERDICT_NAMES[int(cmp.cells.verdict[i, j])], cmp.too_few(i, j)), where
        assert worth == labelled(VALUE_NAMES[int(cmp.cells.value_verdict[i, j])], cmp.too_few(i, j)), where
        if c.workbook.tiers[i].name == "Northwind Turbo":
            out[c.workbook.classes[j].name] = (speed, worth)
    return out


def test_a_verdict_on_too_few_requests_says_so_until_a_range_is_typed_for_it(recalculated):
    """code (an alpha) and json (a length) measured from too few requests for an interval: their verdicts carry
    '(too few requests)' by formula; a range typed on Inputs (alpha's ends, E's in the profiles table) gives them
    an interval, and LibreOffice drops the label as compare() of the edited workbook does."""
    few = _verdicts(recalculated, "too few")
    for cls in ("code", "json"):
        assert all(v.endswith(f"({TOO_FEW_LABEL})") for v in few[cls]), (cls, few[cls])
    assert not any(TOO_FEW_LABEL in v for v in few["prose"])
    ranged_now = _verdicts(recalculated, "too few ranged")
    for cls in ("code", "json"):
        assert not any(TOO_FEW_LABEL in v for v in ranged_now[cls]), (cls, ranged_now[cls])
