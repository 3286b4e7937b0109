"""`specledger probe` against the demo app on loopback: the JSON keys the issue lists, --from-run, a workbook
tier's endpoint, and the question before sending."""
from __future__ import annotations

import json

import pytest

from main import main
from model.probe.demo_server import LoopbackServer
from model.workbook.json_file import load_demo, save_workbook
from tests.probe_servers import demo_app

pytest.importorskip("uvicorn")

CLASS_KEYS = {"task_class", "requests", "alpha", "alpha_source", "alpha_reported", "alpha_timing",
              "mean_tokens_per_step", "tokens_per_step_histogram", "ttft_s", "decode_tokens_per_s",
              "speedup_measured"}


@pytest.fixture(scope="module")
def server():
    app, _ = demo_app("vllm")
    with LoopbackServer(app) as s:
        yield s


@pytest.fixture()
def prompts(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"task_class": "code", "prompt": "def parse_orders(orders):\\n    result = []\\n    for item in"}\n'
                    '{"task_class": "prose", "messages": [{"role": "user", "content": "The morning was"}]}\n')
    return path


def test_probe_writes_the_listed_keys_and_from_run_gives_the_same(server, prompts, tmp_path, capsys):
    out = tmp_path / "probe.json"
    code = main(["probe", "--base-url", server.base_url, "--model", "demo-fast", "--against-model", "demo-standard",
                 "--prompts", str(prompts), "--max-tokens", "16", "--json", str(out), "--yes"])
    assert code == 0, capsys.readouterr().err
    result = json.loads(out.read_text())
    assert {"verdict", "evidence", "stream_style", "k_estimate", "classes", "identity"} <= set(result)
    assert [c["task_class"] for c in result["classes"]] == ["code", "prose"]
    assert all(CLASS_KEYS <= set(c) for c in result["classes"])
    assert set(result["identity"]) >= {"share", "divergences"} and result["identity"]["share"] == 1.0
    err = capsys.readouterr().err
    assert "4 requests" in err  # said before sending
    again = tmp_path / "again.json"
    assert main(["probe", "--from-run", str(out.with_suffix(".run.jsonl")), "--json", str(again)]) == 0
    assert json.loads(again.read_text())["classes"] == result["classes"]


def test_a_workbook_tier_with_an_endpoint_is_probed_and_its_price_stated(server, prompts, tmp_path, capsys):
    wb = load_demo()
    fast, base = wb.tiers[0], wb.tiers[1]
    fast.endpoint_url, fast.endpoint_model, fast.extra_body = server.base_url, "demo-fast", '{"top_p": 1}'
    base.endpoint_url, base.endpoint_model = server.base_url, "demo-standard"
    path = tmp_path / "wb.json"
    save_workbook(wb, path)
    out = tmp_path / "probe.json"
    code = main(["probe", str(path), "--tier", fast.name, "--against", base.name, "--prompts", str(prompts),
                 "--max-tokens", "8", "--json", str(out), "--yes"])
    assert code == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert "at most" in err and wb.settings.currency in err  # the cost at the tier's prices
    assert json.loads(out.read_text())["tier"] == fast.name


def test_without_yes_and_without_a_terminal_nothing_is_sent(server, prompts, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    code = main(["probe", "--base-url", server.base_url, "--model", "demo-fast", "--prompts", str(prompts),
                 "--json", str(tmp_path / "x.json")])
    err = capsys.readouterr().err
    assert code != 0 and "--yes" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.run.jsonl").exists()


def test_a_bad_extra_body_is_one_line(prompts, capsys):
    code = main(["probe", "--base-url", "https://x.example/v1", "--model", "m", "--extra-body", "[1]",
                 "--prompts", str(prompts), "--yes"])
    err = capsys.readouterr().err
    assert code != 0 and "--extra-body" in err and len(err.strip().splitlines()) == 1


def test_probe_at_several_concurrencies_states_every_level_and_writes_by_concurrency(server, prompts, tmp_path, capsys):
    wb = load_demo()
    fast, base = wb.tiers[0], wb.tiers[1]
    fast.endpoint_url, fast.endpoint_model, fast.concurrency = server.base_url, "demo-fast", 3
    base.endpoint_url, base.endpoint_model = server.base_url, "demo-standard"
    path = tmp_path / "wb.json"
    save_workbook(wb, path)
    out = tmp_path / "probe.json"
    # no --concurrency: the tier's own load (3 streams) beside one stream
    code = main(["probe", str(path), "--tier", fast.name, "--against", base.name, "--prompts", str(prompts),
                 "--max-tokens", "8", "--json", str(out), "--yes"])
    assert code == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    assert "1 stream: 4 requests" in captured.err and "3 streams: 6 requests" in captured.err  # said before sending
    assert "speed at each concurrency" in captured.out
    result = json.loads(out.read_text())
    assert [x["concurrency"] for x in result["by_concurrency"]] == [1, 3]
    assert all([x["concurrency"] for x in c["by_concurrency"]] == [1, 3] for c in result["classes"])
    assert all(x["speedup_measured"] > 0 and x["throttled"] is False for x in result["by_concurrency"])
    run_lines = out.with_suffix(".run.jsonl").read_text().splitlines()[1:]
    assert sorted({json.loads(line)["concurrency"] for line in run_lines}) == [1, 3]
    assert main(["probe", "--from-run", str(out.with_suffix(".run.jsonl")), "--json", str(tmp_path / "again.json")]) == 0
    assert json.loads((tmp_path / "again.json").read_text())["by_concurrency"] == result["by_concurrency"]


def test_a_bad_concurrency_is_one_line(prompts, capsys):
    code = main(["probe", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompts", str(prompts),
                 "--concurrency", "1,0"])
    assert code != 0
    assert "--concurrency" in capsys.readouterr().err
