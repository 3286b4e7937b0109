"""What the command line says about bad input: one worded line, cut to a readable length, before any window."""
from __future__ import annotations

import errno
import os
import subprocess
import sys
import zipfile
import zlib
from xml.etree import ElementTree

import pytest

import main
from commands.runner import ECHO_LIMIT, one_line, run_command, worded
from commands.screenshot import MAX_PIXELS, MAX_SIDE, parse_size
from commands.runner import CommandError
from tests.paths import ROOT


def _main(capsys, *argv: str) -> tuple[int, str]:
    try:
        code = main.main(list(argv))
    except SystemExit as exc:  # argparse's refusals exit
        code = exc.code
    return code, capsys.readouterr().err


def test_mistyped_subcommand_lists_the_commands(capsys, monkeypatch):
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")  # the refusal must not depend on a display
    code, err = _main(capsys, "comapre")
    assert code == 2 and err.count("\n") == 1
    assert "'comapre' is not a command" in err and "did you mean `specledger compare`" in err
    assert all(name in err for name in main.COMMANDS)
    assert "display" not in err


def test_a_workbook_name_is_not_taken_for_a_command(capsys, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    _code, err = _main(capsys, "missing-workbook.json")
    assert "not a command" not in err


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_unreadable_workbook_argument_refused_before_the_window(capsys, monkeypatch, tmp_path, special):
    if special == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("needs FIFOs")
        special = str(tmp_path / "fifo.json")
        os.mkfifo(special)
    import gui.window.app as app

    monkeypatch.setattr(app, "run_app", lambda _path: pytest.fail("the window started"))
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    code, err = _main(capsys, special)
    assert code == 2 and err.count("\n") == 1 and special in err


def test_long_argument_is_cut_in_the_message(capsys):
    code, err = _main(capsys, "calc", "--k", "x" * 5000, "--c", "0.1")
    assert code == 2 and err.count("\n") == 1
    assert "x" * (ECHO_LIMIT - 10) in err and "x" * (ECHO_LIMIT + 1) not in err and "…" in err


def test_one_line_joins_lines_and_cuts_words():
    assert one_line("a\nb\r\n  c") == "a b c"
    assert one_line("y" * 1000) == "y" * ECHO_LIMIT + "…"
    assert len(one_line(" ".join(["z" * 150] * 100))) <= 4 * ECHO_LIMIT + 1


@pytest.mark.parametrize("exc, words", [
    (OSError(errno.ELOOP, "Too many levels of symbolic links", "loop.json"), "loop.json: a symbolic link loop"),
    (RuntimeError("Symlink loop from '/tmp/a'"), "a symbolic link loop"),
    (zipfile.BadZipFile("File is not a zip file"), "a damaged file: not a readable zip/xlsx"),
    (zlib.error("Error -3 while decompressing data"), "a damaged file"),
    (OverflowError("cannot convert float infinity to integer"), "a number too large to use"),
    (RecursionError("maximum recursion depth exceeded"), "nested too deeply"),
    (FileNotFoundError(errno.ENOENT, "No such file or directory", "x.json"), "x.json: no such file or directory"),
    (KeyError("There is no item named 'xl/styles.xml' in the archive"), "a damaged xlsx: a part is missing"),
    (ElementTree.ParseError("not well-formed (invalid token): line 1, column 5"), "its XML does not parse"),
])
def test_failures_are_worded_not_unexpected(capsys, exc, words):
    def fail(_args):
        raise exc

    assert run_command("compare", fail, None) == 1
    err = capsys.readouterr().err
    assert words in err and "unexpected error" not in err and err.count("\n") == 1
    assert words in worded(exc)


@pytest.mark.parametrize("text", ["65535x65535", "16777215x1", "99999999999x1", "16384x16384", "0x10", "1600"])
def test_screenshot_size_bounded_to_a_screen(text):
    with pytest.raises(CommandError, match="--size"):
        parse_size(text)


def test_screenshot_size_within_the_bounds():
    assert parse_size("1366x768") == (1366, 768)
    assert parse_size(f"{MAX_SIDE}x{MAX_PIXELS // MAX_SIDE}") == (MAX_SIDE, MAX_PIXELS // MAX_SIDE)


def _shot(*args: str, tmp_path) -> subprocess.CompletedProcess:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TMPDIR": str(tmp_path)}
    return subprocess.run([sys.executable, str(ROOT / "main.py"), "screenshot", *args], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=120)


@pytest.mark.parametrize("out", ["", "no-such-folder/x.png", "."])
def test_screenshot_bad_target_is_one_line_without_qt_warnings(tmp_path, out):
    r = _shot(out, tmp_path=tmp_path)
    assert r.returncode != 0
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("specledger screenshot:")


def test_screenshot_leaves_no_settings_folder_behind(tmp_path):
    r = _shot("out.png", "--size", "800x600", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # no Qt chatter either
    assert (tmp_path / "out.png").read_bytes().startswith(b"\x89PNG")
    assert not list(tmp_path.glob("specledger-shot-*"))


def test_a_bug_still_says_unexpected(capsys):
    def fail(_args):
        raise KeyError("tiers")

    assert run_command("compare", fail, None) == 1
    assert "unexpected error (KeyError" in capsys.readouterr().err


@pytest.mark.parametrize("lines", ["header", "header and K"])
def test_a_probe_run_file_given_as_a_workbook_is_named_as_one(capsys, tmp_path, lines):
    """`compare run.jsonl` said 'not valid JSON at line 2' of a file SpecLedger wrote itself: it says what the
    file is and which command reads it."""
    from model.probe.run_file import RunWriter, record_k
    run = tmp_path / "turbo.run.jsonl"
    with RunWriter(run, {"endpoint": {"url": "http://127.0.0.1:1/v1"}}):
        pass
    if lines == "header and K":
        assert record_k(run, 4, "timing")
    code, err = _main(capsys, "compare", str(run))
    assert code == 1 and err.count("\n") == 1
    assert "is a probe run file" in err and "import-metrics FILE --apply WORKBOOK" in err
    assert "not valid JSON" not in err
