"""Fuzz the workbook .json reader: mutated workbooks, mutated text, random bytes. Every outcome is a
workbook whose every value the validator accepts when typed, or one WorkbookError line."""
from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from model.workbook.json_file import DEMO_WORKBOOK, load_workbook
from model.workbook.validation import WorkbookError
from tests.fuzz.bounds import assert_accepted_as_typed, outcome
from tests.fuzz.strategies import hostile_json_value

DEMO = json.loads(DEMO_WORKBOOK.read_text(encoding="utf-8"))
DEMO_TEXT = DEMO_WORKBOOK.read_text(encoding="utf-8")
TABLES = ("tiers", "task_classes", "overrides")


def _load(tmp_path_factory, data: bytes) -> object:
    path = Path(tmp_path_factory.mktemp("wb")) / "wb.json"
    path.write_bytes(data)
    got = outcome(lambda: load_workbook(path), WorkbookError)
    if isinstance(got, WorkbookError):
        assert str(got).startswith(f"{path}: ")
    else:
        assert_accepted_as_typed(got)
    return got


@st.composite
def mutated_workbook(draw: st.DrawFn) -> dict:
    data = json.loads(json.dumps(DEMO))
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.sampled_from(TABLES + ("settings", "title", "top")))
        if where == "title":
            data["title"] = draw(hostile_json_value())
        elif where == "top":
            data[draw(st.sampled_from(["format", "schema_version", "tiers", "extra"]))] = draw(hostile_json_value())
        elif where == "settings":
            data["settings"][draw(st.sampled_from(sorted(data["settings"]) + ["bogus"]))] = draw(hostile_json_value())
        elif isinstance(data.get(where), list) and data[where]:
            row = data[where][draw(st.integers(0, len(data[where]) - 1))]
            if not isinstance(row, dict):
                continue
            key = draw(st.sampled_from(sorted(row) + ["unknown"]))
            if draw(st.integers(0, 9)) == 0:
                row.pop(key, None)
            else:
                row[key] = draw(hostile_json_value())
    return data


@settings(max_examples=150)
@given(data=mutated_workbook())
def test_mutated_workbooks(tmp_path_factory, data: dict) -> None:
    _load(tmp_path_factory, json.dumps(data, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass"))


@settings(max_examples=150)
@given(edits=st.lists(st.tuples(st.integers(0, len(DEMO_TEXT) - 1), st.integers(0, 3),
                                st.text(alphabet='{}[]",:0123456789.-eE%\\ntrufalsn\x00\x0b', max_size=4)),
                      min_size=1, max_size=6))
def test_edited_text(tmp_path_factory, edits: list[tuple[int, int, str]]) -> None:
    text = DEMO_TEXT
    for at, cut, insert in edits:
        at = min(at, len(text))
        text = text[:at] + insert + text[at + cut:]
    _load(tmp_path_factory, text.encode("utf-8", "surrogatepass"))


@settings(max_examples=100)
@given(data=st.binary(max_size=3000))
def test_random_bytes(tmp_path_factory, data: bytes) -> None:
    _load(tmp_path_factory, data)


@settings(max_examples=40)
@given(key=st.sampled_from(["title", "k", "name", "tiers", "alpha"]), depth=st.integers(1, 50_000))
def test_duplicate_keys_and_deep_nesting(tmp_path_factory, key: str, depth: int) -> None:
    dup = DEMO_TEXT.replace(f'"{key}":', f'"{key}": 1, "{key}":', 1)
    got = _load(tmp_path_factory, dup.encode())
    if f'"{key}": 1, "{key}":' in dup:
        assert isinstance(got, WorkbookError) and "appears twice" in str(got)
    _load(tmp_path_factory, ("[" * depth + "]" * depth).encode())


@settings(max_examples=60)
@given(key=st.sampled_from(sorted(DEMO)), edit=st.sampled_from(["drop last", "capitalise", "add s", "swap"]))
def test_a_typod_top_level_key_is_refused_never_dropped(tmp_path_factory, key: str, edit: str) -> None:
    if edit == "drop last":
        typo = key[:-1]
    elif edit == "capitalise":
        typo = key.capitalize()
    elif edit == "add s":
        typo = key + "s"
    else:
        typo = key[1] + key[0] + key[2:]
    data = dict(DEMO)
    data[typo] = data.pop(key)
    got = _load(tmp_path_factory, json.dumps(data).encode())
    assert isinstance(got, WorkbookError) and f"unknown top-level key {typo!r}" in str(got), got
