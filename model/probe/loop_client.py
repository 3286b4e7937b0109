"""The probe's client: every stream of a run on one asyncio event loop, stamped as its bytes arrive (the
one-stream probe, model.probe.run, reads its one stream the same way).

Why one loop and not a thread per stream: at 64 streams, 64 reader threads (and a watchdog thread each)
took turns at the GIL in no fixed order, each parsing its event's JSON before the next got in, so an
event was stamped late by a different amount at every step (tests/bench/bench_load.py measured the
median per-event jitter 4.6x the single stream's at 16 streams and 31.6x at 64). On one loop the streams
are read in the order their sockets became ready; a chunk is stamped the moment httpx hands it over and
only split into SSE payloads (bytes.split, in C) before the next socket is read; the JSON is parsed when
the stream has ended, PARSE_SLICE payloads at a time with the loop free in between.

What the thread-per-request client it replaced guaranteed holds here, by the loop's means: the request's deadline
(Limits.total_s) and the run's by asyncio's timeout, which cancels the read and closes the connection;
the analyst's cancel by the runner cancelling the task; 429 and 5xx retried a bounded number of times
honouring Retry-After; the same caps (guard.SseReader), the same one-line messages, the key scrubbed
from the record. Each 429 met is counted on the record (`throttled`).
"""
from __future__ import annotations

import asyncio
import socket
import struct
import sys
import time
from collections import deque
from typing import Any

import httpx

from model.probe.client import (RETRY_STATUS, Limits, ProbeRequestError, StreamingClient, fresh, retry_wait,
                                status_error, request_body, said_in)
from model.probe.endpoint import ApiKey, Endpoint
from model.probe.events import RequestRecord
from model.probe.guard import MAX_ERROR_BODY, SseReader, StreamLimit, body_cap, event_cap
from model.probe.stalls import StallWatch
from model.common import formatting as fmt

PARSE_SLICE = 16  # payloads parsed between two turns of the loop, once a stream has ended


class LoopClient(StreamingClient):
    """Streams requests to one endpoint from an event loop; one httpx.AsyncClient, ``pool`` connections."""

    def __init__(self, endpoint: Endpoint, key: ApiKey | None, limits: Limits = Limits(), pool: int = 1,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        super().__init__(endpoint, key, limits)
        self._client = httpx.AsyncClient(
            headers=self._headers(), follow_redirects=False, verify=True, transport=transport,
            # no cap on connections: the runner's n tasks bound them, and a cap only adds a pool wait that a
            # loaded machine can stretch past the connect timeout (a PoolTimeout where nothing was wrong)
            timeout=self._timeout(), limits=httpx.Limits(max_connections=None, max_keepalive_connections=pool))

    async def aclose(self) -> None:
        await self._client.aclose()

    async def stream(self, record: RequestRecord, messages: list[dict[str, Any]],
                     deadline: float | None = None) -> RequestRecord:
        """Fill ``record`` from one streamed answer or raise ProbeRequestError (one line); a cancel of the
        task raises CancelledError with the connection closed. ``deadline`` is the run's (time.monotonic)."""
        mine = time.monotonic() + self.limits.total_s
        end = min(mine, deadline) if deadline is not None else mine
        try:
            # wait_for, not asyncio.timeout_at: the project runs on Python 3.10 too
            return await asyncio.wait_for(self._stream(record, messages), max(0.0, end - time.monotonic()))
        except asyncio.TimeoutError:
            raise ProbeRequestError(self._deadline_message(record)) from None
        except httpx.HTTPError as exc:
            raise ProbeRequestError(self._scrub(self._http_message(record, exc))) from None
        finally:
            self.scrub_record(record)

    async def _stream(self, record: RequestRecord, messages: list[dict[str, Any]]) -> RequestRecord:
        limits = self.limits
        for attempt in range(limits.retries + 1):
            # at a temperature, each repeat its own seed: a server that honours seeds would repeat one draw
            sampled = (record.temperature or 0) > 0
            body = request_body(self.endpoint, messages, record.max_tokens, self.logprobs,
                                seed=record.repeat if sampled else 0, temperature=record.temperature or 0.0)
            fresh(record)
            start = time.perf_counter()
            async with self._client.stream("POST", self.url, json=body,
                                           extensions={"trace": Arrivals.trace}) as response:
                record.t_headers = time.perf_counter() - start
                if response.status_code == 429:
                    record.throttled += 1
                if response.status_code in RETRY_STATUS and attempt < limits.retries:
                    wait = retry_wait(response, attempt, limits.max_retry_wait_s)
                    record.retries += 1
                    await response.aclose()
                    await asyncio.sleep(wait)
                    continue
                if response.status_code != 200:
                    said = await _said(response)
                    if response.status_code == 400 and self.logprobs and "logprob" in said.lower():
                        self.logprobs = False  # the endpoint does not offer them: count tokens another way
                        continue
                    raise ProbeRequestError(self._scrub(status_error(record.label, self.endpoint, response)))
                self._streaming(record, response)
                watch = StallWatch(start)
                try:
                    with watch:
                        await self._read_events(record, response, start)
                finally:
                    record.stalls = watch.stalls
                return record
        raise ProbeRequestError(f"{record.label}: still refused after {fmt.count(limits.retries, 'retry', 'retries')}")  # pragma: no cover

    async def _read_events(self, record: RequestRecord, response: httpx.Response, start: float) -> None:
        problem = self._content_type_problem(record, response)
        if problem:
            raise ProbeRequestError(problem)
        clock = time.perf_counter
        reader = SseReader(max_body=body_cap(record.max_tokens))
        most = event_cap(record.max_tokens)
        arrived: list[tuple[float, str]] = []  # (arrival, payload): stamped now, parsed once the stream ended
        reads = Arrivals.attach(response.extensions.get("network_stream")) or Arrivals()
        record.clock = "kernel" if reads.kernel else "loop"
        quiet = EventWatch(self.limits, start)
        try:
            with quiet:
                async for chunk in response.aiter_bytes():
                    t = (reads.at if reads.at is not None else clock()) - start
                    payloads = reader.feed(chunk)
                    if payloads:
                        quiet.event()
                    arrived.extend((t, p) for p in payloads)
                    if len(arrived) > most:
                        raise StreamLimit(f"the server sent more than {most:,} events for at most "
                                          f"{fmt.count(record.max_tokens, 'token')} asked")
                    if payloads and self.dialect.is_end(payloads[-1]):
                        break
                else:
                    tail = reader.end()
                    if tail is not None:
                        arrived.append((clock() - start, tail))
        except asyncio.CancelledError:
            try:  # the events so far, for the deadline's message; the cancel itself goes on
                self._parse(record, arrived)
            except ProbeRequestError:
                pass
            if quiet.expired:  # bytes kept coming, events did not: the event limits, not the deadline, ended it
                raise ProbeRequestError(self._quiet_message(record, quiet)) from None
            raise
        except StreamLimit as exc:
            self._parse(record, arrived)  # an error in an earlier event is the one to name
            raise ProbeRequestError(f"{record.label}: {exc} after {fmt.count(len(record.events), 'event')}; gave up") from None
        except httpx.HTTPError:
            self._parse(record, arrived)
            raise
        t_done = clock() - start
        record.t_first_payload = arrived[0][0] if arrived else None
        done = False
        for first in range(0, len(arrived), PARSE_SLICE):
            if first:
                await asyncio.sleep(0)  # other streams' bytes are read (and stamped) in between
            if self._parse(record, arrived[first:first + PARSE_SLICE], first):
                done = True
                break
        record.t_done = t_done
        if not done:
            raise ProbeRequestError(f"{record.label}: the stream ended without {self.dialect.end_event} after "
                                    f"{fmt.count(len(record.events), 'event')} (cut midway)")

    def _quiet_message(self, record: RequestRecord, quiet: "EventWatch") -> str:
        if not record.events and not quiet.events:
            return (f"{record.label}: no event within {self.limits.first_byte_s:g} s of the request (bytes that are "
                    "no event, such as keep-alive comments, do not count); gave up")
        return (f"{record.label}: no next event within {self.limits.gap_s:g} s after "
                f"{fmt.count(max(len(record.events), quiet.events), 'event')} (bytes that are no event do not count); "
                "gave up")

    def _parse(self, record: RequestRecord, arrived: list[tuple[float, str]], first: int = 0) -> bool:
        for number, (t, payload) in enumerate(arrived, start=first + 1):
            if self._read_payload(record, number, payload, t):
                return True
        return False


class EventWatch:
    """The first-event and gap limits on events, not bytes: a socket read that brings only keep-alive comments,
    or one byte a second, resets httpx's read timeout but is no event. A timer on the loop cancels the reading
    task when the first event is later than Limits.first_byte_s after the request, or the next one later than
    Limits.gap_s after the last; ``expired`` tells that cancel from the analyst's or the deadline's."""

    def __init__(self, limits: Limits, start: float) -> None:
        self.limits = limits
        # start is perf_counter's when the request was sent: the first event's limit counts from there
        self._due = time.monotonic() + limits.first_byte_s - (time.perf_counter() - start)
        self.events = 0
        self.expired = False
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[Any] | None = None

    def event(self) -> None:
        self.events += 1
        self._due = time.monotonic() + self.limits.gap_s

    def _check(self) -> None:
        late = self._due - time.monotonic()
        if late > 0:  # an event came meanwhile: look again when the new limit is due
            self._timer = asyncio.get_running_loop().call_later(late, self._check)
            return
        self.expired = True
        if self._task is not None:
            self._task.cancel()

    def __enter__(self) -> "EventWatch":
        self._task = asyncio.current_task()
        self._timer = asyncio.get_running_loop().call_later(max(0.0, self._due - time.monotonic()), self._check)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self.expired and self._task is not None and hasattr(self._task, "uncancel"):
            self._task.uncancel()  # the cancel was ours, and is turned into the request's one line


class _KernelStamps:
    """The connection's socket as the transport sees it, reading with recvmsg to get the kernel's receive
    time (SO_TIMESTAMPNS): when the bytes reached the machine, however late the loop's thread got the CPU
    (a busy machine deschedules it for tens of milliseconds). Everything else passes to the socket."""

    def __init__(self, sock: socket.socket) -> None:
        self._real = sock
        self.arrival: float | None = None  # perf_counter of the last read's bytes, from the kernel's stamp

    def recv(self, size: int) -> bytes:
        data, ancillary, _, _ = self._real.recvmsg(size, _ANCILLARY)
        self.arrival = None
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(payload) >= 16:
                sec, nsec = struct.unpack_from("qq", payload)
                # both clocks read now: the arrival's age on the wall clock, carried to perf_counter
                self.arrival = time.perf_counter() - (time.time() - (sec + nsec * 1e-9))
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


_SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35 if sys.platform.startswith("linux") else -1)
_ANCILLARY = socket.CMSG_SPACE(16) if hasattr(socket, "CMSG_SPACE") else 64


def _kernel_stamps(stream: object) -> _KernelStamps | None:
    """Swap the transport's socket for one that reads the kernel's receive times (Linux); None elsewhere."""
    transport = getattr(stream, "_transport", None)
    sock = getattr(transport, "_sock", None)
    if isinstance(sock, _KernelStamps):
        return sock
    if not isinstance(sock, socket.socket) or _SO_TIMESTAMPNS < 0 or not hasattr(sock, "recvmsg"):
        return None
    try:
        sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
    except OSError:
        return None
    stamps = _KernelStamps(sock)
    transport._sock = stamps  # type: ignore[union-attr]
    return stamps


class Arrivals:
    """When the raw read that holds the chunk being parsed reached the machine (perf_counter), or None.

    The loop hands a connection's bytes to its protocol (``data_received``) as soon as epoll reports them,
    for every ready socket in turn, before any stream's task runs; the task reads them later, after the
    tasks ahead of it have parsed theirs. Stamping in ``data_received`` keeps those tasks' work out of the
    arrival time, and on Linux the stamp is the kernel's (_KernelStamps), which keeps the loop thread's own
    scheduling out too. The stamps are taken from the connection's first byte (``attach`` from the
    connect's trace), so the reads line up one for one with the protocol's queue. It needs anyio's stream,
    protocol and transport, which httpcore does not expose: where they are not found (another backend,
    another version) ``at`` stays None and the caller stamps each chunk as it gets it.
    """

    def __init__(self) -> None:
        self.at: float | None = None
        self.kernel = False  # the stamps are the kernel's receive times

    @staticmethod
    def attach(network_stream: object) -> "Arrivals | None":
        """Stamp this connection's reads from now on (once per connection); None where it cannot."""
        stream = getattr(network_stream, "_stream", None)
        while hasattr(stream, "transport_stream"):  # TLS: the reads are the socket's under it
            stream = stream.transport_stream
        protocol = getattr(stream, "_protocol", None)
        queue = getattr(protocol, "read_queue", None)
        if stream is None or protocol is None or queue is None or not hasattr(stream, "receive"):
            return None
        known = getattr(protocol, "_specledger_arrivals", None)
        if isinstance(known, Arrivals):
            return known
        out = Arrivals()
        kernel = _kernel_stamps(stream)
        out.kernel = kernel is not None
        stamps: deque[float] = deque()
        unstamped = [len(queue)]  # reads queued before we came have no stamp of theirs
        data_received, receive, clock = protocol.data_received, stream.receive, time.perf_counter

        def stamped(data: bytes) -> None:
            arrival = kernel.arrival if kernel is not None else None
            stamps.append(arrival if arrival is not None else clock())
            data_received(data)

        async def read(max_bytes: int = 65536) -> bytes:
            chunk = await receive(max_bytes)
            if unstamped[0]:
                unstamped[0] -= 1
                out.at = clock()
            else:
                out.at = stamps.popleft() if stamps else clock()
            return chunk

        protocol.data_received, stream.receive = stamped, read  # this connection's objects only
        protocol._specledger_arrivals = out
        return out

    @staticmethod
    async def trace(event: str, info: dict[str, Any]) -> None:
        """httpcore's trace hook: attach as the TCP connection is made, before its first byte."""
        if event == "connection.connect_tcp.complete" and info.get("return_value") is not None:
            Arrivals.attach(info["return_value"])


async def _said(response: httpx.Response) -> str:
    """The error body's message, read no further than its first 64 KB (kept where status_error looks)."""
    body = b""
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) >= MAX_ERROR_BODY:
            break
    said = said_in(body[:MAX_ERROR_BODY])
    setattr(response, "_specledger_said", said)
    return said
