"""A vendor's terms in the report, recalculated by LibreOffice: band and cached prices, the downgraded share in the
mix and the bill, and the SLA's verdict on the Summary equal compare(), as exported and typed anew on Inputs."""
from __future__ import annotations

import pytest

openpyxl = pytest.importorskip("openpyxl")

from tests.model.report.recalc_checks import close, table  # noqa: E402
from model.comparison import VALUE_NAMES, VERDICT_NAMES, compare  # noqa: E402
from model.report.importer import import_report  # noqa: E402
from model.report.layout import SUMMARY  # noqa: E402

pytestmark = pytest.mark.libreoffice


@pytest.mark.parametrize("case", ["termed", "terms edited"])
def test_the_summary_follows_the_terms(recalculated, case):
    c = recalculated[case]
    wb, cmp = c.workbook, compare(c.workbook)
    assert any(t.band_threshold for t in wb.tiers) and any(t.downgraded_share for t in wb.tiers)
    ws = openpyxl.load_workbook(c.recalculated, data_only=True)[SUMMARY]
    header, heads = table(ws, ("Tier", "Vendor"))
    served_apart = 0
    for i, tier in enumerate(wb.tiers):
        get = lambda name: ws.cell(header + 1 + i, heads[name]).value  # noqa: E731
        assert get("Tier") == tier.name
        for name, want in (("Mix speedup", cmp.tiers.mix_speedup[i]), ("Monthly cost", cmp.tiers.monthly_cost[i]),
                           ("Premium over baseline", cmp.tiers.premium[i]), ("Cost per 1x speedup", cmp.tiers.price_per_speedup[i]),
                           ("Mix low", cmp.tiers.mix_speedup_low[i]), ("Mix high", cmp.tiers.mix_speedup_high[i])):
            assert close(get(name), float(want)), (case, tier.name, name, get(name), want)
        assert get("Value verdict") == VALUE_NAMES[int(cmp.tiers.value_verdict[i])], (case, tier.name)
        assert get("Speed verdict") == VERDICT_NAMES[int(cmp.tiers.verdict[i])], (case, tier.name)
        assert get("SLA") == (cmp.terms.sla_verdict[i] or ("not measured" if cmp.terms.sla[i] else "–")), (case, tier.name)
        served_apart += not close(float(cmp.tiers.mix_speedup[i]), float(cmp.terms.mix_speedup_fast[i]))
    assert served_apart >= 2  # the downgraded shares moved the mixes the Summary shows
    flags = [ws.cell(header + 1 + i, heads["Grey values"]).value or "" for i in range(len(wb.tiers))]
    if case == "terms edited":
        helix = wb.tier_index("Helix Fast")
        assert cmp.terms.sla_verdict[helix] == "met" and ws.cell(header + 1 + helix, heads["SLA"]).value == "met"
        # a term SpecLedger's grey price break-evens were solved from moved: they say so, as a price's edit does
        for name in ("Northwind Turbo", "Helix Fast"):
            assert flags[wb.tier_index(name)] == "price break-even stale", (name, flags)
    else:
        assert not any(flags), flags
    assert import_report(c.recalculated) == wb  # LibreOffice's save keeps every term


def test_a_term_pasted_out_of_range_is_said_on_its_tier(recalculated):
    from model.report.comparison_sheet import REFUSED_INPUT

    c = recalculated["terms refused"]
    ws = openpyxl.load_workbook(c.recalculated, data_only=True)[SUMMARY]
    header, heads = table(ws, ("Tier", "Vendor"))
    turbo = c.workbook.tier_index("Northwind Turbo")
    assert ws.cell(header + 1 + turbo, heads["Grey values"]).value == REFUSED_INPUT
