"""A probe's measured speedup shown where it counts: compare's text and JSON, the Excel Summary,
beside the modelled speedup over the baseline, with words on which inputs to doubt when they disagree."""
from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from commands.calc_compare import run_compare
from model.comparison import compare
from model.comparison.measured_speed import ABOVE, AGREES, BELOW
from model.workbook.json_file import load_demo, save_workbook

TURBO = "Northwind Turbo"  # baseline Northwind Standard (plain), every class's alpha assumed


def _measured(speed: float, note: str = "probed 2026-11-30 at 4K, against Northwind Standard"):
    wb = load_demo()
    tier = wb.tiers[wb.tier_index(TURBO)]
    tier.measured_speedup, tier.measured_note = speed, note
    return wb


def test_measured_beside_modelled_and_which_inputs_to_doubt():
    wb = _measured(2.32)
    cmp = compare(wb)
    i = wb.tier_index(TURBO)
    m = cmp.tier_parts[i].measured
    assert m.measured == 2.32 and m.modelled == pytest.approx(float(cmp.tiers.speedup_vs_baseline[i]))
    assert m.agreement == ABOVE and "doubt the acceptance first" in m.doubt  # the classes' alpha is assumed
    # with a measured acceptance on every class the acceptance is not the suspect: c and v are
    for c in wb.classes:
        wb.set_override(TURBO, c.name, c.alpha, "probed", "")
    m = compare(wb).tier_parts[i].measured
    assert m.agreement == ABOVE and "doubt c and v" in m.doubt
    slow = compare(_measured(0.9)).tier_parts[i].measured
    assert slow.agreement == BELOW and "slower than modelled" in slow.doubt
    near = compare(_measured(float(cmp.tiers.speedup_vs_baseline[i]) * 1.05)).tier_parts[i].measured
    assert near.agreement == AGREES and near.doubt == "" and "they agree" in near.words()
    assert cmp.tier_parts[0].measured.measured is None and cmp.tier_parts[0].measured.words() == ""


def test_compare_text_and_json_show_the_measured_speedup_with_its_context_and_date(tmp_path: Path):
    path = tmp_path / "wb.json"
    save_workbook(_measured(2.32), path)
    out = io.StringIO()
    run_compare(argparse.Namespace(workbook=str(path), json=True, csv=False), out)
    tiers = {r["tier"]: r for r in json.loads(out.getvalue())["tiers"]}
    turbo = tiers[TURBO]
    assert turbo["measured_speedup"] == 2.32 and "2026-11-30 at 4K" in turbo["measured_note"]
    assert turbo["measured_vs_modelled"] == ABOVE and turbo["modelled_speedup"] == pytest.approx(
        turbo["speedup_vs_baseline"])
    assert tiers["Helix Fast"]["measured_speedup"] is None
    text = io.StringIO()
    run_compare(argparse.Namespace(workbook=str(path), json=False, csv=False), text)
    line = next(ln for ln in text.getvalue().splitlines() if ln.strip().startswith(f"{TURBO}: measured"))
    assert "2.32x" in line and "2026-11-30 at 4K" in line and "modelled 1.44x" in line and "Claim 3.00x at 4K" in line


def test_the_excel_summary_lists_the_measured_speed_under_the_table(tmp_path: Path):
    openpyxl = pytest.importorskip("openpyxl")
    from model.report.export import export_report
    out = tmp_path / "r.xlsx"
    export_report(_measured(2.32), out)
    ws = openpyxl.load_workbook(out)["Summary"]
    rows = [[c.value for c in r] for r in ws.iter_rows(min_col=1, max_col=2)]
    hit = [r for r in rows if r[0] == TURBO and isinstance(r[1], str) and r[1].startswith("Measured 2.32x")]
    assert hit and "modelled 1.44x" in hit[0][1] and "doubt the acceptance" in hit[0][1]
