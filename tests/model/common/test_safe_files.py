"""Inputs that are not regular files are refused before they are opened; sizes are bounded; output
targets are checked; saves are atomic, fsynced, and leave no temporary files behind."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from model.common import safe_files as sf
from model.common.safe_files import FileRefused, check_output_target, read_bytes_limited, read_text_limited
from tests.paths import ROOT

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")


def _read_in_thread(fn, *args, **kwargs):
    """Run a read that must not block; a hang shows as a failed join, not a stuck suite."""
    out: dict[str, object] = {}

    def run() -> None:
        try:
            out["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout=10)
    assert not t.is_alive(), "the read blocked"
    return out


@posix_only
def test_a_fifo_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "wb.json"
    os.mkfifo(fifo)
    out = _read_in_thread(read_text_limited, fifo, limit_bytes=1024, what="workbook file")
    err = out.get("error")
    assert isinstance(err, FileRefused), out
    assert str(err).startswith(f"{fifo}: is a FIFO (named pipe), not a workbook file")
    assert "\n" not in str(err)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_is_refused_not_read(device: str) -> None:
    with pytest.raises(FileRefused, match=rf"^{device}: is a character device, not a prompt file"):
        read_bytes_limited(device, limit_bytes=1024, what="prompt file")


def test_a_folder_and_a_missing_file_are_named(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match=r"is a folder, not a model config"):
        read_text_limited(tmp_path, limit_bytes=10, what="model config")
    with pytest.raises(FileRefused, match=r"nope.json: no such file"):
        read_text_limited(tmp_path / "nope.json", limit_bytes=10, what="model config")


def test_the_size_limit_is_said_and_a_file_at_the_limit_is_read(tmp_path: Path) -> None:
    f = tmp_path / "big.csv"
    f.write_bytes(b"x" * 2048)
    assert read_bytes_limited(f, limit_bytes=2048, what="price list") == b"x" * 2048
    with pytest.raises(FileRefused, match=r"big.csv: is 2,048 bytes, over the 2,047 bytes limit for a price list"):
        read_bytes_limited(f, limit_bytes=2047, what="price list")


def test_a_file_that_grows_while_read_is_still_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the size is checked on the open descriptor, then the read asks for limit + 1 bytes: a file
    # reported small by fstat but longer when read (it grew) is refused, not read whole
    f = tmp_path / "grows.jsonl"
    f.write_bytes(b"y" * 100)
    real_fstat = os.fstat

    class Small:
        def __init__(self, st: os.stat_result) -> None:
            self._st = st

        def __getattr__(self, name: str):
            return 10 if name == "st_size" else getattr(self._st, name)

    monkeypatch.setattr(sf.os, "fstat", lambda fd: Small(real_fstat(fd)))
    with pytest.raises(FileRefused, match=r"over the 50 bytes limit"):
        read_bytes_limited(f, limit_bytes=50, what="prompt file")


@posix_only
def test_a_fifo_swapped_in_after_the_check_is_caught_on_the_descriptor(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # the race: a regular file at stat time, a FIFO at open time. O_NONBLOCK keeps the open from
    # blocking and the fstat on the descriptor refuses it
    path = tmp_path / "prompts.jsonl"
    os.mkfifo(path)
    regular = tmp_path / "regular"
    regular.write_text("{}")
    real_stat = os.stat
    monkeypatch.setattr(sf.os, "stat", lambda p, *a, **k: real_stat(regular) if Path(p) == path else real_stat(p, *a, **k))
    out = _read_in_thread(read_bytes_limited, path, limit_bytes=100, what="prompt file")
    assert isinstance(out.get("error"), FileRefused) and "FIFO" in str(out["error"]), out


def test_text_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    f = tmp_path / "p.jsonl"
    f.write_bytes(b'{"a": 1}\n{"b": "\xff"}\n')
    with pytest.raises(FileRefused, match=r"p.jsonl: is not UTF-8 text \(a bad byte at line 2\)"):
        read_text_limited(f, limit_bytes=100, what="prompt file")
    f.write_bytes("\ufeffname\n".encode())
    assert read_text_limited(f, limit_bytes=100, what="price list", encoding="utf-8-sig") == "name\n"


def test_a_path_with_a_newline_stays_one_line(tmp_path: Path) -> None:
    with pytest.raises(FileRefused) as info:
        read_text_limited(tmp_path / "a\nb.json", limit_bytes=10, what="workbook file")
    assert "\n" not in str(info.value) and "no such file" in str(info.value)


# --- output targets ----------------------------------------------------------------------

def test_a_new_or_regular_target_is_itself(tmp_path: Path) -> None:
    new = tmp_path / "out.json"
    assert check_output_target(new, "workbook") == new
    new.write_text("{}")
    assert check_output_target(new, "workbook") == new


@posix_only
def test_targets_that_are_not_regular_files_are_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.xlsx"
    os.mkfifo(fifo)
    with pytest.raises(FileRefused, match=r"fifo.xlsx: is a FIFO \(named pipe\), not a regular file; the report was not written"):
        check_output_target(fifo, "report")
    with pytest.raises(FileRefused, match=r"is a folder"):
        check_output_target(tmp_path, "report")
    with pytest.raises(FileRefused, match=r"the folder .*missing does not exist"):
        check_output_target(tmp_path / "missing" / "r.xlsx", "report")
    if Path("/dev/full").exists():
        link = tmp_path / "full.xlsx"
        link.symlink_to("/dev/full")
        with pytest.raises(FileRefused, match=r"is a symlink to /dev/full, which is a character device"):
            check_output_target(link, "report")
        with pytest.raises(FileRefused, match=r"is a character device"):
            check_output_target("/dev/null", "report")


@posix_only
def test_a_symlink_to_a_regular_file_is_followed_and_said(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    target = check_output_target(link, "workbook")
    assert target == real
    assert sf.symlink_note(link, target) == f"{link} is a symlink; wrote its target {real}"
    assert sf.symlink_note(real, check_output_target(real, "workbook")) is None
    sf.atomic_write(target, lambda tmp: Path(tmp).write_text("new"))
    assert link.is_symlink() and link.read_text() == "new"


@posix_only
def test_dangling_symlinks_and_loops_are_refused(tmp_path: Path) -> None:
    dangling = tmp_path / "d.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    with pytest.raises(FileRefused, match=r"a symlink to nothing"):
        check_output_target(dangling, "workbook")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(FileRefused, match=r"a symlink loop"):
        check_output_target(a, "workbook")


# --- atomic writes -----------------------------------------------------------------------

def test_atomic_write_fsyncs_the_file_before_the_rename_and_the_folder_after(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync-dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "fsync-file")
        real_fsync(fd)

    def replace(a, b) -> None:
        events.append("rename")
        real_replace(a, b)

    monkeypatch.setattr(sf.os, "fsync", fsync)
    monkeypatch.setattr(sf.os, "replace", replace)
    sf.atomic_write(tmp_path / "out.txt", lambda tmp: Path(tmp).write_text("data"))
    assert (tmp_path / "out.txt").read_text() == "data"
    if Path("/proc/self/fd").exists():
        assert events == ["fsync-file", "rename", "fsync-dir"]
    else:
        assert events[1] == "rename" and len(events) >= 2


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")

    def broken(tmp: str) -> None:
        Path(tmp).write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError):
        sf.atomic_write(target, broken)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


@posix_only
def test_a_killed_save_leaves_no_temp_file_the_next_time(tmp_path: Path) -> None:
    target = tmp_path / "wb.json"
    # a real save killed with SIGKILL in the middle of its write
    script = (
        "import os, signal, sys, time\n"
        "from model.common.safe_files import atomic_write\n"
        "def write(tmp):\n"
        "    open(tmp, 'w').write('partial')\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        f"atomic_write({str(target)!r}, write)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, timeout=60)
    assert proc.returncode == -9
    litter = [p.name for p in tmp_path.iterdir() if p.name.endswith(sf.TEMP_SUFFIX)]
    assert len(litter) == 1 and litter[0].startswith(".wb.json.")
    # someone else's file that only looks alike (no pid) and a live save's file are left alone
    (tmp_path / ".wb.json.notapid.specledger-tmp").write_text("x")
    live = tmp_path / f".wb.json.{os.getpid()}-abc{sf.TEMP_SUFFIX}"
    live.write_text("x")
    sf.atomic_write(target, lambda tmp: Path(tmp).write_text("saved"))
    assert target.read_text() == "saved"
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["wb.json", ".wb.json.notapid.specledger-tmp", live.name])


def test_atomic_write_keeps_the_mode_of_the_file_it_replaces(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")
    os.chmod(target, 0o640)
    sf.atomic_write(target, lambda tmp: Path(tmp).write_text("new"))
    assert target.stat().st_mode & 0o777 == 0o640
