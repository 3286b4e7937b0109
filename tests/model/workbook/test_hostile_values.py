"""Values that must never become wrong numbers or unreadable text: decimal commas, percents for
fields that are not shares, control characters, lone surrogates, titles that are not text, JSON
with a key given twice."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from model.workbook import json_file as wf
from model.workbook.rows import Tier, Workbook
from model.workbook.validation import (CLASS_FIELDS, TIER_FIELDS, ValidationError, WorkbookError, check_workbook,
                                       parse_field, parse_number)
from model.workbook.json_file import workbook_to_dict

SPEC = {s.name: s for s in TIER_FIELDS + CLASS_FIELDS}


@pytest.mark.parametrize(("text", "decimal", "want"), [
    ("2,50", ",", 2.5), ("0,1", ",", 0.1), ("1,5", ",", 1.5), ("12,50", ",", 12.5),
    ("1.234,56", ",", 1234.56), ("1.234.567", ",", 1234567.0), ("0,500", ",", 0.5), ("1234,500", ",", 1234.5),
    ("0.8", ",", 0.8), ("12.50", ",", 12.5), ("2.5", ",", 2.5),  # the app's own points stay readable
    ("2.50", ".", 2.5), ("1,500", ".", 1500.0), ("1,234,567.5", ".", 1234567.5), ("1.500", ".", 1.5),
    ("-0,25", ",", -0.25), ("1,5e3", ",", 1500.0), ("$12,50", ",", 12.5), ("1_000", ".", 1000.0),
])
def test_numbers_follow_the_decimal_mark(text: str, decimal: str, want: float) -> None:
    assert parse_number(text, decimal=decimal) == pytest.approx(want)


@pytest.mark.parametrize(("text", "decimal", "says"), [
    ("2,50", ".", "has a decimal comma, but numbers here use a decimal point; write 2.50"),
    ("0,1", ".", "write 0.1"),
    ("1,5", ".", "write 1.5"),
    ("1,500", ",", "is ambiguous: 1.500 with a decimal comma, 1500 with a thousands comma"),
    ("12,500", ",", "is ambiguous"),
    ("1.500", ",", "is ambiguous: 1.500 with a decimal point, 1500 with a thousands point"),
    ("1,2,3", ".", "can only group thousands"),
    ("1.2.3", ".", "appears more than once"),
    ("1,23.4", ".", "can only group thousands before the decimal mark"),
])
def test_a_decimal_comma_never_becomes_a_thousands_separator(text: str, decimal: str, says: str) -> None:
    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(".", r"\.")):
        parse_number(text, decimal=decimal)


def test_the_refusal_reaches_the_field_message() -> None:
    with pytest.raises(ValidationError, match=r"Tier 'A', Price out /1M: must be a number from 0 to 1e\+06; "
                                              r"'12,50' has a decimal comma"):
        parse_field(Tier, "price_out", "12,50", "A")
    assert parse_field(Tier, "price_out", "12,50", "A", decimal=",") == 12.5
    with pytest.raises(ValidationError, match="ambiguous"):
        parse_field(Tier, "c", "1,125", "A", decimal=",")


@pytest.mark.parametrize("field", ["v", "tokens_out", "k", "price_out", "c", "context", "batch", "claimed_speedup"])
def test_a_percent_is_refused_for_fields_that_are_not_shares(field: str) -> None:
    with pytest.raises(ValidationError, match="must be .*; '80%' is a percentage, which only a share takes"):
        SPEC[field].parse("80%")


def test_a_percent_is_taken_for_shares() -> None:
    assert SPEC["alpha"].parse("80%") == pytest.approx(0.8)
    assert SPEC["alpha"].parse("80,5%", ",") == pytest.approx(0.805)


@pytest.mark.parametrize(("text", "code"), [("Fast\x0btier", "000B"), ("a\x01b", "0001"), ("x\x1b[31m", "001B"),
                                            ("nul\x00", "0000"), ("del\x7f", "007F"), ("two\nlines", "000A"),
                                            ("c1\x85x", "0085"), ("sur\ud800", "D800")])
def test_control_characters_and_lone_surrogates_are_refused_naming_row_and_field(text: str, code: str) -> None:
    with pytest.raises(ValidationError) as info:
        parse_field(Tier, "vendor", text, "Fast")
    msg = str(info.value)
    assert msg.startswith("Tier 'Fast', Vendor: contains") and f"U+{code}" in msg and "\n" not in msg


def test_notes_keep_tabs_and_line_breaks_but_not_other_controls() -> None:
    assert SPEC["notes"].parse("line one\n\tline two") == "line one\n\tline two"
    assert SPEC["source_note"].parse("a\r\nb") == "a\r\nb"
    with pytest.raises(ValidationError, match="U\\+000B"):
        SPEC["notes"].parse("Word\x0bbreak")


def test_a_stored_row_with_a_control_character_fails_the_workbook_check() -> None:
    wb = Workbook(tiers=[Tier(name="A\x1bB")])
    with pytest.raises(WorkbookError, match=r"Tier 'A\\x1bB', Tier: contains a control character \(U\+001B, ESC\)"):
        check_workbook(wb)


def _write(tmp_path: Path, data: dict | str) -> Path:
    p = tmp_path / "wb.json"
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def _demo_dict() -> dict:
    return workbook_to_dict(wf.load_demo())


@pytest.mark.parametrize(("title", "shown"), [(None, "None"), (12, "12"), ([], r"\[\]"), (True, "True")])
def test_a_title_must_be_text(tmp_path: Path, title: object, shown: str) -> None:
    data = _demo_dict()
    data["title"] = title
    with pytest.raises(WorkbookError, match=rf"Title: must be a text \(got {shown}\)"):
        wf.load_workbook(_write(tmp_path, data))


def test_a_title_with_a_control_character_is_refused(tmp_path: Path) -> None:
    data = _demo_dict()
    data["title"] = "Q3\x00"
    with pytest.raises(WorkbookError, match=r"Title: contains a control character \(U\+0000, NUL\)"):
        wf.load_workbook(_write(tmp_path, data))


def test_json_with_a_key_given_twice_is_refused_naming_the_key(tmp_path: Path) -> None:
    text = json.dumps(_demo_dict(), indent=1)
    first_tier = text.index('"k":')
    text = text[:first_tier] + '"k": 9,\n' + text[first_tier:]
    with pytest.raises(WorkbookError, match=r"the key 'k' appears twice in the object named '.+'; remove one"):
        wf.load_workbook(_write(tmp_path, text))
    top = '{"format": "specledger-workbook", "schema_version": 1, "title": "a", "title": "b"}'
    with pytest.raises(WorkbookError, match=r"the key 'title' appears twice;"):
        wf.load_workbook(_write(tmp_path, top))


def test_json_strings_with_decimal_commas_are_refused_not_multiplied(tmp_path: Path) -> None:
    data = _demo_dict()
    data["tiers"][0]["price_out"] = "12,50"
    with pytest.raises(WorkbookError, match=r"price_out: must be a number .*'12,50' has a decimal comma"):
        wf.load_workbook(_write(tmp_path, data))


def test_json_text_with_a_lone_surrogate_is_refused(tmp_path: Path) -> None:
    data = _demo_dict()
    text = json.dumps(data).replace('"notes": ""', '"notes": "\\ud83d"', 1)
    assert "\\ud83d" in text
    with pytest.raises(WorkbookError, match=r"notes: contains a lone surrogate \(U\+D83D, half of a character\) at position 1"):
        wf.load_workbook(_write(tmp_path, text))


def test_a_long_refused_value_is_cut_in_the_message() -> None:
    with pytest.raises(ValidationError) as info:
        SPEC["k"].parse("9" * 5000 + "z")
    assert len(str(info.value)) < 200
