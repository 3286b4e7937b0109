"""Numbers grouped as the window refuses them read the same in a price list, and a CSV row with more
fields than its header (an unquoted 12,50 in a comma-separated file) is refused, not split in two."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from model.report.price_list import read_price_list
from model.workbook.rows import Tier
from model.workbook.validation import ValidationError, WorkbookError, parse_field

GROUPED = ["1 234,5", "1\u202f234,5", "1\u00a0234,5", "1'234.5", "1\u2019234.5", "1 234.5", "12 000", "12,50 €",
           "12.50 €", "€ 12,50", "1 234,5 €"]


def _cell(text: str, decimal: str) -> float | str:
    try:
        return parse_field(Tier, "price_out", text, "A", decimal=decimal)
    except ValidationError as exc:
        return str(exc).split("Price out /1M: ", 1)[1]


def _file(tmp_path: Path, text: str, decimal: str) -> float | str:
    sep = ";" if decimal == "," else ","
    path = tmp_path / "list.csv"
    path.write_text(f"Tier{sep}Price out /1M\nA{sep}\"{text}\"\n", encoding="utf-8")
    try:
        return read_price_list(path, "tiers", decimal=decimal).rows[0]["price_out"]
    except WorkbookError as exc:
        return str(exc).split("Price out /1M: ", 1)[1]


def _reason(got: float | str) -> float | str:
    m = re.fullmatch(r"""(must be [^;]*); (?:'.*?'|".*?") (.*)""", got) if isinstance(got, str) else None
    return f"{m.group(1)}; {m.group(2)}" if m else got


@pytest.mark.parametrize("decimal", [".", ","])
@pytest.mark.parametrize("text", GROUPED)
def test_a_grouped_number_reads_the_same_in_a_file_and_in_a_cell(tmp_path: Path, text: str, decimal: str) -> None:
    cell, file = _cell(text, decimal), _file(tmp_path, text, decimal)
    # the same number or the same reason (a price list echoes the price without the currency it took)
    assert _reason(cell) == _reason(file), (cell, file)
    if isinstance(cell, str) and re.search("[0-9][ \u202f\u00a0'\u2019][0-9]", text):
        # the hint says what the group mark is and what to write instead, in this decimal convention
        assert "groups its digits with" in cell and "write " in cell, cell
        digits = text.replace("€", "").strip()
        for mark in " \u202f\u00a0'\u2019":
            digits = digits.replace(mark, "")
        assert f"write {digits.replace(',', decimal).replace('.', decimal)}" in cell, cell


def test_a_row_with_more_fields_than_its_header_is_refused_naming_the_row(tmp_path: Path) -> None:
    path = tmp_path / "list.csv"
    path.write_text("Tier,Price out /1M,Price in /1M\nA,9.5,3\nB,12,50,3\n")
    with pytest.raises(WorkbookError) as info:
        read_price_list(path, "tiers")
    text = str(info.value)
    assert "line 3: 4 fields, but the header (line 1) has 3" in text and "\n" not in text
    assert "quote" in text and "semicolon" in text
    # empty fields past the header (a spreadsheet's padding) are no reason to refuse
    path.write_text("Tier,Price out /1M,Price in /1M\nA,9.5,3,,\n")
    assert read_price_list(path, "tiers").rows[0]["price_out"] == 9.5
