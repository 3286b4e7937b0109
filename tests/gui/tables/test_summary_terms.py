"""The window's per-tier summary shows a vendor's terms beside the verdicts: the SLA's verdict, the downgraded share,
and in their tooltips the sentences compare and the report print; typed in the tiers table, they move the mix."""
from __future__ import annotations

from PySide6.QtCore import Qt

from gui.tables.summary_model import SUMMARY_COLUMNS


def _cell(window, row: int, column: str, role=Qt.ItemDataRole.DisplayRole):
    model = window.summary_model
    return model.data(model.index(row, [c[0] for c in SUMMARY_COLUMNS].index(column)), role)


def test_the_sla_and_the_downgrade_show_beside_the_verdicts(window):
    i = window.document.workbook.tier_index("Northwind Turbo")
    before = float(window.document.comparison.tiers.mix_speedup[i])
    assert _cell(window, i, "SLA") == "" and _cell(window, i, "Downgraded") == ""

    def terms(wb) -> None:
        t = wb.tiers[i]
        t.sla_tokens_per_s, t.sla_share, t.sla_measured_share, t.sla_share_low, t.sla_share_high = 80.0, 0.99, 0.75, 0.51, 0.9
        t.sla_requests, t.downgraded_share = 20, 0.25
        t.price_source = "list prices as read 2026-12-06 from the vendor's page; not current, check them"

    window.document.apply("terms", terms)
    window.document.flush()
    assert _cell(window, i, "SLA") == "breached" and _cell(window, i, "Downgraded") == "25%"
    tip = _cell(window, i, "SLA", Qt.ItemDataRole.ToolTipRole)
    assert "SLA: 75% (51\u201390%) of requests above 80 tok/s over 20 requests against 99% promised: breached" in tip
    assert "25% of fast requests served at standard speed" in tip
    assert float(window.document.comparison.tiers.mix_speedup[i]) < before  # as served: a quarter at standard speed
    assert "as read 2026-12-06" in _cell(window, i, "Monthly cost", Qt.ItemDataRole.ToolTipRole)


def test_the_terms_are_columns_of_the_tiers_table(window):
    model = window.tier_model
    heads = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert {"SLA tokens/s", "SLA share of requests", "Downgraded share", "Long context above (input tokens)",
            "Price cached in /1M"} <= set(heads)


def test_a_probed_closed_vendor_tier_is_judged_on_its_measured_speed_and_shows_its_price_ratio(window):
    # a vendor's preset tier: mechanics nobody gave (no verdicts from them), its speed measured by a probe; the
    # Per tier row said "speculative unknown", "incomplete", Price ratio "n/a" where compare --json says a number
    from model.workbook.vendor_presets import add_preset, load_vendor_presets

    window.document.apply("preset", lambda wb: add_preset(wb, load_vendor_presets()[0]))
    window.document.flush()
    i = window.document.workbook.tier_index("Claude Opus 4.6 fast mode")
    ratio = float(window.document.comparison.tiers.price_ratio[i])
    assert _cell(window, i, "Price ratio") == f"{ratio:.2f}x"  # a price fact, before any probe too

    def probed(wb) -> None:
        t = wb.tiers[i]
        t.measured_speedup, t.measured_speedup_low, t.measured_speedup_high = 2.22, 2.03, 2.43
        t.measured_speedup_confidence, t.measured_note, t.downgraded_share = 0.95, "probed today", 0.08

    window.document.apply("probed", probed)
    window.document.flush()
    served = 1 / (0.92 / 2.22 + 0.08)
    assert _cell(window, i, "Speed verdict") == "gain (measured)"
    assert _cell(window, i, "Value verdict") == "not worth it"
    assert _cell(window, i, "Mix speedup").startswith(f"{served:.2f}x")
    ratio = float(window.document.comparison.tiers.price_ratio[i])  # as billed: the downgraded ones at standard prices
    assert _cell(window, i, "Price ratio") == f"{ratio:.2f}x" and abs(ratio - (0.92 * 6.0 + 0.08)) < 1e-9
    assert "rest on this measured speed" in _cell(window, i, "Measured", Qt.ItemDataRole.ToolTipRole)
