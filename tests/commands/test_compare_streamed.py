"""compare --json and --csv write a record at a time: the whole table as dicts took 2.9 GB at 300,000
classes x 8 tiers. The streamed JSON is the same object json.dump wrote."""
from __future__ import annotations

import argparse
import csv
import io
import json

import pytest

from commands.calc_compare import run_compare
from model.comparison.records import iter_pair_records, pair_records, tier_records
from model.comparison import Comparison, compare
from model.workbook.json_file import load_demo


def _run(monkeypatch: pytest.MonkeyPatch, **kw: object) -> str:
    # building every record at once is what held the memory: the command must not ask for the list
    def whole_list(cmp: Comparison) -> list:
        raise AssertionError("pair_records() builds every record at once")

    monkeypatch.setattr("commands.calc_compare.pair_records", whole_list)
    out = io.StringIO()
    assert run_compare(argparse.Namespace(**{"workbook": None, "json": False, "csv": False, **kw}), out) == 0
    return out.getvalue()


def test_compare_json_streams_the_same_object(monkeypatch: pytest.MonkeyPatch) -> None:
    cmp = compare(load_demo())
    pairs, tiers = pair_records(cmp), tier_records(cmp)
    got = json.loads(_run(monkeypatch, **{"json": True}))
    assert got["pairs"] == json.loads(json.dumps(pairs)) and got["tiers"] == json.loads(json.dumps(tiers))
    assert got["workbook"] == "demo" and got["currency"] == cmp.currency


def test_compare_csv_streams_every_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    cmp = compare(load_demo())
    rows = list(csv.DictReader(io.StringIO(_run(monkeypatch, **{"csv": True}))))
    assert [(r["tier"], r["task_class"]) for r in rows] == [(p["tier"], p["task_class"]) for p in iter_pair_records(cmp)]
