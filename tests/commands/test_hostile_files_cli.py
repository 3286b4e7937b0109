"""The issue's reproductions at the command line: one line and a non-zero exit for what is refused,
the right number for what is read."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from model.workbook.json_file import load_demo, save_workbook
from tests.paths import ROOT

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and devices")


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, cwd=cwd,
                          timeout=60)


def _one_line_refusal(r: subprocess.CompletedProcess) -> str:
    assert r.returncode != 0, r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def test_the_eu_price_list_imports_with_decimal_commas(tmp_path: Path) -> None:
    (tmp_path / "eu.csv").write_text("Tier;Price out /1M;c (draft/target)\nA;12,50;0,1\n")
    r = run("import", "--tiers", "eu.csv", "-o", "eu.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    tier = json.loads((tmp_path / "eu.json").read_text())["tiers"][0]
    assert (tier["price_out"], tier["c"]) == (12.5, 0.1)
    # the same list forced to decimal points is refused, not read as 1250
    r = run("import", "--tiers", "eu.csv", "-o", "eu2.json", "--decimal", ".", cwd=tmp_path)
    assert "'12,50' has a decimal comma" in _one_line_refusal(r)
    assert not (tmp_path / "eu2.json").exists()


@posix_only
def test_output_targets_that_are_not_regular_files_are_refused(tmp_path: Path) -> None:
    save_workbook(load_demo(), tmp_path / "wb.json")
    (tmp_path / "full.xlsx").symlink_to("/dev/full")
    r = run("export", "wb.json", "-o", "full.xlsx", cwd=tmp_path)
    assert "full.xlsx: is a symlink to /dev/full, which is a character device" in _one_line_refusal(r)
    os.mkfifo(tmp_path / "fifo.json")
    (tmp_path / "list.csv").write_text("Tier,K\nA,4\n")
    r = run("import", "--tiers", "list.csv", "-o", "fifo.json", cwd=tmp_path)
    assert "fifo.json: is a FIFO (named pipe), not a regular file" in _one_line_refusal(r)
    assert Path("/dev/full").is_char_device() and (tmp_path / "full.xlsx").is_symlink()


@posix_only
def test_a_symlink_to_a_regular_file_is_written_through_and_said(tmp_path: Path) -> None:
    (tmp_path / "list.csv").write_text("Tier,K\nA,4\n")
    (tmp_path / "real.json").write_text("{}")
    (tmp_path / "link.json").symlink_to("real.json")
    r = run("import", "--tiers", "list.csv", "-o", "link.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "link.json is a symlink; wrote its target" in r.stdout
    assert (tmp_path / "link.json").is_symlink()
    assert json.loads((tmp_path / "real.json").read_text())["tiers"][0]["name"] == "A"


@posix_only
@pytest.mark.parametrize("source", ["fifo", "/dev/zero"])
def test_a_fifo_or_a_device_as_the_workbook_is_refused_at_once(tmp_path: Path, source: str) -> None:
    if source == "fifo":
        os.mkfifo(tmp_path / "fifo.json")
        source = "fifo.json"
    r = run("compare", source, cwd=tmp_path)
    assert "not a workbook file (only regular files are read); nothing was read" in _one_line_refusal(r)


def test_compare_csv_neutralises_formulas(tmp_path: Path) -> None:
    wb = load_demo()
    wb.rename_tier(wb.tiers[0].name, '=HYPERLINK("http://evil","x")')
    wb.rename_class(wb.classes[0].name, "@SUM(1)")
    wb.tiers[1].vendor = "+cmd"
    save_workbook(wb, tmp_path / "evil.json")
    r = run("compare", "evil.json", "--csv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    cells = [v for row in rows for v in row.values()]
    assert not [v for v in cells if v[:1] in ("=", "+", "@", "\t", "\r")]
    assert any(v == "'=HYPERLINK(\"http://evil\",\"x\")" for v in cells)
    assert any(v == "'@SUM(1)" for v in cells)
    # numbers stay numbers: every numeric column still parses
    assert all(float(row["alpha"]) >= 0 for row in rows)


def test_sample_and_probe_refuse_a_missing_output_folder_as_export_does(tmp_path: Path) -> None:
    """They used to create the folders (as root, anywhere) rather than refuse a typo'd path."""
    missing = tmp_path / "no" / "such" / "dir"
    r = run("sample", "--json", str(missing / "x.json"), "--max-new-tokens", "8")
    assert f"the folder {missing} does not exist" in _one_line_refusal(r)
    (tmp_path / "p.jsonl").write_text('{"task_class": "code", "prompt": "def f():"}\n')
    r = run("probe", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--prompts", str(tmp_path / "p.jsonl"),
            "--run", str(missing / "run.jsonl"), "--yes")
    assert f"the folder {missing} does not exist" in _one_line_refusal(r)
    assert not (tmp_path / "no").exists()
