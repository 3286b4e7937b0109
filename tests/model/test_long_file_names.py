"""Legal file names of 222-255 bytes are saved: the temporary name beside them stays within 255 bytes too; the
name suggested for a title of 80 emoji can be saved."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from model.common.safe_files import atomic_write, remove_stale_temp_files, write_text_atomic
from model.workbook.json_file import load_demo, save_workbook, suggested_stem


@pytest.mark.parametrize("length", [200, 222, 240, 255])
def test_a_name_up_to_255_bytes_is_saved_atomically(tmp_path: Path, length: int) -> None:
    name = "a" * (length - 5) + ".json"
    path = write_text_atomic(tmp_path / name, "{}", "test file")
    assert path.read_text() == "{}" and os.listdir(tmp_path) == [name]


def test_a_255_byte_name_of_multibyte_characters_is_saved(tmp_path: Path) -> None:
    name = "é" * 125 + ".json"  # 255 bytes
    assert len(name.encode()) == 255
    save_workbook(load_demo(), tmp_path / name)
    assert os.listdir(tmp_path) == [name]


def test_a_stale_temporary_file_of_a_long_name_is_still_found(tmp_path: Path) -> None:
    target = tmp_path / ("b" * 250 + ".csv")
    atomic_write(target, lambda tmp: Path(tmp).write_text("x"))
    from model.common.safe_files import TEMP_SUFFIX, _temp_prefix
    stale = tmp_path / f"{_temp_prefix(target.name)}999999999-abcdefgh{TEMP_SUFFIX}"  # a process long gone
    stale.write_text("half")
    assert len(stale.name.encode()) <= 255
    assert remove_stale_temp_files(target) == [stale]


def test_the_name_suggested_for_80_emoji_can_be_saved(tmp_path: Path) -> None:
    stem = suggested_stem("🚀" * 80)
    assert len((stem + ".xlsx").encode()) <= 255 and stem.startswith("🚀")
    save_workbook(load_demo(), tmp_path / (stem + ".json"))
    assert os.listdir(tmp_path) == [stem + ".json"]
