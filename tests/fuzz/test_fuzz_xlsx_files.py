"""Fuzz the xlsx readers with damaged files: bytes flipped, cut, parts replaced or emptied. A report
import and a price-list import each give a workbook the validator accepts, or one WorkbookError line."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.report.export import export_report
from model.report.importer import import_report
from model.report.price_list import read_price_list
from model.workbook.json_file import load_demo
from model.workbook.rows import Workbook
from model.workbook.validation import WorkbookError
from tests.fuzz.bounds import assert_accepted_as_typed, outcome


@pytest.fixture(scope="module")
def report_bytes(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("report") / "report.xlsx"
    export_report(load_demo(), path)
    return path.read_bytes()


def _read_both(path: Path) -> None:
    got = outcome(lambda: import_report(path), WorkbookError)
    if isinstance(got, WorkbookError):
        assert str(got).startswith(f"{path}: ")
    else:
        assert_accepted_as_typed(got)
    got = outcome(lambda: read_price_list(path, "tiers"), WorkbookError)
    if not isinstance(got, WorkbookError):
        assert_accepted_as_typed(Workbook(tiers=got.new_rows()))


@settings(max_examples=60)
@given(flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), min_size=1, max_size=8),
       cut=st.one_of(st.none(), st.floats(0, 1)))
def test_flipped_and_cut_bytes(tmp_path_factory, report_bytes: bytes, flips: list[tuple[float, int]],
                               cut: float | None) -> None:
    data = bytearray(report_bytes)
    for where, mask in flips:
        data[int(where * len(data))] ^= mask
    if cut is not None:
        data = data[: int(cut * len(data))]
    path = Path(tmp_path_factory.mktemp("flip")) / "r.xlsx"
    path.write_bytes(bytes(data))
    _read_both(path)


@settings(max_examples=60)
@given(part=st.integers(0, 30), how=st.sampled_from(["drop", "empty", "truncate", "garbage", "xml"]),
       garbage=st.binary(max_size=200))
def test_damaged_parts(tmp_path_factory, report_bytes: bytes, part: int, how: str, garbage: bytes) -> None:
    src = Path(tmp_path_factory.mktemp("src")) / "src.xlsx"
    src.write_bytes(report_bytes)
    path = src.with_name("damaged.xlsx")
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        infos = zin.infolist()
        victim = infos[part % len(infos)].filename
        for item in infos:
            data = zin.read(item)
            if item.filename == victim:
                data = {"drop": None, "empty": b"", "truncate": data[: len(data) // 2], "garbage": garbage,
                        "xml": b"<?xml version='1.0'?><x><y>" + garbage.hex().encode() + b"</x>"}[how]
            if data is not None:
                zout.writestr(item, data)
    _read_both(path)
