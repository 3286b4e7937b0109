"""What a hostile endpoint cannot do to the probe: hang it, fill its memory, or get the key written down.

- `Watchdog`: a request's wall-clock deadline (and the run's) and the cancel flag, checked every
  POLL_S on a thread of its own, whatever the server sends or does not: a byte every few seconds,
  only `: keep-alive` comments, headers that never end. When one passes it shuts the request's
  socket down, which ends a blocked read at once; the request then fails with one line (or, on a
  cancel, raises Cancelled). The socket comes from httpcore's trace of the TCP connect.
- `SseReader`: server-sent events read from the decompressed body with caps on one line and on
  the whole body, so an endless line or a gzip bomb ends in one line naming the request.
- `bounded_body`: at most MAX_ERROR_BODY bytes of an error answer.
- `scrub_value`: the key (and any `Bearer ...` value) taken out of everything a request recorded.
- `usage_problems`: usage numbers no server can mean (1e32, negative, NaN) refused by field name.
"""
from __future__ import annotations

import math
import re
import socket
import threading
import time
from typing import Any, Callable, Iterator

from model.cancel import Cancelled

POLL_S = 0.05
MAX_ERROR_BODY = 64 * 1024
MAX_LINE = 1024 * 1024  # one SSE line; a chunk with 4096 tokens' logprobs is well under this
MAX_BODY = 64 * 1024 * 1024  # decompressed bytes of one response
MAX_USAGE = 10**9  # tokens in one request's usage: no context holds more
REDACTED = "[redacted]"
_BEARER = re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]+")
USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "total_tokens")


class StreamLimit(RuntimeError):
    """The body broke a cap; str() says which, for the request's one line."""


class Watchdog:
    """Shuts a request's connection when its deadline passes or the cancel flag is set."""

    def __init__(self, deadline: float, cancel: Callable[[], bool] | None, sock: socket.socket | None = None) -> None:
        self.deadline, self.cancel = deadline, cancel  # deadline on time.monotonic()
        self.sock = sock  # set again by the trace when the request opens a new connection
        self.reason = ""  # "cancel" or "deadline" once it fired
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="probe-watchdog", daemon=True)

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace hook: keep the socket of a connection as it is made."""
        if event == "connection.connect_tcp.complete":
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if isinstance(sock, socket.socket):
                self.sock = sock

    def _fire(self, reason: str) -> None:
        self.reason = reason
        sock = self.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes a read blocked on it, unlike close()
            except OSError:
                pass

    def _run(self) -> None:
        while not self._stop.wait(POLL_S):
            if self.cancel is not None and self.cancel():
                self._fire("cancel")
                return
            if time.monotonic() >= self.deadline:
                self._fire("deadline")
                return

    def raise_if_fired(self) -> None:
        if self.reason == "cancel":
            raise Cancelled()

    def __enter__(self) -> "Watchdog":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(1.0)


class SseReader:
    """`data:` payloads of server-sent events from decompressed chunks, within MAX_LINE and MAX_BODY.

    Events are split on blank lines chunk by chunk in C (bytes.split, filter), so a body of millions of
    blank lines or comments costs no Python loop per line; ``check`` runs once per chunk (the watchdog's
    deadline holds while a buffered body is being taken apart, when no socket read would notice it).
    ``feed`` takes one chunk at a time (the load runner's event loop stamps a chunk's arrival, then
    feeds it); ``events`` reads a whole iterator of chunks.
    """

    def __init__(self, chunks: Iterator[bytes] = iter(()), max_line: int = MAX_LINE, max_body: int = MAX_BODY,
                 check: Callable[[], None] | None = None) -> None:
        self._chunks, self.max_line, self.max_body, self._check = chunks, max_line, max_body, check
        self.bytes = 0
        self._buffer = b""

    def _data(self, event: bytes) -> str | None:
        data = []
        for line in event.split(b"\n"):
            if len(line) > self.max_line:
                raise StreamLimit(f"one line of the stream passed {self.max_line // 1024} KB")
            if not line or line.startswith(b":"):
                continue  # a comment (keep-alive): the watchdog, not the comment, decides how long to wait
            name, _, value = line.partition(b":")
            if name == b"data":
                data.append(value[1:] if value.startswith(b" ") else value)
        return b"\n".join(data).decode("utf-8", errors="replace") if data else None

    def feed(self, chunk: bytes) -> list[str]:
        """The payloads this chunk completed (none while an event is still arriving)."""
        if self._check is not None:
            self._check()
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

    def events(self) -> Iterator[str]:
        for chunk in self._chunks:
            yield from self.feed(chunk)
        tail = self.end()
        if tail is not None:
            yield tail


def bounded_body(chunks: Iterator[bytes], limit: int = MAX_ERROR_BODY) -> bytes:
    """The first ``limit`` bytes of a body; the rest is not read."""
    out = b""
    for chunk in chunks:
        out += chunk
        if len(out) >= limit:
            return out[:limit]
    return out


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
    return not math.isfinite(value) or value < 0 or value > MAX_USAGE or value != int(value)


def usage_problems(usage: dict[str, Any]) -> list[str]:
    """The usage fields no server can mean, by name; the caller drops them from the request."""
    return [f"usage.{name} = {str(usage[name])[:40]}" for name in USAGE_FIELDS
            if name in usage and usage[name] is not None and _bad_number(usage[name])]


def nan_constant(name: str) -> str:
    """json.loads' parse_constant: NaN and Infinity stay as text, so a field holding one is refused by name
    (and the run file, written without NaN, keeps what came)."""
    return name
