"""Errors as users read them: one line, worded, with any echoed argument cut to a readable length.

The CLI (commands/runner) and the window's dialogs both say failures this way, so a damaged zip or a
symlink loop reads the same in a terminal and in a message box.
"""
from __future__ import annotations

import errno
import re
import zipfile
import zlib

# an argument echoed back in a message is cut here: 5,000 characters of it help nobody
ECHO_LIMIT = 200
_LONG_WORD = re.compile(r"\S{%d,}" % (ECHO_LIMIT + 1))

# failures that bad input (not a bug) causes; worded() also recognises a few KeyError, SyntaxError
# and RuntimeError shapes that only a damaged file or a symlink loop produces
INPUT_FAILURES: tuple[type[BaseException], ...] = (
    OSError, ValueError, zipfile.BadZipFile, zlib.error, EOFError, OverflowError, RecursionError, MemoryError)


def is_worded(exc: BaseException) -> bool:
    """True when worded() knows what `exc` means (so it is bad input, not a bug)."""
    return isinstance(exc, INPUT_FAILURES) or worded(exc) != (str(exc) or exc.__class__.__name__)


def one_line(text: str) -> str:
    """A message fit for one line: line breaks joined, any word past ECHO_LIMIT cut with an ellipsis."""
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
    if isinstance(exc, KeyError) and "archive" in str(exc):
        # zipfile: "There is no item named 'xl/styles.xml' in the archive"
        return f"a damaged xlsx: a part is missing ({exc.args[0] if exc.args else exc})"
    if isinstance(exc, SyntaxError) and exc.__class__.__name__ == "ParseError":
        return f"a damaged file: its XML does not parse ({exc})"
    if isinstance(exc, OverflowError):
        return f"a number too large to use ({exc})"
    if isinstance(exc, RecursionError):
        return "the input is nested too deeply to read"
    if isinstance(exc, MemoryError):
        return "not enough memory: the input is too large"
    return str(exc) or exc.__class__.__name__
