"""The probe says when the K it measured is not the workbook tier's K: in its JSON, its text, and --from-run
against the workbook as it is now."""
from __future__ import annotations

import json

import pytest

from main import main
from model.probe.demo_server import LoopbackServer
from model.workbook.json_file import load_demo, save_workbook
from tests.probe_servers import demo_app

pytest.importorskip("uvicorn")


@pytest.mark.parametrize("style", ["vllm", "llamacpp"])
def test_a_k_measured_off_the_tiers_k_is_said_in_the_json_and_the_text(style, tmp_path, capsys):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"task_class": "code", "prompt": "def parse_orders(orders):\\n    result = []"}\n'
                       '{"task_class": "prose", "prompt": "The morning was"}\n')
    wb = load_demo()
    tier = wb.tiers[wb.tier_index("Northwind Turbo")]
    assert tier.k == 5  # the demo server drafts K = 4
    app, _ = demo_app(style)
    out = tmp_path / "probe.json"
    with LoopbackServer(app) as s:
        tier.endpoint_url, tier.endpoint_model = s.base_url, "demo-fast"
        path = tmp_path / "wb.json"
        save_workbook(wb, path)
        code = main(["probe", str(path), "--tier", tier.name, "--against", "", "--prompts", str(prompts),
                     "--max-tokens", "24", "--repeats", "2", "--json", str(out), "--yes"])
    assert code == 0, capsys.readouterr().err
    text = capsys.readouterr().out
    result = json.loads(out.read_text())
    assert result["k_estimate"] == 4
    got = result["k_mismatch"]
    assert (got["measured"], got["tier"], got["source"]) == (4, 5, result["k_source"])
    assert "K mismatch: the probe measured K = 4" in text and "tier has K = 5" in text
    assert got["text"] in text
    run = out.with_suffix(".run.jsonl")
    # re-analysed alone, the run remembers the tier's K it was probed against
    assert main(["probe", "--from-run", str(run), "--json", str(tmp_path / "a.json")]) == 0
    assert json.loads((tmp_path / "a.json").read_text())["k_mismatch"]["tier"] == 5
    # against the workbook as it is now, with the tier's K set to what was measured: no mismatch, no line
    tier.k = 4
    save_workbook(wb, path)
    capsys.readouterr()
    assert main(["probe", str(path), "--tier", tier.name, "--from-run", str(run), "--json",
                 str(tmp_path / "b.json")]) == 0
    assert json.loads((tmp_path / "b.json").read_text())["k_mismatch"] is None
    assert "K mismatch" not in capsys.readouterr().out
