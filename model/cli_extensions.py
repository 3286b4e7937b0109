"""The table of headless subcommands: each one's argument parser and its runner.

New subcommands register here, so main.py stays a thin parser and dispatcher.
"""
from __future__ import annotations

import argparse
import sys
from typing import Callable

from .validation import WorkbookError

Runner = Callable[[argparse.Namespace], int]


def parsers() -> list[Callable[[argparse._SubParsersAction], None]]:
    return []


def _runners() -> dict[str, Runner]:
    from . import commands
    return {"calc": commands.run_calc, "compare": commands.run_compare}


def run_command(args: argparse.Namespace) -> int:
    """Run one subcommand; every expected failure is one line on stderr and exit code 1."""
    from .commands import CommandError
    runner = _runners().get(args.command)
    if runner is None:
        print(f"specledger: the {args.command!r} command is not available in this build", file=sys.stderr)
        return 2
    try:
        return runner(args)
    except (CommandError, WorkbookError, OSError, ValueError) as exc:
        print(f"specledger {args.command}: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug still gets one readable line, not a traceback
        print(f"specledger {args.command}: unexpected error ({exc.__class__.__name__}: {exc})", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"specledger {args.command}: interrupted", file=sys.stderr)
        return 130
