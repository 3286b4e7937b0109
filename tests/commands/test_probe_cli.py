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
    # the cost at the tier's prices, with the workbook's currency symbol ($0.0034, not 0.0034 USD)
    assert wb.settings.currency == "USD" and "at most $0.0" in err and "USD" not in err
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
    levels = [line for line in captured.out.splitlines() if line.strip()[:1].isdigit()]
    assert len(levels) == 2 and not any("x [" in line for line in levels)  # 2 and 3 requests a tier: no interval
    result = json.loads(out.read_text())
    assert [x["concurrency"] for x in result["by_concurrency"]] == [1, 3]
    assert all([x["concurrency"] for x in c["by_concurrency"]] == [1, 3] for c in result["classes"])
    assert all(x["speedup_measured"] > 0 and x["throttled"] is False for x in result["by_concurrency"])
    run_lines = out.with_suffix(".run.jsonl").read_text().splitlines()[1:]
    assert json.loads(run_lines[-1]) == {"kind": "specledger-probe-k", "k": result["k_estimate"], "k_source": result["k_source"]}
    assert sorted({json.loads(line)["concurrency"] for line in run_lines[:-1]}) == [1, 3]
    assert main(["probe", "--from-run", str(out.with_suffix(".run.jsonl")), "--json", str(tmp_path / "again.json")]) == 0
    assert json.loads((tmp_path / "again.json").read_text())["by_concurrency"] == result["by_concurrency"]


def test_a_bad_concurrency_is_one_line(prompts, capsys):
    code = main(["probe", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompts", str(prompts),
                 "--concurrency", "1,0"])
    assert code != 0
    assert "--concurrency" in capsys.readouterr().err


def test_the_run_file_keeps_the_probes_k_and_import_metrics_reads_it(prompts, tmp_path, capsys):
    # a llama.cpp-style server reports draft_n and draft_n_accepted per response, no K and no steps: import-metrics
    # needed --k on a run file; the probe's K (4, from its timing or the server's counts) now rides in the file
    app, _ = demo_app("llamacpp")
    out = tmp_path / "probe.json"
    with LoopbackServer(app) as s:
        code = main(["probe", "--base-url", s.base_url, "--model", "demo-fast", "--prompts", str(prompts),
                     "--max-tokens", "24", "--repeats", "2", "--json", str(out), "--yes"])
    assert code == 0, capsys.readouterr().err
    result = json.loads(out.read_text())
    run = out.with_suffix(".run.jsonl")
    last = json.loads(run.read_text().splitlines()[-1])
    assert result["k_estimate"] == 4 and last == {"kind": "specledger-probe-k", "k": 4, "k_source": result["k_source"]}
    capsys.readouterr()
    assert main(["import-metrics", str(run), "--json"]) == 0
    sources = json.loads(capsys.readouterr().out)["sources"]
    assert {s["task_class"] for s in sources} == {"code", "prose"} and all(s["k"] == 4 for s in sources)
    assert all(any("K = 4 as the probe recorded it" in n for n in s["notes"]) for s in sources)
    # re-analysing the run (--from-run) still reads it, and writes no second K line
    assert main(["probe", "--from-run", str(run), "--json", str(tmp_path / "again.json")]) == 0
    assert run.read_text().count("specledger-probe-k") == 1
    # a run file from before K was recorded: one line asking for --k, saying why
    old = tmp_path / "old.run.jsonl"
    old.write_text("".join(line + "\n" for line in run.read_text().splitlines()[:-1]))
    capsys.readouterr()
    assert main(["import-metrics", str(old)]) == 0  # what needs no K is shown; alpha waits for K
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "records no K" in err and "--k K" in err
    assert main(["import-metrics", str(old), "--k", "4", "--json"]) == 0


def test_the_levels_table_gives_a_speedup_interval_where_the_level_has_one():
    from types import SimpleNamespace

    from commands.probe_text import format_levels
    from model.probe.by_load import LevelSpeed

    def level(n: int, interval: list[float] | None) -> LevelSpeed:
        return LevelSpeed(n, 8, 8, 0.2, 90.0, 0.2, 40.0, 2.3, 0.7, 2.25, 0, False, speedup_interval=interval)
    text = format_levels(SimpleNamespace(confidence=0.9, by_concurrency=[level(1, [2.01, 2.52]), level(4, None)]))
    assert "interval at 90%" in text
    rows = text.splitlines()[3:]
    assert rows[0].endswith("2.25x [2.01-2.52]") and rows[1].endswith("2.25x")


def test_a_misspelt_api_is_refused_and_no_option_is_taken_by_a_prefix(capsys) -> None:
    """`probe --api anthropic-messages` was once read as --api-key-env by argparse's prefix matching."""
    base = ["probe", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompts", "p.jsonl"]
    for argv, said in ((base + ["--api", "anthropic"], "invalid choice"),
                       (base + ["--api-key", "VAR"], "unrecognized arguments"),
                       (base + ["--against-m", "x"], "unrecognized arguments"),
                       (["compare", "--jso"], "unrecognized arguments")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
