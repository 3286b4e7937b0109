"""A tier's load fields: concurrency and the speedups measured per concurrency level."""
from __future__ import annotations

import json

import pytest

from model.workbook.json_file import load_demo, load_workbook, save_workbook, workbook_to_dict
from model.workbook.load_speedups import parse_speedup_intervals, parse_speedups, speedup_at
from model.workbook.rows import Tier
from model.workbook.validation import ValidationError, WorkbookError, parse_field


def test_an_old_workbook_loads_with_concurrency_1_and_nothing_measured(tmp_path):
    data = workbook_to_dict(load_demo())
    for t in data["tiers"]:
        t.pop("concurrency")
        t.pop("measured_by_concurrency")
        t.pop("claim_concurrency")
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    wb = load_workbook(path)
    assert all(t.concurrency == 1 and t.measured_by_concurrency == "" and t.claim_concurrency == 1 for t in wb.tiers)


def test_load_fields_round_trip_in_the_canonical_text(tmp_path):
    wb = load_demo()
    t = wb.tiers[0]
    t.concurrency = 16
    t.measured_by_concurrency = parse_field(Tier, "measured_by_concurrency", {"16": 0.97, "1": 2.3100, "4": 1.85})
    assert t.measured_by_concurrency == "1: 2.31, 4: 1.85, 16: 0.97"
    save_workbook(wb, tmp_path / "wb.json")
    back = load_workbook(tmp_path / "wb.json").tiers[0]
    assert (back.concurrency, back.measured_by_concurrency) == (16, "1: 2.31, 4: 1.85, 16: 0.97")


def test_the_probes_rows_and_a_throttled_mark_parse():
    rows = [{"concurrency": 1, "speedup_measured": 2.0}, {"concurrency": 32, "speedup_measured": 0.8, "throttled": True}]
    text = parse_field(Tier, "measured_by_concurrency", rows)
    assert text == "1: 2, 32: 0.8*"
    levels = parse_speedups(text)
    assert speedup_at(levels, 32) == (0.8, True)
    assert speedup_at(levels, 8) is None  # another level is not this load


def test_a_levels_interval_rides_along_in_brackets():
    rows = [{"concurrency": 1, "speedup_measured": 2.0, "speedup_interval": [1.8, 2.25]},
            {"concurrency": 16, "speedup_measured": 0.9, "throttled": True, "speedup_interval": None}]
    text = parse_field(Tier, "measured_by_concurrency", rows)
    assert text == "1: 2 [1.8-2.25], 16: 0.9*"
    assert parse_speedups(text) == {1: (2.0, False), 16: (0.9, True)}
    assert parse_speedup_intervals("1: 2 [1.8-2.25], 4: 1.5* [1.2–1.9]") == {1: (1.8, 2.25), 4: (1.2, 1.9)}
    assert parse_field(Tier, "measured_by_concurrency", "4: 1.5*[1.2 - 1.9]") == "4: 1.5* [1.2-1.9]"


@pytest.mark.parametrize(("field", "value", "words"), [
    ("measured_by_concurrency", "4: 1.8 [1.9-2.2]", "must hold its speedup 1.8"),
    ("measured_by_concurrency", "4: 1.8 [1.2-]", "streams: speedup"),
    ("concurrency", 0, "from 1 to 4096"),
    ("concurrency", 2.5, "whole number"),
    ("claim_concurrency", 0, "from 1 to 4096"),
    ("measured_by_concurrency", "4 = 1.8", "streams: speedup"),
    ("measured_by_concurrency", "0: 1.8", "from 1 to 4096"),
    ("measured_by_concurrency", "4: 1.8, 4: 1.7", "given twice"),
    ("measured_by_concurrency", "4: 0", "above 0"),
    ("measured_by_concurrency", [1, 2], "streams: speedup"),
])
def test_bad_load_values_are_refused_naming_the_field(field, value, words):
    with pytest.raises(ValidationError, match=words) as info:
        parse_field(Tier, field, value, "Fast")
    assert str(info.value).startswith("Tier 'Fast', ")


def test_a_bad_concurrency_in_a_file_names_the_row_and_field(tmp_path):
    data = workbook_to_dict(load_demo())
    data["tiers"][1]["concurrency"] = -3
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(WorkbookError, match=r"tiers\[1\].*concurrency"):
        load_workbook(path)
