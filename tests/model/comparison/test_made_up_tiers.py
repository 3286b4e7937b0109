"""Tiers whose mechanics a price list made up (Tier.defaulted): compare() withholds what they would decide, its
mix speedup, interval, speed over the baseline, cost per 1x, claim and verdicts, and every verdict priced against
such a baseline, with the reason in words; compare's text and JSON, the window and the report read that one rule."""
from __future__ import annotations

import io
import json
import math
from argparse import Namespace
from pathlib import Path

import pytest

from commands.calc_compare import comparison_text, run_compare
from model.comparison.records import pair_records
from model.comparison.records import tier_records
from model.comparison.brief import UNDECIDED_WORDS, brief
from model.comparison import compare
from model.comparison.verdicts import NOT_APPLICABLE
from model.workbook.json_file import save_workbook

from tests.excel_cases import made_up  # the report's tests' workbook: the same three Zeta tiers

OWN = {"Zeta Fast": "incomplete: needs c and v", "Zeta Maybe": "speculative unknown"}
OVER = "Zeta Over Maybe"  # complete itself, priced against Zeta Maybe
WHY = "baseline Zeta Maybe: speculative unknown"


def test_a_made_up_tier_has_no_mix_speed_over_its_baseline_cost_per_1x_or_claim():
    wb = made_up()
    wb.tiers[wb.tier_index("Zeta Fast")].claimed_speedup = 2.0  # a claim to hold against made-up c and v
    cmp = compare(wb)
    for name, why in OWN.items():
        i = wb.tier_index(name)
        assert cmp.made_up(i) == why
        for arr in (cmp.tiers.mix_speedup, cmp.tiers.mix_speedup_low, cmp.tiers.mix_speedup_high, cmp.tiers.speedup_vs_baseline,
                    cmp.tiers.speedup_vs_baseline_low, cmp.tiers.speedup_vs_baseline_high, cmp.tiers.price_per_speedup,
                    cmp.tiers.effective_alpha, cmp.fair.factor, cmp.claims.alpha, cmp.tiers.cost_factor):
            assert math.isnan(arr[i]), name
        assert cmp.claims.holds[i] is None and cmp.tiers.verdict[i] == NOT_APPLICABLE
        assert cmp.tiers.value_verdict[i] == NOT_APPLICABLE and cmp.value_withheld(i) == "incomplete"
    record = {r["tier"]: r for r in tier_records(cmp)}["Zeta Fast"]
    assert record["mix_speedup"] is None and record["speedup_interval"] is None
    assert record["speedup_vs_baseline"] is None and record["price_per_speedup"] is None
    assert record["claim_holds"] is None and record["claim_implied_alpha"] is None and record["claim_reachable"] is None
    assert record["incomplete"] == OWN["Zeta Fast"]
    # the complete tiers keep theirs
    turbo = wb.tier_index("Northwind Turbo")
    assert cmp.tiers.mix_speedup[turbo] == pytest.approx(1.44, abs=0.01) and cmp.baseline_withheld(turbo) == ""


def test_a_tier_priced_against_a_made_up_baseline_gets_no_value_verdict_and_says_why():
    wb = made_up()
    cmp = compare(wb)
    i = wb.tier_index(OVER)
    assert cmp.baseline_withheld(i) == WHY and cmp.value_withheld(i) == WHY
    assert cmp.made_up(i) == ""
    assert cmp.tiers.mix_speedup[i] == pytest.approx(1.95, abs=0.01)  # its own speed stands (its mechanics are given)
    assert cmp.tiers.verdict[i] != NOT_APPLICABLE
    assert math.isnan(cmp.tiers.speedup_vs_baseline[i]) and cmp.tiers.value_verdict[i] == NOT_APPLICABLE
    assert math.isnan(cmp.fair.factor[i])
    # per class too: the baseline's per-class speeds are as made up as its mix
    assert (cmp.cells.value_verdict[i] == NOT_APPLICABLE).all()
    assert all(math.isnan(x) for x in cmp.cells.speedup_vs_baseline[i])
    record = {r["tier"]: r for r in tier_records(cmp)}[OVER]
    assert record["baseline_incomplete"] == WHY and record["incomplete"] is None
    # a baseline with made-up c and v reads "is incomplete: ..."
    wb.tiers[i].baseline = "Zeta Fast"
    assert compare(wb).baseline_withheld(i) == "baseline Zeta Fast is incomplete: needs c and v"


def test_compare_text_and_json_show_the_same(tmp_path: Path):
    wb = made_up()
    text = comparison_text(compare(wb)).splitlines()
    rows = {line[:22].strip(): line for line in text[1:text.index("")]}
    for name, why in OWN.items():
        mix = rows[name][22:30].strip()
        assert mix == "–" and why in rows[name] and rows[name].endswith("incomplete"), rows[name]
    assert rows[OVER].endswith(WHY), rows[OVER]
    path = tmp_path / "made_up.json"
    save_workbook(wb, path)
    out = io.StringIO()
    run_compare(Namespace(workbook=str(path), json=True, csv=False), out)
    tiers = {r["tier"]: r for r in json.loads(out.getvalue())["tiers"]}
    assert tiers["Zeta Fast"]["mix_speedup"] is None and tiers["Zeta Maybe"]["verdict"] == "n/a"
    assert tiers[OVER]["baseline_incomplete"] == WHY and tiers[OVER]["value_verdict"] == "n/a"
    assert tiers[OVER]["speedup_vs_baseline"] is None


def test_the_brief_leaves_a_tier_over_a_made_up_baseline_undecided():
    """It said 'do not take it' once the per-class value verdicts were withheld: no class paid."""
    wb = made_up()
    got = {b.tier: b for b in brief(wb, compare(wb))}
    assert got[OVER].recommendation == UNDECIDED_WORDS and WHY in got[OVER].why
    assert got[OVER].ask == f"First, what is missing: {WHY}."
    assert "Zeta Maybe" not in got  # a standard tier (another's baseline): nothing to recommend on it
    # a made-up tier's own line models no speed
    assert got["Zeta Fast"].speed.startswith("Not known yet") and "x" not in got["Zeta Fast"].speed.split(";")[0]
    assert got["Zeta Fast"].ask.startswith("First, how its fast mode runs")


def test_a_made_up_tier_models_no_speedup_anywhere():
    """A price list's tier with only its prices showed '2.40x (2.14–2.70)' per class and 'Best K: 6 gives 2.47x'
    from the placeholders (c 0.1, v 1, K 4), and the report's Charts and Curves plotted it."""
    import io

    import openpyxl

    from model.curves.chart_data import alpha_curves
    from model.report.export import build_report
    from model.report.layout import COMPARISON, CURVES, GRID

    wb = made_up()
    cmp = compare(wb)
    for name in OWN:
        i = wb.tier_index(name)
        for arr in (cmp.cells.speedup, cmp.cells.speedup_low, cmp.cells.speedup_high, cmp.cells.optimal_speedup, cmp.cells.tokens_per_stretch,
                    cmp.cells.trailer_fill, cmp.cells.break_even_alpha, cmp.cells.break_even_length, cmp.cells.cost_factor, cmp.cells.margin,
                    cmp.cells.price_break_even_alpha):
            assert all(math.isnan(x) for x in arr[i]), name
        pairs = [r for r in pair_records(cmp) if r["tier"] == name]
        assert pairs and all(r["speedup"] is None and r["speedup_interval"] is None for r in pairs)
    text = comparison_text(cmp)
    assert not [line for line in text.splitlines() if line.startswith("Zeta Fast") and "x " in line
                and "incomplete" not in line]
    assert not set(alpha_curves(wb.tiers).tier_names) & set(OWN)
    book = openpyxl.load_workbook(io.BytesIO(build_report(wb)[0]), data_only=True)
    curves = book[CURVES]
    shown = {str(c.value) for row in curves.iter_rows(max_row=60) for c in row if c.value}
    assert not any(name in s for s in shown for name in OWN), "the Curves sheet plots a made-up tier"
    grid = book[GRID]
    rows = {r[0].value: [c.value for c in r[2:]] for r in grid.iter_rows(min_row=1) if r[0].value in OWN}
    assert rows and all(v == "–" for vals in rows.values() for v in vals if v is not None)
    ws = book[COMPARISON]
    heads = {ws.cell(4, c).value: c for c in range(1, ws.max_column + 1)}
    n_c = len(wb.classes)
    for name in OWN:
        for j in range(n_c):
            assert ws.cell(5 + wb.tier_index(name) * n_c + j, heads["Speedup"]).value == "–"
