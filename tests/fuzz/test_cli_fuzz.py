"""Fuzzing the command line: every refusal is one line on stderr with a non-zero exit, nothing hangs.

Hypothesis draws a subcommand (or a mistyped one, or none) and up to six arguments from the options
that command has and from hostile values: huge and negative numbers, nan and inf, empty and
5,000-character strings, control characters, links to /dev/zero, /dev/null and /dev/full, a FIFO, a
folder, a symlink loop, missing and damaged files. Most invocations run in-process through main.main() (a few hundred in seconds);
a handful run as real processes with a timeout, which is what catches a hang in a file open.
Bounded: FUZZ_EXAMPLES in-process and PROCESS_EXAMPLES subprocess examples, each under a time bound.
Models are never loaded: `sample` gets as far as loading the pair and is stopped there, so every
check made before the load (the request, the prompt file, the output target) is exercised.
"""
from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import main
from tests.paths import ROOT

FUZZ_EXAMPLES = int(os.environ.get("SPECLEDGER_FUZZ_EXAMPLES", "300"))
PROCESS_EXAMPLES = int(os.environ.get("SPECLEDGER_FUZZ_PROCESSES", "12"))
SECONDS_PER_CALL = 30  # a bound far above any honest call (an export of the demo takes about a second)

OPTIONS = {
    "calc": ["--k", "--c", "--verify", "--alpha", "--json"],
    "compare": ["--json", "--csv"],
    "export": ["-o", "--output"],
    "import": ["-o", "--output", "--tiers", "--classes", "--into"],
    "sample": ["--draft", "--target", "--prompts", "--k", "--max-new-tokens", "--temperature", "--seed",
               "--provider", "--json"],
    "screenshot": ["--size", "--tab", "--tier"],
}
NUMBERS = ["0", "-1", "1", "4", "0.5", "1.5", "78%", "nan", "inf", "-inf", "1e308", "1e309", "12,50", "0,1",
           "99999999999", str(2**64), "9" * 5000, "-0", "0x10", "½", "٣"]
TEXTS = ["", " ", "x" * 5000, "comapre", "=1+1", "-", "--", "\x00", "a\nb", "\x1b[31m", "\x0b", "café",
         "16384x16384", "65535x65535", "800x600", "cuda", "cpu", "auto", "gpu"]


@pytest.fixture(scope="module")
def hostile_files(tmp_path_factory) -> list[str]:
    base = tmp_path_factory.mktemp("hostile")
    files = [base / "missing.json", base / "folder", base / "loop.json", base / "empty.json", base / "junk.xlsx",
             base / "bad.json", base / "ok.csv", base / "prompts.jsonl", base / "out.json", base / "out.xlsx"]
    (base / "folder").mkdir()
    os.symlink(base / "loop.json", base / "loop.json")
    (base / "empty.json").write_text("")
    (base / "junk.xlsx").write_bytes(b"PK\x03\x04" + os.urandom(300))
    (base / "bad.json").write_text('{"format": "specledger-workbook", "tiers": [{"name": "A", "k": "x"}]}')
    (base / "ok.csv").write_text("Tier,K,c (draft/target)\nA,4,0.1\n")
    (base / "prompts.jsonl").write_text('{"task_class": "code", "prompt": "\\ud800"}\n')
    # devices only behind symlinks: a command that forgot to check its -o would replace the link, never
    # the device node itself (these tests may run as root)
    for name, device in (("zero.json", "/dev/zero"), ("null.xlsx", "/dev/null"), ("full.json", "/dev/full")):
        os.symlink(device, base / name)
        files.append(base / name)
    out = [str(f) for f in files]
    if hasattr(os, "mkfifo"):
        os.mkfifo(base / "fifo.json")
        out.append(str(base / "fifo.json"))
    return out


def _shaped(files: list[str]) -> st.SearchStrategy[list[str]]:
    """Invocations shaped like real ones (the right options in place) with hostile values in the slots:
    these get past argparse to the readers, the validators and the output checks."""
    num = st.one_of(st.sampled_from(NUMBERS), st.integers(-10**6, 10**6).map(str),
                    st.floats(allow_nan=True, allow_infinity=True).map(repr))
    path = st.one_of(st.sampled_from(files), st.sampled_from(TEXTS))
    maybe = lambda *parts: st.one_of(st.just([]), st.tuples(*parts).map(list))  # noqa: E731

    def join(*parts: st.SearchStrategy) -> st.SearchStrategy[list[str]]:
        return st.tuples(*parts).map(lambda ps: [x for p in ps for x in (p if isinstance(p, list) else [p])])

    return st.one_of(
        join(st.just("calc"), st.just("--k"), num, st.just("--c"), num, maybe(st.just("--alpha"), num),
             maybe(st.just("--verify"), num), maybe(st.just("--json"))),
        join(st.just("compare"), path, maybe(st.sampled_from(["--json", "--csv"]))),
        join(st.just("export"), path, st.just("-o"), path),
        join(st.just("import"), path, st.just("-o"), path, maybe(st.sampled_from(["--tiers", "--classes"])),
             maybe(st.just("--into"), path)),
        join(st.just("sample"), st.just("--prompts"), path, st.just("--k"), num, st.just("--max-new-tokens"), num,
             st.just("--temperature"), num, st.just("--seed"), num, maybe(st.just("--json"), path)),
        join(st.just("sample"), st.sampled_from(["--draft", "--target"]), path),
        join(st.just("screenshot"), path, st.just("--size"), st.one_of(num, st.sampled_from(TEXTS))),
        path.map(lambda p: [p]),
    )


def _argv(files: list[str]) -> st.SearchStrategy[list[str]]:
    return st.one_of(_shaped(files), _loose(files))


def _loose(files: list[str]) -> st.SearchStrategy[list[str]]:
    """Anything: a command (or a mistyped one, or none) and up to six words from its options and hostile values."""
    def for_command(command: str) -> st.SearchStrategy[list[str]]:
        words = st.one_of(st.sampled_from(OPTIONS.get(command, ["--help-me"])), st.sampled_from(NUMBERS),
                          st.sampled_from(TEXTS), st.sampled_from(files), st.text(max_size=12))
        head = [command] if command else []
        return st.lists(words, max_size=6).map(lambda rest: head + rest)
    commands = st.sampled_from([*OPTIONS, "", "comapre", "Compare", "calc2", "--json"])
    return commands.flatmap(for_command)


class _TooLong(Exception):
    pass


def _on_alarm(_signum, _frame):
    raise _TooLong()


def _run_in_process(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, SECONDS_PER_CALL)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main.main(list(argv))
            except SystemExit as exc:  # argparse's refusals and --help
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except _TooLong:
        pytest.fail(f"specledger {argv!r} took over {SECONDS_PER_CALL} s")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return code, err.getvalue()


def _check(argv: list[str], code: int, err: str) -> None:
    shown = [a[:40] for a in argv]
    assert "Traceback" not in err, (shown, err[-2000:])
    assert "unexpected error" not in err, (shown, err)
    if code != 0:
        assert err.endswith("\n") and err.count("\n") == 1, (shown, err)
        assert len(err) < 2000, (shown, len(err))  # echoed arguments are cut


@pytest.fixture
def no_models_no_window(monkeypatch):
    import model.sampling.onnx_lm as onnx_lm

    def stop(*_args, **_kwargs):
        raise onnx_lm.ModelLoadError("fuzz: models are not loaded in this test")

    monkeypatch.setattr(onnx_lm, "load_pair", stop)
    monkeypatch.setattr(main, "_has_display", lambda: False)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")
def test_cli_arguments_fuzzed_in_process(hostile_files, no_models_no_window, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # relative outputs land here
    tried, refused = [], []

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(_argv(hostile_files))
    def one(argv: list[str]) -> None:
        if argv[:1] == ["screenshot"]:
            argv = [*argv, "--size", "0x0"]  # rendering is the screenshot tests' job; its refusals are fuzzed here
        if argv[:1] == ["sample"] and "--prompts" not in argv:
            argv = [*argv, "--prompts", hostile_files[0]]  # the demo prompts would take the run to the models
        code, err = _run_in_process(argv)
        tried.append(argv)
        refused.append(code != 0)
        _check(argv, code, err)

    one()
    print(f"\nCLI fuzz in-process: {len(tried)} invocations, {sum(refused)} refused (each in one line), "
          f"{len(tried) - sum(refused)} succeeded; 0 failed")
    assert sum(refused) > len(tried) // 4  # the strategy reaches the refusals, not only --help
    assert sum(refused) < len(tried)  # and some get all the way through


def test_cli_arguments_fuzzed_as_processes(hostile_files, tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    tried = []

    @settings(max_examples=PROCESS_EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    # headless commands only: sample would load models, screenshot and a workbook would open a window
    @given(_argv(hostile_files).filter(lambda a: a[:1] in (["calc"], ["compare"], ["export"], ["import"])))
    def one(argv: list[str]) -> None:
        argv = [a.replace("\x00", "") for a in argv]  # a process argument cannot hold NUL
        try:
            r = subprocess.run([sys.executable, str(ROOT / "main.py"), *argv], capture_output=True, text=True,
                               cwd=tmp_path, env=env, timeout=60, errors="replace")
        except subprocess.TimeoutExpired:
            pytest.fail(f"specledger {[a[:40] for a in argv]!r} hung")
        tried.append(argv)
        _check(argv, r.returncode, r.stderr)

    one()
    print(f"\nCLI fuzz as processes: {len(tried)} invocations")


@pytest.mark.parametrize("argv", [["comapre"], ["/dev/zero"], ["sample", "--temperature", "nan"],
                                  ["screenshot", "o.png", "--size", "65535x65535"], ["calc", "--k", "9" * 5000]])
def test_known_refusals_in_a_process(hostile_files, tmp_path, argv):
    r = subprocess.run([sys.executable, str(ROOT / "main.py"), *argv], capture_output=True, text=True,
                       cwd=tmp_path, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}, timeout=60)
    assert r.returncode != 0 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_fifo_workbook_refused_in_a_process(hostile_files, tmp_path):
    fifo = next((f for f in hostile_files if f.endswith("fifo.json")), None)
    if fifo is None:
        pytest.skip("needs FIFOs")
    for argv in (["compare", fifo], [fifo], ["export", fifo, "-o", str(tmp_path / "r.xlsx")],
                 ["import", "--tiers", fifo, "-o", str(tmp_path / "w.json")]):
        r = subprocess.run([sys.executable, str(ROOT / "main.py"), *argv], capture_output=True, text=True,
                           cwd=tmp_path, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}, timeout=60)
        assert r.returncode != 0 and r.stderr.count("\n") == 1, (argv, r.stderr)
        assert Path(fifo).name in r.stderr
