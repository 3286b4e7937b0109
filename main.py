"""SpecLedger: is a vendor's "fast tier" worth it on your workload? Parses arguments and starts things."""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

# command: (module, function adding its arguments, function running it, help)
COMMANDS: dict[str, tuple[str, str, str, str]] = {
    "calc": ("commands.calc_compare", "add_calc_arguments", "run_calc", "the arithmetic for one setting of K, c, v and alpha"),
    "compare": ("commands.calc_compare", "add_compare_arguments", "run_compare", "the priced comparison of a workbook (the demo without one)"),
    "export": ("commands.excel", "add_export_arguments", "run_export", "write the priced comparison as an Excel report"),
    "import": ("commands.excel", "add_import_arguments", "run_import", "read a report's inputs (or a CSV/xlsx price list) into a workbook"),
    "sample": ("commands.sample", "add_sample_arguments", "run_sample_command", "measure acceptance per task class with an ONNX draft/target pair"),
    "import-metrics": ("commands.import_metrics", "add_import_metrics_arguments", "run_import_metrics", "read acceptance from inference servers' metrics, logs and records, in all three conventions"),
    "probe": ("commands.probe", "add_probe_arguments", "run_probe_command", "measure a tier from outside through its API (OpenAI Chat Completions or Responses, Anthropic Messages): speculative or not, alpha per class, speed, the tier that served, an SLA, identity"),
    "serve-demo": ("commands.serve_demo", "add_serve_demo_arguments", "run_serve_demo", "a demo server on 127.0.0.1 to probe (the demo ONNX pair): an engine's stream, or a closed vendor's fast mode"),
    "screenshot": ("commands.screenshot", "add_screenshot_arguments", "run_screenshot", "render the main window offscreen to a PNG"),
}


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a refused argument is one line on stderr, as every other bad input is."""

    def error(self, message: str) -> NoReturn:
        # argparse prints its whole usage block first; scripts and analysts read only the first line
        from commands.runner import one_line

        self.exit(2, f"{self.prog}: {one_line(message)} (see `{self.prog} --help`)\n")


def _gui_parser() -> argparse.ArgumentParser:
    p = _OneLineParser(
        prog="specledger", allow_abbrev=False, description='SpecLedger: is a vendor\'s "fast tier" worth it on your workload? '
        "With no command, opens the window.",
        epilog="headless commands: " + "; ".join(f"{name}: {spec[3]}" for name, spec in COMMANDS.items())
        + ". Run `specledger COMMAND --help` for one.")
    p.add_argument("workbook", nargs="?", help="workbook .json, or a report .xlsx to import, to open (default: the built-in demo)")
    return p


def _run_subcommand(name: str, argv: list[str]) -> int:
    module_name, add_name, run_name, help_text = COMMANDS[name]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        print(f"specledger {name}: not available ({exc})", file=sys.stderr)
        return 2
    # no option is taken by a prefix: `probe --api x` once read as --api-key-env x
    parser = _OneLineParser(prog=f"specledger {name}", description=help_text, allow_abbrev=False)
    getattr(module, add_name)(parser)
    args = parser.parse_args(argv)
    args.command = name
    from commands.runner import run_command
    return run_command(name, getattr(module, run_name), args)


def _has_display() -> bool:
    if os.environ.get("QT_QPA_PLATFORM", "").split(":")[0] in ("offscreen", "minimal", "vnc"):
        return True
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


# Qt 6.5+ loads its X11 plugin only with this library, which many desktops lack; without it Qt aborts
# with a many-line plugin message and a core dump, so it is looked for first
_XCB_CURSOR = "libxcb-cursor.so.0"


def _missing_system_library() -> str | None:
    """One line naming the missing system package the X11 window needs, or None."""
    if not sys.platform.startswith("linux") or not os.environ.get("DISPLAY"):
        return None
    platform = os.environ.get("QT_QPA_PLATFORM", "").split(":")[0]
    wayland = os.environ.get("WAYLAND_DISPLAY") and os.environ.get("XDG_SESSION_TYPE") == "wayland"
    if platform not in ("", "xcb") or (platform == "" and wayland):
        return None
    import ctypes

    try:
        ctypes.CDLL(_XCB_CURSOR)
    except OSError:
        return ("specledger: the window needs the system library libxcb-cursor0, which is not installed: "
                "`sudo apt install libxcb-cursor0` (Fedora: `sudo dnf install xcb-util-cursor`); "
                "meanwhile the headless commands work, e.g. `specledger compare`")
    return None


def _not_a_command(word: str) -> str | None:
    """The refusal for a mistyped subcommand, or None when `word` may be a workbook to open."""
    if os.path.exists(word) or os.path.islink(word) or word.lower().endswith((".json", ".xlsx")) \
            or os.sep in word or (os.altsep and os.altsep in word):
        return None
    import difflib

    from commands.runner import one_line

    close = difflib.get_close_matches(word, list(COMMANDS), n=1)
    hint = f"did you mean `specledger {close[0]}`? " if close else ""
    return one_line(f"specledger: {word!r} is not a command and not a workbook file; {hint}"
                    f"the commands are {', '.join(COMMANDS)} (a workbook to open ends in .json or .xlsx)")


def _check_workbook_argument(path: str) -> str | None:
    """A one-line refusal for a workbook argument that could not be read at all (a FIFO would hang the
    start, /dev/zero fill the memory), said before any window appears; None when it is worth opening."""
    from commands.runner import one_line
    from model.common.safe_files import FileRefused, check_regular_input

    if not os.path.lexists(path):
        return None  # the window says so, and opens the demo instead
    try:
        check_regular_input(path, "workbook")
    except FileRefused as exc:
        return one_line(f"specledger: {exc}")
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        return _run_subcommand(argv[0], argv[1:])
    if argv and not argv[0].startswith("-") and (refusal := _not_a_command(argv[0])):
        print(refusal, file=sys.stderr)
        return 2
    args = _gui_parser().parse_args(argv)
    if args.workbook and (refusal := _check_workbook_argument(args.workbook)):
        print(refusal, file=sys.stderr)
        return 2
    if not _has_display():
        print("specledger: no display available, so the window cannot open; "
              "use the headless commands instead, e.g. `specledger compare` or `specledger screenshot out.png`",
              file=sys.stderr)
        return 2
    if missing := _missing_system_library():
        print(missing, file=sys.stderr)
        return 2
    import gc

    # start-up makes some 80,000 objects that live as long as the window: the collector walking them as they come was
    # 20 ms of the first paint; the window collects once, after it (gui/window/app.py, settle_start_up)
    gc.disable()
    from gui.window.app import run_app
    return run_app(args.workbook)


if __name__ == "__main__":
    sys.exit(main())
