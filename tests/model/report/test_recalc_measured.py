"""A closed vendor's fast tier judged on its measured speed (docs/design/vendor-terms.md#judged-on-the-measured-speed),
in the report recalculated by LibreOffice: its Summary row (mix as served and its range, speed over the baseline,
cost per 1x, verdicts, claim) and its fair price equal compare(), as exported and with the confidence typed anew on
Inputs (the probe's 90% interval carried to the workbook's confidence in the formulas)."""
from __future__ import annotations

import pytest

openpyxl = pytest.importorskip("openpyxl")

from tests.model.report.recalc_checks import close, table  # noqa: E402
from model.comparison import VALUE_NAMES, VERDICT_NAMES, compare  # noqa: E402
from model.report.layout import SUMMARY  # noqa: E402

pytestmark = pytest.mark.libreoffice

TIER = "Claude Opus 4.6 fast mode"


@pytest.mark.parametrize("case, confidence", [("closed", None), ("closed at 80%", 0.8)])
def test_the_summary_judges_a_closed_tier_on_its_measured_speed(recalculated, case, confidence):
    c = recalculated[case]
    wb = c.workbook
    if confidence is not None:
        wb.settings.confidence = confidence
    cmp = compare(wb)
    i = wb.tier_index(TIER)
    assert cmp.judged_on_measured(i) and cmp.tiers.value_verdict[i] != 3  # a verdict, not n/a
    ws = openpyxl.load_workbook(c.recalculated, data_only=True)[SUMMARY]
    header, heads = table(ws, ("Tier", "Vendor"))
    get = lambda name: ws.cell(header + 1 + i, heads[name]).value  # noqa: E731
    assert get("Tier") == TIER
    for name, want in (("Mix speedup", cmp.tiers.mix_speedup[i]), ("Mix low", cmp.tiers.mix_speedup_low[i]),
                       ("Mix high", cmp.tiers.mix_speedup_high[i]), ("Speedup vs baseline", cmp.tiers.speedup_vs_baseline[i]),
                       ("Speedup vs baseline, low end", cmp.tiers.speedup_vs_baseline_low[i]),
                       ("Cost per 1x speedup", cmp.tiers.price_per_speedup[i]), ("Monthly cost", cmp.tiers.monthly_cost[i])):
        assert close(get(name), float(want)), (case, name, get(name), want)
    assert get("Value verdict") == VALUE_NAMES[int(cmp.tiers.value_verdict[i])] == "not worth it"
    assert get("Speed verdict") == VERDICT_NAMES[int(cmp.tiers.verdict[i])]
    assert get("Claim holds") == "no" and get("Alpha the claim needs (SpecLedger)") == "–"
    assert get("Price break-even acceptance (SpecLedger)") == "–"
    # the fair price table: the factor at the measured speed and at the pessimistic end of its range
    rows = {ws.cell(r, 1).value: r for r in range(header + len(wb.tiers) + 1, ws.max_row + 1)}
    heading = next(r for r in rows.values() if str(ws.cell(r, 1).value).startswith("Fair price:"))
    fair = next(r for name, r in rows.items() if name == TIER and r > heading)
    assert close(ws.cell(fair, 2).value, float(cmp.fair.factor[i]))
    assert close(ws.cell(fair, 5).value, float(cmp.fair.factor_low[i]))
