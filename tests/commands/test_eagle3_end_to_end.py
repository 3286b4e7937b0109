"""Profiles end to end, as an analyst meets them: a vLLM /metrics scrape of an EAGLE-3 tier (per-position
counters falling along the stretch, K = 3) imported with import-metrics --apply onto a tier run at K = 5; the
import says the K differs, compare uses the measured profile and states the break-even as a length, marked
extrapolated, and the Excel report's Comparison row does the same."""
from __future__ import annotations

import io
import json

import pytest

from main import main
from model.workbook.json_file import load_demo, load_workbook, save_workbook
from tests.model.metrics.engine_files import vllm_scrape

# steps by accepted drafts 0..3: conditional rates 0.78, 0.69, 0.61 (EAGLE-3's shape: falling with position)
HIST = [2746, 2995, 2620, 4119]


def test_an_eagle3_scrape_runs_through_import_compare_and_the_report(tmp_path, capsys):
    scrape = tmp_path / "eagle3.prom"
    scrape.write_text(vllm_scrape({"meta-llama/Llama-3.1-8B-Instruct": HIST}))
    wb = load_demo()
    tier = wb.tiers[wb.tier_index("Northwind Turbo")]
    assert tier.k == 5
    path, out = tmp_path / "wb.json", tmp_path / "wb2.json"
    save_workbook(wb, path)
    assert main(["import-metrics", str(scrape), "--task-class", "code", "--apply", str(path), "--tier", tier.name,
                 "-o", str(out)]) == 0
    said = capsys.readouterr().out
    # the import says the tier uses the profile at another K, and what that makes of its numbers
    assert ("code on Northwind Turbo: K mismatch: measured at K = 3 in the engine's metrics, the workbook's tier has "
            "K = 5") in said and "labelled extrapolated" in said
    o = load_workbook(out).override_for(tier.name, "code")
    assert o is not None and len(o.profile) == 3 and o.profile[0] == pytest.approx(9734 / 12480)

    assert main(["compare", str(out), "--json"]) == 0
    pair = next(p for p in json.loads(capsys.readouterr().out)["pairs"]
                if (p["tier"], p["task_class"]) == (tier.name, "code"))
    assert pair["acceptance_kind"] == "profile" and pair["acceptance_measured_k"] == 3 and pair["extrapolated"]
    assert pair["profile"] == pytest.approx(list(o.profile))
    assert pair["break_even_alpha"] is None and pair["break_even_length"] > 1.0
    assert "does not apply" in pair["break_even_alpha_note"]
    assert main(["compare", str(out)]) == 0
    text = capsys.readouterr().out
    row = next(line for line in text.splitlines() if line.startswith(tier.name) and " code " in line)
    assert "AL " in row and "*" in row and "E* " in row  # the length, marked extrapolated, against E*

    openpyxl = pytest.importorskip("openpyxl")
    from model.report.export import COMPARISON_COLUMNS, COMPARISON_HEADER_ROW, build_report
    from model.report.layout import COMPARISON

    data, expected = build_report(load_workbook(out), "wb2.json")
    ws = openpyxl.load_workbook(io.BytesIO(data))[COMPARISON]
    wb2 = load_workbook(out)
    r = COMPARISON_HEADER_ROW + 1 + wb2.tier_index(tier.name) * len(wb2.classes) + wb2.class_index("code")
    cell = lambda name: ws.cell(r, COMPARISON_COLUMNS.index(name) + 1)  # noqa: E731
    assert cell("Break-even alpha (SpecLedger)").value == "n/a: a profile"
    assert expected[(COMPARISON, cell("Break-even length E*").coordinate)] == pytest.approx(pair["break_even_length"])
    assert expected[(COMPARISON, cell("Tokens per stretch E").coordinate)] == pytest.approx(pair["mean_acceptance_length"])
    assert expected[(COMPARISON, cell("E extrapolated").coordinate)] == "extrapolated"
