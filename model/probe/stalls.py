"""The client's own scheduling delay, measured against a timer while a request streams.

A thread asks to sleep PERIOD_S again and again and notes by how much it woke late. On an idle
machine that is a fraction of a millisecond; when every core is busy the process waits for a turn,
and so does the thread that reads the stream: a stall of a decode time or more is when two steps
can be read as one (model.probe.merges). One thread serves every request in the process (a probe
at 64 parallel streams must not wake 64 timers every 2 ms); it runs while any request watches.
Stalls are kept per request as [end, length] in seconds on the request's clock, so the run file
holds them and a re-analysis sees them too.
"""
from __future__ import annotations

import threading
import time
from collections import deque

PERIOD_S = 0.002
REPORT_S = 0.003  # a wake-up later than this is a stall worth keeping
MAX_STALLS = 5000  # per request; a pathological run keeps its first ones
KEEP = 20000  # stalls the shared timer remembers (the oldest go first)


class _Timer:
    """The process's one timer thread, running while at least one request watches."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0
        self.stalls: deque[tuple[float, float]] = deque(maxlen=KEEP)  # (woke, late) on time.perf_counter
        self._thread: threading.Thread | None = None

    def acquire(self) -> None:
        with self.lock:
            self.users += 1
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="probe-stall-watch", daemon=True)
                self._thread.start()

    def release(self) -> None:
        with self.lock:
            self.users -= 1

    def _run(self) -> None:
        clock = time.perf_counter
        while True:
            with self.lock:
                if self.users <= 0:
                    self._thread = None
                    return
            asked = clock()
            time.sleep(PERIOD_S)
            woke = clock()
            late = woke - asked - PERIOD_S
            if late >= REPORT_S:
                with self.lock:
                    self.stalls.append((woke, late))


_TIMER = _Timer()


class StallWatch:
    """The stalls that happened while this request read, relative to ``origin`` (its perf_counter start)."""

    def __init__(self, origin: float) -> None:
        self.origin = origin
        self.stalls: list[list[float]] = []

    def __enter__(self) -> "StallWatch":
        _TIMER.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        # a stall counts for this request when it ended after the request began
        # (it may have begun before: the request's read was late all the same)
        # newest first, stopping at the first from before the request: at 64 streams a request ends every
        # few milliseconds, and a copy of the whole deque (up to KEEP) each time held the streams' loop up
        mine = []
        with _TIMER.lock:
            for woke, late in reversed(_TIMER.stalls):
                if woke <= self.origin:
                    break
                mine.append([round(woke - self.origin, 6), round(late, 6)])
        mine.reverse()
        self.stalls = mine[:MAX_STALLS]
        _TIMER.release()
