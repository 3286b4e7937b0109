"""Runs one headless subcommand so that every expected failure is one line on stderr."""
from __future__ import annotations

import argparse
import errno
import os
import re
import sys
import zipfile
import zlib
from typing import Callable

from model.workbook.validation import WorkbookError

# an argument echoed back in a message is cut here: 5,000 characters of it help nobody
ECHO_LIMIT = 200
_LONG_WORD = re.compile(r"\S{%d,}" % (ECHO_LIMIT + 1))


class CommandError(Exception):
    """A problem to report as one line on stderr with a non-zero exit."""


def one_line(text: str) -> str:
    """A message fit for one line of stderr: line breaks joined, any word past ECHO_LIMIT cut with an ellipsis."""
    text = " ".join(part.strip() for part in str(text).splitlines() if part.strip())
    text = _LONG_WORD.sub(lambda m: m.group(0)[:ECHO_LIMIT] + "…", text)
    return text if len(text) <= 4 * ECHO_LIMIT else text[:4 * ECHO_LIMIT] + "…"


def worded(exc: BaseException) -> str:
    """What went wrong, in words, for the failures that Python would otherwise name only by class."""
    if isinstance(exc, OSError) and exc.errno == errno.ELOOP:
        return f"{exc.filename}: a symbolic link loop (the link points back to itself)"
    if isinstance(exc, OSError) and exc.strerror and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror[:1].lower()}{exc.strerror[1:]}"
    if isinstance(exc, RuntimeError) and "symlink loop" in str(exc).lower():
        return f"a symbolic link loop ({exc})"  # pathlib's resolve() says it this way
    if isinstance(exc, (zipfile.BadZipFile, zlib.error, EOFError)):
        return f"a damaged file: not a readable zip/xlsx ({exc or exc.__class__.__name__})"
    if isinstance(exc, OverflowError):
        return f"a number too large to use ({exc})"
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply to read"
    if isinstance(exc, MemoryError):
        return "not enough memory: the input is too large"
    return str(exc) or exc.__class__.__name__


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
    except (CommandError, WorkbookError, OSError, ValueError, zipfile.BadZipFile, zlib.error, EOFError,
            OverflowError, RecursionError, MemoryError) as exc:
        print(f"specledger {name}: {one_line(worded(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"specledger {name}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug still gets one readable line, not a traceback
        text = worded(exc)
        if isinstance(exc, RuntimeError) and text != str(exc):  # a symlink loop, worded
            print(f"specledger {name}: {one_line(text)}", file=sys.stderr)
        else:
            print(f"specledger {name}: unexpected error ({exc.__class__.__name__}: {one_line(text)})", file=sys.stderr)
        return 1
