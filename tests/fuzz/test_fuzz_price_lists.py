"""Fuzz the price-list readers (CSV and xlsx): hostile cells, delimiters, quoting and decimal marks.
Every outcome is rows whose every value the validator accepts when typed, or one WorkbookError
line; a number written under the file's decimal convention is read as that number or refused as
ambiguous, never read as another number."""
from __future__ import annotations

import csv
import io
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.report.price_list import read_price_list
from model.workbook.rows import Workbook
from model.workbook.validation import WorkbookError
from tests.fuzz.bounds import assert_accepted_as_typed, outcome
from tests.fuzz.strategies import hostile_text

openpyxl = pytest.importorskip("openpyxl")

TIER_HEADERS = ["Tier", "Vendor", "K", "c (draft/target)", "v (verify/step)", "Price out /1M", "Batch", "Notes",
                "Claimed speedup", "Claim context", "Speculative", "Extra"]


def _check(got: object, path: Path) -> None:
    if isinstance(got, WorkbookError):
        assert str(got).startswith(f"{path}: ")
        return
    assert_accepted_as_typed(Workbook(tiers=got.new_rows()))


@st.composite
def price_table(draw: st.DrawFn) -> list[list[str]]:
    headers = draw(st.lists(st.sampled_from(TIER_HEADERS), min_size=1, max_size=6, unique=True))
    if draw(st.booleans()):
        headers = ["Tier"] + [h for h in headers if h != "Tier"]
    rows = draw(st.lists(st.lists(hostile_text(16), min_size=len(headers), max_size=len(headers)), max_size=6))
    return [headers] + rows


@settings(max_examples=120)
@given(table=price_table(), delimiter=st.sampled_from([",", ";", "\t"]), quoting=st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL]))
def test_csv_lists(tmp_path_factory, table: list[list[str]], delimiter: str, quoting: int) -> None:
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, quoting=quoting, lineterminator="\r\n").writerows(table)
    path = Path(tmp_path_factory.mktemp("csv")) / "list.csv"
    path.write_bytes(buf.getvalue().encode("utf-8", "surrogatepass"))
    _check(outcome(lambda: read_price_list(path, "tiers"), WorkbookError), path)


@settings(max_examples=80)
@given(text=st.text(alphabet=st.sampled_from(list('Tier,K;Price out /1M\t"\n\r0123456789.,%x\x00\x0b=é')), max_size=300))
def test_raw_csv_text(tmp_path_factory, text: str) -> None:
    path = Path(tmp_path_factory.mktemp("csv")) / "raw.csv"
    path.write_text(text, encoding="utf-8", newline="")
    _check(outcome(lambda: read_price_list(path, "tiers"), WorkbookError), path)


def _written(value: Decimal, decimal: str, group: bool) -> str:
    whole, _, frac = f"{value:f}".partition(".")
    if group and len(whole) > 3:
        mark = "," if decimal == "." else "."
        head = len(whole) % 3 or 3
        whole = whole[:head] + "".join(mark + whole[i:i + 3] for i in range(head, len(whole), 3))
    return whole + (decimal + frac if frac else "")


@settings(max_examples=150)
@given(value=st.decimals(min_value=0, max_value=999_999, places=3, allow_nan=False, allow_infinity=False),
       delimiter=st.sampled_from([",", ";"]), group=st.booleans())
def test_numbers_read_as_written_or_refused_as_ambiguous(tmp_path_factory, value: Decimal, delimiter: str,
                                                          group: bool) -> None:
    # a list separated by ";" writes decimal commas (the European export), one separated by "," points
    decimal = "," if delimiter == ";" else "."
    text = _written(value, decimal, group)
    path = Path(tmp_path_factory.mktemp("num")) / "list.csv"
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator="\n").writerows([["Tier", "Price out /1M"], ["A", text]])
    path.write_text(buf.getvalue(), encoding="utf-8")
    got = outcome(lambda: read_price_list(path, "tiers"), WorkbookError)
    if isinstance(got, WorkbookError):
        assert "ambiguous" in str(got), (text, str(got))
        assert decimal == ","
    else:
        assert got.new_rows()[0].price_out == pytest.approx(float(value), rel=1e-12), text


_XLSX_SAFE = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=16)


@settings(max_examples=40)
@given(cells=st.lists(st.lists(st.one_of(_XLSX_SAFE, st.floats(allow_nan=False), st.integers(-10**15, 10**15),
                                         st.sampled_from(["2,50", "1,500", "80%", "=1+1", "", None])),
                               min_size=3, max_size=3), max_size=5),
       far=st.sampled_from([None, "XFD1048576", "A1048576", "B100002", "AZ99"]))
def test_xlsx_lists(tmp_path_factory, cells: list[list[object]], far: str | None) -> None:
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["Tier", "Price out /1M", "Notes"])
    for row in cells:
        ws.append(row)
    if far:
        ws[far] = "stray"
    path = Path(tmp_path_factory.mktemp("xlsx")) / "list.xlsx"
    book.save(path)
    _check(outcome(lambda: read_price_list(path, "tiers"), WorkbookError), path)


GROUP_MARKS = " \u00a0\u202f\u2009'\u2019"


@settings(max_examples=80, deadline=None)
@given(whole=st.integers(1000, 10**7), frac=st.one_of(st.none(), st.integers(0, 99)),
       mark=st.sampled_from(list(GROUP_MARKS)), decimal=st.sampled_from([".", ","]),
       euro=st.sampled_from(["", " €", "€ "]))
def test_grouped_numbers_read_the_same_in_a_list_and_a_cell(tmp_path_factory, whole: int, frac: int | None,
                                                            mark: str, decimal: str, euro: str) -> None:
    from model.workbook.validation import ValidationError, parse_field
    from model.workbook.rows import Tier

    text = f"{whole:,}".replace(",", mark) + (f"{decimal}{frac:02d}" if frac is not None else "")
    text = euro + text if euro == "€ " else text + euro
    sep = ";" if decimal == "," else ","
    path = Path(tmp_path_factory.mktemp("g")) / "list.csv"
    path.write_text(f"Tier{sep}Price out /1M\nA{sep}\"{text}\"\n", encoding="utf-8")
    got = outcome(lambda: read_price_list(path, "tiers", decimal=decimal), WorkbookError)
    try:
        cell: object = parse_field(Tier, "price_out", text, "A", decimal=decimal)
    except ValidationError as exc:
        cell = exc
    # grouped by a space or an apostrophe: refused in both, with the number to write
    assert isinstance(got, WorkbookError) and isinstance(cell, ValidationError), (got, cell)
    written = f"{whole}" + (f"{decimal}{frac:02d}" if frac is not None else "")
    assert f"write {written}" in str(got) and f"write {written}" in str(cell), (str(got), str(cell))


@settings(max_examples=60, deadline=None)
@given(price=st.tuples(st.integers(0, 999), st.integers(0, 99)), extra=st.integers(1, 3))
def test_a_row_wider_than_its_header_is_refused(tmp_path_factory, price: tuple[int, int], extra: int) -> None:
    path = Path(tmp_path_factory.mktemp("w")) / "list.csv"
    row = ",".join(["A", f"{price[0]},{price[1]:02d}", "3"] + ["1"] * (extra - 1))
    path.write_text(f"Tier,Price out /1M,Price in /1M\n{row}\n")
    got = outcome(lambda: read_price_list(path, "tiers"), WorkbookError)
    assert isinstance(got, WorkbookError) and "line 2: " in str(got) and "semicolons" in str(got), got
