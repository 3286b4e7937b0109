"""Runs one headless subcommand so that every expected failure is one line on stderr."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable

from model.workbook.validation import WorkbookError


class CommandError(Exception):
    """A problem to report as one line on stderr with a non-zero exit."""


def run_command(name: str, runner: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return int(runner(args) or 0)
    except BrokenPipeError:
        # the reader went away (`specledger compare --json | head`): not an error worth a line
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except (CommandError, WorkbookError, OSError, ValueError) as exc:
        print(f"specledger {name}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"specledger {name}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug still gets one readable line, not a traceback
        print(f"specledger {name}: unexpected error ({exc.__class__.__name__}: {exc})", file=sys.stderr)
        return 1
