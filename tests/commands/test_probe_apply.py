"""`probe --from-run RUN --apply WORKBOOK --tier NAME` and `import-metrics RUN --apply` put a probe's run into a
workbook through the window's apply_probe: the same workbook as the window's Apply, a run whose server counted
nothing included."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from main import main
from model.probe.analysis import analyse
from model.probe.apply import apply_probe
from model.probe.demo_server import LoopbackServer
from model.probe.run_file import read_run
from model.workbook.json_file import load_demo, load_workbook, save_workbook
from tests.probe_servers import demo_app

pytest.importorskip("uvicorn")

TIER = "Helix Fast"


def _run(style: str, tmp_path: Path) -> Path:
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"task_class": "code", "prompt": "def parse_orders(orders):\\n    result = []"}\n'
                       '{"task_class": "prose", "prompt": "The morning was"}\n', encoding="utf-8")
    app, _ = demo_app(style)
    out = tmp_path / f"{style}.json"
    with LoopbackServer(app) as s:
        assert main(["probe", "--base-url", s.base_url, "--model", "demo-fast", "--against-model", "demo-standard",
                     "--prompts", str(prompts), "--max-tokens", "16", "--json", str(out), "--yes"]) == 0
    return out.with_suffix(".run.jsonl")


def _as_the_window_applies(run: Path, workbook: Path) -> dict:
    wb = load_workbook(workbook)
    header, records = read_run(run)
    report = analyse(records, {**header, "tier_k": wb.tiers[wb.tier_index(TIER)].k}, 0.95)
    apply_probe(wb, report, TIER)  # the Apply button's call, with its defaults
    path = workbook.with_name("window.json")
    save_workbook(wb, path)
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("style", ["vllm", "plain"])
def test_both_commands_apply_the_run_as_the_window_does(style, tmp_path, capsys):
    run = _run(style, tmp_path)
    workbook = tmp_path / "wb.json"
    save_workbook(load_demo(), workbook)
    want = _as_the_window_applies(run, workbook)
    assert main(["probe", "--from-run", str(run), "--apply", str(workbook), "--tier", TIER,
                 "-o", str(tmp_path / "a.json")]) == 0
    said = capsys.readouterr().out
    assert f"applied the probe to tier {TIER}" in said
    assert main(["import-metrics", str(run), "--apply", str(workbook), "--tier", TIER, "-o", str(tmp_path / "b.json")]) == 0
    for out in ("a.json", "b.json"):
        assert json.loads((tmp_path / out).read_text(encoding="utf-8")) == want
    fast = want["tiers"][[t["name"] for t in want["tiers"]].index(TIER)]
    # the measured speedup always; the server's own acceptance only where it reported some
    assert fast["measured_speedup"] is not None and fast["measured_note"].startswith("probed")
    probed = [o for o in want["overrides"] if o["tier"] == TIER and o["alpha_source"] == "probed"]
    if style == "vllm":  # a server that reports its counts: alpha per class as the tier's overrides
        assert {o["task_class"] for o in probed} == {"code", "prose"}


def test_a_run_whose_server_counted_nothing_is_no_longer_refused(tmp_path, capsys):
    run = _run("plain", tmp_path)
    workbook = tmp_path / "wb.json"
    save_workbook(load_demo(), workbook)
    # without --apply, import-metrics shows what the probe read (tests/commands/test_import_metrics_run_file.py)
    assert main(["import-metrics", str(run), "--apply", str(workbook), "--tier", TIER, "-o", str(tmp_path / "o.json")]) == 0
    applied = load_workbook(tmp_path / "o.json")
    assert applied.tiers[applied.tier_index(TIER)].measured_speedup is not None


def test_apply_is_refused_without_its_run_and_tier_or_onto_a_run_file(tmp_path, capsys):
    workbook = tmp_path / "wb.json"
    save_workbook(load_demo(), workbook)
    before = workbook.read_bytes()
    assert main(["probe", "--apply", str(workbook), "--tier", TIER]) != 0
    assert "--from-run" in capsys.readouterr().err
    run = _run("vllm", tmp_path)
    capsys.readouterr()
    assert main(["probe", "--from-run", str(run), "--apply", str(workbook)]) != 0
    assert "--tier" in capsys.readouterr().err
    assert main(["probe", "--from-run", str(run), "--apply", str(workbook), "--tier", TIER, "-o", str(run)]) != 0
    assert "nothing was written" in capsys.readouterr().err
    assert main(["probe", "--from-run", str(run), "--apply", str(workbook), "--tier", "Nope"]) != 0
    assert "no such tier" in capsys.readouterr().err
    assert workbook.read_bytes() == before  # refused: the workbook is as it was
