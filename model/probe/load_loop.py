"""The load runner's streams on one event loop: the loop's thread, and one phase (a tier at a level).

`StreamLoop` runs an asyncio event loop on a thread of its own for the length of a run (the probe's
generator stays on the caller's thread, yielding progress and checking the cancel flag). `run_phase`
sends a tier's requests at a level n streams at a time: n tasks over a shared queue, each putting what
it finished on a thread-safe queue for the generator. When the queue is empty and measured requests
are still streaming, a free task sends a load-keeping request (the plan again, not analysed; at most
PADDING_ROUNDS x (n - 1) of them), so every measured stream runs with n open to its end, as in a
batch job's steady state, instead of speeding up as the level drains; they are cancelled as soon as
the last measured one ends. ``stop`` is polled every guard.POLL_S: when it says so, every task is
cancelled, which closes its connection.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
from collections import deque
from typing import Any, Awaitable, Callable, Coroutine, TypeVar

from model.probe.events import RequestRecord
from model.probe.guard import POLL_S
from model.probe.plan import PlannedRequest

# load-keeping requests per stream slot: a short answer ends before the level's longest (a fast tier's
# steps per request differ by up to K + 1 times), so a slot may need a few to stay open to the end
PADDING_ROUNDS = 4

Result = TypeVar("Result")


class StreamLoop:
    """An event loop on its own thread ("probe-streams"), closed by ``close``."""

    def __init__(self) -> None:
        # httpcore picks its async backend (anyio's, some 300 modules) at the first request: imported here,
        # before any stream, not on the loop while the first level's events are being stamped
        import anyio._backends._asyncio  # noqa: F401
        import httpcore._backends.anyio  # noqa: F401

        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="probe-streams", daemon=True)
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, Result]) -> "concurrent.futures.Future[Result]":
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def close(self, timeout: float = 2.0, clients: "tuple[Any, ...]" = ()) -> None:
        """Cancel what still runs, close ``clients`` (their ``aclose``), stop the loop and wait for its thread
        (at most ``timeout``): one trip to the loop's thread and back, which on a loaded machine is what a
        cancel waits for."""
        if self.loop.is_closed():
            return

        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for client in clients:
                try:
                    await client.aclose()
                except Exception:  # closing what a failed stream left: nothing more to do with it
                    pass

        if self._thread.is_alive():
            try:
                self.submit(cancel_all()).result(timeout)
            except (concurrent.futures.TimeoutError, RuntimeError):
                pass
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout)
        if not self._thread.is_alive():
            self.loop.close()


async def run_phase(items: list[PlannedRequest], n: int,
                    send: Callable[[PlannedRequest, bool], Awaitable[RequestRecord | None]],
                    stop: Callable[[], bool], done: "queue.Queue[tuple[RequestRecord | None, BaseException | None]]",
                    ) -> None:
    """Send ``items`` n at a time (``send(item, padding)``); each measured result goes on ``done``."""
    todo = deque(items)
    left = len(items)
    padded = 0
    measured_done = asyncio.Event()

    async def work() -> None:
        nonlocal left, padded
        while not measured_done.is_set():
            if todo:
                item, padding = todo.popleft(), False
            elif padded < PADDING_ROUNDS * (n - 1):  # the most the estimate counts
                item, padding = items[padded % len(items)], True
                padded += 1
            else:
                return
            try:
                record = await send(item, padding)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # handed to the generator's thread, which decides
                done.put((None, exc))
                return
            if not padding:
                done.put((record, None))
                left -= 1
                if left == 0:
                    measured_done.set()

    tasks = [asyncio.create_task(work()) for _ in range(min(n, len(items)))]
    ended = asyncio.ensure_future(measured_done.wait())
    try:
        while not ended.done() and not all(t.done() for t in tasks) and not stop():
            await asyncio.wait([ended], timeout=POLL_S)
    finally:
        ended.cancel()
        for t in tasks:  # load-keeping streams once the measured ones ended; every stream on a stop
            t.cancel()
        await asyncio.gather(ended, *tasks, return_exceptions=True)
