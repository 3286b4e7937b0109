"""The one sanitiser for text the CLI prints: whatever a file or a server put in a name, a note or an error,
no escape sequence runs on the analyst's terminal and no fake line appears.

Every subcommand's stdout and stderr are wrapped (commands/runner.run_command), so a text printed from a run
file, a log or a server's reply needs no care of its own. Control characters other than newline and tab, C1
controls, DEL and the bidirectional overrides (which reorder what is shown) are written as escapes; a carriage
return only where a write begins (a progress line redrawing itself), escaped anywhere else.
"""
from __future__ import annotations

import re
from typing import Any, TextIO

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_text(text: str) -> str:
    """`text` with everything a terminal would act on (not show) written as an escape such as \\x1b."""
    lead = "\r" if text.startswith("\r") else ""
    body = text[len(lead):]
    return lead + _UNSAFE.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), body)


class TerminalStream:
    """A text stream that writes through terminal_text; everything else is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(terminal_text(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
