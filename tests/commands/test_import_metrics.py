"""`specledger import-metrics`: the JSON keys the issue lists, K asked for, bad files one line, --apply in one write."""
from __future__ import annotations

import json
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from model.workbook.json_file import load_demo, load_workbook, save_workbook
from tests.model.metrics.engine_files import iid_steps, trtllm_scrape, vllm_scrape
from tests.paths import ROOT

KEYS = {"file", "engine", "task_class", "k", "drafts", "draft_tokens", "accepted_tokens", "alpha",
        "draft_acceptance_rate", "mean_acceptance_length", "per_position", "convention_note"}


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), "import-metrics", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_json_sources_have_the_listed_keys(tmp_path: Path) -> None:
    scrape = tmp_path / "metrics.prom"
    scrape.write_text(vllm_scrape({"llama": iid_steps(0.8, 4, 20_000)}))
    r = run(str(scrape), "--json")
    assert r.returncode == 0, r.stderr
    [source] = json.loads(r.stdout)["sources"]
    assert KEYS <= set(source)
    assert source["task_class"] is None and source["k"] == 4 and source["alpha"] == pytest.approx(0.8, abs=1e-3)


def test_unknown_k_shows_what_needs_none_and_asks_for_k_in_one_line(tmp_path: Path) -> None:
    scrape = tmp_path / "trt.prom"
    scrape.write_text(trtllm_scrape(3000, 1800))
    r = run(str(scrape), "--json")
    # 1800 accepted of 3000 drafted: the draft acceptance rate 0.6 needs no K; alpha (and steps) wait for it
    assert r.returncode == 0, r.stderr
    [source] = json.loads(r.stdout)["sources"]
    assert source["k"] is None and source["draft_acceptance_rate"] == pytest.approx(0.6) and source["alpha"] is None
    assert source["alpha_applied_rule"].startswith("unknown until K is known")
    assert r.stderr.count("\n") == 1 and "--k K" in r.stderr and "trt.prom" in r.stderr
    ok = run(str(scrape), "--k", "3")
    assert ok.returncode == 0, ok.stderr
    assert "per-token alpha" in ok.stdout and "draft acceptance rate 60.0%" in ok.stdout


def test_a_restart_between_scrapes_is_one_line(tmp_path: Path) -> None:
    before, after = tmp_path / "before.prom", tmp_path / "after.prom"
    before.write_text(vllm_scrape({"m": iid_steps(0.7, 3, 9_000)}))
    after.write_text(vllm_scrape({"m": iid_steps(0.7, 3, 100)}))
    r = run(str(before), str(after))
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "restarted" in r.stderr


def test_apply_sets_the_class_with_the_imported_source(tmp_path: Path) -> None:
    wb_path, out = tmp_path / "wb.json", tmp_path / "out.json"
    save_workbook(load_demo(), wb_path)
    scrape = tmp_path / "code.prom"
    scrape.write_text(vllm_scrape({"llama": iid_steps(0.9, 4, 20_000)}))
    r = run(str(scrape), "--task-class", "code", "--apply", str(wb_path), "-o", str(out))
    assert r.returncode == 0, r.stderr
    wb = load_workbook(out)
    code = wb.classes[wb.class_index("code")]
    assert code.alpha == pytest.approx(0.9, abs=1e-3) and code.alpha_source == "imported"
    assert code.source_note == f"imported: vllm code.prom {date.today().isoformat()}"
    assert load_workbook(wb_path).classes[wb.class_index("code")].alpha != code.alpha  # the input is untouched


def test_apply_to_a_missing_tier_writes_nothing(tmp_path: Path) -> None:
    wb_path, out = tmp_path / "wb.json", tmp_path / "out.json"
    save_workbook(load_demo(), wb_path)
    scrape = tmp_path / "code.prom"
    scrape.write_text(vllm_scrape({"llama": iid_steps(0.9, 4, 20_000)}))
    r = run(str(scrape), "--task-class", "code", "--apply", str(wb_path), "--tier", "Nope", "-o", str(out))
    assert r.returncode == 1 and "no such tier" in r.stderr and not out.exists()


def test_apply_refuses_a_target_that_is_not_a_workbook(tmp_path: Path) -> None:
    wb = tmp_path / "wb.json"
    save_workbook(load_demo(), wb)
    scrape = tmp_path / "m.prom"
    scrape.write_text(vllm_scrape({"m": iid_steps(0.8, 4, 5_000)}))
    report = tmp_path / "REPORT.xlsx"
    report.write_bytes(b"PK\x03\x04 an excel report")
    other = tmp_path / "notes.json"
    other.write_text('{"not": "a workbook"}')
    for target in (report, other, scrape):
        before = target.read_bytes()
        result = run(str(scrape), "--task-class", "code", "--apply", str(wb), "-o", str(target))
        assert result.returncode != 0 and "nothing was written" in result.stderr, result.stderr
        assert target.read_bytes() == before


def test_names_from_files_are_printed_escaped(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    record = {"task_class": "code\x1b[31m\nspecledger: fake", "timings": {"draft_n": 40, "draft_n_accepted": 30}}
    path.write_text(json.dumps(record) + "\n")
    result = run(str(path), "--k", "4")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\\x1b[31m\\nspecledger: fake" in result.stdout
    assert not any(line.startswith("specledger:") for line in result.stdout.splitlines())


def test_a_llamacpp_log_with_a_task_map_gives_a_source_per_class(tmp_path: Path) -> None:
    from tests.model.metrics import log_files as lf
    log = tmp_path / "server.log"
    log.write_text("\n".join([lf.llamacpp_request(1, [10, 15, 20, 25, 30]), lf.llamacpp_request(2, [20, 10, 10, 5, 5])]) + "\n")
    mapping = tmp_path / "tasks.csv"
    mapping.write_text("1,code\n2,prose\n")
    result = run(str(log), "--task-map", str(mapping), "--json")
    assert result.returncode == 0, result.stderr
    rows = {r["task_class"]: r for r in json.loads(result.stdout)["sources"]}
    assert rows["code"]["mean_acceptance_length"] == 3.5 and rows["prose"]["mean_acceptance_length"] == 2.3
    assert rows["code"]["format"].startswith("llama.cpp server log")


def test_apply_carries_the_measured_profile_into_the_comparison(tmp_path: Path) -> None:
    """A vLLM scrape of a draft whose acceptance falls along the stretch (cumulative per
    position 0.77, 0.45, 0.24 at K = 3) is applied as its profile, and compare uses it at K and says where it
    extrapolates."""
    from tests.commands.test_compare_profiles import WORKBOOK

    book = json.loads(json.dumps(WORKBOOK))
    book["tiers"].append(dict(book["tiers"][1], name="Eagle K5", k=5))
    book["task_classes"][0] = {"name": "code", "tokens_out": 3e6, "tokens_in": 1e6, "context": 4096, "alpha": 0.5,
                               "profile": [0.9]}  # an older assumption, replaced by the import
    wb_path, out = tmp_path / "wb.json", tmp_path / "out.json"
    wb_path.write_text(json.dumps(book))
    scrape = tmp_path / "eagle.prom"
    scrape.write_text(vllm_scrape({"llama": [230, 320, 210, 240]}))  # steps with 0..3 accepted of 1,000
    r = run(str(scrape), "--task-class", "code", "--apply", str(wb_path), "-o", str(out))
    assert r.returncode == 0, r.stderr
    code = load_workbook(out).classes[0]
    assert code.profile == pytest.approx((0.77, 0.45 / 0.77, 0.24 / 0.45)) and code.acceptance_length is None
    pairs = json.loads(subprocess.run([sys.executable, str(ROOT / "main.py"), "compare", str(out), "--json"],
                                      capture_output=True, text=True, cwd=ROOT, timeout=120).stdout)["pairs"]
    rec = {(p["tier"], p["task_class"]): p for p in pairs}
    at3, at5 = rec["Eagle", "code"], rec["Eagle K5", "code"]
    assert at3["acceptance_kind"] == "profile" and at3["mean_acceptance_length"] == pytest.approx(2.46)
    assert not at3["extrapolated"] and at5["extrapolated"] and at3["break_even_alpha"] is None
    # a later measurement with no per-position counts (a TensorRT-LLM scrape) applies its length, and the profile goes
    trt = tmp_path / "trt.prom"
    trt.write_text(trtllm_scrape(3000, 1800))
    r = run(str(trt), "--k", "3", "--task-class", "code", "--apply", str(out), "-o", str(out))
    assert r.returncode == 0, r.stderr
    code = load_workbook(out).classes[0]
    assert code.profile == () and code.acceptance_length_k == 3 and code.acceptance_length == pytest.approx(1 + 0.6 * 3)
