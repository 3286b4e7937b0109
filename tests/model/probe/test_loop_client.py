"""The load runner's event-loop client (model.probe.loop_client) fails as ChatClient does: one line naming the
request, against the same misbehaving server; 429s are counted on the record; and its arrival stamps come
from the connection's reads (the hook into anyio's protocol is found, not silently skipped)."""
from __future__ import annotations

import asyncio
import sys

import pytest

from model.probe.client import Limits, ProbeRequestError
from model.probe.demo_server import LoopbackServer
from model.probe.endpoint import Endpoint
from model.probe.events import FAST, RequestRecord
from model.probe.loop_client import Arrivals, LoopClient
from tests.probe_servers import bad_app

pytest.importorskip("uvicorn")

LIMITS = Limits(connect_s=2.0, first_byte_s=2.0, gap_s=1.0, total_s=3.0, retries=2, max_retry_wait_s=1.0)
MESSAGES = [{"role": "user", "content": "def f():"}]


@pytest.fixture(scope="module")
def server():
    with LoopbackServer(bad_app()) as s:
        yield s


def _record(n: int) -> RequestRecord:
    return RequestRecord(f"request fast code #{n}", FAST, "code", n - 1, 0, 0, 8)


def _two(server, model: str) -> tuple[RequestRecord, BaseException | None]:
    """The first request (which the bad server answers well), then the second (which it spoils)."""
    async def go() -> tuple[RequestRecord, BaseException | None]:
        client = LoopClient(Endpoint(server.base_url, model), None, LIMITS)
        try:
            first = await client.stream(_record(1), MESSAGES)
            assert first.output_text == " ok ok ok"
            try:
                return await client.stream(_record(2), MESSAGES), None
            except ProbeRequestError as exc:
                return _record(2), exc
        finally:
            await client.aclose()
    return asyncio.run(go())


@pytest.mark.parametrize(("model", "words"), [
    ("unauthorized", "401"), ("missing", "404"), ("malformed", "malformed"), ("cut", "cut"),
    ("stall", "no next event"), ("endless", "not finished"), ("broken", "500")])
def test_a_failure_is_one_line_naming_the_request(server, model, words):
    _, exc = _two(server, model)
    assert exc is not None and words in str(exc) and "\n" not in str(exc)
    assert str(exc).startswith("request fast code #2")


def test_a_429_is_retried_and_counted_on_the_record(server):
    record, exc = _two(server, "busy")
    assert exc is None and record.retries == 1 and record.throttled == 1 and record.output_text == " ok ok ok"


def test_arrivals_are_stamped_at_the_connections_reads(server):
    seen: list[Arrivals | None] = []

    async def go() -> RequestRecord:
        client = LoopClient(Endpoint(server.base_url, "busy"), None, LIMITS)
        original = Arrivals.attach

        def spy(stream: object) -> Arrivals | None:
            out = original(stream)
            seen.append(out)
            return out
        Arrivals.attach = staticmethod(spy)  # type: ignore[method-assign]
        try:
            return await client.stream(_record(1), MESSAGES)
        finally:
            Arrivals.attach = staticmethod(original)  # type: ignore[method-assign]
            await client.aclose()
    record = asyncio.run(go())
    # attached at the connect (the trace) and found again at the response: the same object, not None
    assert len(seen) == 2 and seen[0] is not None and seen[1] is seen[0]
    assert seen[0].at is not None and record.events and all(e.t > 0 for e in record.events)
    if sys.platform.startswith("linux"):  # the kernel's receive times (SO_TIMESTAMPNS), not the loop's
        assert seen[0].kernel and record.clock == "kernel"  # and the record says so, for the merge rule


def test_kernel_stamps_give_the_time_bytes_reached_the_socket_not_when_they_were_read():
    import socket
    import time

    from model.probe.loop_client import _KernelStamps, _SO_TIMESTAMPNS

    if not sys.platform.startswith("linux"):
        pytest.skip("SO_TIMESTAMPNS is Linux's")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    client = socket.create_connection(listener.getsockname())
    server, _ = listener.accept()
    try:
        client.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
        stamps = _KernelStamps(client)
        # the kernel turns receive stamping on a moment after the first socket asks (deferred work): a read
        # before that has no stamp (the client then uses its own time), so warm up first
        for _ in range(50):
            server.sendall(b"warm")
            time.sleep(0.01)
            assert stamps.recv(100) == b"warm"
            if stamps.arrival is not None:
                break
        sent = time.perf_counter()
        server.sendall(b"step")
        time.sleep(0.2)  # the reader is late by 200 ms, as a descheduled loop is
        read = time.perf_counter()
        assert stamps.recv(100) == b"step"
        # the bytes arrived after they were sent and at least the reader's 200 ms before it read them
        assert stamps.arrival is not None and sent - 1e-3 <= stamps.arrival <= read - 0.19, (sent, stamps.arrival, read)
        assert stamps.fileno() == client.fileno()  # everything else passes to the socket
    finally:
        for s in (client, server, listener):
            s.close()
