"""Runs one headless subcommand so that every expected failure is one line on stderr."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable

from model.common.messages import ECHO_LIMIT, INPUT_FAILURES, is_worded, one_line, worded
from model.common.terminal import TerminalStream
from model.workbook.validation import WorkbookError

__all__ = ["ECHO_LIMIT", "CommandError", "one_line", "run_command", "worded"]


class CommandError(Exception):
    """A problem to report as one line on stderr with a non-zero exit."""


def run_command(name: str, runner: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    # every text printed, from a file or a server included, through the one sanitiser (model/common/terminal.py)
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalStream(streams[0]), TerminalStream(streams[1])  # type: ignore[assignment]
    try:
        return _run(name, runner, args)
    finally:
        if isinstance(sys.stdout, TerminalStream):  # not where a broken pipe pointed it at devnull
            sys.stdout = streams[0]
        sys.stderr = streams[1]


def _run(name: str, runner: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return int(runner(args) or 0)
    except BrokenPipeError:
        # the reader went away (`specledger compare --json | head`): not an error worth a line
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except (CommandError, WorkbookError, *INPUT_FAILURES) as exc:
        print(f"specledger {name}: {one_line(worded(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"specledger {name}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug still gets one readable line, not a traceback
        text = one_line(worded(exc))
        if is_worded(exc):  # a symlink loop, a damaged xlsx part: bad input after all
            print(f"specledger {name}: {text}", file=sys.stderr)
        else:
            print(f"specledger {name}: unexpected error ({exc.__class__.__name__}: {text})", file=sys.stderr)
        return 1


def confidence_arg(text: str) -> float:
    """argparse type for --confidence: 50% to below 100% (0.95 or 95%), through the workbook's validator."""
    import argparse

    from model.workbook.rows import Settings
    from model.workbook.validation import ValidationError, parse_field

    try:
        return float(parse_field(Settings, "confidence", text))
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("Settings, ")) from None
