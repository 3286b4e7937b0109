"""`specledger probe --api anthropic-messages --header ... --sla 80@0.99` end to end against the vendor-style
server: the SLA's requests said before the run, `served` and `sla` in the JSON, the requests below the line in the
run file, the key and the secret header's value in no file."""
from __future__ import annotations

import json

import pytest

from main import main
from model.probe.demo_server import LoopbackServer
from model.probe.vendor_server import Pace
from tests.vendor_servers import vendor_app

pytest.importorskip("uvicorn")

KEY, SECRET = "sk-ant-test-key-000111222", "org-token-value-333444555"


def test_probe_anthropic_fast_mode_with_an_sla(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("VKEY", KEY)
    monkeypatch.setenv("VTOK", SECRET)
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps({"task_class": "code", "prompt": f"def f{i}():"}) + "\n" for i in range(8)))
    app, truth = vendor_app(Pace(fast_tokens_per_s=400.0, standard_tokens_per_s=160.0, downgrade_share=0.25,
                                 slow_share=0.3, slow_tokens_per_s=60.0, first_token_s=0.005, flush_s=0.01, seed=1),
                            api_key=KEY)
    out = tmp_path / "probe.json"
    with LoopbackServer(app) as server:
        code = main(["probe", "--base-url", server.base_url, "--api", "anthropic-messages", "--model", "m",
                     "--extra-body", '{"speed": "fast"}', "--header", "anthropic-beta: fast-mode-2026-02-01",
                     "--header", "X-Org-Token: env:VTOK", "--api-key-env", "VKEY", "--against-model", "m",
                     "--prompts", str(prompts), "--max-tokens", "40", "--sla", "100@0.99", "--json", str(out), "--yes"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "needs at least 299 requests served fast with none below" in captured.err
    assert "not show it met" in captured.err
    data = json.loads(out.read_text())
    down = sum(not s.served_fast for s in truth.served if s.requested_fast)
    assert data["served"]["standard"] == down and data["served"]["requested"] == "fast"
    slow = sum(s.slow for s in truth.served)
    assert data["sla"]["below_count"] == slow and data["sla"]["verdict"] == ("breached" if slow > 1 else "undecided")
    assert "SLA: " in captured.out and "against 99% promised" in captured.out
    assert "(time-weighted)" in captured.out
    run_lines = [json.loads(x) for x in out.with_suffix(".run.jsonl").read_text().splitlines()]
    trailer = [x for x in run_lines if x.get("kind") == "specledger-probe-sla"]
    assert len(trailer) == 1 and len(trailer[0]["below"]) == slow
    for path in tmp_path.iterdir():
        text = path.read_text()
        assert KEY not in text and SECRET not in text, path.name
    assert KEY not in captured.out + captured.err and SECRET not in captured.out + captured.err
    # the run file re-analysed gives the same SLA
    assert main(["probe", "--from-run", str(out.with_suffix(".run.jsonl")), "--sla", "100@0.99"]) == 0
    assert "against 99% promised" in capsys.readouterr().out


def test_until_decided_is_refused_on_an_api_that_never_shows_the_steps(tmp_path, capsys) -> None:
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"task_class": "code", "prompt": "def f():"}\n')
    code = main(["probe", "--base-url", "http://127.0.0.1:9/v1", "--api", "anthropic-messages", "--model", "m",
                 "--prompts", str(prompts), "--until-decided", "--yes"])
    err = capsys.readouterr().err
    assert code != 0 and "cannot show" in err and err.count("\n") == 1, err


def test_a_workbook_tier_is_probed_through_its_own_api_headers_and_sla(tmp_path, capsys) -> None:
    from model.workbook.json_file import load_demo, save_workbook

    app, truth = vendor_app(Pace(fast_tokens_per_s=400.0, standard_tokens_per_s=160.0, first_token_s=0.005,
                                 flush_s=0.01))
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps({"task_class": "code", "prompt": f"def g{i}():"}) + "\n" for i in range(3)))
    with LoopbackServer(app) as server:
        wb = load_demo()
        tier = wb.tiers[0]
        tier.endpoint_url, tier.endpoint_model, tier.extra_body = server.base_url, "m", '{"speed": "fast"}'
        tier.endpoint_api, tier.endpoint_headers = "anthropic-messages", "anthropic-beta: fast-mode-2026-02-01"
        tier.sla_tokens_per_s, tier.sla_share = 100.0, 0.99
        path = tmp_path / "wb.json"
        save_workbook(wb, path)
        out = tmp_path / "probe.json"
        code = main(["probe", str(path), "--tier", tier.name, "--against", "", "--prompts", str(prompts),
                     "--max-tokens", "16", "--json", str(out), "--yes"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert {s.api for s in truth.served} == {"anthropic"} and all(s.served_fast for s in truth.served)
    data = json.loads(out.read_text())
    assert data["sla"]["promised_share"] == 0.99 and data["sla"]["verdict"] == "undecided"
    assert "needs at least 299" in captured.err and "too short to time against 100 tok/s" in captured.err
