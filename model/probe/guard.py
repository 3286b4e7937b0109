"""What a hostile endpoint cannot do to the probe: hang it, fill its memory, or get the key written down.

- `POLL_S`: how often the probe's generators look at the cancel flag while a request streams (the
  request's deadline and the run's are the event loop's, model.probe.loop_client, whatever the server
  sends or does not: a byte every few seconds, only `: keep-alive` comments, headers that never end).
- `SseReader`: server-sent events read from the decompressed body with caps on one line and on
  the whole body, so an endless line or a gzip bomb ends in one line naming the request.
- `scrub_value`: the key (and any `Bearer ...` value) taken out of everything a request recorded.
- `usage_problems`: usage numbers no server can mean (1e32, negative, NaN) refused by field name.
"""
from __future__ import annotations

import math
import re
from typing import Any

POLL_S = 0.05
MAX_ERROR_BODY = 64 * 1024
MAX_LINE = 1024 * 1024  # one SSE line; a chunk with 4096 tokens' logprobs is well under this
MAX_BODY = 64 * 1024 * 1024  # decompressed bytes of one response
MAX_USAGE = 10**9  # tokens in one request's usage: no context holds more
REDACTED = "[redacted]"
_BEARER = re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]+")
USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


def event_cap(max_tokens: int) -> int:
    """The most events one answer of ``max_tokens`` may send: one a token, and generously more for the role,
    empty, finish and usage chunks servers add; a server sending far more (100,000 one-token events for 16
    tokens) is stopped, not recorded."""
    return 4 * max(1, max_tokens) + 64


def body_cap(max_tokens: int) -> int:
    """The most decompressed bytes one answer of ``max_tokens`` may send: 16 KB a token (a token's event with
    its logprobs is well under 1 KB) and 1 MB besides, within MAX_BODY."""
    return min(MAX_BODY, 1024 * 1024 + 16 * 1024 * max(1, max_tokens))


class StreamLimit(RuntimeError):
    """The body broke a cap; str() says which, for the request's one line."""


class SseReader:
    """`data:` payloads of server-sent events from decompressed chunks, within MAX_LINE and MAX_BODY.

    Events are split on blank lines chunk by chunk in C (bytes.split, filter), so a body of millions of
    blank lines or comments costs no Python loop per line. ``feed`` takes one chunk at a time (the event
    loop stamps a chunk's arrival, then feeds it).
    """

    def __init__(self, max_line: int = MAX_LINE, max_body: int = MAX_BODY) -> None:
        self.max_line, self.max_body = max_line, max_body
        self.bytes = 0
        self._buffer = b""

    def _data(self, event: bytes) -> str | None:
        data = []
        for line in event.split(b"\n"):
            if len(line) > self.max_line:
                raise StreamLimit(f"one line of the stream passed {self.max_line // 1024} KB")
            if not line or line.startswith(b":"):
                continue  # a comment (keep-alive): the deadline, not the comment, decides how long to wait
            name, _, value = line.partition(b":")
            if name == b"data":
                data.append(value[1:] if value.startswith(b" ") else value)
        return b"\n".join(data).decode("utf-8", errors="replace") if data else None

    def feed(self, chunk: bytes) -> list[str]:
        """The payloads this chunk completed (none while an event is still arriving)."""
        self.bytes += len(chunk)
        if self.bytes > self.max_body:
            raise StreamLimit(f"the body passed {self.max_body // (1024 * 1024)} MB (decompressed)")
        buffer = self._buffer + chunk
        if b"\r" in buffer:
            # CRLF and CR end lines too; a CR at the very end may be half of a CRLF still to come
            keep = buffer.endswith(b"\r")
            buffer = (buffer[:-1] if keep else buffer).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            buffer += b"\r" if keep else b""
        parts = buffer.split(b"\n\n")
        self._buffer = parts.pop()
        if len(self._buffer) > self.max_line:
            raise StreamLimit(f"one line of the stream passed {self.max_line // 1024} KB without an end")
        out = []
        for part in filter(None, parts):
            payload = self._data(part)
            if payload is not None:
                out.append(payload)
        return out

    def end(self) -> str | None:
        """The payload of an event the body ended without a blank line after."""
        tail, self._buffer = self._buffer, b""
        return self._data(tail.rstrip(b"\r"))


def scrub_value(value: Any, secret: str | None) -> Any:
    """A copy with the secret and any `Bearer ...` value replaced, in every string, key and list item."""
    if isinstance(value, str):
        if secret and secret in value:
            value = value.replace(secret, REDACTED)
        return _BEARER.sub("Bearer " + REDACTED, value) if "earer" in value or "EARER" in value else value
    if isinstance(value, dict):
        return {scrub_value(k, secret): scrub_value(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_value(v, secret) for v in value]
    return value


def mask_across(pieces: list[str], secret: str | None) -> list[str]:
    """The pieces with every character of the secret masked where it runs across them.

    A server that echoes the key in its content sends it a token at a time, so no single event holds it
    whole; joined, the events do. Lengths are kept, so the events still carry the text's shape."""
    if not secret or not pieces:
        return pieces
    joined = "".join(pieces)
    hits = []
    start = joined.find(secret)
    while start != -1:
        hits.append(start)
        start = joined.find(secret, start + 1)
    if not hits:
        return pieces
    masked = list(joined)
    for h in hits:
        masked[h:h + len(secret)] = "*" * len(secret)
    out, at = [], 0
    for piece in pieces:
        out.append("".join(masked[at:at + len(piece)]))
        at += len(piece)
    return out


def _bad_number(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return True
    if isinstance(value, int):  # compared as an int: 10**400 is past any float
        return value < 0 or value > MAX_USAGE
    return not math.isfinite(value) or value < 0 or value > MAX_USAGE or value != int(value)


def usage_problems(usage: dict[str, Any]) -> list[str]:
    """The usage fields no server can mean, by name; the caller drops them from the request."""
    return [f"usage.{name} = {str(usage[name])[:40]}" for name in USAGE_FIELDS
            if name in usage and usage[name] is not None and _bad_number(usage[name])]


def nan_constant(name: str) -> str:
    """json.loads' parse_constant: NaN and Infinity stay as text, so a field holding one is refused by name
    (and the run file, written without NaN, keeps what came)."""
    return name
