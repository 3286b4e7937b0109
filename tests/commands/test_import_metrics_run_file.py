"""`import-metrics RUN` on a probe's run file: read by the probe's reader alone (model/probe/run_counts.py), with or
without --apply; a run whose server counted nothing shows the probe's analysis of it, as `probe --from-run` does,
instead of stopping at "the server reports none" (docs/reference/cli.md)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import commands.import_metrics as import_metrics
from main import main
from model.probe import run_counts
from tests.commands.test_probe_apply import _run

pytest.importorskip("uvicorn")


def test_the_servers_counts_are_read_by_the_probes_reader_with_the_probes_numbers(tmp_path, capsys, monkeypatch):
    run = _run("vllm", tmp_path)
    asked: list[str] = []

    def spy(path):  # noqa: ANN001, ANN202
        asked.append(str(path))
        return run_counts.reported_counts(path)
    monkeypatch.setattr(import_metrics, "reported_counts", spy)
    capsys.readouterr()
    assert main(["import-metrics", str(run), "--json"]) == 0
    sources = {s["task_class"]: s for s in json.loads(capsys.readouterr().out)["sources"]}
    assert asked and set(asked) == {str(run)}
    assert main(["probe", "--from-run", str(run), "--json", str(tmp_path / "r.json")]) == 0
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    probed = {c["task_class"]: c["alpha_reported"] for c in report["classes"]}
    assert set(sources) == set(probed) == {"code", "prose"}
    for name, alpha in probed.items():  # the same per-token alpha, the same K, whichever command reads the run
        assert sources[name]["alpha"] == pytest.approx(alpha) and sources[name]["k"] == report["k_estimate"]
        assert sources[name]["kind"] == "probe-run" and "probe run file" in sources[name]["format"]
    assert main(["import-metrics", str(run)]) == 0
    text = capsys.readouterr().out
    assert "class code  K = 4" in text and "applied alpha" in text


def test_a_run_whose_server_counted_nothing_shows_what_the_probe_read(tmp_path, capsys):
    run = _run("plain", tmp_path)
    capsys.readouterr()
    assert main(["probe", "--from-run", str(run), "--json", str(tmp_path / "r.json")]) == 0
    probe_said = capsys.readouterr().out.replace(f"JSON written to {tmp_path / 'r.json'}\n", "")
    assert main(["import-metrics", str(run)]) == 0
    out, err = capsys.readouterr()
    assert out == probe_said and "timing" in out
    assert "carries the server's own acceptance" in err and "--apply WORKBOOK --tier NAME" in err
    assert main(["import-metrics", str(run), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))


def test_a_timing_only_run_among_other_files_is_named(tmp_path, capsys):
    run = _run("plain", tmp_path)
    other = _run("vllm", tmp_path)
    capsys.readouterr()
    assert main(["import-metrics", str(other), str(run)]) == 1
    err = capsys.readouterr().err
    assert str(run) in err and "none of its" in err and "carries the server's own acceptance" in err


def test_a_damaged_run_file_is_one_line(tmp_path: Path, capsys):
    run = tmp_path / "bad.run.jsonl"
    run.write_text(json.dumps({"kind": "specledger-probe-run", "version": 1}) + "\n{broken\n", encoding="utf-8")
    assert main(["import-metrics", str(run)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.run.jsonl, line 2" in err
