"""The results grid's show choice, the summary's two verdicts, and the c and v a roofline tier uses."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from gui.tables.result_models import VALUE_COLOURS, VERDICT_COLOURS

from gui.tables.summary_model import SUMMARY_COLUMNS
from model.common import formatting as fmt
from model.comparison import NOT_WORTH, VALUE_NAMES, VERDICT_NAMES


def _choose(window, key: str) -> None:
    window.metric_combo.setCurrentIndex(window.metric_combo.findData(key))


def _cell(window, tier: str, cls: str, role=Qt.ItemDataRole.DisplayRole):
    cmp = window.document.comparison
    model = window.results_model
    return model.data(model.index(cmp.tier_names.index(tier), cmp.class_names.index(cls)), role)


def test_the_grid_shows_either_verdict_coloured_by_it(window):
    cmp = window.document.comparison
    i, j = cmp.tier_names.index("Northwind Turbo"), cmp.class_names.index("prose")
    # prose on Northwind Turbo is faster than plain decoding but not by its price ratio
    assert VALUE_NAMES[int(cmp.cells.value_verdict[i, j])] == "not worth it"
    _choose(window, "speed_verdict")
    assert _cell(window, "Northwind Turbo", "prose") == VERDICT_NAMES[int(cmp.cells.verdict[i, j])]
    assert _cell(window, "Northwind Turbo", "prose", Qt.ItemDataRole.BackgroundRole).color() == VERDICT_COLOURS[int(cmp.cells.verdict[i, j])]
    assert "gain" in window.legend.text() and "worth" not in window.legend.text()

    _choose(window, "value_verdict")
    assert _cell(window, "Northwind Turbo", "prose") == "not worth it"
    assert _cell(window, "Northwind Turbo", "prose", Qt.ItemDataRole.BackgroundRole).color() == VALUE_COLOURS[NOT_WORTH]
    assert _cell(window, "Northwind Standard", "prose") == "n/a"  # no baseline, no speculation
    assert "worth the premium" in window.legend.text()

    _choose(window, "price_break_even")
    assert _cell(window, "Northwind Turbo", "prose") == fmt.pct(cmp.cells.price_break_even_alpha[i, j])
    tip = _cell(window, "Northwind Turbo", "prose", Qt.ItemDataRole.ToolTipRole)
    assert "Price ratio" in tip and "Value verdict: not worth it" in tip

    _choose(window, "speedup")  # back to the speed colours
    assert _cell(window, "Northwind Turbo", "prose", Qt.ItemDataRole.BackgroundRole).color() == VERDICT_COLOURS[int(cmp.cells.verdict[i, j])]


def test_the_grid_follows_an_edit_in_value_mode(window):
    _choose(window, "value_verdict")
    assert _cell(window, "Northwind Turbo", "code") == "worth the premium"
    row = [t.name for t in window.document.workbook.tiers].index("Northwind Turbo")
    # ten times the price: no acceptance pays for that
    window.document.apply("price", lambda wb: setattr(wb.tiers[row], "price_out", wb.tiers[row].price_out * 10))
    window.document.flush()
    assert _cell(window, "Northwind Turbo", "code") == "not worth it"


def test_the_summary_leads_with_both_verdicts(window):
    heads = [c[0] for c in SUMMARY_COLUMNS]
    assert heads[:3] == ["Speed verdict", "Value verdict", "Claim holds"]
    model, cmp = window.summary_model, window.document.comparison
    for i, name in enumerate(cmp.tier_names):
        value = model.data(model.index(i, heads.index("Value verdict")))
        assert value == VALUE_NAMES[int(cmp.tiers.value_verdict[i])], name
    i = cmp.tier_names.index("Northwind Turbo")
    assert model.data(model.index(i, heads.index("Value needs"))) == "α " + fmt.pct(cmp.tiers.price_break_even_alpha[i])


def test_help_explains_both_verdicts(window):
    from gui.window import help
    from gui.window.guide_text import anchors, guide_markdown

    text = guide_markdown()
    assert "speed verdict" in text and "value verdict" in text and "Price break-even α" in text
    assert help.ANCHOR_FOR_METRIC["value_verdict"] == help.VALUE and help.VALUE in anchors(text)


def test_roofline_tiers_show_the_c_and_v_they_use(qtbot, window):
    model, wb, cmp = window.tier_model, window.document.workbook, window.document.comparison
    row = [t.name for t in wb.tiers].index("Northwind Turbo")
    assert wb.tiers[row].cost_model == "roofline"
    c_col, v_col = model.column_of("c"), model.column_of("v")
    c_used = cmp.cells.c[row]
    shown = model.data(model.index(row, c_col))
    assert shown == f"{fmt.number(c_used.min())}–{fmt.number(c_used.max())}"
    assert shown != fmt.number(wb.tiers[row].c)  # not the typed 0.1 it ignores
    assert model.data(model.index(row, c_col), Qt.ItemDataRole.ForegroundRole) is None  # not greyed as unused
    tip = model.data(model.index(row, c_col), Qt.ItemDataRole.ToolTipRole)
    for j, cls in enumerate(cmp.class_names):
        assert f"{cls} (" in tip and fmt.number(c_used[j]) in tip
    assert "claim's context" in tip
    assert model.data(model.index(row, v_col)).startswith(fmt.fixed(cmp.cells.v[row].min(), 3))
    # a typed tier still shows its typed value
    typed = [t.name for t in wb.tiers].index("Helix Fast")
    assert model.data(model.index(typed, c_col)) == "0.08"

    # a class's context is not on the tier's row, yet the used c follows it
    j = cmp.class_names.index("code")
    with qtbot.waitSignal(model.dataChanged, timeout=2000):
        window.document.apply("context", lambda w: setattr(w.classes[j], "context", 131072))
        window.document.flush()
    new_c = window.document.comparison.cells.c[row]
    assert not np.allclose(new_c, c_used)
    assert model.data(model.index(row, c_col)) == f"{fmt.number(new_c.min())}–{fmt.number(new_c.max())}"


def test_the_summary_shows_a_probes_measured_speedup_beside_the_model_with_words_in_its_tooltip(window):
    doc = window.document

    def measure(wb):
        t = wb.tiers[wb.tier_index("Northwind Turbo")]
        t.measured_speedup, t.measured_note = 2.32, "probed 2026-11-30 at 4K, against Northwind Standard"
    doc.apply("probe", measure)
    doc.flush()
    model, i = window.summary_model, doc.workbook.tier_index("Northwind Turbo")
    heads = [c[0] for c in SUMMARY_COLUMNS]
    col = heads.index("Measured")
    assert col == heads.index("vs baseline") + 1  # side by side with the modelled speedup over the baseline
    assert model.data(model.index(i, col)) == "2.32x (!)"
    tip = model.data(model.index(i, col), Qt.ItemDataRole.ToolTipRole)
    assert "2026-11-30 at 4K" in tip and "modelled 1.44x" in tip and "doubt the acceptance" in tip
    assert model.data(model.index(0, col)) == ""  # nothing measured on the standard tier


def _imported(window, tier: str, **fields):
    """The tier as a price list without its mechanics leaves it (Tier.defaulted), in one undo step."""
    doc = window.document

    def imported(wb):
        for name, value in fields.items():
            setattr(wb.tiers[wb.tier_index(tier)], name, value)
    doc.apply("import", imported)
    doc.flush()
    return doc


def test_an_incomplete_tier_shows_why_in_its_own_colour_until_the_analyst_enters_c_and_v(window):
    from gui.tables.result_models import INCOMPLETE_COLOUR
    doc = _imported(window, "Apex Express", cost_model="typed", defaulted="c, v, gpu, pair")
    model, i = window.summary_model, doc.workbook.tier_index("Apex Express")
    col = [c[0] for c in SUMMARY_COLUMNS].index("Speed verdict")
    assert model.data(model.index(i, col)) == "incomplete: needs c and v"
    assert model.data(model.index(i, col), Qt.ItemDataRole.BackgroundRole).color() == INCOMPLETE_COLOUR
    assert "Nobody gave c, v, gpu, pair" in model.data(model.index(i, col), Qt.ItemDataRole.ToolTipRole)
    tiers = window.tier_model
    for field in ("c", "v"):  # typed by the analyst, even the same value, counts as entered
        assert tiers.setData(tiers.index(i, tiers.column_of(field)), "0.1", Qt.ItemDataRole.EditRole)
        doc.flush()
    assert model.data(model.index(i, col)) in VERDICT_NAMES.values()


def test_a_made_up_tier_shows_no_mix_and_a_tier_over_a_made_up_baseline_says_why_it_has_no_value_verdict(window):
    """The window showed a mix speedup from made-up c and v, and a value verdict over a made-up baseline, where
    compare() and the report withhold them."""
    from gui.tables.result_models import INCOMPLETE_COLOUR
    doc = _imported(window, "Northwind Standard", speculative="unknown", defaulted="speculative, k, c, v")
    model, heads = window.summary_model, [c[0] for c in SUMMARY_COLUMNS]
    std, turbo = doc.workbook.tier_index("Northwind Standard"), doc.workbook.tier_index("Northwind Turbo")
    assert model.data(model.index(std, heads.index("Mix speedup"))) == "–"
    assert model.data(model.index(std, heads.index("Cost per 1x"))) == "–"
    value = model.index(turbo, heads.index("Value verdict"))
    assert model.data(value) == "baseline Northwind Standard: speculative unknown"
    assert model.data(value, Qt.ItemDataRole.BackgroundRole).color() == INCOMPLETE_COLOUR
    assert "Northwind Standard: speculative unknown" in model.data(value, Qt.ItemDataRole.ToolTipRole)
    assert model.data(model.index(turbo, heads.index("vs baseline"))) == "–"
    assert model.data(model.index(turbo, heads.index("Mix speedup"))).startswith("1.44x")  # its own speed stands


def test_an_impossible_claim_reads_out_of_reach_as_in_compare_and_the_report(window):
    doc = window.document
    doc.apply("claim", lambda wb: setattr(wb.tiers[wb.tier_index("Apex Express")], "claimed_speedup", 40.0))
    doc.flush()
    model = window.summary_model
    col = [c[0] for c in SUMMARY_COLUMNS].index("Claim needs alpha")
    assert model.data(model.index(doc.workbook.tier_index("Apex Express"), col)) == fmt.OUT_OF_REACH


def test_the_grid_says_why_a_made_up_tier_has_no_verdicts_per_class_as_the_report_does(window):
    """Its cells read 'n/a' in the window where the report's Comparison says 'incomplete: needs c and v'."""
    from gui.tables.result_models import INCOMPLETE_COLOUR
    doc = _imported(window, "Apex Express", cost_model="typed", defaulted="c, v, gpu, pair")
    grid, i = window.results_model, doc.workbook.tier_index("Apex Express")
    grid.set_metric("value_verdict")
    assert grid.data(grid.index(i, 0)) == "incomplete"
    grid.set_metric("speed_verdict")
    assert grid.data(grid.index(i, 0)) == "incomplete: needs c and v"
    assert grid.data(grid.index(i, 0), Qt.ItemDataRole.BackgroundRole).color() == INCOMPLETE_COLOUR
    painted = []
    grid.dataChanged.connect(lambda a, b, roles=(): painted.append((a.row(), b.row())))
    tiers = window.tier_model
    assert tiers.setData(tiers.index(i, tiers.column_of("c")), "0.1", Qt.ItemDataRole.EditRole)
    doc.flush()
    # its verdicts stay withheld (v is still made up), its words change: the row is repainted
    assert grid.data(grid.index(i, 0)) == "incomplete: needs v"
    assert any(top <= i <= bottom for top, bottom in painted), painted
